//! Parsing and planning a ten-term query (issue 22, section 5: < 100 µs).
//!
//! The query a supervisor would type: names resolved through `[aliases]`, `me` through
//! `agent_id`, a product of statuses, assignees and sites, times, a negation and free text.
//! Run: `nice cargo bench --bench query`; `cargo test --bench query` runs it once (CI's smoke
//! run).

use std::hint::black_box;

use convo::api::Resource;
use convo::config::Aliases;
use convo::query::parse;
use convo::query::plan::{self, Emails};
use convo::query::resolve::{Names, resolve};
use convo::sla::Sla;
use criterion::{Criterion, criterion_group, criterion_main};
use uuid::Uuid;

/// Ten terms.
pub const QUERY: &str = "status:open,pending assignee:none,me,\"Ana (EU desk)\" \
    site:\"Web shop\",Careers age:>10m idle:<2h created:>=2026-11-01 -visitor.plan:free \
    is:stale,waiting refund \"late delivery\"";

fn aliases() -> Aliases {
    let mut a = Aliases::default();
    let names = [
        "Web shop",
        "Help center",
        "Careers",
        "Ana (EU desk)",
        "Ben (US desk)",
        "Dara",
    ];
    for (i, n) in names.iter().enumerate() {
        a.insert(Uuid::from_u128(0x100 + i as u128), n.to_string());
    }
    a
}

fn parse_and_plan(c: &mut Criterion) {
    let a = aliases();
    let sla = Sla::default();
    let names = Names {
        agent_id: Some(Uuid::from_u128(7)),
        aliases: &a,
        sla: &sla,
    };
    let emails = Emails::new();
    let q = parse(QUERY, Resource::Conversations).expect("parses");
    assert_eq!(q.terms.len(), 10);
    c.bench_function("parse_resolve_plan_ten_terms", |b| {
        b.iter(|| {
            let q = parse(black_box(QUERY), Resource::Conversations).expect("parses");
            let q = resolve(&q, &names).expect("resolves");
            black_box(plan::conversations(&q, &emails, 16))
        })
    });
}

criterion_group!(benches, parse_and_plan);
criterion_main!(benches);
