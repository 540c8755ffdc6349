//! The real network (issue 23, section 4): `convo list conversations --all` against the demo
//! server behind simulated links (loopback; 20 ms / 4 Mbit/s; 40 ms / 10 Mbit/s;
//! 80 ms / 100 Mbit/s; 150 ms / 2 Mbit/s), compressing as real services do, beside its rivals
//! on the same link: a Python `requests` walk, a standard-library Python walk, and the naive
//! Rust loop (reqwest + `serde_json::Value`).
//!
//! The floor of a cursor walk is pages x the time of one page on a kept connection: each page
//! needs the cursor of the one before, so no walker can overlap them. One page's time is the
//! median of `curl --compressed` fetching the first page's URL five times on one connection
//! (the first, which pays the handshake, left out), as its `time_total` says; without curl,
//! the same by this process's own reqwest client.
//!
//! For each walker: wall time, bytes received (counted by the link), peak RSS (getrusage of
//! its process tree). `cargo bench --bench links` measures (release build, some minutes: the
//! 150 ms link alone is 200 pages x ~180 ms a walk). `cargo test --benches` runs it on a few
//! hundred rows over two small links in the debug build, as a smoke test.

#[path = "common/measure.rs"]
mod measure;

use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use convo::demo::{DemoOptions, DemoServer, Link};
use measure::{
    NAIVE, PYTHON_STDLIB, ROLE, Run, have, measure_main, measured, median, ms, naive_main,
};

struct Sizes {
    rows: usize,
    limit: usize,
    runs: usize,
    links: &'static [(&'static str, u64, Option<u64>)],
}

const FULL: Sizes = Sizes {
    rows: 20_000,
    limit: 100,
    runs: 3,
    links: &[
        ("loopback", 0, None),
        ("20 ms / 4 Mbit/s", 20, Some(4_000)),
        ("40 ms / 10 Mbit/s", 40, Some(10_000)),
        ("80 ms / 100 Mbit/s", 80, Some(100_000)),
        ("150 ms / 2 Mbit/s", 150, Some(2_000)),
    ],
};

const SMOKE: Sizes = Sizes {
    rows: 300,
    limit: 100,
    runs: 1,
    links: &[("loopback", 0, None), ("5 ms / 20 Mbit/s", 5, Some(20_000))],
};

/// The fifteen-line script a user would write: `requests` asks for gzip by itself.
const PYTHON_REQUESTS: &str = r#"
import json, os, sys, requests
s = requests.Session()
s.headers["Authorization"] = "Bearer " + os.environ["KEY"]
params = {"limit": os.environ["LIMIT"]}
while True:
    r = s.get(os.environ["BASE"] + "/v1/conversations", params=params)
    r.raise_for_status()
    page = r.json()
    for row in page["data"]:
        sys.stdout.write(json.dumps(row) + "\n")
    if not page.get("has_more") or not page.get("next_cursor"):
        break
    params["cursor"] = page["next_cursor"]
"#;

/// One page's time on a kept connection: curl's `time_total` for the 2nd..5th fetch of one URL
/// in one invocation (compressed), median; `None` without curl.
fn curl_page_time(server: &DemoServer, limit: usize) -> Option<Duration> {
    if !have("curl") {
        return None;
    }
    let url = format!("{}/v1/conversations?limit={limit}", server.base_url());
    let auth = format!("Authorization: Bearer {}", server.api_key());
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "--compressed", "-H", &auth]);
    for _ in 0..5 {
        cmd.args(["-o", "/dev/null", "-w", "%{time_total}\\n", &url]);
    }
    let out = cmd.stderr(Stdio::null()).output().ok()?;
    let times: Vec<Duration> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().parse::<f64>().ok())
        .map(Duration::from_secs_f64)
        .collect();
    (!times.is_empty()).then(|| median(&times))
}

/// The same by an in-process reqwest client (compressed), when curl is missing.
fn reqwest_page_time(rt: &tokio::runtime::Runtime, server: &DemoServer, limit: usize) -> Duration {
    let http = convo::api::client::http_builder().build().expect("client");
    let url = format!("{}/v1/conversations?limit={limit}", server.base_url());
    let mut times = Vec::new();
    for i in 0..5 {
        let t = std::time::Instant::now();
        rt.block_on(async {
            http.get(&url)
                .bearer_auth(server.api_key())
                .send()
                .await
                .expect("send")
                .bytes()
                .await
                .expect("body")
        });
        if i > 0 {
            times.push(t.elapsed());
        }
    }
    median(&times)
}

