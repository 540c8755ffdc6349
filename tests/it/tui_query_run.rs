//! A query on a tab (`run_query`), fed through `update()`: several streams merged in the
//! service's order with each row once, checks applied as rows arrive, the scan's budget and
//! footer, a failed stream named while the others' rows show, a query that cannot be resolved.

use crate::common;

use convo::api::{ApiError, Conversation, Resource, Status};
use convo::query::parse;
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::tab_query::run_query;
use convo::tui::testing::{self, FakeServer, ch};
use convo::tui::update::update;

use common::app::{conv_page, part_loaded as part};

/// Answers `cmds` (and whatever they lead to) from `server` until nothing is asked.
fn drive(app: &mut App, server: &FakeServer, cmds: Vec<Command>) -> Vec<Command> {
    let mut seen = Vec::new();
    let mut queue: Vec<Msg> = cmds.iter().filter_map(|c| server.answer(c)).collect();
    seen.extend(cmds);
    while let Some(m) = queue.pop() {
        for c in update(app, m) {
            if let Some(a) = server.answer(&c) {
                queue.push(a);
            }
            seen.push(c);
        }
    }
    seen
}

/// Presses `key`, answers what it asks, and gives the footer.
fn key_footer(app: &mut App, server: &FakeServer, key: char) -> String {
    let cmds = update(app, ch(key));
    drive(app, server, cmds);
    common::app::footer(app)
}

fn started(server: &FakeServer, limit: i64) -> App {
    common::app::started_by(server, (120, 30), limit, common::app::at(0))
}

fn query(app: &mut App, server: &FakeServer, text: &str) -> Vec<Command> {
    let q = parse(text, Resource::Conversations).expect("a good query");
    let cmds = run_query(app, Resource::Conversations, q);
    drive(app, server, cmds)
}

fn ids(app: &App) -> Vec<uuid::Uuid> {
    app.conversations.rows().iter().map(|c| c.id).collect()
}

