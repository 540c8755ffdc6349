//! Fuzz-style tests of the response decoder (issue 4), on the stable toolchain with proptest:
//! arbitrary bytes, arbitrary JSON values, near-valid pages and mutated real pages go into
//! `Page::decode` and `ErrorBody::parse`. They may fail, never panic; and when the envelope is
//! usable, no row is silently lost.

use convo::api::client::ErrorBody;
use convo::api::wire::envelope::repair_lone_surrogates;
use convo::api::{Conversation, Page, Visitor};
use convo::text;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::common::cases as config;

/// Decodes `body` every way a response is decoded. Panics propagate (that is the test).
fn decode_all(body: &[u8]) {
    let c = Page::<Conversation>::decode(body);
    let v = Page::<Visitor>::decode(body);
    // Whether the envelope is usable does not depend on the row type.
    assert_eq!(
        c.is_ok(),
        v.is_ok(),
        "envelope verdicts differ for {body:?}"
    );
    if let (Ok(c), Ok(v)) = (&c, &v) {
        assert_eq!(
            c.items.len() + c.bad_rows.len(),
            v.items.len() + v.bad_rows.len()
        );
    }
    let e = ErrorBody::parse(body);
    let d = e.detail();
    assert!(text::is_clean(&d), "unsanitised error detail {d:?}");
    // code ≤ 60, message ≤ 200, param ≤ 60 cells plus the punctuation.
    assert!(
        d.chars().count() <= 400,
        "error detail too long: {}",
        d.len()
    );
    let _ = repair_lone_surrogates(body);
}

/// Bytes that look a little like JSON, so the decoder gets past the first byte often.
fn jsonish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let tokens = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\\",
        "\\u",
        "\\ud800",
        "\\udc00",
        "\\ud83d\\ude00",
        "\\uD800\\u",
        "\"data\"",
        "\"has_more\"",
        "\"next_cursor\"",
        "true",
        "false",
        "null",
        "\"id\"",
        "\"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e\"",
        "0",
        "-1",
        "1e999",
        "\"error\"",
        "\"message\"",
        "\"code\"",
        "\"param\"",
        " ",
        "\u{1b}",
        "\u{9b}",
        "\u{202e}",
        "\u{fffd}",
    ]);
    prop::collection::vec(
        prop_oneof![
            3 => tokens.prop_map(|t| t.as_bytes().to_vec()),
            1 => prop::collection::vec(any::<u8>(), 0..4),
        ],
        0..60,
    )
    .prop_map(|v| v.concat())
}

/// Any JSON value, a few levels deep.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "\\PC{0,12}".prop_map(Value::String),
        Just(Value::String("6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e".into())),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(
                    "data has_more next_cursor id name email status error message attributes x"
                        .split(' ')
                        .collect::<Vec<_>>(),
                ),
                inner,
                0..6,
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

/// A field value as a careless or hostile server may send it.
fn field(valid: Value) -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => Just(valid),
        1 => Just(Value::Null),
        1 => json_value(),
        1 => "\\PC{0,8}".prop_map(Value::String),
    ]
}

fn uuid_text() -> impl Strategy<Value = String> {
    any::<u128>().prop_map(|n| uuid::Uuid::from_u128(n).to_string())
}

/// Strings with the hostile content of issue 4, lone surrogates included (as JSON escapes,
/// which is the only way they can travel).
fn hostile_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "\u{1b}[2J",
            "\u{1b}]0;title\u{7}",
            "\u{1b}[31m",
            "\u{9b}",
            "\r",
            "\u{8}",
            "\u{202e}",
            "\u{200d}",
            "王",
            "😀",
            "a",
            "\"",
            "\\",
        ]),
        0..10,
    )
    .prop_map(|v| v.concat())
}

/// A conversation row that is valid, or nearly.
fn conversation_row() -> impl Strategy<Value = Value> {
    (
        uuid_text(),
        uuid_text(),
        uuid_text(),
        prop::sample::select(vec!["open", "pending", "closed", "snoozed", ""]),
        prop::option::of(uuid_text()),
        any::<bool>(),
    )
        .prop_flat_map(|(id, site, visitor, status, assignee, extra)| {
            (
                field(json!(id)),
                field(json!(site)),
                field(json!(visitor)),
                field(json!(status)),
                field(json!(assignee)),
                field(json!("2026-01-02T03:04:05Z")),
                field(json!("yesterday")),
                Just(extra),
            )
        })
        .prop_map(
            |(id, site, visitor, status, assignee, created, updated, extra)| {
                let mut m = Map::new();
                m.insert("id".into(), id);
                m.insert("siteId".into(), site);
                m.insert("visitorId".into(), visitor);
                m.insert("status".into(), status);
                m.insert("assigneeId".into(), assignee);
                m.insert("createdAt".into(), created);
                m.insert("updatedAt".into(), updated);
                if extra {
                    m.insert("somethingNew".into(), json!({"nested": [1, "two", null]}));
                }
                Value::Object(m)
            },
        )
}

