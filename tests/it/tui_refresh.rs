//! Refresh that tells the truth (issue 11, section 1), at the `update` level against a fake
//! server whose rows change: a periodic refresh re-reads from the top as many pages as are
//! loaded (up to `refresh_max_pages`); rows that no longer match leave; the selection stays
//! on its row, or moves to the row that took its place; counts follow.

use crossterm::event::KeyCode;

use convo::api::{Assignee, Resource};
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::overlay::Overlay;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

use crate::common;
use common::app::assign;
use common::app::at;

/// An app on the unassigned conversations of `server`, refreshing every 10 s, `pages` pages
/// loaded (page size 50).
fn unassigned(server: &FakeServer, pages: usize) -> App {
    let mut app = testing::app(120, 30, 50);
    app.refresh_every(Some(10));
    server.settle(&mut app, Msg::Resize(120, 30));
    server.settle(&mut app, ch('u'));
    assert_eq!(app.conversations.filter().assignee, Assignee::Unassigned);
    while app.conversations.rows().len() < pages * 50 {
        server.settle(&mut app, key(KeyCode::PageDown));
    }
    server.settle(&mut app, key(KeyCode::Home));
    app
}

fn ids(app: &App) -> Vec<uuid::Uuid> {
    app.conversations.rows().iter().map(|c| c.id).collect()
}

fn waiting_in_s(app: &mut App, server: &FakeServer) -> u64 {
    server.settle(app, ch('S'));
    let n = match app.overlay() {
        Overlay::Summary(p) => p.all().waiting,
        other => panic!("no summary pane: {other:?}"),
    };
    update(app, key(KeyCode::Esc));
    n
}

