//! The real runtime loop on a `TestBackend` with scripted keys, against the demo server on a
//! random loopback port (real HTTP).

use std::time::Duration;

use crossterm::event::KeyCode;

use convo::demo::{DemoOptions, DemoServer};
use convo::tui::testing;

use crate::common;
use common::runtime::{Harness, demo, runtime};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loop_walks_filters_and_switches_tabs_against_the_demo_server() {
    let server = demo(DemoOptions {
        seed: 7,
        conversations: 230,
        visitors: 60,
        latency: Duration::from_millis(20),
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);

    // first rows appear
    let screen = h.until(vec![], "100 loaded · more available").await;
    let first = &server.data().conversations[0];
    assert!(
        screen.contains(&first.id.simple().to_string()[..8]),
        "{screen}"
    );

    // End, again and again, walks every page
    let screen = h.until(vec![KeyCode::End], "all 230 loaded").await;
    assert_eq!(h.app.conversations.rows().len(), 230);
    assert!(!screen.contains("loading…"), "{screen}");

    // a status filter applies
    let open = common::count(&server, |c| c.status == "open");
    h.keys(vec![KeyCode::Char('s')]).await;
    let screen = h
        .until(vec![KeyCode::End], &format!("all {open} loaded"))
        .await;
    assert!(screen.contains(" status:open "), "{screen}");
    assert!(
        h.app
            .conversations
            .rows()
            .iter()
            .all(|c| c.status == convo::api::Status::Open)
    );

    // the Visitors tab loads
    h.keys(vec![KeyCode::Char('2')]).await;
    let screen = h.until(vec![], "all 60 loaded").await;
    assert!(screen.contains("EMAIL"), "{screen}");

    // y copies the id with OSC 52
    h.keys(vec![KeyCode::Char('y')]).await;
    let osc = String::from_utf8_lossy(&h.out).to_string();
    let payload = osc
        .strip_prefix("\u{1b}]52;c;")
        .and_then(|p| p.strip_suffix('\u{7}'))
        .unwrap_or_else(|| panic!("not one OSC 52 sequence: {osc:?}"));
    use base64::Engine as _;
    let copied = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .expect("the payload is base64");
    let selected = h.app.selected_id().expect("a row is selected");
    assert_eq!(
        String::from_utf8(copied).expect("UTF-8"),
        selected.to_string(),
        "the clipboard gets exactly the selected row's UUID"
    );

    // q ends the loop: input that never ends and a condition that never holds (the wait
    // fails at its deadline if q did not end the loop)
    h.wait(vec![KeyCode::Char('q')], "q to end the loop", |_| false)
        .await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_server_shows_the_error_and_keeps_the_loop_alive() {
    let server = demo(DemoOptions {
        conversations: 30,
        visitors: 5,
        faults: convo::demo::Faults {
            fail_always: true,
            ..Default::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let rt = runtime(&server, |s| {
        s.retry.backoff = vec![Duration::from_millis(10); 2]
    });
    let mut h = Harness::new(rt, (100, 20), testing::app(100, 20, 50));
    // The cause first (" error: CAUSE · r retries; loaded rows stay"): at 100 columns the
    // hint is what is cut, and the line says where to read it whole.
    let screen = h.until(vec![], " error: the service failed").await;
    assert!(screen.contains("HTTP 500"), "{screen}");
    assert!(screen.contains("(? shows all)"), "{screen}");
    assert!(!screen.contains(&server.api_key()), "the key never shows");
    server.shutdown().await;
}

/// `P` against two real services: a profile whose config is refused (its key command fails)
/// leaves the old profile fully working, its walk going on against its own service; a good
/// one switches client, key and rows at once, and the old service is asked nothing more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_profile_keeps_the_old_one_working_and_a_good_one_switches_everything() {
    let start = |seed| {
        demo(DemoOptions {
            seed,
            conversations: 300,
            visitors: 20,
            ..DemoOptions::default()
        })
    };
    let (prod, staging) = (start(21).await, start(22).await);
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = common::file(
        tmp.path(),
        "config.toml",
        format!(
            "store = false\n\
             [profiles.prod]\nbase_url = {:?}\napi_key = {:?}\n\
             [profiles.staging]\nbase_url = {:?}\napi_key = {:?}\n\
             [profiles.broken]\nbase_url = {:?}\napi_key_command = \"echo vault sealed >&2; exit 3\"\n",
            prod.base_url(),
            prod.api_key(),
            staging.base_url(),
            staging.api_key(),
            staging.base_url(),
        ),
    );
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o600)).expect("0600");
    }
    let mut rt = runtime(&prod, |_| {});
    rt.config_path = Some(cfg.clone());
    let mut app = testing::app(120, 30, 50);
    app.profiles_mut().offer(
        vec!["prod".into(), "staging".into(), "broken".into()],
        Some("prod".into()),
    );
    let mut h = Harness::new(rt, (120, 30), app);
    let short = |s: &DemoServer| s.data().conversations[0].id.simple().to_string()[..8].to_string();
    let screen = h.until(vec![], "loaded · more available").await;
    assert!(screen.contains(&short(&prod)), "{screen}");

    // P, Down, Down, Enter: "broken" is refused; prod stays in use and keeps walking.
    let screen = h
        .until(
            vec![
                KeyCode::Char('P'),
                KeyCode::Down,
                KeyCode::Down,
                KeyCode::Enter,
            ],
            "profile not switched",
        )
        .await;
    // The status line cuts the error at 120 columns; it is kept whole for the help overlay.
    assert!(
        h.app
            .status_line()
            .last_error()
            .is_some_and(|e| e.text.contains("vault sealed")),
        "{screen}"
    );
    assert_eq!(h.app.profiles().current.as_deref(), Some("prod"));
    let before = prod.request_count();
    let screen = h.until(vec![KeyCode::End], "all 300 loaded").await;
    assert!(
        prod.request_count() > before,
        "the old walk went on: {screen}"
    );
    assert_eq!(
        staging.request_count(),
        0,
        "nothing was asked of the refused profile's host"
    );

    // P, Down, Enter: "staging" is taken whole.
    let screen = h
        .press(
            vec![KeyCode::Char('P'), KeyCode::Down, KeyCode::Enter],
            "profile staging",
        )
        .await;
    let screen = if screen.contains(&short(&staging)) {
        screen
    } else {
        h.until(vec![], &short(&staging)).await
    };
    assert!(!screen.contains(&short(&prod)), "{screen}");
    let asked = prod.request_count();
    h.until(vec![KeyCode::End], "all 300 loaded").await;
    assert_eq!(
        prod.request_count(),
        asked,
        "the old service is asked nothing more"
    );
    assert!(staging.request_count() > 0);
    assert_eq!(h.app.profiles().current.as_deref(), Some("staging"));
    prod.shutdown().await;
    staging.shutdown().await;
}

/// Started without `--profile`, the config's top level is in use; `P` listed only the
/// `[profiles.NAME]`, so after a switch there was no way back. The picker lists the top level
/// first, and choosing it loads the config without a profile (its own service again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_profile_picker_switches_back_to_the_configs_top_level() {
    let start = |seed| {
        DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            seed,
            conversations: 300,
            visitors: 20,
            ..DemoOptions::default()
        })
    };
    let (main, staging) = (
        start(31).await.expect("main"),
        start(32).await.expect("staging"),
    );
    let tmp = tempfile::tempdir().expect("tmp");
    let cfg = tmp.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "store = false\nbase_url = {:?}\napi_key = {:?}\n\
             [profiles.staging]\nbase_url = {:?}\napi_key = {:?}\n",
            main.base_url(),
            main.api_key(),
            staging.base_url(),
            staging.api_key(),
        ),
    )
    .expect("config");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o600)).expect("0600");
    }
    let mut rt = runtime(&main, |_| {});
    rt.config_path = Some(cfg.clone());
    let mut app = testing::app(120, 30, 50);
    app.profiles_mut().names = vec!["staging".into()];
    let mut h = Harness::new(rt, (120, 30), app);
    let short = |s: &DemoServer| s.data().conversations[0].id.simple().to_string()[..8].to_string();
    let screen = h.until(vec![], "loaded · more available").await;
    assert!(screen.contains(&short(&main)), "{screen}");

    let screen = h
        .until(vec![KeyCode::Char('P')], "(top level) (current)")
        .await;
    assert!(screen.contains("staging"), "{screen}");
    let screen = h
        .press(vec![KeyCode::Down, KeyCode::Enter], "profile staging")
        .await;
    if !screen.contains(&short(&staging)) {
        h.until(vec![], &short(&staging)).await;
    }
    assert_eq!(h.app.profiles().current.as_deref(), Some("staging"));

    // Back: P opens on staging; Up is the top level.
    let screen = h
        .press(
            vec![KeyCode::Char('P'), KeyCode::Up, KeyCode::Enter],
            "the config's top level (no profile)",
        )
        .await;
    if !screen.contains(&short(&main)) {
        h.until(vec![], &short(&main)).await;
    }
    assert_eq!(h.app.profiles().current, None);
    let screen = h
        .until(vec![KeyCode::Char('P')], "(top level) (current)")
        .await;
    assert!(!screen.contains("profile staging ·"), "{screen}");
    main.shutdown().await;
    staging.shutdown().await;
}

