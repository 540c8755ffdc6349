//! The TUI rows of the fault matrix (issue 4, docs/reliability.md) at `update` level, the
//! hostile-text check on the bytes a real `CrosstermBackend` writes, and end-to-end runs of the
//! binary in a pseudo-terminal (a stalled service, a panic).
//!
//! tests/tui_update.rs already covers the retry countdown, an error keeping the rows and `r`
//! retrying, and scrolling retrying after an error; this file adds the rest of the matrix.

use std::io::Write;
use std::time::Duration;

use convo::api::{ApiError, BadRow, Conversation, Page, Resource, RetryNotice, Status, Visitor};
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::{Loaded, Msg};
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;
use crossterm::event::KeyCode;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use crate::common;

const W: u16 = 120;
const H: u16 = 30;

/// Feeds `msg`, then answers every fetch with `answer(n, cmd)` (n counts fetches from 0)
/// until nothing is asked; returns how many fetches were answered.
fn settle_with(
    app: &mut App,
    msg: Msg,
    fetches: &mut usize,
    answer: &mut dyn FnMut(usize, &Command) -> Option<Msg>,
) {
    let mut queue = vec![msg];
    while let Some(m) = queue.pop() {
        for c in update(app, m) {
            if matches!(c, Command::Fetch { .. }) {
                let n = *fetches;
                *fetches += 1;
                assert!(*fetches < 500, "the TUI keeps asking: no bound on requests");
                if let Some(a) = answer(n, &c) {
                    queue.push(a);
                }
            }
        }
    }
}

/// The answer to a conversations fetch with `page`; other fetches get an empty last page.
fn conversations_answer(c: &Command, page: Page<Conversation>) -> Msg {
    let Command::Fetch {
        tab, generation, ..
    } = c
    else {
        unreachable!()
    };
    let result = match tab {
        Resource::Conversations => Ok(Loaded::Conversations(page)),
        Resource::Visitors => Ok(Loaded::Visitors(Page {
            items: Vec::new(),
            has_more: false,
            next_cursor: None,
            bad_rows: Vec::new(),
        })),
    };
    Msg::PageLoaded {
        tab: *tab,
        generation: *generation,
        result,
    }
}

fn conversations(range: std::ops::Range<usize>) -> Vec<Conversation> {
    range.map(testing::conversation).collect()
}

fn page(items: Vec<Conversation>, has_more: bool, cursor: Option<&str>) -> Page<Conversation> {
    Page {
        items,
        has_more,
        next_cursor: cursor.map(str::to_string),
        bad_rows: Vec::new(),
    }
}

/// Answers every conversations fetch with `page`.
fn every_page(page: Page<Conversation>) -> impl FnMut(usize, &Command) -> Option<Msg> {
    move |_n, c| Some(conversations_answer(c, page.clone()))
}

/// A 12-row app with pages of 20, started (its first fetches answered by `answer`); the app
/// and how many fetches were answered.
fn started(answer: &mut dyn FnMut(usize, &Command) -> Option<Msg>) -> (App, usize) {
    let mut app = testing::app(W, 12, 20);
    let mut fetches = 0;
    settle_with(&mut app, Msg::Resize(W, 12), &mut fetches, answer);
    (app, fetches)
}

/// Presses End (G) `n` times, answering fetches as `answer` says.
fn press_end(
    app: &mut App,
    n: usize,
    fetches: &mut usize,
    answer: &mut dyn FnMut(usize, &Command) -> Option<Msg>,
) {
    for _ in 0..n {
        settle_with(app, key(KeyCode::End), fetches, answer);
    }
}

fn conversation_ids(app: &App) -> Vec<uuid::Uuid> {
    app.conversations
        .walk()
        .rows()
        .iter()
        .map(|c| c.id)
        .collect()
}

// --- update level --------------------------------------------------------------------------

