//! The lexer and parser: text → [`Query`], or a [`QueryError`] at a position.
//!
//! A term runs to the next space outside quotes. Its first colon outside quotes makes it a
//! `field:values` term (an unknown field is an error, never a guess); without one it is free
//! text. Values are split at commas outside quotes; `\"` and `\\` escape inside quotes.

use std::ops::Range;

use jiff::civil;
use uuid::Uuid;

use super::known;
use super::{
    AssigneeRef, Cmp, DateVal, DueValue, IsValue, NameRef, Pred, Query, QueryError, Secs, Side,
    Term, VisitorRef,
};
use convo_api::Resource;

/// Parses a query for `resource`. Never panics; every error has a position within `text`.
pub fn parse(text: &str, resource: Resource) -> Result<Query, QueryError> {
    let mut terms = Vec::new();
    let mut i = 0;
    while let Some(start) = next_non_space(text, i) {
        let (end, colon) = scan_term(text, start)?;
        terms.push(parse_term(text, start..end, colon, resource)?);
        i = end;
    }
    check_given_once(&terms)?;
    super::bounds::check(&terms)?;
    Ok(Query { resource, terms })
}

fn next_non_space(text: &str, from: usize) -> Option<usize> {
    text[from..]
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map(|(j, _)| from + j)
}

/// The end of the term starting at `start`, and its first colon outside quotes.
fn scan_term(text: &str, start: usize) -> Result<(usize, Option<usize>), QueryError> {
    let mut quote: Option<usize> = None;
    let mut escaped = false;
    let mut colon = None;
    for (j, c) in text[start..].char_indices() {
        let at = start + j;
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(_) if c == '"' => quote = None,
            Some(_) => {}
            None if c == '"' => quote = Some(at),
            None if c.is_whitespace() => return Ok((at, colon)),
            None => {
                if c == ':' && colon.is_none() {
                    colon = Some(at);
                }
            }
        }
    }
    if let Some(q) = quote {
        return Err(QueryError::new(
            q..text.len(),
            "a quote that is not closed",
            "a closing \" (write \\\" for a quote inside quotes)",
        ));
    }
    Ok((text.len(), colon))
}

/// The text of a piece of a term with its quotes taken off; whether any part was quoted.
fn unquote(raw: &str) -> (String, bool) {
    let mut out = String::with_capacity(raw.len());
    let (mut inside, mut escaped, mut quoted) = (false, false, false);
    for c in raw.chars() {
        if inside {
            if escaped {
                out.push(c);
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                inside = false;
            } else {
                out.push(c);
            }
        } else if c == '"' {
            inside = true;
            quoted = true;
        } else {
            out.push(c);
        }
    }
    (out, quoted)
}

/// One value of a field: its text (unquoted), where it was, whether it was quoted.
struct Value {
    text: String,
    span: Range<usize>,
    quoted: bool,
}

/// Splits `text[range]` at commas outside quotes; an empty piece is an error.
fn split_values(text: &str, range: Range<usize>, field: &str) -> Result<Vec<Value>, QueryError> {
    let mut out = Vec::new();
    let mut piece_start = range.start;
    let (mut inside, mut escaped) = (false, false);
    let raw = &text[range.clone()];
    let mut push = |from: usize, to: usize| -> Result<(), QueryError> {
        if from == to {
            return Err(QueryError::new(
                from..to,
                if to == range.end && from == range.start {
                    format!("{field}: with no value")
                } else {
                    "an empty value".to_string()
                },
                format!("a value for {field}"),
            ));
        }
        let (t, quoted) = unquote(&text[from..to]);
        out.push(Value {
            text: t,
            span: from..to,
            quoted,
        });
        Ok(())
    };
    for (j, c) in raw.char_indices() {
        let at = range.start + j;
        if inside {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                inside = false;
            }
        } else if c == '"' {
            inside = true;
        } else if c == ',' {
            push(piece_start, at)?;
            piece_start = at + 1;
        }
    }
    push(piece_start, range.end)?;
    Ok(out)
}

