//! The command line, as clap definitions: the top of the commands. `main.rs` dispatches on
//! it; the commands take options of their own ([`convo_query::options`],
//! [`convo_commands::summary::options`], [`convo_commands::store_command::Action`], [`convo_demo::DemoOptions`]),
//! which this module builds from the flags (`args.rs`, `demo.rs`). Nothing below imports clap.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};

/// A value of an enum of a lower crate as the command line spells it: `Choice(Format::Csv)`.
/// The enums' own crates do not know clap (and Rust's orphan rule keeps `impl
/// clap::ValueEnum for Format` out of this crate), so the spelling lives on this wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice<T>(pub T);

/// How the values of an enum of a lower layer are spelled on the command line: each variant's
/// name and its help (`impl clap::ValueEnum for Choice<T>`).
macro_rules! value_enum {
    ($t:ident { $($v:ident => $name:literal $(: $help:literal)?),+ $(,)? }) => {
        impl clap::ValueEnum for $crate::cli::Choice<$t> {
            fn value_variants<'a>() -> &'a [Self] {
                const ALL: &[$crate::cli::Choice<$t>] = &[$($crate::cli::Choice($t::$v)),+];
                ALL
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(match &self.0 {
                    $($t::$v => clap::builder::PossibleValue::new($name)$(.help($help))?),+
                })
            }
        }
    };
}

mod args;
pub mod demo;
mod views;

pub use args::{
    CommonListArgs, ConversationArgs, ConversationFilterArgs, QueryArgs, SummaryArgs, VisitorArgs,
    VisitorQueryArgs,
};
use demo::DemoServerArgs;
pub use views::{ExporterArgs, ViewsArgs};

/// `convo completions SHELL`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) {
    clap_complete::generate(shell, &mut Cli::command(), "convo", out);
}

/// `convo man`.
pub fn man(out: &mut dyn Write) -> io::Result<()> {
    clap_mangen::Man::new(Cli::command()).render(out)
}

const AFTER_HELP: &str = "\
Examples:
  convo --demo                           browse generated data from an embedded server
  convo                                  browse the service in your config file
  convo --view 'Unassigned open'         open on a saved view
  convo --query 'assignee:me status:open'  open on a query
  convo list conversations --status open --assignee none --all --format csv
  convo list visitors --email ana@example.com --format json

Config: ~/.config/convo/config.toml (see config.example.toml), or --config / CONVO_CONFIG.
The key comes from CONVO_API_KEY, api_key_command or api_key, in that order.";

