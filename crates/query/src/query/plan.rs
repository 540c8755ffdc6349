//! The planner (pure): a resolved query → streams of API requests + checks done in convo.
//!
//! What the service can filter is sent: each combination of single values is one stream, and
//! a multi-valued field makes a union (the product of the values, overlaps removed:
//! `assignee:none,me` is `unassigned=true` plus `assignee_id=ME`, never both in one request).
//! What it cannot (negation, times, `due:`, `is:stale`, visitor attributes, free text) is
//! checked in convo as rows arrive. A negation, or a union larger than `max_streams`, is a
//! wider walk filtered in convo: `-status:closed` walks without a status filter and drops
//! closed rows, so statuses convo does not know still show.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

use uuid::Uuid;

use super::{AssigneeRef, IsValue, NameRef, Pred, Query, Term, VisitorRef};
use convo_api::{Assignee, ConversationFilter, ListFilter, Resource, Status, VisitorFilter};

/// A term checked in convo, and why it is not sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What is evaluated (e-mails of `visitor:` replaced by their visitors' ids).
    pub term: Term,
    /// The term as written (canonical text).
    pub shown: String,
    pub why: String,
}

/// How a query runs: its streams (each a walk of one request's filters) and its checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan<F> {
    pub resource: Resource,
    /// The canonical text of the query planned.
    pub query: String,
    /// One walk each; their rows are merged. Empty: nothing can match (no request is sent).
    pub streams: Vec<F>,
    pub checks: Vec<Check>,
    /// Why the plan has the shape it has (demoted fields, e-mails with no visitor…).
    pub notes: Vec<String>,
}

impl<F> Plan<F> {
    /// The terms to evaluate on each row.
    pub fn terms(&self) -> Vec<Term> {
        self.checks.iter().map(|c| c.term.clone()).collect()
    }
}

/// What the service knows of each e-mail of `visitor:` (lower-cased): its visitors' ids.
pub type Emails = HashMap<String, Vec<Uuid>>;

/// The e-mails a conversations query needs resolved before it is planned.
pub fn emails_to_resolve(q: &Query) -> Vec<String> {
    let mut out = BTreeSet::new();
    for t in &q.terms {
        if let Pred::Visitor(vs) = &t.pred {
            for v in vs {
                if let VisitorRef::Email(e) = v {
                    out.insert(e.trim().to_lowercase());
                }
            }
        }
    }
    out.into_iter().collect()
}

const WHY_NEGATION: &str = "negation: walked without this filter and dropped in convo, so values convo does not know still show";
const WHY_TIME: &str = "the API has no time filter; measured again at every refresh";
const WHY_TEXT: &str = "the API has no text search";
const WHY_STORE: &str =
    "visitor fields come from the local store; a row whose visitor it does not know does not match";

/// One pushable field's values, each a stream option.
struct Field<T> {
    name: &'static str,
    /// `None`: not pushed.
    options: Option<Vec<T>>,
    /// The term it came from (a check if it is demoted).
    term: Option<Term>,
}

impl<T: PartialEq> Field<T> {
    fn new(name: &'static str) -> Field<T> {
        Field {
            name,
            options: None,
            term: None,
        }
    }

    fn len(&self) -> usize {
        self.options.as_ref().map_or(1, Vec::len)
    }

    /// Keeps only the options `keep` allows (a second constraint on the same parameter).
    fn narrow(&mut self, allowed: Vec<T>) {
        self.options = Some(match self.options.take() {
            None => allowed,
            Some(o) => o.into_iter().filter(|x| allowed.contains(x)).collect(),
        });
    }
}