#[test]
fn a_5xx_once_then_success_leaves_no_error_on_screen() {
    let server = FakeServer::new(60, 5);
    let mut app = testing::app(W, H, 20);
    let cmds = update(&mut app, Msg::Resize(W, H));
    let fetch = cmds
        .iter()
        .find(|c| {
            matches!(
                c,
                Command::Fetch {
                    tab: Resource::Conversations,
                    ..
                }
            )
        })
        .expect("the first page is asked for");
    let Command::Fetch { generation, .. } = fetch else {
        unreachable!()
    };
    // The client says it retries after a 503 …
    update(
        &mut app,
        Msg::Retrying {
            tab: Resource::Conversations,
            generation: *generation,
            cursor: None,
            notice: RetryNotice {
                attempt: 1,
                wait: Duration::from_millis(500),
                reason: "HTTP 503".into(),
                rate_limited: false,
                budget: false,
            },
        },
    );
    let screen = testing::render(&app);
    assert!(
        screen.contains("HTTP 503") && screen.contains("retry"),
        "{screen}"
    );
    // … and the retry succeeds.
    let answer = server.answer(fetch).unwrap();
    update(&mut app, answer);
    let screen = testing::render(&app);
    assert!(app.conversations.retry().is_none() && app.conversations.error().is_none());
    assert!(
        !screen.contains("HTTP 503") && !screen.contains("retry"),
        "{screen}"
    );
    assert!(!screen.contains("error"), "{screen}");
    assert_eq!(conversation_ids(&app), conversation_ids_of(&server, 0..20));
}

fn conversation_ids_of(server: &FakeServer, r: std::ops::Range<usize>) -> Vec<uuid::Uuid> {
    server.conversations[r].iter().map(|c| c.id).collect()
}

#[test]
fn an_error_mid_walk_keeps_every_loaded_row_and_a_later_retry_completes_the_walk() {
    let server = FakeServer::new(60, 5);
    let fail = std::cell::Cell::new(true);
    // Page 2 fails (after the client's retries) while `fail` is set; the rest answers.
    let mut answer = |_n: usize, c: &Command| {
        if let Command::Fetch {
            tab: Resource::Conversations,
            generation,
            cursor: Some(_),
            ..
        } = c
            && fail.get()
        {
            return Some(Msg::PageLoaded {
                tab: Resource::Conversations,
                generation: *generation,
                result: Err(ApiError::Server {
                    status: 500,
                    detail: ": server_error".into(),
                    attempts: 4,
                }),
            });
        }
        server.answer(c)
    };
    let (mut app, mut fetches) = started(&mut answer);
    press_end(&mut app, 3, &mut fetches, &mut answer);
    assert_eq!(conversation_ids(&app).len(), 20, "the first page stays");
    let screen = testing::render(&app);
    assert!(
        screen.contains("HTTP 500") && screen.contains("loaded rows stay"),
        "{screen}"
    );
    let after_error = fetches;
    // The service is back: a later retry continues from where the walk stopped.
    fail.set(false);
    settle_with(&mut app, ch('r'), &mut fetches, &mut answer);
    press_end(&mut app, 5, &mut fetches, &mut answer);
    assert!(fetches > after_error);
    assert_eq!(conversation_ids(&app), conversation_ids_of(&server, 0..60));
    assert!(!testing::render(&app).contains("HTTP 500"));
}

#[test]
fn has_more_with_a_null_cursor_ends_the_walk_with_a_footer_warning() {
    let mut answer = every_page(page(conversations(0..20), true, None));
    let (mut app, mut fetches) = started(&mut answer);
    press_end(&mut app, 10, &mut fetches, &mut answer);
    assert_eq!(fetches, 2, "one page of each tab, nothing more");
    let screen = testing::render(&app);
    assert!(screen.contains("gave no cursor"), "{screen}");
    assert!(screen.contains("all 20 loaded"), "{screen}");
}

#[test]
fn a_cursor_loop_stops_the_walk_with_a_footer_warning() {
    let mut answer = |n: usize, c: &Command| {
        // Every page hands back the same cursor, with new rows so nothing else stops it.
        let start = n * 20;
        Some(conversations_answer(
            c,
            page(conversations(start..start + 20), true, Some("same")),
        ))
    };
    let (mut app, mut fetches) = started(&mut answer);
    press_end(&mut app, 20, &mut fetches, &mut answer);
    assert!(fetches <= 4, "{fetches} fetches for a looping cursor");
    let screen = testing::render(&app);
    assert!(screen.contains("repeated a cursor"), "{screen}");
}

