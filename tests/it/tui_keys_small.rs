//! Issue 32 §10, the small things: the query line's first ↑, the ATTRIBUTES column after an
//! `attr.` query. `update()` fed with keys against a fake server, and the screen drawn.

use crossterm::event::KeyCode;

use convo::tui::app::App;
use convo::tui::prompt::Prompt;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

use crate::common;

fn started(server: &FakeServer) -> App {
    common::app::started(server, (160, 30))
}

fn query(app: &mut App, server: &FakeServer, text: &str) {
    update(app, ch(':'));
    update(app, common::app::ctrl('u'));
    for c in text.chars() {
        update(app, ch(c));
    }
    server.settle(app, key(KeyCode::Enter));
}

fn line_text(app: &App) -> String {
    match app.prompt() {
        Some(Prompt::Query(line)) => line.text.clone(),
        other => panic!("no query line: {other:?}"),
    }
}

/// The query line opens on the tab's query, which is also the newest in its history: the
/// first ↑ showed the same text again. It shows the query before it.
#[test]
fn the_first_up_on_the_query_line_shows_the_query_before_the_one_shown() {
    let server = FakeServer::new(60, 5);
    let mut app = started(&server);
    query(&mut app, &server, "status:open");
    query(&mut app, &server, "status:pending");
    update(&mut app, ch(':'));
    // (followed by a space: a term typed at once is a term of its own)
    assert_eq!(line_text(&app), "status:pending ");
    update(&mut app, key(KeyCode::Up));
    assert_eq!(line_text(&app), "status:open");
    update(&mut app, key(KeyCode::Down));
    assert_eq!(
        line_text(&app).trim_end(),
        "status:pending",
        "↓ gives the line back"
    );
}

/// After `attr.region:eu` the ATTRIBUTES column still began with `beta=…`: the keys the
/// query names go first.
#[test]
fn the_attributes_column_puts_the_keys_a_query_names_first() {
    let server = FakeServer::new(10, 30);
    let mut app = started(&server);
    server.settle(&mut app, ch('2'));
    let screen = testing::render(&app);
    assert!(screen.contains("beta=true plan=pro"), "{screen}");
    query(&mut app, &server, "attr.region:eu");
    let screen = testing::render(&app);
    assert!(screen.contains("region=eu beta=true"), "{screen}");
}
