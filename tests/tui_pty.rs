//! End to end: the real binary in a pseudo-terminal against a demo server on a random
//! loopback port; the screen is read with `vt100`.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

use convo::demo::{DemoOptions, DemoServer};

const ROWS: u16 = 30;
const COLS: u16 = 120;

struct Screen {
    parser: vt100::Parser,
    raw: Vec<u8>,
    eof: bool,
}

struct Session {
    screen: Arc<Mutex<Screen>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// Kept open for the whole session: dropping it hangs up the child.
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Session {
    fn contents(&self) -> String {
        self.screen
            .lock()
            .map(|s| s.parser.screen().contents())
            .unwrap_or_default()
    }

    /// Polls the screen every 50 ms until it contains `want` (at most 20 s).
    fn wait_for(&mut self, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let s = self.contents();
            if s.contains(want) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "never saw {want:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).expect("write keys");
        self.writer.flush().expect("flush keys");
    }

    /// Sends `keys` every 300 ms until the screen contains `want` (at most 20 s).
    fn press_until(&mut self, keys: &str, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            self.send(keys);
            let step = Instant::now() + Duration::from_millis(300);
            while Instant::now() < step {
                let s = self.contents();
                if s.contains(want) {
                    return s;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            assert!(
                Instant::now() < deadline,
                "never saw {want:?}; screen:\n{}",
                self.contents()
            );
        }
    }
}

fn spawn(base_url: &str, key: &str, tmp: &std::path::Path) -> Session {
    let pty = native_pty_system();
    let pair = pty
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_convo"));
    cmd.env_clear();
    cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", tmp);
    cmd.env("XDG_CONFIG_HOME", tmp.join("config"));
    cmd.env("XDG_DATA_HOME", tmp.join("data"));
    cmd.env("CONVO_LOG_FILE", tmp.join("convo.log"));
    cmd.env("CONVO_API_KEY", key);
    cmd.arg("--config");
    cmd.arg("/nonexistent-dir/none.toml");
    cmd.arg("--base-url");
    cmd.arg(base_url);
    cmd.cwd(tmp);
    let child = pair.slave.spawn_command(cmd).expect("spawn convo");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let writer = pair.master.take_writer().expect("writer");
    let rows = NonZeroU16::new(ROWS).expect("rows");
    let cols = NonZeroU16::new(COLS).expect("cols");
    let screen = Arc::new(Mutex::new(Screen {
        parser: vt100::Parser::new(rows, cols, 0),
        raw: Vec::new(),
        eof: false,
    }));
    let feed = screen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            // A read error once the child has exited is the end of output.
            let n = reader.read(&mut buf).unwrap_or(0);
            let Ok(mut s) = feed.lock() else { break };
            if n == 0 {
                s.eof = true;
                break;
            }
            s.parser.process(&buf[..n]);
            s.raw.extend_from_slice(&buf[..n]);
        }
    });
    Session {
        screen,
        writer,
        child,
        _master: pair.master,
    }
}

#[test]
fn the_binary_browses_the_demo_server_in_a_terminal() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            seed: 11,
            conversations: 230,
            visitors: 60,
            ..DemoOptions::default()
        }))
        .expect("demo server");
    let open = server
        .data()
        .conversations
        .iter()
        .filter(|c| c.status == "open")
        .count();
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());

    // first rows appear
    let screen = s.wait_for("loaded · more available");
    assert!(screen.contains("STATUS"), "{screen}");
    assert!(!screen.contains(&server.api_key()), "the key never shows");

    // End, again and again, loads every page
    s.press_until("G", "all 230 loaded");

    // a status filter applies
    s.send("s");
    s.wait_for("status: open");
    let screen = s.press_until("G", &format!("all {open} loaded"));
    for line in screen.lines().skip(3).take(10) {
        let status = line.trim_start_matches('>').split_whitespace().next();
        assert!(
            matches!(status, Some("open") | None) || line.contains("loaded"),
            "a non-open row under status: open: {line:?}"
        );
    }

    // S: the summary of what is loaded, its waiting count from the server's own data
    let waiting = server
        .data()
        .conversations
        .iter()
        .filter(|c| c.status == "open" && c.assignee_id.is_none())
        .count();
    s.send("S");
    let screen = s.wait_for("Summary of loaded conversations");
    assert!(screen.contains(&format!("all {open} loaded")), "{screen}");
    assert!(
        screen.contains(&format!("waiting (open, unassigned): {waiting}"))
            || screen.contains(&format!("waiting {waiting}")),
        "{screen}"
    );
    s.send("\u{1b}");
    // Wait until the pane is gone: a key sent right behind Esc can reach the terminal in the
    // same read and be taken as Alt-key (and "/ filter" shows under the pane too).
    let deadline = Instant::now() + Duration::from_secs(20);
    while s.contents().contains("Summary of loaded conversations") {
        assert!(Instant::now() < deadline, "Esc did not close the summary");
        std::thread::sleep(Duration::from_millis(50));
    }
    s.wait_for("/ filter");

    // the Visitors tab loads
    s.send("2");
    let screen = s.wait_for("all 60 loaded");
    assert!(screen.contains("EMAIL"), "{screen}");

    // q quits and restores the terminal
    s.send("q");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(st) = s.child.try_wait().expect("try_wait") {
            break st;
        }
        assert!(Instant::now() < deadline, "convo did not quit on q");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "exit status {status:?}");
    // wait for the reader to drain the output
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if s.screen.lock().map(|x| x.eof).unwrap_or(true) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let raw = s.screen.lock().map(|x| x.raw.clone()).unwrap_or_default();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.contains("\u{1b}[?1049h"), "alternate screen entered");
    assert!(text.contains("\u{1b}[?1049l"), "alternate screen left");
    assert!(text.contains("\u{1b}[?25h"), "cursor shown again");
    rt.block_on(server.shutdown());
}