fn parse_term(
    text: &str,
    span: Range<usize>,
    colon: Option<usize>,
    resource: Resource,
) -> Result<Term, QueryError> {
    let negated = text[span.clone()].starts_with('-');
    let body = if negated { span.start + 1 } else { span.start };
    if body == span.end {
        return Err(QueryError::new(
            span,
            "a lone -",
            "a field or a word after - (e.g. -status:closed)",
        ));
    }
    let Some(colon) = colon else {
        let (t, quoted) = unquote(&text[body..span.end]);
        if t.is_empty() {
            return Err(QueryError::new(
                body..span.end,
                "an empty phrase",
                "a word or a quoted phrase",
            ));
        }
        if !quoted && resource == Resource::Conversations {
            known::bare_word(&t, body..span.end)?;
        }
        return Ok(Term {
            negated,
            pred: Pred::Text(t),
            value_spans: std::iter::once(body..span.end).collect(),
            span,
        });
    };
    let field_span = body..colon;
    if colon + 1 == span.end && !known::is_field(&text[field_span.clone()], resource) {
        // `re: order`: an unknown field says so before its missing value.
        return Err(known::unknown_field(text, field_span, resource));
    }
    let values = split_values(text, colon + 1..span.end, &text[field_span.clone()])?;
    let pred = field_pred(text, field_span, &values, resource)?;
    Ok(Term {
        negated,
        pred,
        value_spans: values.iter().map(|v| v.span.clone()).collect(),
        span,
    })
}

/// Which field `text[field]` names, and its values read for it.
fn field_pred(
    text: &str,
    field: Range<usize>,
    values: &[Value],
    resource: Resource,
) -> Result<Pred, QueryError> {
    let raw = &text[field.clone()];
    let strings = || values.iter().map(|v| v.text.clone()).collect::<Vec<_>>();
    let conv = resource == Resource::Conversations;
    // `visitor.KEY` / `attr.KEY`: the key may be quoted.
    if let Some((prefix, key_raw)) = raw.split_once('.')
        && !prefix.contains('"')
    {
        let prefix = prefix.to_ascii_lowercase();
        let (key, quoted) = unquote(key_raw);
        if key.is_empty() && (prefix == "visitor" || prefix == "attr") {
            return Err(QueryError::new(
                field.clone(),
                format!("{prefix}. with no key"),
                format!("a key after {prefix}. (e.g. {prefix}.plan:pro)"),
            ));
        }
        match (prefix.as_str(), conv) {
            ("visitor", true) => {
                return Ok(match key.as_str() {
                    "name" if !quoted => Pred::VisitorName(strings()),
                    "email" if !quoted => Pred::VisitorEmail(strings()),
                    _ => Pred::VisitorAttr(key, strings()),
                });
            }
            ("attr", false) => return Ok(Pred::Attr(key, strings())),
            _ => {}
        }
    }
    let name = raw.to_ascii_lowercase();
    let one = |what: &str| one_value(values, &name, what);
    let pred = match (name.as_str(), conv) {
        ("status", true) => Pred::Status(
            values
                .iter()
                .map(|v| known::status(&v.text, v.quoted, v.span.clone()))
                .collect::<Result<_, _>>()?,
        ),
        ("assignee", true) => Pred::Assignee(values.iter().map(|v| assignee(&v.text)).collect()),
        ("site", true) => Pred::Site(
            values
                .iter()
                .map(|v| match uuid(&v.text) {
                    Some(id) => NameRef::Id(id),
                    None => NameRef::Name(v.text.trim().to_string()),
                })
                .collect(),
        ),
        ("visitor", true) => Pred::Visitor(
            values
                .iter()
                .map(|v| match uuid(&v.text) {
                    Some(id) => Ok(VisitorRef::Id(id)),
                    None if v.text.contains('@') => Ok(VisitorRef::Email(v.text.trim().into())),
                    None => Err(QueryError::new(
                        v.span.clone(),
                        format!("{:?}", v.text),
                        "a visitor's UUID or e-mail address",
                    )),
                })
                .collect::<Result<_, _>>()?,
        ),
        ("age", _) => Pred::Age(duration_cmp(text, one("one comparison")?, &name)?),
        ("idle", true) => Pred::Idle(duration_cmp(text, one("one comparison")?, &name)?),
        ("created", _) => Pred::Created(date_cmp(one("one date or range")?)?),
        ("updated", true) => Pred::Updated(date_cmp(one("one date or range")?)?),
        ("due", true) => Pred::Due(values.iter().map(due).collect::<Result<_, _>>()?),
        ("is", true) => Pred::Is(
            values
                .iter()
                .map(|v| match v.text.to_ascii_lowercase().as_str() {
                    "waiting" => Ok(IsValue::Waiting),
                    "stale" => Ok(IsValue::Stale),
                    _ => {
                        let e = QueryError::new(
                            v.span.clone(),
                            format!("{:?}", v.text),
                            "waiting or stale",
                        );
                        Err(match known::did_you_mean(&v.text, &known::IS_WORDS) {
                            Some(h) => e.hint(h),
                            None => e,
                        })
                    }
                })
                .collect::<Result<_, _>>()?,
        ),
        ("email", false) => Pred::Email(strings()),
        ("external_id", false) => Pred::ExternalId(strings()),
        ("name", false) => Pred::Name(strings()),
        _ => return Err(known::unknown_field(text, field, resource)),
    };
    for v in values {
        if v.text.trim().is_empty() {
            return Err(QueryError::new(
                v.span.clone(),
                "a blank value",
                format!("a value for {name}"),
            ));
        }
    }
    Ok(pred)
}