fn parts(cmds: &[Command]) -> Vec<(usize, Option<String>)> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::FetchPart { stream, cursor, .. } => Some((*stream, cursor.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn two_streams_are_merged_in_the_services_order_and_the_query_kept() {
    let server = FakeServer::new(60, 0);
    let mut app = started(&server, 10);
    let mut cmds = query(&mut app, &server, "status:open,pending");
    let l = update(&mut app, ch('L'));
    cmds.extend(drive(&mut app, &server, l));
    let want: Vec<uuid::Uuid> = server
        .conversations
        .iter()
        .filter(|c| matches!(c.status, Status::Open | Status::Pending))
        .map(|c| c.id)
        .collect();
    assert_eq!(ids(&app), want, "every matching row once, newest first");
    let asked = parts(&cmds);
    assert!(asked.iter().any(|(s, _)| *s == 0) && asked.iter().any(|(s, _)| *s == 1));
    assert!(
        !cmds.iter().any(|c| matches!(c, Command::Fetch { .. })),
        "no plain fetch of the tab's filters"
    );
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        "status:open,pending"
    );
    assert!(app.conversations.walk().is_done());
}

#[test]
fn a_screenful_asks_each_stream_once_and_more_only_as_the_table_needs() {
    let server = FakeServer::new(200, 0);
    let mut app = started(&server, 10);
    let cmds = query(&mut app, &server, "status:open,pending");
    let asked = parts(&cmds);
    // 30 lines: the screen and a page ahead need ~40 of the 133 matching rows, about 20 a
    // stream: two pages each, not the whole walk.
    assert!(
        asked.len() <= 6,
        "{} requests for the first screen: {asked:?}",
        asked.len()
    );
    assert!(app.conversations.walk().has_more());
    let loaded = app.conversations.rows().len();
    // G goes to the end: the rest is read.
    let cmds = update(&mut app, ch('G'));
    drive(&mut app, &server, cmds);
    let cmds = update(&mut app, ch('L'));
    drive(&mut app, &server, cmds);
    assert!(app.conversations.rows().len() > loaded);
    assert!(app.conversations.walk().is_done());
}

#[test]
fn a_row_two_streams_return_shows_once_and_stale_answers_are_dropped() {
    let server = FakeServer::new(0, 0);
    let mut app = started(&server, 10);
    let q = parse("status:open,pending", Resource::Conversations).unwrap();
    let cmds = run_query(&mut app, Resource::Conversations, q);
    let cmds: Vec<Command> = cmds
        .into_iter()
        .chain(update(&mut app, common::app::at(1)))
        .collect();
    assert_eq!(parts(&cmds).len(), 2, "{cmds:?}");
    let c: Vec<Conversation> = (0..4).map(testing::conversation).collect();
    let old = app.conversations.generation() - 1;
    // An answer of an older walk is dropped.
    update(
        &mut app,
        Msg::PartLoaded {
            tab: Resource::Conversations,
            generation: old,
            stream: 0,
            head: false,
            result: conv_page(vec![c[3].clone()], false),
        },
    );
    part(
        &mut app,
        0,
        conv_page(vec![c[0].clone(), c[2].clone()], false),
    );
    assert!(ids(&app).is_empty(), "the merge waits for every first page");
    part(
        &mut app,
        1,
        conv_page(vec![c[1].clone(), c[2].clone()], false),
    );
    let want: Vec<_> = c[..3].iter().map(|c| c.id).collect();
    assert_eq!(
        ids(&app),
        want,
        "row 2 of both streams once; row 3 was stale"
    );
}

#[test]
fn checks_are_applied_as_rows_arrive_and_a_scan_waits_at_its_budget() {
    let server = FakeServer::new(60, 0);
    let mut app = started(&server, 10);
    let q = convo::config::QuerySettings {
        scan_max_pages: 3,
        ..app.settings().query_settings()
    };
    app.settings_mut().use_query_settings(q);
    // Rows are 1, 8, 15… minutes old: older than 5 hours from row 43 on.
    let cmds = query(&mut app, &server, "age:>5h");
    assert_eq!(parts(&cmds).len(), 3, "three pages, then the scan waits");
    assert!(ids(&app).is_empty());
    let footer = common::app::footer(&app);
    common::assert_has(&footer, "scanned 30 · 0 match · L goes on");
    let cmds = update(&mut app, ch('L'));
    drive(&mut app, &server, cmds);
    let want: Vec<_> = server.conversations[43..].iter().map(|c| c.id).collect();
    assert_eq!(ids(&app), want);
    let footer = common::app::footer(&app);
    common::assert_has(&footer, "scanned 60 · 17 match");
    common::assert_has(&footer, "all 17 loaded");
    // A refresh scans again and its counts are the footer's.
    let footer = key_footer(&mut app, &server, 'r');
    common::assert_has(&footer, "all 17 loaded · scanned 60 · 17 match");
}

#[test]
fn a_negation_is_a_wider_walk_checked_here() {
    let server = FakeServer::new(30, 0);
    let mut app = started(&server, 10);
    query(&mut app, &server, "-status:closed");
    let l = update(&mut app, ch('L'));
    drive(&mut app, &server, l);
    let want: Vec<_> = server
        .conversations
        .iter()
        .filter(|c| c.status != Status::Closed)
        .map(|c| c.id)
        .collect();
    assert_eq!(ids(&app), want);
}

#[test]
fn a_failed_stream_is_named_and_the_others_rows_show() {
    let server = FakeServer::new(0, 0);
    let mut app = started(&server, 10);
    let q = parse("status:open,pending", Resource::Conversations).unwrap();
    run_query(&mut app, Resource::Conversations, q);
    update(&mut app, common::app::at(1));
    let c: Vec<Conversation> = (0..3).map(testing::conversation).collect();
    part(&mut app, 0, conv_page(c.clone(), false));
    part(
        &mut app,
        1,
        Err(ApiError::Server {
            status: 503,
            detail: "down for maintenance".into(),
            attempts: 4,
        }),
    );
    assert_eq!(ids(&app), c.iter().map(|c| c.id).collect::<Vec<_>>());
    let msg = app.status_line().shown().expect("said").text.clone();
    assert!(
        msg.contains("stream 2 of 2 (GET /v1/conversations?status=pending) failed"),
        "{msg}"
    );
    assert!(msg.contains("503"), "{msg}");
    assert!(app.conversations.walk().is_done());
}

#[test]
fn a_query_that_cannot_be_resolved_is_said_with_its_caret_and_the_rows_stay() {
    let server = FakeServer::new(30, 0);
    let mut app = started(&server, 10);
    let before = ids(&app);
    let q = parse("status:open assignee:me", Resource::Conversations).unwrap();
    let cmds = run_query(&mut app, Resource::Conversations, q);
    assert!(cmds.is_empty(), "{cmds:?}");
    let msg = app.status_line().shown().expect("said").text.clone();
    assert!(msg.contains("agent_id"), "{msg}");
    assert!(msg.contains("^^"), "the caret under `me`: {msg}");
    assert_eq!(ids(&app), before);
    assert_eq!(app.query_of(Resource::Conversations).to_string(), "");
}

#[test]
fn a_query_one_request_answers_is_the_tabs_filters() {
    let server = FakeServer::new(30, 0);
    let mut app = started(&server, 10);
    let cmds = query(&mut app, &server, "status:open assignee:none");
    assert!(parts(&cmds).is_empty(), "{cmds:?}");
    assert!(app.conversations.union().is_none());
    assert_eq!(app.conversations.filter().status, Some(Status::Open));
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        "status:open assignee:none"
    );
}

