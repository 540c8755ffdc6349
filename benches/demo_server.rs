//! The demo server's page time (issue 5, target 6): a page of 100 in under 1 ms median on
//! 5,000 rows, and the same order of time on 1,000,000 generated rows (keyset lookups: a
//! binary search to the cursor, then limit + 1 rows, never a scan from the start).
//!
//! Measured through the real router over HTTP on loopback with one keep-alive client, so each
//! figure is the whole round trip (client, hyper, handler, JSON) and an upper bound of the
//! handler's own time. Also times `dataset(…, 1_000_000, …)`.
//!
//! Run: `nice cargo bench --bench demo_server`.

use std::hint::black_box;
use std::time::Duration;

use convo::demo::{DemoOptions, DemoServer, dataset};
use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize;
use tokio::runtime::Runtime;

const LIMIT: usize = 100;

#[derive(Deserialize)]
struct Envelope {
    next_cursor: Option<String>,
    data: Vec<serde::de::IgnoredAny>,
}

struct Fixture {
    server: DemoServer,
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Fixture {
    fn start(rt: &Runtime, conversations: usize) -> Fixture {
        let server = rt
            .block_on(DemoServer::start(DemoOptions {
                addr: ([127, 0, 0, 1], 0).into(),
                conversations,
                visitors: (conversations / 4).clamp(1, 150_000),
                ..DemoOptions::default()
            }))
            .expect("demo server");
        let http = convo::api::client::http_builder().build().expect("client");
        let (base, key) = (server.base_url(), server.api_key());
        Fixture {
            server,
            http,
            base,
            key,
        }
    }

    /// One page: the query (without `limit`), and the cursor after it.
    async fn get(&self, query: &str, cursor: Option<&str>) -> (usize, Option<String>) {
        let mut url = format!("{}/v1/conversations?limit={LIMIT}", self.base);
        if !query.is_empty() {
            url.push('&');
            url.push_str(query);
        }
        if let Some(c) = cursor {
            url.push_str("&cursor=");
            url.push_str(c);
        }
        let resp = self
            .http
            .get(&url)
            .bearer_auth(&self.key)
            .send()
            .await
            .expect("send");
        assert!(resp.status().is_success(), "{url}: {}", resp.status());
        let body = resp.bytes().await.expect("body");
        let env: Envelope = serde_json::from_slice(&body).expect("page");
        (env.data.len(), env.next_cursor)
    }

    /// The cursor after `pages` pages of `query` (walked once, before measuring).
    fn cursor_after(&self, rt: &Runtime, query: &str, pages: usize) -> String {
        rt.block_on(async {
            let mut cursor: Option<String> = None;
            for _ in 0..pages {
                let (_, next) = self.get(query, cursor.as_deref()).await;
                cursor = Some(next.expect("the list is longer than that"));
            }
            cursor.expect("at least one page")
        })
    }
}

fn pages(c: &mut Criterion) {
    let rt = Runtime::new().expect("runtime");
    for (label, rows) in [("5k", 5_000usize), ("1M", 1_000_000)] {
        let f = Fixture::start(&rt, rows);
        // The middle of the list, and the middle of the pending rows (about 20% of all).
        let middle = f.cursor_after(&rt, "", rows / LIMIT / 2);
        let pending_pages = rows / 5 / LIMIT / 2;
        let pending_middle = f.cursor_after(&rt, "status=pending", pending_pages.max(1));
        let mut g = c.benchmark_group(format!("demo_server/{label}"));
        g.measurement_time(Duration::from_secs(4));
        g.bench_function("first_page", |b| {
            b.iter(|| rt.block_on(f.get("", None)).0);
        });
        g.bench_function("middle_page", |b| {
            b.iter(|| rt.block_on(f.get("", Some(&middle))).0);
        });
        g.bench_function("status_pending_middle_page", |b| {
            b.iter(|| {
                rt.block_on(f.get("status=pending", Some(&pending_middle)))
                    .0
            });
        });
        g.finish();
        rt.block_on(f.server.shutdown());
    }
}

fn generation(c: &mut Criterion) {
    let mut g = c.benchmark_group("demo_server/dataset");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.bench_function("1M_conversations_150k_visitors", |b| {
        b.iter(|| {
            black_box(dataset(42, 1_000_000, 150_000))
                .conversations
                .len()
        });
    });
    g.finish();
}

criterion_group!(benches, pages, generation);
criterion_main!(benches);
