//! Names at any size (issue 29): the TUI's memory and its first row with a local store of
//! 300,000 and of 1,000,000 visitors, against the same TUI with an empty store. Goals: under
//! 45 MB RSS at 300,000; within 10 MB of the empty store's at 1,000,000; first row unchanged.
//!
//! Each run spawns `convo --demo` (the release binary) in a 200x50 pseudo-terminal with the
//! demo's store file under a temporary data dir, notes when the screen first shows a data row,
//! lets it run for [`SETTLE`] more (the store opens, the first pages' names are read, the
//! visitor sync checks the new end and walks the demo's 1,500 visitors), then reads the
//! process's `VmRSS` and `VmHWM` from `/proc`. Median of the runs.
//!
//! The stores are written directly (`Store::upsert_visitors`, as a sync leaves them, the
//! sync state included), which takes seconds where a real sync of 1,000,000 visitors takes
//! minutes; the sync's own time is measured with the real binaries (docs/performance.md, CHANGELOG.md "Performance history").
//!
//! Run: `cargo build --release && nice cargo bench --bench names` (`CONVO_BIN` overrides the
//! binary, `CONVO_BENCH_RUNS` the number of runs, 3 by default). `cargo test --benches` runs it once on 2,000 visitors (a smoke test).

use std::io::Read;
use std::num::NonZeroU16;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 50;
const COLS: u16 = 200;
/// How long the TUI runs after its first row before its memory is read.
const SETTLE: Duration = Duration::from_secs(4);

/// A table row of the Conversations tab: a status and an id (short, or whole when the
/// screen is wide) on the same line.
fn has_data_row(screen: &str) -> bool {
    let id = |w: &str| {
        (w.len() == 8 && w.bytes().all(|b| b.is_ascii_hexdigit()))
            || uuid::Uuid::try_parse(w).is_ok()
    };
    screen.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words
            .iter()
            .any(|w| matches!(*w, "open" | "pending" | "closed"))
            && words.iter().any(|w| id(w))
    })
}

/// `VmRSS` and `VmHWM` of process `pid`, in KiB.
fn memory_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// One run: the time to the first data row, and the RSS and peak RSS (KiB) after [`SETTLE`].
fn run_once(bin: &str, tmp: &std::path::Path) -> (Duration, u64, u64) {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let mut cmd = CommandBuilder::new(bin);
    cmd.env_clear();
    cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", tmp);
    cmd.env("XDG_CONFIG_HOME", tmp.join("config"));
    cmd.env("XDG_DATA_HOME", tmp.join("data"));
    cmd.env("CONVO_LOG_FILE", tmp.join("convo.log"));
    cmd.arg("--demo");
    cmd.cwd(tmp);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let start = Instant::now();
    let mut child = pair.slave.spawn_command(cmd).expect("spawn convo");
    drop(pair.slave);
    let pid = child.process_id().expect("a pid");
    let (tx, rx) = mpsc::channel();
    let last = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let seen = last.clone();
    std::thread::spawn(move || {
        let rows = NonZeroU16::new(ROWS).expect("rows");
        let cols = NonZeroU16::new(COLS).expect("cols");
        let mut parser = vt100::Parser::new(rows, cols, 0);
        let mut buf = [0u8; 16 * 1024];
        let mut said = false;
        // Read to the end (so the TUI never blocks on a full pty), noting the first row.
        loop {
            let n = reader.read(&mut buf).unwrap_or(0);
            if n == 0 {
                break;
            }
            if !said {
                parser.process(&buf[..n]);
                let screen = parser.screen().contents();
                if let Ok(mut l) = seen.lock() {
                    l.clone_from(&screen);
                }
                if has_data_row(&screen) {
                    said = true;
                    let _ = tx.send(start.elapsed());
                }
            }
        }
    });
    let first = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| {
            let screen = last.lock().map(|s| s.clone()).unwrap_or_default();
            panic!("no data row within 30 s:\n{screen}")
        });
    std::thread::sleep(SETTLE);
    let (rss, hwm) = memory_kib(pid);
    let _ = child.kill();
    let _ = child.wait();
    drop(pair.master);
    (first, rss, hwm)
}