/// A visitor row that is valid, or nearly; text fields hostile, null or missing.
fn visitor_row() -> impl Strategy<Value = Value> {
    (
        uuid_text(),
        prop::option::of(prop::option::of(hostile_text())),
        prop::option::of(prop::option::of(hostile_text())),
        prop::option::of(prop::option::of(hostile_text())),
        prop::option::of(json_value()),
        any::<bool>(),
    )
        .prop_flat_map(|(id, name, email, ext, attrs, broken_id)| {
            let id = if broken_id {
                json!("not-a-uuid")
            } else {
                json!(id)
            };
            (Just(id), Just(name), Just(email), Just(ext), Just(attrs))
        })
        .prop_map(|(id, name, email, ext, attrs)| {
            let mut m = Map::new();
            m.insert("id".into(), id);
            for (k, v) in [("name", name), ("email", email), ("externalId", ext)] {
                // None: missing; Some(None): null; Some(Some(s)): the text.
                if let Some(v) = v {
                    m.insert(k.into(), v.map_or(Value::Null, Value::String));
                }
            }
            if let Some(a) = attrs {
                m.insert("attributes".into(), a);
            }
            m.insert("createdAt".into(), json!("2026-01-02T03:04:05.123Z"));
            Value::Object(m)
        })
}

fn envelope(rows: Vec<Value>, has_more: bool, cursor: Option<String>) -> Vec<u8> {
    serde_json::to_vec(&json!({"data": rows, "has_more": has_more, "next_cursor": cursor})).unwrap()
}