/// convo: a keyboard-driven terminal browser for the conversations and visitors of a
/// customer-chat service.
#[derive(Debug, Parser)]
#[command(name = "convo", version = crate::VERSION, about, after_help = AFTER_HELP)]
pub struct Cli {
    /// Config file to read instead of the default (also CONVO_CONFIG).
    #[arg(
        long,
        global = true,
        value_name = "PATH",
        help_heading = "Global options"
    )]
    pub config: Option<PathBuf>,

    /// Base URL of the service, overriding the config file and CONVO_BASE_URL.
    #[arg(
        long,
        global = true,
        value_name = "URL",
        help_heading = "Global options"
    )]
    pub base_url: Option<String>,

    /// Profile of the config file to use ([profiles.NAME]; also CONVO_PROFILE).
    #[arg(
        long,
        global = true,
        value_name = "NAME",
        help_heading = "Global options"
    )]
    pub profile: Option<String>,

    /// Proxy for HTTPS requests (http://[user:password@]host:port), or "none" to ignore
    /// HTTPS_PROXY/ALL_PROXY; wins over the config's `proxy` and the environment.
    #[arg(
        long,
        global = true,
        value_name = "URL|none",
        help_heading = "Global options"
    )]
    pub proxy: Option<String>,

    /// Start an embedded demo server on a free loopback port and use it (no config needed).
    #[arg(long, global = true, help_heading = "Global options")]
    pub demo: bool,

    /// With --demo: the demo server allows at most N requests a minute (with RateLimit
    /// headers), as a real service does; the browser spends them user first.
    #[arg(
        long,
        global = true,
        value_name = "N",
        requires = "demo",
        help_heading = "Global options",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub demo_rate_limit: Option<u32>,

    /// Open the TUI on this saved view ([[views]] in the config, or a built-in one:
    /// "Unassigned open", "Breaching", "My open" with agent_id set)
    #[arg(long, value_name = "NAME")]
    pub view: Option<String>,

    /// Start the TUI on the unfiltered list, not where the last session quit (its view or
    /// query, sort and tab are otherwise reopened, from the profile's local store)
    #[arg(long, conflicts_with_all = ["view", "query"])]
    pub fresh: bool,

    /// Open the TUI on the conversations this query lists (docs/queries.md), e.g.
    /// 'status:open,pending assignee:me,none site:"Web shop"'.
    #[arg(
        long,
        value_name = "QUERY",
        allow_hyphen_values = true,
        conflicts_with = "view"
    )]
    pub query: Option<String>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print a list for scripts (json, jsonl, csv or an aligned table).
    #[command(subcommand)]
    List(ListCommand),
    /// Count conversations by status, site or assignee: share, ages, staleness, waiting;
    /// `--views`: every view's counts, one row each.
    Summary(SummaryTop),
    /// Serve every view's counts to Prometheus (/metrics), each view walked once per interval
    /// whoever looks: one exporter serves a whole team.
    #[command(after_help = exporter_after_help())]
    Exporter(ExporterArgs),
    /// The local store (visitor names, last looks, summary samples): where, what, wipe, sync.
    #[command(subcommand)]
    Store(StoreCommand),
    /// Run the demo server: the same API on generated data, loopback only.
    DemoServer(DemoServerArgs),
    /// Check the set-up (its checks: `convo_commands::setup::CHECKS`).
    #[command(about = convo_commands::setup::doctor_about())]
    Doctor,
    /// Create or manage the config file.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print a shell completion script (e.g. `convo completions bash > ~/.local/share/bash-completion/completions/convo`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), e.g. `convo man > ~/.local/share/man/man1/convo.1`.
    Man,
}

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Print where this profile's store is (one file per profile and base URL).
    Path,
    /// Where it is, how big, how many visitors, where the visitor walk stands.
    Stats,
    /// Wipe it: every visitor, last look and sample (and damaged copies set aside).
    Clear,
    /// Walk the visitors list into the store now (as the TUI does in the background), with a
    /// progress bar on a terminal; resumes where an interrupted walk stopped.
    Sync {
        /// Requests per second (default: visitor_sync_rps from the config, else 2).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=50), conflicts_with = "unpaced")]
        rps: Option<u32>,
        /// As fast as the service answers (mind its rate limits).
        #[arg(long)]
        unpaced: bool,
    },
}

