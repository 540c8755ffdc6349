//! Queries: one language for both lists (issue 22, docs/design.md "Queries").
//!
//! A query is terms separated by spaces, all of which hold; `field:a,b` holds when the field
//! is any of the values; `-field:a` negates; `"..."` quotes; a bare word is free text.
//!
//! - [`parse`](parse()): text → [`Query`] (or a [`QueryError`] with its position);
//!   `Display` prints the canonical text, which parses back to the same query.
//! - [`resolve`]: `me`, site and agent names → UUIDs (from the config).
//! - [`plan`]: a resolved query → streams of API requests + predicates applied in convo;
//!   [`cost`]: `--explain`'s estimate of the requests it will send.
//! - [`eval`]: those predicates, applied to a row.
//! - [`exec`]: the streams walked concurrently and merged in the service's order.

mod bounds;
pub mod by_email;
pub mod cost;
mod error;
pub mod eval;
pub mod exec;
pub mod filters;
mod known;
pub mod named;
pub mod pages;
mod parse;
pub mod plan;
mod print;
pub mod resolve;
pub mod run;
pub mod views;

use std::ops::Range;

use uuid::Uuid;

use convo_api::{Resource, Status};

pub use error::QueryError;
pub use known::cautions;
pub use parse::parse;
pub use print::format_secs;

/// `s` as one value of a term (quoted when it must be), e.g. to turn a flag into a term.
pub fn quote(s: &str) -> String {
    print::quoted(s, false)
}

/// A parsed query: which list it is for and its terms, in the order written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub resource: Resource,
    pub terms: Vec<Term>,
}

impl Query {
    /// The query that asks for everything.
    pub fn empty(resource: Resource) -> Query {
        Query {
            resource,
            terms: Vec::new(),
        }
    }

    /// Whether it has no term.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// One term: a predicate, maybe negated, and where it was written.
#[derive(Debug, Clone)]
pub struct Term {
    /// `-field:…`
    pub negated: bool,
    pub pred: Pred,
    /// Byte range of the whole term in the text it was parsed from (not compared).
    pub span: Range<usize>,
    /// Byte range of each value, in order (not compared; empty for built terms).
    pub value_spans: Vec<Range<usize>>,
}

impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        self.negated == other.negated && self.pred == other.pred
    }
}

impl Eq for Term {}

impl Term {
    /// A term built in code (from a flag), with no position.
    pub fn new(negated: bool, pred: Pred) -> Term {
        Term {
            negated,
            pred,
            span: 0..0,
            value_spans: Vec::new(),
        }
    }

    /// Where value `i` was written (the term when unknown).
    pub fn value_span(&self, i: usize) -> Range<usize> {
        self.value_spans
            .get(i)
            .cloned()
            .unwrap_or_else(|| self.span.clone())
    }
}

/// What a term says. Multi-valued variants hold when any value does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pred {
    /// A bare word or quoted phrase: free text.
    Text(String),
    // Conversations
    /// `status:` — any status; ones convo does not know are kept verbatim.
    Status(Vec<Status>),
    /// `assignee:` me | none | anyone | UUID | name.
    Assignee(Vec<AssigneeRef>),
    /// `site:` UUID | name.
    Site(Vec<NameRef>),
    /// `visitor:` UUID | e-mail.
    Visitor(Vec<VisitorRef>),
    /// `idle:` — time since `updatedAt`.
    Idle(Cmp<Secs>),
    /// `updated:` — `updatedAt`.
    Updated(Cmp<DateVal>),
    /// `due:` — against the `[sla]` first-response target.
    Due(Vec<DueValue>),
    /// `is:` waiting | stale.
    Is(Vec<IsValue>),
    /// `visitor.name:` (from the local store)
    VisitorName(Vec<String>),
    /// `visitor.email:` (from the local store)
    VisitorEmail(Vec<String>),
    /// `visitor.KEY:` — a key of the visitor's attributes (from the local store).
    VisitorAttr(String, Vec<String>),
    // Both lists
    /// `age:` — time since `createdAt`.
    Age(Cmp<Secs>),
    /// `created:` — `createdAt`.
    Created(Cmp<DateVal>),
    // Visitors
    /// `email:`
    Email(Vec<String>),
    /// `external_id:`
    ExternalId(Vec<String>),
    /// `name:`
    Name(Vec<String>),
    /// `attr.KEY:`
    Attr(String, Vec<String>),
}

