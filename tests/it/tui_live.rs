//! A live list under the user: refreshes of a union past `refresh_max_pages`, the selected
//! row that leaves, Back to a conversation, new rows above the one being read. The real loop
//! (`common::runtime::Harness`) against the demo server, with scripted churn where rows move.

use crossterm::event::KeyCode;

use convo::api::Resource;
use convo::demo::{Churn, DemoOptions, DemoServer, Faults, ServeOrder};
use convo::query::parse;
use convo::tui::app::App;

use crate::common;
use common::runtime::{Harness, demo};

/// Runs the loop on `keys`, then until no refresh is under way; the screen then.
async fn refreshed(h: &mut Harness, keys: Vec<KeyCode>) -> String {
    h.keys(keys).await;
    h.wait_app("the refresh to end", |a| {
        !a.conversations.refreshing() && !a.conversations.walk().is_loading()
    })
    .await
}

fn ids(h: &Harness) -> Vec<uuid::Uuid> {
    ids_in(&h.app)
}

fn ids_in(app: &App) -> Vec<uuid::Uuid> {
    app.conversations.rows().iter().map(|c| c.id).collect()
}

fn scanned(h: &Harness) -> usize {
    h.app.conversations.union().map_or(0, |u| u.scanned())
}

/// A union with a check done in convo, loaded with `L` past `refresh_max_pages`, refreshed
/// again and again on a service where nothing changes: the same rows, the same count, the
/// same "scanned", in either order the service serves; the message says which rows are live.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_union_refreshed_past_its_page_budget_keeps_every_row_in_both_orders() {
    for order in [ServeOrder::Newest, ServeOrder::Oldest] {
        let server = demo(DemoOptions {
            seed: 5,
            conversations: 900,
            visitors: 40,
            faults: Faults {
                order,
                ..Faults::default()
            },
            ..DemoOptions::default()
        })
        .await;
        let want = common::count(&server, |c| {
            (c.status == "open" || c.status == "pending") && c.assignee_id.is_some()
        });
        assert!(want > 200, "{order:?}: {want}");
        let mut h = Harness::on(&server, (120, 30), 25);
        h.app.settings_mut().use_refresh_max_pages(2);
        h.app.queue_query(Some(
            parse(
                "status:open,pending -assignee:none",
                Resource::Conversations,
            )
            .expect("query"),
        ));
        let done = format!("all {want} loaded");
        h.until(vec![KeyCode::Char('L')], &done).await;
        let before = ids(&h);
        let scan = scanned(&h);
        for round in 0..3 {
            let screen = refreshed(&mut h, vec![KeyCode::Char('r')]).await;
            let now = ids(&h);
            assert!(
                now == before,
                "{order:?}, refresh {round}: the same rows ({} then {})",
                before.len(),
                now.len()
            );
            assert!(
                screen.contains(&done),
                "{order:?}, refresh {round}:\n{screen}"
            );
            assert!(!screen.contains("left the list"), "{order:?}:\n{screen}");
            assert!(scanned(&h) >= scan, "{order:?}: scanned went down");
            let said = h.app.status_line().shown().map(|m| m.text.clone());
            let said = said.unwrap_or_default();
            assert!(said.contains("rows kept live"), "{order:?}: {said:?}");
        }
        drop(server);
    }
}

