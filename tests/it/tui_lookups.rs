//! Issue 33 §3 and §6: an e-mail lookup's answer lands only while nothing newer replaced what
//! it was asked for; `x` and Esc drop it; "looking up the visitors…" stays while it runs and no
//! longer. `update()` fed with messages, and the real loop against a slow demo server.

use std::time::Duration;

use crossterm::event::KeyCode;

use convo::api::{Resource, Status};
use convo::demo::DemoOptions;
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

use crate::common;
use common::runtime::{Harness, demo};

use crate::common::app::said;

/// `:visitor:EMAIL` typed and Enter: the lookup asked for, its answer not yet in.
fn asked(app: &mut App, email: &str) -> Msg {
    update(app, ch(':'));
    // the line opens on the tab's query: a new one replaces it
    update(app, common::app::ctrl('u'));
    for c in format!("visitor:{email}").chars() {
        update(app, ch(c));
    }
    let cmds = update(app, key(KeyCode::Enter));
    let Some(Command::ResolveQueryEmails {
        ticket,
        query,
        resolved,
        ..
    }) = cmds
        .into_iter()
        .find(|c| matches!(c, Command::ResolveQueryEmails { .. }))
    else {
        panic!("no lookup asked for")
    };
    let found: convo::query::plan::Emails = [(email.to_string(), vec![testing::test_id(2, 1)])]
        .into_iter()
        .collect();
    Msg::QueryEmails {
        ticket,
        query,
        resolved,
        result: Ok(found),
    }
}

fn started(server: &FakeServer) -> App {
    common::app::started(server, (120, 30))
}

/// `s` before the lookup answered: the answer came later and put the e-mail filter in the
/// place of the `s`. It is dropped; `s` holds.
#[test]
fn a_lookup_answered_after_s_is_dropped_and_s_holds() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    let answer = asked(&mut app, "ana@example.com");
    server.settle(&mut app, ch('s'));
    assert_eq!(app.conversations.filter().status, Some(Status::Open));
    server.settle(&mut app, answer);
    assert_eq!(
        app.conversations.filter().status,
        Some(Status::Open),
        "s holds"
    );
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        "status:open"
    );
    assert!(!said(&app).contains("looking up"), "{}", said(&app));
}

/// `x` right after Enter said "no filters to clear" and the e-mail filter applied anyway.
#[test]
fn x_while_the_lookup_runs_drops_it() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    let answer = asked(&mut app, "ana@example.com");
    assert!(said(&app).starts_with("looking up the visitors of 1 e-mail address…"));
    server.settle(&mut app, ch('x'));
    assert_eq!(said(&app), "filters cleared: the e-mail lookup was dropped");
    server.settle(&mut app, answer);
    assert!(
        app.query_of(Resource::Conversations).is_empty(),
        "no filter"
    );
    // nothing in flight now: x says so
    server.settle(&mut app, ch('x'));
    assert_eq!(said(&app), "no filters to clear");
}

/// Esc while the lookup runs drops it; the filters stay.
#[test]
fn esc_while_the_lookup_runs_drops_it() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    let answer = asked(&mut app, "ana@example.com");
    server.settle(&mut app, key(KeyCode::Esc));
    assert_eq!(
        said(&app),
        "stopped looking up the visitors of 1 e-mail address; the filters stay"
    );
    server.settle(&mut app, answer);
    assert!(app.query_of(Resource::Conversations).is_empty());
}

/// "looking up the visitors of 1 e-mail address…" stayed ~30 s after the lookup: it goes
/// when the answer lands, or when a newer key replaced the lookup, and not before.
#[test]
fn the_looking_up_message_lasts_as_long_as_the_lookup() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    let answer = asked(&mut app, "ana@example.com");
    // a slow service: still looking after a minute, and said
    server.settle(&mut app, common::app::at(60));
    assert!(said(&app).starts_with("looking up"), "{}", said(&app));
    server.settle(&mut app, answer);
    assert!(!said(&app).contains("looking up"), "{}", said(&app));
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        "visitor:ana@example.com"
    );

    let _answer = asked(&mut app, "bo@example.com");
    server.settle(&mut app, ch('u'));
    assert!(!said(&app).contains("looking up"), "{}", said(&app));
}

/// The real loop against a demo server 150 ms away: `:visitor:EMAIL`, Enter, `s` 30 ms
/// later. The lookup's answer lands after the `s` and is dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_real_loop_keeps_s_over_a_late_lookup() {
    let server = demo(DemoOptions {
        seed: 5,
        conversations: 200,
        visitors: 20,
        latency: Duration::from_millis(150),
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    h.wait_app("a visitor with an e-mail", |a| {
        a.visitors.rows().iter().any(|v| v.email.is_some())
    })
    .await;
    let email = h
        .app
        .visitors
        .rows()
        .iter()
        .find_map(|v| v.email.clone())
        .expect("a visitor with an e-mail");
    let mut keys = vec![KeyCode::Char(':')];
    keys.extend(format!("visitor:{email}").chars().map(KeyCode::Char));
    keys.extend([KeyCode::Enter, KeyCode::Char('s')]);
    h.keys(keys).await;
    assert_eq!(
        h.app.query_of(Resource::Conversations).to_string(),
        "status:open",
        "the s pressed last holds"
    );
    assert!(
        h.app
            .conversations
            .rows()
            .iter()
            .all(|c| c.status == Status::Open)
    );
    server.shutdown().await;
}
