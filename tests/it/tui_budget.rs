//! The request budget on the real loop (issue 29, "One budget, and the user first"): against
//! a demo server that allows N requests in any window, with the visitor sync running as fast
//! as its config lets it, the sync spends at most half of the window and the user's `L` never
//! meets a 429 (it waits on the budget instead, and says so).
//!
//! Its store is in a temporary directory (the config's `store.dir`).

use crate::common;

use std::time::Duration;

use common::runtime::{Harness, demo};
use convo::api::Priority;
use convo::demo::{DemoOptions, LimitHeaders, RequestBudget};
use convo::tui::runtime::Runtime;
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
            base_url: Some(url.clone()),
            ..Default::default()
        },
        &|k| (k == "CONVO_API_KEY").then(|| key.clone()),
    )
    .unwrap();
    cfg.store.dir = Some(home.join("stores"));
    // A clone of the loop's client: the same budget, read by the test.
    let client = common::client_for(&url, &key, |_| {});
    let app = convo::tui::testing::app(120, 30, 10);
    let mut h = Harness::new(Runtime::new(client.clone()), (120, 30), app);
    let look = convo::tui::tab::marks::look_key_of(&h.app.conversations);
    h.rt.start_store(&cfg, false, look);
    // Idle: the sync takes its half of the window (50 a second would take all of it).
    common::wait_until("the sync to take its half of the window", || {
        server.limit_counts().visitors >= u64::from(LIMIT / 2)
    })
    .await;
    // Then the sync (50 a second: it would take about 30 more if it could) is held by the
    // budget's share rule: an event, not a quiet spell. What it sent over the whole run is
    // checked at the end, from the server's log.
    common::wait_until("the sync to wait on the budget", || {
        client.budget().waiting(Priority::Background) > 0
    })
    .await;
    let idle = server.limit_counts();
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
    // At most half of any window went to the sync, by the server's clock over the whole run
    // (a span a little shorter than the window, so that a request's time on the way cannot
    // bring two of the client's windows into one). The sync asks full pages (`limit=100`), the
    // browser's own lists pages of 10. Without the halving the sync's 30 pages come in well
    // under a second. A slow machine only spreads them out.
    let span = WINDOW - Duration::from_millis(300);
    let sync: Vec<std::time::Instant> = server
        .limit_log()
        .into_iter()
        .filter(|(_, uri)| uri.starts_with("/v1/visitors?limit=100"))
        .map(|(at, _)| at)
        .collect();
    let most = most_within(&sync, span);
    assert!(
        (1..=LIMIT as usize / 2).contains(&most),
        "{headers:?}: the sync sent {most} requests within {span:?}, more than half the budget \
         of {LIMIT}"
    );
    assert_eq!(end.visitors_refused, 0, "{headers:?}: {end:?}");
    drop(h);
    server.shutdown().await;
}

/// The most of `times` (in the order they came) within any `span`.
fn most_within(times: &[std::time::Instant], span: Duration) -> usize {
    let mut times = times.to_vec();
    times.sort_unstable();
    let mut first = 0;
    let mut most = 0;
    for (i, t) in times.iter().enumerate() {
        while t.duration_since(times[first]) >= span {
            first += 1;
        }
        most = most.max(i + 1 - first);
    }
    most
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sync_takes_at_most_half_and_l_never_meets_a_429() {
    let tmp = tempfile::tempdir().unwrap();
    one_run(tmp.path(), LimitHeaders::Ietf).await;
    one_run(tmp.path(), LimitHeaders::X).await;
}