const PLANS: [&str; 3] = ["free", "pro", "enterprise"];

/// The demo's store file under `tmp`'s data dir, holding `n` visitors and a finished walk (as
/// a sync leaves it); its size in bytes.
fn fill_store(tmp: &std::path::Path, n: usize) -> u64 {
    let dir = tmp.join("data").join("convo").join("stores");
    std::fs::create_dir_all(&dir).expect("store dir");
    let path = dir.join(convo::store::file_name(None, "demo"));
    let mut store = convo::store::Store::open(&path).expect("store");
    let base: jiff::Timestamp = "2026-11-22T12:00:00Z".parse().expect("time");
    for start in (0..n).step_by(5_000) {
        let rows: Vec<convo::api::Visitor> = (start..(start + 5_000).min(n))
            .map(|i| convo::api::Visitor {
                attributes: serde_json::json!({
                    "plan": PLANS[i % 3],
                    "seats": i % 50,
                    "beta": i % 7 == 0,
                    "tags": ["vip", "eu"],
                }),
                id: uuid::Uuid::from_u128(0x5eed_0000_0000_0000_0000_0000_0000_0000 + i as u128),
                external_id: Some(format!("crm-{i:07}")),
                email: Some(format!("visitor.number{i}@example.com")),
                name: Some(format!("Visitor Number {i}")),
                created_at: Some(convo::api::Timestamp::Parsed(
                    base - jiff::SignedDuration::from_secs(i as i64 * 7),
                )),
            })
            .collect();
        store.upsert_visitors(&rows, 1_795_000_000).expect("upsert");
    }
    assert_eq!(store.visitor_count().expect("count"), n as u64);
    store.checkpoint().expect("checkpoint");
    store.size_on_disk()
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` does not: one small run.
    let full = std::env::args().any(|a| a == "--bench");
    let runs = std::env::var("CONVO_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let (runs, sizes): (usize, &[usize]) = if full {
        (runs, &[0, 300_000, 1_000_000])
    } else {
        (1, &[0, 2_000])
    };
    let bin = std::env::var("CONVO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_convo").into());
    let bin = std::fs::canonicalize(&bin)
        .unwrap_or_else(|_| panic!("{bin} is missing: run cargo build --release first"));
    let bin = bin.to_str().expect("a UTF-8 path").to_string();
    let mib = |kib: u64| kib as f64 / 1024.0;
    let mut empty_rss = None;
    for &n in sizes {
        let tmp = tempfile::tempdir().expect("temp dir");
        let t = Instant::now();
        let bytes = if n > 0 { fill_store(tmp.path(), n) } else { 0 };
        let filled = t.elapsed();
        let _ = run_once(&bin, tmp.path()); // warm the page cache
        let mut results: Vec<(Duration, u64, u64)> =
            (0..runs).map(|_| run_once(&bin, tmp.path())).collect();
        results.sort_by_key(|r| r.1);
        let (_, rss, hwm) = results[runs / 2];
        let mut firsts: Vec<Duration> = results.iter().map(|r| r.0).collect();
        firsts.sort();
        let first = firsts[runs / 2];
        let empty = *empty_rss.get_or_insert(rss);
        println!(
            "names: store of {n} visitors ({:.1} MiB, written in {:.1} s): TUI RSS {:.1} MiB \
             (peak {:.1} MiB; {:+.1} MiB against the empty store), first row {:.1} ms \
             (median of {runs})",
            bytes as f64 / 1_048_576.0,
            filled.as_secs_f64(),
            mib(rss),
            mib(hwm),
            mib(rss) - mib(empty),
            first.as_secs_f64() * 1e3,
        );
    }
}
