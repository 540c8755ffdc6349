//! Walk speed (issue 5, target 3): one run, three walkers over the same demo server, 20,000
//! conversations at page size 100:
//! 1. the server's own time: a raw keep-alive loop that only follows `next_cursor`;
//! 2. `convo list conversations --all --format jsonl` (the release binary), its output read
//!    and its lines counted;
//! 3. a shell loop of curl + jq following `next_cursor` (skipped when curl or jq is missing).
//!
//! The first two alternate, after one warm-up run each, median of 11 runs each. Prints each
//! time and the ratios. Run: `cargo build --release && cargo bench --bench walk`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use convo::demo::{DemoOptions, DemoServer};
use serde::Deserialize;

const ROWS: usize = 20_000;
const LIMIT: usize = 100;
const RUNS: usize = 11;

#[derive(Deserialize)]
struct Envelope {
    has_more: bool,
    next_cursor: Option<String>,
    data: Vec<serde::de::IgnoredAny>,
}

async fn raw_walk(http: &reqwest::Client, base: &str, key: &str) -> usize {
    let mut rows = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut url = reqwest::Url::parse(&format!("{base}/v1/conversations")).expect("url");
        url.query_pairs_mut()
            .append_pair("limit", &LIMIT.to_string());
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

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn main() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            conversations: ROWS,
            visitors: 2_000,
            ..DemoOptions::default()
        }))
        .expect("demo server");
    let (base, key) = (server.base_url(), server.api_key());
    let http = convo::api::client::http_builder().build().expect("client");

    let bin = std::env::var("CONVO_BIN").unwrap_or_else(|_| "target/release/convo".into());
    let convo_walk = || {
        let t = Instant::now();
        let out = Command::new(&bin)
            .args(["--base-url", &base, "list", "conversations", "--all"])
            .args(["--limit", &LIMIT.to_string(), "--format", "jsonl"])
            .env("CONVO_API_KEY", &key)
            .env("CONVO_CONFIG", "/nonexistent/convo-bench.toml")
            .stderr(Stdio::null())
            .output()
            .expect("run convo (build it first: cargo build --release)");
        assert!(out.status.success(), "convo list failed");
        assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), ROWS);
        t.elapsed()
    };
    let raw_walk = || {
        let t = Instant::now();
        let n = rt.block_on(raw_walk(&http, &base, &key));
        assert_eq!(n, ROWS);
        t.elapsed()
    };
    // Warm both up, then alternate them, so a burst of other load on the machine falls on
    // both sides rather than on one.
    let _ = (raw_walk(), convo_walk());
    let (mut raws, mut convos) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        raws.push(raw_walk());
        convos.push(convo_walk());
    }
    let ms = |v: &[Duration]| {
        v.iter()
            .map(|d| format!("{:.1}", d.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
            .join(" ")
    };
    eprintln!("  raw runs (ms):   {}", ms(&raws));
    eprintln!("  convo runs (ms): {}", ms(&convos));
    let (raw, convo) = (median(raws), median(convos));

    println!("walk: {ROWS} conversations, page size {LIMIT}, median of {RUNS} runs");
    println!(
        "  server (raw keep-alive loop): {:>8.1} ms",
        raw.as_secs_f64() * 1e3
    );
    println!(
        "  convo list --all --format jsonl: {:>8.1} ms  ({:.2}x the server's time; target <= 1.3x)",
        convo.as_secs_f64() * 1e3,
        convo.as_secs_f64() / raw.as_secs_f64()
    );
    if have("curl") && have("jq") {
        let script = format!(
            r#"c=""; n=0
while :; do
  q="limit={LIMIT}"; [ -n "$c" ] && q="$q&cursor=$c"
  body=$(curl -sf -H "Authorization: Bearer $KEY" "$BASE/v1/conversations?$q") || exit 1
  n=$((n + $(printf '%s' "$body" | jq '.data | length')))
  c=$(printf '%s' "$body" | jq -r 'if .has_more then .next_cursor else "" end')
  [ -z "$c" ] && break
done
echo $n"#
        );
        let t = Instant::now();
        let out = Command::new("sh")
            .args(["-c", &script])
            .env("KEY", &key)
            .env("BASE", &base)
            .output()
            .expect("shell loop");
        let shell = t.elapsed();
        let n: usize = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or(0);
        assert_eq!(n, ROWS, "the curl + jq loop walked {n} rows");
        println!(
            "  curl + jq shell loop:            {:>8.1} ms  (convo is {:.1}x faster; target >= 5x)",
            shell.as_secs_f64() * 1e3,
            shell.as_secs_f64() / convo.as_secs_f64()
        );
    } else {
        println!("  curl + jq shell loop: skipped (install curl and jq)");
    }
    rt.block_on(server.shutdown());
}
