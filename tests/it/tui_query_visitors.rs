//! A union tab's checks on a visitor's attributes (`visitor.plan:pro`), fed through
//! `update()`: a stream page asks the local store for its rows' visitors in one command, the
//! rows wait (in order) for the answer, and only rows whose visitor the store knows with a
//! matching attribute show, as `convo list -q` does; without a store it is said once.

use crate::common;

use convo::api::{Conversation, Resource};
use convo::query::eval::VisitorInfo;
use convo::query::parse;
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::tab_query::run_query;
use convo::tui::testing::{self, FakeServer};
use convo::tui::update::update;
use uuid::Uuid;

fn started() -> App {
    common::app::started_by(&FakeServer::new(0, 0), (120, 30), 10, common::app::at(0))
}

fn ids(app: &App) -> Vec<Uuid> {
    app.conversations.rows().iter().map(|c| c.id).collect()
}

fn page(stream: usize, app: &mut App, rows: Vec<Conversation>, more: bool) -> Vec<Command> {
    common::app::part_loaded(app, stream, common::app::conv_page(rows, more))
}

fn lookups(cmds: &[Command]) -> Vec<Vec<Uuid>> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::LookupVisitors(ids) => Some(ids.clone()),
            _ => None,
        })
        .collect()
}

fn plan(value: &str) -> VisitorInfo {
    VisitorInfo {
        name: Some("Someone".into()),
        email: None,
        attributes: serde_json::json!({ "plan": value, "seats": 3 }),
    }
}

/// Four rows of four visitors (conversation i has visitor i here).
fn rows() -> Vec<Conversation> {
    (0..4).map(testing::conversation).collect()
}

fn run(app: &mut App, text: &str) -> Vec<Command> {
    let q = parse(text, Resource::Conversations).expect("a good query");
    run_query(app, Resource::Conversations, q)
}

#[test]
fn rows_wait_for_the_stores_answer_and_only_matching_visitors_show() {
    let mut app = started();
    let cmds = run(&mut app, "visitor.plan:pro");
    assert!(
        cmds.iter().any(|c| matches!(c, Command::FetchPart { .. })),
        "{cmds:?}"
    );
    let c = rows();
    let cmds = page(0, &mut app, c.clone(), false);
    let visitors: Vec<Uuid> = c.iter().map(|c| c.visitor_id).collect();
    assert_eq!(
        lookups(&cmds),
        vec![visitors.clone()],
        "one lookup for the page's visitors"
    );
    assert!(
        ids(&app).is_empty(),
        "no row shows before the store answers"
    );
    // Visitor 2 is not in the store: it fails, as in `list -q`; visitor 1 is on "free".
    let known = vec![
        (visitors[0], plan("pro")),
        (visitors[1], plan("free")),
        (visitors[3], plan("PRO")),
    ];
    let cmds = update(
        &mut app,
        Msg::StoreVisitors {
            asked: visitors,
            known,
            store: true,
        },
    );
    assert!(lookups(&cmds).is_empty(), "nothing asked twice: {cmds:?}");
    assert_eq!(ids(&app), vec![c[0].id, c[3].id]);
    let footer = common::app::footer(&app);
    assert!(footer.contains("scanned 4 · 2 match"), "{footer}");
    let screen = testing::render(&app);
    assert!(
        screen.contains("visitor.plan: 1 visitor is not in the local store yet"),
        "the unknown visitor is said: {screen}"
    );
    // Another attribute check on the same rows reads the store again and checks numbers as
    // JSON writes them.
    let cmds = run(&mut app, "visitor.seats:3 -visitor.plan:free");
    assert!(lookups(&cmds).is_empty());
    let cmds = page(0, &mut app, c.clone(), false);
    assert_eq!(lookups(&cmds).len(), 1, "{cmds:?}");
    assert!(ids(&app).is_empty());
}

#[test]
fn a_row_waits_in_order_for_its_visitor_and_the_rows_before_it_show() {
    let mut app = started();
    run(&mut app, "visitor.plan:pro");
    let c = rows();
    let visitors: Vec<Uuid> = c.iter().map(|c| c.visitor_id).collect();
    page(0, &mut app, c.clone(), false);
    // The answer for the first two only (as if a second page's answer were still to come).
    update(
        &mut app,
        Msg::StoreVisitors {
            asked: visitors[..2].to_vec(),
            known: vec![(visitors[0], plan("pro")), (visitors[1], plan("pro"))],
            store: true,
        },
    );
    assert_eq!(ids(&app), vec![c[0].id, c[1].id]);
    assert!(app.conversations.walk().is_loading(), "the walk waits");
    update(
        &mut app,
        Msg::StoreVisitors {
            asked: visitors[2..].to_vec(),
            known: vec![(visitors[3], plan("pro"))],
            store: true,
        },
    );
    assert_eq!(ids(&app), vec![c[0].id, c[1].id, c[3].id]);
    assert!(app.conversations.walk().is_done());
}

