//! The request budget's figures (issue 29, "One budget, and the user first"), with the real
//! binary in a pseudo-terminal against the demo server, its requests counted server-side per
//! list (the behaviour, the order and the counts, is asserted in `cargo test`: the share on a
//! `ManualClock` in `convo-api`'s budget tests, the sync's pace in tests/it/store_sync.rs):
//!
//! - Requests an hour of an idle browser: the tenant is large and its first sync done
//!   (`IDLE_VISITORS` visitors, default 1,000,000, walked by `convo store sync --unpaced`),
//!   then the finished walk made two days old, so a walk again is due (the steady state of a
//!   browser left open all day). For refresh off and every `IDLE_REFRESH_SECS` (default 30),
//!   the browser runs `IDLE_SECS` (default 300) seconds; the counts are extrapolated to an
//!   hour. Goal: the refresh's own requests and one visitor request a minute.
//! - `L` after idle: against 120 requests a minute, the browser left alone `L_IDLE_SECS`
//!   (default 75; the sync at its default pace, 50,000 visitors to walk), then `L` over 30
//!   pages of 100; how long `L` takes and how many of its requests are answered 429, per kind
//!   of rate-limit header (`BUDGET_HEADERS`: ietf,x,none). Goal: < 5 s, no 429.
//!
//! Run: `nice cargo bench --bench budget` (some minutes; `CONVO_BIN=path` measures another
//! build, `IDLE_SHOW=1` prints each idle run's last screen lines; `BUDGET_ONLY=idle` or `l`
//! runs one). `cargo test --bench budget` runs both once, a few seconds each, on 2,000
//! visitors (a smoke test).

#[allow(dead_code)]
#[path = "../tests/it/common/pty.rs"]
mod pty;

use std::time::{Duration, Instant};

use convo::demo::{DemoOptions, DemoServer, LimitCounts, LimitHeaders, RequestBudget};
use pty::Pty;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn bin() -> String {
    std::env::var("CONVO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_convo").into())
}

fn command(
    home: &std::path::Path,
    config: &std::path::Path,
    server: &DemoServer,
) -> portable_pty::CommandBuilder {
    let mut cmd = portable_pty::CommandBuilder::new(bin());
    pty::clean_env(&mut cmd, home);
    cmd.env("CONVO_CONFIG", config);
    cmd.env("CONVO_API_KEY", server.api_key());
    cmd.args(["--base-url", &server.base_url()]);
    cmd
}

fn per_hour(n: u64, secs: f64) -> f64 {
    n as f64 * 3600.0 / secs
}

/// Requests an hour of a browser left open (figures printed as a table).
fn requests_an_hour_of_an_idle_browser(full: bool) {
    let visitors = env_u64("IDLE_VISITORS", if full { 1_000_000 } else { 2_000 }) as usize;
    let secs = env_u64("IDLE_SECS", if full { 300 } else { 2 });
    let refresh = env_u64("IDLE_REFRESH_SECS", if full { 30 } else { 1 });
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    // A budget no run comes near, without headers: it only counts requests per list.
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            conversations: 5_000,
            visitors,
            anchor: Some(jiff::Timestamp::now()),
            budget: Some(RequestBudget {
                limit: 10_000_000,
                window: Duration::from_secs(60),
                headers: LimitHeaders::None,
            }),
            ..DemoOptions::default()
        }))
        .expect("demo server");
    let home = tempfile::tempdir().expect("temp dir");
    let config = home.path().join("convo.toml");
    std::fs::write(&config, "page_size = 100\n").expect("config");

    // The first sync, whole.
    let t = Instant::now();
    let status = std::process::Command::new(bin())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("CONVO_LOG_FILE", home.path().join("convo.log"))
        .env("CONVO_CONFIG", &config)
        .env("CONVO_API_KEY", server.api_key())
        .args([
            "--base-url",
            &server.base_url(),
            "store",
            "sync",
            "--unpaced",
        ])
        .output()
        .expect("store sync runs");
    assert!(status.status.success(), "{status:?}");
    let synced = server.limit_counts();
    println!(
        "idle cost: {visitors} visitors synced in {:.0} s ({} requests); binary {}",
        t.elapsed().as_secs_f64(),
        synced.visitors,
        bin()
    );
    // The finished walk two days old: a walk again is due.
    let store = std::fs::read_dir(home.path().join("data").join("convo").join("stores"))
        .expect("stores")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "sqlite"))
        .expect("the store file");
    let two_days_ago = jiff::Timestamp::now().as_second() - 2 * 86_400;
    rusqlite::Connection::open(&store)
        .expect("store")
        .execute(
            "UPDATE sync_state SET finished_at = ?1, started_at = ?1",
            [two_days_ago],
        )
        .expect("made old");

    println!(
        "| refresh | run | conversations requests | visitors requests | an hour (conversations + visitors) | load avg |"
    );
    println!("|---|---|---|---|---|---|");
    for refresh_secs in [0, refresh] {
        let text = format!("page_size = 100\nrefresh_secs = {refresh_secs}\n");
        std::fs::write(&config, text).expect("config");
        let mut t = Pty::run(command(home.path(), &config, &server), 160, 45);
        t.wait_until(Duration::from_secs(60), |s| s.contains(" loaded"));
        let before: LimitCounts = server.limit_counts();
        let start = Instant::now();
        // The idle spell is what is measured, not a wait for anything.
        std::thread::sleep(Duration::from_secs(secs));
        let after = server.limit_counts();
        let took = start.elapsed().as_secs_f64();
        assert!(t.running(), "convo exited:\n{}", t.screen());
        if std::env::var_os("IDLE_SHOW").is_some() {
            let screen = t.screen();
            let tail: Vec<&str> = screen.lines().rev().take(2).collect();
            println!("screen's last lines: {tail:?}");
        }
        t.quit();
        let (c, v) = (
            after.conversations - before.conversations,
            after.visitors - before.visitors,
        );
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "| {} | {took:.0} s | {c} | {v} | {:.0} + {:.0} | {} |",
            if refresh_secs == 0 {
                "off".to_string()
            } else {
                format!("every {refresh_secs} s")
            },
            per_hour(c, took),
            per_hour(v, took),
            load.split(' ').next().unwrap_or("?")
        );
    }
    rt.block_on(server.shutdown());
}

/// `L` over 30 pages after the browser idled, against 120 requests a minute (figures printed
/// as a table).
fn l_over_30_pages_after_idle_against_120_a_minute(full: bool) {
    let idle = env_u64("L_IDLE_SECS", if full { 75 } else { 2 });
    let visitors = if full { 50_000 } else { 2_000 };
    let kinds = std::env::var("BUDGET_HEADERS")
        .unwrap_or_else(|_| if full { "ietf,x,none" } else { "ietf" }.into());
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
                visitors,
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
        // The idle spell is the behaviour measured, not a wait.
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

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` does not: one small run.
    let full = std::env::args().any(|a| a == "--bench");
    let only = std::env::var("BUDGET_ONLY").unwrap_or_default();
    if only.is_empty() || only == "idle" {
        requests_an_hour_of_an_idle_browser(full);
    }
    if only.is_empty() || only == "l" {
        l_over_30_pages_after_idle_against_120_a_minute(full);
    }
}