fn churning(conversations: usize) -> DemoOptions {
    DemoOptions {
        seed: 9,
        conversations,
        visitors: 30,
        faults: Faults {
            churn: Churn {
                scripted: true,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    }
}

fn short(id: uuid::Uuid) -> String {
    id.simple().to_string()[..8].to_string()
}

/// The queue ("status:open assignee:none") on the real loop, refreshing every second, all
/// loaded; its rows.
async fn queue(server: &DemoServer, size: (u16, u16)) -> (Harness, Vec<uuid::Uuid>) {
    let want = common::count(server, |c| c.status == "open" && c.assignee_id.is_none());
    assert!(want > 6 && want < 200, "{want}");
    let mut h = Harness::on(server, size, 50);
    h.app.settings_mut().use_refresh_secs(Some(1));
    h.app.queue_query(Some(
        parse("status:open assignee:none", Resource::Conversations).expect("query"),
    ));
    h.until(vec![KeyCode::Char('L')], &format!("all {want} loaded"))
        .await;
    // Then refreshing, every second.
    h.app.refresh_clock_mut().switch(true);
    let rows = ids(&h);
    (h, rows)
}

/// Runs the loop until `done` holds of the app; the screen then.
async fn wait(h: &mut Harness, done: impl Fn(&App) -> bool + Send + 'static) -> String {
    h.wait_app("the condition", done).await
}

/// The table's part of the screen line that shows `id` (its short form): left of the
/// detail pane's border.
fn line_with(screen: &str, id: uuid::Uuid) -> Option<String> {
    screen
        .lines()
        .map(|l| l.split(['│', '┌', '└']).next().unwrap_or(l).to_string())
        .find(|l| l.contains(&short(id)))
}

/// Issue 33, 1 and 2: `G k k k`, the detail pane open, the selected conversation and another
/// below it are picked up by a colleague. The pane keeps its conversation and says it left;
/// both rows show ×; the selected one stays under the cursor through later refreshes until
/// the user moves, and `j` then goes to the row that was after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_selected_row_that_leaves_stays_under_the_cursor_until_the_user_moves() {
    let server = demo(churning(300)).await;
    let (mut h, rows) = queue(&server, (120, 35)).await;
    let n = rows.len();
    h.keys(vec![
        KeyCode::Char('G'),
        KeyCode::Char('k'),
        KeyCode::Char('k'),
        KeyCode::Char('k'),
        KeyCode::Enter,
    ])
    .await;
    let (x, next, y) = (rows[n - 4], rows[n - 3], rows[n - 2]);
    assert_eq!(h.app.selected_id(), Some(x));
    let agent = server.data().agents[0];
    assert!(server.assign(x, Some(agent)) && server.assign(y, Some(agent)));
    let screen = wait(&mut h, move |a| a.conversations.held().is_some()).await;
    assert_eq!(h.app.selected_id(), Some(x), "the cursor stays on it");
    let title = format!("Conversation {} · left this view", short(x));
    common::assert_has(&screen, &title);
    // Issue 39, 3: what it is now, looked up (its visitor's conversations), in one line at
    // the pane's width, whole; the fields below it are the row as it is now.
    let screen = wait(&mut h, move |a| {
        a.conversations.held().is_some_and(|x| x.now.is_some())
    })
    .await;
    let notice = format!("│× left this view: now assigned to {}, open", short(agent));
    common::assert_has(&screen, &notice);
    // The status line's news says it too (it said "no longer listed here" before).
    let now = format!("{} (selected) left this view: now assigned to", short(x));
    common::assert_has(&said(&h), &now);
    let at = screen
        .lines()
        .position(|l| l.contains(&notice))
        .unwrap_or(0);
    let below = screen.lines().nth(at + 1).unwrap_or_default();
    assert!(
        below.contains("│id          "),
        "the fields next:\n{screen}"
    );
    common::assert_has(&screen, &format!("│assignee    {agent}"));
    common::assert_has(&screen, " × left the view · all ");
    let said = h
        .app
        .status_line()
        .shown()
        .map(|m| m.text.clone())
        .unwrap_or_default();
    common::assert_has(&said, &format!("{} (selected) left this view", short(x)));
    // The held row keeps the selection's `>` and says × in its first cell (issue 41, 4);
    // the other row that left is marked × in the first column.
    let line = line_with(&screen, x).unwrap_or_else(|| panic!("{x} shown:\n{screen}"));
    assert!(
        line.starts_with("\">×open "),
        "selected and marked ×: {line}"
    );
    let line = line_with(&screen, y).unwrap_or_else(|| panic!("{y} shown:\n{screen}"));
    assert!(line.starts_with("\"×"), "marked ×: {line}");
    // Later refreshes: it stays, with its pane, until the user moves.
    let refreshes = h.app.refresh_clock().last();
    let screen = wait(&mut h, move |a| a.refresh_clock().last() > refreshes).await;
    let screen = if h.app.conversations.refreshing() {
        wait(&mut h, move |a| !a.conversations.refreshing()).await
    } else {
        screen
    };
    assert_eq!(h.app.selected_id(), Some(x));
    common::assert_has(&screen, &title);
    let screen = h.keys(vec![KeyCode::Char('j')]).await;
    assert_eq!(h.app.selected_id(), Some(next), "the row after it");
    assert!(h.app.conversations.held().is_none());
    common::assert_has(&screen, &format!("Conversation {} ", short(next)));
    assert!(!screen.contains("· left this view"), "{screen}");
    assert!(!screen.contains("× left this view"), "{screen}");
}

fn arriving(conversations: usize, new_per_head: u32) -> DemoOptions {
    let mut o = churning(conversations);
    o.faults.churn.new_per_head = new_per_head;
    o
}

/// The screen line (from the top) that shows `id` in the table.
fn row_of(screen: &str, id: uuid::Uuid) -> Option<usize> {
    let id = short(id);
    screen
        .lines()
        .position(|l| l.split(['│', '┌', '└']).next().unwrap_or(l).contains(&id))
}

/// Issue 33, 5: new rows arrive above the row being read at each refresh; it keeps its
/// screen line (the view scrolls with them) and the footer says how many are above. (A list
/// that fits on the screen shows whole: nothing is above then.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_row_being_read_keeps_its_line_as_new_rows_arrive_above() {
    let server = demo(arriving(300, 2)).await;
    let (mut h, rows) = queue(&server, (120, 12)).await;
    assert!(rows.len() > h.app.body_height(), "longer than the screen");
    // A reader from here (a watcher on row 1 would follow the top instead).
    let screen = press(
        &mut h,
        vec![KeyCode::Char('j'), KeyCode::Char('j'), KeyCode::Char('j')],
        move |a| a.conversations.selected() >= 3,
    )
    .await;
    let x = h.app.selected_id().expect("a row");
    let y = row_of(&screen, x).expect("on screen");
    for _ in 0..2 {
        let at = h.app.refresh_clock().last();
        wait(&mut h, move |a| {
            a.refresh_clock().last() > at && !a.conversations.refreshing()
        })
        .await;
    }
    let screen = h.keys(vec![]).await;
    assert_eq!(h.app.selected_id(), Some(x));
    assert_eq!(row_of(&screen, x), Some(y), "the same line:\n{screen}");
    let above = h.app.conversations.new_above();
    assert!(above >= 4, "two refreshes of two new rows: {above}");
    common::assert_has(&screen, &format!("↑ {above} arrived above, view held"));
    let screen = h.keys(vec![KeyCode::Char('g')]).await;
    assert!(!screen.contains("arrived above"), "{screen}");
}