#[test]
fn a_row_picked_up_by_a_colleague_leaves_within_one_refresh_and_the_counts_follow() {
    // 90 unassigned conversations: all loaded in two pages
    let mut server = FakeServer::new(180, 5);
    let mut app = unassigned(&server, 1);
    server.settle(&mut app, key(KeyCode::End));
    server.settle(&mut app, key(KeyCode::Home));
    let before = ids(&app);
    assert_eq!(before.len(), 90);
    assert!(app.conversations.walk().is_done());
    let waiting = waiting_in_s(&mut app, &server);
    assert!(waiting > 0);
    // select row 40 (scrolled); a row above it (3) and one below (70) are picked up
    for _ in 0..40 {
        update(&mut app, key(KeyCode::Down));
    }
    let selected = before[40];
    assert!(app.conversations.offset() > 0);
    // two open ones: they were waiting
    let open = |i: usize| app.conversations.rows()[i].status == convo::api::Status::Open;
    let (a, b) = (
        (0..30).find(|&i| open(i)).unwrap(),
        (50..90).find(|&i| open(i)).unwrap(),
    );
    let (gone_a, gone_b) = (before[a], before[b]);
    assign(&mut server, gone_a);
    assign(&mut server, gone_b);
    let line = app.conversations.selected() - app.conversations.offset();

    let cmds = server.settle(&mut app, at(10));
    let heads: Vec<_> = cmds
        .iter()
        .filter_map(|c| match c {
            Command::FetchHead { cursor, .. } => Some(cursor.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        heads,
        vec![None, Some("50".to_string())],
        "as many pages as loaded, from the top"
    );
    assert!(app.conversations.walk().is_done());
    let after = ids(&app);
    assert!(!after.contains(&gone_a) && !after.contains(&gone_b));
    // exactly the first 100 unassigned rows the server has now
    let want: Vec<_> = server
        .conversations
        .iter()
        .filter(|c| c.assignee_id.is_none())
        .map(|c| c.id)
        .collect();
    assert_eq!(after, want);
    // the selection stays on its row, on the same line
    assert_eq!(app.selected_id(), Some(selected));
    assert_eq!(
        app.conversations.selected() - app.conversations.offset(),
        line
    );
    let m = app.status_line().shown().expect("said").text.clone();
    // which two (issue 39, 10)
    let both = format!(
        "{}, {} left the list",
        convo::api::short_id(&gone_a),
        convo::api::short_id(&gone_b)
    );
    assert!(m.contains(&both), "{m}");
    // S counts the rows as they are now: the open ones the server has unassigned
    let open_now = server
        .conversations
        .iter()
        .filter(|c| want.contains(&c.id) && c.status == convo::api::Status::Open)
        .count() as u64;
    assert_eq!(waiting_in_s(&mut app, &server), open_now);
    assert_eq!(
        open_now,
        waiting - 2,
        "the two that were picked up no longer wait"
    );

    // the selected row itself is picked up: it stays under the cursor, marked, until the
    // user moves; then the cursor goes to the row that took its place, not to the top
    let index = app.conversations.selected();
    assign(&mut server, selected);
    server.settle(&mut app, at(25));
    assert!(!ids(&app).contains(&selected));
    assert_eq!(app.selected_id(), Some(selected), "held under the cursor");
    assert!(app.conversations.held().is_some());
    update(&mut app, key(KeyCode::Down));
    assert_eq!(app.conversations.selected(), index);
    assert_eq!(app.selected_id(), Some(ids(&app)[index]));
}

/// New rows on top push the loaded ones down: the refresh reads a page past them, so none is
/// taken for gone, and rows of that extra page are not marked new (they were only further
/// down than the walk had got).
#[test]
fn rows_pushed_down_by_new_ones_stay_and_only_the_new_ones_are_marked() {
    let mut server = FakeServer::new(400, 5);
    let mut app = unassigned(&server, 2);
    let before = ids(&app);
    for i in 0..3 {
        let mut c = testing::conversation(9000 + i);
        c.assignee_id = None;
        server.conversations.insert(0, c);
    }
    let cmds = server.settle(&mut app, at(10));
    let pages = cmds
        .iter()
        .filter(|c| matches!(c, Command::FetchHead { .. }))
        .count();
    let loaded_pages = before.len().div_ceil(50);
    assert_eq!(pages, loaded_pages + 1, "one page past the loaded ones");
    let after = ids(&app);
    for id in &before {
        assert!(after.contains(id), "a pushed-down row stayed");
    }
    let t = &app.conversations;
    assert_eq!(t.marks().counts(t.generation()), (3, 0));
    let m = app.status_line().shown().expect("said").text.clone();
    assert!(m.contains("3 new rows") && !m.contains("left"), "{m}");
    // the extra page is read, not kept: refreshes do not grow the table a page at a time
    assert_eq!(after.len(), before.len() + 3);
    server.settle(&mut app, at(25));
    server.settle(&mut app, at(40));
    assert_eq!(ids(&app), after);
}

#[test]
fn the_period_runs_from_the_end_of_one_reread_to_the_start_of_the_next() {
    let server = FakeServer::new(300, 5);
    let mut app = unassigned(&server, 1);
    // due at 10 s: the first page is asked for, and not answered yet
    let cmds = update(&mut app, at(10));
    let first: Vec<_> = cmds
        .iter()
        .filter(|c| matches!(c, Command::FetchHead { .. }))
        .cloned()
        .collect();
    assert_eq!(first.len(), 1);
    // while it is under way, later ticks ask nothing more
    assert!(update(&mut app, at(21)).is_empty());
    // it ends at 30 s (the app's clock): the next is due at 40 s, not at 20 s or 31 s
    update(&mut app, at(30));
    let mut pending = first;
    while let Some(cmd) = pending.pop() {
        let answer = server.answer(&cmd).expect("an answer");
        pending.extend(update(&mut app, answer).into_iter().filter(|c| {
            matches!(
                c,
                Command::FetchHead {
                    cursor: Some(_),
                    ..
                }
            )
        }));
    }
    assert!(!app.conversations.refreshing());
    assert!(update(&mut app, at(39)).is_empty());
    assert!(
        update(&mut app, at(40))
            .iter()
            .any(|c| matches!(c, Command::FetchHead { cursor: None, .. }))
    );
}

#[test]
fn past_refresh_max_pages_only_the_top_rows_are_kept_live_and_it_says_so() {
    let mut server = FakeServer::new(600, 5);
    let mut app = unassigned(&server, 4);
    app.settings_mut().use_refresh_max_pages(2);
    let before = ids(&app);
    assign(&mut server, before[10]); // inside the live window: leaves
    assign(&mut server, before[150]); // past it: stays as loaded until the user reloads
    let cmds = server.settle(&mut app, at(10));
    let heads = cmds
        .iter()
        .filter(|c| matches!(c, Command::FetchHead { .. }))
        .count();
    assert_eq!(heads, 2, "the budget: two pages");
    let after = ids(&app);
    assert!(!after.contains(&before[10]));
    assert!(after.contains(&before[150]));
    assert_eq!(after.len(), before.len() - 1);
    let m = app.status_line().shown().expect("said").text.clone();
    assert!(m.contains("top 100 rows kept live"), "{m}");
    // the walk goes on after what was loaded: no row twice
    server.settle(&mut app, key(KeyCode::End));
    let all = ids(&app);
    let unique: std::collections::HashSet<_> = all.iter().collect();
    assert_eq!(unique.len(), all.len());
    assert_eq!(app.active(), Resource::Conversations);
}

/// The real binary in a pty on the built-in "Unassigned open" view, refreshing every second,
/// against a demo server whose data the test changes: a conversation picked up by a colleague
/// leaves the screen within a refresh, and `S` counts one fewer waiting.
#[test]
fn the_real_binary_drops_a_picked_up_conversation_from_unassigned_open() {
    use convo::demo::{Churn, DemoOptions, Faults};
    use std::time::Duration;
    let server = common::Demo::with(DemoOptions {
        seed: 9,
        conversations: 300,
        visitors: 20,
        faults: Faults {
            churn: Churn {
                scripted: true,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    });
    let queue: Vec<_> = server
        .conversations_now()
        .into_iter()
        .filter(|c| c.status == "open" && c.assignee_id.is_none())
        .collect();
    let n = queue.len();
    assert!(n > 5 && n < 100, "one page of queue: {n}");
    let tmp = tempfile::tempdir().expect("tempdir");
    let cfg = common::file(
        tmp.path(),
        "config.toml",
        format!(
            "base_url = {:?}\nrefresh_secs = 1\nstore = false\n",
            server.base_url()
        ),
    );
    let home = tmp.path().to_string_lossy().to_string();
    let log = tmp.path().join("convo.log").to_string_lossy().to_string();
    let key = server.api_key();
    let mut t = common::pty::Pty::spawn(
        &[
            "--config",
            cfg.to_str().expect("path"),
            "--view",
            "Unassigned open",
        ],
        &[
            ("HOME", &home),
            ("CONVO_API_KEY", &key),
            ("CONVO_LOG_FILE", &log),
        ],
        140,
        40,
    );
    let within = Duration::from_secs(20);
    t.wait_until(within, |s| s.contains(&format!("all {n} loaded")));
    let short = |c: &convo::demo::DemoConversation| c.id.simple().to_string()[..8].to_string();
    let picked = &queue[1];
    let screen = t.screen();
    assert!(screen.contains(&short(picked)), "{screen}");

    assert!(server.assign(picked.id, Some(server.data().agents[0])));
    // It is not counted at once; it may show greyed (×) for one refresh, then it is gone.
    t.wait_until(within, |s| s.contains(&format!("all {} loaded", n - 1)));
    let screen = t.wait_until(within, |s| !s.contains(&short(picked)));
    assert!(screen.contains(&short(&queue[2])), "{screen}");
    t.send(b"S");
    t.wait_until(within, |s| {
        s.contains(&format!("waiting (open, unassigned): {},", n - 1))
    });
    // another is picked up while the pane is open: its count follows at the next refresh
    assert!(server.assign(queue[3].id, Some(server.data().agents[0])));
    let screen = t.wait_until(within, |s| {
        s.contains(&format!("waiting (open, unassigned): {},", n - 2))
    });
    assert!(
        screen.contains(&format!("all {} loaded", n - 2)),
        "{screen}"
    );
    // Q quits with the pane open (q would close the pane).
    t.send(b"Q");
    assert_eq!(t.wait_exit(Duration::from_secs(5)), Some(0));
}

/// `r` starts a new walk (docs/design.md "Pagination safety") that reads again as many rows as were loaded, up to
/// `refresh_max_pages`, not only the first pages; rows that left are gone from it.
#[test]
fn r_reads_the_loaded_depth_again_from_the_top() {
    let mut server = FakeServer::new(1000, 5);
    let mut app = unassigned(&server, 4);
    let before = ids(&app);
    assert_eq!(before.len(), 200);
    assert_eq!(app.conversations.selected(), 0);
    assign(&mut server, before[120]);
    let generation = app.conversations.generation();
    server.settle(&mut app, ch('r'));
    assert!(app.conversations.generation() > generation, "a new walk");
    let after = ids(&app);
    assert_eq!(after.len(), 200, "the same depth");
    assert!(!after.contains(&before[120]));
    // with a budget of two pages, two pages
    app.settings_mut().use_refresh_max_pages(2);
    server.settle(&mut app, ch('r'));
    assert_eq!(ids(&app).len(), 100);
}

/// The screen's lines, and the line showing the row with `id` (by its short id).
fn line_of(buf: &ratatui::buffer::Buffer, id: uuid::Uuid) -> Option<u16> {
    let short = convo::api::model::short_id(&id);
    (0..buf.area.height).find(|&y| {
        let line: String = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        line.contains(&short)
    })
}

fn click(app: &mut App, y: u16) {
    update(
        app,
        Msg::Mouse(crossterm::event::MouseEvent {
            kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
            column: 20,
            row: y,
            modifiers: crossterm::event::KeyModifiers::NONE,
        }),
    );
}

/// A row that left stays on screen for one refresh where it was, greyed, struck through and
/// marked `×`, so the eye can follow; it is not counted, not selectable (keys and clicks
/// pass over it), and the next refresh takes it away.
#[test]
fn a_row_that_left_shows_greyed_where_it_was_for_one_refresh() {
    let mut server = FakeServer::new(180, 5);
    let mut app = unassigned(&server, 1);
    server.settle(&mut app, Msg::Resize(160, 30));
    let before = ids(&app);
    let gone = before[3];
    assign(&mut server, gone);
    server.settle(&mut app, key(KeyCode::Down));
    server.settle(&mut app, key(KeyCode::Down));
    server.settle(&mut app, at(10));
    assert!(!ids(&app).contains(&gone));
    let buf = testing::render_buffer(&app);
    let y = line_of(&buf, gone).expect("the row that left is on screen");
    assert_eq!(
        line_of(&buf, before[2]),
        Some(y - 1),
        "after the row it followed"
    );
    assert_eq!(line_of(&buf, before[4]), Some(y + 1));
    assert_eq!(buf[(0, y)].symbol(), "×");
    assert!(
        (1..buf.area.width - 1).all(|x| buf[(x, y)]
            .modifier
            .contains(ratatui::style::Modifier::CROSSED_OUT)),
        "struck through"
    );
    assert_eq!(
        buf[(0, y - 1)].symbol(),
        ">",
        "the selection stays on its row"
    );
    let screen = testing::render(&app);
    let loaded = ids(&app).len();
    assert!(
        screen.contains(&format!(" {loaded} loaded")),
        "not counted: {screen}"
    );
    // A click on it selects nothing; a click below it selects the row drawn there.
    click(&mut app, y);
    assert_eq!(app.selected_id(), Some(before[2]));
    click(&mut app, y + 1);
    assert_eq!(app.selected_id(), Some(before[4]));
    // Up passes over it to the row above.
    update(&mut app, key(KeyCode::Up));
    assert_eq!(app.selected_id(), Some(before[2]));

    // The next refresh takes it away.
    server.settle(&mut app, at(25));
    assert_eq!(line_of(&testing::render_buffer(&app), gone), None);
}

/// With the selection on the last line (`G` on a queue), a row that left above it is still
/// drawn, greyed with ×: the rows above it scroll off the top, the selection keeps its line.
#[test]
fn a_row_that_left_above_a_selection_on_the_last_line_shows_and_the_selection_stays() {
    let mut server = FakeServer::new(180, 5);
    let mut app = unassigned(&server, 1);
    server.settle(&mut app, Msg::Resize(160, 30));
    let body = app.body_height();
    for _ in 0..body - 1 {
        update(&mut app, key(KeyCode::Down));
    }
    assert_eq!(app.conversations.offset(), 0);
    let before = ids(&app);
    let selected = before[body - 1];
    assign(&mut server, before[3]);
    let mut c = testing::conversation(9000);
    c.assignee_id = None;
    server.conversations.insert(0, c);
    let y0 = line_of(&testing::render_buffer(&app), selected).expect("on screen");
    server.settle(&mut app, at(10));
    assert_eq!(app.selected_id(), Some(selected));
    let buf = testing::render_buffer(&app);
    let y = line_of(&buf, selected).expect("the selection is on screen");
    assert_eq!(y, y0, "the selection keeps its line");
    assert_eq!(buf[(0, y)].symbol(), ">");
    let g = line_of(&buf, before[3]).expect("the row that left is shown");
    assert_eq!(buf[(0, g)].symbol(), "×");
}

/// Watching the top of a queue, new rows arrive above: the selected row keeps its screen
/// line (it does not walk down the screen), the footer says "↑ 1 arrived above, view held", and scrolling up
/// shows the new row marked.
#[test]
fn at_the_top_new_rows_arrive_above_and_the_selection_keeps_its_line() {
    let mut server = FakeServer::new(180, 5);
    let mut app = unassigned(&server, 1);
    server.settle(&mut app, Msg::Resize(160, 30));
    update(&mut app, key(KeyCode::Down));
    let selected = app.selected_id().expect("a row");
    let mut c = testing::conversation(9000);
    c.assignee_id = None;
    let new = c.id;
    server.conversations.insert(0, c);
    let y = line_of(&testing::render_buffer(&app), selected).expect("on screen");
    server.settle(&mut app, at(10));
    assert_eq!(
        app.conversations.offset(),
        1,
        "the view scrolled with the new row"
    );
    assert_eq!(app.selected_id(), Some(selected));
    assert_eq!(app.conversations.selected(), 2);
    let buf = testing::render_buffer(&app);
    assert_eq!(line_of(&buf, selected), Some(y), "the same line");
    assert_eq!(line_of(&buf, new), None, "above the screen");
    assert!(testing::render(&app).contains("↑ 1 arrived above, view held"));
    // the view scrolled back up (the selection stays): the new row shows, marked
    app.conversations.reveal_above();
    let buf = testing::render_buffer(&app);
    let y = line_of(&buf, new).expect("the new row is on screen");
    assert_eq!(buf[(0, y)].symbol(), "•");
    // A display sort moves the rows; the marks follow the server's order, so they are hidden
    // rather than drawn beside the wrong rows.
    update(&mut app, ch('>'));
    assert!(app.sort().get(Resource::Conversations).sorted());
    let buf = testing::render_buffer(&app);
    assert!(
        (0..buf.area.height).all(|y| buf[(0, y)].symbol() != "•"),
        "{}",
        testing::render(&app)
    );
}

/// Issue 39, 10: many rows leaving at one refresh are named too, the first three of them,
/// with how many more, whole at 80 columns.
#[test]
fn many_rows_that_leave_at_once_are_named_the_first_three() {
    let mut server = FakeServer::new(180, 5);
    let mut app = unassigned(&server, 1);
    server.settle(&mut app, Msg::Resize(80, 24));
    let before = ids(&app);
    let gone: Vec<_> = before[10..15].to_vec();
    for id in &gone {
        assign(&mut server, *id);
    }
    server.settle(&mut app, at(10));
    let m = app.status_line().shown().expect("said").text.clone();
    let short: Vec<String> = gone.iter().map(convo::api::short_id).collect();
    common::assert_has(
        &m,
        &format!(
            "5 rows left the list: {}, {}, {} and 2 more (' shows where)",
            short[0], short[1], short[2]
        ),
    );
    let status = testing::render(&app);
    let last = status.lines().last().unwrap_or_default();
    assert!(!last.contains('…'), "whole at 80 columns: {last}");
}
