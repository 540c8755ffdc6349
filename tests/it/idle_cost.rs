//! The cost of an open browser to the service (issue 29, "One budget, and the user first"):
//! the real binary in a pty, left alone on its first screen, against the demo server, the
//! requests counted server-side per list and extrapolated to an hour.
//!
//! The tenant is large and its first sync done: `IDLE_VISITORS` visitors (default 1,000,000)
//! walked into the store by `convo store sync --unpaced`, then the finished walk made two days
//! old, so a walk again is due (the steady state of a browser left open all day). Then, for
//! refresh off and refresh every `IDLE_REFRESH_SECS` (default 30), the browser runs for
//! `IDLE_SECS` (default 300) seconds.
//!
//! `cargo test --test it idle_cost:: -- --ignored --nocapture`; `CONVO_BIN=path` measures another
//! build (an older convo, for the figure before); `IDLE_SHOW=1` prints each run's last screen
//! lines (the sync's progress).

use crate::common;

use std::time::{Duration, Instant};

use common::pty::{self, Pty};
use convo::demo::{DemoOptions, DemoServer, LimitCounts, LimitHeaders, RequestBudget};

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

#[test]
#[ignore = "minutes long: a measurement for docs/performance.md"]
fn requests_an_hour_of_an_idle_browser() {
    let visitors = env_u64("IDLE_VISITORS", 1_000_000) as usize;
    let secs = env_u64("IDLE_SECS", 300);
    let refresh = env_u64("IDLE_REFRESH_SECS", 30);
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
        // The idle spell is what is measured (a figure, #[ignore]d), not a wait for anything.
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
