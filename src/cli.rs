//! The command line, as clap definitions. `main.rs` dispatches on it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::demo::cli::DemoServerArgs;

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

    /// Open the TUI on this saved view ([[views]] in the config, or a built-in one:
    /// "Unassigned open", "Breaching")
    #[arg(long, value_name = "NAME")]
    pub view: Option<String>,

    /// Open the TUI on the conversations this query lists (see "Queries" in the README); for
    /// now one the service answers with one request (e.g. 'status:open assignee:none
    /// site:"Web shop"').
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
    /// Count conversations by status, site or assignee: share, ages, staleness, waiting.
    #[command(subcommand)]
    Summary(SummaryCommand),
    /// The local store (visitor names, last looks, summary samples): where, what, wipe, sync.
    #[command(subcommand)]
    Store(StoreCommand),
    /// Run the demo server: the same API on generated data, loopback only.
    DemoServer(DemoServerArgs),
    /// Check the set-up: config, key, permissions, URL and TLS, both lists, clock skew.
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
jsonl and csv stream page by page, so memory stays flat on long walks.

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
See \"Queries\" in the README.";

#[derive(Debug, Subcommand)]
pub enum ListCommand {
    /// List conversations (GET /v1/conversations), newest first as the service orders them.
    #[command(after_help = LIST_AFTER_HELP)]
    Conversations(ConversationArgs),
    /// List visitors (GET /v1/visitors).
    #[command(after_help = LIST_AFTER_HELP)]
    Visitors(VisitorArgs),
}

/// The conversation filters, as `list conversations` and `summary conversations` take them.
#[derive(Debug, Clone, Default, Args)]
pub struct ConversationFilterArgs {
    /// Only conversations of this site.
    #[arg(long, value_name = "UUID")]
    pub site_id: Option<String>,
    /// Only conversations with this status.
    #[arg(long, value_name = "STATUS", value_parser = ["open", "pending", "closed"])]
    pub status: Option<String>,
    /// Assignee: any, none (unassigned), anyone (assigned to any agent), or an agent's UUID.
    #[arg(long, value_name = "any|none|anyone|UUID", conflicts_with_all = ["unassigned", "assignee_id"])]
    pub assignee: Option<String>,
    /// The spec's form of --assignee none / anyone.
    #[arg(long, value_name = "BOOL", value_parser = clap::value_parser!(bool))]
    pub unassigned: Option<bool>,
    /// The spec's form of --assignee UUID. Cannot be combined with --unassigned.
    #[arg(long, value_name = "UUID", conflicts_with = "unassigned")]
    pub assignee_id: Option<String>,
    /// Only conversations of this visitor.
    #[arg(long, value_name = "UUID")]
    pub visitor_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct ConversationArgs {
    #[command(flatten)]
    pub filter: ConversationFilterArgs,
    /// Only waiting conversations (open, unassigned) past the first_response target of [sla]:
    /// walks every page (filtered here) and adds due_secs (negative: overdue) and a DUE column.
    #[arg(long)]
    pub breaching: bool,
    /// Only waiting conversations past warn_at of the first_response target, not past it
    /// (with --breaching: both).
    #[arg(long)]
    pub imminent: bool,
    /// Only conversations of the visitors with this e-mail: the service is asked for them
    /// (never the local store, which may be stale), each one's conversations are walked and
    /// merged newest first. Exits 2 when no visitor has it.
    #[arg(long, value_name = "EMAIL", conflicts_with_all = ["visitor_id", "breaching", "imminent"])]
    pub visitor_email: Option<String>,
    /// Add each row's visitor (name, email, externalId, attributes) from the local store:
    /// `"visitor": null` (json/jsonl) or visitorKnown false (csv) when it is not known yet.
    #[arg(long, conflicts_with_all = ["breaching", "imminent"])]
    pub with_visitor: bool,
    #[command(flatten)]
    pub query: QueryArgs,
    #[command(flatten)]
    pub common: CommonListArgs,
}

/// `-q QUERY` and `--explain`, on `list` (the filter flags become terms of the same query).
#[derive(Debug, Clone, Default, Args)]
pub struct QueryArgs {
    /// A query (see "Queries" in the README), e.g. 'status:open,pending assignee:none,me
    /// -site:Careers age:>10m'. Filter flags given too become terms of it. A query that starts
    /// with - is taken as one: -q '-status:closed'.
    #[arg(
        short = 'q',
        long = "query",
        value_name = "QUERY",
        allow_hyphen_values = true,
        conflicts_with_all = ["breaching", "imminent", "visitor_email", "with_visitor"]
    )]
    pub text: Option<String>,
    /// Print the plan instead of the rows: each request (stream) convo would send, what it
    /// checks itself on every row, and why. No list request is sent (visitor: e-mails are
    /// looked up).
    #[arg(long, conflicts_with_all = ["breaching", "imminent", "visitor_email", "with_visitor"])]
    pub explain: bool,
}

