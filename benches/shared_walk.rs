//! One window against three (issue 41): the visitors requests the demo server serves while
//! one browser, then three browsers of one profile (one store), start from an empty store and
//! name every visitor. With the walk shared through the store's lease, three windows ask for
//! about what one asks for; without it each walked the whole list.
//!
//! Each run: a demo server on a random loopback port (its own log of the visitors pages it
//! served), a clean home, N browsers of the real binary in pseudo-terminals started together,
//! until the store says the walk has finished, then [`SETTLE`] more; the figures are the
//! visitors pages of 100 (the walk's and the checks' of its new end), those that asked for a
//! cursor already asked for, and the time to the end of the walk.
//!
//! Run: `nice cargo bench --bench shared_walk` (20,000 visitors; `SHARED_WALK_VISITORS`
//! overrides, `CONVO_BIN` picks the binary). `cargo test --bench shared_walk` runs it once on
//! 2,000 visitors (a smoke test).

#[path = "../tests/it/common/pty.rs"]
#[allow(dead_code)]
mod pty;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use convo::demo::{DemoOptions, DemoServer};

/// After the walk ends, how long the windows run on (their checks of the new end).
const SETTLE: Duration = Duration::from_secs(2);

/// The walk's pace in every window (requests a second): the demo's.
const CONFIG: &str = "visitor_sync_rps = 20\npage_size = 25\n";

struct Figures {
    pages: usize,
    repeated: usize,
    with_cursor: usize,
    walk: Duration,
}

fn store_path(bin: &str, home: &Path, server: &DemoServer) -> PathBuf {
    let out = std::process::Command::new(bin)
        .env_clear()
        .env("CONVO_API_KEY", server.api_key())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("CONVO_LOG_FILE", home.join("convo.log"))
        .args(["--base-url", &server.base_url(), "store", "path"])
        .output()
        .expect("convo store path");
    assert!(
        out.status.success(),
        "convo store path: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn run(bin: &str, server: &DemoServer, windows: usize) -> Figures {
    let home = tempfile::tempdir().expect("a home");
    let dir = home.path().join("config/convo");
    std::fs::create_dir_all(&dir).expect("config dir");
    std::fs::write(dir.join("config.toml"), CONFIG).expect("config");
    let url = server.base_url();
    let path = store_path(bin, home.path(), server);
    let before = server.visitor_requests().len();
    let started = Instant::now();
    let mut ptys: Vec<pty::Pty> = (0..windows)
        .map(|_| {
            let mut cmd = portable_pty::CommandBuilder::new(bin);
            pty::clean_env(&mut cmd, home.path());
            cmd.env("CONVO_API_KEY", server.api_key());
            cmd.args(["--base-url", &url]);
            pty::Pty::run(cmd, 160, 30)
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let done = path.exists()
            && convo::store::Store::open(&path)
                .ok()
                .and_then(|s| s.sync_state().ok())
                .is_some_and(|s| s.finished_at.is_some());
        if done {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the walk did not end in 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let walk = started.elapsed();
    std::thread::sleep(SETTLE);
    for p in &mut ptys {
        p.send("q");
    }
    for p in &mut ptys {
        let _ = p.wait_exit(Duration::from_secs(10));
    }
    let log = server.visitor_requests();
    let log = &log[before..];
    let mut seen = std::collections::HashSet::new();
    let (mut repeated, mut with_cursor) = (0, 0);
    // The sync's pages (limit=100); the browsers' own Visitors tab asks 25 a page.
    for q in log
        .iter()
        .filter(|q| q.contains("cursor=") && q.contains("limit=100"))
    {
        with_cursor += 1;
        if !seen.insert(q.as_str()) {
            repeated += 1;
        }
    }
    Figures {
        pages: log.iter().filter(|q| q.contains("limit=100")).count(),
        repeated,
        with_cursor,
        walk,
    }
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --bench` does not: one small run.
    let full = std::env::args().any(|a| a == "--bench");
    let visitors: usize = std::env::var("SHARED_WALK_VISITORS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { 20_000 } else { 2_000 });
    let bin = std::env::var("CONVO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_convo").into());
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    println!("| windows | visitors | pages of 100 | cursors repeated | walk ended after |");
    println!("|---|---|---|---|---|");
    for windows in [1, 3] {
        // A server per run: its log is the run's alone.
        let server = rt
            .block_on(DemoServer::start(DemoOptions {
                addr: ([127, 0, 0, 1], 0).into(),
                seed: 41,
                conversations: 300,
                visitors,
                ..DemoOptions::default()
            }))
            .expect("demo server");
        let f = run(&bin, &server, windows);
        println!(
            "| {windows} | {visitors} | {} (a walk is {}) | {} of {} | {:.1} s |",
            f.pages,
            visitors.div_ceil(100),
            f.repeated,
            f.with_cursor,
            f.walk.as_secs_f64()
        );
        rt.block_on(server.shutdown());
    }
}
