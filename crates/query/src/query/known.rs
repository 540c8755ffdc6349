//! The values convo knows the whole set of (statuses, `due:`, `is:`, `me`/`none`/`anyone`),
//! and what is near them: a value close to a known one is a typo, refused with "did you
//! mean" before any request, not a filter that walks every page and finds nothing. A value
//! far from every known one (a status the service adds, such as `snoozed`) is kept; quoting
//! keeps any value as written.

use std::ops::Range;

use super::{Pred, Query, QueryError, fields};
use convo_api::Resource;
use convo_api::Status;

/// `due:`'s words.
pub(crate) const DUE_WORDS: [&str; 3] = ["breaching", "imminent", "ok"];
/// `is:`'s words.
pub(crate) const IS_WORDS: [&str; 2] = ["waiting", "stale"];
/// `assignee:`'s words (besides agents).
pub(crate) const ASSIGNEE_WORDS: [&str; 3] = ["me", "none", "anyone"];

/// The known value `s` is a typo of, if any (`s` itself not known).
fn near(s: &str, known: &[&str]) -> Option<String> {
    let lower = s.trim().to_lowercase();
    if known.contains(&lower.as_str()) {
        return None;
    }
    closest(&lower, known.iter().map(|k| k.to_string()), 1)
        .into_iter()
        .next()
}

/// The known status an unknown one is a typo of (`opne` → `open`).
pub(crate) fn near_status(s: &str) -> Option<String> {
    let known: Vec<&str> = Status::KNOWN.iter().map(Status::as_str).collect();
    near(s, &known)
}

/// A `status:` value: a known status, a typo of one (an error), or one convo does not know,
/// kept as written (lower-cased); `quoted` keeps anything.
pub(crate) fn status(text: &str, quoted: bool, at: Range<usize>) -> Result<Status, QueryError> {
    let s = text.trim().to_lowercase();
    if !quoted && let Some(n) = near_status(&s) {
        return Err(QueryError::new(
            at,
            format!("unknown status {:?}", convo_text::one_line(text, 40)),
            "open, pending or closed",
        )
        .hint(format!(
            "did you mean {n}? A status of the service's own: quote it, status:\"{}\"",
            convo_text::one_line(&s, 40)
        )));
    }
    Ok(Status::from_wire(&s))
}

/// "did you mean X?" for a word of `known`, or nothing.
pub(crate) fn did_you_mean(s: &str, known: &[&str]) -> Option<String> {
    near(s, known).map(|n| format!("did you mean {n}?"))
}

/// A bare word that is a value of `due:` or `is:` (`breaching`): almost surely that term,
/// since free text is looked for in ids, names and e-mails. Quoting it searches the text.
pub(crate) fn bare_word(word: &str, at: Range<usize>) -> Result<(), QueryError> {
    let lower = word.to_lowercase();
    let field = if DUE_WORDS[..2].contains(&lower.as_str()) {
        "due"
    } else if IS_WORDS.contains(&lower.as_str()) {
        "is"
    } else {
        return Ok(());
    };
    Err(QueryError::new(
        at,
        format!("the word {lower:?} alone"),
        format!("a term such as {field}:{lower}"),
    )
    .hint(format!(
        "did you mean {field}:{lower}? To search the text for the word, quote it: \"{lower}\""
    )))
}

/// A duration's unit written apart from its number (`age:>10 m`): the next word, when it is
/// one.
pub(crate) fn unit_after(text: &str, end: usize) -> Option<&str> {
    let rest = text.get(end..)?;
    let word = rest.split_whitespace().next()?;
    let units = [
        "s", "sec", "secs", "second", "seconds", "m", "min", "mins", "minute", "minutes", "h",
        "hr", "hrs", "hour", "hours", "d", "day", "days", "w", "week", "weeks",
    ];
    (rest.starts_with(char::is_whitespace) && units.contains(&word.to_lowercase().as_str()))
        .then_some(word)
}

