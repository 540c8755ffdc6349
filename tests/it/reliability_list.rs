//! The fault matrix for `convo list` (issue 4, docs/reliability.md): the real binary against a
//! demo server that errs, lies, stalls or sends hostile text. Each test names one fault and
//! checks what the user gets: the rows (none lost, none doubled), the exit code, the message,
//! and that the number of requests stays bounded.
//!
//! The binary runs with its real retry policy (0.5 s, 1 s, 2 s), so a test that exhausts the
//! retries takes about 3.5 s; tests run in parallel.

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Demo, conversation_ids, convo_cmd, jsonl_ids};
use convo::demo::{DemoOptions, Faults};
use serde_json::Value;

/// A demo server with `latency` before every answer (common::Demo has none).
fn start_slow(conversations: usize, visitors: usize, latency: Duration, faults: Faults) -> Demo {
    Demo::with(DemoOptions {
        seed: 7,
        conversations,
        visitors,
        latency,
        faults,
        anchor: None,
        ..DemoOptions::default()
    })
}

struct Run {
    code: Option<i32>,
    out: String,
    err: String,
}

/// `convo [--config cfg] --base-url URL list ARGS` with the key in the environment.
fn list_at(url: &str, key: &str, cfg: Option<&Path>, args: &[&str]) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = convo_cmd(tmp.path());
    c.env("CONVO_API_KEY", key);
    if let Some(p) = cfg {
        c.arg("--config").arg(p);
    }
    let o = c
        .args(["--base-url", url, "list"])
        .args(args)
        .output()
        .unwrap();
    let r = Run {
        code: o.status.code(),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    // The key of the run never shows, whatever happened (see also tests/security.rs).
    assert!(!r.out.contains(key) && !r.err.contains(key), "key leaked");
    r
}

impl Run {
    /// What it printed, one JSON value a line (`--format jsonl`).
    fn rows(&self) -> Vec<Value> {
        self.out
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect()
    }

    /// Asserts that what it said (stderr) holds `text`.
    fn says(&self, text: &str) {
        assert!(self.err.contains(text), "{}", self.err);
    }
}

/// `convo list conversations --all --format jsonl --limit LIMIT`.
fn walk(d: &Demo, limit: u32) -> Run {
    list(d, &[&ALL_JSONL[..], &[&limit.to_string()]].concat())
}

fn list(d: &Demo, args: &[&str]) -> Run {
    list_at(&d.url(), &d.key(), None, args)
}

/// A config file that only shortens the request timeout (key and URL come from env/flags).
fn short_timeout_config(dir: &Path) -> PathBuf {
    common::file(
        dir,
        "timeout.toml",
        "request_timeout_secs = 1\nconnect_timeout_secs = 1\n",
    )
}

const ALL_JSONL: [&str; 5] = ["conversations", "--all", "--format", "jsonl", "--limit"];

// --- 5xx, 429 ------------------------------------------------------------------------------

#[test]
fn a_5xx_once_is_retried_and_no_row_is_lost_or_doubled() {
    for status in [500u16, 502, 503] {
        let d = Demo::faulty(90, 20, |f| {
            f.fail_first = 1;
            f.fail_status = status;
        });
        let r = walk(&d, 25);
        assert_eq!(r.code, Some(0), "{status}: {}", r.err);
        assert_eq!(jsonl_ids(&r.out), conversation_ids(&d), "{status}");
        assert!(
            r.err.contains(&format!("HTTP {status}")) && r.err.contains("retrying"),
            "{status}: {}",
            r.err
        );
        assert_eq!(d.requests(), 4 + 1, "4 pages and one retry");
    }
}

#[test]
fn a_5xx_forever_is_a_clear_error_after_three_retries() {
    let d = Demo::faulty(30, 10, |f| {
        f.fail_first = 1000;
        f.fail_status = 502;
    });
    let r = list(&d, &ALL_JSONL[..4]);
    assert_eq!(r.code, Some(4), "{}", r.err);
    assert!(r.out.is_empty());
    let last = r.err.lines().last().unwrap();
    assert!(
        last.starts_with("convo: error:")
            && last.contains("HTTP 502")
            && last.contains("4 times in a row"),
        "{}",
        r.err
    );
    assert_eq!(r.err.matches("retrying").count(), 3, "{}", r.err);
    assert_eq!(d.requests(), 4, "no more than 1 + 3 retries");
}

