//! The board (`B`): every view as a row of counts, read one view after another in rounds.
//! `update()` fed messages (rounds, stale answers, errors, Enter and Backspace), snapshots at
//! 80x24 and 200x50, and the real loop against the demo server.

use std::time::Duration;

use crossterm::event::KeyCode;

use convo::api::{ConversationFilter, Resource, Status};
use convo::config::View;
use convo::config::builtin_views::builtin_views;
use convo::demo::{DemoOptions, Faults};
use convo::tui::app::App;
use convo::tui::board::Counts;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::overlay::Overlay;
use convo::tui::testing::{self, FakeServer, ch, key, render};
use convo::tui::update::update;

use crate::common;
use common::app::at;
use common::assert_has;
use common::runtime::{Harness, demo, runtime};

/// Three saved views: one of filters, one a query the service answers with one request, one
/// a query convo checks (a union tab when opened).
fn saved_views() -> Vec<View> {
    let base = View {
        name: String::new(),
        tab: Resource::Conversations,
        conversations: ConversationFilter::default(),
        visitors: Default::default(),
        notify: false,
        oldest_first: false,
        query: None,
    };
    vec![
        View {
            name: "Pending".into(),
            conversations: ConversationFilter {
                status: Some(Status::Pending),
                ..Default::default()
            },
            ..base.clone()
        },
        View {
            name: "Closed".into(),
            conversations: ConversationFilter {
                status: Some(Status::Closed),
                ..Default::default()
            },
            ..base.clone()
        },
        View {
            name: "Open, waiting over 1h".into(),
            query: Some("status:open assignee:none age:>1h".into()),
            ..base
        },
    ]
}

/// An app of `w`x`h` with the built-in and the saved views, a 5-minute first-response
/// target, its Conversations tab loaded from a fake server.
fn app_with_views(w: u16, h: u16) -> (App, FakeServer) {
    let mut app = testing::app(w, h, 50);
    app.settings_mut().use_views(builtin_views(None));
    for v in saved_views() {
        app.settings_mut().save_view(v);
    }
    app.settings_mut()
        .set_sla(common::app::first_response(5), false);
    let server = FakeServer::new(40, 5);
    server.settle(&mut app, Msg::Resize(w, h));
    (app, server)
}

fn reads(cmds: &[Command]) -> Vec<(u64, usize, String)> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::ReadView {
                generation,
                index,
                view,
                ..
            } => Some((*generation, *index, view.name.clone())),
            _ => None,
        })
        .collect()
}

fn counts(matched: u64, complete: bool, waiting: u64, breaching: u64) -> Counts {
    Counts {
        matched,
        complete,
        waiting,
        oldest_waiting: (waiting > 0).then_some(754),
        imminent: waiting.min(2),
        breaching,
    }
}

fn read_view(app: &mut App, index: usize, result: Result<Counts, String>) -> Vec<Command> {
    let generation = app.board().generation;
    update(
        app,
        Msg::ViewRead {
            generation,
            index,
            result,
        },
    )
}

/// The screen's lines holding `part`.
fn line_with<'a>(screen: &'a str, part: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(part))
        .unwrap_or_else(|| panic!("no line with {part:?}:\n{screen}"))
}