#[test]
fn a_refresh_reads_each_stream_again_and_the_marks_follow() {
    use convo::tui::marks::Mark;
    let mut server = FakeServer::new(30, 0);
    let mut app = started(&server, 10);
    query(&mut app, &server, "status:open,pending");
    let l = update(&mut app, ch('L'));
    drive(&mut app, &server, l);
    assert_eq!(app.conversations.rows().len(), 20);
    // On the server: a new open conversation, one picked up by a colleague, one closed.
    let mut fresh = testing::conversation(0);
    fresh.id = testing::test_id(1, 1000);
    fresh.created_at = convo::api::Timestamp::Parsed(
        testing::now()
            .checked_add(jiff::SignedDuration::from_mins(1))
            .unwrap(),
    );
    server.conversations.insert(0, fresh.clone());
    let picked = testing::conversation(3).id; // open, unassigned
    common::app::assign(&mut server, picked);
    let closed = testing::conversation(4).id; // pending
    server
        .conversations
        .iter_mut()
        .find(|c| c.id == closed)
        .unwrap()
        .status = Status::Closed;
    let cmds = update(&mut app, ch('r'));
    let seen = drive(&mut app, &server, cmds);
    assert!(
        seen.iter()
            .any(|c| matches!(c, Command::FetchPart { head: true, .. })),
        "the streams are read again: {seen:?}"
    );
    let t = &app.conversations;
    assert_eq!(t.rows()[0].id, fresh.id, "the new row on top");
    assert_eq!(t.marks().mark(t.generation(), &fresh.id), Some(Mark::New));
    assert_eq!(t.marks().mark(t.generation(), &picked), Some(Mark::Changed));
    assert!(!ids(&app).contains(&closed), "the closed one left");
    assert!(
        t.walk().gone().any(|g| g.row.id == closed),
        "and shows as gone for this refresh"
    );
    assert_eq!(t.rows().len(), 20);
    assert!(!t.refreshing());
    let footer = common::app::footer(&app);
    common::assert_has(&footer, "• 1 new");
}

#[test]
fn the_summary_pane_of_a_union_drills_into_the_query_narrowed() {
    use convo::summary::By;
    use convo::tui::overlay::Overlay;
    let server = FakeServer::new(30, 0);
    let mut app = started(&server, 10);
    query(&mut app, &server, "status:open,pending");
    let l = update(&mut app, ch('L'));
    drive(&mut app, &server, l);
    update(&mut app, ch('S'));
    // Tab until the pane groups by site.
    for _ in 0..By::ALL.len() {
        if matches!(app.overlay(), Overlay::Summary(p) if p.by == By::Site) {
            break;
        }
        update(&mut app, testing::key(crossterm::event::KeyCode::Tab));
    }
    let Overlay::Summary(p) = app.overlay() else {
        panic!("the pane is open")
    };
    assert_eq!(p.by, By::Site);
    let site = p.buckets[0].0.key.clone();
    let convo::summary::Key::Site(site) = site else {
        panic!("a site bucket")
    };
    let cmds = update(&mut app, testing::key(crossterm::event::KeyCode::Enter));
    drive(&mut app, &server, cmds);
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        format!("status:open,pending site:{site}")
    );
    assert!(app.conversations.union().is_some());
    assert!(
        app.conversations
            .rows()
            .iter()
            .all(|c| c.site_id == site && c.status != Status::Closed)
    );
}

