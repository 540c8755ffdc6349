//! Walk speed (issue 14, sections 1 and 2): the whole list of conversations, page size 100,
//! over an in-process demo server, every walker in one run.
//!
//! 1. The server alone: a keep-alive reqwest loop in this process that only follows
//!    `next_cursor` (rows skipped, not decoded).
//! 2. `convo list conversations --all --format jsonl` (the binary of this profile).
//!
//! 1 and 2 alternate after a warm-up, 11 pairs, on the plain server and on one that waits
//! 20 ms before each answer (a remote service). Then the rivals, each its own process writing
//! JSONL to a pipe: a naive Rust loop (reqwest + `serde_json::Value`, run by this binary), a
//! Python loop on the standard library with keep-alive, and curl + jq in a shell loop; a rival
//! whose tool is missing is skipped. Each child runs under a small measuring process of this
//! binary that reads its output, counts the rows and takes its peak RSS and CPU time from
//! `getrusage(RUSAGE_CHILDREN)` (the whole process tree: for curl + jq, the largest process).
//!
//! `cargo bench --bench walk` measures (release build). `cargo test --benches` runs the same
//! code on a few hundred rows in the debug build, as a smoke test, so the bench cannot rot.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use convo::demo::{DemoOptions, DemoServer};
use serde::Deserialize;

#[path = "common/measure.rs"]
mod measure;
use measure::{
    NAIVE, PYTHON_STDLIB, ROLE, Run, have, measure_main, measured, median, ms, naive_main,
};

struct Sizes {
    rows: usize,
    limit: usize,
    /// Alternating pairs of the server alone and convo.
    pairs: usize,
    latency: Duration,
    /// Runs of each rival (curl + jq: one, it takes seconds a run).
    rival_runs: usize,
}

const FULL: Sizes = Sizes {
    rows: 20_000,
    limit: 100,
    pairs: 11,
    latency: Duration::from_millis(20),
    rival_runs: 5,
};

const SMOKE: Sizes = Sizes {
    rows: 300,
    limit: 100,
    pairs: 1,
    latency: Duration::from_millis(2),
    rival_runs: 1,
};

#[derive(Deserialize)]
struct Envelope {
    has_more: bool,
    next_cursor: Option<String>,
    data: Vec<serde::de::IgnoredAny>,
}

/// The server alone: follows the cursors, reads no row.
async fn raw_walk(http: &reqwest::Client, base: &str, key: &str, limit: usize) -> usize {
    let mut rows = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut url = reqwest::Url::parse(&format!("{base}/v1/conversations")).expect("url");
        url.query_pairs_mut()
            .append_pair("limit", &limit.to_string());
        if let Some(c) = &cursor {
            url.query_pairs_mut().append_pair("cursor", c);
        }
        let body = http
            .get(url)
            .bearer_auth(key)
            .send()
            .await
            .expect("send")
            .bytes()
            .await
            .expect("body");
        let env: Envelope = serde_json::from_slice(&body).expect("page");
        rows += env.data.len();
        match (env.has_more, env.next_cursor) {
            (true, Some(c)) => cursor = Some(c),
            _ => return rows,
        }
    }
}

fn list(v: &[Duration]) -> String {
    v.iter()
        .map(|d| format!("{:.1}", ms(*d)))
        .collect::<Vec<_>>()
        .join(" ")
}

const CURL_JQ: &str = r#"c=""
while :; do
  q="limit=$LIMIT"; [ -n "$c" ] && q="$q&cursor=$c"
  body=$(curl -sf -H "Authorization: Bearer $KEY" "$BASE/v1/conversations?$q") || exit 1
  printf '%s' "$body" | jq -c '.data[]'
  c=$(printf '%s' "$body" | jq -r 'if .has_more then .next_cursor else "" end')
  [ -z "$c" ] && break
done"#;

