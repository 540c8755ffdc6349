//! The checks a plan leaves to convo, applied to rows. Compiled once per walk (relative times
//! are measured from that walk's `now`, so they are measured again at every refresh).

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use uuid::Uuid;

use super::{AssigneeRef, Cmp, DateVal, DueValue, IsValue, NameRef, Pred, Term, VisitorRef};
use convo_api::{Conversation, Visitor};
use convo_config::Aliases;
use convo_engine::sla::{Sla, State};
use convo_text::fold::Needle;

/// What a visitor is known as in the local store (for `visitor.*` and free text).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VisitorInfo {
    pub name: Option<String>,
    pub email: Option<String>,
    pub attributes: serde_json::Value,
}

/// What the checks need besides the row.
pub struct Context<'a> {
    pub now: Timestamp,
    /// Dates without a zone are in this one (the local zone).
    pub tz: TimeZone,
    pub sla: &'a Sla,
    /// `is:stale`: not closed and not updated for this long.
    pub stale_after_secs: i64,
    pub aliases: &'a Aliases,
}

/// A `[start, end)` instant range a time must fall in.
#[derive(Debug, Clone, Copy)]
struct Window {
    from: Option<Timestamp>,
    until: Option<Timestamp>,
}

impl Window {
    fn holds(&self, t: Timestamp) -> bool {
        self.from.is_none_or(|f| t >= f) && self.until.is_none_or(|u| t < u)
    }
}

#[derive(Debug, Clone)]
enum Check {
    /// Folded (case and accents, as quick search: `bjorn` finds "Björn").
    Text(Needle),
    Status(Vec<String>),
    Assignee(Vec<AssigneeRef>),
    Site(Vec<Uuid>),
    Visitor(Vec<Uuid>),
    Created(Window),
    Updated(Window),
    Due(Vec<DueValue>),
    Is(Vec<IsValue>),
    /// Folded, as `Text`.
    VisitorName(Vec<Needle>),
    VisitorEmail(Vec<String>),
    VisitorAttr(String, Vec<String>),
    Email(Vec<String>),
    ExternalId(Vec<String>),
    /// Folded, as `Text`.
    Name(Vec<Needle>),
    Attr(String, Vec<String>),
}

/// Compiled checks: a row passes when every one holds (negated ones when they do not).
pub struct Filter<'a> {
    checks: Vec<(bool, Check)>,
    ctx: Context<'a>,
}

fn secs_before(now: Timestamp, secs: i64) -> Timestamp {
    now.checked_sub(SignedDuration::from_secs(secs))
        .unwrap_or(Timestamp::MIN)
}

/// `age:>2h` (older than): created before now − 2h. A duration comparison of an age becomes
/// a window on the time itself (the larger the age, the earlier the time).
fn age_window(c: &Cmp<i64>, now: Timestamp) -> Window {
    let at = |s: i64| secs_before(now, s);
    let after = |t: Timestamp| t.checked_add(SignedDuration::from_nanos(1)).ok();
    match c {
        // older than s: t < now − s
        Cmp::Gt(s) => Window {
            from: None,
            until: Some(at(*s)),
        },
        // at least s old: t <= now − s
        Cmp::Ge(s) => Window {
            from: None,
            until: after(at(*s)),
        },
        // younger than s: t > now − s
        Cmp::Lt(s) => Window {
            from: after(at(*s)),
            until: None,
        },
        Cmp::Le(s) => Window {
            from: Some(at(*s)),
            until: None,
        },
        Cmp::Eq(s) => Window {
            from: Some(at(*s)),
            until: after(at(*s)),
        },
        // between a and b old: now − b <= t <= now − a
        Cmp::Range(a, b) => Window {
            from: b.map(at),
            until: a.and_then(|a| after(at(a))),
        },
    }
}

/// The instants a date stands for: a whole day, or one instant.
fn date_bounds(d: &DateVal, tz: &TimeZone) -> (Option<Timestamp>, Option<Timestamp>) {
    let next = |t: Timestamp| t.checked_add(SignedDuration::from_nanos(1)).ok();
    match d {
        DateVal::Date(day) => {
            let start = day.to_zoned(tz.clone()).ok().map(|z| z.timestamp());
            let end = day
                .tomorrow()
                .ok()
                .and_then(|t| t.to_zoned(tz.clone()).ok())
                .map(|z| z.timestamp());
            (start, end)
        }
        DateVal::DateTime(dt) => {
            let t = dt.to_zoned(tz.clone()).ok().map(|z| z.timestamp());
            (t, t.and_then(next))
        }
        DateVal::Instant(t) => (Some(*t), next(*t)),
    }
}