/// The filter pane's "visitor email" against the demo server: the e-mail is resolved by the
/// service to the visitors that share it, their conversations walked and merged newest first;
/// a typo says so and keeps the rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_email_lists_the_conversations_of_every_visitor_with_it() {
    let server = demo(DemoOptions {
        seed: 7,
        conversations: 400,
        visitors: 60,
        ..DemoOptions::default()
    })
    .await;
    let mut by_email: std::collections::BTreeMap<String, Vec<uuid::Uuid>> = Default::default();
    for v in &server.data().visitors {
        if let Some(e) = &v.email {
            by_email.entry(e.clone()).or_default().push(v.id);
        }
    }
    let (email, visitors) = by_email
        .iter()
        .max_by_key(|(_, ids)| ids.len())
        .map(|(e, ids)| (e.clone(), ids.clone()))
        .expect("e-mails");
    assert!(visitors.len() >= 2, "the demo shares some e-mails");
    let mut want: Vec<_> = server
        .data()
        .conversations
        .iter()
        .filter(|c| visitors.contains(&c.visitor_id))
        .map(|c| (c.created_at, c.id))
        .collect();
    want.sort_by(|a, b| b.cmp(a));
    let want: Vec<uuid::Uuid> = want.into_iter().map(|(_, id)| id).collect();
    assert!(!want.is_empty());

    let mut h = Harness::on(&server, (160, 30), 50);
    h.until(vec![], "loaded · more available").await;

    let type_email = |email: &str, erase: usize| {
        let mut keys = vec![KeyCode::Char('/')];
        keys.extend([KeyCode::Tab; 4]);
        keys.extend(std::iter::repeat_n(KeyCode::Backspace, erase));
        keys.extend(email.chars().map(KeyCode::Char));
        keys.push(KeyCode::Enter);
        keys
    };
    h.keys(type_email(&email, 0)).await;
    let screen = h.until(vec![], &format!("all {} loaded", want.len())).await;
    assert!(
        screen.contains(&format!("({} visitors)", visitors.len())),
        "{screen}"
    );
    let got: Vec<uuid::Uuid> = h.app.conversations.rows().iter().map(|c| c.id).collect();
    assert_eq!(got, want, "every visitor's conversations, newest first");

    // a typo: said; the rows of the e-mail before stay
    h.keys(type_email("nobody@example.invalid", email.chars().count()))
        .await;
    let screen = h.until(vec![], "no visitor has the e-mail").await;
    assert!(
        screen.contains(&format!("all {} loaded", want.len())),
        "{screen}"
    );
    assert_eq!(h.app.conversations.rows().len(), want.len());
    server.shutdown().await;
}

