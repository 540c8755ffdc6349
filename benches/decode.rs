//! The hand-written page scanner and row writer (`api::model`: `Scan`, `WireRow::scan`,
//! `Conversation::write_json`) against serde_json with borrowed strings (issue 14, section 1:
//! retire the scanner if serde is within 5 % on the walk).
//!
//! One page of 100 conversations as a server sends it, read and written back as JSON lines, as
//! `convo list --format jsonl` does with each page:
//! - `scanner`: `Page::decode` (its first path, the scanner) and `write_json` per row;
//! - `serde`: `serde_json::from_str` into the same `Conversation` (strings read in place, no
//!   `String` per field) and `serde_json::to_writer` per row.
//!
//! Both give the same bytes (checked before measuring). Run: `nice cargo bench --bench decode`;
//! `cargo test --bench decode` runs each once (CI's smoke run).

use std::hint::black_box;

use convo::api::{Conversation, Page};
use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize;

const ROWS: u128 = 100;

/// A page body in the form the demo server (and most servers) send: rows then `has_more`,
/// `next_cursor`; about half the rows assigned.
fn body() -> String {
    let id = |n: u128, salt: u128| {
        uuid::Uuid::from_u128(n.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) ^ salt)
    };
    let statuses = ["open", "pending", "closed"];
    let rows: Vec<String> = (0..ROWS)
        .map(|n| {
            let assignee = if n % 2 == 0 {
                format!("\"{}\"", id(n % 7, 3))
            } else {
                "null".to_string()
            };
            let secs = 1_760_000_000 - n as i64 * 97;
            let t = |s: i64| jiff::Timestamp::from_second(s).unwrap().to_string();
            format!(
                "{{\"id\":\"{}\",\"siteId\":\"{}\",\"visitorId\":\"{}\",\"status\":\"{}\",\
                 \"assigneeId\":{assignee},\"createdAt\":\"{}\",\"updatedAt\":\"{}\"}}",
                id(n, 1),
                id(n % 3, 2),
                id(n, 4),
                statuses[n as usize % 3],
                t(secs - 3600),
                t(secs),
            )
        })
        .collect();
    format!(
        "{{\"data\":[{}],\"has_more\":true,\"next_cursor\":\"c2NhbjoxMDA\"}}",
        rows.join(",")
    )
}

#[derive(Deserialize)]
struct Envelope {
    data: Vec<Conversation>,
    has_more: bool,
    #[serde(default)]
    next_cursor: Option<String>,
}

fn scanner(body: &str, out: &mut Vec<u8>) -> usize {
    let page = Page::<Conversation>::decode(body.as_bytes()).expect("a page");
    for c in &page.items {
        c.write_json(out).expect("write");
        out.push(b'\n');
    }
    page.items.len() + usize::from(page.has_more) + page.next_cursor.map_or(0, |c| c.len())
}

fn serde(body: &str, out: &mut Vec<u8>) -> usize {
    let page: Envelope = serde_json::from_str(body).expect("a page");
    for c in &page.data {
        serde_json::to_writer(&mut *out, c).expect("write");
        out.push(b'\n');
    }
    page.data.len() + usize::from(page.has_more) + page.next_cursor.map_or(0, |c| c.len())
}

fn decode(c: &mut Criterion) {
    let body = body();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    assert_eq!(scanner(&body, &mut a), serde(&body, &mut b));
    assert_eq!(a, b, "the scanner and serde must write the same bytes");
    assert_eq!(a.iter().filter(|&&b| b == b'\n').count(), ROWS as usize);
    let mut g = c.benchmark_group("page_of_100_to_jsonl");
    let mut out = Vec::with_capacity(a.len());
    g.bench_function("scanner", |bn| {
        bn.iter(|| {
            out.clear();
            black_box(scanner(black_box(&body), &mut out))
        })
    });
    g.bench_function("serde", |bn| {
        bn.iter(|| {
            out.clear();
            black_box(serde(black_box(&body), &mut out))
        })
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