/// `created:>D` is after D (from the end of its day), `>=D` from its start, `<D` before its
/// start, `<=D` before its end, `D` within it, `a..b` from a's start to b's end.
fn date_window(c: &Cmp<DateVal>, tz: &TimeZone) -> Window {
    let b = |d: &DateVal| date_bounds(d, tz);
    // A date outside jiff's range: a window that holds nothing.
    let never = Window {
        from: Some(Timestamp::MAX),
        until: Some(Timestamp::MIN),
    };
    let w = match c {
        Cmp::Gt(d) => b(d).1.map(|e| (Some(e), None)),
        Cmp::Ge(d) => b(d).0.map(|s| (Some(s), None)),
        Cmp::Lt(d) => b(d).0.map(|s| (None, Some(s))),
        Cmp::Le(d) => b(d).1.map(|e| (None, Some(e))),
        Cmp::Eq(d) => match b(d) {
            (Some(s), Some(e)) => Some((Some(s), Some(e))),
            _ => None,
        },
        Cmp::Range(x, y) => {
            let from = match x {
                None => Some(None),
                Some(d) => b(d).0.map(Some),
            };
            let until = match y {
                None => Some(None),
                Some(d) => b(d).1.map(Some),
            };
            from.zip(until)
        }
    };
    w.map_or(never, |(from, until)| Window { from, until })
}