/// Issue 25, section 1, against a real service: everything loaded with `L`, the service
/// stopped, `r`: the rows stay on screen, in place with the selection, the status line says
/// the reload failed and why; the service back, `r` reads them again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_with_the_service_stopped_keeps_every_loaded_row() {
    let options = DemoOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        seed: 11,
        conversations: 700,
        visitors: 10,
        ..DemoOptions::default()
    };
    let server = DemoServer::start(options.clone())
        .await
        .expect("demo server");
    let rt = runtime(&server, |s| {
        s.retry.backoff = vec![Duration::from_millis(20); 3]
    });
    let mut h = Harness::new(rt, (120, 30), testing::app(120, 30, 50));
    h.until(vec![KeyCode::Char('L')], "all 700 loaded").await;
    h.keys(vec![KeyCode::End, KeyCode::Up, KeyCode::Up]).await;
    let rows: Vec<uuid::Uuid> = h.app.conversations.rows().iter().map(|c| c.id).collect();
    let selected = h.app.conversations.selected_row().map(|c| c.id);
    assert_eq!(h.app.conversations.selected(), 697);
    let addr = server.addr();
    server.shutdown().await;

    let screen = h.until(vec![KeyCode::Char('r')], "reload failed").await;
    assert!(screen.contains("the 700 rows shown are kept"), "{screen}");
    assert!(screen.contains("all 700 loaded"), "{screen}");
    assert!(!screen.contains("nothing loaded yet"), "{screen}");
    let short = selected.expect("a row").simple().to_string()[..8].to_string();
    let line = screen
        .lines()
        .find(|l| l.contains(&short))
        .unwrap_or_else(|| panic!("the selected row is not on screen:\n{screen}"));
    assert!(line.starts_with("\">"), "still selected: {line}");
    let now: Vec<uuid::Uuid> = h.app.conversations.rows().iter().map(|c| c.id).collect();
    assert_eq!(now, rows, "every row, in place");

    // The service is back on the same address: r reads the rows again, the row stays.
    let back = DemoServer::start(DemoOptions { addr, ..options })
        .await
        .expect("the service again");
    let generation = h.app.conversations.generation();
    h.keys(vec![KeyCode::Char('r')]).await;
    h.wait_app("the reload's rows", move |app| {
        let t = &app.conversations;
        t.generation() != generation && !t.refreshing() && !t.walk().is_loading()
    })
    .await;
    assert_eq!(h.app.conversations.selected_row().map(|c| c.id), selected);
    back.shutdown().await;
}

