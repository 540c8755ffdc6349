//! The refresh merge (issue 11, section 1): `Walk::finish_refresh` of a re-read of the top of the
//! list into a walk with 10k, 100k and 1M rows loaded. Each merge brings one new row, updates
//! one and drops one (a conversation picked up): the table keeps its length, as a live queue
//! does. Target: the cost depends on the re-read (one page, or the default budget of ten),
//! not on the rows loaded — microseconds at 1M, no scan per row.
//!
//! Run: `nice cargo bench --bench refresh`. `cargo test --bench refresh` runs each once on
//! 10k rows (CI's smoke run).

use std::hint::black_box;
use std::time::{Duration, Instant};

use convo::api::{Conversation, Page};
use convo::tui::testing::conversation;
use convo::walk::Walk;
use criterion::{Criterion, criterion_group, criterion_main};

const PAGE: usize = 100;

/// A walk with `rows` conversations loaded in pages of 100, more to come.
fn loaded(rows: usize) -> Walk<Conversation> {
    let mut p = Walk::new(PAGE, 1);
    let mut n = 0;
    while n < rows {
        let _ = p.request();
        let items: Vec<Conversation> = (n..(n + PAGE).min(rows)).map(conversation).collect();
        n += items.len();
        p.take(Page {
            items,
            has_more: true,
            next_cursor: Some(n.to_string()),
            bad_rows: Vec::new(),
        });
    }
    p
}

/// What the service answers now for the first `pages` pages: the loaded rows, one of them
/// gone (picked up), one new on top, one with a new status.
fn reread(p: &Walk<Conversation>, pages: usize, round: usize) -> Vec<Conversation> {
    let window = pages * PAGE;
    let mut rows: Vec<Conversation> = Vec::with_capacity(window);
    rows.push(conversation(10_000_000 + round));
    rows.extend(p.rows()[..window].iter().cloned());
    rows.remove(1 + (round * 7) % (window - 1)); // one picked up
    let k = 1 + (round * 13) % (window - 1);
    rows[k].status = match rows[k].status {
        convo::api::Status::Open => convo::api::Status::Pending,
        _ => convo::api::Status::Open,
    };
    rows
}

fn merge(c: &mut Criterion) {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: &[(&str, usize)] = if full {
        &[("10k", 10_000), ("100k", 100_000), ("1M", 1_000_000)]
    } else {
        &[("10k", 10_000)]
    };
    let mut g = c.benchmark_group("refresh_merge");
    // Each merge's new row has an id never used before.
    let mut round = 0;
    g.measurement_time(Duration::from_secs(3));
    for &(label, rows) in sizes {
        let mut p = loaded(rows);
        for pages in [1usize, 10] {
            g.bench_function(format!("{label}_loaded/{pages}_pages"), |b| {
                b.iter_custom(|iters| {
                    let mut spent = Duration::ZERO;
                    for _ in 0..iters {
                        round += 1;
                        let r = reread(&p, pages, round);
                        p.refresh_read_elsewhere(r, false, pages * PAGE);
                        let t = Instant::now();
                        let (m, _) = p.finish_refresh().expect("a refresh under way");
                        spent += t.elapsed();
                        assert_eq!((m.new_ids.len(), m.left_ids.len()), (1, 1));
                        black_box(m);
                    }
                    spent
                })
            });
            assert_eq!(p.rows().len(), rows, "a queue keeps its length");
        }
    }
    g.finish();
}

criterion_group!(benches, merge);
criterion_main!(benches);