/// The real loop against the demo server in each order it can serve: a two-stream union shows
/// every matching row once, in the served order; its first screen costs a few requests, not
/// the walk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_runs_a_union_against_the_demo_in_every_order() {
    use common::runtime::{Harness, demo};
    use convo::demo::{DemoOptions, Faults, ServeOrder};
    use crossterm::event::KeyCode;
    for order in [ServeOrder::Newest, ServeOrder::Oldest, ServeOrder::Updated] {
        let server = demo(DemoOptions {
            seed: 11,
            conversations: 1200,
            visitors: 40,
            faults: Faults {
                order,
                ..Faults::default()
            },
            ..DemoOptions::default()
        })
        .await;
        let want: Vec<uuid::Uuid> = server
            .data()
            .conversations
            .iter()
            .filter(|c| ["open", "pending"].contains(&c.status))
            .map(|c| c.id)
            .collect();
        let pending = server
            .data()
            .conversations
            .iter()
            .filter(|c| c.status == "pending");
        assert!(pending.count() > 20, "both streams have rows");
        assert!(want.len() > 80, "{order:?}: {}", want.len());
        let mut h = Harness::on(&server, (120, 30), 25);
        h.app.queue_query(Some(
            parse("status:open,pending", Resource::Conversations).unwrap(),
        ));
        let first = want[0].simple().to_string()[..8].to_string();
        h.until(vec![], &first).await;
        let screen = h.settled().await;
        let asked = server.request_count();
        assert!(
            asked <= 8,
            "{order:?}: {asked} requests for the first screen"
        );
        assert!(
            screen.contains(" status:open,pending  x clears"),
            "{screen}"
        );
        let done = format!("all {} loaded", want.len());
        h.until(vec![KeyCode::Char('L')], &done).await;
        let got: Vec<uuid::Uuid> = h.app.conversations.rows().iter().map(|c| c.id).collect();
        assert_eq!(
            got, want,
            "{order:?}: every matching row once, in the served order"
        );
        assert!(
            h.app
                .status_line()
                .shown()
                .is_none_or(|m| !m.text.contains("order:")),
            "{order:?}: the streams agree on the order"
        );
    }
}

#[test]
fn back_returns_to_a_union_and_from_it() {
    let server = FakeServer::new(30, 0);
    let mut app = started(&server, 10);
    query(&mut app, &server, "status:open,pending");
    let union_rows = ids(&app);
    query(&mut app, &server, "status:closed");
    assert!(app.conversations.union().is_none());
    let cmds = update(&mut app, testing::key(crossterm::event::KeyCode::Backspace));
    drive(&mut app, &server, cmds);
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        "status:open,pending"
    );
    assert!(app.conversations.union().is_some());
    assert_eq!(ids(&app), union_rows);
    let cmds = update(&mut app, testing::key(crossterm::event::KeyCode::Backspace));
    drive(&mut app, &server, cmds);
    assert!(
        app.conversations.union().is_none(),
        "back to the unfiltered start"
    );
    assert_eq!(app.query_of(Resource::Conversations).to_string(), "");
    assert!(
        app.conversations
            .rows()
            .iter()
            .any(|c| c.status == Status::Closed)
    );
}

