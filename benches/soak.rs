//! The long shift (issue 23, section 5): the real binary in a pty on the built-in view
//! "Unassigned open", refreshing every second (`refresh_secs = 1`) against a churning demo
//! server (a new conversation or an agent's pick-up every half second), ten pages loaded
//! (`L`; a refresh re-reads those ten pages, `refresh_max_pages`' default), `[sla]` targets
//! set, for `SOAK_SECS` (default 3600).
//!
//! Every `SOAK_SAMPLE_SECS` (default 60), of the convo process: its RSS (`/proc/PID/status`),
//! its open descriptors (`/proc/PID/fd`), the local store's database and WAL sizes (the store
//! lives in the run's own data dir), and its CPU time per refresh: the process's CPU clock
//! (`clock_getcpuclockid`: every thread, those that ended too) over the interval, divided by
//! the refreshes in it. Refreshes are counted by the demo server: each one re-reads from the
//! first page, and only a walk's first page has no cursor. After the warm-up (the first 20 %
//! of the run) each must stay within 5 % of its warm-up value (for the levels the last warm-up
//! sample, for the CPU per refresh their median): none may rise more than 5 % above it (a
//! fall is shown, not failed); the WAL may also cycle up to SQLite's checkpoint size. Prints
//! a table and PASS or FAIL per metric; exits non-zero on a FAIL.
//!
//! `cargo bench --bench soak` is the hour (`SOAK_SECS=600 cargo bench --bench soak`: ten
//! minutes). `cargo test --bench soak` is the smoke run of the CI's `cargo test --bench '*'`:
//! 20 s sampled every 2 s in the debug build (pages of 20 rows), checking only that every
//! sample was taken and nothing exploded.

#[allow(dead_code)]
#[path = "../tests/it/common/pty.rs"]
mod pty;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use convo::demo::{Churn, DemoOptions, DemoServer, Faults};

/// The run's shape.
struct Plan {
    secs: u64,
    sample_secs: u64,
    /// `page_size`: ten pages of it are the view.
    page: usize,
    conversations: usize,
    /// Visitors: the store's visitor sync walks them at the start and every 15 minutes.
    visitors: usize,
    /// Conversations a minute: a new one or a pick-up, alternately.
    churn: u32,
}

/// Waiting conversations the demo's live queue has besides its backlog.
const LIVE_QUEUE_WAITING: usize = 9;

/// The WAL's bound when it cycles: SQLite checkpoints once the log passes 1,000 pages
/// (`wal_autocheckpoint`) and then reuses the file from its start without shrinking it, so
/// it reaches 1,000 frames of a 4 KiB page plus their 24-byte headers, and the frames of the
/// transaction that crossed the line (a few pages here; 64 allowed).
const WAL_CYCLE_BYTES: u64 = 32 + 1_064 * (4_096 + 24);

/// One sample of the convo process and its store.
#[derive(Clone, Copy, Debug)]
struct Sample {
    at: Duration,
    rss_kib: u64,
    fds: u64,
    /// The database file, and the data it holds with the WAL's pages (what the file becomes
    /// at the next checkpoint: SQLite's page count times its page size, as a reader sees it).
    db: u64,
    data: u64,
    wal: u64,
    refreshes: u64,
    cpu: Duration,
    /// Rows the footer says are loaded.
    rows: Option<usize>,
}

impl Sample {
    fn cpu_per_refresh_us(&self) -> Option<f64> {
        (self.refreshes > 0).then(|| self.cpu.as_secs_f64() * 1e6 / self.refreshes as f64)
    }
}

fn env_secs(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn fds(pid: u32) -> u64 {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count() as u64)
}

/// The process's CPU time so far (all its threads, ended ones included).
fn cpu_time(pid: u32) -> Duration {
    use nix::time::{clock_getcpuclockid, clock_gettime};
    let clock = clock_getcpuclockid(nix::unistd::Pid::from_raw(pid as i32)).expect("cpu clock");
    let t = clock_gettime(clock).expect("clock_gettime");
    Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32)
}

/// The store's file (`<data>/convo/stores/*.sqlite`) once it exists.
fn store_file(data: &Path) -> Option<PathBuf> {
    std::fs::read_dir(data.join("convo").join("stores"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "sqlite"))
}

/// The store's size as a reader sees it (the WAL's pages included): page count x page size.
fn data_bytes(p: &Path) -> u64 {
    let Ok(c) =
        rusqlite::Connection::open_with_flags(p, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return 0;
    };
    let pragma = |name: &str| {
        c.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
            .unwrap_or(0)
    };
    (pragma("page_count") * pragma("page_size")).max(0) as u64
}