/// What convo says of a query before it runs, once: statuses it does not know (kept, walked
/// without a status filter) and attribute keys no visitor in the local store has; an
/// attribute key near one the store knows is a typo, refused. `attr_keys`: the store's keys
/// (`None`: no store to ask).
pub fn cautions(q: &Query, attr_keys: Option<&[String]>) -> Result<Vec<String>, QueryError> {
    let mut out = Vec::new();
    for t in &q.terms {
        match &t.pred {
            Pred::Status(v) => {
                for s in v.iter().filter(|s| !Status::KNOWN.contains(s)) {
                    out.push(format!(
                        "status {:?} is not one convo knows (open, pending, closed): every page \
                         is walked without a status filter and the status checked in convo",
                        convo_text::one_line(s.as_str(), 40)
                    ));
                }
            }
            Pred::VisitorAttr(key, _) | Pred::Attr(key, _) => {
                let Some(keys) = attr_keys.filter(|k| !k.is_empty()) else {
                    continue;
                };
                if keys.iter().any(|k| k == key) {
                    continue;
                }
                let field = t.pred.field();
                let prefix = field.split('.').next().unwrap_or_default();
                let shown = convo_text::one_line(key, 40);
                if let Some(n) = closest(key, keys.iter().cloned(), 1).first() {
                    let start = t.span.start + usize::from(t.negated);
                    let key_at = start + prefix.len() + 1..start + field.len();
                    return Err(QueryError::new(
                        key_at,
                        format!("attribute {shown:?}, which no visitor in the local store has"),
                        format!("a key the visitors have: {}", shown_keys(keys)),
                    )
                    .hint(format!("did you mean {prefix}.{}:?", super::quote(n))));
                }
                out.push(format!(
                    "no visitor in the local store has the attribute {shown:?} (it knows {}): \
                     {field} matches only visitors that have it",
                    shown_keys(keys)
                ));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Up to eight keys, then how many more.
fn shown_keys(keys: &[String]) -> String {
    let mut s: Vec<String> = keys
        .iter()
        .take(8)
        .map(|k| convo_text::one_line(k, 30))
        .collect();
    if keys.len() > 8 {
        s.push(format!("{} more", keys.len() - 8));
    }
    s.join(", ")
}

/// Whether `raw` (before a colon) names a field of `resource`.
pub(crate) fn is_field(raw: &str, resource: Resource) -> bool {
    let lower = raw.to_ascii_lowercase();
    let prefix = match resource {
        Resource::Conversations => "visitor.",
        Resource::Visitors => "attr.",
    };
    fields(resource).contains(&lower.as_str()) || lower.starts_with(prefix)
}

/// Whether `raw` could be an attribute's key written bare (letters, digits, `_`, `-`).
fn is_key(raw: &str) -> bool {
    !raw.is_empty()
        && raw.len() <= 64
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `text[at]` is no field: the fields, the nearest one, an attribute's field, or how to search
/// for the text.
pub(crate) fn unknown_field(text: &str, at: Range<usize>, resource: Resource) -> QueryError {
    let raw = &text[at.clone()];
    let known = fields(resource);
    let mut e = QueryError::new(
        at.start..at.end + 1,
        format!("unknown field {:?}", convo_text::one_line(raw, 40)),
        format!("a field of {}: {}", resource.name(), known.join(", ")),
    );
    let near = closest(raw, known.iter().map(|s| s.to_string()), 1);
    let other = match resource {
        Resource::Conversations => Resource::Visitors,
        Resource::Visitors => Resource::Conversations,
    };
    // The term and the word after it when the colon ends the term (`re: order`): text with
    // a colon and a space, far likelier than a field's typo.
    let term_end = text[at.end..]
        .find(char::is_whitespace)
        .map_or(text.len(), |i| at.end + i);
    let next = text[term_end..]
        .split_whitespace()
        .next()
        .filter(|_| term_end == at.end + 1);
    let quote_it = |phrase: &str| {
        format!(
            "to search for the text, quote it: \"{}\"",
            convo_text::one_line(phrase, 60)
        )
    };
    let lower = raw.to_ascii_lowercase();
    let hint = if let Some(w) = next {
        quote_it(&format!("{raw}: {w}"))
    } else if fields(other).contains(&lower.as_str()) {
        // `name:` in conversations: the visitor's own field, written `visitor.name:`.
        let theirs = format!("visitor.{lower}");
        if known.contains(&theirs.as_str()) {
            format!("{raw} is a field of {}; here, {theirs}:", other.name())
        } else {
            format!("{raw} is a field of {}", other.name())
        }
    } else if let Some(n) = near.first() {
        format!("did you mean {n}:?")
    } else if is_key(raw) {
        // `plan:pro`: most likely a visitor's attribute, which has a field of its own.
        let (whose, prefix) = match resource {
            Resource::Conversations => ("a visitor's attribute", "visitor."),
            Resource::Visitors => ("an attribute", "attr."),
        };
        let term = convo_text::one_line(&text[at.start..term_end], 60);
        format!("{whose} is written {prefix}{term}; to search for the text, quote it: \"{term}\"")
    } else {
        quote_it(&format!("{}…", &text[at.start..term_end]))
    };
    e = e.hint(hint);
    e
}

/// Up to `n` of `candidates` closest to `s` (edit distance, ignoring case), nearest first;
/// only those near enough to be a typo or a start.
pub(crate) fn closest(s: &str, candidates: impl Iterator<Item = String>, n: usize) -> Vec<String> {
    let want: Vec<char> = s.to_lowercase().chars().take(64).collect();
    let mut scored: Vec<(usize, String)> = candidates
        .filter_map(|c| {
            let lc: Vec<char> = c.to_lowercase().chars().take(64).collect();
            let d = if !want.is_empty() && lc.starts_with(&want) {
                0
            } else {
                distance(&want, &lc)
            };
            (d <= (want.len() / 3).max(2)).then_some((d, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

/// Levenshtein distance.
fn distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use crate::query::{Pred, QueryError, parse};
    use convo_api::Resource::{Conversations as C, Visitors as V};
    use convo_api::Status;

    fn err(s: &str) -> QueryError {
        parse(s, C).expect_err(s)
    }

    #[test]
    fn a_status_near_a_known_one_is_a_typo() {
        let e = err("status:open,opne");
        assert_eq!(e.at, 12..16);
        assert_eq!(e.found, "unknown status \"opne\"");
        assert!(
            e.hint.as_deref().unwrap().starts_with("did you mean open?"),
            "{e}"
        );
        assert!(err("status:closd").hint.unwrap().contains("closed"));
        // Far from every known one: kept (the service may add it), and quoting keeps any.
        let q = parse("status:snoozed", C).unwrap();
        assert_eq!(
            q.terms[0].pred,
            Pred::Status(vec![Status::Other("snoozed".into())])
        );
        let q = parse("status:\"opne\"", C).unwrap();
        assert_eq!(
            q.terms[0].pred,
            Pred::Status(vec![Status::Other("opne".into())])
        );
        // …and prints back quoted, so that it reads back the same.
        assert_eq!(q.to_string(), "status:\"opne\"");
        assert_eq!(parse(&q.to_string(), C).unwrap(), q);
    }

    #[test]
    fn due_and_is_values_near_a_known_one_say_which() {
        assert_eq!(
            err("due:breachng").hint.as_deref(),
            Some("did you mean breaching?")
        );
        assert_eq!(
            err("is:wating").hint.as_deref(),
            Some("did you mean waiting?")
        );
    }

    #[test]
    fn a_bare_due_or_is_word_is_that_term() {
        let e = err("status:open breaching");
        assert_eq!(e.at, 12..21);
        assert!(
            e.hint
                .as_deref()
                .unwrap()
                .starts_with("did you mean due:breaching?"),
            "{e}"
        );
        assert!(err("stale").hint.unwrap().contains("is:stale"));
        // Quoted, it is the text; in the visitors list, a word.
        let q = parse("\"breaching\"", C).unwrap();
        assert_eq!(q.terms[0].pred, Pred::Text("breaching".into()));
        assert_eq!(q.to_string(), "\"breaching\"");
        parse("stale", V).unwrap();
    }

    #[test]
    fn a_duration_needs_its_unit() {
        let e = err("age:>10 m");
        assert_eq!(e.at, 4..7);
        assert!(e.expected.contains("10m"), "{e}");
        assert_eq!(
            e.hint.as_deref(),
            Some("no space between the number and its unit: age:>10m")
        );
        let e = err("idle:<5");
        assert!(e.expected.contains("5s, 5m, 5h or 5d"), "{e}");
        assert_eq!(e.hint, None);
        err("due:<10");
    }

    #[test]
    fn an_unknown_field_with_nothing_after_its_colon_says_to_quote_the_text() {
        let e = err("re: order");
        assert_eq!(e.at, 0..3);
        assert_eq!(e.found, "unknown field \"re\"");
        assert_eq!(
            e.hint.as_deref(),
            Some("to search for the text, quote it: \"re: order\"")
        );
        // A visitors' field in conversations points at the visitor's own.
        assert_eq!(
            err("name:bjorn").hint.as_deref(),
            Some("name is a field of visitors; here, visitor.name:")
        );
        // A word that is no field, near none: an attribute, most likely (on Visitors,
        // `attr.`), or text to quote.
        assert_eq!(
            err("plan:pro").hint.as_deref(),
            Some(
                "a visitor's attribute is written visitor.plan:pro; to search for the text, \
                 quote it: \"plan:pro\""
            )
        );
        assert_eq!(
            parse("plan:pro", V).expect_err("plan").hint.as_deref(),
            Some(
                "an attribute is written attr.plan:pro; to search for the text, quote it: \
                 \"plan:pro\""
            )
        );
        // A known field with no value says so once.
        let e = err("status: open");
        assert_eq!(e.found, "status: with no value");
    }
}