#[test]
fn duplicate_ids_across_pages_are_dropped_and_counted_in_the_footer() {
    let mut answer = |_n: usize, c: &Command| {
        let Command::Fetch { cursor, .. } = c else {
            unreachable!()
        };
        // Page k (cursor "k") repeats the last 5 rows of page k-1.
        let k: usize = cursor.as_deref().map_or(0, |c| c.parse().unwrap());
        let start = (k * 20).saturating_sub(if k > 0 { 5 } else { 0 });
        let more = k < 2;
        let next = (k + 1).to_string();
        Some(conversations_answer(
            c,
            page(
                conversations(start..(k + 1) * 20),
                more,
                more.then_some(next.as_str()),
            ),
        ))
    };
    let (mut app, mut fetches) = started(&mut answer);
    press_end(&mut app, 10, &mut fetches, &mut answer);
    let ids = conversation_ids(&app);
    assert_eq!(
        ids,
        conversations(0..60)
            .iter()
            .map(|c| c.id)
            .collect::<Vec<_>>()
    );
    let screen = testing::render(&app);
    assert!(screen.contains("10 duplicate rows dropped"), "{screen}");
}

#[test]
fn a_bad_row_among_good_ones_is_reported_and_the_good_rows_are_shown() {
    let mut answer = |_n: usize, c: &Command| {
        let mut p = page(conversations(0..19), false, None);
        p.bad_rows.push(BadRow {
            index: 7,
            id: Some("not-a-uuid".into()),
            reason: "invalid type".into(),
        });
        Some(conversations_answer(c, p))
    };
    let (app, _) = started(&mut answer);
    assert_eq!(conversation_ids(&app).len(), 19);
    let screen = testing::render(&app);
    assert!(screen.contains("1 unreadable rows skipped"), "{screen}");
}

#[test]
fn unknown_statuses_are_shown_verbatim() {
    let mut answer = |_n: usize, c: &Command| {
        let mut rows = conversations(0..5);
        rows[0].status = Status::from_wire("snoozed");
        Some(conversations_answer(c, page(rows, false, None)))
    };
    let (app, _) = started(&mut answer);
    assert!(testing::render(&app).contains("snoozed"));
}

// --- hostile text on the wire to the terminal ----------------------------------------------

const HOSTILE: [&str; 10] = [
    "\u{1b}[2J\u{1b}[H",
    "\u{1b}]0;pwned title\u{7}",
    "\u{1b}[31mred\u{1b}[0m",
    "\u{9b}31m C1 CSI \u{9d}0;osc\u{9c}",
    "carriage\rreturn",
    "back\u{8}\u{8}space",
    "\u{202e}evil override\u{202c} \u{2067}isolate\u{2069}",
    "zero\u{200b}width\u{200d}joiner\u{feff}",
    "\u{1b}P+q\u{1b}\\ DCS",
    "\u{7f}del\u{0}nul",
];

fn hostile_visitor(i: usize) -> Visitor {
    let h = HOSTILE[i % HOSTILE.len()];
    let mut v = testing::visitor(i);
    v.name = Some(if i == 3 {
        format!("{h}{}", "W".repeat(5000))
    } else {
        format!("{h} name")
    });
    v.email = Some(format!("{h}@example.com"));
    v.external_id = Some(format!("ext-{h}"));
    let mut attrs = serde_json::Map::new();
    attrs.insert(h.to_string(), h.into());
    attrs.insert("nested".into(), serde_json::json!([h, {"k": h}]));
    v.attributes = serde_json::Value::Object(attrs);
    v
}

fn hostile_conversation(i: usize) -> Conversation {
    let mut c = testing::conversation(i);
    c.status = Status::from_wire(HOSTILE[i % HOSTILE.len()]);
    c
}

/// An app with hostile rows on both tabs, a hostile bad row and a hostile error message.
fn hostile_app() -> App {
    let server = FakeServer {
        conversations: (0..20).map(hostile_conversation).collect(),
        visitors: (0..20).map(hostile_visitor).collect(),
    };
    let mut app = testing::app(W, H, 50);
    server.settle(&mut app, Msg::Resize(W, H));
    assert_eq!(app.visitors.walk().rows().len(), 20);
    app
}

