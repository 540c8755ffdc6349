//! The options of `convo summary conversations`, declared with clap's derive so that
//! `cli.rs` flattens them into the command line.

use clap::{Args, ValueEnum};

use crate::options::{ConversationFilterArgs, VisitorQueryArgs};

/// `convo summary conversations`: the filters of `list conversations`, and how to group.
#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// Group by status, site or assignee.
    #[arg(long, value_enum, default_value_t = crate::summary::By::Status)]
    pub by: crate::summary::By,
    #[command(flatten)]
    pub filter: ConversationFilterArgs,
    #[command(flatten)]
    pub query: VisitorQueryArgs,
    /// A conversation not closed is stale after this long without an update (e.g. 30m, 2h, 1d;
    /// default: `stale_after` from the config, else 2h).
    #[arg(long, value_name = "DURATION", value_parser = crate::summary::parse_duration)]
    pub stale_after: Option<i64>,
    /// Stop after N conversations; the summary then says it is partial.
    #[arg(long, value_name = "N")]
    pub max: Option<u64>,
    /// Rows per request, 1 to 100 (default: page_size from the config, else 50).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub limit: Option<i64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SummaryFormat::Table)]
    pub format: SummaryFormat,
    /// Add the counts against the response-time targets of [sla] in the config: imminent,
    /// breaching and the longest overdue (first response), and resolution's own counts.
    #[arg(long)]
    pub sla: bool,
    /// Also say how many conversations are new or changed since this filter was last looked
    /// at in the browser (what the local store kept when it was left)
    #[arg(long)]
    pub since_last: bool,
    /// Walk again every DURATION (e.g. 30s, 1m) until Ctrl-C: on a terminal the table is redrawn
    /// in place (a wallboard); otherwise one JSON line per sample.
    #[arg(long, value_name = "DURATION", value_parser = crate::summary::parse_duration)]
    pub watch: Option<i64>,
}

/// Output formats of `convo summary`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SummaryFormat {
    /// Aligned columns with a bar, a total and what the summary covers; on a terminal fitted
    /// to its width (columns left out are named under it).
    Table,
    /// One JSON object; ages in seconds.
    Json,
    /// RFC 4180 CSV with a header line; ages in seconds.
    Csv,
    /// Prometheus text format for node_exporter's textfile collector: gauges per bucket,
    /// labelled by the grouping; targets' gauges when [sla] sets them.
    Prometheus,
}