#[test]
fn without_a_store_it_is_said_once_and_no_row_passes() {
    let mut app = started();
    run(&mut app, "visitor.plan:pro");
    let c = rows();
    let cmds = page(0, &mut app, c[..2].to_vec(), true);
    let asked = lookups(&cmds).concat();
    // The runtime without a store answers at once.
    let cmds = update(
        &mut app,
        Msg::StoreVisitors {
            asked,
            known: Vec::new(),
            store: false,
        },
    );
    let screen = testing::render(&app);
    assert!(
        screen.contains("visitor.plan needs the local store"),
        "{screen}"
    );
    assert!(ids(&app).is_empty());
    // The walk goes on without asking the store again, and says nothing more.
    assert!(
        cmds.iter().any(|c| matches!(c, Command::FetchPart { .. })),
        "{cmds:?}"
    );
    app.status_line_mut().clear();
    let cmds = page(0, &mut app, c[2..].to_vec(), false);
    assert!(lookups(&cmds).is_empty(), "{cmds:?}");
    assert!(
        app.status_line().shown().is_none(),
        "said once: {:?}",
        app.status_line().shown()
    );
    let footer = common::app::footer(&app);
    assert!(footer.contains("scanned 4 · 0 match"), "{footer}");
}

/// Answers `cmds` (and what they lead to) from `server`, and the store's lookups from
/// `store`, until nothing is asked; every command seen.
fn drive(
    app: &mut App,
    server: &FakeServer,
    store: &std::collections::HashMap<Uuid, VisitorInfo>,
    cmds: Vec<Command>,
) -> Vec<Command> {
    let answer = |c: &Command| match c {
        Command::LookupVisitors(ids) => Some(Msg::StoreVisitors {
            asked: ids.clone(),
            known: ids
                .iter()
                .filter_map(|id| store.get(id).map(|v| (*id, v.clone())))
                .collect(),
            store: true,
        }),
        c => server.answer(c),
    };
    let mut seen = Vec::new();
    let mut queue: Vec<Msg> = cmds.iter().filter_map(answer).collect();
    seen.extend(cmds);
    while let Some(m) = queue.pop() {
        for c in update(app, m) {
            queue.extend(answer(&c));
            seen.push(c);
        }
    }
    seen
}

#[test]
fn a_refresh_reads_the_store_again_and_a_visitor_that_left_the_plan_leaves() {
    use convo::tui::testing::{ch, test_id};
    let server = FakeServer::new(30, 0);
    let mut app = testing::app(120, 30, 10);
    server.settle(&mut app, common::app::at(0));
    // Visitors 0, 2, 4… are on "pro"; visitor 16 is not in the store.
    let mut store: std::collections::HashMap<Uuid, VisitorInfo> = (0..16)
        .map(|k| (test_id(2, k), plan(if k % 2 == 0 { "pro" } else { "free" })))
        .collect();
    let cmds = run(&mut app, "visitor.plan:pro");
    drive(&mut app, &server, &store, cmds);
    let l = update(&mut app, ch('L'));
    drive(&mut app, &server, &store, l);
    let pro = |store: &std::collections::HashMap<Uuid, VisitorInfo>| -> Vec<Uuid> {
        server
            .conversations
            .iter()
            .filter(|c| {
                store
                    .get(&c.visitor_id)
                    .is_some_and(|v| v.attributes["plan"] == "pro")
            })
            .map(|c| c.id)
            .collect()
    };
    let want = pro(&store);
    assert!(want.len() > 5 && want.len() < 30, "{}", want.len());
    assert_eq!(ids(&app), want);
    // Visitor 0 moves to "free" in the store: a refresh reads it again.
    store.insert(test_id(2, 0), plan("free"));
    let r = update(&mut app, ch('r'));
    let seen = drive(&mut app, &server, &store, r);
    assert!(
        !lookups(&seen).is_empty(),
        "the store is read again: {seen:?}"
    );
    let want = pro(&store);
    assert_eq!(ids(&app), want, "visitor 0's rows left at the refresh");
}