/// The conversations tab at rest: no first page, page or Back's search in flight.
fn idle(a: &App) -> bool {
    let t = &a.conversations;
    t.reselect().is_none() && !t.refreshing() && !t.walk().is_loading()
}

/// Issue 33, 4: Back finds the conversation it left by id, loading on past where it was
/// (new rows pushed it down), or says it could not find it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_finds_the_conversation_by_id_or_says_it_could_not() {
    let server = demo(arriving(600, 60)).await;
    let mut h = Harness::on(&server, (120, 30), 50);
    h.until(vec![], "100 loaded").await;
    while h.app.conversations.selected() < 120 {
        h.keys(vec![KeyCode::PageDown]).await;
        wait(&mut h, idle).await;
    }
    let (x, was) = (
        h.app.selected_id().expect("a row"),
        h.app.conversations.selected(),
    );
    // Elsewhere and back: each new walk's first page brings 60 new rows above it.
    h.keys(vec![KeyCode::Char('u')]).await;
    wait(&mut h, idle).await;
    h.keys(vec![KeyCode::Backspace]).await;
    wait(&mut h, move |a| {
        a.conversations.reselect().is_none()
            && !a.conversations.refreshing()
            && !a.conversations.walk().is_loading()
    })
    .await;
    assert_eq!(h.app.selected_id(), Some(x), "found by id");
    assert!(h.app.conversations.selected() >= was + 120, "it moved down");

    // A conversation that left the view while the user was elsewhere: said.
    h.keys(vec![KeyCode::Char('u')]).await;
    wait(&mut h, move |a| !a.conversations.walk().is_loading()).await;
    h.keys(vec![KeyCode::Char('j'), KeyCode::Char('j')]).await;
    let y = h.app.selected_id().expect("a row");
    h.keys(vec![KeyCode::Char('s')]).await;
    assert!(server.assign(y, Some(server.data().agents[0])));
    h.keys(vec![KeyCode::Backspace]).await;
    let screen = wait(&mut h, move |a| {
        a.conversations.reselect().is_none()
            && !a.conversations.refreshing()
            && !a.conversations.walk().is_loading()
    })
    .await;
    assert_ne!(h.app.selected_id(), Some(y));
    let said = h
        .app
        .status_line()
        .shown()
        .map(|m| m.text.clone())
        .unwrap_or_default();
    assert!(said.contains(&short(y)), "said: {said:?}\n{screen}");
}