/// Draws `app` through a real crossterm backend writing into a Vec: the bytes a terminal
/// would receive.
fn terminal_bytes(app: &App) -> Vec<u8> {
    let sink = Shared::default();
    let backend = CrosstermBackend::new(sink.clone());
    let mut t = Terminal::with_options(
        backend,
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, W, H)),
        },
    )
    .unwrap();
    t.draw(|f| convo::tui::view::draw(app, f)).unwrap();
    t.backend_mut().flush().unwrap();
    drop(t);
    sink.0.lock().unwrap().clone()
}

/// A `Vec<u8>` writer that the test can read after the terminal wrote into it.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every ESC starts a well-formed CSI (`ESC [`, parameter/intermediate bytes, a final byte in
/// `@`..`~`); no OSC, DCS or other escape; no C1 control, raw C0 but CR/LF, DEL or bidi control
/// anywhere. Returns the text with the CSI sequences removed.
fn assert_only_csi(bytes: &[u8]) -> String {
    let mut text = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != 0x1b {
            text.push(b);
            i += 1;
            continue;
        }
        assert_eq!(
            bytes.get(i + 1),
            Some(&b'['),
            "an escape that is not a CSI at {i}: {:?}",
            String::from_utf8_lossy(&bytes[i..(i + 12).min(bytes.len())])
        );
        let mut j = i + 2;
        while j < bytes.len() && (0x20..=0x3f).contains(&bytes[j]) {
            j += 1;
        }
        let fin = bytes.get(j).copied();
        assert!(
            fin.is_some_and(|f| (0x40..=0x7e).contains(&f)),
            "a malformed CSI at {i}: {:?}",
            String::from_utf8_lossy(&bytes[i..(j + 1).min(bytes.len())])
        );
        i = j + 1;
    }
    let s = String::from_utf8(text).expect("the terminal gets UTF-8");
    for c in s.chars() {
        let cp = c as u32;
        let bad = (cp < 0x20 && c != '\n' && c != '\r')
            || (0x7f..=0x9f).contains(&cp)
            || matches!(cp, 0x061c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069);
        assert!(!bad, "U+{cp:04X} reached the terminal");
    }
    s
}

#[test]
fn hostile_rows_reach_the_terminal_only_as_visible_text() {
    let mut app = hostile_app();
    // Conversations tab: hostile statuses.
    let text = assert_only_csi(&terminal_bytes(&app));
    assert!(text.contains('␛'), "the escapes are shown as stand-ins");
    // Visitors tab, then its detail pane (every field, attributes pretty-printed).
    update(&mut app, ch('2'));
    assert_eq!(app.active(), Resource::Visitors);
    let text = assert_only_csi(&terminal_bytes(&app));
    assert!(text.contains("␛") && text.contains("\\u{202e}"), "{text}");
    for i in 0..4 {
        update(&mut app, key(KeyCode::Down));
        if i == 2 {
            update(&mut app, key(KeyCode::Enter));
            assert!(app.detail().is_open(), "the detail pane opened");
        }
        assert_only_csi(&terminal_bytes(&app));
    }
}

/// Characters that ratatui does not drop by itself (it drops C0 and C1 controls): bidi
/// overrides and isolates and zero-width characters. Only sanitising turns them into the
/// visible stand-ins the tests below look for.
const KEPT_BY_RATATUI: [(&str, &str); 4] = [
    ("\u{202e}", "\\u{202e}"),
    ("\u{2067}", "\\u{2067}"),
    ("\u{200b}", "\\u{200b}"),
    ("\u{feff}", "\\u{feff}"),
];

#[test]
fn hostile_error_text_reaches_the_terminal_only_as_visible_text() {
    // Clean rows: the only hostile text on screen is the error's.
    let server = FakeServer {
        conversations: conversations(0..20),
        visitors: Vec::new(),
    };
    let mut app = testing::app(W, H, 50);
    let _ = &server;
    // The first page fails (a reload's failure keeps the rows and is said on a line of its
    // own: tests/tui_reload.rs).
    update(&mut app, Msg::Resize(W, H));
    assert!(app.conversations.walk().is_loading(), "the first page");
    // An error whose detail came from the server unsanitised (defence in depth: the client
    // sanitises, the tab and the view must not rely on it): characters ratatui keeps first,
    // then C1 and escape sequences.
    let kept: String = KEPT_BY_RATATUI
        .iter()
        .map(|(raw, _)| format!("{raw}x "))
        .collect();
    common::app::page_fails(&mut app, 500, format!(": {kept}{}", HOSTILE.concat()));
    assert!(app.conversations.error().is_some(), "the error is shown");
    assert_only_csi(&terminal_bytes(&app));
    let status = common::app::error_line(&app);
    // The status line cuts the error at its edge (and says "(? shows all)"); the help
    // overlay shows it whole: sanitised there too.
    assert!(
        status.contains(&format!("{}x", KEPT_BY_RATATUI[0].1)),
        "{status}"
    );
    update(&mut app, ch('?'));
    let help_text = assert_only_csi(&terminal_bytes(&app));
    let help = testing::render(&app);
    for (raw, shown) in KEPT_BY_RATATUI {
        assert!(
            help.contains(&format!("{shown}x")),
            "{raw:?} is not shown as {shown}: {help}"
        );
        assert!(
            help_text.contains(&format!("{shown}x")),
            "{shown} not on the terminal"
        );
    }
}

