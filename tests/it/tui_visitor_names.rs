//! Visitors' names in the real loop against the demo server, with a real local store in a
//! temporary directory: a page's visitors are read from the store (never the whole store at
//! start), and a conversation by a visitor nobody has seen yet is named within two refreshes,
//! whether the service lists visitors newest first or oldest first.
//!
//! Each test keeps its store in a temporary directory of its own (the config's `store.dir`).

use crate::common;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use common::runtime::{Harness, demo};
use convo::demo::{Churn, DemoOptions, DemoServer, Faults, ServeOrder};
use uuid::Uuid;

/// The config `text` for `server`, its store in `stores`.
fn config(server: &DemoServer, text: &str, stores: &std::path::Path) -> convo::config::Config {
    let key = server.api_key();
    let mut cfg = convo::config::Config::from_toml_str(
        text,
        std::path::Path::new("/nonexistent/config.toml"),
        &convo::config::Overrides {
            base_url: Some(server.base_url()),
            ..Default::default()
        },
        &|k| (k == "CONVO_API_KEY").then(|| key.clone()),
    )
    .expect("config");
    cfg.store.dir = Some(stores.to_path_buf());
    cfg
}

/// With 20,000 visitors in the store, the first page's visitors are named from it and the
/// names cache holds only them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_reads_its_visitors_and_nothing_more() {
    let tmp = tempfile::tempdir().unwrap();
    let server = demo(DemoOptions {
        seed: 3,
        conversations: 500,
        visitors: 20_000,
        ..DemoOptions::default()
    })
    .await;
    let cfg = config(&server, "visitor_sync = false\n", tmp.path());
    let path = convo::store::path_for(&cfg).expect("a store path");
    let mut store = convo::store::Store::open(&path).expect("store");
    let rows: Vec<convo::api::Visitor> = server
        .data()
        .visitors
        .iter()
        .map(|v| serde_json::from_value(serde_json::to_value(v).unwrap()).unwrap())
        .collect();
    store.upsert_visitors(&rows, 1).expect("written");
    drop(store);

    let mut h = Harness::on(&server, (120, 30), 50);
    let look = convo::tui::tab::marks::look_key_of(&h.app.conversations);
    h.rt.start_store(&cfg, false, look);
    // Visitors with a name, an e-mail or an external id to show.
    let showable: HashSet<Uuid> = server
        .data()
        .visitors
        .iter()
        .filter(|v| {
            convo::store::visitors::display_name(
                v.name.as_deref(),
                v.email.as_deref(),
                v.external_id.as_deref(),
            )
            .is_some()
        })
        .map(|v| v.id)
        .collect();
    let deadline = Instant::now() + Duration::from_secs(20);
    let visitors = loop {
        h.step().await;
        let visitors: HashSet<Uuid> = h
            .app
            .conversations
            .rows()
            .iter()
            .map(|c| c.visitor_id)
            .collect();
        let all_named = visitors
            .iter()
            .all(|v| h.app.names().shown(v).is_some() || !showable.contains(v));
        if !visitors.is_empty() && all_named {
            break visitors;
        }
        assert!(
            Instant::now() < deadline,
            "the loaded rows' visitors were never all named"
        );
    };
    // The visitors of the pages fetched so far (loaded, and ahead of the screen: at most four
    // pages of 50), not the store's 20,000.
    assert!(
        h.app.names().len() <= 4 * 50,
        "the cache holds the fetched pages' visitors ({} on the loaded rows), not the \
         store's 20,000: {}",
        visitors.len(),
        h.app.names().len()
    );
}

/// Refreshing every 2 s against a demo server whose every refresh brings a conversation by a
/// new visitor: each new visitor is named by the second refresh after its row appeared.
async fn new_visitors_are_named_within_two_refreshes(order: ServeOrder) {
    let tmp = tempfile::tempdir().unwrap();
    let server = demo(DemoOptions {
        seed: 11,
        conversations: 30,
        visitors: 250,
        faults: Faults {
            churn: Churn {
                new_per_head: 1,
                new_visitors: 100,
                ..Churn::default()
            },
            order,
            ..Faults::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let old: HashSet<Uuid> = server.data().visitors.iter().map(|v| v.id).collect();
    let cfg = config(&server, "visitor_sync_rps = 50\n", tmp.path());
    let mut h = Harness::on(&server, (120, 60), 100);
    h.app.refresh_every(Some(2));
    let look = convo::tui::tab::marks::look_key_of(&h.app.conversations);
    h.rt.start_store(&cfg, false, look);
    // Refresh number (first pages served) at which each new visitor's row was first loaded.
    let mut seen: HashMap<Uuid, u64> = HashMap::new();
    let mut named: HashSet<Uuid> = HashSet::new();
    let deadline = Instant::now() + Duration::from_secs(40);
    while named.len() < 4 {
        h.step().await;
        let heads = server.first_page_count();
        for c in h.app.conversations.rows() {
            if !old.contains(&c.visitor_id) {
                seen.entry(c.visitor_id).or_insert(heads);
            }
        }
        for (v, at) in &seen {
            if h.app.names().shown(v).is_some() {
                named.insert(*v);
            } else {
                assert!(
                    heads <= at + 2,
                    "{order:?}: the visitor of a row first loaded at refresh {at} is still \
                     unnamed at refresh {heads}"
                );
            }
        }
        assert!(
            Instant::now() < deadline,
            "{order:?}: {} new visitors seen, {} named",
            seen.len(),
            named.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_visitors_are_named_within_two_refreshes_when_listed_newest_first() {
    new_visitors_are_named_within_two_refreshes(ServeOrder::Newest).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_visitors_are_named_within_two_refreshes_when_listed_oldest_first() {
    new_visitors_are_named_within_two_refreshes(ServeOrder::Oldest).await;
}