fn main() -> ExitCode {
    if std::env::var(ROLE).as_deref() == Ok("measure") {
        return measure_main();
    }
    if std::env::args().nth(1).as_deref() == Some(NAIVE) {
        return naive_main();
    }
    let full = std::env::args().any(|a| a == "--bench");
    let mut s = if full { FULL } else { SMOKE };
    // CONVO_BENCH_RUNS=1: one run of each walker per link (the 150 ms link takes minutes a run).
    if let Some(n) = std::env::var("CONVO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        s.runs = n;
    }
    let pages = s.rows.div_ceil(s.limit);
    let limit = s.limit.to_string();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let bin = std::env::var("CONVO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_convo").into());
    let me = std::env::current_exe().expect("own path");
    let me = me.to_str().expect("path");
    let requests = Command::new("python3")
        .args(["-c", "import requests"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    println!(
        "links: {} conversations, page size {}, {} pages; medians of {} run(s); bytes as received",
        s.rows, s.limit, pages, s.runs
    );
    for &(name, rtt, kbps) in s.links {
        let link = Link {
            rtt: Duration::from_millis(rtt),
            kbps,
        };
        let server = rt
            .block_on(DemoServer::start(DemoOptions {
                addr: ([127, 0, 0, 1], 0).into(),
                conversations: s.rows,
                visitors: 100,
                link: Some(link),
                ..DemoOptions::default()
            }))
            .expect("demo server");
        let (base, key) = (server.base_url(), server.api_key());
        let page = curl_page_time(&server, s.limit)
            .unwrap_or_else(|| reqwest_page_time(&rt, &server, s.limit));
        let floor = page * pages as u32;
        let env = [
            ("BASE", base.as_str()),
            ("KEY", key.as_str()),
            ("LIMIT", limit.as_str()),
            ("CONVO_API_KEY", key.as_str()),
            ("CONVO_CONFIG", "/nonexistent/convo-bench.toml"),
        ];
        let convo_argv = [
            bin.as_str(),
            "--base-url",
            base.as_str(),
            "list",
            "conversations",
            "--all",
            "--limit",
            limit.as_str(),
            "--format",
            "jsonl",
        ];
        let mut walkers: Vec<(&str, Vec<&str>)> = vec![
            ("convo list --all", convo_argv.to_vec()),
            ("naive Rust (reqwest + Value)", vec![me, NAIVE]),
        ];
        if requests {
            walkers.push(("Python requests", vec!["python3", "-c", PYTHON_REQUESTS]));
        }
        if have("python3") {
            walkers.push((
                "Python standard library",
                vec!["python3", "-c", PYTHON_STDLIB],
            ));
        }
        println!("\n### {name}");
        println!(
            "floor: {pages} pages x {:.1} ms a page on a kept connection (curl --compressed) = {:.0} ms",
            ms(page),
            ms(floor)
        );
        println!("| walker | time | vs floor | received | peak RSS |");
        println!("|---|---|---|---|---|");
        let mut results: Vec<(&str, Run, u64)> = Vec::new();
        for (label, argv) in &walkers {
            let mut runs = Vec::new();
            let mut bytes = Vec::new();
            for _ in 0..s.runs {
                let before = server.link_bytes().map_or(0, |b| b.1);
                runs.push(measured(argv, &env, s.rows));
                bytes.push(server.link_bytes().map_or(0, |b| b.1) - before);
            }
            let m = Run {
                wall: median(&runs.iter().map(|r| r.wall).collect::<Vec<_>>()),
                cpu: median(&runs.iter().map(|r| r.cpu).collect::<Vec<_>>()),
                rss_kib: median(&runs.iter().map(|r| r.rss_kib).collect::<Vec<_>>()),
            };
            let b = median(&bytes);
            println!(
                "| {label} | {:.0} ms | {:.3}x | {:.0} KiB | {:.1} MiB |",
                ms(m.wall),
                m.wall.as_secs_f64() / floor.as_secs_f64(),
                b as f64 / 1024.0,
                m.rss_kib as f64 / 1024.0
            );
            results.push((label, m, b));
        }
        if !requests {
            println!("(Python requests skipped: `python3 -m pip install requests`)");
        }
        let convo = results[0].1.wall;
        let leads = results[1..].iter().all(|(_, r, _)| r.wall > convo);
        println!(
            "convo leads every rival here: {}",
            if leads { "yes" } else { "NO" }
        );
        rt.block_on(server.shutdown());
    }
    ExitCode::SUCCESS
}
