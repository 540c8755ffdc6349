//! The options of `convo list` and `convo summary` as clap declares them (help texts,
//! conflicts), and how they become the commands' own options ([`convo_query::options`],
//! [`convo_commands::summary::options`]) and how their values are spelled.

use super::Choice;
use clap::Args;

use convo_commands::summary::options::{SummaryFormat, SummaryOptions};
use convo_commands::summary::{By, parse_duration};
use convo_query::options::{
    CommonOptions, ConversationFilterOptions, ConversationOptions, Format, QueryOptions,
    VisitorOptions,
};

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
    #[arg(long, value_name = "any|none|anyone|UUID")]
    pub assignee: Option<String>,
    /// The spec's form of --assignee none / anyone.
    #[arg(long, value_name = "BOOL", value_parser = clap::value_parser!(bool))]
    pub unassigned: Option<bool>,
    /// The spec's form of --assignee UUID (one of the three assignee flags at most).
    #[arg(long, value_name = "UUID")]
    pub assignee_id: Option<String>,
    /// Only conversations of this visitor.
    #[arg(long, value_name = "UUID")]
    pub visitor_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct ConversationArgs {
    #[command(flatten)]
    pub filter: ConversationFilterArgs,
    /// Only waiting conversations (open, unassigned) past the first_response target of [sla]
    /// (the term due:breaching): walks every page (filtered here) and adds due_secs
    /// (negative: overdue) and a DUE column (not with --with-visitor, which adds its own).
    #[arg(long)]
    pub breaching: bool,
    /// Only waiting conversations past warn_at of the first_response target, not past it
    /// (due:imminent; with --breaching: both).
    #[arg(long)]
    pub imminent: bool,
    /// Only conversations of the visitors with this e-mail (the term visitor:EMAIL): the
    /// service is asked for them (never the local store, which may be stale), each one's
    /// conversations are walked and merged. Exits 2 when no visitor has it.
    #[arg(long, value_name = "EMAIL")]
    pub visitor_email: Option<String>,
    /// Add each row's visitor (name, email, externalId, attributes) from the local store:
    /// `"visitor": null` (json/jsonl) or visitorKnown false (csv) when it is not known yet.
    /// An output option: it works with -q and any filter.
    #[arg(long)]
    pub with_visitor: bool,
    #[command(flatten)]
    pub query: QueryArgs,
    #[command(flatten)]
    pub common: CommonListArgs,
}

/// `-q QUERY` and `--explain`, on `list` (the filter flags become terms of the same query).
#[derive(Debug, Clone, Default, Args)]
pub struct QueryArgs {
    /// A query (docs/queries.md), e.g. 'status:open,pending assignee:none,me
    /// -site:Careers age:>10m'. Filter flags given too become terms of it (--status open is
    /// status:open, --breaching due:breaching, --visitor-email E visitor:E); a field given by
    /// both is an error. A query that starts with - is taken as one: -q '-status:closed'.
    #[arg(
        short = 'q',
        long = "query",
        value_name = "QUERY",
        allow_hyphen_values = true
    )]
    pub text: Option<String>,
    /// Print the plan instead of the rows: the query (-q and the flags' terms), each request
    /// (stream) convo would send, what it checks itself on every row, and why. No list
    /// request is sent (visitor: e-mails are looked up).
    #[arg(long)]
    pub explain: bool,
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
    /// A query (docs/queries.md), e.g. 'email:ana@example.com,bo@example.com
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
    #[arg(long, value_enum, default_value_t = Choice(Format::Table))]
    pub format: Choice<Format>,
    /// CSV cells exactly as sent: no leading ' on cells a spreadsheet would run as a formula
    /// (those starting with = + - @, tab or CR), terminal controls (ESC, CR) kept as bytes.
    /// For pipelines, not for spreadsheets nor for cat.
    #[arg(long)]
    pub csv_raw: bool,
}