#[test]
fn the_csi_check_itself_catches_raw_sequences() {
    for bad in [
        &b"a\x1b]0;title\x07"[..],
        b"\x1bP+q\x1b\\",
        b"\x1b[31",
        "x\u{9b}31m".as_bytes(),
        "\u{202e}abc".as_bytes(),
        b"a\x08b",
        b"\x1bc",
    ] {
        let r = std::panic::catch_unwind(|| assert_only_csi(bad));
        assert!(r.is_err(), "{:?} passed", String::from_utf8_lossy(bad));
    }
    assert_eq!(assert_only_csi(b"\x1b[1;31mok\x1b[0m\r\n"), "ok\r\n");
}

// --- end to end in a pseudo-terminal --------------------------------------------------------

mod pty {
    use super::common::pty::{Pty, command};

    /// Starts `convo --base-url URL` (the TUI) in a 100x30 pseudo-terminal.
    pub fn start(url: &str, key: &str, extra_env: &[(&str, &str)]) -> Pty {
        start_wide(url, key, extra_env, 100)
    }

    /// [`start`] in a pseudo-terminal `cols` wide, with a home of its own and no config file.
    pub fn start_wide(url: &str, key: &str, extra_env: &[(&str, &str)], cols: u16) -> Pty {
        let tmp = tempfile::tempdir().unwrap();
        let mut cmd = command(tmp.path());
        cmd.env("CONVO_CONFIG", tmp.path().join("none.toml"));
        cmd.env("CONVO_API_KEY", key);
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        cmd.args(["--base-url", url]);
        Pty::run(cmd, cols, 30).owning(tmp)
    }
}

/// A demo server that accepts requests and never answers, on its own runtime.
fn hanging_demo() -> common::Demo {
    common::Demo::faulty(10, 10, |f| f.hang = true)
}

#[test]
fn the_ui_keeps_answering_keys_while_the_service_hangs() {
    let server = hanging_demo();
    let mut s = pty::start(&server.base_url(), &server.api_key(), &[]);
    s.wait_for_in("loading", Duration::from_secs(10));
    // Help opens and closes while both first pages hang.
    s.send(b"?");
    s.wait_for_in("Esc closes", Duration::from_secs(3));
    s.send(b"\x1b");
    s.wait_gone("Esc closes", Duration::from_secs(3));
    s.send(b"q");
    // The requests hang forever: an exit at all is one that did not wait for them.
    let code = s.wait_exit(Duration::from_secs(30));
    assert_eq!(code, Some(0), "q quits at once, in-flight requests or not");
    let bytes = s.raw();
    let tail = String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(200)..]).into_owned();
    assert!(
        tail.contains("\u{1b}[?1049l"),
        "the alternate screen is left: {tail:?}"
    );
    assert!(server.request_count() >= 1);
}

#[test]
fn a_panic_inside_the_app_restores_the_terminal() {
    let mut s = pty::start(
        "http://127.0.0.1:9",
        "sk_test_0123456789abcdef",
        &[("CONVO_TEST_PANIC", "1")],
    );
    let code = s.wait_exit(Duration::from_secs(10));
    let out = String::from_utf8_lossy(&s.raw()).into_owned();
    assert!(matches!(code, Some(c) if c != 0), "exit {code:?}: {out}");
    let entered = out
        .find("\u{1b}[?1049h")
        .expect("the alternate screen was entered");
    let left = out
        .rfind("\u{1b}[?1049l")
        .expect("the alternate screen is left");
    assert!(left > entered, "{out:?}");
    // Raw mode off: the panic message is printed after the restore, on the normal screen.
    let msg = out
        .find("CONVO_TEST_PANIC")
        .expect("the panic message is shown");
    assert!(
        msg > left,
        "the message comes after the terminal is restored: {out:?}"
    );
    // The cursor is shown again.
    assert!(out[entered..].contains("\u{1b}[?25h"), "{out:?}");
}

