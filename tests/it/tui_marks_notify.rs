//! Marks on new and changed rows across refreshes and reloads, and notify views ringing
//! (more unassigned open, a conversation about to breach), at the `update` level (a fake
//! server whose rows change) and through the real loop against a churning demo server.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;

use convo::api::Status;
use convo::demo::{Churn, DemoOptions, Faults};
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::marks::Mark;
use convo::tui::msg::Msg;
use convo::tui::testing::{self, AGENT_A, FakeServer, ch, key, now, render};
use convo::tui::update::update;

use crate::common;
use common::app::at;
use common::runtime::{Harness, demo};

fn mark(app: &App, i: usize) -> Option<Mark> {
    let t = &app.conversations;
    t.marks().mark(t.generation(), &t.rows()[i].id)
}

fn refreshing(server: &FakeServer) -> App {
    let mut app = testing::app(120, 30, 50);
    app.refresh_every(Some(10));
    server.settle(&mut app, Msg::Resize(120, 30));
    app
}

#[test]
fn a_periodic_refresh_marks_new_and_changed_rows_until_selected_or_the_next_refresh() {
    let mut server = FakeServer::new(200, 5);
    let mut app = refreshing(&server);
    update(&mut app, key(KeyCode::Down));
    for i in 0..3 {
        server
            .conversations
            .insert(0, testing::conversation(9000 + i));
    }
    // row 3 of the old list (now 6): a new assignee; row 5 (now 8): only updatedAt moves
    server.conversations[6].assignee_id = Some(AGENT_A);
    assert_ne!(testing::conversation(3).assignee_id, Some(AGENT_A));
    server.conversations[8].updated_at = server.conversations[9].updated_at.clone();
    server.settle(&mut app, at(10));

    let g = app.conversations.generation();
    assert_eq!(app.conversations.marks().counts(g), (3, 1));
    assert_eq!(mark(&app, 0), Some(Mark::New));
    assert_eq!(mark(&app, 2), Some(Mark::New));
    assert_eq!(mark(&app, 3), None, "the old first row");
    assert_eq!(mark(&app, 6), Some(Mark::Changed));
    assert_eq!(mark(&app, 8), None, "updatedAt alone is no change");
    let screen = render(&app);
    assert!(screen.contains("• 3 new · ~ 1 changed"), "{screen}");
    // the selection stayed on its row (4 now) and on its screen line: the view scrolled
    // with the rows that arrived above it, and the footer counts them
    assert_eq!(app.conversations.selected(), 4);
    assert_eq!(app.conversations.offset(), 3);
    assert!(screen.contains("↑ 3 arrived above, view held"), "{screen}");

    // selecting a marked row clears its mark; at the top, nothing is new above
    update(&mut app, ch('g'));
    assert!(!render(&app).contains("arrived above"));
    assert_eq!(mark(&app, 0), None);
    assert_eq!(app.conversations.marks().counts(g), (2, 1));
    let screen = render(&app);
    let lines: Vec<&str> = screen.lines().collect();
    // the table body starts on line 3 (header, chips, column titles)
    assert!(lines[3].starts_with("\">"), "{}", lines[3]);
    assert!(lines[4].starts_with("\"•"), "{}", lines[4]);
    assert!(lines[5].starts_with("\"•"), "{}", lines[5]);
    assert!(lines[6].starts_with("\" "), "{}", lines[6]);
    assert!(lines[9].starts_with("\"~"), "{}", lines[9]);

    // the next refresh replaces the marks: nothing changed, nothing marked
    server.settle(&mut app, at(20));
    assert_eq!(app.conversations.marks().counts(g), (0, 0));
    let screen = render(&app);
    assert!(
        !screen.contains("•") && !screen.contains("changed"),
        "{screen}"
    );
}

#[test]
fn a_reload_compares_the_new_walk_with_the_rows_before() {
    let mut server = FakeServer::new(200, 5);
    let mut app = refreshing(&server);
    app.refresh_clock_mut().switch(false);
    for i in 0..2 {
        server
            .conversations
            .insert(0, testing::conversation(7000 + i));
    }
    server.conversations[2].status = Status::Other("snoozed".into());
    server.settle(&mut app, ch('r'));
    let g = app.conversations.generation();
    assert_eq!(app.conversations.marks().counts(g), (2, 1));
    assert_eq!(mark(&app, 1), Some(Mark::New));
    assert_eq!(mark(&app, 2), Some(Mark::Changed));
    // a filter change is another list: no marks
    server.settle(&mut app, ch('u'));
    let g = app.conversations.generation();
    assert_eq!(app.conversations.marks().counts(g), (0, 0));
    assert!(!render(&app).contains("•"));
}