impl<'a> Filter<'a> {
    /// Compiles `terms` (resolved: no names, no `me`) for one walk.
    pub fn new(terms: &[Term], ctx: Context<'a>) -> Filter<'a> {
        let lower = |v: &[String]| v.iter().map(|s| s.trim().to_lowercase()).collect();
        let folded = |v: &[String]| v.iter().map(|s| Needle::new(s.trim())).collect();
        let checks = terms
            .iter()
            .map(|t| {
                let c = match &t.pred {
                    Pred::Text(s) => Check::Text(Needle::new(s)),
                    Pred::Status(v) => {
                        Check::Status(v.iter().map(|s| s.as_str().to_lowercase()).collect())
                    }
                    Pred::Assignee(v) => Check::Assignee(v.clone()),
                    Pred::Site(v) => Check::Site(
                        v.iter()
                            .filter_map(|n| match n {
                                NameRef::Id(id) => Some(*id),
                                NameRef::Name(_) => None,
                            })
                            .collect(),
                    ),
                    Pred::Visitor(v) => Check::Visitor(
                        v.iter()
                            .filter_map(|n| match n {
                                VisitorRef::Id(id) => Some(*id),
                                VisitorRef::Email(_) => None,
                            })
                            .collect(),
                    ),
                    Pred::Age(c) => Check::Created(age_window(c, ctx.now)),
                    Pred::Idle(c) => Check::Updated(age_window(c, ctx.now)),
                    Pred::Created(c) => Check::Created(date_window(c, &ctx.tz)),
                    Pred::Updated(c) => Check::Updated(date_window(c, &ctx.tz)),
                    Pred::Due(v) => Check::Due(v.clone()),
                    Pred::Is(v) => Check::Is(v.clone()),
                    Pred::VisitorName(v) => Check::VisitorName(folded(v)),
                    Pred::VisitorEmail(v) => Check::VisitorEmail(lower(v)),
                    Pred::VisitorAttr(k, v) => Check::VisitorAttr(k.clone(), lower(v)),
                    Pred::Email(v) => Check::Email(lower(v)),
                    Pred::ExternalId(v) => {
                        Check::ExternalId(v.iter().map(|s| s.trim().to_string()).collect())
                    }
                    Pred::Name(v) => Check::Name(folded(v)),
                    Pred::Attr(k, v) => Check::Attr(k.clone(), lower(v)),
                };
                (t.negated, c)
            })
            .collect();
        Filter { checks, ctx }
    }

    /// Whether nothing is checked (every row passes).
    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    /// Whether the visitor of a conversation is needed (`visitor.*`, free text).
    pub fn needs_visitor(&self) -> bool {
        self.checks.iter().any(|(_, c)| {
            matches!(
                c,
                Check::Text(_)
                    | Check::VisitorName(_)
                    | Check::VisitorEmail(_)
                    | Check::VisitorAttr(..)
            )
        })
    }

    /// Whether conversation `c` passes; `visitor` is its visitor as the store knows it.
    pub fn conversation(&self, c: &Conversation, visitor: Option<&VisitorInfo>) -> bool {
        self.checks
            .iter()
            .all(|(neg, check)| self.conversation_holds(check, c, visitor) != *neg)
    }

    fn conversation_holds(
        &self,
        check: &Check,
        c: &Conversation,
        visitor: Option<&VisitorInfo>,
    ) -> bool {
        let ctx = &self.ctx;
        match check {
            Check::Text(t) => {
                let has = |s: &str| t.is_in(s, &mut String::new());
                has(&c.id.to_string())
                    || has(&c.visitor_id.to_string())
                    || has(c.status.as_str())
                    || ctx.aliases.name(&c.site_id).is_some_and(has)
                    || c.assignee_id
                        .and_then(|a| ctx.aliases.name(&a))
                        .is_some_and(has)
                    || visitor.is_some_and(|v| {
                        v.name.as_deref().is_some_and(has) || v.email.as_deref().is_some_and(has)
                    })
            }
            Check::Status(v) => v.iter().any(|s| c.status.as_str().eq_ignore_ascii_case(s)),
            Check::Assignee(v) => v.iter().any(|a| match a {
                AssigneeRef::None => c.assignee_id.is_none(),
                AssigneeRef::Anyone => c.assignee_id.is_some(),
                AssigneeRef::Id(id) => c.assignee_id == Some(*id),
                AssigneeRef::Me | AssigneeRef::Name(_) => false,
            }),
            Check::Site(v) => v.contains(&c.site_id),
            Check::Visitor(v) => v.contains(&c.visitor_id),
            Check::Created(w) => c.created_at.parsed().is_some_and(|t| w.holds(t)),
            Check::Updated(w) => c.updated_at.parsed().is_some_and(|t| w.holds(t)),
            Check::Due(v) => match ctx.sla.first_response(c, ctx.now) {
                None => false,
                Some(d) => v.iter().any(|x| match x {
                    DueValue::Breaching => d.state == State::Breaching,
                    DueValue::Imminent => d.state == State::Imminent,
                    DueValue::Ok => d.state == State::Ok,
                    DueValue::Within(s) => d.due_secs < *s,
                    DueValue::Beyond(s) => d.due_secs > *s,
                }),
            },
            Check::Is(v) => v.iter().any(|i| match i {
                IsValue::Waiting => convo_engine::sla::is_waiting(c),
                IsValue::Stale => {
                    c.status != convo_api::Status::Closed
                        && c.updated_at
                            .parsed()
                            .is_some_and(|u| u < secs_before(ctx.now, ctx.stale_after_secs))
                }
            }),
            Check::VisitorName(v) => visitor
                .and_then(|x| x.name.as_deref())
                .is_some_and(|n| folded_has_any(n, v)),
            Check::VisitorEmail(v) => visitor
                .and_then(|x| x.email.as_deref())
                .is_some_and(|e| equals_any(e, v)),
            Check::VisitorAttr(k, v) => visitor.is_some_and(|x| attr_is(&x.attributes, k, v)),
            // Visitors' fields: never in a conversations query (the parser refuses them).
            Check::Email(_) | Check::ExternalId(_) | Check::Name(_) | Check::Attr(..) => false,
        }
    }

    /// Whether visitor `v` passes.
    pub fn visitor(&self, v: &Visitor) -> bool {
        self.checks
            .iter()
            .all(|(neg, check)| self.visitor_holds(check, v) != *neg)
    }

    fn visitor_holds(&self, check: &Check, v: &Visitor) -> bool {
        let created = v.created_at.as_ref().and_then(|t| t.parsed());
        match check {
            Check::Text(t) => {
                let has = |s: &str| t.is_in(s, &mut String::new());
                has(&v.id.to_string())
                    || v.name.as_deref().is_some_and(has)
                    || v.email.as_deref().is_some_and(has)
                    || v.external_id.as_deref().is_some_and(has)
            }
            Check::Created(w) => created.is_some_and(|t| w.holds(t)),
            Check::Email(e) => v.email.as_deref().is_some_and(|x| equals_any(x, e)),
            Check::ExternalId(x) => v
                .external_id
                .as_deref()
                .is_some_and(|id| x.iter().any(|w| w == id.trim())),
            Check::Name(n) => v.name.as_deref().is_some_and(|x| folded_has_any(x, n)),
            Check::Attr(k, vals) => attr_is(&v.attributes, k, vals),
            // Conversations' fields: never in a visitors query (the parser refuses them).
            _ => false,
        }
    }
}

/// Whether `s`, folded, holds any of `needles`.
fn folded_has_any(s: &str, needles: &[Needle]) -> bool {
    let mut buf = String::new();
    needles.iter().any(|n| n.is_in(s, &mut buf))
}

fn equals_any(s: &str, lowered: &[String]) -> bool {
    let s = s.trim().to_lowercase();
    lowered.contains(&s)
}

/// Whether attribute `key` is one of `values` (ignoring case; numbers and booleans as written
/// in JSON).
fn attr_is(attributes: &serde_json::Value, key: &str, values: &[String]) -> bool {
    let Some(x) = attributes.get(key) else {
        return false;
    };
    let text = match x {
        serde_json::Value::String(s) => s.trim().to_lowercase(),
        serde_json::Value::Null => return false,
        other => other.to_string().to_lowercase(),
    };
    values.contains(&text)
}
