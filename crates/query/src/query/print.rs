//! The canonical text of a query: what `Display` prints parses back to the same query.
//!
//! Terms in the order written, one space apart; fields in lower case; values quoted only
//! when they must be; durations as the config writes them (`1h30m`); dates as given.

use std::fmt::{self, Display, Write};

use super::{AssigneeRef, Cmp, DateVal, DueValue, IsValue, NameRef, Pred, Query, Term, VisitorRef};

impl Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            if i > 0 {
                f.write_char(' ')?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

impl Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_char('-')?;
        }
        match &self.pred {
            Pred::Text(t) => write!(f, "{}", text(t)),
            p => write!(f, "{}:{}", p.field(), term_values(self)),
        }
    }
}

/// Whether `s` must be quoted to read back as one value (`text`: as a bare word).
fn needs_quotes(s: &str, text: bool) -> bool {
    s.is_empty()
        || s.chars()
            .any(|c| c.is_whitespace() || matches!(c, ',' | '"' | '\\' | ':'))
        || (text && s.starts_with('-'))
}

/// `s`, in quotes (with `\"` and `\\`) when it needs them.
pub(super) fn quoted(s: &str, text: bool) -> String {
    if !needs_quotes(s, text) {
        return s.to_string();
    }
    in_quotes(s)
}

/// Free text: quoted when it must be, and when bare it would be taken for a term's value
/// (`"breaching"`).
fn text(t: &str) -> String {
    if super::known::bare_word(t, 0..0).is_err() {
        in_quotes(t)
    } else {
        quoted(t, true)
    }
}

/// `s` in quotes, with `\"` and `\\`.
fn in_quotes(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// An attribute key after `visitor.` / `attr.`; `name` and `email` are quoted so that they
/// read back as attributes, not as the visitor's own fields.
pub(super) fn quoted_key(k: &str) -> String {
    if k == "name" || k == "email" {
        return format!("\"{k}\"");
    }
    quoted(k, false)
}

/// Seconds as the config writes a duration: `0s`, `45s`, `30m`, `1h30m`, `2d`.
pub fn format_secs(secs: i64) -> String {
    if secs <= 0 {
        return "0s".into();
    }
    let mut out = String::new();
    let mut left = secs;
    for (unit, len) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] {
        if left >= len {
            let _ = write!(out, "{}{unit}", left / len);
            left %= len;
        }
    }
    out
}

fn date(d: &DateVal) -> String {
    match d {
        DateVal::Date(d) => d.to_string(),
        DateVal::DateTime(dt) => dt.to_string(),
        DateVal::Instant(t) => t.to_string(),
    }
}

fn cmp<T>(c: &Cmp<T>, one: impl Fn(&T) -> String) -> String {
    match c {
        Cmp::Gt(x) => format!(">{}", one(x)),
        Cmp::Ge(x) => format!(">={}", one(x)),
        Cmp::Lt(x) => format!("<{}", one(x)),
        Cmp::Le(x) => format!("<={}", one(x)),
        Cmp::Eq(x) => one(x),
        Cmp::Range(a, b) => {
            let end = |x: &Option<T>| x.as_ref().map_or("*".to_string(), &one);
            format!("{}..{}", end(a), end(b))
        }
    }
}

fn list<T>(xs: &[T], one: impl Fn(&T) -> String) -> String {
    xs.iter().map(one).collect::<Vec<_>>().join(",")
}

/// The values of a term as written after the colon (`open,pending`).
pub(super) fn term_values(t: &Term) -> String {
    let s = |x: &String| quoted(x, false);
    match &t.pred {
        Pred::Text(x) => text(x),
        // A status near a known one reads back only quoted (else it is taken for a typo).
        Pred::Status(v) => list(v, |x| match super::known::near_status(x.as_str()) {
            Some(_) => in_quotes(x.as_str()),
            None => quoted(x.as_str(), false),
        }),
        Pred::Assignee(v) => list(v, |a| match a {
            AssigneeRef::Me => "me".into(),
            AssigneeRef::None => "none".into(),
            AssigneeRef::Anyone => "anyone".into(),
            AssigneeRef::Id(id) => id.to_string(),
            AssigneeRef::Name(n) => quoted(n, false),
        }),
        Pred::Site(v) => list(v, |n| match n {
            NameRef::Id(id) => id.to_string(),
            NameRef::Name(n) => quoted(n, false),
        }),
        Pred::Visitor(v) => list(v, |n| match n {
            VisitorRef::Id(id) => id.to_string(),
            VisitorRef::Email(e) => quoted(e, false),
        }),
        Pred::Age(c) | Pred::Idle(c) => cmp(c, |x| format_secs(*x)),
        Pred::Created(c) | Pred::Updated(c) => cmp(c, date),
        Pred::Due(v) => list(v, |d| match d {
            DueValue::Breaching => "breaching".into(),
            DueValue::Imminent => "imminent".into(),
            DueValue::Ok => "ok".into(),
            DueValue::Within(x) => format!("<{}", format_secs(*x)),
            DueValue::Beyond(x) => format!(">{}", format_secs(*x)),
        }),
        Pred::Is(v) => list(v, |i| match i {
            IsValue::Waiting => "waiting".into(),
            IsValue::Stale => "stale".into(),
        }),
        Pred::VisitorName(v)
        | Pred::VisitorEmail(v)
        | Pred::VisitorAttr(_, v)
        | Pred::Email(v)
        | Pred::ExternalId(v)
        | Pred::Name(v)
        | Pred::Attr(_, v) => list(v, s),
    }
}