/// A demo server of 300 conversations answering in `latency_ms`, and the real loop on it at
/// 120x30 with pages of 10 (what the tests of `L`'s look-ahead start from).
async fn three_hundred(latency_ms: u64) -> (DemoServer, Harness) {
    let server = demo(DemoOptions {
        seed: 5,
        conversations: 300,
        visitors: 5,
        latency: Duration::from_millis(latency_ms),
        ..DemoOptions::default()
    })
    .await;
    let h = Harness::on(&server, (120, 30), 10);
    (server, h)
}

/// Issue 23, section 5: `L` asks for each page as soon as the page before it named its
/// cursor, whether or not the loop has applied that page yet (as `convo list --all` does), so
/// the walk goes at the server's pace; it goes at most `AHEAD_PAGES` pages ahead of the loop,
/// one request after the other, and every page it asked for is used.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn l_asks_for_pages_ahead_of_the_loop_up_to_a_bound() {
    let (server, mut h) = three_hundred(0).await;
    h.settled().await;
    let loaded = h.app.conversations.rows().len();
    assert!(loaded < 100, "the first screen only: {loaded} rows");
    let before = server.request_count();
    // `L`, and the loop stops at once: no page it asked for is applied while it is stopped.
    h.keys(vec![KeyCode::Char('L')]).await;
    let bound = 1 + convo::tui::runtime::AHEAD_PAGES as u64;
    common::wait_until("the pages asked for ahead", || {
        server.request_count() - before >= bound && h.rt.user_fetches_in_flight() == 0
    })
    .await;
    let asked = server.request_count() - before;
    assert_eq!(
        asked,
        1 + convo::tui::runtime::AHEAD_PAGES as u64,
        "the page L asked for, then the pages after it, up to the bound, while the loop stood"
    );
    assert_eq!(
        h.app.conversations.rows().len(),
        loaded,
        "nothing applied meanwhile"
    );
    h.until(vec![], "all 300 loaded").await;
    let ids: std::collections::HashSet<uuid::Uuid> =
        h.app.conversations.rows().iter().map(|c| c.id).collect();
    assert_eq!(ids.len(), 300);
    assert_eq!(
        server.request_count() - before,
        ((300 - loaded) / 10) as u64,
        "each page asked for once"
    );
    server.shutdown().await;
}