impl StoreCommand {
    /// What `convo store` is asked to do.
    pub fn action(self) -> convo_commands::store_command::Action {
        use convo_commands::store_command::Action;
        match self {
            StoreCommand::Path => Action::Path,
            StoreCommand::Stats => Action::Stats,
            StoreCommand::Clear => Action::Clear,
            StoreCommand::Sync { rps, unpaced } => Action::Sync { rps, unpaced },
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Ask for the base URL and the key (read without echo), check them with one request, and
    /// write the config file with mode 0600. CONVO_API_KEY and --base-url skip the questions.
    Init {
        /// Overwrite an existing config file.
        #[arg(long)]
        force: bool,
    },
    /// Print where the config file is looked for.
    Path,
}

const LIST_AFTER_HELP: &str = "\
Output goes to stdout; progress (on a terminal only), warnings and errors to stderr.
json, jsonl and csv stream page by page: rows are not held, only each row's id (to drop
repeats), about 32 MiB at a million rows.

CSV is safe to open and to cat: a cell a spreadsheet would run as a formula gets a
leading ', and terminal controls from the data (ESC, CR, C1 codes, bidi overrides) are
written as visible stand-ins (␛, ␍, \\u{202e}); newlines and tabs stay. --csv-raw writes
the bytes as sent, for pipelines. JSON and JSONL carry the exact strings, escaped.

Exit codes:
  0  ok
  2  usage error, invalid filter or config
  3  the key was rejected (401) or may not list this (403)
  4  network or server error (after retries)
  5  the service sent data convo cannot read (some or all rows), or ended the walk
     early (no cursor, a repeated cursor, no progress), or some streams of a query
     failed; the rows it sent are printed

Queries (-q): terms separated by spaces, all of which hold; field:a,b is any of the values;
-field:a negates; \"...\" quotes; a bare word is free text. --explain shows the plan.
The query language: docs/queries.md.";

#[derive(Debug, Subcommand)]
pub enum ListCommand {
    /// List conversations (GET /v1/conversations), newest first as the service orders them.
    #[command(after_help = LIST_AFTER_HELP)]
    Conversations(ConversationArgs),
    /// List visitors (GET /v1/visitors).
    #[command(after_help = LIST_AFTER_HELP)]
    Visitors(VisitorArgs),
}

const SUMMARY_AFTER_HELP: &str = "\
Walks every page (or --max N rows) and counts as it goes: rows are not held, only each
row's id (to drop repeats), about 32 MiB at a million rows.
The output says whether it covers the whole list (\"all 1,234\") or not
(\"1,200 of ≥1,200 loaded; more available\"); it never claims a total it has not seen.
Columns: count, share, oldest and median age (createdAt), stale (not closed, no update
for --stale-after), waiting (open and unassigned) and the oldest waiting.
In json, each bucket's `filter` holds the query that lists exactly that bucket.
--sla adds imminent, breaching and longest overdue (first response) and resolution's counts,
from [sla] in the config (approximations from list data alone).
--format prometheus: convo_conversations, convo_conversations_waiting,
convo_conversations_imminent/_breaching, convo_resolution_imminent/_breaching,
convo_oldest_waiting_seconds, one sample per bucket; convo_summary_complete 0 when partial.

Examples:
  convo summary conversations --by assignee --status open
  convo summary conversations --by site --stale-after 30m --format json
  convo summary conversations --sla --watch 30s
  convo summary conversations --by site --format prometheus > /var/lib/node_exporter/convo.prom.$$ \
    && mv /var/lib/node_exporter/convo.prom.$$ /var/lib/node_exporter/convo.prom

Exit codes: as for `convo list` (0 ok, 2 usage, 3 key refused, 4 network, 5 bad data or\na walk the service ended early).";

/// `convo summary`: `conversations` (one filter or query), or `--views` (every view).
#[derive(Debug, clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    arg_required_else_help = true,
    after_help = VIEWS_AFTER_HELP
)]
pub struct SummaryTop {
    #[command(flatten)]
    pub views: ViewsArgs,
    #[command(subcommand)]
    pub command: Option<SummaryCommand>,
}

const VIEWS_AFTER_HELP: &str = "\
--views walks every view (\"Unassigned open\", \"Breaching\" with a first-response target,
\"My open\" with agent_id, then [[views]] in the config) one after another, as `summary
conversations -q` walks a query, and prints one row per view.
A view past its page budget (--max-pages) shows \"≥ N\"; a view that fails shows its error and
the others are printed (exit 5).

Examples:
  convo summary --views
  convo summary --views --format json
  convo summary --views --format prometheus > /var/lib/node_exporter/convo.prom.$$ \\
    && mv /var/lib/node_exporter/convo.prom.$$ /var/lib/node_exporter/convo.prom";

/// `convo exporter --help`'s end: how it walks, its cost, the series (from the exporter's own
/// table, `convo_commands::exporter::series`), the assets, examples.
fn exporter_after_help() -> String {
    format!(
        "\
Every interval, each view (built-in and [[views]], but those with exporter = false or named in
exporter_exclude) is walked once, as `convo summary --views` walks it; /metrics serves the
last complete walk of each view (never one under way), so its cost to the service is one walk
per view per interval, however many scrape it: it says the requests a round and a minute at
start and on /, and refuses an interval whose rounds the service's budget cannot take (exit
2). A view whose walk fails keeps its figures, with convo_view_up 0 and
convo_view_figures_age_seconds growing. SIGTERM or Ctrl-C stops it.

{}
Alert rules, an Alertmanager example, a Grafana dashboard and a systemd unit: assets/ in the
source (/usr/share/doc/convo/examples/ in the Debian package); docs/exporter.md.

Examples:
  convo exporter
  convo exporter --listen 127.0.0.1:9464 --interval 30s
  convo exporter --listen 0.0.0.0:9464 --allow-remote",
        convo_commands::exporter::series::help()
    )
}

#[derive(Debug, Subcommand)]
pub enum SummaryCommand {
    /// Summarise conversations (GET /v1/conversations, every page).
    #[command(after_help = SUMMARY_AFTER_HELP)]
    Conversations(SummaryArgs),
}
