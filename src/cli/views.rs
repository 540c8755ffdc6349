//! The flags of `convo summary --views` and `convo exporter`, and the options they build
//! ([`convo_commands::summary::options::ViewsOptions`], [`convo_commands::exporter::ExporterOptions`]).

use super::Choice;
use std::net::SocketAddr;

use clap::Args;

use convo_commands::exporter::{DEFAULT_LISTEN, ExporterOptions};
use convo_commands::summary::options::{SummaryFormat, ViewsOptions};
use convo_commands::summary::{By, parse_duration};

/// `convo summary --views`.
#[derive(Debug, Args)]
pub struct ViewsArgs {
    /// Every view (the built-in ones, then [[views]] in the config), one row each: matches
    /// (exact, or "≥ N" past the page budget), waiting, oldest waiting, imminent, breaching,
    /// when it was read, and its error if it failed (the others are printed; exit 5).
    #[arg(long, required = true)]
    pub views: bool,
    /// Output format (prometheus: the exporter's series, a `view` label on every sample).
    #[arg(long, value_enum, default_value_t = Choice(SummaryFormat::Table))]
    pub format: Choice<SummaryFormat>,
    /// Prometheus: group the summary gauges by status, site or assignee.
    #[arg(long, value_enum, default_value_t = Choice(By::Status))]
    pub by: Choice<By>,
    /// Requests one view may send; past it the count is "≥ N" (default: scan_max_pages from
    /// the config, else 50).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pages: Option<u64>,
    /// Rows per request, 1 to 100 (default: page_size from the config, else 50).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub limit: Option<i64>,
}

impl From<&ViewsArgs> for ViewsOptions {
    fn from(a: &ViewsArgs) -> Self {
        ViewsOptions {
            format: a.format.0,
            by: a.by.0,
            max_pages: a.max_pages,
            limit: a.limit,
        }
    }
}

/// `convo exporter`.
#[derive(Debug, Args)]
pub struct ExporterArgs {
    /// Where to serve /metrics and /healthz. Loopback unless --allow-remote.
    #[arg(long, value_name = "ADDR:PORT", default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Allow --listen on an address other than loopback (anyone who reaches it reads every
    /// view's figures; the key is never served).
    #[arg(long)]
    pub allow_remote: bool,
    /// Walk every view this often (e.g. 30s, 1m; default: exporter_interval from the config,
    /// else 60s). A scrape never walks: it serves the last complete walk.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub interval: Option<i64>,
    /// Group the summary gauges by status, site or assignee.
    #[arg(long, value_enum, default_value_t = Choice(By::Status))]
    pub by: Choice<By>,
    /// Requests one view may send per walk; past it the count is a lower bound
    /// (convo_view_complete 0; default: scan_max_pages from the config, else 50).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pages: Option<u64>,
    /// Rows per request, 1 to 100 (default: page_size from the config, else 50).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub limit: Option<i64>,
}

impl ExporterArgs {
    /// The exporter's options; `config_interval`: `exporter_interval` from the config.
    pub fn options(&self, config_interval: Option<u64>) -> ExporterOptions {
        ExporterOptions {
            listen: self.listen,
            allow_remote: self.allow_remote,
            interval_secs: self.interval.map(|s| s.max(0) as u64).or(config_interval),
            by: self.by.0,
            max_pages: self.max_pages,
            limit: self.limit,
        }
    }
}
