//! The options of `convo list` and `convo summary` (filters, `-q`, paging, formats), declared
//! with clap's derive so that `cli.rs`, the top, flattens them into the command line; and the
//! API filters they build. Below the commands, which take them, and above `api`.

use clap::{Args, ValueEnum};

use crate::query::quote;

use crate::api::{
    Assignee, ConversationFilter, FilterError, Status, VisitorFilter, filter::parse_uuid,
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

/// Builds the conversations filter from the command line, validating every value.
pub fn conversation_filter(a: &ConversationFilterArgs) -> Result<ConversationFilter, FilterError> {
    let opt_uuid =
        |field, v: &Option<String>| v.as_deref().map(|s| parse_uuid(field, s)).transpose();
    let assignee = match &a.assignee {
        Some(s) => Assignee::parse(s)?,
        None => Assignee::from_spec_params(a.unassigned, opt_uuid("assignee_id", &a.assignee_id)?)?
            .unwrap_or_default(),
    };
    Ok(ConversationFilter {
        site_id: opt_uuid("site_id", &a.site_id)?,
        status: a
            .status
            .as_deref()
            .map(|s| Status::parse_filter(s).ok_or_else(|| FilterError::BadStatus(s.into())))
            .transpose()?,
        assignee,
        visitor_id: opt_uuid("visitor_id", &a.visitor_id)?,
        by_email: None,
    })
}

/// Builds the visitors filter from the command line.
pub fn visitor_filter(a: &VisitorArgs) -> VisitorFilter {
    VisitorFilter {
        email: a.email.clone(),
        external_id: a.external_id.clone(),
    }
}

/// The terms the conversations filter flags stand for.
pub fn conversation_flag_terms(f: &ConversationFilterArgs) -> Vec<String> {
    let mut t = Vec::new();
    if let Some(s) = &f.status {
        t.push(format!("status:{}", quote(s)));
    }
    if let Some(s) = &f.site_id {
        t.push(format!("site:{}", quote(s)));
    }
    match (&f.assignee, f.unassigned, &f.assignee_id) {
        (Some(x), _, _) if !x.trim().eq_ignore_ascii_case("any") => {
            t.push(format!("assignee:{}", quote(x)))
        }
        (_, Some(true), _) => t.push("assignee:none".into()),
        (_, Some(false), _) => t.push("assignee:anyone".into()),
        (_, _, Some(id)) => t.push(format!("assignee:{}", quote(id))),
        _ => {}
    }
    if let Some(v) = &f.visitor_id {
        t.push(format!("visitor:{}", quote(v)));
    }
    t
}