#[test]
fn a_429_with_retry_after_2_waits_then_continues() {
    let d = Demo::faulty(60, 10, common::rate_limited_once("2"));
    let r = walk(&d, 25);
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert_eq!(jsonl_ids(&r.out), conversation_ids(&d));
    assert!(
        r.err.contains("rate limited") && r.err.contains("retrying in 2.0s"),
        "{}",
        r.err
    );
    // The wait itself is asserted on a clock of the test's, in
    // client::rate_limit_waits_retry_after_then_continues (the same client).
    assert_eq!(d.requests(), 3 + 1);
}

// --- stalls and broken connections ---------------------------------------------------------

/// The four stalls and broken connections each wait through the real retry policy (up to
/// 7.5 s): they run side by side so the file stays quick. Each case is a function of its own.
#[test]
fn stalls_and_broken_connections_are_clear_errors_without_a_hang() {
    let cases: [(&str, fn()); 4] = [
        (
            "latency beyond the timeout",
            latency_beyond_the_timeout_is_a_timeout_error,
        ),
        (
            "a server that never answers",
            a_server_that_never_answers_times_out,
        ),
        ("connection refused", connection_refused_is_a_clear_error),
        (
            "reset mid-body",
            a_connection_reset_mid_body_is_retried_then_reported,
        ),
    ];
    let failed: Vec<&str> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|(name, case)| (name, s.spawn(case)))
            .collect();
        handles
            .into_iter()
            .filter_map(|(name, h)| h.join().is_err().then_some(*name))
            .collect()
    });
    assert!(
        failed.is_empty(),
        "failed: {failed:?} (see the panics above)"
    );
}

fn latency_beyond_the_timeout_is_a_timeout_error() {
    let d = start_slow(10, 10, Duration::from_secs(3), Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let cfg = short_timeout_config(tmp.path());
    let r = list_at(&d.url(), &d.key(), Some(&cfg), &["visitors"]);
    assert_eq!(r.code, Some(4), "{}", r.err);
    r.says("no answer within 1s");
    r.says("request_timeout_secs");
    // Each of the 4 attempts gave up at its 1 s timeout (the answer would have come after 3 s).
    assert_eq!(d.requests(), 4);
}

fn a_server_that_never_answers_times_out() {
    let d = Demo::faulty(10, 10, |f| f.hang = true);
    let tmp = tempfile::tempdir().unwrap();
    let cfg = short_timeout_config(tmp.path());
    let r = list_at(&d.url(), &d.key(), Some(&cfg), &["conversations"]);
    assert_eq!(r.code, Some(4), "{}", r.err);
    r.says("no answer within 1s");
    assert_eq!(d.requests(), 4);
}

fn connection_refused_is_a_clear_error() {
    // A port that was just free: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let r = list_at(&url, "sk_demo_0123456789abcdef", None, &["visitors"]);
    assert_eq!(r.code, Some(4), "{}", r.err);
    assert!(
        r.err
            .contains(&format!("cannot connect to 127.0.0.1:{port}"))
            && r.err.contains("is the base URL right"),
        "{}",
        r.err
    );
    // Retried as the policy says, then given up: no more attempts, no hang.
    assert!(r.err.contains("after 4 attempts"), "{}", r.err);
}

fn a_connection_reset_mid_body_is_retried_then_reported() {
    let d = Demo::faulty(30, 10, |f| f.reset_mid_body = true);
    let r = list(&d, &ALL_JSONL[..4]);
    assert_eq!(r.code, Some(4), "{}", r.err);
    assert!(r.out.is_empty(), "half a page is never printed: {}", r.out);
    r.says("connection failed");
    assert_eq!(d.requests(), 4);
}

// --- bad data ------------------------------------------------------------------------------

/// A walk (`--all --format jsonl`) under one fault: the exit code, the rows it printed (the
/// first `rows` of the demo's, in order), what it said and how many requests it made.
struct WalkFault {
    name: &'static str,
    conversations: usize,
    fault: fn(&mut Faults),
    limit: u32,
    code: i32,
    rows: usize,
    says: &'static [&'static str],
    requests: u64,
    why: &'static str,
}

