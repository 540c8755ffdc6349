//! A live list under the user: refreshes of a union past `refresh_max_pages`, the selected
//! row that leaves, Back to a conversation, new rows above the one being read. The real loop
//! (`common::runtime::Harness`) against the demo server, with scripted churn where rows move.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;

use convo::api::Resource;
use convo::demo::{Churn, DemoOptions, DemoServer, Faults, ServeOrder};
use convo::query::parse;

mod common;
use common::runtime::{Harness, demo};

/// Runs the loop until no refresh is under way (at most ~20 s); the screen then.
async fn refreshed(h: &mut Harness, keys: Vec<KeyCode>) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut screen = h.phase(keys, 100).await;
    while h.app.conversations.head_in_flight || h.app.conversations.pager.is_loading() {
        assert!(
            Instant::now() < deadline,
            "the refresh never ended:\n{screen}"
        );
        screen = h.phase(vec![], 100).await;
    }
    screen
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

#[allow(dead_code)]
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

#[allow(dead_code)]
fn short(id: uuid::Uuid) -> String {
    id.simple().to_string()[..8].to_string()
}

#[allow(dead_code)]
fn server_ids(server: &DemoServer) -> Vec<uuid::Uuid> {
    server.conversations_now().iter().map(|c| c.id).collect()
}