fn main() -> ExitCode {
    if std::env::var(ROLE).as_deref() == Ok("measure") {
        return measure_main();
    }
    if std::env::args().nth(1).as_deref() == Some(NAIVE) {
        return naive_main();
    }
    // `cargo bench` passes --bench; `cargo test --benches` does not: a smoke run.
    let full = std::env::args().any(|a| a == "--bench");
    let s = if full { FULL } else { SMOKE };
    let pages = s.rows.div_ceil(s.limit);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let start = |latency| {
        rt.block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            conversations: s.rows,
            visitors: 100,
            latency,
            ..DemoOptions::default()
        }))
        .expect("demo server")
    };
    let (fast, slow) = (start(Duration::ZERO), start(s.latency));
    let http = convo::api::client::http_builder().build().expect("client");
    let bin = std::env::var("CONVO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_convo").into());
    let limit = s.limit.to_string();
    let convo = |server: &DemoServer| {
        let base = server.base_url();
        let key = server.api_key();
        let argv = [
            bin.as_str(),
            "--base-url",
            &base,
            "list",
            "conversations",
            "--all",
            "--limit",
            &limit,
            "--format",
            "jsonl",
        ];
        measured(
            &argv,
            &[
                ("CONVO_API_KEY", &key),
                ("CONVO_CONFIG", "/nonexistent/convo-bench.toml"),
            ],
            s.rows,
        )
    };
    let raw = |server: &DemoServer| {
        let t = Instant::now();
        let n = rt.block_on(raw_walk(
            &http,
            &server.base_url(),
            &server.api_key(),
            s.limit,
        ));
        assert_eq!(n, s.rows);
        t.elapsed()
    };
    let pairs = |server: &DemoServer| {
        // Warm both up, then alternate them, so a burst of other load on the machine falls on
        // both sides rather than on one.
        let _ = (raw(server), convo(server));
        let (mut raws, mut convos) = (Vec::new(), Vec::new());
        for _ in 0..s.pairs {
            raws.push(raw(server));
            convos.push(convo(server));
        }
        (raws, convos)
    };

    let (raws, convos) = pairs(&fast);
    let convo_walls: Vec<Duration> = convos.iter().map(|r| r.wall).collect();
    let ratios: Vec<f64> = raws
        .iter()
        .zip(&convo_walls)
        .map(|(r, c)| c.as_secs_f64() / r.as_secs_f64())
        .collect();
    let (raw_m, convo_m) = (median(&raws), median(&convo_walls));
    println!(
        "walk: {} conversations, page size {}, {} pages, {} alternating pairs",
        s.rows, s.limit, pages, s.pairs
    );
    println!("  server alone (ms): {}", list(&raws));
    println!("  convo list (ms):   {}", list(&convo_walls));
    println!(
        "  pair ratios:       {}",
        ratios
            .iter()
            .map(|r| format!("{r:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "  median: server {:.1} ms, convo {:.1} ms: {:.2}x (target <= 1.10x); median of the pair ratios {:.2}x",
        ms(raw_m),
        ms(convo_m),
        convo_m.as_secs_f64() / raw_m.as_secs_f64(),
        {
            let mut r = ratios.clone();
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        }
    );

    let (slow_raws, slow_convos) = pairs(&slow);
    let slow_convo_walls: Vec<Duration> = slow_convos.iter().map(|r| r.wall).collect();
    let (slow_raw_m, slow_convo_m) = (median(&slow_raws), median(&slow_convo_walls));
    let network = s.latency * pages as u32 + raw_m;
    println!(
        "walk with {} ms latency a request, {} alternating pairs",
        s.latency.as_millis(),
        s.pairs
    );
    println!("  server alone (ms): {}", list(&slow_raws));
    println!("  convo list (ms):   {}", list(&slow_convo_walls));
    println!(
        "  median: pages x (latency + server time) = {:.1} ms; server alone {:.1} ms ({:.3}x); \
         convo {:.1} ms: {:.3}x of pages x (latency + server time) (target <= 1.03x), {:.3}x of the server alone",
        ms(network),
        ms(slow_raw_m),
        slow_raw_m.as_secs_f64() / network.as_secs_f64(),
        ms(slow_convo_m),
        slow_convo_m.as_secs_f64() / network.as_secs_f64(),
        slow_convo_m.as_secs_f64() / slow_raw_m.as_secs_f64(),
    );

    // Rivals, on the plain server.
    let (base, key) = (fast.base_url(), fast.api_key());
    let env = [
        ("BASE", base.as_str()),
        ("KEY", key.as_str()),
        ("LIMIT", limit.as_str()),
    ];
    let me = std::env::current_exe().expect("own path");
    let me = me.to_str().expect("path");
    let mut table: Vec<(&str, Vec<Run>)> = vec![("convo list --all --format jsonl", convos)];

    let runs = |argv: &[&str], env: &[(&str, &str)], n: usize| -> Vec<Run> {
        (0..n).map(|_| measured(argv, env, s.rows)).collect()
    };
    table.push((
        "naive Rust (reqwest + serde_json::Value)",
        runs(&[me, NAIVE], &env, s.rival_runs),
    ));
    if have("python3") {
        table.push((
            "Python, standard library, keep-alive",
            runs(&["python3", "-c", PYTHON_STDLIB], &env, s.rival_runs),
        ));
    } else {
        println!("  Python rival skipped: python3 is not installed");
    }
    if have("curl") && have("jq") {
        table.push((
            "curl + jq shell loop",
            runs(&["sh", "-c", CURL_JQ], &env, 1),
        ));
    } else {
        println!("  curl + jq rival skipped: install curl and jq (apt-get install curl jq)");
    }
    let convo_run = {
        let t = &table[0].1;
        Run {
            wall: median(&t.iter().map(|r| r.wall).collect::<Vec<_>>()),
            cpu: median(&t.iter().map(|r| r.cpu).collect::<Vec<_>>()),
            rss_kib: median(&t.iter().map(|r| r.rss_kib).collect::<Vec<_>>()),
        }
    };
    println!(
        "rivals: {} rows, medians (runs: convo {}, others {}, curl + jq 1)",
        s.rows, s.pairs, s.rival_runs
    );
    println!("| walker | time | rows/s | peak RSS | CPU time | time vs convo | RSS vs convo |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| server alone (in-process loop, rows not read) | {:.1} ms | {:.0} | – | – | {:.2}x | – |",
        ms(raw_m),
        s.rows as f64 / raw_m.as_secs_f64(),
        raw_m.as_secs_f64() / convo_run.wall.as_secs_f64()
    );
    let mut convo_leads = true;
    for (i, (name, runs)) in table.iter().enumerate() {
        let m = Run {
            wall: median(&runs.iter().map(|r| r.wall).collect::<Vec<_>>()),
            cpu: median(&runs.iter().map(|r| r.cpu).collect::<Vec<_>>()),
            rss_kib: median(&runs.iter().map(|r| r.rss_kib).collect::<Vec<_>>()),
        };
        if i > 0 && (m.wall <= convo_run.wall || m.rss_kib <= convo_run.rss_kib) {
            convo_leads = false;
        }
        println!(
            "| {name} | {:.1} ms | {:.0} | {:.1} MiB | {:.1} ms | {:.2}x | {:.2}x |",
            ms(m.wall),
            s.rows as f64 / m.wall.as_secs_f64(),
            m.rss_kib as f64 / 1024.0,
            ms(m.cpu),
            m.wall.as_secs_f64() / convo_run.wall.as_secs_f64(),
            m.rss_kib as f64 / convo_run.rss_kib as f64,
        );
    }
    println!(
        "convo leads every rival on time and peak RSS: {}",
        if convo_leads { "yes" } else { "NO" }
    );
    rt.block_on(fast.shutdown());
    rt.block_on(slow.shutdown());
    ExitCode::SUCCESS
}