/// Faults a walk survives (exit 0, every row) or stops at with exit 5 and every row it got, so
/// a script can tell an incomplete list from a complete one.
#[test]
fn walks_under_a_fault_keep_every_row_they_got() {
    #[rustfmt::skip]
    let cases = [
        WalkFault { name: "a 503 every third request mid-walk loses nothing",
            conversations: 100, fault: |f| f.fail_every = 3, limit: 20, code: 0, rows: 100, says: &[],
            requests: 7, why: "5 pages; requests 3, 6 fail and are retried (the empty last page is not asked for)" },
        WalkFault { name: "malformed JSON on a later page keeps the printed rows",
            conversations: 60, fault: |f| f.malformed_page = Some(2), limit: 20, code: 5, rows: 20,
            says: &["not valid JSON"], requests: 2, why: "bad data is not retried" },
        WalkFault { name: "pages larger than the limit are kept with a warning",
            conversations: 60, fault: |f| f.oversize_page = true, limit: 10, code: 0, rows: 60,
            says: &["pages larger than the requested limit"], requests: 4, why: "15 + 15 + 15 + 15" },
        WalkFault { name: "has_more with a null cursor ends the list with a warning and exit 5",
            conversations: 60, fault: |f| f.null_cursor_with_more = true, limit: 20, code: 5, rows: 20,
            says: &["the list is incomplete", "gave no cursor: list ends here"], requests: 1, why: "one page" },
        WalkFault { name: "a cursor loop stops the walk with a warning and exit 5",
            conversations: 100, fault: |f| f.cursor_loop = true, limit: 20, code: 5, rows: 40,
            says: &["the list is incomplete", "repeated a cursor"], requests: 2,
            why: "the repeated cursor is never asked for" },
        WalkFault { name: "duplicate ids across pages are dropped and counted",
            conversations: 50, fault: |f| f.duplicate_ids = true, limit: 10, code: 0, rows: 50,
            says: &["12 duplicate rows dropped"], requests: 5, why: "5 pages" },
    ];
    for c in cases {
        let d = Demo::faulty(c.conversations, 10, c.fault);
        let r = walk(&d, c.limit);
        assert_eq!(r.code, Some(c.code), "{}: {}", c.name, r.err);
        assert_eq!(
            jsonl_ids(&r.out),
            conversation_ids(&d)[..c.rows],
            "{}",
            c.name
        );
        for text in c.says {
            assert!(r.err.contains(text), "{}: no {text:?} in {}", c.name, r.err);
        }
        assert_eq!(d.requests(), c.requests, "{}: {}", c.name, c.why);
    }
}

#[test]
fn valid_json_of_the_wrong_shape_is_bad_data() {
    let d = Demo::faulty(10, 10, |f| f.wrong_shape = true);
    let r = list(&d, &["visitors", "--format", "csv"]);
    assert_eq!(r.code, Some(5), "{}", r.err);
    r.says("not a list page");
    assert_eq!(r.out.lines().count(), 1, "the header only: {}", r.out);
    assert_eq!(d.requests(), 1);
}

#[test]
fn a_bad_row_on_every_page_keeps_every_good_row_of_the_walk() {
    let d = Demo::faulty(50, 10, |f| f.bad_row = true);
    let r = walk(&d, 20);
    assert_eq!(r.code, Some(5), "{}", r.err);
    assert_eq!(jsonl_ids(&r.out), conversation_ids(&d));
    let warnings: Vec<&str> = r
        .err
        .lines()
        .filter(|l| l.contains("could not be read") && l.contains("not-a-uuid"))
        .collect();
    assert_eq!(warnings.len(), 3, "one per page: {}", r.err);
    assert!(
        r.err
            .contains("3 rows sent by the service could not be read")
    );
}

