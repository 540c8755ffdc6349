//! Issue 25 §3: the search prompt opens empty with ↑/↓ history, says what found nothing,
//! and matches without regard to case and accents. `update` fed with messages.

use crossterm::event::KeyCode;

use convo::api::Resource;
use convo::tui::app::App;
use convo::tui::prompt::Prompt;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

fn loaded(conversations: usize, visitors: usize) -> (App, FakeServer) {
    crate::common::app::loaded((120, 30), conversations, visitors)
}

use crate::common::app::type_text;

fn search(app: &mut App, q: &str) {
    update(app, ch('\\'));
    type_text(app, q);
    update(app, key(KeyCode::Enter));
}

fn prompt_text(app: &App) -> String {
    match app.prompt() {
        Some(Prompt::Search(t)) => t.clone(),
        other => panic!("no search prompt: {other:?}"),
    }
}

/// `\` Kai Enter, then `\` Mia Enter searches "Mia", not "KaiMia"; ↑ and ↓ walk the
/// earlier queries and come back to what was being typed.
#[test]
fn the_search_prompt_opens_empty_and_up_recalls_earlier_queries() {
    let (mut app, _s) = loaded(60, 10);
    search(&mut app, "Kai");
    update(&mut app, ch('\\'));
    assert_eq!(prompt_text(&app), "");
    assert!(
        testing::render(&app).contains("search (Enter keeps, Esc clears, ↑ earlier): "),
        "the prompt says ↑ brings earlier searches back"
    );
    // The earlier search stays on screen until the prompt's text is edited.
    assert_eq!(app.search().conversations.query, "Kai");
    type_text(&mut app, "Mia");
    assert_eq!(app.search().conversations.query, "Mia");
    update(&mut app, key(KeyCode::Enter));
    assert_eq!(app.search().conversations.query, "Mia");

    update(&mut app, ch('\\'));
    type_text(&mut app, "pe");
    update(&mut app, key(KeyCode::Up));
    assert_eq!(prompt_text(&app), "Mia");
    assert_eq!(app.search().conversations.query, "Mia");
    update(&mut app, key(KeyCode::Up));
    assert_eq!(prompt_text(&app), "Kai");
    // the oldest: ↑ stays there
    update(&mut app, key(KeyCode::Up));
    assert_eq!(prompt_text(&app), "Kai");
    update(&mut app, key(KeyCode::Down));
    assert_eq!(prompt_text(&app), "Mia");
    // past the newest: the text being typed comes back
    update(&mut app, key(KeyCode::Down));
    assert_eq!(prompt_text(&app), "pe");
    assert_eq!(app.search().conversations.query, "pe");
    update(&mut app, key(KeyCode::Up));
    update(&mut app, key(KeyCode::Enter));
    assert_eq!(app.search().conversations.query, "Mia");
    // a repeat is remembered once
    assert_eq!(app.search_history().entries(), ["Kai", "Mia"]);

    // Enter on an empty prompt ends the search.
    update(&mut app, ch('\\'));
    update(&mut app, key(KeyCode::Enter));
    assert!(app.search().conversations.query.is_empty());
    assert_eq!(
        app.status_line().shown().map(|m| m.text.as_str()),
        Some("search cleared")
    );
}

/// "0 matches" said nothing of what was looked for; the message names the query and how many
/// rows were searched, after Enter and after `n`.
#[test]
fn no_match_names_the_query_and_the_rows_searched() {
    let (mut app, _s) = loaded(60, 10);
    let n = app.conversations.rows().len();
    assert!(n > 1);
    search(&mut app, "Mia");
    let want = format!("no match for \"Mia\" in {n} loaded rows");
    assert_eq!(
        app.status_line().shown().map(|m| m.text.as_str()),
        Some(&*want)
    );
    update(&mut app, ch('n'));
    assert_eq!(
        app.status_line().shown().map(|m| m.text.as_str()),
        Some(&*want)
    );
}

/// `muller` finds "Zoë 🌸 Müller", `ZOE` too; a query with the accent finds the same rows.
#[test]
fn search_ignores_case_and_accents() {
    let (mut app, _s) = loaded(10, 30);
    update(&mut app, ch('2'));
    assert_eq!(app.active(), Resource::Visitors);
    let want: Vec<usize> = app
        .visitors
        .rows()
        .iter()
        .enumerate()
        .filter(|(_, v)| v.name.as_deref().is_some_and(|n| n.contains("Müller")))
        .map(|(i, _)| i)
        .collect();
    assert!(!want.is_empty());
    for q in ["muller", "ZOE", "zoë", "MÜLLER"] {
        search(&mut app, q);
        assert_eq!(app.search().visitors.matches, want, "{q}");
        // and the matching cell is marked (underlined) as a match on screen
        let buf = testing::render_buffer(&app);
        assert!(
            buf.content
                .iter()
                .any(|c| c.symbol() == "ü"
                    && c.modifier.contains(ratatui::style::Modifier::UNDERLINED)),
            "{q}: the NAME cell is not marked"
        );
    }
    search(&mut app, "mueller");
    assert!(app.search().visitors.matches.is_empty());
}
