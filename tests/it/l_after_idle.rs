//! Issue 29's goal for the request budget, measured with the real binary: against a service
//! that allows 120 requests a minute per key, the browser left alone for 75 s (the visitor
//! sync running at its default pace, 50,000 visitors to walk), then `L` over 30 pages (3,000
//! conversations, 100 a page): how long `L` takes and how many of its requests are answered
//! 429, with each kind of headers the demo server can send.
//!
//! `cargo test --test it l_after_idle:: -- --ignored --nocapture`; `CONVO_BIN=path` measures another
//! build; `IDLE_SECS` (default 75), `BUDGET_HEADERS` (ietf,x,none).

use crate::common;

use std::time::{Duration, Instant};

use common::pty::{self, Pty};
use convo::demo::{DemoOptions, DemoServer, LimitHeaders, RequestBudget};

fn bin() -> String {
    std::env::var("CONVO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_convo").into())
}

#[test]
#[ignore = "minutes long: a measurement for docs/performance.md"]
fn l_over_30_pages_after_75_s_idle_against_120_a_minute() {
    let idle = std::env::var("IDLE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(75);
    let kinds = std::env::var("BUDGET_HEADERS").unwrap_or_else(|_| "ietf,x,none".into());
    println!("| headers | sync requests while idle | L | L's requests | answered 429 | load avg |");
    println!("|---|---|---|---|---|---|");
    for kind in kinds.split(',') {
        let headers = match kind {
            "x" => LimitHeaders::X,
            "none" => LimitHeaders::None,
            _ => LimitHeaders::Ietf,
        };
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let server = rt
            .block_on(DemoServer::start(DemoOptions {
                addr: ([127, 0, 0, 1], 0).into(),
                conversations: 3_000,
                visitors: 50_000,
                anchor: Some(jiff::Timestamp::now()),
                budget: Some(RequestBudget {
                    limit: 120,
                    window: Duration::from_secs(60),
                    headers,
                }),
                ..DemoOptions::default()
            }))
            .expect("demo server");
        let home = tempfile::tempdir().expect("temp dir");
        let config = home.path().join("convo.toml");
        std::fs::write(&config, "page_size = 100\n").expect("config");
        let mut cmd = portable_pty::CommandBuilder::new(bin());
        pty::clean_env(&mut cmd, home.path());
        cmd.env("CONVO_CONFIG", &config);
        cmd.env("CONVO_API_KEY", server.api_key());
        cmd.args(["--base-url", &server.base_url()]);
        let mut t = Pty::run(cmd, 160, 45);
        t.wait_until(Duration::from_secs(60), |s| s.contains(" loaded"));
        // The idle spell is the behaviour measured (a figure, #[ignore]d), not a wait.
        std::thread::sleep(Duration::from_secs(idle));
        let before = server.limit_counts();
        let start = Instant::now();
        t.send(b"L");
        t.wait_until(Duration::from_secs(300), |s| {
            s.contains("all 3,000 loaded") || s.contains("all 3000 loaded")
        });
        let took = start.elapsed();
        let after = server.limit_counts();
        t.quit();
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "| {kind} | {} ({} answered 429) | {:.2} s | {} | {} | {} |",
            before.visitors,
            before.visitors_refused,
            took.as_secs_f64(),
            after.conversations - before.conversations,
            after.conversations_refused - before.conversations_refused,
            load.split(' ').next().unwrap_or("?")
        );
        rt.block_on(server.shutdown());
    }
}
