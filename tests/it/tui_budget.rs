//! The request budget on the real loop (issue 29, "One budget, and the user first"): against
//! a demo server that allows N requests in any window, with the visitor sync running as fast
//! as its config lets it, the sync spends at most half of the window and the user's `L` never
//! meets a 429 (it waits on the budget instead, and says so).
//!
//! Its store is in a temporary directory (the config's `store.dir`).

use crate::common;

use std::time::Duration;

use common::runtime::{Harness, demo};
use convo::demo::{DemoOptions, LimitHeaders, RequestBudget};
use crossterm::event::KeyCode;

const LIMIT: u32 = 30;
const WINDOW: Duration = Duration::from_secs(3);

/// 600 conversations, 10 a page: `L` is 60 pages, more than a whole window allows, so it
/// waits on the budget however the window falls (not only when started late in one). 3,000 visitors: a sync of 30 pages that
/// would take every slot of the window if it could.
async fn one_run(home: &std::path::Path, headers: LimitHeaders) {
    let server = demo(DemoOptions {
        seed: 11,
        conversations: 600,
        visitors: 3000,
        budget: Some(RequestBudget {
            limit: LIMIT,
            window: WINDOW,
            headers,
        }),
        ..DemoOptions::default()
    })
    .await;
    let (url, key) = (server.base_url(), server.api_key());
    let text = "visitor_sync_rps = 50\n";
    let cfg_path = home.join("config.toml");
    std::fs::write(&cfg_path, text).unwrap();
    let mut cfg = convo::config::Config::from_toml_str(
        text,
        &cfg_path,
        &convo::config::Overrides {
            base_url: Some(url),
            ..Default::default()
        },
        &|k| (k == "CONVO_API_KEY").then(|| key.clone()),
    )
    .unwrap();
    cfg.store.dir = Some(home.join("stores"));
    let mut h = Harness::on(&server, (120, 30), 10);
    let look = convo::tui::tab::marks::look_key_of(&h.app.conversations);
    h.rt.start_store(&cfg, false, look);
    // Idle: the sync takes its half of the window (50 a second would take all of it).
    common::wait_until("the sync to take its half of the window", || {
        server.limit_counts().visitors >= u64::from(LIMIT / 2)
    })
    .await;
    let idle = server.limit_counts();
    assert!(idle.visitors > 0, "{headers:?}: the sync ran: {idle:?}");
    assert!(
        idle.visitors <= u64::from(LIMIT / 2),
        "{headers:?}: the sync took more than half the window: {idle:?}"
    );
    assert_eq!(idle.visitors_refused, 0, "{headers:?}: {idle:?}");

    // `L`: 60 pages, more than any window has; the loop waits on the budget, no 429.
    let mut screen = h.keys(vec![KeyCode::Char('L')]).await;
    let mut waited = false;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !screen.contains("all 600 loaded") {
        waited |= screen.contains("waiting on the request budget");
        assert!(
            std::time::Instant::now() < deadline,
            "{headers:?}: L never ended:\n{screen}"
        );
        screen = h.step().await;
    }
    let end = server.limit_counts();
    assert_eq!(
        end.conversations_refused, 0,
        "{headers:?}: the user's L met 429s: {end:?}"
    );
    assert!(end.conversations >= 60, "{headers:?}: {end:?}");
    assert!(
        waited,
        "{headers:?}: L needed more than the window had left, and never said it waited"
    );
    drop(h);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sync_takes_at_most_half_and_l_never_meets_a_429() {
    let tmp = tempfile::tempdir().unwrap();
    one_run(tmp.path(), LimitHeaders::Ietf).await;
    one_run(tmp.path(), LimitHeaders::X).await;
}
