//! What the walk benches share: a walker run in its own process under a small measuring
//! process of the bench binary, which counts the rows it writes and takes its peak RSS and CPU
//! time from `getrusage(RUSAGE_CHILDREN)` (the whole process tree).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// Set for the measuring child process of a bench binary.
pub const ROLE: &str = "CONVO_WALK_ROLE";
/// The first argument of the naive Rust rival (the bench binary again).
pub const NAIVE: &str = "naive-walk";

/// Runs the command in its arguments, counts the lines it writes, and prints
/// `lines wall_ns cpu_ns max_rss_kib` (CPU and RSS of the child's whole process tree).
pub fn measure_main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let t = Instant::now();
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .env_remove(ROLE)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the walker");
    let mut out = child.stdout.take().expect("stdout");
    let (mut lines, mut buf) = (0usize, vec![0u8; 1 << 16]);
    loop {
        match out.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => lines += buf[..n].iter().filter(|&&b| b == b'\n').count(),
            Err(e) => panic!("read: {e}"),
        }
    }
    let status = child.wait().expect("wait");
    let wall = t.elapsed();
    if !status.success() {
        eprintln!("walker failed: {status}");
        return ExitCode::FAILURE;
    }
    let u = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    let tv = |t: nix::sys::time::TimeVal| {
        t.tv_sec() as u128 * 1_000_000_000 + t.tv_usec() as u128 * 1_000
    };
    let cpu = tv(u.user_time()) + tv(u.system_time());
    println!("{lines} {} {cpu} {}", wall.as_nanos(), u.max_rss());
    ExitCode::SUCCESS
}

/// One measured run of a walker in its own process.
#[derive(Clone, Copy)]
pub struct Run {
    pub wall: Duration,
    pub cpu: Duration,
    pub rss_kib: u64,
}

pub fn measured(argv: &[&str], env: &[(&str, &str)], rows: usize) -> Run {
    let out = Command::new(std::env::current_exe().expect("own path"))
        .env(ROLE, "measure")
        .envs(env.iter().copied())
        .args(argv)
        .stderr(Stdio::inherit())
        .output()
        .expect("measuring process");
    assert!(out.status.success(), "{argv:?} failed");
    let f: Vec<u128> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|w| w.parse().expect("number"))
        .collect();
    assert_eq!(f[0] as usize, rows, "{argv:?} wrote {} rows", f[0]);
    Run {
        wall: Duration::from_nanos(f[1] as u64),
        cpu: Duration::from_nanos(f[2] as u64),
        rss_kib: f[3] as u64,
    }
}

pub fn median<T: Copy + Ord>(v: &[T]) -> T {
    let mut v = v.to_vec();
    v.sort();
    v[v.len() / 2]
}

pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The naive Rust rival, as most would write it: the default runtime and client (with this
/// crate's reqwest features: gzip and brotli), each page a `serde_json::Value`, each row written
/// back as JSON to a buffered stdout.
pub fn naive_main() -> ExitCode {
    let var = |k: &str| std::env::var(k).expect(k);
    let (base, key, limit) = (var("BASE"), var("KEY"), var("LIMIT"));
    convo::api::tls::install_crypto_provider();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let client = reqwest::Client::new();
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        let mut cursor: Option<String> = None;
        loop {
            let mut url = format!("{base}/v1/conversations?limit={limit}");
            if let Some(c) = &cursor {
                url.push_str(&format!("&cursor={c}"));
            }
            let resp = client
                .get(&url)
                .bearer_auth(&key)
                .send()
                .await
                .expect("send");
            let page: serde_json::Value =
                serde_json::from_slice(&resp.bytes().await.expect("body")).expect("json");
            for row in page["data"].as_array().expect("data") {
                serde_json::to_writer(&mut out, row).expect("write");
                out.write_all(b"\n").expect("write");
            }
            match (page["has_more"].as_bool(), page["next_cursor"].as_str()) {
                (Some(true), Some(c)) => cursor = Some(c.to_string()),
                _ => break,
            }
        }
        out.flush().expect("flush");
    });
    ExitCode::SUCCESS
}

/// The standard-library Python rival: http.client with keep-alive, no compression asked for.
pub const PYTHON_STDLIB: &str = r#"
import http.client, json, os, sys, urllib.parse
base = urllib.parse.urlsplit(os.environ["BASE"])
conn = http.client.HTTPConnection(base.hostname, base.port)
headers = {"Authorization": "Bearer " + os.environ["KEY"]}
cursor = None
while True:
    q = {"limit": os.environ["LIMIT"]}
    if cursor:
        q["cursor"] = cursor
    conn.request("GET", "/v1/conversations?" + urllib.parse.urlencode(q), headers=headers)
    r = conn.getresponse()
    if r.status != 200:
        sys.exit("HTTP %d" % r.status)
    page = json.loads(r.read())
    for row in page["data"]:
        sys.stdout.write(json.dumps(row) + "\n")
    if not page.get("has_more") or not page.get("next_cursor"):
        break
    cursor = page["next_cursor"]
"#;
