//! A query's union of streams against its slowest stream alone (issue 22, section 5): four
//! streams of 20,000 conversations at 20 ms latency, walked as one union, against each stream
//! walked alone; the whole walk and its first row. Goals (docs/performance.md): the union
//! within 1.1x of its slowest stream alone, its first row within 1.2x of one stream's.
//! `cargo test` asserts what the union gives (every row once, in the served order, its
//! requests: tests/it/query_cli.rs), not how long it takes.
//!
//! Run: `nice cargo bench --bench union` (a release build). `cargo test --bench union` runs it
//! once on 2,000 rows at 1 ms (a smoke test).

use std::time::{Duration, Instant};

use convo::api::{
    ApiKey, Assignee, Client, ClientSettings, Conversation, ConversationFilter, KeySource, Limit,
    Status,
};
use convo::demo::{DemoOptions, DemoServer, Faults};
use convo::query::exec::Union;

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` does not: one small run.
    let full = std::env::args().any(|a| a == "--bench");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            seed: 7,
            conversations: if full { 20_000 } else { 2_000 },
            visitors: 500,
            latency: Duration::from_millis(if full { 20 } else { 1 }),
            faults: Faults::default(),
            anchor: None,
            ..DemoOptions::default()
        }))
        .unwrap();
    let key = ApiKey::new(&server.api_key(), KeySource::Env, "sk_").expect("the demo's key");
    let client = Client::new(ClientSettings::new(server.base_url(), key)).expect("client");
    let mut streams = Vec::new();
    for status in [Status::Open, Status::Pending] {
        for assignee in [Assignee::Unassigned, Assignee::Anyone] {
            streams.push(ConversationFilter {
                status: Some(status.clone()),
                assignee,
                ..ConversationFilter::default()
            });
        }
    }
    let limit = Limit::new(100).unwrap();
    let walk = |streams: Vec<ConversationFilter>| {
        let client = client.clone();
        rt.block_on(async move {
            let start = Instant::now();
            let mut u: Union<ConversationFilter, Conversation> =
                Union::new(client, streams, limit, true);
            let mut first = None;
            let mut n = 0u64;
            while u.next().await.is_some() {
                first.get_or_insert(start.elapsed());
                n += 1;
            }
            (start.elapsed(), first.unwrap_or_default(), n, u.requests())
        })
    };
    let mut slowest = Duration::ZERO;
    let mut first_alone = Duration::MAX;
    for s in &streams {
        let (t, first, n, req) = walk(vec![s.clone()]);
        println!("alone: {n} rows, {req} requests, {t:?} (first row {first:?})");
        slowest = slowest.max(t);
        first_alone = first_alone.min(first);
    }
    let (t, first, n, req) = walk(streams.clone());
    println!("union of 4: {n} rows, {req} requests, {t:?} (first row {first:?})");
    println!(
        "union / slowest stream alone: {:.2}; first row union / alone: {:.2}",
        t.as_secs_f64() / slowest.as_secs_f64(),
        first.as_secs_f64() / first_alone.as_secs_f64()
    );
    rt.block_on(server.shutdown());
}