fn len(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// The rows the footer counts (`all 990 loaded`, `990 loaded`).
fn footer_rows(screen: &str) -> Option<usize> {
    let line = screen.lines().rev().find(|l| l.contains(" loaded"))?;
    let before = &line[..line.find(" loaded")?];
    // `1,234`: the footer writes its numbers with thousands separators.
    before.split(' ').next_back()?.replace(',', "").parse().ok()
}

/// The footer says every row is loaded (`all 990 loaded`).
fn all_loaded(screen: &str) -> bool {
    screen
        .lines()
        .rev()
        .find(|l| l.contains(" loaded"))
        .is_some_and(|l| l.contains(" all "))
}

/// The verdict on one metric: the warm-up value, the largest rise and fall after it, and
/// whether every sample after it stayed under 105 % of it (or under `cap`). A fall is shown,
/// not failed: a pooled connection closing when idle, a quieter machine, are no leak.
struct Verdict {
    name: &'static str,
    warm: f64,
    rise: f64,
    fall: f64,
    pass: bool,
}

fn judge(
    name: &'static str,
    warm: &[f64],
    after: &[f64],
    from_median: bool,
    cap: Option<f64>,
) -> Verdict {
    let w = if from_median {
        let mut v = warm.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    } else {
        warm[warm.len() - 1]
    };
    let rel = |x: f64| if w == 0.0 { x } else { (x - w) / w };
    let rise = after.iter().map(|&x| rel(x)).fold(0.0, f64::max);
    let fall = after.iter().map(|&x| -rel(x)).fold(0.0, f64::max);
    let pass = after
        .iter()
        .all(|&x| rel(x) <= 0.05 || cap.is_some_and(|c| x <= c));
    Verdict {
        name,
        warm: w,
        rise,
        fall,
        pass,
    }
}

fn main() -> ExitCode {
    let full = std::env::args().any(|a| a == "--bench");
    let plan = if full {
        Plan {
            secs: env_secs("SOAK_SECS", 3600),
            sample_secs: env_secs("SOAK_SAMPLE_SECS", 60),
            page: 100,
            conversations: 5_000,
            visitors: 1_500,
            churn: 120,
        }
    } else {
        Plan {
            secs: env_secs("SOAK_SECS", 20),
            sample_secs: env_secs("SOAK_SAMPLE_SECS", 2),
            page: 20,
            conversations: 1_000,
            visitors: 100,
            churn: 120,
        }
    };
    // Ten pages, with room for the churn's swing (arrivals and pick-ups alternate).
    let backlog = 10 * plan.page - LIVE_QUEUE_WAITING - plan.page / 10;
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            conversations: plan.conversations,
            visitors: plan.visitors,
            anchor: Some(jiff::Timestamp::now()),
            faults: Faults {
                backlog,
                churn: Churn {
                    per_minute: plan.churn,
                    ..Churn::default()
                },
                ..Faults::default()
            },
            ..DemoOptions::default()
        }))
        .expect("demo server");
    let home = tempfile::tempdir().expect("temp dir");
    let config = home.path().join("convo.toml");
    std::fs::write(
        &config,
        format!(
            "page_size = {}\nrefresh_secs = 1\n\n[sla]\nfirst_response = \"1m\"\n\
             resolution = \"1d\"\nwarn_at = 0.5\n",
            plan.page
        ),
    )
    .expect("config");
    let bin = std::env::var("CONVO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_convo").into());
    let mut cmd = portable_pty::CommandBuilder::new(bin);
    pty::clean_env(&mut cmd, home.path());
    cmd.env("CONVO_CONFIG", &config);
    cmd.env("CONVO_API_KEY", server.api_key());
    cmd.args([
        "--base-url",
        &server.base_url(),
        "--view",
        "Unassigned open",
    ]);
    let mut t = pty::Pty::run(cmd, 160, 45);
    let pid = t.pid();
    t.wait_until(Duration::from_secs(60), |s| footer_rows(s).is_some());
    t.send(b"L");
    let loaded = t.wait_until(Duration::from_secs(120), all_loaded);
    let rows = footer_rows(&loaded);
    println!(
        "soak: {} s sampled every {} s; \"Unassigned open\", {} rows in pages of {} ({} pages), \
         refresh every 1 s, churn {} a minute, [sla] first_response 1m; {}",
        plan.secs,
        plan.sample_secs,
        rows.unwrap_or(0),
        plan.page,
        rows.unwrap_or(0).div_ceil(plan.page),
        plan.churn,
        if full { "release" } else { "smoke" }
    );
    let data = home.path().join("data");
    let start = Instant::now();
    let (mut cpu0, mut heads0) = (cpu_time(pid), server.first_page_count());
    let mut samples: Vec<Sample> = Vec::new();
    println!(
        "| at | RSS | open fds | store data | db file | WAL | refreshes | CPU per refresh | rows | load avg |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut next = Duration::from_secs(plan.sample_secs);
    while next <= Duration::from_secs(plan.secs) {
        std::thread::sleep(next.saturating_sub(start.elapsed()));
        assert!(t.running(), "convo exited; screen:\n{}", t.screen());
        let (cpu, heads) = (cpu_time(pid), server.first_page_count());
        let store = store_file(&data);
        let wal = store.as_ref().map(|p| {
            let mut w = p.clone().into_os_string();
            w.push("-wal");
            PathBuf::from(w)
        });
        let screen = t.screen();
        let s = Sample {
            at: start.elapsed(),
            rss_kib: rss_kib(pid),
            fds: fds(pid),
            db: store.as_deref().map_or(0, len),
            data: store.as_deref().map_or(0, data_bytes),
            wal: wal.as_deref().map_or(0, len),
            refreshes: heads - heads0,
            cpu: cpu - cpu0,
            rows: footer_rows(&screen),
        };
        // The screen is kept; the bytes behind it are not (an hour of frames).
        t.clear_raw();
        (cpu0, heads0) = (cpu, heads);
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "| {:.0} s | {:.1} MiB | {} | {:.1} KiB | {:.1} KiB | {:.1} KiB | {} | {} | {} | {} |",
            s.at.as_secs_f64(),
            s.rss_kib as f64 / 1024.0,
            s.fds,
            s.data as f64 / 1024.0,
            s.db as f64 / 1024.0,
            s.wal as f64 / 1024.0,
            s.refreshes,
            s.cpu_per_refresh_us()
                .map_or("–".into(), |u| format!("{:.0} µs", u)),
            s.rows.map_or("?".into(), |r| r.to_string()),
            load.split(' ').next().unwrap_or("?")
        );
        assert!(
            !screen.contains("refresh failed"),
            "a refresh failed:\n{screen}"
        );
        samples.push(s);
        next += Duration::from_secs(plan.sample_secs);
    }
    t.quit();
    rt.block_on(server.shutdown());

    // The smoke run: every sample taken, each interval refreshed, nothing out of bounds.
    assert!(samples.len() >= 3, "{} samples", samples.len());
    for s in &samples {
        assert!(
            s.rss_kib > 0 && s.fds > 0 && s.db > 0 && s.data > 0,
            "{s:?}"
        );
        assert!(s.refreshes > 0, "no refresh in an interval: {s:?}");
        assert!(s.rss_kib < 512 * 1024, "RSS exploded: {s:?}");
    }
    let warm_n = (samples.len() / 5).max(1);
    let (warm, after) = samples.split_at(warm_n);
    let col = |v: &[Sample], f: &dyn Fn(&Sample) -> f64| v.iter().map(f).collect::<Vec<_>>();
    let cpu = |s: &Sample| s.cpu_per_refresh_us().unwrap_or(0.0);
    let verdicts = [
        judge(
            "RSS (KiB)",
            &col(warm, &|s| s.rss_kib as f64),
            &col(after, &|s| s.rss_kib as f64),
            false,
            None,
        ),
        judge(
            "open descriptors",
            &col(warm, &|s| s.fds as f64),
            &col(after, &|s| s.fds as f64),
            false,
            None,
        ),
        judge(
            "store data (bytes)",
            &col(warm, &|s| s.data as f64),
            &col(after, &|s| s.data as f64),
            false,
            None,
        ),
        judge(
            "store db file (bytes)",
            &col(warm, &|s| s.db as f64),
            &col(after, &|s| s.db as f64),
            false,
            // The file takes the WAL's pages at a checkpoint: up to the data's size.
            Some(warm.iter().chain(after).map(|s| s.data).max().unwrap_or(0) as f64 * 1.05),
        ),
        judge(
            "WAL (bytes)",
            &col(warm, &|s| s.wal as f64),
            &col(after, &|s| s.wal as f64),
            false,
            Some(WAL_CYCLE_BYTES as f64),
        ),
        judge(
            "CPU per refresh (µs)",
            &col(warm, &cpu),
            &col(after, &cpu),
            true,
            None,
        ),
    ];
    println!(
        "\nafter the warm-up ({} s, {warm_n} samples): at most 5 % over the warm-up value \
         (the WAL: or under {:.0} KiB, a checkpoint cycle)",
        warm[warm_n - 1].at.as_secs(),
        WAL_CYCLE_BYTES as f64 / 1024.0
    );
    println!("| metric | warm-up value | largest rise after | largest fall after | verdict |");
    println!("|---|---|---|---|---|");
    for v in &verdicts {
        println!(
            "| {} | {:.0} | {:.1} % | {:.1} % | {} |",
            v.name,
            v.warm,
            v.rise * 100.0,
            v.fall * 100.0,
            if v.pass { "PASS" } else { "FAIL" }
        );
    }
    if full && verdicts.iter().any(|v| !v.pass) {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
