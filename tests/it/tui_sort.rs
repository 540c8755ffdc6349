//! The display sort on the real loop against the demo server: a column sorts as it shows.

use crate::common;

use crossterm::event::KeyCode;

use common::runtime::{Harness, demo};
use convo::demo::DemoOptions;
use convo::text::fold::fold;

/// Issue 39 §12: sorted by visitor, the rows are in the order of the names shown (case and
/// accents folded), not of the visitors' ids; visitors with no name known come after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sorted_by_visitor_the_rows_follow_the_names_shown() {
    let server = demo(DemoOptions {
        seed: 5,
        conversations: 120,
        visitors: 60,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 35), 100);
    h.until(vec![], "VISITOR").await;
    // the names come from the Visitors tab's rows, read beside: wait for the first row's
    let first = server.data().conversations[0].visitor_id;
    let name = server
        .data()
        .visitors
        .iter()
        .find(|v| v.id == first)
        .and_then(|v| v.name.clone())
        .expect("the first row's visitor has a name");
    h.until(vec![], &name).await;
    let screen = h
        .until(
            vec![KeyCode::Char('>'), KeyCode::Char('>')],
            "sorted by visitor ↓",
        )
        .await;
    let app = &h.app;
    let f = &app.sort().conversations;
    let shown: Vec<Option<String>> = f
        .perm
        .iter()
        .map(|&i| {
            app.names()
                .shown(&app.conversations.rows()[i].visitor_id)
                .map(|n| fold(&convo::text::sanitize(n)))
        })
        .collect();
    assert_eq!(shown.len(), app.conversations.rows().len(), "{screen}");
    assert!(shown.iter().any(Option::is_some), "{shown:?}\n{screen}");
    // descending: names from z to a, then the ids of visitors with no name known
    let named = shown.iter().take_while(|n| n.is_some()).count();
    assert!(
        shown[named..].iter().all(Option::is_none),
        "a name after an id: {shown:?}"
    );
    let names: Vec<&String> = shown[..named].iter().flatten().collect();
    let mut want = names.clone();
    want.sort();
    want.reverse();
    assert_eq!(names, want, "{screen}");
    server.shutdown().await;
}

/// Back returns to what the user saw, its order too: a list sorted by status, left for a
/// query, comes back sorted by status on the row that was selected (a new walk clears the
/// display sort; Back puts it back). Seen red: Back showed the list unsorted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_returns_to_the_list_in_the_sort_it_was_shown_in() {
    let server = demo(DemoOptions {
        seed: 7,
        conversations: 120,
        visitors: 60,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 35), 100);
    // Every row loaded (the look-ahead reads the second page): a row's place in the sort is
    // the same before and after.
    h.until(vec![], "all 120 loaded").await;
    h.press(vec![KeyCode::Char('>')], "sorted by status ↓")
        .await;
    h.keys(vec![KeyCode::Down, KeyCode::Down]).await;
    let selected = h
        .app
        .sort()
        .conversations
        .pos(h.app.conversations.selected());
    let id = h
        .app
        .conversations
        .selected_row()
        .map(|r| r.id)
        .expect("a row");
    let mut keys = vec![KeyCode::Char(':')];
    keys.extend("status:pending".chars().map(KeyCode::Char));
    keys.push(KeyCode::Enter);
    // Each key once (`until` would press them again after a second on a loaded machine):
    // the query's walk, then Back.
    let screen = h
        .wait(keys, "the query's walk", |s| s.contains("status:pending"))
        .await;
    assert!(
        !screen.contains("sorted by"),
        "a new walk starts unsorted:\n{screen}"
    );
    h.wait(vec![KeyCode::Backspace], "Back", |s| {
        s.contains("sorted by status ↓")
    })
    .await;
    // Back's walk reselects the row once its page has arrived.
    let screen = h
        .wait_app("the row selected again, every row loaded", move |app| {
            app.conversations.selected_row().map(|r| r.id) == Some(id)
                && app.conversations.walk().is_done()
        })
        .await;
    let app = &h.app;
    assert_eq!(
        app.conversations.selected_row().map(|r| r.id),
        Some(id),
        "{screen}"
    );
    assert_eq!(
        app.sort().conversations.pos(app.conversations.selected()),
        selected,
        "{screen}"
    );
}