impl Pred {
    /// The field as written before the colon (`""` for free text).
    pub fn field(&self) -> String {
        match self {
            Pred::Text(_) => String::new(),
            Pred::Status(_) => "status".into(),
            Pred::Assignee(_) => "assignee".into(),
            Pred::Site(_) => "site".into(),
            Pred::Visitor(_) => "visitor".into(),
            Pred::Idle(_) => "idle".into(),
            Pred::Updated(_) => "updated".into(),
            Pred::Due(_) => "due".into(),
            Pred::Is(_) => "is".into(),
            Pred::VisitorName(_) => "visitor.name".into(),
            Pred::VisitorEmail(_) => "visitor.email".into(),
            Pred::VisitorAttr(k, _) => format!("visitor.{}", print::quoted_key(k)),
            Pred::Age(_) => "age".into(),
            Pred::Created(_) => "created".into(),
            Pred::Email(_) => "email".into(),
            Pred::ExternalId(_) => "external_id".into(),
            Pred::Name(_) => "name".into(),
            Pred::Attr(k, _) => format!("attr.{}", print::quoted_key(k)),
        }
    }
}

/// Whole seconds (durations as the config writes them: `90`, `30m`, `1h30m`, `2d`).
pub type Secs = i64;

/// A comparison of a time field: `>x`, `>=x`, `<x`, `<=x`, `x` (dates only), `a..b` (`*` for
/// an open end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmp<T> {
    Gt(T),
    Ge(T),
    Lt(T),
    Le(T),
    Eq(T),
    Range(Option<T>, Option<T>),
}

impl<T> Cmp<T> {
    /// Whether it bounds from below only (`>`, `>=`), from above only (`<`, `<=`), or else.
    pub fn side(&self) -> Side {
        match self {
            Cmp::Gt(_) | Cmp::Ge(_) => Side::Lower,
            Cmp::Lt(_) | Cmp::Le(_) => Side::Upper,
            Cmp::Eq(_) | Cmp::Range(..) => Side::Both,
        }
    }
}

/// See [`Cmp::side`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Lower,
    Upper,
    Both,
}

/// A date or time as GitHub's search takes it; local time zone unless it gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateVal {
    /// `2026-11-01`: the whole day.
    Date(jiff::civil::Date),
    /// `2026-11-01T10:00`: in the local time zone.
    DateTime(jiff::civil::DateTime),
    /// `2026-11-01T10:00Z`, `…+01:00`: an instant.
    Instant(jiff::Timestamp),
}

/// An `assignee:` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssigneeRef {
    /// `me`: `agent_id` from the config.
    Me,
    /// `none`: unassigned.
    None,
    /// `anyone`: assigned to any agent.
    Anyone,
    Id(Uuid),
    /// An alias, resolved by [`resolve`].
    Name(String),
}

/// A `site:` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameRef {
    Id(Uuid),
    Name(String),
}

/// A `visitor:` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VisitorRef {
    Id(Uuid),
    /// Resolved through `GET /v1/visitors?email=` when the query runs.
    Email(String),
}

/// A `due:` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DueValue {
    Breaching,
    Imminent,
    Ok,
    /// `<10m`: due (or overdue) within this long.
    Within(Secs),
    /// `>1h`: more than this long left.
    Beyond(Secs),
}

/// An `is:` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsValue {
    /// Open and unassigned.
    Waiting,
    /// Not closed, no update for `stale_after`.
    Stale,
}

/// The fields of each list, for error messages and completion.
pub fn fields(resource: Resource) -> &'static [&'static str] {
    match resource {
        Resource::Conversations => &[
            "status",
            "assignee",
            "site",
            "visitor",
            "age",
            "idle",
            "created",
            "updated",
            "due",
            "is",
            "visitor.name",
            "visitor.email",
            "visitor.KEY",
        ],
        Resource::Visitors => &["email", "external_id", "name", "age", "created", "attr.KEY"],
    }
}

#[cfg(test)]
mod tests;
