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
        !a.conversations.head_in_flight && !a.conversations.pager.is_loading()
    })
    .await
}

fn ids(h: &Harness) -> Vec<uuid::Uuid> {
    h.app.conversations.rows().iter().map(|c| c.id).collect()
}

fn scanned(h: &Harness) -> usize {
    h.app.conversations.union.as_ref().map_or(0, |u| u.scanned)
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
        h.app.refresh_max_pages = 2;
        h.app.pending_query = Some(
            parse(
                "status:open,pending -assignee:none",
                Resource::Conversations,
            )
            .expect("query"),
        );
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
            let said = h.app.message.as_ref().map(|m| m.text.clone());
            let said = said.unwrap_or_default();
            assert!(said.contains("are kept live"), "{order:?}: {said:?}");
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
    h.app.refresh_secs = Some(1);
    h.app.pending_query =
        Some(parse("status:open assignee:none", Resource::Conversations).expect("query"));
    h.until(vec![KeyCode::Char('L')], &format!("all {want} loaded"))
        .await;
    // Then refreshing, every second.
    h.app.refresh_on = true;
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
    common::assert_has(&screen, "× left this view at the last refresh");
    common::assert_has(&screen, " × left the view · all ");
    let said = h
        .app
        .message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default();
    common::assert_has(&said, &format!("the selected {} left this view", short(x)));
    for gone in [x, y] {
        let line = line_with(&screen, gone).unwrap_or_else(|| panic!("{gone} shown:\n{screen}"));
        assert!(line.starts_with("\"×"), "marked ×: {line}");
    }
    // Later refreshes: it stays, with its pane, until the user moves.
    let refreshes = h.app.last_refresh;
    let screen = wait(&mut h, move |a| a.last_refresh > refreshes).await;
    let screen = if h.app.conversations.head_in_flight {
        wait(&mut h, move |a| !a.conversations.head_in_flight).await
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
    let screen = h
        .keys(vec![
            KeyCode::Char('j'),
            KeyCode::Char('j'),
            KeyCode::Char('j'),
        ])
        .await;
    let x = rows[3];
    assert_eq!(h.app.selected_id(), Some(x));
    let y = row_of(&screen, x).expect("on screen");
    for _ in 0..2 {
        let at = h.app.last_refresh;
        wait(&mut h, move |a| {
            a.last_refresh > at && !a.conversations.head_in_flight
        })
        .await;
    }
    let screen = h.keys(vec![]).await;
    assert_eq!(h.app.selected_id(), Some(x));
    assert_eq!(row_of(&screen, x), Some(y), "the same line:\n{screen}");
    let above = h.app.conversations.new_above;
    assert!(above >= 4, "two refreshes of two new rows: {above}");
    common::assert_has(&screen, &format!("↑ {above} new above"));
    let screen = h.keys(vec![KeyCode::Char('g')]).await;
    assert!(!screen.contains("new above"), "{screen}");
}

/// The conversations tab at rest: no first page, page or Back's search in flight.
fn idle(a: &App) -> bool {
    let t = &a.conversations;
    t.reselect.is_none() && !t.head_in_flight && !t.pager.is_loading()
}

/// Issue 33, 4: Back finds the conversation it left by id, loading on past where it was
/// (new rows pushed it down), or says it could not find it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_finds_the_conversation_by_id_or_says_it_could_not() {
    let server = demo(arriving(600, 60)).await;
    let mut h = Harness::on(&server, (120, 30), 50);
    h.until(vec![], "100 loaded").await;
    while h.app.conversations.selected < 120 {
        h.keys(vec![KeyCode::PageDown]).await;
        wait(&mut h, idle).await;
    }
    let (x, was) = (
        h.app.selected_id().expect("a row"),
        h.app.conversations.selected,
    );
    // Elsewhere and back: each new walk's first page brings 60 new rows above it.
    h.keys(vec![KeyCode::Char('u')]).await;
    wait(&mut h, idle).await;
    h.keys(vec![KeyCode::Backspace]).await;
    wait(&mut h, move |a| {
        a.conversations.reselect.is_none()
            && !a.conversations.head_in_flight
            && !a.conversations.pager.is_loading()
    })
    .await;
    assert_eq!(h.app.selected_id(), Some(x), "found by id");
    assert!(h.app.conversations.selected >= was + 120, "it moved down");

    // A conversation that left the view while the user was elsewhere: said.
    h.keys(vec![KeyCode::Char('u')]).await;
    wait(&mut h, move |a| !a.conversations.pager.is_loading()).await;
    h.keys(vec![KeyCode::Char('j'), KeyCode::Char('j')]).await;
    let y = h.app.selected_id().expect("a row");
    h.keys(vec![KeyCode::Char('s')]).await;
    assert!(server.assign(y, Some(server.data().agents[0])));
    h.keys(vec![KeyCode::Backspace]).await;
    let screen = wait(&mut h, move |a| {
        a.conversations.reselect.is_none()
            && !a.conversations.head_in_flight
            && !a.conversations.pager.is_loading()
    })
    .await;
    assert_ne!(h.app.selected_id(), Some(y));
    let said = h
        .app
        .message
        .as_ref()
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
    h.app.refresh_secs = Some(1);
    let text = format!("status:open,pending -assignee:{agent}");
    h.app.pending_query = Some(parse(&text, Resource::Conversations).expect("query"));
    h.until(vec![KeyCode::Char('L')], "all ").await;
    h.app.refresh_on = true;
    h.keys(vec![KeyCode::Char('j'), KeyCode::Char('j'), KeyCode::Enter])
        .await;
    let x = h.app.selected_id().expect("a row");
    assert!(server.assign(x, Some(agent)));
    let screen = wait(&mut h, move |a| a.conversations.held().is_some()).await;
    assert_eq!(h.app.selected_id(), Some(x));
    let now = format!("now assigned to {}", short(agent));
    common::assert_has(&screen, &now);
}