fn one_value<'a>(values: &'a [Value], field: &str, what: &str) -> Result<&'a Value, QueryError> {
    match values {
        [v] => Ok(v),
        [_, second, ..] => Err(QueryError::new(
            second.span.clone(),
            "a second value",
            format!(
                "{what} for {field} (for a range give two bounds: {field}:>1h {field}:<1d, or a..b)"
            ),
        )),
        [] => Err(QueryError::new(
            0..0,
            "nothing",
            format!("a value for {field}"),
        )),
    }
}

fn uuid(s: &str) -> Option<Uuid> {
    let s = s.trim();
    // Only the plain hyphenated form: it is what the service is sent and what prints back.
    (s.len() == 36).then(|| Uuid::parse_str(s).ok()).flatten()
}

fn assignee(s: &str) -> AssigneeRef {
    match s.trim().to_ascii_lowercase().as_str() {
        "me" => AssigneeRef::Me,
        "none" | "unassigned" => AssigneeRef::None,
        "anyone" | "assigned" => AssigneeRef::Anyone,
        _ => match uuid(s) {
            Some(id) => AssigneeRef::Id(id),
            None => AssigneeRef::Name(s.trim().to_string()),
        },
    }
}

/// Splits off a comparison: `>=x`, `>x`, `<=x`, `<x`, `a..b` or `x`.
fn shape(s: &str) -> CmpShape<'_> {
    for (op, k) in [(">=", Op::Ge), ("<=", Op::Le), (">", Op::Gt), ("<", Op::Lt)] {
        if let Some(rest) = s.strip_prefix(op) {
            return CmpShape::Op(k, rest);
        }
    }
    match s.split_once("..") {
        Some((a, b)) => CmpShape::Range(a, b),
        None => CmpShape::Eq(s),
    }
}

#[derive(Clone, Copy)]
enum Op {
    Gt,
    Ge,
    Lt,
    Le,
}

enum CmpShape<'a> {
    Op(Op, &'a str),
    Range(&'a str, &'a str),
    Eq(&'a str),
}

/// Reads a comparison of `T`s; `one` reads a value or says what it expected.
fn read_cmp<T>(
    v: &Value,
    one: impl Fn(&str) -> Result<T, String>,
    eq_allowed: bool,
    field: &str,
) -> Result<Cmp<T>, QueryError> {
    let err = |m: String| QueryError::new(v.span.clone(), format!("{:?}", v.text), m);
    Ok(match shape(v.text.trim()) {
        CmpShape::Op(op, rest) => {
            let x = one(rest.trim()).map_err(err)?;
            match op {
                Op::Gt => Cmp::Gt(x),
                Op::Ge => Cmp::Ge(x),
                Op::Lt => Cmp::Lt(x),
                Op::Le => Cmp::Le(x),
            }
        }
        CmpShape::Range(a, b) => {
            let end = |x: &str| -> Result<Option<T>, QueryError> {
                match x.trim() {
                    "*" => Ok(None),
                    x => one(x).map(Some).map_err(err),
                }
            };
            let (a, b) = (end(a)?, end(b)?);
            if a.is_none() && b.is_none() {
                return Err(err(format!(
                    "at least one end of the range (e.g. {field}:a..*)"
                )));
            }
            Cmp::Range(a, b)
        }
        CmpShape::Eq(x) if eq_allowed => Cmp::Eq(one(x).map_err(err)?),
        CmpShape::Eq(_) => {
            return Err(err(format!(
                "a comparison: {field}:>2h (more than), {field}:<30m (less than) or {field}:1h..2h"
            )));
        }
    })
}

fn duration(s: &str) -> Result<Secs, String> {
    if s.trim().parse::<i64>().is_ok() {
        // A bare number is seconds in the config, but here `age:>10 m` would read as 10s.
        return Err(format!(
            "a duration with its unit: {n}s, {n}m, {n}h or {n}d",
            n = s.trim()
        ));
    }
    convo_config::ui::parse_duration(s)
        .map_err(|_| "a duration such as 90s, 30m, 2h, 1h30m or 1d".to_string())
        .and_then(|n| {
            if n > 100 * 365 * 86_400 {
                Err("a duration of at most 100 years".into())
            } else {
                Ok(n)
            }
        })
}

/// A comparison of durations; a unit written apart from its number (`age:>10 m`) is said.
fn duration_cmp(text: &str, v: &Value, field: &str) -> Result<Cmp<Secs>, QueryError> {
    read_cmp(v, duration, false, field).map_err(|e| match known::unit_after(text, v.span.end) {
        Some(unit) => e.hint(format!(
            "no space between the number and its unit: {field}:{}{unit}",
            v.text.trim()
        )),
        None => e,
    })
}

/// A date as GitHub's search takes it: `2026-11-01`, `2026-11-01T10:00` (local time) or with
/// an offset (`Z`, `+01:00`).
pub(crate) fn date(s: &str) -> Result<DateVal, String> {
    let expected =
        || "a date such as 2026-11-01, 2026-11-01T10:00 or 2026-11-01T10:00Z".to_string();
    if s.len() > 64 {
        return Err(expected());
    }
    if !s.contains(['T', 't', ' ']) {
        return s
            .parse::<civil::Date>()
            .map(DateVal::Date)
            .map_err(|_| expected());
    }
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Ok(DateVal::Instant(t));
    }
    s.parse::<civil::DateTime>()
        .map(DateVal::DateTime)
        .map_err(|_| expected())
}