impl QueryArgs {
    /// Whether the rows are asked for through a query (`-q` or `--explain`).
    pub fn is_set(&self) -> bool {
        self.text.is_some() || self.explain
    }
}

#[derive(Debug, Args)]
pub struct VisitorArgs {
    /// Only visitors with this e-mail address (sent trimmed, as typed).
    #[arg(long, value_name = "EMAIL")]
    pub email: Option<String>,
    /// Only visitors with this identifier from your own system.
    #[arg(long, value_name = "ID")]
    pub external_id: Option<String>,
    #[command(flatten)]
    pub query: VisitorQueryArgs,
    #[command(flatten)]
    pub common: CommonListArgs,
}

/// `-q QUERY` and `--explain` of `list visitors` and `summary conversations`.
#[derive(Debug, Clone, Default, Args)]
pub struct VisitorQueryArgs {
    /// A query (see "Queries" in the README), e.g. 'email:ana@example.com,bo@example.com
    /// attr.plan:pro age:<7d' for visitors, 'is:waiting site:"Web shop",Careers' for a
    /// summary. Filter flags given too become terms of it.
    #[arg(
        short = 'q',
        long = "query",
        value_name = "QUERY",
        allow_hyphen_values = true
    )]
    pub text: Option<String>,
    /// Print the plan instead of the rows (see list conversations --explain).
    #[arg(long)]
    pub explain: bool,
}

impl VisitorQueryArgs {
    /// Whether a query is given (`-q` or `--explain`).
    pub fn is_set(&self) -> bool {
        self.text.is_some() || self.explain
    }
}

#[derive(Debug, Args)]
pub struct CommonListArgs {
    /// Rows per request, 1 to 100 (default: page_size from the config, else 50).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub limit: Option<i64>,
    /// Walk every page to the end of the list.
    #[arg(long, conflicts_with = "max")]
    pub all: bool,
    /// Walk pages until N rows have been printed.
    #[arg(long, value_name = "N")]
    pub max: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// CSV cells exactly as sent: no leading ' on cells a spreadsheet would run as a formula
    /// (those starting with = + - @, tab or CR). For pipelines, not for spreadsheets.
    #[arg(long)]
    pub csv_raw: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns for people, text sanitised; on a terminal fitted to its width (cells
    /// cut, columns left out and named on stderr), piped never cut.
    Table,
    /// One JSON array.
    Json,
    /// One JSON object a line.
    Jsonl,
    /// RFC 4180 CSV with a header line.
    Csv,
}

const SUMMARY_AFTER_HELP: &str = "\
Walks every page (or --max N rows) and counts as it goes: memory stays flat.
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

#[derive(Debug, Subcommand)]
pub enum SummaryCommand {
    /// Summarise conversations (GET /v1/conversations, every page).
    #[command(after_help = SUMMARY_AFTER_HELP)]
    Conversations(SummaryArgs),
}

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
