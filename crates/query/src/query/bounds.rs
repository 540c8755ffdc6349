//! Bounds nothing can fall between (`age:>1d age:<1h`, `created:2026-11-20..2026-11-01`): an
//! error before any request, not a walk of every page that finds nothing.

use std::cmp::Ordering;

use super::{Cmp, DateVal, Pred, QueryError, Term};

/// One end of a range: its value and whether it is included.
type End<'a, T> = Option<(&'a T, bool)>;

/// The lower and upper ends a comparison sets.
fn ends<T>(c: &Cmp<T>) -> (End<'_, T>, End<'_, T>) {
    match c {
        Cmp::Gt(x) => (Some((x, false)), None),
        Cmp::Ge(x) => (Some((x, true)), None),
        Cmp::Lt(x) => (None, Some((x, false))),
        Cmp::Le(x) => (None, Some((x, true))),
        Cmp::Eq(x) => (Some((x, true)), Some((x, true))),
        Cmp::Range(a, b) => (a.as_ref().map(|a| (a, true)), b.as_ref().map(|b| (b, true))),
    }
}

/// Whether nothing lies between `lo` and `hi`; `None` when they cannot be compared.
fn empty<T>(lo: End<'_, T>, hi: End<'_, T>, cmp: impl Fn(&T, &T) -> Option<Ordering>) -> bool {
    let (Some((lo, lo_in)), Some((hi, hi_in))) = (lo, hi) else {
        return false;
    };
    match cmp(lo, hi) {
        Some(Ordering::Greater) => true,
        Some(Ordering::Equal) => !(lo_in && hi_in),
        _ => false,
    }
}

/// Dates of one form compare; a day with an instant does not (its zone is not known here).
fn dates(a: &DateVal, b: &DateVal) -> Option<Ordering> {
    match (a, b) {
        (DateVal::Date(a), DateVal::Date(b)) => Some(a.cmp(b)),
        (DateVal::DateTime(a), DateVal::DateTime(b)) => Some(a.cmp(b)),
        (DateVal::Instant(a), DateVal::Instant(b)) => Some(a.cmp(b)),
        _ => None,
    }
}

/// The first term whose bounds, with an earlier term's of the same field, hold nothing.
pub(super) fn check(terms: &[Term]) -> Result<(), QueryError> {
    for (i, t) in terms.iter().enumerate() {
        if t.negated {
            continue;
        }
        let earlier = terms[..i]
            .iter()
            .find(|e| !e.negated && e.pred.field() == t.pred.field());
        let contradicts = match (&t.pred, earlier.map(|e| &e.pred)) {
            (Pred::Age(c) | Pred::Idle(c), other) => {
                let o = match other {
                    Some(Pred::Age(o) | Pred::Idle(o)) => Some(o),
                    _ => None,
                };
                holds_nothing(c, o, |a: &i64, b: &i64| Some(a.cmp(b)))
            }
            (Pred::Created(c) | Pred::Updated(c), other) => {
                let o = match other {
                    Some(Pred::Created(o) | Pred::Updated(o)) => Some(o),
                    _ => None,
                };
                holds_nothing(c, o, dates)
            }
            _ => false,
        };
        if contradicts {
            let field = t.pred.field();
            let both = match earlier {
                Some(e) => format!("{e} with {t}"),
                None => t.to_string(),
            };
            let hint = if matches!(t.pred, Pred::Age(_) | Pred::Idle(_)) {
                format!(
                    "{field}:>X is older than X, {field}:<X younger: {field}:>1h {field}:<1d is between an hour and a day"
                )
            } else {
                format!("{field}:a..b runs from a to b, a first")
            };
            return Err(QueryError::new(
                t.span.clone(),
                format!("{} nothing can match", convo_text::one_line(&both, 60)),
                "bounds with room between them (the lower below the upper)",
            )
            .hint(hint));
        }
    }
    Ok(())
}

/// Whether `c` alone, or with `other` (the same field's other bound), holds nothing.
fn holds_nothing<T>(
    c: &Cmp<T>,
    other: Option<&Cmp<T>>,
    cmp: impl Fn(&T, &T) -> Option<Ordering> + Copy,
) -> bool {
    let (lo, hi) = ends(c);
    if empty(lo, hi, cmp) {
        return true;
    }
    let Some(o) = other else {
        return false;
    };
    let (olo, ohi) = ends(o);
    empty(lo.or(olo), hi.or(ohi), cmp)
}

#[cfg(test)]
mod tests {
    use crate::query::parse;
    use convo_api::Resource::Conversations as C;

    #[test]
    fn bounds_nothing_fits_between_are_an_error() {
        for (q, at) in [
            ("age:>1d age:<1h", 8..15),
            ("idle:<1h idle:>1h", 9..17),
            ("age:2d..1h", 0..10),
            ("created:>=2026-11-20 created:<2026-11-01", 21..40),
            ("updated:2026-11-20..2026-11-01", 0..30),
        ] {
            let e = parse(q, C).expect_err(q);
            assert_eq!(e.at, at, "{q}: {e}");
            assert!(e.found.ends_with("nothing can match"), "{q}: {e}");
        }
        for q in [
            "age:>1h age:<1d",
            "age:>=1h age:<=1h",
            "created:2026-11-01..2026-11-01",
            "created:>2026-11-01T10:00Z created:<2026-11-01",
        ] {
            parse(q, C).unwrap_or_else(|e| panic!("{q}: {e}"));
        }
    }
}
