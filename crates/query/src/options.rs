//! The options of `convo list` and `convo summary` (filters, `-q`, paging, formats), as plain
//! values the commands take, and the API filters and query terms they stand for. `cli`, the
//! top, builds them from the command line. Below the commands, above `query` and `api`.

use crate::query::quote;
pub use crate::query::run::FlagTerm;

use convo_api::{
    Assignee, ConversationFilter, FilterError, Limit, Status, VisitorFilter, filter::parse_uuid,
};

/// The conversation filters, as `list conversations` and `summary conversations` take them:
/// the values as given, validated by [`conversation_filter`].
#[derive(Debug, Clone, Default)]
pub struct ConversationFilterOptions {
    /// Only conversations of this site (a UUID).
    pub site_id: Option<String>,
    /// Only conversations with this status (`open`, `pending`, `closed`).
    pub status: Option<String>,
    /// `any`, `none` (unassigned), `anyone` (assigned to any agent) or an agent's UUID.
    pub assignee: Option<String>,
    /// The spec's form of `assignee` none (`true`) / anyone (`false`).
    pub unassigned: Option<bool>,
    /// The spec's form of `assignee` UUID.
    pub assignee_id: Option<String>,
    /// Only conversations of this visitor (a UUID).
    pub visitor_id: Option<String>,
}

/// `convo list conversations`.
#[derive(Debug, Clone, Default)]
pub struct ConversationOptions {
    pub filter: ConversationFilterOptions,
    /// Only waiting conversations past the first_response target.
    pub breaching: bool,
    /// Only waiting conversations past warn_at of the first_response target, not past it.
    pub imminent: bool,
    /// Only conversations of the visitors with this e-mail (asked of the service).
    pub visitor_email: Option<String>,
    /// Add each row's visitor from the local store.
    pub with_visitor: bool,
    pub query: QueryOptions,
    pub common: CommonOptions,
}

/// `-q QUERY` and `--explain` (the filter flags become terms of the same query).
#[derive(Debug, Clone, Default)]
pub struct QueryOptions {
    /// The query as written.
    pub text: Option<String>,
    /// Print the plan instead of the rows.
    pub explain: bool,
}

impl QueryOptions {
    /// Whether the rows are asked for through a query (`-q` or `--explain`).
    pub fn is_set(&self) -> bool {
        self.text.is_some() || self.explain
    }
}

/// `convo list visitors`.
#[derive(Debug, Clone, Default)]
pub struct VisitorOptions {
    /// Only visitors with this e-mail address (sent trimmed, as typed).
    pub email: Option<String>,
    /// Only visitors with this identifier from the user's own system.
    pub external_id: Option<String>,
    pub query: QueryOptions,
    pub common: CommonOptions,
}

/// How much of a list to walk and how to print it.
#[derive(Debug, Clone, Default)]
pub struct CommonOptions {
    /// Rows per request (default: `page_size` from the config); checked by `Limit::new`.
    pub limit: Option<i64>,
    /// Walk every page to the end of the list.
    pub all: bool,
    /// Walk pages until this many rows have been printed.
    pub max: Option<u64>,
    pub format: Format,
    /// CSV cells exactly as sent (no leading `'` on formula-like cells).
    pub csv_raw: bool,
}

impl CommonOptions {
    /// Rows per request: `--limit` when given (1 to 100), else the config's `page_size`.
    pub fn limit_or(&self, page_size: Limit) -> Result<Limit, FilterError> {
        match self.limit {
            Some(n) => Limit::new(n),
            None => Ok(page_size),
        }
    }

    /// Whether one page is printed (neither `--all` nor `--max`).
    pub fn one_page(&self) -> bool {
        !self.all && self.max.is_none()
    }

    /// The rows to print at most: none with `--all`, else `--max` or one page of `limit`.
    pub fn cap(&self, limit: Limit) -> Option<u64> {
        (!self.all).then(|| self.max.unwrap_or(limit.get() as u64))
    }

    /// The rows per request and the cap of a walk that asks for no more than it prints: the
    /// limit is lowered to a smaller cap.
    pub fn paging(&self, page_size: Limit) -> Result<(Limit, Option<u64>), FilterError> {
        let limit = self.limit_or(page_size)?;
        let cap = self.cap(limit);
        match cap {
            Some(m) if m < limit.get() as u64 => Ok((Limit::new(m.max(1) as i64)?, cap)),
            _ => Ok((limit, cap)),
        }
    }
}