#[test]
fn a_page_larger_than_the_limit_is_kept_with_a_footer_warning() {
    let mut answer = every_page(page(conversations(0..25), false, None));
    let (app, _) = started(&mut answer);
    assert_eq!(conversation_ids(&app).len(), 25, "every row is kept");
    let screen = testing::render(&app);
    assert!(
        screen.contains("larger than the requested limit"),
        "{screen}"
    );
}

#[test]
fn a_2mb_attribute_is_cut_on_screen() {
    let mut v = testing::visitor(0);
    let blob = "x".repeat(2 * 1024 * 1024);
    v.attributes = serde_json::json!({ "blob": blob, "plan": "pro" });
    let server = FakeServer {
        conversations: Vec::new(),
        visitors: vec![v],
    };
    let mut app = testing::app(W, H, 20);
    server.settle(&mut app, Msg::Resize(W, H));
    update(&mut app, ch('2'));
    let table = testing::render(&app);
    update(&mut app, key(KeyCode::Enter));
    assert!(app.detail().is_open());
    // Frame times are a figure of `cargo bench --bench render`, not asserted here (work that
    // grew with the value, a quadratic cut of 2 MB, would hang this test for hours).
    let detail = testing::render(&app);
    for screen in [&table, &detail] {
        assert!(screen.lines().all(|l| l.chars().count() <= W as usize + 2));
    }
    assert!(
        detail
            .lines()
            .any(|l| l.contains("blob") && l.contains("xxx") && l.contains('…')),
        "the blob is shown, cut: {detail}"
    );
}

#[test]
fn the_screen_shows_only_the_masked_key() {
    let server = common::Demo::start(30, 10, Default::default());
    let key = server.api_key();
    let mut s = pty::start(&server.base_url(), &key, &[]);
    s.wait_for_in("all 30 loaded", Duration::from_secs(10));
    let masked = format!("sk_…{}", &key[key.len() - 4..]);
    assert!(s.screen().contains(&masked), "{}", s.screen());
    s.send(b"?");
    s.wait_for_in("Esc closes", Duration::from_secs(3));
    s.send(b"Q");
    assert_eq!(s.wait_exit(Duration::from_secs(5)), Some(0));
    let all = String::from_utf8_lossy(&s.raw()).into_owned();
    assert!(
        !all.contains(&key[8..key.len() - 4]),
        "the key's secret part reached the terminal"
    );
}

#[test]
fn a_server_that_echoes_the_key_never_gets_it_onto_the_screen_or_into_the_log() {
    let server = common::Demo::faulty(30, 10, |f| f.echo_key = Some(403));
    let key = server.api_key();
    let secret = &key[8..key.len() - 4];
    // Wide enough for the whole error line: without the redaction the key would be on it.
    let mut s = pty::start_wide(&server.base_url(), &key, &[("CONVO_LOG", "trace")], 240);
    s.wait_for_in("is not accepted for this request", Duration::from_secs(10));
    let screen = s.screen();
    s.send(b"q");
    assert_eq!(s.wait_exit(Duration::from_secs(5)), Some(0));
    let all = String::from_utf8_lossy(&s.raw()).into_owned();
    assert!(
        !all.contains(secret),
        "the key reached the terminal:\n{screen}"
    );
    let log = s.log();
    assert!(!log.contains(secret), "the key reached the log:\n{log}");
    // Not vacuous: the server's text is on the screen and in the log, with the key taken out.
    assert!(
        screen.contains("Bearer [redacted API key] is not"),
        "{screen}"
    );
    assert!(log.contains(" TRACE "), "{log}");
    assert!(log.contains("Bearer [redacted API key] is not"), "{log}");
}

