//! The visitor sync against the demo server and a real store file: its pace, its back-off on
//! 429 and its wait for the user's own fetches. The pacing runs on a `ManualClock`
//! (`common::on_clock`): the virtual time of each request is asserted exactly.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::Demo;
use convo::demo::Faults;
use convo::store::sync::{Pace, Syncer, UserFetches, walk};
use convo::store::{Store, StoreTask};

fn task(tmp: &tempfile::TempDir) -> StoreTask {
    StoreTask::spawn(Store::open(&tmp.path().join("store.sqlite")).expect("store")).expect("task")
}

fn ms(v: &[u64]) -> Vec<Duration> {
    v.iter().map(|n| Duration::from_millis(*n)).collect()
}

/// 429s on the first two requests (no wait asked): the sync hears them, backs off (its
/// spacing doubles to a second, then halves page by page) and still finishes the walk. On a
/// clock that moves only while the sync sleeps on it: the requests' virtual times are exact.
#[test]
fn the_sync_backs_off_on_429_and_finishes() {
    let limited = Demo::faulty(5, 350, |f| {
        f.rate_limit_first = 2;
        f.retry_after = "0".into();
    });
    let plain = Demo::start(5, 350, Faults::default());
    let run = |d: &Demo| {
        let tmp = tempfile::tempdir().unwrap();
        let store = task(&tmp);
        let (client, clock) = common::client_on_clock(d);
        let mut backed_off = false;
        let (out, times) = common::on_clock(
            d,
            &clock,
            walk(&client, &store, Pace::Unpaced, None, &mut |p, _| {
                backed_off |= p.backing_off;
            }),
        );
        (out.expect("the walk ends"), backed_off, times)
    };
    let (out, backed_off, times) = run(&limited);
    assert!(
        out.progress.done && out.progress.walked == 350,
        "{:?}",
        out.progress
    );
    assert!(backed_off, "the 429s were heard");
    // Two 429s and the first page at once (Retry-After 0); then 1 s, 500 ms and 250 ms
    // between the next starts.
    assert_eq!(times, ms(&[0, 0, 0, 1000, 1500, 1750]));
    let (out, backed_off, times) = run(&plain);
    assert!(out.progress.done && !backed_off, "no 429, no back-off");
    assert_eq!(times, ms(&[0, 0, 0, 0]), "unpaced: as fast as answered");
}

/// While a user's fetch is in flight the sync asks nothing; it goes on once it is done.
#[test]
fn the_sync_waits_for_the_users_own_fetches() {
    let d = Demo::start(5, 350, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let store = task(&tmp);
    let client = d.client();
    let user = Arc::new(UserFetches::default());
    let held = user.begin();
    let before = d.requests();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let u = user.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    rt.spawn(async move {
        let r = walk(&client, &store, Pace::Unpaced, Some(u), &mut |_, _| {}).await;
        let _ = done_tx.send(r.map(|o| o.requests).map_err(|e| e.to_string()));
    });
    // The sync is held before its first request: an event, not a quiet spell.
    d.block_on(common::wait_until(
        "the sync to wait for the user's fetch",
        || user.held() == 1,
    ));
    assert_eq!(
        d.requests(),
        before,
        "nothing asked while the user's fetch is in flight"
    );
    assert!(done_rx.try_recv().is_err());
    drop(held);
    let requests = done_rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the walk ends")
        .expect("no error");
    assert_eq!(requests, 4);
    assert_eq!(d.requests() - before, 4);
}

/// An open browser's sync (`Pace::Background`) walks at its pace the first time; once a walk
/// has finished, it walks again at one request a minute (an idle browser costs the service
/// little): the re-walk's first request comes 60 s of the clock after the last one, not
/// before, and so does each next one. `convo store sync` (`Pace::PerSecond`) walks again at
/// its pace. On a clock that moves only while the sync sleeps on it: milliseconds of wall time.
#[test]
fn a_background_walk_again_sends_one_request_a_minute() {
    let d = Demo::start(5, 350, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let store = task(&tmp);
    let (client, clock) = common::client_on_clock(&d);
    let (pages, times) = common::on_clock(&d, &clock, async {
        let mut s = Syncer::open(&client, &store, Pace::Background(50), None)
            .await
            .expect("opens");
        let mut walks = Vec::new();
        for _ in 0..2 {
            let mut pages = 0;
            while !s.progress().done || pages == 0 {
                s.walk_page().await.expect("a page");
                pages += 1;
            }
            walks.push(pages);
        }
        walks
    });
    assert_eq!(pages, vec![4, 4], "350 visitors: 4 pages a walk");
    // The first walk: 50 a second (20 ms and a millisecond apart). The walk again: a minute
    // after the first walk's last request, and a minute apart.
    let m = 60_000;
    assert_eq!(
        times,
        ms(&[0, 21, 42, 63, 63 + m, 63 + 2 * m, 63 + 3 * m, 63 + 4 * m])
    );
    // The user's own `convo store sync` walks again at its pace.
    let (own, times) = common::on_clock(
        &d,
        &clock,
        walk(&client, &store, Pace::PerSecond(50), None, &mut |_, _| {}),
    );
    let own = own.expect("walks");
    assert!(own.progress.done);
    let t = 63 + 4 * m;
    assert_eq!(times, ms(&[t, t + 21, t + 42, t + 63]));
}

/// The sync follows cursors by the engine's rules, as every walk does: a service that hands
/// back a cursor already read stops the walk with an error (not a walk without end), and one
/// that says `has_more` with no cursor ends the list there. (Seen red: with the repeat not
/// checked, the looping walk ran until the test's bound of pages.)
#[test]
fn the_sync_stops_at_a_repeated_cursor_and_ends_at_a_missing_one() {
    let looping = Demo::faulty(5, 350, |f| f.cursor_loop = true);
    let tmp = tempfile::tempdir().unwrap();
    let store = task(&tmp);
    let client = looping.client();
    let mut pages = 0;
    let out = looping.block_on(walk(&client, &store, Pace::Unpaced, None, &mut |p, _| {
        pages = p.pages;
        assert!(p.pages < 20, "the walk follows a cursor it has read: {p:?}");
    }));
    assert!(
        matches!(out, Err(convo::store::sync::SyncError::Loop)),
        "{:?}",
        out.map(|o| o.progress)
    );
    assert_eq!(
        pages, 1,
        "the first page kept; the next one repeats its own cursor"
    );

    let endless = Demo::faulty(5, 350, |f| f.null_cursor_with_more = true);
    let tmp = tempfile::tempdir().unwrap();
    let store = task(&tmp);
    let client = endless.client();
    let out = endless
        .block_on(walk(&client, &store, Pace::Unpaced, None, &mut |_, _| {}))
        .expect("the walk ends");
    assert!(out.progress.done, "{:?}", out.progress);
    assert_eq!(
        (out.requests, out.progress.walked),
        (1, 100),
        "{:?}",
        out.progress
    );
}