fn date_cmp(v: &Value) -> Result<Cmp<DateVal>, QueryError> {
    read_cmp(v, date, true, "created")
}

fn due(v: &Value) -> Result<DueValue, QueryError> {
    let t = v.text.trim();
    let err = || {
        let e = QueryError::new(
            v.span.clone(),
            format!("{t:?}"),
            "breaching, imminent, ok, or <DURATION / >DURATION (e.g. due:<10m)",
        );
        match known::did_you_mean(t, &known::DUE_WORDS) {
            Some(h) => e.hint(h),
            None => e,
        }
    };
    Ok(match t.to_ascii_lowercase().as_str() {
        "breaching" => DueValue::Breaching,
        "imminent" => DueValue::Imminent,
        "ok" => DueValue::Ok,
        _ => {
            if let Some(d) = t.strip_prefix('<').filter(|d| !d.starts_with('=')) {
                DueValue::Within(duration(d.trim()).map_err(|_| err())?)
            } else if let Some(d) = t.strip_prefix('>').filter(|d| !d.starts_with('=')) {
                DueValue::Beyond(duration(d.trim()).map_err(|_| err())?)
            } else {
                return Err(err());
            }
        }
    })
}

/// A field may be given once, except two one-sided bounds of one range (`age:>1h age:<1d`).
fn check_given_once(terms: &[Term]) -> Result<(), QueryError> {
    for (i, t) in terms.iter().enumerate() {
        let field = t.pred.field();
        if field.is_empty() {
            continue;
        }
        let earlier: Vec<&Term> = terms[..i]
            .iter()
            .filter(|e| e.pred.field() == field)
            .collect();
        let Some(first) = earlier.first() else {
            continue;
        };
        let bounds = |a: &Term, b: &Term| -> bool {
            let side = |p: &Pred| match p {
                Pred::Age(c) | Pred::Idle(c) => Some(c.side()),
                Pred::Created(c) | Pred::Updated(c) => Some(c.side()),
                _ => None,
            };
            !a.negated
                && !b.negated
                && matches!(
                    (side(&a.pred), side(&b.pred)),
                    (Some(Side::Lower), Some(Side::Upper)) | (Some(Side::Upper), Some(Side::Lower))
                )
        };
        if earlier.len() == 1 && bounds(first, t) {
            continue;
        }
        let e = QueryError::new(
            t.span.clone(),
            format!("{field} given twice"),
            "each field once; a field's values are one term, separated by commas",
        );
        let hint = if first.negated != t.negated {
            format!("a field cannot be both required and negated: keep one {field} term")
        } else if matches!(
            t.pred,
            Pred::Age(_) | Pred::Idle(_) | Pred::Created(_) | Pred::Updated(_)
        ) {
            format!("only two bounds of one range: {field}:>1h {field}:<1d, or {field}:a..b")
        } else {
            let a = super::print::term_values(first);
            let b = super::print::term_values(t);
            format!("use {}{field}:{a},{b}", if t.negated { "-" } else { "" })
        };
        return Err(e.hint(hint));
    }
    Ok(())
}
