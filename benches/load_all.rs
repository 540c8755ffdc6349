//! Loading everything in the TUI (issue 14, section 3): `L` in the real binary, in a 200x50
//! pseudo-terminal, against an in-process demo server of N conversations, beside
//! `convo list conversations --all --format jsonl` on the same server.
//!
//! For each N: the time from pressing `L` to the footer's `all N loaded` (a `vt100` parser
//! reads the screen), against the median of 3 list walks (target <= 1.1x at page size 100);
//! the CPU time (all threads) each side spent, since on a busy machine (and in a terminal
//! emulator that needs its share) the browser's wall time follows its CPU time, which an idle
//! machine's spare core hides (issue 36; the figure as a user sees it, in tmux:
//! scripts/load-all-in-tmux.sh); a `j` every 100 ms
//! while loading and the time until the footer shows the new row (the UI answers within a
//! frame); the TUI's RSS (/proc) before `L` and after, per row loaded (target <= 200 bytes).
//!
//! `cargo bench --bench load_all` measures 10k, 100k, 600k and 1M rows (release build; about
//! two minutes). `cargo test --benches` runs it on 2,000 rows in the debug build as a smoke
//! test. `LOAD_ALL_ROWS=600000` measures one size. Each size is measured at the default page
//! size (50: no `page_size` in the TUI's config, no `--limit` for the list) and at 100 (the
//! TUI's `page_size = 100` in its config file, `--limit 100` for the list), where per-page
//! costs weigh most; `LOAD_ALL_LIMIT=100` (or `50,100`) chooses the page sizes.
//! `LOAD_ALL_RUNS=3` repeats `L` (one line each); `LOAD_ALL_KEYS=0` presses no `j` while
//! loading and `LOAD_ALL_LISTS=0` skips the list walks (a profile of the TUI alone, e.g. with
//! `CONVO_BIN` a wrapper that runs it under valgrind); `LOAD_ALL_LATENCY_MS=2` gives the
//! server that time per answer (a sleep).
//!
//! After `L`, `S` (the summary of the loaded rows) is pressed and timed until its counts show
//! (`LOAD_ALL_SUMMARY=0` skips it); and per size, a union query's first screen: the binary
//! started with `--query 'status:open,pending -assignee:none'` (two streams and a check done
//! in convo), from start to its first row on screen, beside the same start without a query
//! (median of 3 each).

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use convo::demo::{DemoOptions, DemoServer};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 50;
const COLS: u16 = 200;

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

/// CPU time (user + system) of a process so far, from /proc (clock ticks of 10 ms); a
/// process that has exited but not been waited for (a zombie) still has its times there.
fn cpu_ms(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            // The fields after the command's name (which may hold spaces) in parentheses.
            let rest = &s[s.rfind(')')? + 2..];
            let f: Vec<&str> = rest.split(' ').collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .map_or(0, |ticks| ticks * 10)
}