fn dedup<T: PartialEq>(v: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Plans a resolved conversations query. `emails`: [`emails_to_resolve`], answered.
pub fn conversations(q: &Query, emails: &Emails, max_streams: usize) -> Plan<ConversationFilter> {
    let mut checks = Vec::new();
    let mut notes = Vec::new();
    let mut status: Field<Status> = Field::new("status");
    let mut assignee: Field<Assignee> = Field::new("assignee");
    let mut site: Field<Uuid> = Field::new("site");
    let mut visitor: Field<Uuid> = Field::new("visitor");
    let check = |t: &Term, why: &str| Check {
        term: t.clone(),
        shown: t.to_string(),
        why: why.to_string(),
    };
    for t in &q.terms {
        match (&t.pred, t.negated) {
            (Pred::Status(_) | Pred::Assignee(_) | Pred::Site(_), true) => {
                checks.push(check(t, WHY_NEGATION))
            }
            (Pred::Visitor(vs), neg) => {
                // E-mails become the ids of their visitors, for the stream and for a check.
                let mut ids = Vec::new();
                for v in vs {
                    match v {
                        VisitorRef::Id(id) => ids.push(*id),
                        VisitorRef::Email(e) => {
                            let found = emails.get(&e.trim().to_lowercase());
                            match found {
                                Some(f) if !f.is_empty() => ids.extend(f),
                                _ => notes.push(format!(
                                    "no visitor has the e-mail {}: it matches nothing",
                                    convo_text::one_line(e, 80)
                                )),
                            }
                        }
                    }
                }
                let ids = dedup(ids);
                let term = Term {
                    pred: Pred::Visitor(ids.iter().copied().map(VisitorRef::Id).collect()),
                    ..t.clone()
                };
                if neg {
                    checks.push(Check {
                        shown: t.to_string(),
                        ..check(&term, WHY_NEGATION)
                    });
                } else {
                    visitor.options = Some(ids);
                    visitor.term = Some(term);
                }
            }
            (Pred::Status(vs), false) => {
                if vs.iter().all(|s| Status::KNOWN.contains(s)) {
                    status.narrow(dedup(vs.clone()));
                    status.term = Some(t.clone());
                } else {
                    checks.push(check(
                        t,
                        "a status the API does not name (it filters by open, pending, closed): \
                         walked without a status filter",
                    ));
                }
            }
            (Pred::Assignee(vs), false) => {
                assignee.narrow(assignee_options(vs));
                assignee.term = Some(t.clone());
            }
            (Pred::Site(vs), false) => {
                site.options = Some(dedup(
                    vs.iter()
                        .filter_map(|n| match n {
                            NameRef::Id(id) => Some(*id),
                            NameRef::Name(_) => None,
                        })
                        .collect(),
                ));
                site.term = Some(t.clone());
            }
            (Pred::Is(vs), false) if vs == &[IsValue::Waiting] => {
                // Open and unassigned: both are API filters.
                status.narrow(vec![Status::Open]);
                assignee.narrow(vec![Assignee::Unassigned]);
                notes.push("is:waiting is sent as status=open&unassigned=true".into());
            }
            (Pred::Age(_) | Pred::Idle(_) | Pred::Created(_) | Pred::Updated(_), _) => {
                checks.push(check(t, WHY_TIME))
            }
            (Pred::Due(_), negated) => {
                if !negated {
                    // Only a waiting conversation has a first-response standing: ask for those.
                    status.narrow(vec![Status::Open]);
                    assignee.narrow(vec![Assignee::Unassigned]);
                    notes.push(
                        "due: measures waiting conversations: sent as status=open&unassigned=true"
                            .into(),
                    );
                }
                checks.push(check(
                    t,
                    "from the [sla] first_response target, computed in convo at every refresh",
                ))
            }
            (Pred::Is(_), _) => checks.push(check(
                t,
                "is: is computed in convo (stale: not closed, no update for stale_after)",
            )),
            (Pred::VisitorName(_) | Pred::VisitorEmail(_) | Pred::VisitorAttr(..), _) => {
                checks.push(check(t, WHY_STORE))
            }
            (Pred::Text(_), _) => checks.push(check(t, WHY_TEXT)),
            // Fields of the visitors list never reach a conversations plan (the parser
            // refuses them); checked in convo all the same, never sent.
            _ => checks.push(check(t, "not a conversations filter")),
        }
    }
    // Too many streams: the field with the most values is walked wider and checked in convo,
    // until the product fits.
    loop {
        let lens = [status.len(), assignee.len(), site.len(), visitor.len()];
        let total: usize = lens.iter().product();
        if total <= max_streams.max(1) {
            break;
        }
        // Only a field of several values is demoted (one value is a narrowing, e.g. by
        // is:waiting, and costs no stream).
        let Some(widest) = (0..4)
            .filter(|&i| lens[i] > 1)
            .max_by_key(|&i| (lens[i], 4 - i))
        else {
            break;
        };
        let (name, term) = match widest {
            0 => (status.name, status.options.take().and(status.term.take())),
            1 => (
                assignee.name,
                assignee.options.take().and(assignee.term.take()),
            ),
            2 => (site.name, site.options.take().and(site.term.take())),
            _ => (
                visitor.name,
                visitor.options.take().and(visitor.term.take()),
            ),
        };
        notes.push(format!(
            "{total} streams would exceed max_streams ({max_streams}): {name} is checked in convo"
        ));
        if let Some(t) = term {
            checks.push(Check {
                shown: t.to_string(),
                why: format!("more streams than max_streams ({max_streams})"),
                term: t,
            });
        }
    }
    let mut streams = vec![ConversationFilter::default()];
    let expand = |streams: Vec<ConversationFilter>,
                  n: usize,
                  set: &dyn Fn(&mut ConversationFilter, usize)| {
        let mut out = Vec::with_capacity(streams.len() * n);
        for s in streams {
            for i in 0..n {
                let mut f = s.clone();
                set(&mut f, i);
                out.push(f);
            }
        }
        out
    };
    if let Some(o) = &status.options {
        streams = expand(streams, o.len(), &|f, i| f.status = Some(o[i].clone()));
    }
    if let Some(o) = &assignee.options {
        streams = expand(streams, o.len(), &|f, i| f.assignee = o[i]);
    }
    if let Some(o) = &site.options {
        streams = expand(streams, o.len(), &|f, i| f.site_id = Some(o[i]));
    }
    if let Some(o) = &visitor.options {
        streams = expand(streams, o.len(), &|f, i| f.visitor_id = Some(o[i]));
    }
    if streams.is_empty() {
        notes.push("no combination of values can match: nothing is asked for".into());
    }
    Plan {
        resource: Resource::Conversations,
        query: q.to_string(),
        streams,
        checks,
        notes,
    }
}

/// The assignee states for these values, overlaps removed: `anyone` covers every agent, and
/// `none` with `anyone` is no filter at all.
fn assignee_options(vs: &[AssigneeRef]) -> Vec<Assignee> {
    let none = vs.contains(&AssigneeRef::None);
    let anyone = vs.contains(&AssigneeRef::Anyone);
    if none && anyone {
        return vec![Assignee::Any];
    }
    let mut out = Vec::new();
    if none {
        out.push(Assignee::Unassigned);
    }
    if anyone {
        out.push(Assignee::Anyone);
    } else {
        for v in vs {
            if let AssigneeRef::Id(id) = v {
                out.push(Assignee::Agent(*id));
            }
        }
    }
    dedup(out)
}

/// Plans a visitors query: `email:` and `external_id:` are sent, the rest checked in convo.
pub fn visitors(q: &Query, max_streams: usize) -> Plan<VisitorFilter> {
    let mut checks = Vec::new();
    let mut notes = Vec::new();
    let mut email: Option<(Vec<String>, &Term)> = None;
    let mut external: Option<(Vec<String>, &Term)> = None;
    let check = |t: &Term, why: &str| Check {
        term: t.clone(),
        shown: t.to_string(),
        why: why.to_string(),
    };
    for t in &q.terms {
        match (&t.pred, t.negated) {
            (Pred::Email(_) | Pred::ExternalId(_), true) => checks.push(check(t, WHY_NEGATION)),
            (Pred::Email(v), false) => {
                email = Some((dedup(v.iter().map(|e| e.trim().to_string()).collect()), t))
            }
            (Pred::ExternalId(v), false) => {
                external = Some((dedup(v.iter().map(|e| e.trim().to_string()).collect()), t))
            }
            (Pred::Age(_) | Pred::Created(_), _) => checks.push(check(t, WHY_TIME)),
            (Pred::Text(_), _) => checks.push(check(t, WHY_TEXT)),
            (Pred::Name(_), _) => checks.push(check(t, "the API does not filter by name")),
            (Pred::Attr(..), _) => checks.push(check(t, "the API does not filter by attributes")),
            _ => checks.push(check(t, "not a visitors filter")),
        }
    }
    let len = |x: &Option<(Vec<String>, &Term)>| x.as_ref().map_or(1, |(v, _)| v.len());
    while len(&email) * len(&external) > max_streams.max(1) {
        let total = len(&email) * len(&external);
        let field = if len(&email) >= len(&external) {
            &mut email
        } else {
            &mut external
        };
        if let Some((_, t)) = field.take() {
            notes.push(format!(
                "{total} streams would exceed max_streams ({max_streams}): {} is checked in convo",
                t.pred.field()
            ));
            checks.push(check(
                t,
                &format!("more streams than max_streams ({max_streams})"),
            ));
        }
    }
    let mut streams = vec![VisitorFilter::default()];
    if let Some((v, _)) = &email {
        streams = times(streams, v, |f, e| f.email = Some(e));
    }
    if let Some((v, _)) = &external {
        streams = times(streams, v, |f, x| f.external_id = Some(x));
    }
    Plan {
        resource: Resource::Visitors,
        query: q.to_string(),
        streams,
        checks,
        notes,
    }
}

/// A stream's request as a line: `GET /v1/conversations?status=open`.
pub fn request_line<F: ListFilter>(f: &F) -> String {
    let q = query_string(f);
    let path = F::RESOURCE.path();
    if q.is_empty() {
        format!("GET {path}")
    } else {
        format!("GET {path}?{q}")
    }
}

/// A stream's request as a query string (`status=open&unassigned=true`), without `limit` and
/// `cursor`; empty when it sends no filter.
pub fn query_string<F: ListFilter>(f: &F) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in f.query_pairs() {
        s.append_pair(k, &v);
    }
    s.finish()
}