fn open_unassigned(i: usize) -> convo::api::Conversation {
    let mut c = testing::conversation(i);
    c.status = Status::Open;
    c.assignee_id = None;
    c
}

fn notifies(cmds: &[Command]) -> Vec<usize> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Notify { more } => Some(*more),
            _ => None,
        })
        .collect()
}

#[test]
fn a_notify_view_rings_when_a_refresh_finds_more_unassigned_open() {
    let mut server = FakeServer::new(200, 5);
    let mut app = refreshing(&server);
    let mut view = convo::config::builtin_views::builtin_view();
    view.name = "Watch".into();
    view.notify = true;
    app.settings_mut().save_view(view);
    // not in the view yet: a refresh with more rows notifies nothing
    server.conversations.insert(0, open_unassigned(8000));
    assert!(notifies(&server.settle(&mut app, at(10))).is_empty());
    // the view (v, Down, Down, Enter): the built-in one first, "Watch" second
    let n = app.settings().views().len();
    server.settle(&mut app, ch('v'));
    for _ in 0..n - 1 {
        update(&mut app, key(KeyCode::Down));
    }
    server.settle(&mut app, key(KeyCode::Enter));
    assert!(convo::tui::notify::watching(
        app.settings().views(),
        app.conversations.filter()
    ));
    for i in 0..2 {
        server.conversations.insert(0, open_unassigned(8100 + i));
    }
    let cmds = server.settle(&mut app, at(20));
    assert_eq!(notifies(&cmds), [2]);
    // nothing more: no notification
    assert!(notifies(&server.settle(&mut app, at(30))).is_empty());
    // the text is fixed: a number and words, then the terminator of each sequence
    let bytes = convo::tui::notify::notification(2);
    assert_eq!(
        bytes,
        "\u{7}\u{1b}]9;convo: 2 new conversations in the view\u{7}\u{1b}]777;notify;convo;2 new conversations in the view\u{7}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_follow_a_churning_demo_server_across_reload_and_periodic_refresh() {
    let server = demo(DemoOptions {
        seed: 11,
        conversations: 300,
        visitors: 50,
        faults: Faults {
            churn: Churn {
                new_per_head: 3,
                reassign_per_head: 2,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 25);
    // a view of everything that notifies (the tab starts with no filters)
    h.app.settings_mut().save_view(convo::config::View {
        name: "All".into(),
        tab: convo::api::Resource::Conversations,
        conversations: Default::default(),
        visitors: Default::default(),
        notify: true,
        oldest_first: false,
        query: None,
    });
    h.until(vec![], "50 loaded · more available").await;
    assert!(!h.screen.text().contains("•"));
    let before = h.app.conversations.rows().to_vec();

    // r: a new walk, compared with the rows before it
    h.keys(vec![KeyCode::Char('r')]).await;
    let screen = h.until(vec![], "• 3 new").await;
    assert!(screen.contains("~ 2 changed"), "{screen}");
    let now_rows = server.conversations_now();
    let t = &h.app.conversations;
    let g = t.generation();
    for c in &now_rows[..3] {
        assert_eq!(t.marks().mark(g, &c.id), Some(Mark::New));
    }
    let changed: Vec<_> = now_rows[3..]
        .iter()
        .zip(&before)
        .filter(|(a, b)| a.assignee_id != b.assignee_id)
        .map(|(a, _)| a.id)
        .collect();
    assert_eq!(changed.len(), 2);
    for id in &changed {
        assert_eq!(t.marks().mark(g, id), Some(Mark::Changed));
    }

    // periodic refresh: the next first page brings 3 more; the old marks are replaced
    h.app.refresh_every(Some(1));
    h.app.refresh_clock_mut().restart(jiff::Timestamp::now());
    let deadline = Instant::now() + Duration::from_secs(20);
    while h.app.conversations.rows()[0].id == now_rows[0].id {
        h.step().await;
        assert!(Instant::now() < deadline, "no refresh merged");
    }
    h.app.refresh_clock_mut().switch(false);
    let latest = server.conversations_now();
    let t = &h.app.conversations;
    assert_eq!(
        t.rows()[..6],
        {
            let mut want: Vec<convo::api::Conversation> = Vec::new();
            for c in &latest[..6] {
                want.push(
                    serde_json::from_value(serde_json::to_value(c).expect("json")).expect("row"),
                );
            }
            want
        }[..]
    );
    assert_eq!(t.marks().counts(t.generation()), (3, 2));
    // the notification went out with the bell (a reload does not notify; the refresh did)
    let out = String::from_utf8_lossy(&h.out).to_string();
    assert!(out.starts_with("\u{7}\u{1b}]9;convo: "), "{out:?}");
    assert_eq!(
        out.matches("new conversations in the view\u{7}").count(),
        2,
        "{out:?}"
    );
    for c in &latest[..3] {
        assert_eq!(t.marks().mark(t.generation(), &c.id), Some(Mark::New));
    }
    for c in &now_rows[..3] {
        assert_ne!(
            t.marks().mark(t.generation(), &c.id),
            Some(Mark::New),
            "replaced"
        );
    }
    server.shutdown().await;
}

fn imminent_rings(cmds: &[Command]) -> Vec<usize> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::NotifyImminent { count } => Some(*count),
            _ => None,
        })
        .collect()
}

/// `notify = true` with a first-response target: each conversation rings once when it becomes
/// imminent (time passing, or a refresh bringing it), never again on later ticks or refreshes,
/// and not for those already imminent when the view was opened.
#[test]
fn a_notify_view_rings_once_per_conversation_that_becomes_imminent() {
    let mut server = FakeServer::new(0, 5);
    // Waiting conversations 1, 3, 5, … 39 minutes old at the fixed clock.
    for i in 0..20 {
        let mut c = open_unassigned(9000 + i);
        c.created_at = convo::api::Timestamp::Parsed(
            now()
                .checked_sub(jiff::SignedDuration::from_mins(1 + 2 * i as i64))
                .unwrap(),
        );
        server.conversations.push(c);
    }
    let mut app = refreshing(&server);
    app.settings_mut()
        .set_sla(common::app::first_response(25), false);
    let mut view = convo::config::builtin_views::builtin_view();
    view.name = "Watch".into();
    view.notify = true;
    app.settings_mut().save_view(view);
    let n = app.settings().views().len();
    server.settle(&mut app, ch('v'));
    for _ in 0..n - 1 {
        update(&mut app, key(KeyCode::Down));
    }
    // Opening the view: rows 21 minutes old and more are imminent or breaching already: quiet.
    let cmds = server.settle(&mut app, key(KeyCode::Enter));
    assert!(imminent_rings(&cmds).is_empty(), "{cmds:?}");
    let cmds = server.settle(&mut app, at(1));
    assert!(
        imminent_rings(&cmds).is_empty(),
        "nothing crossed yet: {cmds:?}"
    );
    // Four minutes later the rows of 17 and 19 minutes have crossed 20 (80 % of 25).
    let cmds = server.settle(&mut app, at(4 * 60));
    assert_eq!(imminent_rings(&cmds), [2]);
    // The same rows, later ticks and refreshes: no second ring.
    for s in [4 * 60 + 1, 4 * 60 + 30, 4 * 60 + 59] {
        assert!(imminent_rings(&server.settle(&mut app, at(s))).is_empty());
    }
    // At +6m the 15-minute row has crossed (one ring); the 19-minute one now breaches, which
    // is not a second ring.
    assert_eq!(
        imminent_rings(&server.settle(&mut app, at(6 * 60 + 1))),
        [1]
    );
    // A refresh brings a conversation that is already imminent: one ring.
    let mut c = open_unassigned(9500);
    c.created_at = convo::api::Timestamp::Parsed(
        now()
            .checked_sub(jiff::SignedDuration::from_mins(22))
            .unwrap(),
    );
    server.conversations.insert(0, c);
    let cmds = server.settle(&mut app, at(6 * 60 + 20));
    assert_eq!(imminent_rings(&cmds), [1], "{cmds:?}");
    // The text is fixed: a number and words.
    assert_eq!(
        convo::tui::notify::imminent_notification(2),
        "\u{7}\u{1b}]9;convo: 2 conversations about to breach their first-response target\u{7}\u{1b}]777;notify;convo;2 conversations about to breach their first-response target\u{7}"
    );
    // Without a notify view nothing rings, whatever crosses.
    let mut quiet = refreshing(&server);
    let sla = app.settings().sla().as_ref().clone();
    quiet.settings_mut().set_sla(sla, false);
    assert!(imminent_rings(&server.settle(&mut quiet, at(30 * 60))).is_empty());
}