#[test]
fn b_reads_the_views_one_after_another_and_shows_each_as_it_comes() {
    let (mut app, _server) = app_with_views(120, 30);
    let cmds = update(&mut app, ch('B'));
    assert!(matches!(app.overlay(), Overlay::Board));
    let g = app.board().generation;
    assert_eq!(
        reads(&cmds),
        [(g, 0, "Unassigned open".to_string())],
        "one read at a time"
    );
    // The trend of every view ("Breaching" is its query, `due:breaching`: a key of its own).
    let asked: Vec<&String> = cmds
        .iter()
        .filter_map(|c| match c {
            Command::Samples { key, sample: None } => Some(key),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 5, "{asked:?}");

    let cmds = read_view(&mut app, 0, Ok(counts(12, true, 12, 3)));
    // "Breaching" is read on its own (it holds only the breaches), then "Pending".
    assert_eq!(reads(&cmds), [(g, 1, "Breaching".to_string())]);
    let sample = cmds.iter().find_map(|c| match c {
        Command::Samples {
            key,
            sample: Some(s),
        } => Some((key.clone(), s.clone())),
        _ => None,
    });
    let (k, s) = sample.expect("the counts are a sample of the trend");
    assert_eq!(k, "conversations?status=open&unassigned=true");
    assert_eq!(
        (s.loaded, s.complete, s.waiting, s.breaching),
        (12, true, 12, 3)
    );
    let cmds = read_view(&mut app, 1, Ok(counts(3, true, 3, 3)));
    assert_eq!(reads(&cmds), [(g, 2, "Pending".to_string())]);
    let screen = render(&app);
    assert_has(&screen, "reading 3 of 5: Pending");
    assert_has(line_with(&screen, "Unassigned open"), "12");
    assert_has(line_with(&screen, "Breaching "), "3");
    assert_has(line_with(&screen, "Pending"), "reading");
    assert_has(line_with(&screen, "Closed"), "—");

    let cmds = read_view(&mut app, 2, Ok(counts(500, false, 0, 0)));
    assert_eq!(reads(&cmds), [(g, 3, "Closed".to_string())]);
    assert_has(line_with(&render(&app), "Pending"), "≥ 500");
    let cmds = read_view(&mut app, 3, Ok(counts(7, true, 0, 0)));
    assert_eq!(reads(&cmds), [(g, 4, "Open, waiting over 1h".to_string())]);
    let cmds = read_view(&mut app, 4, Ok(counts(2, true, 2, 2)));
    assert!(reads(&cmds).is_empty(), "the round is over");
    assert!(app.board().reading.is_none());
    // The lists' refresh period (30 s when refresh_secs is not set).
    assert_has(&render(&app), "read 0s ago, again in 30s");
}

#[test]
fn a_failing_view_shows_its_error_and_the_other_rows_stay() {
    let (mut app, _server) = app_with_views(120, 30);
    update(&mut app, ch('B'));
    read_view(&mut app, 0, Ok(counts(12, true, 12, 3)));
    read_view(&mut app, 1, Ok(counts(3, true, 3, 3)));
    let cmds = read_view(
        &mut app,
        2,
        Err("403 forbidden: this key may not list these conversations".into()),
    );
    assert_eq!(reads(&cmds).len(), 1, "the round goes on after a failure");
    read_view(&mut app, 3, Ok(counts(7, true, 0, 0)));
    update(&mut app, key(KeyCode::Down));
    update(&mut app, key(KeyCode::Down));
    let screen = render(&app);
    assert_has(line_with(&screen, "! Pending"), "✗ 403 forbidden");
    assert_has(line_with(&screen, "Unassigned open"), "12");
    assert_has(line_with(&screen, "Closed"), "7");
    assert_has(
        &screen,
        "Pending: the last read failed: 403 forbidden: this key may not list these conversations",
    );

    // A later round: the view fails again; its last good counts stay, said as such.
    app.board_mut().rows[2].counts = Some(counts(40, true, 0, 0));
    app.board_mut().rows[2].error = None;
    app.board_mut().reading = Some(2);
    read_view(&mut app, 2, Err("503 server_error".into()));
    let screen = render(&app);
    assert_has(line_with(&screen, "! Pending"), "40");
    assert_has(
        &screen,
        "(the counts are the last good read's): 503 server_error",
    );
}

#[test]
fn answers_of_an_older_round_or_after_leaving_are_dropped() {
    let (mut app, _server) = app_with_views(120, 30);
    update(&mut app, ch('B'));
    let old = app.board().generation;
    // `r`: a new round from the top; the answer in flight belongs to the old one.
    let cmds = update(&mut app, ch('r'));
    assert_eq!(reads(&cmds), [(old + 1, 0, "Unassigned open".to_string())]);
    let cmds = update(
        &mut app,
        Msg::ViewRead {
            generation: old,
            index: 0,
            result: Ok(counts(99, true, 99, 0)),
        },
    );
    assert!(
        cmds.is_empty() && app.board().rows[0].counts.is_none(),
        "stale: dropped"
    );
    // Esc leaves the board: the read in flight is dropped, no next read is asked.
    update(&mut app, key(KeyCode::Esc));
    assert!(matches!(app.overlay(), Overlay::None));
    let cmds = update(
        &mut app,
        Msg::ViewRead {
            generation: old + 1,
            index: 0,
            result: Ok(counts(99, true, 99, 0)),
        },
    );
    assert!(reads(&cmds).is_empty());
    assert!(app.board().rows[0].counts.is_none());
}

#[test]
fn rounds_come_on_their_interval_while_the_board_is_shown() {
    // Issue 39, 6: the board keeps the lists' pace (refresh_secs) and says it.
    let (mut app, _server) = app_with_views(120, 30);
    app.settings_mut().use_refresh_secs(Some(15));
    update(&mut app, at(0));
    update(&mut app, ch('B'));
    for i in [0, 1, 2, 3, 4] {
        read_view(&mut app, i, Ok(counts(1, true, 1, 0)));
    }
    assert_has(&render(&app), "read 0s ago, again in 15s");
    assert!(reads(&update(&mut app, at(14))).is_empty());
    let cmds = update(&mut app, at(15));
    assert_eq!(reads(&cmds).len(), 1, "a new round after refresh_secs");
    // Not shown: no round.
    update(&mut app, key(KeyCode::Esc));
    assert!(reads(&update(&mut app, at(600))).is_empty());
}

#[test]
fn enter_opens_the_view_in_its_tab_and_backspace_comes_back_to_the_board() {
    let (mut app, server) = app_with_views(120, 30);
    update(&mut app, ch('B'));
    update(&mut app, key(KeyCode::Down));
    update(&mut app, key(KeyCode::Down));
    let cmds = server.settle(&mut app, key(KeyCode::Enter));
    assert!(
        matches!(app.overlay(), Overlay::None),
        "the board steps aside"
    );
    assert_eq!(app.active(), Resource::Conversations);
    assert_eq!(app.conversations.filter().status, Some(Status::Pending));
    assert!(cmds.iter().any(|c| matches!(c, Command::Fetch { .. })));
    assert!(
        reads(&cmds).is_empty(),
        "the board reads nothing while the view is shown"
    );
    update(&mut app, key(KeyCode::Backspace));
    assert!(
        matches!(app.overlay(), Overlay::Board),
        "Backspace: the board again"
    );
    assert_eq!(app.board().selected, 2, "on the row it left");

    // A move after the view opened: Backspace undoes that first, then comes to the board.
    server.settle(&mut app, key(KeyCode::Enter));
    server.settle(&mut app, ch('u'));
    server.settle(&mut app, key(KeyCode::Backspace));
    assert!(matches!(app.overlay(), Overlay::None));
    assert_eq!(app.conversations.filter().status, Some(Status::Pending));
    update(&mut app, key(KeyCode::Backspace));
    assert!(matches!(app.overlay(), Overlay::Board));
}

#[test]
fn a_round_leaves_out_a_view_its_tab_has_just_counted_and_r_reads_it() {
    let (mut app, server) = app_with_views(120, 30);
    app.settings_mut().use_refresh_secs(Some(30));
    update(&mut app, at(0));
    update(&mut app, ch('B'));
    for i in 0..5 {
        read_view(&mut app, i, Ok(counts(1, true, 1, 0)));
    }
    // At 10 s, Enter: "Unassigned open" loads whole in its tab, which counts it
    update(&mut app, at(10));
    server.settle(&mut app, key(KeyCode::Enter));
    assert!(app.conversations.walk().is_done());
    let n = app.conversations.rows().len();
    assert!(n > 1, "{n}");
    // At 30 s a round is due; Backspace shows the board: the view's count is the view's, 20 s
    // old, and the round reads the other views only
    update(&mut app, at(30));
    let cmds = update(&mut app, key(KeyCode::Backspace));
    assert!(matches!(app.overlay(), Overlay::Board));
    let g = app.board().generation;
    assert_eq!(reads(&cmds), [(g, 1, "Breaching".to_string())]);
    let screen = render(&app);
    let row = line_with(&screen, "Unassigned open");
    assert_has(row, &format!(" {n} "));
    assert_has(row, "20s ago");
    // r: a round of every view, this one first
    let cmds = update(&mut app, ch('r'));
    assert_eq!(
        reads(&cmds),
        [(app.board().generation, 0, "Unassigned open".to_string())]
    );
}

/// A board with every kind of row: read, partial ("≥"), failed with last counts, being read,
/// never read, and trends from the store.
fn full_board(w: u16, h: u16) -> App {
    let (mut app, _server) = app_with_views(w, h);
    update(&mut app, at(0));
    update(&mut app, ch('B'));
    read_view(&mut app, 0, Ok(counts(12, true, 12, 3)));
    read_view(&mut app, 1, Ok(counts(3, true, 3, 3)));
    read_view(&mut app, 2, Ok(counts(500, false, 0, 0)));
    read_view(
        &mut app,
        3,
        Err("403 forbidden: this key may not list these conversations".into()),
    );
    // Trends: one sample every 20 minutes over the last day, waiting rising.
    let now = testing::now().as_second();
    let samples: Vec<convo::store::Sample> = (0..72)
        .map(|i| convo::store::Sample {
            at: now - 86_400 + i * 1200,
            loaded: 20,
            complete: true,
            waiting: (i as u64 * 7) % 23,
            imminent: 0,
            breaching: (i as u64) % 5,
        })
        .collect();
    let key = app.board().rows[0].key.clone();
    update(&mut app, Msg::Samples { key, samples });
    update(&mut app, at(45));
    app
}

#[test]
fn the_board_fits_80x24() {
    let app = full_board(80, 24);
    let screen = render(&app);
    for l in screen.lines() {
        assert!(!l.contains("  …"), "no column cut into another: {l}");
    }
    insta::assert_snapshot!(screen);
}

#[test]
fn the_board_uses_200x50() {
    insta::assert_snapshot!(render(&full_board(200, 50)));
}

/// The built-in views and the three saved ones against the demo server, on the real loop.
fn harness(server: &convo::demo::DemoServer, size: (u16, u16)) -> Harness {
    let mut app = testing::app(size.0, size.1, 50);
    app.settings_mut().use_views(builtin_views(None));
    for v in saved_views() {
        app.settings_mut().save_view(v);
    }
    app.settings_mut().use_refresh_max_pages(3);
    app.settings_mut()
        .set_sla(common::app::first_response(5), false);
    Harness::new(runtime(server, common::fast_settings), size, app)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_loop_reads_every_view_and_a_failing_one_shows_its_error() {
    let server = demo(DemoOptions {
        conversations: 400,
        visitors: 50,
        // Each answer takes a while, so the progress can be seen row by row.
        latency: Duration::from_millis(120),
        faults: Faults {
            forbid_matching: Some("status=pending".into()),
            ..Default::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let mut h = harness(&server, (120, 30));
    h.settled().await;
    // Partial progress: the first rows read, the later ones not yet.
    h.keys(vec![KeyCode::Char('B')]).await;
    let screen = h.until(vec![], "reading 4 of 5: Closed").await;
    let matched = |screen: &str, name: &str| {
        let l = line_with(screen, name);
        // The MATCH cell: the text up to the next gap ("≥ 150" is one cell).
        let rest = l[l.find(name).unwrap_or(0) + name.len()..].trim_start();
        rest.split("  ").next().unwrap_or("").to_string()
    };
    assert_ne!(
        matched(&screen, "Unassigned open"),
        "—",
        "read before Closed:\n{screen}"
    );
    assert_eq!(
        matched(&screen, "Open, waiting over 1h"),
        "—",
        "not read yet:\n{screen}"
    );
    assert_has(line_with(&screen, "Closed"), "reading");
    let screen = h.until(vec![], ", again in ").await;
    // The counts of the views that were read, and the failing one's error.
    let open = common::count(&server, |c| c.status == "open" && c.assignee_id.is_none());
    let closed = common::count(&server, |c| c.status == "closed");
    let closed = if closed > 150 {
        "≥ 150".to_string()
    } else {
        closed.to_string()
    };
    assert_eq!(
        matched(&screen, "Unassigned open"),
        open.to_string(),
        "{screen}"
    );
    assert_eq!(matched(&screen, "Breaching"), open.to_string(), "{screen}");
    assert_eq!(matched(&screen, "Closed"), closed, "{screen}");
    assert_ne!(matched(&screen, "Open, waiting over 1h"), "—", "{screen}");
    assert_has(line_with(&screen, "! Pending"), "✗ the key is not");
    let screen = h.keys(vec![KeyCode::Down, KeyCode::Down]).await;
    assert_has(
        &screen,
        "Pending: the last read failed: the key is not allowed to list this (HTTP 403",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_loop_opens_a_view_with_enter_and_comes_back_with_backspace() {
    let server = demo(DemoOptions {
        conversations: 300,
        visitors: 50,
        ..DemoOptions::default()
    })
    .await;
    let mut h = harness(&server, (100, 24));
    h.settled().await;
    h.keys(vec![KeyCode::Char('B')]).await;
    h.until(vec![], ", again in ").await;
    let screen = h
        .keys(vec![
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Enter,
        ])
        .await;
    assert_has(&screen, "status:closed");
    assert_has(&screen, "closed");
    assert_eq!(h.app.conversations.filter().status, Some(Status::Closed));
    let screen = h.keys(vec![KeyCode::Backspace]).await;
    assert_has(&screen, "Board · 5 views");
    assert_eq!(h.app.board().selected, 3);
}

/// The MATCH cell of view `name` on the board's `screen` ("≥ 150" is one cell).
fn matched_cell(screen: &str, name: &str) -> String {
    let l = line_with(screen, name);
    let rest = l[l.find(name).unwrap_or(0) + name.len()..].trim_start();
    rest.split("  ").next().unwrap_or("").to_string()
}

/// "all N loaded" on the footer of `screen`: N.
fn all_loaded(screen: &str) -> String {
    let at = screen.find("all ").expect("all … loaded") + 4;
    screen[at..].split(' ').next().unwrap_or("").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_and_the_view_it_opens_give_the_view_one_count() {
    // Every first page asked for after the first brings a new open, unassigned conversation:
    // each of the board's reads and the view's own walk sees one more than the last.
    let server = demo(DemoOptions {
        conversations: 120,
        visitors: 50,
        faults: Faults {
            churn: convo::demo::Churn {
                new_per_head: 1,
                ..Default::default()
            },
            ..Default::default()
        },
        ..DemoOptions::default()
    })
    .await;
    for size in [(80u16, 24u16), (120, 35)] {
        let mut h = harness(&server, size);
        h.settled().await;
        h.keys(vec![KeyCode::Char('B')]).await;
        let board = h.until(vec![], ", again in ").await;
        let read = matched_cell(&board, "Unassigned open");
        // Enter: the view's own walk, to its end
        let view = h.keys(vec![KeyCode::Enter]).await;
        assert_has(&view, "assignee:none");
        let view = h.wait_for("loaded").await;
        let view = if view.contains("all ") {
            view
        } else {
            h.until(vec![KeyCode::Char('L')], "all ").await
        };
        let n = all_loaded(&view);
        assert_ne!(
            n, read,
            "the churn makes the view newer than the read:\n{board}\n{view}"
        );
        // Back: the board's number for the view is the view's
        let board = h.keys(vec![KeyCode::Backspace]).await;
        assert_has(&board, "Board · ");
        assert_eq!(
            matched_cell(&board, "Unassigned open"),
            n,
            "the view said all {n} loaded:\n{view}\nthe board then:\n{board}"
        );
        // and Enter again shows the same number in the view
        let view = h.keys(vec![KeyCode::Enter]).await;
        assert_eq!(all_loaded(&view), n, "{view}");
        // The other way: the board reads again (r), newer than the view's rows and more
        let board = h.keys(vec![KeyCode::Backspace, KeyCode::Char('r')]).await;
        assert_has(&board, "Board · ");
        let board = h.until(vec![], ", again in ").await;
        let read = matched_cell(&board, "Unassigned open");
        assert_ne!(read, n, "{board}");
        // Enter: the view is refreshed at once, and its count is the board's again on Back
        h.keys(vec![KeyCode::Enter]).await;
        let view = h
            .wait(vec![], "a refreshed view", |s: &str| {
                s.contains("all ") && all_loaded(s) != n
            })
            .await;
        let m = all_loaded(&view);
        let board = h.keys(vec![KeyCode::Backspace]).await;
        assert_eq!(
            matched_cell(&board, "Unassigned open"),
            m,
            "the view said all {m} loaded:\n{view}\nthe board then:\n{board}"
        );
        h.keys(vec![KeyCode::Esc]).await;
    }
}

#[test]
fn narrower_terminals_drop_whole_columns_least_needed_first() {
    const TITLES: [&str; 8] = [
        "VIEW",
        "MATCH",
        "WAITING",
        "OLDEST",
        "IMMINENT",
        "BREACHING",
        "TREND",
        "READ",
    ];
    let shown = |w: u16| -> Vec<&'static str> {
        let screen = render(&full_board(w, 24));
        let header = screen.lines().nth(1).unwrap_or_default().to_string();
        let words = common::words(header.trim_matches('"'));
        // Every title on the header is whole (a column is dropped, never cut).
        for word in &words {
            assert!(
                TITLES.contains(word)
                    || *word == "WAITING,"
                    || *word == "LAST"
                    || *word == "24"
                    || *word == "H",
                "a cut title {word:?} at {w} columns: {header}"
            );
        }
        TITLES
            .iter()
            .copied()
            .filter(|t| words.contains(t) || (*t == "TREND" && header.contains("LAST 24 H")))
            .collect()
    };
    assert_eq!(shown(80), TITLES, "everything at 80 columns");
    let mut wider = shown(80);
    for w in (30..80).rev().step_by(5) {
        let now = shown(w);
        assert!(
            now.iter().all(|t| wider.contains(t)),
            "{w}: {now:?} ⊄ {wider:?}"
        );
        assert!(now.starts_with(&["VIEW", "MATCH"]), "{w}: {now:?}");
        wider = now;
    }
    assert_eq!(
        shown(60),
        ["VIEW", "MATCH", "WAITING", "OLDEST", "BREACHING", "READ"]
    );
    assert_eq!(shown(40), ["VIEW", "MATCH", "BREACHING"]);
}

/// A whole walk is counted for the board when the board is shown, not at the walk's last
/// page (300,000 rows counted there delayed the frame that says `L` is done), and the count
/// is as of when the rows were loaded, not as of when the board opened: a board read made
/// in between stays the newer one. Seen red with the count dated at the board's opening.
#[test]
fn a_tab_s_count_waits_for_the_board_and_is_as_old_as_its_rows() {
    let (mut app, server) = common::app::loaded((120, 35), 120, 10);
    server.settle(&mut app, ch('L'));
    assert!(app.conversations.walk().is_done(), "every page loaded");
    assert!(
        app.board().tabs.conversations.is_none(),
        "not counted while the board is hidden"
    );
    let loaded_at = testing::now();
    server.settle(&mut app, at(90));
    server.settle(&mut app, ch('B'));
    let count = app
        .board()
        .tabs
        .conversations
        .clone()
        .expect("counted as the board opens");
    assert_eq!(count.counts.matched, 120);
    assert_eq!(
        count.at, loaded_at,
        "as of the rows, not of the board's opening"
    );
}