/// Replaces every `\u00XX`-free occurrence of the marker `@S@` with a lone surrogate escape.
fn with_lone_surrogates(body: &[u8], escape: &str) -> Vec<u8> {
    String::from_utf8(body.to_vec())
        .unwrap()
        .replace("@S@", escape)
        .into_bytes()
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn arbitrary_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..300)) {
        decode_all(&body);
    }

    #[test]
    fn jsonish_bytes_never_panic(body in jsonish_bytes()) {
        decode_all(&body);
    }

    #[test]
    fn arbitrary_json_values_never_panic(v in json_value()) {
        let body = serde_json::to_vec(&v).unwrap();
        decode_all(&body);
        // Anything that is not an object with an array `data` and a boolean `has_more` is
        // refused as a whole: never an empty page that would end a walk silently.
        let usable = v.get("data").is_some_and(Value::is_array)
            && v.get("has_more").is_some_and(Value::is_boolean)
            && v.get("next_cursor").is_none_or(|c| c.is_string() || c.is_null());
        prop_assert_eq!(Page::<Visitor>::decode(&body).is_ok(), usable, "{}", v);
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// A usable envelope never loses a row: each row is either an item or a reported bad row,
    /// the bad ones are reported with their index, and the good ones keep server order.
    #[test]
    fn conversation_pages_lose_no_row(
        rows in prop::collection::vec(conversation_row(), 0..12),
        has_more in any::<bool>(),
        cursor in prop::option::of("\\PC{0,10}"),
    ) {
        let body = envelope(rows.clone(), has_more, cursor.clone());
        decode_all(&body);
        let p = Page::<Conversation>::decode(&body).expect("the envelope is valid");
        prop_assert_eq!(p.items.len() + p.bad_rows.len(), rows.len());
        prop_assert_eq!(p.has_more, has_more);
        prop_assert_eq!(p.next_cursor, cursor);
        let bad: Vec<usize> = p.bad_rows.iter().map(|b| b.index).collect();
        prop_assert!(bad.windows(2).all(|w| w[0] < w[1]) && bad.iter().all(|&i| i < rows.len()));
        let good: Vec<&Value> = rows
            .iter()
            .enumerate()
            .filter(|(i, _)| !bad.contains(i))
            .map(|(_, r)| r)
            .collect();
        for (item, raw) in p.items.iter().zip(good) {
            prop_assert_eq!(item.id.to_string(), raw["id"].as_str().unwrap());
            // Unknown statuses are kept verbatim.
            prop_assert_eq!(item.status.as_str(), raw["status"].as_str().unwrap());
        }
    }

    /// Visitors with hostile, null or missing text fields and any attributes are all kept;
    /// only a row whose id is not a UUID is reported, and it names that id.
    #[test]
    fn visitor_pages_keep_every_row_with_a_readable_id(
        rows in prop::collection::vec(visitor_row(), 0..10),
    ) {
        let body = envelope(rows.clone(), false, None);
        let p = Page::<Visitor>::decode(&body).expect("the envelope is valid");
        let broken: Vec<usize> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r["id"] == json!("not-a-uuid"))
            .map(|(i, _)| i)
            .collect();
        prop_assert_eq!(p.bad_rows.iter().map(|b| b.index).collect::<Vec<_>>(), broken);
        prop_assert!(p.bad_rows.iter().all(|b| b.id.as_deref() == Some("not-a-uuid")));
        prop_assert_eq!(p.items.len(), rows.len() - p.bad_rows.len());
        for item in &p.items {
            let raw = rows.iter().find(|r| r["id"] == json!(item.id.to_string())).unwrap();
            prop_assert_eq!(item.name.as_deref(), raw.get("name").and_then(Value::as_str));
            // Compared after the same parse the decoder does (floats may not round-trip).
            let want: Value = raw.get("attributes").map_or(Value::Null, |a| {
                serde_json::from_str(&serde_json::to_string(a).unwrap()).unwrap()
            });
            prop_assert_eq!(&item.attributes, &want);
        }
    }

    /// Lone surrogates written as JSON escapes cost neither the row nor the page.
    #[test]
    fn lone_surrogate_escapes_keep_the_row(
        escape in prop::sample::select(vec![
            "\\ud800", "\\uDBFF", "\\udc00", "\\uDFFF", "\\ud800\\ud800", "\\udc00\\ud800",
            "\\ud83d", "\\ude00\\ud83d",
        ]),
        before in "[a-z王]{0,3}",
        after in "[a-z😀]{0,3}",
        n in 1usize..5,
    ) {
        let rows: Vec<Value> = (0..n)
            .map(|i| json!({
                "id": uuid::Uuid::from_u128(i as u128 + 1).to_string(),
                "name": format!("{before}@S@{after}"),
                "email": "@S@",
            }))
            .collect();
        let body = with_lone_surrogates(&envelope(rows, false, None), escape);
        let p = Page::<Visitor>::decode(&body).expect("the page survives");
        prop_assert!(p.bad_rows.is_empty(), "{:?}", p.bad_rows);
        prop_assert_eq!(p.items.len(), n);
        for v in &p.items {
            let name = v.name.as_deref().unwrap();
            prop_assert!(name.starts_with(&before) && name.ends_with(&after), "{:?}", name);
            prop_assert!(name.contains(char::REPLACEMENT_CHARACTER), "{:?}", name);
        }
    }

    /// A real page with bytes flipped, inserted or cut: never a panic.
    #[test]
    fn mutated_real_pages_never_panic(
        rows in prop::collection::vec(conversation_row(), 1..4),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let mut body = envelope(rows, true, Some("c1".into()));
        for (at, byte, op) in edits {
            if body.is_empty() {
                break;
            }
            let i = at.index(body.len());
            match op {
                0 => body[i] = byte,
                1 => body.insert(i, byte),
                _ => body.truncate(i),
            }
        }
        decode_all(&body);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for depth in [200usize, 10_000, 100_000] {
        let attrs = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let body = format!(
            r#"{{"data":[{{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e","attributes":{attrs}}}],"has_more":false,"next_cursor":null}}"#
        );
        decode_all(body.as_bytes());
        // The row is reported as unreadable, not dropped in silence nor taken.
        let p = Page::<Visitor>::decode(body.as_bytes()).expect("the envelope is fine");
        assert!(
            p.items.is_empty(),
            "depth {depth}: a row that cannot be read"
        );
        assert_eq!(p.bad_rows.len(), 1, "depth {depth}: reported");
        let open = "[".repeat(depth);
        decode_all(open.as_bytes());
        assert!(
            Page::<Visitor>::decode(open.as_bytes()).is_err(),
            "depth {depth}: not a page"
        );
        decode_all(format!(r#"{{"error":{open}"#).as_bytes());
    }
}

#[test]
fn huge_numbers_and_strings_are_handled() {
    let big = "9".repeat(5000);
    let name = "x".repeat(2 * 1024 * 1024);
    let body = format!(
        r#"{{"data":[{{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e","name":"{name}","attributes":{{"n":{big},"f":1e400}}}}],"has_more":false,"next_cursor":null}}"#
    );
    let p = Page::<Visitor>::decode(body.as_bytes()).unwrap();
    // 1e400 is out of range for serde_json: that row is reported, not silently lost.
    assert_eq!(p.items.len() + p.bad_rows.len(), 1);
    decode_all(body.as_bytes());
}
