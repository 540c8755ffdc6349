//! Property tests of the query language (issue 22): the parser never panics, every error has a
//! position within the input, and the canonical text of a parsed query parses to the same query.

use convo::api::Resource;
use convo::query::{Query, QueryError, parse};
use proptest::prelude::*;

use crate::common::cases as config;

/// Every property, for one input.
fn check(text: &str, resource: Resource) -> Result<(), TestCaseError> {
    match parse(text, resource) {
        Err(e) => check_error(text, &e),
        Ok(q) => check_round_trip(&q, resource),
    }
}

fn check_error(text: &str, e: &QueryError) -> Result<(), TestCaseError> {
    prop_assert!(e.at.start <= e.at.end, "{e:?}");
    prop_assert!(e.at.end <= text.len(), "{e:?} beyond {}", text.len());
    prop_assert!(text.is_char_boundary(e.at.start) && text.is_char_boundary(e.at.end));
    prop_assert!(!e.found.is_empty() && !e.expected.is_empty());
    // The rendering never panics and has its three lines.
    prop_assert_eq!(e.render(text).lines().count(), 3);
    Ok(())
}

fn check_round_trip(q: &Query, resource: Resource) -> Result<(), TestCaseError> {
    let printed = q.to_string();
    let again = parse(&printed, resource)
        .map_err(|e| TestCaseError::fail(format!("{printed:?} does not parse: {e}")))?;
    prop_assert_eq!(&again, q, "printed as {:?}", printed);
    prop_assert_eq!(again.to_string(), printed);
    Ok(())
}

/// Text made of the language's own pieces, so that many inputs parse.
fn queryish() -> impl Strategy<Value = String> {
    let field = prop_oneof![
        Just(""),
        Just("status:"),
        Just("assignee:"),
        Just("site:"),
        Just("visitor:"),
        Just("age:"),
        Just("idle:"),
        Just("created:"),
        Just("updated:"),
        Just("due:"),
        Just("is:"),
        Just("visitor.name:"),
        Just("visitor.plan:"),
        Just("visitor.\"a b\":"),
        Just("email:"),
        Just("external_id:"),
        Just("name:"),
        Just("attr.plan:"),
        Just("nope:"),
    ];
    let value = prop_oneof![
        Just("open".to_string()),
        Just("pending".to_string()),
        Just("snoozed".to_string()),
        Just("me".to_string()),
        Just("none".to_string()),
        Just("anyone".to_string()),
        Just("3f2b8c1e-0a4d-4e5f-9b6a-1c2d3e4f5a6b".to_string()),
        Just("a@b.c".to_string()),
        Just(">2h".to_string()),
        Just("<1d".to_string()),
        Just("1h..*".to_string()),
        Just(">=2026-11-01".to_string()),
        Just("2026-11-01..2026-11-20".to_string()),
        Just("2026-11-01T10:00".to_string()),
        Just("<2026-11-01T10:00:00Z".to_string()),
        Just("breaching".to_string()),
        Just("<10m".to_string()),
        Just("waiting".to_string()),
        Just("stale".to_string()),
        Just("\"Web shop\"".to_string()),
        Just("\"a\\\"b\"".to_string()),
        Just("\"x,y\"".to_string()),
        Just("\"-x:y\"".to_string()),
        "[a-zA-Z0-9@.\\-é日]{1,6}",
        "[ -~]{0,4}",
    ];
    let term = (
        prop::bool::weighted(0.2),
        field,
        prop::collection::vec(value, 1..3),
    )
        .prop_map(|(neg, f, vs)| format!("{}{f}{}", if neg { "-" } else { "" }, vs.join(",")));
    prop::collection::vec(term, 0..5).prop_map(|ts| ts.join(" "))
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        check(&s, Resource::Conversations)?;
        check(&s, Resource::Visitors)?;
    }

    #[test]
    fn query_like_text(s in queryish()) {
        check(&s, Resource::Conversations)?;
        check(&s, Resource::Visitors)?;
    }

    #[test]
    fn printable_noise(s in "[ -~]{0,40}") {
        check(&s, Resource::Conversations)?;
        check(&s, Resource::Visitors)?;
    }
}

/// The properties must be able to fail: some query-like inputs parse, some do not.
#[test]
fn the_generator_reaches_both_outcomes() {
    assert!(parse("status:open,pending age:>2h", Resource::Conversations).is_ok());
    assert!(parse("status:open status:closed", Resource::Conversations).is_err());
}