/// `Esc` stops `L`: the pages it would have asked for ahead are not asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_stops_l_asking_ahead() {
    let (server, mut h) = three_hundred(150).await;
    h.settled().await;
    let before = server.request_count();
    let screen = h
        .wait(vec![KeyCode::Char('L'), KeyCode::Esc], "L stopped", |s| {
            s.contains("stopped loading all pages")
        })
        .await;
    assert!(screen.contains("stopped loading all pages"), "{screen}");
    // Nothing in flight any more: what was asked is all that is asked.
    common::wait_until("the requests in flight to end", || {
        h.rt.user_fetches_in_flight() == 0
    })
    .await;
    let asked = server.request_count() - before;
    assert!(
        asked <= 2,
        "{asked} requests after L and Esc: L asks for its page (and at most the next one \
         before Esc), the walk asks for no more"
    );
    assert!(!h.app.conversations.loading_all(), "the walk stopped");
    assert!(h.app.conversations.rows().len() < 300, "{screen}");
    server.shutdown().await;
}

/// Answers that keep arriving (an `L` walk's pages, asked for ahead, come as fast as they are
/// applied) never keep a key waiting: the loop applies answers for a few milliseconds at most,
/// then looks at input. Here 30,000 answers are waiting when `q` comes (30 ms after the loop
/// starts): the loop quits long before it has applied them all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_answers_leaves_keys_their_turn() {
    let server = demo(DemoOptions {
        conversations: 30,
        visitors: 5,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    h.settled().await;
    let tx = h.rt.sender();
    const N: usize = 30_000;
    for i in 0..N {
        tx.send(convo::tui::msg::Msg::VisitorSync(Some(i.to_string())))
            .expect("send");
    }
    h.wait(vec![KeyCode::Char('q')], "q to end the loop", |_| false)
        .await;
    let last: usize = h
        .app
        .names()
        .sync_line
        .as_deref()
        .and_then(|l| l.parse().ok())
        .expect("some answers applied");
    assert!(
        last < N - 1,
        "all {N} answers were applied before the key was read"
    );
    server.shutdown().await;
}

/// The visitor sync waits while a page asked for ahead is in flight, as for any fetch of the
/// user's: `L` with the loop stopped at once (1.5 s a page); once the page after L's has
/// reached the server (asked for ahead), it is on its way and counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_asked_for_ahead_hold_off_the_visitor_sync() {
    // 1.5 s a page: the window in which the page asked for ahead is in flight.
    let (server, mut h) = three_hundred(1500).await;
    h.settled().await;
    assert_eq!(h.rt.user_fetches_in_flight(), 0, "at rest");
    let before = server.request_count();
    h.keys(vec![KeyCode::Char('L')]).await;
    // L's page, then the page after it, asked for ahead while the loop stands.
    common::wait_until("a page asked for ahead", || {
        server.request_count() >= before + 2
    })
    .await;
    assert!(
        h.rt.user_fetches_in_flight() >= 1,
        "a page asked for ahead is in flight and does not count"
    );
    server.shutdown().await;
}