/// `e`, whole walk: a union tab's export walks its streams to the end and writes exactly the
/// rows that match, once each, in the merged order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_walk_export_of_a_union_writes_every_matching_row() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let server = FakeServer::new(200, 0);
    let mut app = started(&server, 10);
    query(&mut app, &server, "status:open,pending");
    assert!(!app.conversations.walk().is_done());
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("queue.csv");
    let mut seen = Vec::new();
    let mut keys = vec![
        ch('e'),
        Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    ];
    keys.extend(path.to_str().unwrap().chars().map(ch));
    keys.extend([testing::key(KeyCode::Enter), ch('w'), ch('y')]);
    for k in keys {
        let cmds = update(&mut app, k);
        seen.extend(drive(&mut app, &server, cmds));
    }
    assert!(app.conversations.walk().is_done());
    let exports: Vec<Command> = seen
        .into_iter()
        .filter(|c| {
            matches!(
                c,
                Command::Export { .. } | Command::ExportRows { .. } | Command::ExportEnd { .. }
            )
        })
        .collect();
    assert!(
        matches!(exports.first(), Some(Command::Export { .. })),
        "{exports:?}"
    );
    let (text, error, _) = testing::run_export(&mut app, &exports).await;
    assert!(!error, "{text}");
    let written = std::fs::read_to_string(&path).unwrap();
    let got: Vec<String> = written
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap_or_default().to_string())
        .collect();
    let want: Vec<String> = server
        .conversations
        .iter()
        .filter(|c| matches!(c.status, Status::Open | Status::Pending))
        .map(|c| c.id.to_string())
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_refresh_of_a_scan_that_found_nothing_scans_again_from_the_top() {
    let server = FakeServer::new(30, 0);
    let mut app = started(&server, 10);
    app.settings_mut().use_refresh_max_pages(1);
    query(&mut app, &server, "age:>100d");
    let footer = common::app::footer(&app);
    common::assert_has(&footer, "no rows · scanned 30 · 0 match");
    let footer = key_footer(&mut app, &server, 'r');
    common::assert_has(&footer, "no rows · scanned 30 · 0 match");
}

#[test]
fn esc_stops_a_scan_that_l_sent_on() {
    let server = FakeServer::new(60, 0);
    let mut app = started(&server, 10);
    let q = convo::config::QuerySettings {
        scan_max_pages: 3,
        ..app.settings().query_settings()
    };
    app.settings_mut().use_query_settings(q);
    query(&mut app, &server, "age:>5h");
    assert!(common::app::footer(&app).contains("scanned 30 · 0 match · L goes on"));
    // L asks for the next page; Esc comes before its answer.
    let asked = update(&mut app, ch('L'));
    assert_eq!(parts(&asked).len(), 1, "{asked:?}");
    update(&mut app, testing::key(crossterm::event::KeyCode::Esc));
    drive(&mut app, &server, asked);
    let footer = common::app::footer(&app);
    assert!(
        footer.contains("scanned 40 · 0 match · L goes on"),
        "the page in flight is taken, no other is asked: {footer}"
    );
}

#[test]
fn a_watched_union_view_rings_for_new_waiting_rows_at_a_refresh() {
    let mut server = FakeServer::new(30, 0);
    let mut app = started(&server, 10);
    app.settings_mut().save_view(convo::config::View {
        name: "Queue".into(),
        tab: Resource::Conversations,
        conversations: Default::default(),
        visitors: Default::default(),
        notify: true,
        oldest_first: false,
        query: Some("status:open,pending".into()),
    });
    query(&mut app, &server, "status:open,pending");
    let mut fresh = testing::conversation(0); // open, unassigned
    fresh.id = testing::test_id(1, 1000);
    fresh.created_at = convo::api::Timestamp::Parsed(
        testing::now()
            .checked_add(jiff::SignedDuration::from_mins(1))
            .unwrap(),
    );
    server.conversations.insert(0, fresh);
    let cmds = update(&mut app, ch('r'));
    let seen = drive(&mut app, &server, cmds);
    assert!(
        seen.iter()
            .any(|c| matches!(c, Command::Notify { more: 1 })),
        "{seen:?}"
    );
}