impl<F: ListFilter> Plan<F> {
    /// `--explain`: each stream's request (with the names `aliases` give its UUIDs), the
    /// checks done in convo, and why.
    pub fn explain(&self, aliases: &convo_config::Aliases) -> String {
        let mut out = String::new();
        let path = F::RESOURCE.path();
        let _ = writeln!(
            out,
            "query: {}",
            if self.query.is_empty() {
                "(empty: every row)".to_string()
            } else {
                convo_text::sanitize(&self.query).into_owned()
            }
        );
        let merged = match self.streams.len() {
            0 => "no request is sent".to_string(),
            1 => "one walk".to_string(),
            _ => "walked side by side and merged in the service's order; a row in two shows once"
                .to_string(),
        };
        let _ = writeln!(out, "streams: {} ({merged})", self.streams.len());
        for (i, s) in self.streams.iter().enumerate() {
            let q = query_string(s);
            let named: Vec<String> = s
                .query_pairs()
                .iter()
                .filter_map(|(_, v)| Uuid::parse_str(v).ok())
                .filter_map(|id| aliases.name(&id))
                .map(|n| convo_text::one_line(n, 40))
                .collect();
            let _ = writeln!(
                out,
                "  {}. GET {path}{}{}",
                i + 1,
                if q.is_empty() {
                    "  (no filter)".to_string()
                } else {
                    format!("?{}", convo_text::sanitize(&q))
                },
                if named.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", named.join(", "))
                }
            );
        }
        if self.checks.is_empty() {
            let _ = writeln!(
                out,
                "checked in convo: nothing (the service filters it all)"
            );
        } else {
            let _ = writeln!(out, "checked in convo, on every row as it arrives:");
            // Each check as written, with the names `aliases` give its UUIDs (as the
            // streams have them), the reasons in a column.
            let shown: Vec<String> = self
                .checks
                .iter()
                .map(|c| {
                    let named = names_of(&c.term, aliases);
                    let shown = convo_text::sanitize(&c.shown);
                    if named.is_empty() {
                        shown.into_owned()
                    } else {
                        format!("{shown}  ({})", named.join(", "))
                    }
                })
                .collect();
            let w = shown
                .iter()
                .map(|s| convo_text::width(s))
                .max()
                .unwrap_or(0);
            for (c, shown) in self.checks.iter().zip(&shown) {
                let pad = w.saturating_sub(convo_text::width(shown));
                let _ = writeln!(out, "  {shown}{}  {}", " ".repeat(pad), c.why);
            }
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {}", convo_text::sanitize(n));
        }
        out
    }
}

/// The aliases of the agent and site UUIDs a term names, sanitised, in its order.
fn names_of(t: &Term, aliases: &convo_config::Aliases) -> Vec<String> {
    let ids: Vec<Uuid> = match &t.pred {
        Pred::Assignee(vs) => vs
            .iter()
            .filter_map(|v| match v {
                AssigneeRef::Id(id) => Some(*id),
                _ => None,
            })
            .collect(),
        Pred::Site(vs) => vs
            .iter()
            .filter_map(|v| match v {
                NameRef::Id(id) => Some(*id),
                NameRef::Name(_) => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    ids.iter()
        .filter_map(|id| aliases.name(id))
        .map(|n| convo_text::one_line(n, 40))
        .collect()
}

/// Each stream once per value, the value set by `set`: the product a multi-valued field makes.
fn times<F: Clone>(streams: Vec<F>, values: &[String], set: impl Fn(&mut F, String)) -> Vec<F> {
    streams
        .into_iter()
        .flat_map(|s| {
            values.iter().map({
                let set = &set;
                move |v| {
                    let mut f = s.clone();
                    set(&mut f, v.clone());
                    f
                }
            })
        })
        .collect()
}
