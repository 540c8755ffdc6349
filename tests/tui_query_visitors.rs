//! A union tab's checks on a visitor's attributes (`visitor.plan:pro`), fed through
//! `update()`: a stream page asks the local store for its rows' visitors in one command, the
//! rows wait (in order) for the answer, and only rows whose visitor the store knows with a
//! matching attribute show, as `convo list -q` does; without a store it is said once.

mod common;

use convo::api::{ApiError, Conversation, Page, Resource};
use convo::query::eval::VisitorInfo;
use convo::query::parse;
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::{Loaded, Msg};
use convo::tui::query_run::run_query;
use convo::tui::testing::{self, FakeServer};
use convo::tui::update::update;
use uuid::Uuid;

fn started() -> App {
    let server = FakeServer::new(0, 0);
    let mut app = testing::app(120, 30, 10);
    server.settle(&mut app, common::app::at(0));
    app
}

fn ids(app: &App) -> Vec<Uuid> {
    app.conversations.rows().iter().map(|c| c.id).collect()
}

fn page(stream: usize, app: &mut App, rows: Vec<Conversation>, more: bool) -> Vec<Command> {
    let generation = app.conversations.generation;
    let result: Result<Loaded, ApiError> = Ok(Loaded::Conversations(Page {
        has_more: more,
        next_cursor: more.then(|| "next".to_string()),
        items: rows,
        bad_rows: Vec::new(),
    }));
    update(
        app,
        Msg::PartLoaded {
            tab: Resource::Conversations,
            generation,
            stream,
            head: false,
            result,
        },
    )
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
    assert!(app.conversations.pager.is_loading(), "the walk waits");
    update(
        &mut app,
        Msg::StoreVisitors {
            asked: visitors[2..].to_vec(),
            known: vec![(visitors[3], plan("pro"))],
            store: true,
        },
    );
    assert_eq!(ids(&app), vec![c[0].id, c[1].id, c[3].id]);
    assert!(app.conversations.pager.is_done());
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
    app.message = None;
    let cmds = page(0, &mut app, c[2..].to_vec(), false);
    assert!(lookups(&cmds).is_empty(), "{cmds:?}");
    assert!(app.message.is_none(), "said once: {:?}", app.message);
    let footer = common::app::footer(&app);
    assert!(footer.contains("scanned 4 · 0 match"), "{footer}");
}
