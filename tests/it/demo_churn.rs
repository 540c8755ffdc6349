//! Issue 33 §7: the demo's churn created conversations in the future (`CREATED in 6s`): the
//! changes caught up on a request after a quiet spell were each created a second after the
//! head. The real loop against an anchored demo server with churn.

use std::time::Duration;

use crossterm::event::KeyCode;

use convo::api::Timestamp;
use convo::demo::{Churn, DemoOptions, Faults};

use crate::common;
use common::runtime::{Harness, demo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn churn_never_creates_a_conversation_in_the_future() {
    let server = demo(DemoOptions {
        conversations: 300,
        visitors: 50,
        anchor: Some(jiff::Timestamp::now()),
        faults: Faults {
            churn: Churn {
                per_minute: 600,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    h.settled().await;
    // a quiet spell: about 20 changes are due when the next request comes
    tokio::time::sleep(Duration::from_secs(2)).await;
    let screen = h.keys(vec![KeyCode::Char('r')]).await;
    let now = jiff::Timestamp::now();
    let future: Vec<String> = h
        .app
        .conversations
        .rows()
        .iter()
        .filter_map(|c| match c.created_at {
            Timestamp::Parsed(t) if t > now => Some(format!("{} {t}", c.id)),
            _ => None,
        })
        .collect();
    assert!(
        future.is_empty(),
        "created after {now}: {future:?}\n{screen}"
    );
    assert!(!screen.contains(" in "), "{screen}");
    server.shutdown().await;
}
