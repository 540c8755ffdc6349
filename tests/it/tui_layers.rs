//! Who gets Esc and Enter: the layer the eye sees on top (`tui::update::layers`). Every pair
//! that competed for them, fed to `update()` against a fake server: the summary pane over a
//! running or finished `L`, the help over the summary pane, a prompt over the detail pane, the
//! detail pane over `L`.

use crossterm::event::KeyCode;

use convo::tui::app::App;
use convo::tui::overlay::Overlay;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::layers::{Layer, stack};
use convo::tui::update::update;

use crate::common::app::said;

fn started(server: &FakeServer) -> App {
    crate::common::app::started(server, (120, 30))
}

/// `L` pressed and its first page asked for, not answered: `L` runs.
fn l_running(server: &FakeServer) -> App {
    let mut app = started(server);
    update(&mut app, ch('L'));
    assert!(app.conversations.loading_all());
    app
}

/// Issue 32 §2: `L` ("all N loaded"), `S`, Esc said "stopped loading all pages" and the pane
/// stayed; the next Enter went to the pane and replaced the tab's filters.
#[test]
fn esc_closes_the_summary_pane_after_l_has_finished_and_enter_then_reaches_the_table() {
    let server = FakeServer::new(230, 5);
    let mut app = started(&server);
    server.settle(&mut app, ch('L'));
    assert!(app.conversations.walk().is_done(), "all loaded");
    server.settle(&mut app, ch('S'));
    assert_eq!(stack(&app), vec![Layer::Overlay, Layer::Table]);
    server.settle(&mut app, key(KeyCode::Esc));
    assert!(matches!(app.overlay(), Overlay::None), "the pane is closed");
    assert!(!said(&app).contains("stopped"), "{}", said(&app));
    let filter = app.conversations.filter().clone();
    server.settle(&mut app, key(KeyCode::Enter));
    assert_eq!(
        app.detail().scroll(),
        Some(0),
        "Enter opens the detail pane"
    );
    assert_eq!(
        *app.conversations.filter(),
        filter,
        "the filters are the same"
    );
}

/// `L` once more after it finished said "stopped loading all pages" (with Esc); it says
/// there is nothing to load, and Esc then stops nothing.
#[test]
fn l_after_it_finished_says_all_is_loaded_and_esc_stops_nothing() {
    let server = FakeServer::new(120, 5);
    let mut app = started(&server);
    server.settle(&mut app, ch('L'));
    server.settle(&mut app, ch('L'));
    assert_eq!(said(&app), "all 120 rows are loaded: L has nothing to load");
    server.settle(&mut app, key(KeyCode::Esc));
    assert_eq!(said(&app), "", "Esc clears the message, nothing else");
}

/// The summary pane over a running `L`: Esc closes the pane (what is on top), `L` goes on;
/// the next Esc stops `L`.
#[test]
fn esc_closes_the_summary_pane_over_a_running_l_then_stops_l() {
    let server = FakeServer::new(500, 5);
    let mut app = l_running(&server);
    update(&mut app, ch('S'));
    assert_eq!(
        stack(&app),
        vec![Layer::Overlay, Layer::LoadAll, Layer::Table]
    );
    update(&mut app, key(KeyCode::Esc));
    assert!(matches!(app.overlay(), Overlay::None));
    assert!(app.conversations.loading_all(), "L goes on");
    update(&mut app, key(KeyCode::Esc));
    assert!(!app.conversations.load_all());
    assert_eq!(said(&app), "stopped loading all pages");
}

/// `?` over the summary pane: the help covers it, Esc closes the help and shows the pane
/// again, the next Esc closes the pane.
#[test]
fn the_help_over_the_summary_pane_closes_back_to_it() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    server.settle(&mut app, ch('S'));
    server.settle(&mut app, ch('?'));
    assert!(
        matches!(app.overlay(), Overlay::Help { under: Some(u), .. } if matches!(**u, Overlay::Summary(_))),
        "{:?}",
        app.overlay()
    );
    let screen = testing::render(&app);
    assert!(screen.contains("this help"), "the help is drawn: {screen}");
    server.settle(&mut app, key(KeyCode::Enter));
    assert!(
        matches!(app.overlay(), Overlay::Help { .. }),
        "Enter: the help keeps it"
    );
    server.settle(&mut app, key(KeyCode::Esc));
    assert!(
        matches!(app.overlay(), Overlay::Summary(_)),
        "back to the pane"
    );
    server.settle(&mut app, key(KeyCode::Esc));
    assert!(matches!(app.overlay(), Overlay::None));
}

/// A prompt over the detail pane: Esc cancels the prompt, the pane stays; Enter submits the
/// prompt and does not close the pane.
#[test]
fn a_prompt_over_the_detail_pane_takes_esc_and_enter() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    server.settle(&mut app, key(KeyCode::Enter));
    assert_eq!(app.detail().scroll(), Some(0));
    server.settle(&mut app, ch('\\'));
    assert_eq!(
        stack(&app),
        vec![Layer::Prompt, Layer::Detail, Layer::Table]
    );
    server.settle(&mut app, key(KeyCode::Esc));
    assert!(app.prompt().is_none());
    assert_eq!(app.detail().scroll(), Some(0), "the pane stays");
    server.settle(&mut app, ch('\\'));
    server.settle(&mut app, ch('7'));
    server.settle(&mut app, key(KeyCode::Enter));
    assert!(app.prompt().is_none());
    assert_eq!(app.detail().scroll(), Some(0), "Enter was the prompt's");
    server.settle(&mut app, key(KeyCode::Esc));
    assert_eq!(app.detail().scroll(), None, "then Esc closes the pane");
}

/// The detail pane over a running `L`: Esc closes the pane first, then stops `L`.
#[test]
fn esc_closes_the_detail_pane_over_a_running_l_then_stops_l() {
    let server = FakeServer::new(500, 5);
    let mut app = l_running(&server);
    update(&mut app, key(KeyCode::Enter));
    assert_eq!(
        stack(&app),
        vec![Layer::Detail, Layer::LoadAll, Layer::Table]
    );
    update(&mut app, key(KeyCode::Esc));
    assert_eq!(app.detail().scroll(), None);
    assert!(app.conversations.loading_all());
    update(&mut app, key(KeyCode::Esc));
    assert!(!app.conversations.load_all());
}

/// The query line over the summary pane cannot open (the pane takes `:`); the query line
/// over the detail pane takes Esc.
#[test]
fn the_query_line_over_the_detail_pane_takes_esc() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    server.settle(&mut app, key(KeyCode::Enter));
    server.settle(&mut app, ch(':'));
    assert_eq!(stack(&app).first(), Some(&Layer::Prompt));
    server.settle(&mut app, key(KeyCode::Esc));
    assert!(app.prompt().is_none());
    assert_eq!(app.detail().scroll(), Some(0));
}