/// Invalid UTF-8 or a raw control character inside one row's string made the whole body "not
/// valid JSON" and lost the page: now the row alone is reported, by id, and every good row of
/// every page is written.
#[test]
fn a_row_with_bytes_json_refuses_loses_only_itself() {
    for (kind, why) in [
        (convo::demo::BadBytes::Utf8, "not valid UTF-8"),
        (convo::demo::BadBytes::Control, "control character"),
    ] {
        let d = Demo::faulty(50, 10, |f| f.bad_bytes_row = Some(kind));
        let r = walk(&d, 20);
        assert_eq!(r.code, Some(5), "{kind:?}: {}", r.err);
        assert_eq!(jsonl_ids(&r.out), conversation_ids(&d), "{kind:?}");
        let warnings = r
            .err
            .lines()
            .filter(|l| {
                l.contains("could not be read")
                    && l.contains("00000000-0000-4000-8000-0000000000b")
                    && l.contains(why)
            })
            .count();
        assert_eq!(warnings, 3, "{kind:?}, one per page: {}", r.err);
        assert!(!r.err.contains("not valid JSON"), "{kind:?}: {}", r.err);
    }
}

#[test]
fn a_2mb_attribute_is_kept_in_jsonl_and_cut_in_the_table() {
    let d = Demo::faulty(0, 5, |f| f.big_attribute = true);
    let r = list(&d, &["visitors", "--format", "jsonl"]);
    assert_eq!(r.code, Some(0), "{}", r.err);
    let first: Value = serde_json::from_str(r.out.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["attributes"]["blob"].as_str().map(str::len),
        Some(2 * 1024 * 1024)
    );
    let r = list(&d, &["visitors"]);
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert_eq!(r.out.lines().count(), 6);
    let widest = r.out.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest < 1000, "a table line of {widest} characters");
}

#[test]
fn unknown_statuses_are_shown_verbatim() {
    let d = Demo::faulty(40, 10, |f| f.unknown_status = true);
    let snoozed = d
        .s()
        .data()
        .conversations
        .iter()
        .filter(|c| c.status == "snoozed")
        .count();
    assert!(snoozed > 0);
    let r = walk(&d, 100);
    assert_eq!(r.code, Some(0), "{}", r.err);
    let rows = r.rows();
    assert_eq!(rows.len(), 40, "no row dropped for its status");
    assert_eq!(
        rows.iter().filter(|r| r["status"] == "snoozed").count(),
        snoozed
    );
    let r = list(&d, &["conversations", "--limit", "100"]);
    assert_eq!(r.out.matches("snoozed").count(), snoozed, "{}", r.out);
}

#[test]
fn null_and_missing_visitor_fields_keep_the_row() {
    let d = Demo::start(0, 120, Faults::default());
    let data = &d.s().data().visitors;
    let wire: Vec<Value> = data
        .iter()
        .map(|v| serde_json::to_value(v).unwrap())
        .collect();
    let missing = wire.iter().filter(|v| v.get("email").is_none()).count();
    let null = wire
        .iter()
        .filter(|v| v.get("email") == Some(&Value::Null))
        .count();
    assert!(missing > 0 && null > 0, "the demo data has both forms");
    let r = list(&d, &["visitors", "--all", "--format", "jsonl"]);
    assert_eq!(r.code, Some(0), "{}", r.err);
    let rows = r.rows();
    assert_eq!(rows.len(), 120);
    assert_eq!(
        rows.iter().filter(|v| v["email"].is_null()).count(),
        missing + null
    );
    let r = list(&d, &["visitors", "--all"]);
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert_eq!(r.out.lines().count(), 121);
}

// --- hostile text --------------------------------------------------------------------------

fn hostile_demo() -> Demo {
    Demo::faulty(0, 24, |f| f.hostile = true)
}

/// The hostile visitors as the server sends them.
fn hostile_names(d: &Demo) -> Vec<Option<String>> {
    d.s()
        .data()
        .visitors
        .iter()
        .map(|v| v.name.clone())
        .collect()
}

/// Characters that must not reach a terminal: C0 (but `\n`), DEL, C1, bidi controls.
fn terminal_unsafe(c: char) -> bool {
    let cp = c as u32;
    (cp < 0x20 && c != '\n')
        || (0x7f..=0x9f).contains(&cp)
        || matches!(cp, 0x061c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069)
}