/// One row with invalid UTF-8 or a raw control character in a string: the page is not lost,
/// the other rows are shown and the row is counted as unreadable (the real binary against the
/// demo server's `--bad-bytes-row`).
#[test]
fn a_row_with_bytes_json_refuses_loses_only_itself_on_screen() {
    for kind in [convo::demo::BadBytes::Utf8, convo::demo::BadBytes::Control] {
        let server = common::Demo::faulty(30, 10, |f| f.bad_bytes_row = Some(kind));
        let mut s = pty::start(&server.base_url(), &server.api_key(), &[]);
        s.wait_for_in("all 30 loaded", Duration::from_secs(10));
        let screen = s.screen();
        assert!(
            screen.contains("unreadable rows skipped"),
            "{kind:?}:\n{screen}"
        );
        assert!(!screen.contains("not valid JSON"), "{kind:?}:\n{screen}");
        s.send(b"q");
        assert_eq!(s.wait_exit(Duration::from_secs(5)), Some(0));
    }
}

/// A key revoked (401) or narrowed (403) in the middle of a walk: the loaded rows stay, the
/// walk stops, and the message says which, with different advice (the real binary against the
/// demo server's `--fail-after 3 --fail-after-status`).
#[test]
fn a_401_or_403_mid_walk_keeps_the_rows_and_says_which() {
    for (status, says, not) in [
        (403, "not allowed to list this", "rejected"),
        (401, "the key was rejected", "not allowed"),
    ] {
        let server = common::Demo::faulty(300, 10, |f| {
            // Counted over every request (the first pages of both lists, names): the
            // walk of 300 rows in pages of 50 meets it after its first page or two.
            f.fail_after = Some(3);
            f.fail_after_status = status;
        });
        // No background visitor sync: its requests would count towards --fail-after and
        // could take the first page's turn.
        let cfg = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(cfg.path(), "visitor_sync = false\n").unwrap();
        let cfg_path = cfg.path().display().to_string();
        let mut s = pty::start(
            &server.base_url(),
            &server.api_key(),
            &[("CONVO_CONFIG", &cfg_path)],
        );
        // Rows on screen first, not the status line before them. G goes to the last loaded
        // row and loads the next page; pressed while the second page is still on its way it
        // stops at row 50, so it is pressed until a page fails.
        s.wait_for_in("loaded · more available", Duration::from_secs(10));
        let screen = s.press_until("G", says);
        assert!(!screen.contains(not), "{status}:\n{screen}");
        let loaded = screen
            .lines()
            .find_map(|l| {
                let (n, _) = l.trim().split_once(" loaded")?;
                n.rsplit(' ').next()?.parse::<usize>().ok()
            })
            .unwrap_or(0);
        assert!(
            (50..300).contains(&loaded) && loaded % 50 == 0,
            "{status}: the rows of the good pages stay ({loaded}):\n{screen}"
        );
        let rows = screen.lines().filter(|l| l.contains(" ago ")).count();
        assert!(
            rows >= 20,
            "{status}: the table still shows rows:\n{screen}"
        );
        s.send(b"q");
        assert_eq!(s.wait_exit(Duration::from_secs(5)), Some(0));
    }
}

/// Waiting on the request budget is said on the status line and in the footer, with how long,
/// and is no error: no request failed.
#[test]
fn a_wait_on_the_request_budget_is_said_with_its_countdown() {
    let mut app = testing::app(W, H, 20);
    let cmds = update(&mut app, Msg::Resize(W, H));
    let Some(Command::Fetch { generation, .. }) = cmds
        .iter()
        .find(|c| matches!(c, Command::Fetch { .. }))
        .cloned()
    else {
        panic!("the first page is asked for")
    };
    update(
        &mut app,
        Msg::Retrying {
            tab: Resource::Conversations,
            generation,
            cursor: None,
            notice: RetryNotice {
                attempt: 0,
                wait: Duration::from_secs(12),
                reason: "waiting on the request budget".into(),
                rate_limited: false,
                budget: true,
            },
        },
    );
    let screen = testing::render(&app);
    common::assert_has(
        &screen,
        "waiting on the request budget: the next request goes in 12s · rows shown are kept",
    );
    common::assert_has(&screen, "· waiting on the request budget: 12s");
    assert!(!screen.contains("attempt"), "{screen}");
    assert!(!screen.contains("rate limited"), "{screen}");
}