/// Waits until `pid` has exited (a zombie, not yet waited for), at most a second.
fn exited(pid: u32) {
    let end = Instant::now() + Duration::from_secs(1);
    while Instant::now() < end {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if state
            .rfind(')')
            .is_none_or(|i| state[i..].starts_with(") Z"))
        {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The page sizes to measure (`LOAD_ALL_LIMIT`, comma-separated); None: the configured
/// default (no `page_size`, no `--limit`).
fn page_limits() -> Vec<Option<u16>> {
    match std::env::var("LOAD_ALL_LIMIT") {
        Ok(v) => v
            .split(',')
            .map(|n| Some(n.trim().parse().expect("LOAD_ALL_LIMIT: 1 to 100")))
            .collect(),
        Err(_) => vec![None, Some(100)],
    }
}

/// One `convo list --all` walk: its wall time and its CPU time (ms).
fn list_walk(bin: &str, base: &str, key: &str, rows: usize, limit: Option<u16>) -> (Duration, u64) {
    let t = Instant::now();
    let mut cmd = Command::new(bin);
    // The TUI's page size: the configured one (50 unless set), or LOAD_ALL_LIMIT.
    cmd.args(["--base-url", base, "list", "conversations", "--all"])
        .args(["--format", "jsonl"]);
    if let Some(n) = limit {
        cmd.args(["--limit", &n.to_string()]);
    }
    let mut child = cmd
        .env("CONVO_API_KEY", key)
        .env("CONVO_CONFIG", "/nonexistent/convo-bench.toml")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("convo list");
    let mut out = child.stdout.take().expect("stdout");
    let (mut lines, mut buf) = (0usize, vec![0u8; 1 << 16]);
    loop {
        match out.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => lines += buf[..n].iter().filter(|&&b| b == b'\n').count(),
        }
    }
    let took = t.elapsed();
    exited(child.id());
    let cpu = cpu_ms(child.id());
    assert!(child.wait().expect("wait").success());
    assert_eq!(lines, rows);
    (took, cpu)
}

/// The footer's row number (`row 12 ·`), if shown.
fn footer_row(screen: &str) -> Option<usize> {
    let i = screen.rfind(" row ")?;
    screen[i + 5..]
        .split(' ')
        .next()?
        .replace(',', "")
        .parse()
        .ok()
}

struct Tui {
    rows: usize,
    load: Duration,
    keys: Vec<Duration>,
    rss_before: u64,
    rss_after: u64,
    /// The browser's CPU time (ms, all threads) from `L` to `all N loaded`.
    cpu: u64,
    /// `S` pressed after `L`: until its counts show.
    summary: Option<Duration>,
}

/// The binary running in a pty, its screen as a `vt100` parser reads it.
struct Running {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<String>>,
    pid: u32,
    _tmp: tempfile::TempDir,
}

impl Running {
    /// Waits until `what` holds on screen (false after `limit`).
    fn wait_for(&self, what: &dyn Fn(&str) -> bool, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            if what(&self.screen.lock().expect("screen")) {
                return true;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        false
    }

    fn press(&mut self, keys: &[u8]) {
        self.writer.write_all(keys).expect("keys");
        self.writer.flush().expect("flush");
    }

    fn quit(mut self) {
        let _ = self.writer.write_all(b"q");
        let _ = self.writer.flush();
        std::thread::sleep(Duration::from_millis(100));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The binary against `base` in a 200x50 pty with a clean home (page size `limit`), `args`
/// after the base URL.
fn spawn(bin: &str, base: &str, key: &str, limit: Option<u16>, args: &[&str]) -> Running {
    let tmp = tempfile::tempdir().expect("temp dir");
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
    cmd.env("HOME", tmp.path());
    cmd.env("XDG_CONFIG_HOME", tmp.path().join("config"));
    cmd.env("XDG_DATA_HOME", tmp.path().join("data"));
    cmd.env("CONVO_LOG_FILE", tmp.path().join("convo.log"));
    let config = tmp.path().join("convo.toml");
    if let Some(n) = limit {
        std::fs::write(&config, format!("page_size = {n}\n")).expect("config");
    }
    cmd.env("CONVO_CONFIG", &config);
    cmd.env("CONVO_API_KEY", key);
    cmd.args(["--base-url", base]);
    cmd.args(args);
    cmd.cwd(tmp.path());
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let writer = pair.master.take_writer().expect("writer");
    let child = pair.slave.spawn_command(cmd).expect("spawn convo");
    drop(pair.slave);
    let pid = child.process_id().expect("pid");
    let screen = Arc::new(Mutex::new(String::new()));
    let seen = screen.clone();
    std::thread::spawn(move || {
        let mut parser = vt100::Parser::new(
            NonZeroU16::new(ROWS).expect("rows"),
            NonZeroU16::new(COLS).expect("cols"),
            0,
        );
        let mut buf = [0u8; 64 * 1024];
        loop {
            let n = reader.read(&mut buf).unwrap_or(0);
            if n == 0 {
                break;
            }
            parser.process(&buf[..n]);
            *seen.lock().expect("screen") = parser.screen().contents();
        }
    });
    Running {
        child,
        writer,
        screen,
        pid,
        _tmp: tmp,
    }
}

/// From start to the first row on screen (the footer's row number), with `args`.
fn first_screen(bin: &str, base: &str, key: &str, args: &[&str]) -> Duration {
    let t = Instant::now();
    let tui = spawn(bin, base, key, None, args);
    let shown = tui.wait_for(&|s| footer_row(s).is_some(), Duration::from_secs(120));
    let took = t.elapsed();
    assert!(
        shown,
        "no first row: {}",
        tui.screen.lock().expect("screen")
    );
    tui.quit();
    took
}

fn tui_load_all(bin: &str, base: &str, key: &str, rows: usize, limit: Option<u16>) -> Tui {
    let mut tui = spawn(bin, base, key, limit, &[]);
    let pid = tui.pid;
    assert!(
        // Generous: a profile runs the binary under valgrind.
        tui.wait_for(&|s| footer_row(s).is_some(), Duration::from_secs(300)),
        "no rows on screen: {}",
        tui.screen.lock().expect("screen")
    );
    std::thread::sleep(Duration::from_millis(300));
    let rss_before = rss_kib(pid);
    let done = format!("all {} loaded", convo::text::thousands(rows as u64));
    let cpu_before = cpu_ms(pid);
    let t = Instant::now();
    tui.press(b"L");
    // A `j` every 100 ms while loading; the time until the footer shows the row it moved to.
    let press = std::env::var("LOAD_ALL_KEYS").map_or(true, |v| v != "0");
    let mut keys = Vec::new();
    let mut row = 1;
    loop {
        if tui.wait_for(&|s| s.contains(&done), Duration::from_millis(100)) {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(3600), "L never finished");
        if !press {
            continue;
        }
        let k = Instant::now();
        tui.press(b"j");
        row += 1;
        let moved = tui.wait_for(&|s| footer_row(s) == Some(row), Duration::from_secs(5));
        assert!(
            moved,
            "j was not answered (row {row} expected): {}",
            tui.screen.lock().expect("screen")
        );
        keys.push(k.elapsed());
    }
    let load = t.elapsed();
    let cpu = cpu_ms(pid).saturating_sub(cpu_before);
    std::thread::sleep(Duration::from_millis(200));
    let rss_after = rss_kib(pid);
    // `S`: the summary of every loaded row, until its counts show.
    let summary = std::env::var("LOAD_ALL_SUMMARY")
        .map_or(true, |v| v != "0")
        .then(|| {
            let t = Instant::now();
            tui.press(b"S");
            let shown = tui.wait_for(
                &|s| s.contains("waiting (open, unassigned):"),
                Duration::from_secs(120),
            );
            assert!(
                shown,
                "S showed no counts: {}",
                tui.screen.lock().expect("screen")
            );
            t.elapsed()
        });
    tui.quit();
    // Key answers overlap the walk; the load time includes them (as a user would see it).
    Tui {
        rows,
        load,
        keys,
        rss_before,
        rss_after,
        cpu,
        summary,
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes: Vec<usize> = match std::env::var("LOAD_ALL_ROWS") {
        Ok(v) => v
            .split(',')
            .map(|n| n.trim().parse().expect("rows"))
            .collect(),
        Err(_) if full => vec![10_000, 100_000, 600_000, 1_000_000],
        Err(_) => vec![2_000],
    };
    let bin = std::env::var("CONVO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_convo").into());
    // `L` runs per size and page size (each its own line); LOAD_ALL_LISTS=0 skips the list
    // walks (a profile of the TUI alone).
    let runs: usize = std::env::var("LOAD_ALL_RUNS").map_or(1, |v| v.parse().expect("runs"));
    let lists_on = std::env::var("LOAD_ALL_LISTS").map_or(true, |v| v != "0");
    // LOAD_ALL_LATENCY_MS: the server's own time per answer (a sleep, not CPU): the walk is
    // then paced by the server, as over a network, and a busy machine's noise weighs less.
    let latency = Duration::from_millis(
        std::env::var("LOAD_ALL_LATENCY_MS").map_or(0, |v| v.parse().expect("latency ms")),
    );
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "| rows | page | L in the TUI | convo list --all | ratio | CPU: L / list | j answered (median / max, n) | RSS per row | S after L |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut firsts = Vec::new();
    for rows in sizes {
        let server = rt
            .block_on(DemoServer::start(DemoOptions {
                addr: ([127, 0, 0, 1], 0).into(),
                conversations: rows,
                // As `convo demo-server --visitors 2000`: a page's rows name up to 100
                // visitors the browser looks up (100 visitors made that nearly free).
                visitors: 2_000,
                latency,
                ..DemoOptions::default()
            }))
            .expect("demo server");
        let (base, key) = (server.base_url(), server.api_key());
        for limit in page_limits() {
            let (list, list_cpu) = if lists_on {
                let mut lists: Vec<(Duration, u64)> = (0..3)
                    .map(|_| list_walk(&bin, &base, &key, rows, limit))
                    .collect();
                lists.sort();
                lists[1]
            } else {
                (Duration::ZERO, 0)
            };
            for _ in 0..runs {
                let tui = tui_load_all(&bin, &base, &key, rows, limit);
                let mut keys = tui.keys.clone();
                keys.sort();
                let (kmed, kmax) = (
                    keys.get(keys.len() / 2).copied().unwrap_or_default(),
                    keys.last().copied().unwrap_or_default(),
                );
                let per_row =
                    (tui.rss_after.saturating_sub(tui.rss_before) * 1024) as f64 / tui.rows as f64;
                let page = limit.map_or("50 (default)".to_string(), |n| n.to_string());
                let summary = tui
                    .summary
                    .map_or("–".into(), |d| format!("{:.0} ms", ms(d)));
                println!(
                    "| {rows} | {page} | {:.0} ms | {:.0} ms | {:.2}x | {} / {} ms ({:.2}x) | {:.1} / {:.1} ms, {} | {:.0} B ({} → {} KiB) | {summary} |",
                    ms(tui.load),
                    ms(list),
                    tui.load.as_secs_f64() / list.as_secs_f64(),
                    tui.cpu,
                    list_cpu,
                    tui.cpu as f64 / list_cpu.max(1) as f64,
                    ms(kmed),
                    ms(kmax),
                    keys.len(),
                    per_row,
                    tui.rss_before,
                    tui.rss_after
                );
            }
        }
        // A union query's first screen beside a plain one (median of 3 each).
        let median = |args: &[&str]| {
            let mut t: Vec<Duration> = (0..3)
                .map(|_| first_screen(&bin, &base, &key, args))
                .collect();
            t.sort();
            t[1]
        };
        let plain = median(&[]);
        let union = median(&["--query", "status:open,pending -assignee:none"]);
        firsts.push((rows, union, plain));
        rt.block_on(server.shutdown());
    }
    println!();
    println!(
        "| rows | first screen of `status:open,pending -assignee:none` | without a query | ratio |"
    );
    println!("|---|---|---|---|");
    for (rows, union, plain) in firsts {
        println!(
            "| {rows} | {:.0} ms | {:.0} ms | {:.2}x |",
            ms(union),
            ms(plain),
            union.as_secs_f64() / plain.as_secs_f64()
        );
    }
}