#[test]
fn hostile_text_jsonl_is_escaped_and_lossless() {
    let d = hostile_demo();
    let r = list(&d, &["visitors", "--all", "--format", "jsonl"]);
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(!r.out.chars().any(terminal_unsafe), "raw control in jsonl");
    assert!(r.out.contains("\\u001b"), "ESC escaped as \\u001b");
    let names: Vec<Option<String>> = r
        .out
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["name"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(
        names,
        hostile_names(&d),
        "escaping must not change the data"
    );
    assert!(!r.err.chars().any(terminal_unsafe), "{:?}", r.err);
}

#[test]
fn hostile_text_csv_is_safe_to_cat_and_exact_with_csv_raw() {
    // CSV, even to a pipe, shows terminal controls as visible stand-ins so that `cat` of the
    // file cannot replay them; `--csv-raw` keeps the bytes for a pipeline (documented).
    let d = hostile_demo();
    let r = list(&d, &["visitors", "--all", "--format", "csv"]);
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(!r.out.contains('\u{1b}'), "no raw ESC in CSV by default");
    assert!(r.out.contains('␛'), "ESC shown as a stand-in");
    let raw = list(&d, &["visitors", "--all", "--format", "csv", "--csv-raw"]);
    assert_eq!(raw.code, Some(0), "{}", raw.err);
    assert!(
        raw.out.contains('\u{1b}'),
        "--csv-raw gets the data as it is"
    );
}

/// Runs the binary in a pseudo-terminal and returns everything it wrote to the terminal.
fn list_in_pty(d: &Demo, args: &[&str]) -> (Vec<u8>, u32) {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let tmp = tempfile::tempdir().unwrap();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_convo"));
    cmd.env_clear();
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.env("HOME", tmp.path());
    cmd.env("TERM", "xterm-256color");
    cmd.env("CONVO_CONFIG", tmp.path().join("none.toml"));
    cmd.env("CONVO_LOG_FILE", tmp.path().join("convo.log"));
    cmd.env("CONVO_API_KEY", d.key());
    cmd.args(["--base-url", &d.url(), "list"]);
    cmd.args(args);
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let t = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 8192];
        // The read error at child exit is the end of output.
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        out
    });
    let status = child.wait().unwrap();
    drop(pair.master);
    (t.join().unwrap(), status.exit_code())
}

/// The terminal bytes hold no escape sequence but the program's own `ESC [K` (progress line),
/// no C1 control, no bidi control, no raw C0 but CR/LF.
fn assert_terminal_safe(bytes: &[u8]) {
    let mut i = 0;
    while let Some(p) = bytes[i..].iter().position(|&b| b == 0x1b) {
        let at = i + p;
        assert!(
            bytes[at..].starts_with(b"\x1b[K"),
            "a data byte escaped as a control sequence at {at}: {:?}",
            String::from_utf8_lossy(&bytes[at..(at + 16).min(bytes.len())])
        );
        i = at + 3;
    }
    let s = String::from_utf8(bytes.to_vec()).expect("the terminal gets UTF-8");
    for c in s.chars() {
        assert!(
            !terminal_unsafe(c) || matches!(c, '\r' | '\u{1b}'),
            "U+{:04X} reached the terminal",
            c as u32
        );
    }
}

#[test]
fn hostile_text_never_reaches_a_terminal_raw_in_any_format() {
    let d = hostile_demo();
    for format in ["table", "csv", "jsonl", "json"] {
        let (bytes, code) = list_in_pty(&d, &["visitors", "--all", "--format", format]);
        assert_eq!(code, 0, "{format}: {}", String::from_utf8_lossy(&bytes));
        assert_terminal_safe(&bytes);
        let s = String::from_utf8_lossy(&bytes);
        match format {
            "table" | "csv" => assert!(s.contains('␛'), "{format}: ESC shown as a stand-in"),
            _ => assert!(s.contains("\\u001b"), "{format}: ESC escaped"),
        }
        // The 5,000-character name is cut in the table, kept whole elsewhere.
        let long = s.contains(&"x".repeat(5000));
        assert_eq!(long, format != "table", "{format}");
    }
}

#[test]
fn the_terminal_check_itself_catches_raw_sequences() {
    // The assertion above must be able to fail.
    for bad in [
        &b"a\x1b[2Jb"[..],
        b"\x1b]0;title\x07",
        "x\u{9b}31m".as_bytes(),
        "\u{202e}abc".as_bytes(),
        b"a\x08b",
    ] {
        let r = std::panic::catch_unwind(|| assert_terminal_safe(bad));
        assert!(r.is_err(), "{:?} passed", String::from_utf8_lossy(bad));
    }
    assert_terminal_safe(b"\x1b[K12 rows\r\n");
}