/// Issue 33, 1, on a union: the selected conversation is assigned to an agent the query
/// leaves out; its streams still list it, its check no longer passes it, so the refresh knows
/// what it is now and the pane says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_row_of_a_union_says_what_it_is_now() {
    let server = demo(churning(300)).await;
    let agent = server.data().agents[0];
    let mut h = Harness::on(&server, (120, 35), 50);
    h.app.settings_mut().use_refresh_secs(Some(1));
    let text = format!("status:open,pending -assignee:{agent}");
    h.app
        .queue_query(Some(parse(&text, Resource::Conversations).expect("query")));
    h.until(vec![KeyCode::Char('L')], "all ").await;
    h.app.refresh_clock_mut().switch(true);
    h.keys(vec![KeyCode::Char('j'), KeyCode::Char('j'), KeyCode::Enter])
        .await;
    let x = h.app.selected_id().expect("a row");
    assert!(server.assign(x, Some(agent)));
    let screen = wait(&mut h, move |a| a.conversations.held().is_some()).await;
    assert_eq!(h.app.selected_id(), Some(x));
    let now = format!("now assigned to {}", short(agent));
    common::assert_has(&screen, &now);
}

/// Sends `keys` once, then runs the loop until `done` holds (at most ~20 s); the screen then.
async fn press(
    h: &mut Harness,
    keys: Vec<KeyCode>,
    done: impl Fn(&App) -> bool + Send + 'static,
) -> String {
    h.keys(keys).await;
    wait(h, done).await
}

/// The status line's message.
fn said(h: &Harness) -> String {
    h.app
        .status_line()
        .shown()
        .map(|m| m.text.clone())
        .unwrap_or_default()
}

/// Issue 39, 2: a watcher (row 1, no pane) sees the arrivals: the cursor stays on row 1, the
/// new rows come into view under it, nothing is counted above, and the footer says it follows
/// the top. Once the user moves (a reader), the view holds still and says so, with the count
/// of what arrived above.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_on_row_one_follows_the_top_and_a_reader_is_held_still() {
    let server = demo(arriving(300, 2)).await;
    let (mut h, rows) = queue(&server, (80, 12)).await;
    assert_eq!(h.app.selected_id(), Some(rows[0]));
    for _ in 0..2 {
        let at = h.app.refresh_clock().last();
        wait(&mut h, move |a| {
            a.refresh_clock().last() > at && !a.conversations.refreshing()
        })
        .await;
    }
    let screen = wait(&mut h, |_| true).await;
    let top = ids(&h)[0];
    assert_ne!(top, rows[0], "new rows arrived on top");
    assert_eq!(h.app.conversations.selected(), 0, "row 1 still:\n{screen}");
    assert_eq!(
        h.app.selected_id(),
        Some(top),
        "the newest row is under the cursor"
    );
    assert_eq!(h.app.conversations.new_above(), 0, "nothing unseen above");
    assert!(
        row_of(&screen, rows[0]).is_some(),
        "the old top in view:\n{screen}"
    );
    common::assert_has(&screen, "following the top");
    assert!(!screen.contains("above"), "{screen}");

    // A reader: j; the row under the cursor keeps its line as rows arrive above.
    let screen = press(&mut h, vec![KeyCode::Char('j')], move |a| {
        a.conversations.selected() == 1
    })
    .await;
    let x = h.app.selected_id().expect("a row");
    let line = row_of(&screen, x).expect("on screen");
    let at = h.app.refresh_clock().last();
    let screen = wait(&mut h, move |a| {
        a.refresh_clock().last() > at && !a.conversations.refreshing()
    })
    .await;
    assert_eq!(h.app.selected_id(), Some(x), "held on its row");
    assert_eq!(row_of(&screen, x), Some(line), "on its line:\n{screen}");
    let above = h.app.conversations.new_above();
    assert!(above >= 2, "{above}");
    common::assert_has(&screen, &format!("↑ {above} arrived above, view held"));
    assert!(!screen.contains("following the top"), "{screen}");
}

