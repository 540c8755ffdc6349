//! End to end: the real binary in a pseudo-terminal against a demo server on a random
//! loopback port; the screen is read with `vt100`.

use std::time::Duration;

use convo::demo::DemoOptions;

use crate::common;
use common::Demo;
use common::pty::Pty;

const ROWS: u16 = 30;
const COLS: u16 = 120;

/// convo on `server`, no config file, its home (store, log) in `tmp`.
fn spawn(server: &Demo, tmp: &std::path::Path) -> Pty {
    spawn_with(server, tmp, &[])
}

/// [`spawn`] with more arguments (`--fresh`).
fn spawn_with(server: &Demo, tmp: &std::path::Path, args: &[&str]) -> Pty {
    let mut cmd = common::pty::command(tmp);
    cmd.env("CONVO_API_KEY", server.api_key());
    let url = server.base_url();
    cmd.args(["--config", "/nonexistent-dir/none.toml", "--base-url", &url]);
    cmd.args(args);
    Pty::run(cmd, COLS, ROWS)
}

/// One more run in the home `tmp`: the screen once it shows `want`; then it quits.
fn run_again(server: &Demo, tmp: &std::path::Path, want: &str) -> String {
    let mut s = spawn(server, tmp);
    let screen = s.wait_for(want);
    s.send("q");
    screen
}

/// 60 conversations; every first-page request after the first: 3 new on top, 2 reassigned.
fn churning() -> Demo {
    Demo::with(DemoOptions {
        seed: 9,
        conversations: 60,
        visitors: 20,
        faults: convo::demo::Faults {
            churn: convo::demo::Churn {
                new_per_head: 3,
                reassign_per_head: 2,
                ..Default::default()
            },
            ..Default::default()
        },
        ..DemoOptions::default()
    })
}

#[test]
fn the_binary_browses_the_demo_server_in_a_terminal() {
    let server = Demo::with(DemoOptions {
        seed: 11,
        conversations: 230,
        visitors: 60,
        ..DemoOptions::default()
    });
    let open = common::count(&server, |c| c.status == "open");
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server, tmp.path());

    // first rows appear
    let screen = s.wait_for("loaded · more available");
    assert!(screen.contains("STATUS"), "{screen}");
    assert!(!screen.contains(&server.api_key()), "the key never shows");

    // End, again and again, loads every page
    s.press_until("G", "all 230 loaded");

    // a status filter applies
    s.send("s");
    s.wait_for(" status:open ");
    let screen = s.press_until("G", &format!("all {open} loaded"));
    for line in screen.lines().skip(3).take(10) {
        let status = line.trim_start_matches('>').split_whitespace().next();
        assert!(
            matches!(status, Some("open") | None) || line.contains("loaded"),
            "a non-open row under status: open: {line:?}"
        );
    }

    // S: the summary of what is loaded, its waiting count from the server's own data
    let waiting = common::count(&server, |c| c.status == "open" && c.assignee_id.is_none());
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
    s.wait_gone("Summary of loaded conversations", Duration::from_secs(20));
    s.wait_for("/ filter");

    // the Visitors tab loads
    s.send("2");
    let screen = s.wait_for("all 60 loaded");
    assert!(screen.contains("EMAIL"), "{screen}");

    // q quits and restores the terminal (its output read to the end)
    s.send("q");
    assert_eq!(
        s.wait_exit(Duration::from_secs(20)),
        Some(0),
        "convo quits on q"
    );
    let text = s.text();
    assert!(text.contains("\u{1b}[?1049h"), "alternate screen entered");
    assert!(text.contains("\u{1b}[?1049l"), "alternate screen left");
    assert!(text.contains("\u{1b}[?25h"), "cursor shown again");
}