#[test]
fn visitor_names_replace_ids_within_seconds_and_stay_for_the_next_start() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            seed: 5,
            conversations: 40,
            visitors: 250,
            ..DemoOptions::default()
        }))
        .expect("demo server");
    // Among the first screen's conversations, a visitor with a plain ASCII name, and what
    // the VISITOR column must show for them (cut to its 8 cells).
    let data = server.data();
    let shown: String = data
        .conversations
        .iter()
        .take(15)
        .filter_map(|c| data.visitors.iter().find(|v| v.id == c.visitor_id))
        .filter_map(|v| {
            convo::store::visitors::display_name(
                v.name.as_deref(),
                v.email.as_deref(),
                v.external_id.as_deref(),
            )
        })
        .find(|n| n.chars().all(|c| c.is_ascii_graphic() || c == ' ') && n.len() >= 4)
        .map(|s| convo::text::fit(s, 8).trim_end_matches('…').to_string())
        .expect("a visitor with an ASCII name on the first screen");
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());
    // The background sync walks 3 pages at 2 requests/s: names within seconds.
    let screen = s.wait_for(&shown);
    assert!(screen.contains("STATUS"), "{screen}");
    s.send("q");
    drop(s);
    // The next start shows them from the store (the last walk is minutes old: no new one).
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());
    let screen = s.wait_for(&shown);
    assert!(screen.contains("STATUS"), "{screen}");
    s.send("q");
}

#[test]
fn since_you_last_looked_marks_what_changed_between_two_runs() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // Every first-page request after the first: 3 new conversations on top, 2 reassigned.
    let faults = convo::demo::Faults {
        churn: convo::demo::Churn {
            new_per_head: 3,
            reassign_per_head: 2,
            ..Default::default()
        },
        ..Default::default()
    };
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            seed: 9,
            conversations: 60,
            visitors: 20,
            faults,
            ..DemoOptions::default()
        }))
        .expect("demo server");
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());
    // Rows on screen (not just a status line): then quit keeps them.
    s.wait_for("all 60 loaded");
    s.send("q");
    drop(s);
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());
    let screen = s.wait_for("3 new, 2 changed since");
    assert!(screen.contains("STATUS"), "{screen}");
    s.send("q");
}

/// A view left for another keeps its look too (not only at quit): run 1 leaves the unfiltered
/// view for `u` and quits there; run 2 starts unfiltered and is compared with what run 1 had
/// before it switched.
#[test]
fn a_view_left_for_another_keeps_its_look_for_the_next_start() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let faults = convo::demo::Faults {
        churn: convo::demo::Churn {
            new_per_head: 3,
            reassign_per_head: 2,
            ..Default::default()
        },
        ..Default::default()
    };
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            seed: 9,
            conversations: 60,
            visitors: 20,
            faults,
            ..DemoOptions::default()
        }))
        .expect("demo server");
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());
    s.wait_for("all 60 loaded");
    s.send("u");
    s.wait_for("unassigned ");
    s.wait_for(" loaded");
    s.send("q");
    drop(s);
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());
    let screen = s.wait_for(" changed since");
    assert!(screen.contains(" new, "), "{screen}");
    assert!(
        !screen.contains("unassigned  x clears"),
        "run 2 starts unfiltered: {screen}"
    );
    s.send("q");
}

/// The row marked as selected (`>` at the start of a table line), by its line on screen.
fn selected_line(screen: &str) -> Option<usize> {
    screen.lines().position(|l| l.starts_with('>'))
}

#[test]
fn keys_are_answered_while_l_loads_everything() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // 30,000 rows, 5 ms a page: `L` takes seconds, so the keys below land while it loads.
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            seed: 12,
            conversations: 30_000,
            visitors: 50,
            latency: Duration::from_millis(5),
            ..DemoOptions::default()
        }))
        .expect("demo server");
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());
    s.wait_for("loaded · more available");
    s.send("L");
    let screen = s.wait_for("loading all…");
    let mut at =
        selected_line(&screen).unwrap_or_else(|| panic!("a selected row; screen:\n{screen}"));
    for _ in 0..3 {
        s.send("j");
        let deadline = Instant::now() + Duration::from_secs(20);
        let screen = loop {
            let screen = s.contents();
            if selected_line(&screen).is_some_and(|l| l > at) {
                break screen;
            }
            assert!(
                Instant::now() < deadline,
                "j was not answered; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(5));
        };
        // Answered while the walk goes on, not queued behind it.
        assert!(
            screen.contains("loading all…"),
            "the key was answered only after loading ended:\n{screen}"
        );
        at = selected_line(&screen).expect("a selected row");
    }
    s.wait_for("all 30000 loaded");
    s.send("q");
    rt.block_on(server.shutdown());
}

/// The trend end to end: the walk's end is sampled into the real local store (under HOME), and
/// `S` reads the last 24 hours back and draws them.
#[test]
fn the_summary_pane_draws_the_trend_from_the_local_store() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let server = rt
        .block_on(DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            seed: 13,
            conversations: 30,
            visitors: 10,
            ..DemoOptions::default()
        }))
        .expect("demo server");
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server.base_url(), &server.api_key(), tmp.path());
    s.wait_for("all 30 loaded");
    let waiting = server
        .data()
        .conversations
        .iter()
        .filter(|c| c.status == "open" && c.assignee_id.is_none())
        .count();
    s.send("S");
    // One sample so far (the walk's end): its window label is "24 h" or its age.
    let screen = s.wait_for(&format!("min {waiting} max {waiting}"));
    assert!(screen.contains(" waiting "), "{screen}");
    s.send("q");
    rt.block_on(server.shutdown());
}
