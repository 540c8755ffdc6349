//! Issue 32 §6 and issue 33 §6: a status-line message lasts as long as what it says is true.
//! `update()` fed with messages against a fake server, and the real loop where it is live.

use std::time::Duration;

use crossterm::event::KeyCode;

use convo::api::{Resource, RetryNotice};
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

use crate::common;

use crate::common::app::said;

fn started(server: &FakeServer) -> App {
    common::app::started(server, (120, 30))
}

fn retry(generation: u64, cursor: Option<&str>) -> Msg {
    Msg::Retrying {
        tab: Resource::Conversations,
        generation,
        cursor: cursor.map(str::to_string),
        notice: RetryNotice {
            attempt: 1,
            wait: Duration::from_secs(2),
            reason: "HTTP 503".into(),
            rate_limited: false,
            budget: false,
        },
    }
}

/// A page asked for ahead (by `L`) that retries while the app waits on an earlier page
/// showed "retrying": it says nothing until the app waits on it.
#[test]
fn a_retry_of_a_page_asked_for_ahead_is_not_shown_while_an_earlier_page_is_awaited() {
    let server = FakeServer::new(400, 5);
    let mut app = started(&server);
    let cmds = update(&mut app, ch('L'));
    let Some(Command::Ahead {
        generation, from, ..
    }) = cmds.iter().find(|c| matches!(c, Command::Ahead { .. }))
    else {
        panic!("L asks for the next page (a look-ahead chain's first): {cmds:?}")
    };
    let waited = from.clone().expect("a page after the first");
    // the runtime asked for the page after it ahead; that one retries
    update(&mut app, retry(*generation, Some("999")));
    assert!(app.conversations.retry().is_none(), "not the page awaited");
    assert!(!common::app::footer(&app).contains("retry"));
    update(&mut app, retry(*generation, Some(&waited)));
    assert!(
        app.conversations.retry().is_some(),
        "the page awaited retries"
    );
    assert!(common::app::footer(&app).contains("retrying: retry in"));
}

/// Issue 32 §6: after `due:imminent` then `status:pending`, the line still said how `due:`
/// is sent. The note goes with the walk it was about.
#[test]
fn a_querys_note_goes_with_its_walk() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    app.settings_mut()
        .set_sla(common::app::first_response(30), true);
    let run = |app: &mut App, text: &str| {
        update(app, ch(':'));
        update(app, common::app::ctrl('u'));
        for c in text.chars() {
            update(app, ch(c));
        }
        server.settle(app, key(KeyCode::Enter));
    };
    run(&mut app, "due:imminent");
    assert!(
        said(&app).starts_with("query: due: measures"),
        "{}",
        said(&app)
    );
    run(&mut app, "status:pending");
    assert!(!said(&app).contains("due:"), "{}", said(&app));
}

/// Issue 32 §6: `V` on the Visitors tab before its rows came said "no row selected", which
/// stayed while row 1 was selected. It goes once a row is.
#[test]
fn no_row_selected_goes_once_a_row_is() {
    let server = FakeServer::new(60, 20);
    let mut app = testing::app(120, 30, 50);
    let first = update(&mut app, Msg::Resize(120, 30));
    update(&mut app, ch('2'));
    update(&mut app, ch('V'));
    assert_eq!(said(&app), "no row selected");
    for c in &first {
        if let Some(answer) = server.answer(c) {
            server.settle(&mut app, answer);
        }
    }
    assert!(app.visitors.selected_row().is_some(), "row 1 is selected");
    assert_eq!(said(&app), "", "the message went with its truth");
}

/// Issue 33 §6: a search typed until nothing matched left the cursor where a partial match
/// had taken it; it goes back to the row the search started from.
#[test]
fn a_search_without_a_match_goes_back_to_where_it_started() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    assert_eq!(app.conversations.selected(), 0);
    update(&mut app, ch('\\'));
    for c in "clos".chars() {
        update(&mut app, ch(c));
    }
    assert_eq!(app.conversations.selected(), 2, "the first closed row");
    update(&mut app, ch('x'));
    assert_eq!(
        app.conversations.selected(),
        0,
        "no match: back where it began"
    );
}

/// Issue 32 §10 and issue 33 §6: a `\` search stayed across drill-downs and views, run
/// again on every later walk. It ends when the filters change, and says so.
#[test]
fn a_search_ends_when_the_filters_change() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    update(&mut app, ch('\\'));
    for c in "pending".chars() {
        update(&mut app, ch(c));
    }
    update(&mut app, key(KeyCode::Enter));
    server.settle(&mut app, key(KeyCode::Down));
    server.settle(&mut app, ch('V'));
    assert_eq!(app.search().get(Resource::Conversations).query, "");
    assert_eq!(said(&app), "search \"pending\" ended: the filters changed");
    // a reload of the same filters keeps a search
    update(&mut app, ch('\\'));
    for c in "open".chars() {
        update(&mut app, ch(c));
    }
    update(&mut app, key(KeyCode::Enter));
    server.settle(&mut app, ch('r'));
    assert_eq!(app.search().get(Resource::Conversations).query, "open");
}