#[test]
fn visitor_names_replace_ids_within_seconds_and_stay_for_the_next_start() {
    let server = Demo::with(DemoOptions {
        seed: 5,
        conversations: 40,
        visitors: 250,
        ..DemoOptions::default()
    });
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
    let mut s = spawn(&server, tmp.path());
    // The background sync walks 3 pages at 2 requests/s: names within seconds.
    let screen = s.wait_for(&shown);
    assert!(screen.contains("STATUS"), "{screen}");
    s.send("q");
    drop(s);
    // The next start shows them from the store (the last walk is minutes old: no new one).
    let screen = run_again(&server, tmp.path(), &shown);
    assert!(screen.contains("STATUS"), "{screen}");
}

#[test]
fn since_you_last_looked_marks_what_changed_between_two_runs() {
    let server = churning();
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server, tmp.path());
    // Rows on screen (not just a status line): then quit keeps them.
    s.wait_for("all 60 loaded");
    s.send("q");
    drop(s);
    let screen = run_again(&server, tmp.path(), "3 new, 2 changed since");
    assert!(screen.contains("STATUS"), "{screen}");
}

/// A view left for another keeps its look too (not only at quit): run 1 leaves the unfiltered
/// view for `u` and quits there; run 2 starts unfiltered (`--fresh`: a plain start reopens
/// `u`'s view, tests/tui_restart.rs) and is compared with what run 1 had before it switched.
#[test]
fn a_view_left_for_another_keeps_its_look_for_the_next_start() {
    let server = churning();
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server, tmp.path());
    s.wait_for("all 60 loaded");
    s.send("u");
    s.wait_for(" assignee:none ");
    s.wait_for(" loaded");
    s.send("q");
    drop(s);
    let mut s = spawn_with(&server, tmp.path(), &["--fresh"]);
    let screen = s.wait_for(" changed since");
    s.send("q");
    assert!(screen.contains(" new, "), "{screen}");
    assert!(
        !screen.contains("assignee:none  x clears"),
        "run 2 starts unfiltered: {screen}"
    );
}

/// The row marked as selected (`>` at the start of a table line), by its line on screen.
fn selected_line(screen: &str) -> Option<usize> {
    screen.lines().position(|l| l.starts_with('>'))
}

#[test]
fn keys_are_answered_while_l_loads_everything() {
    // 30,000 rows, 5 ms a page: `L` takes seconds, so the keys below land while it loads.
    let server = Demo::with(DemoOptions {
        seed: 12,
        conversations: 30_000,
        visitors: 50,
        latency: Duration::from_millis(5),
        ..DemoOptions::default()
    });
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server, tmp.path());
    s.wait_for("loaded · more available");
    s.send("L");
    let screen = s.wait_for("loading all…");
    let mut at =
        selected_line(&screen).unwrap_or_else(|| panic!("a selected row; screen:\n{screen}"));
    for _ in 0..3 {
        s.send("j");
        // j was answered: the selection went down.
        let screen = s.wait_until(Duration::from_secs(20), |screen| {
            selected_line(screen).is_some_and(|l| l > at)
        });
        // Answered while the walk goes on, not queued behind it.
        assert!(
            screen.contains("loading all…"),
            "the key was answered only after loading ended:\n{screen}"
        );
        at = selected_line(&screen).expect("a selected row");
    }
    s.wait_for("all 30,000 loaded");
    s.send("q");
}

/// The trend end to end: the walk's end is sampled into the real local store (under HOME), and
/// `S` reads the last 24 hours back and draws them.
#[test]
fn the_summary_pane_draws_the_trend_from_the_local_store() {
    let server = Demo::with(DemoOptions {
        seed: 13,
        conversations: 30,
        visitors: 10,
        ..DemoOptions::default()
    });
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut s = spawn(&server, tmp.path());
    s.wait_for("all 30 loaded");
    let waiting = common::count(&server, |c| c.status == "open" && c.assignee_id.is_none());
    s.send("S");
    // One sample so far (the walk's end): its window label is "24 h" or its age.
    let screen = s.wait_for(&format!("min {waiting} max {waiting}"));
    assert!(screen.contains(" waiting "), "{screen}");
    s.send("Q");
}