/// `convo summary conversations`: the filters of `list conversations`, and how to group.
#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// Group by status, site or assignee.
    #[arg(long, value_enum, default_value_t = Choice(By::Status))]
    pub by: Choice<By>,
    #[command(flatten)]
    pub filter: ConversationFilterArgs,
    #[command(flatten)]
    pub query: VisitorQueryArgs,
    /// A conversation not closed is stale after this long without an update (e.g. 30m, 2h, 1d;
    /// default: `stale_after` from the config, else 2h).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub stale_after: Option<i64>,
    /// Stop after N conversations; the summary then says it is partial.
    #[arg(long, value_name = "N")]
    pub max: Option<u64>,
    /// Stop after N requests (a page budget); the summary then says it is partial.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_pages: Option<u64>,
    /// Rows per request, 1 to 100 (default: page_size from the config, else 50).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub limit: Option<i64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Choice(SummaryFormat::Table))]
    pub format: Choice<SummaryFormat>,
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
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub watch: Option<i64>,
}

impl From<ConversationFilterArgs> for ConversationFilterOptions {
    fn from(a: ConversationFilterArgs) -> Self {
        ConversationFilterOptions {
            site_id: a.site_id,
            status: a.status,
            assignee: a.assignee,
            unassigned: a.unassigned,
            assignee_id: a.assignee_id,
            visitor_id: a.visitor_id,
        }
    }
}

impl From<ConversationArgs> for ConversationOptions {
    fn from(a: ConversationArgs) -> Self {
        ConversationOptions {
            filter: a.filter.into(),
            breaching: a.breaching,
            imminent: a.imminent,
            visitor_email: a.visitor_email,
            with_visitor: a.with_visitor,
            query: a.query.into(),
            common: a.common.into(),
        }
    }
}

impl From<QueryArgs> for QueryOptions {
    fn from(a: QueryArgs) -> Self {
        QueryOptions {
            text: a.text,
            explain: a.explain,
        }
    }
}

impl From<VisitorQueryArgs> for QueryOptions {
    fn from(a: VisitorQueryArgs) -> Self {
        QueryOptions {
            text: a.text,
            explain: a.explain,
        }
    }
}

impl From<VisitorArgs> for VisitorOptions {
    fn from(a: VisitorArgs) -> Self {
        VisitorOptions {
            email: a.email,
            external_id: a.external_id,
            query: a.query.into(),
            common: a.common.into(),
        }
    }
}

impl From<CommonListArgs> for CommonOptions {
    fn from(a: CommonListArgs) -> Self {
        CommonOptions {
            limit: a.limit,
            all: a.all,
            max: a.max,
            format: a.format.0,
            csv_raw: a.csv_raw,
        }
    }
}

impl From<SummaryArgs> for SummaryOptions {
    fn from(a: SummaryArgs) -> Self {
        SummaryOptions {
            by: a.by.0,
            filter: a.filter.into(),
            query: a.query.into(),
            stale_after: a.stale_after,
            max: a.max,
            max_pages: a.max_pages,
            limit: a.limit,
            format: a.format.0,
            sla: a.sla,
            since_last: a.since_last,
            watch: a.watch,
        }
    }
}

value_enum!(Format {
    Table => "table": "Aligned columns for people, text sanitised; on a terminal fitted to its \
        width (cells cut, columns left out and named on stderr), piped never cut",
    Json => "json": "One JSON array",
    Jsonl => "jsonl": "One JSON object a line",
    Csv => "csv": "RFC 4180 CSV with a header line",
});

value_enum!(SummaryFormat {
    Table => "table": "Aligned columns with a bar, a total and what the summary covers; on a \
        terminal fitted to its width (columns left out are named under it)",
    Json => "json": "One JSON object; ages in seconds",
    Csv => "csv": "RFC 4180 CSV with a header line; ages in seconds",
    Prometheus => "prometheus": "Prometheus text format for node_exporter's textfile \
        collector: gauges per bucket, labelled by the grouping; targets' gauges when [sla] sets \
        them",
});

value_enum!(By {
    Status => "status",
    Site => "site",
    Assignee => "assignee",
});