#[test]
fn u_s_and_x_on_a_union_change_its_query_not_the_empty_filters() {
    let server = FakeServer::new(60, 0);
    let mut app = started(&server, 10);
    let site = testing::SITE_A;
    query(
        &mut app,
        &server,
        &format!("status:open,pending -site:{site}"),
    );
    let cmds = update(&mut app, ch('u'));
    drive(&mut app, &server, cmds);
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        format!("status:open,pending -site:{site} assignee:none")
    );
    assert!(app.conversations.union().is_some());
    let rows = app.conversations.rows();
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|c| c.assignee_id.is_none() && c.site_id != site && c.status != Status::Closed)
    );
    let cmds = update(&mut app, ch('s'));
    drive(&mut app, &server, cmds);
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        format!("-site:{site} assignee:none status:open")
    );
    let cmds = update(&mut app, ch('u'));
    drive(&mut app, &server, cmds);
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        format!("-site:{site} status:open")
    );
    let cmds = update(&mut app, ch('x'));
    drive(&mut app, &server, cmds);
    assert!(app.conversations.union().is_none());
    assert_eq!(app.query_of(Resource::Conversations).to_string(), "");
    assert!(
        app.conversations
            .rows()
            .iter()
            .any(|c| c.site_id == site || c.status == Status::Closed),
        "every row again"
    );
}

#[test]
fn after_a_refresh_of_part_of_a_union_the_walk_goes_on_without_a_row_twice() {
    let mut server = FakeServer::new(120, 0);
    let mut app = started(&server, 10);
    query(&mut app, &server, "status:open,pending");
    let loaded = app.conversations.rows().len();
    assert!(
        app.conversations.walk().has_more() && loaded < 80,
        "{loaded}"
    );
    let mut fresh = testing::conversation(0);
    fresh.id = testing::test_id(1, 1000);
    fresh.created_at = convo::api::Timestamp::Parsed(
        testing::now()
            .checked_add(jiff::SignedDuration::from_mins(1))
            .unwrap(),
    );
    server.conversations.insert(0, fresh.clone());
    let cmds = update(&mut app, ch('r'));
    drive(&mut app, &server, cmds);
    assert_eq!(app.conversations.rows()[0].id, fresh.id);
    let cmds = update(&mut app, ch('L'));
    drive(&mut app, &server, cmds);
    let want: Vec<uuid::Uuid> = server
        .conversations
        .iter()
        .filter(|c| matches!(c.status, Status::Open | Status::Pending))
        .map(|c| c.id)
        .collect();
    assert_eq!(ids(&app), want, "every row once, in order");
    let footer = common::app::footer(&app);
    assert!(!footer.contains("duplicate"), "{footer}");
}

#[test]
fn visitor_e_mails_are_looked_up_then_each_visitor_is_a_stream() {
    let server = FakeServer::new(60, 0);
    let mut app = started(&server, 10);
    let q = parse(
        "visitor:a@example.com,b@example.com status:open,pending",
        Resource::Conversations,
    )
    .unwrap();
    let cmds = run_query(&mut app, Resource::Conversations, q);
    let [
        Command::ResolveQueryEmails {
            ticket,
            query,
            resolved,
            emails,
        },
    ] = cmds.as_slice()
    else {
        panic!("the e-mails are looked up first: {cmds:?}")
    };
    assert_eq!(emails, &["a@example.com", "b@example.com"]);
    let (va, vb) = (testing::test_id(2, 1), testing::test_id(2, 2));
    let found: convo::query::plan::Emails = [
        ("a@example.com".to_string(), vec![va]),
        ("b@example.com".to_string(), vec![vb]),
    ]
    .into_iter()
    .collect();
    let msg = Msg::QueryEmails {
        ticket: *ticket,
        query: query.clone(),
        resolved: resolved.clone(),
        result: Ok(found),
    };
    let cmds = update(&mut app, msg);
    let seen = drive(&mut app, &server, cmds);
    assert_eq!(parts(&seen).iter().filter(|(_, c)| c.is_none()).count(), 4);
    let want: Vec<uuid::Uuid> = server
        .conversations
        .iter()
        .filter(|c| {
            (c.visitor_id == va || c.visitor_id == vb)
                && matches!(c.status, Status::Open | Status::Pending)
        })
        .map(|c| c.id)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(ids(&app), want);
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        "visitor:a@example.com,b@example.com status:open,pending"
    );
}