/// The output formats of `convo list`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns for people, text sanitised; fitted to a terminal's width.
    #[default]
    Table,
    /// One JSON array.
    Json,
    /// One JSON object a line.
    Jsonl,
    /// RFC 4180 CSV with a header line.
    Csv,
}

/// Builds the conversations filter from the options, validating every value.
pub fn conversation_filter(
    a: &ConversationFilterOptions,
) -> Result<ConversationFilter, FilterError> {
    let opt_uuid =
        |field, v: &Option<String>| v.as_deref().map(|s| parse_uuid(field, s)).transpose();
    let given: Vec<&'static str> = [
        ("--assignee", a.assignee.is_some()),
        ("--unassigned", a.unassigned.is_some()),
        ("--assignee-id", a.assignee_id.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect();
    if let [first, second, ..] = given[..] {
        return Err(FilterError::AssigneeTwice(first, second));
    }
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

/// Builds the visitors filter from the options.
pub fn visitor_filter(a: &VisitorOptions) -> VisitorFilter {
    VisitorFilter {
        email: a.email.clone(),
        external_id: a.external_id.clone(),
    }
}

/// A flag with a value, as the term `field:value` (the value quoted when it must be).
fn term(name: &'static str, value: &str, field: &str) -> FlagTerm {
    FlagTerm {
        name,
        value: Some(value.to_string()),
        term: format!("{field}:{}", quote(value.trim())),
    }
}

/// The terms the conversations filter flags stand for.
pub fn conversation_flag_terms(f: &ConversationFilterOptions) -> Vec<FlagTerm> {
    let mut t = Vec::new();
    if let Some(s) = &f.status {
        t.push(term("--status", s, "status"));
    }
    if let Some(s) = &f.site_id {
        t.push(term("--site-id", s, "site"));
    }
    // Each assignee flag given is a term: two of them are the parser's "given twice".
    if let Some(x) = &f.assignee
        && !x.trim().eq_ignore_ascii_case("any")
    {
        t.push(term("--assignee", x, "assignee"));
    }
    if let Some(u) = f.unassigned {
        let term = if u {
            "assignee:none"
        } else {
            "assignee:anyone"
        };
        t.push(FlagTerm {
            name: "--unassigned",
            value: Some(u.to_string()),
            term: term.into(),
        });
    }
    if let Some(id) = &f.assignee_id {
        t.push(term("--assignee-id", id, "assignee"));
    }
    if let Some(v) = &f.visitor_id {
        t.push(term("--visitor-id", v, "visitor"));
    }
    t
}

impl ConversationOptions {
    /// The terms every filter flag of `list conversations` stands for: the filters, then
    /// `--breaching` / `--imminent` (`due:`) and `--visitor-email` (`visitor:`).
    pub fn flag_terms(&self) -> Vec<FlagTerm> {
        let mut t = conversation_flag_terms(&self.filter);
        let due = match (self.breaching, self.imminent) {
            (true, true) => Some(("--breaching --imminent", "due:breaching,imminent")),
            (true, false) => Some(("--breaching", "due:breaching")),
            (false, true) => Some(("--imminent", "due:imminent")),
            (false, false) => None,
        };
        if let Some((name, due)) = due {
            t.push(FlagTerm {
                name,
                value: None,
                term: due.into(),
            });
        }
        if let Some(e) = &self.visitor_email {
            t.push(term("--visitor-email", e, "visitor"));
        }
        t
    }

    /// Whether the rows must be asked for through a query: `-q` or `--explain`, or flags that
    /// only a query combines (`--breaching`/`--imminent` with `--visitor-email` or
    /// `--with-visitor`; `--visitor-email` with `--visitor-id`).
    pub fn needs_query(&self) -> bool {
        let due = self.breaching || self.imminent;
        self.query.is_set()
            || (due && (self.visitor_email.is_some() || self.with_visitor))
            || (self.visitor_email.is_some() && self.filter.visitor_id.is_some())
    }
}

impl VisitorOptions {
    /// The terms `--email` and `--external-id` stand for.
    pub fn flag_terms(&self) -> Vec<FlagTerm> {
        let mut t = Vec::new();
        if let Some(e) = &self.email {
            t.push(term("--email", e, "email"));
        }
        if let Some(x) = &self.external_id {
            t.push(term("--external-id", x, "external_id"));
        }
        t
    }
}