/// Issue 33 §6: on a narrow terminal the footer was cut at the edge without `…` and `auto
/// refresh` went first. It keeps its place at the end; what is cut before it ends in `…`.
/// Issue 32 §10: its counts are written as `1,234`, as "scanned" is.
#[test]
fn a_narrow_footer_keeps_auto_refresh_and_cuts_with_an_ellipsis() {
    let server = FakeServer::new(1500, 5);
    let mut app = testing::app(60, 20, 50);
    app.refresh_clock_mut().switch(true);
    server.settle(&mut app, Msg::Resize(60, 20));
    update(&mut app, ch('L'));
    let footer = common::app::footer(&app);
    let line = footer.trim_matches('"').trim_end();
    assert!(line.ends_with("· auto refresh 30s"), "{footer}");
    assert!(line.contains('…'), "{footer}");
    let mut app = testing::app(60, 20, 50);
    server.settle(&mut app, Msg::Resize(60, 20));
    server.settle(&mut app, ch('L'));
    let footer = common::app::footer(&app);
    assert!(footer.contains("all 1,500 loaded"), "{footer}");
}

/// Issue 33 §6: "only the top 200 rows are kept live (refresh_max_pages = 10)" blamed a
/// setting that allows 500: the refresh had begun while 200 rows were loaded.
#[test]
fn kept_live_says_why_when_the_refresh_began_with_fewer_rows() {
    let server = FakeServer::new(600, 5);
    let mut app = testing::app(120, 30, 50);
    app.refresh_every(Some(10));
    app.settings_mut().use_refresh_max_pages(10);
    server.settle(&mut app, Msg::Resize(120, 30));
    while app.conversations.rows().len() < 200 {
        server.settle(&mut app, key(KeyCode::PageDown));
    }
    // the refresh begins with fewer than 500 rows loaded; L loads the rest before it answers
    let n = app.conversations.rows().len();
    assert!(n < 500);
    let refresh = update(&mut app, common::app::at(10));
    assert!(
        refresh
            .iter()
            .any(|c| matches!(c, Command::FetchHead { .. })),
        "{refresh:?}"
    );
    server.settle(&mut app, ch('L'));
    assert_eq!(app.conversations.rows().len(), 600);
    for c in &refresh {
        if let Some(answer) = server.answer(c) {
            server.settle(&mut app, answer);
        }
    }
    let m = said(&app);
    assert!(
        m.contains("rows kept live (the rest loaded after the refresh began)"),
        "{m}"
    );
    let at = m.find("top ").expect("top N rows") + "top ".len();
    let live: usize = m[at..]
        .split(' ')
        .next()
        .and_then(|x| x.parse().ok())
        .expect("a count");
    assert!(live >= n && live < 500, "{live}");
}

/// Issue 32 §10: `copying <the whole UUID>…` while a copy ran; the id is named short, as
/// the answer names it.
#[test]
fn copying_names_the_id_short() {
    let server = FakeServer::new(10, 5);
    let mut app = started(&server);
    let id = app.conversations.rows()[0].id;
    let cmds = update(&mut app, ch('y'));
    assert!(cmds.contains(&Command::CopyToClipboard(id.to_string())));
    assert_eq!(
        said(&app),
        format!("copying {}…", convo::api::short_id(&id))
    );
}

/// A terminal with no shell to return to (as convo started by `setsid`).
struct NoShell;

impl convo::tui::terminal::Modes for NoShell {
    fn suspend(&mut self) -> std::io::Result<bool> {
        Ok(false)
    }
    fn set_mouse(&mut self, _: bool) -> std::io::Result<()> {
        Ok(())
    }
}

/// Issue 33 §6: `cannot suspend…` (Ctrl-Z with no shell) stayed as an error for ten
/// minutes over the refresh's news. It is an answer to a key: it goes as a notice does. The
/// real loop against the demo server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cannot_suspend_is_a_notice_that_goes() {
    use crossterm::event::{KeyEvent, KeyModifiers};
    let server = common::runtime::demo(convo::demo::DemoOptions {
        conversations: 30,
        visitors: 5,
        ..convo::demo::DemoOptions::default()
    })
    .await;
    let mut h = common::runtime::Harness::on(&server, (120, 30), 50);
    h.rt.modes = Some(Box::new(NoShell));
    let ctrl_z = KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL);
    let screen = h
        .wait_events(vec![ctrl_z], "cannot suspend", |s| {
            s.contains("cannot suspend")
        })
        .await;
    assert!(screen.contains("cannot suspend"), "{screen}");
    let m = h.app.status_line().shown().expect("said");
    assert!(!m.error, "not an error to keep: {m:?}");
    assert!(
        matches!(m.life, convo::tui::message::Life::Until(_)),
        "{m:?}"
    );
    server.shutdown().await;
}