/// Issue 39, 4: Back goes one step at a time: with the pane open, Backspace closes the pane
/// (the view stays); `q` in the pane closes it (the program goes on); Tab to Visitors then
/// Backspace is the view just left, on its row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_and_q_close_the_pane_first_and_back_undoes_a_tab_switch() {
    let server = demo(churning(300)).await;
    let (mut h, _rows) = queue(&server, (120, 35)).await;
    h.app.refresh_clock_mut().switch(false);
    let query = h.app.conversations.query().to_string();
    press(
        &mut h,
        vec![KeyCode::Char('j'), KeyCode::Char('j')],
        move |a| a.conversations.selected() == 2,
    )
    .await;
    let x = h.app.selected_id();
    let screen = press(&mut h, vec![KeyCode::Enter], move |a| a.detail().is_open()).await;
    common::assert_has(&screen, "Conversation ");
    press(&mut h, vec![KeyCode::Backspace], move |a| {
        !a.detail().is_open()
    })
    .await;
    assert_eq!(
        h.app.conversations.query().to_string(),
        query,
        "the view stays"
    );
    assert_eq!(h.app.selected_id(), x);
    press(&mut h, vec![KeyCode::Enter], move |a| a.detail().is_open()).await;
    press(&mut h, vec![KeyCode::Char('q')], move |a| {
        !a.detail().is_open()
    })
    .await;
    assert_eq!(h.app.selected_id(), x, "still running, on its row");
    // Tab (Visitors), then Back: the view just left, on its row.
    press(&mut h, vec![KeyCode::Tab], move |a| {
        a.active() == Resource::Visitors
    })
    .await;
    let screen = press(&mut h, vec![KeyCode::Backspace], move |a| {
        a.active() == Resource::Conversations
    })
    .await;
    assert_eq!(h.app.conversations.query().to_string(), query, "{screen}");
    assert_eq!(h.app.selected_id(), x, "on its row:\n{screen}");
}

/// Issue 39, 10: a row that left far below the screen is named on the status line, with the
/// key that shows where it was; the key puts the cursor there, the row shown × above it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_that_left_out_of_sight_is_named_and_the_key_shows_where() {
    let server = demo(churning(300)).await;
    let (mut h, rows) = queue(&server, (80, 12)).await;
    let far = rows[rows.len() - 2];
    assert!(row_of(&h.keys(vec![]).await, far).is_none(), "out of sight");
    assert!(server.assign(far, Some(server.data().agents[0])));
    wait(&mut h, move |a| !ids_in(a).contains(&far)).await;
    // Still, so that the × row shown for one refresh is there to see.
    h.app.refresh_clock_mut().switch(false);
    let text = said(&h);
    common::assert_has(
        &text,
        &format!("{} left the list (' shows where)", short(far)),
    );
    let screen = press(&mut h, vec![KeyCode::Char('\'')], move |a| {
        a.conversations.selected() > 0
    })
    .await;
    let line = line_with(&screen, far).unwrap_or_else(|| panic!("shown:\n{screen}"));
    assert!(line.starts_with("\"×"), "marked ×: {line}");
    assert_eq!(
        row_of(&screen, far).map(|r| r + 1),
        row_of(&screen, h.app.selected_id().expect("a row")),
        "just above the cursor:\n{screen}"
    );
    common::assert_has(&said(&h), &short(far));
}

/// Issue 39, 3: the first row, selected, leaves while new rows arrive on top: it is held
/// below them (they are newer), not pinned above them; the status line's message fits 80
/// columns whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_first_row_stays_below_the_rows_newer_than_it() {
    let server = demo(arriving(300, 2)).await;
    let (mut h, rows) = queue(&server, (80, 24)).await;
    let x = rows[0];
    assert_eq!(h.app.selected_id(), Some(x));
    assert!(server.assign(x, Some(server.data().agents[0])));
    let screen = wait(&mut h, move |a| a.conversations.held().is_some()).await;
    assert_eq!(h.app.selected_id(), Some(x));
    let held = row_of(&screen, x).expect("shown");
    let newest = ids(&h)[0];
    assert_ne!(newest, rows[1], "rows arrived on top");
    let first = row_of(&screen, newest).expect("the newest shown");
    assert!(first < held, "the newer rows first:\n{screen}");
    let text = said(&h);
    common::assert_has(&text, &format!("{} (selected) left this view", short(x)));
    let status = screen.lines().last().unwrap_or_default().to_string();
    assert!(!status.contains('…'), "whole: {status}");
}
