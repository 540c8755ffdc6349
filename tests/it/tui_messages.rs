//! Issue 25 §6: status-line messages with a lifetime. A notice goes after a while, a
//! refresh's news with its walk, "only the top N rows are kept live" once it is no longer
//! so, and a refresh never covers a search's count, which follows the rows. `update` fed
//! with messages against a fake server whose rows change.

use crossterm::event::KeyCode;

use convo::api::Resource;
use convo::tui::app::App;
use convo::tui::msg::Msg;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

use crate::common;
use common::app::at;

/// An app refreshing every 10 s with `pages` pages of `server`'s conversations loaded.
fn refreshing(server: &FakeServer, pages: usize) -> App {
    let mut app = testing::app(120, 30, 50);
    app.refresh_every(Some(10));
    server.settle(&mut app, Msg::Resize(120, 30));
    while app.conversations.rows().len() < pages * 50 {
        server.settle(&mut app, key(KeyCode::PageDown));
    }
    server.settle(&mut app, key(KeyCode::Home));
    app
}

/// The message line, if any (`None` when the key hints show).
fn message_text(app: &App) -> Option<&str> {
    app.status_line().shown().map(|m| m.text.as_str())
}

/// "1 new row" stayed for minutes in place of the key hints; now it goes after NEWS_SECS
/// (the Tick clock), a key's notice after NOTICE_SECS. An error stays.
#[test]
fn a_notice_and_a_refreshs_news_go_after_their_time_an_error_stays() {
    let mut server = FakeServer::new(120, 5);
    let mut app = refreshing(&server, 1);
    server.conversations.insert(0, testing::conversation(9000));
    server.settle(&mut app, at(10));
    assert_eq!(message_text(&app), Some("1 new row"));
    server.settle(&mut app, at(14));
    assert_eq!(message_text(&app), Some("1 new row"));
    server.settle(&mut app, at(15));
    assert_eq!(message_text(&app), None, "the key hints are back");

    // a key's notice: 10 s (pressed at 15 s)
    update(&mut app, ch('R'));
    assert_eq!(message_text(&app), Some("auto refresh off"));
    update(&mut app, at(24));
    assert!(message_text(&app).is_some());
    update(&mut app, at(25));
    assert_eq!(message_text(&app), None);

    // an error the user must see stays until Esc
    update(
        &mut app,
        Msg::Notice {
            text: "cannot open a browser".into(),
            error: true,
        },
    );
    update(&mut app, at(3600));
    assert_eq!(message_text(&app), Some("cannot open a browser"));
    update(&mut app, key(KeyCode::Esc));
    assert_eq!(message_text(&app), None);
}

/// "only the top 100 rows are kept live" stayed after filtering down to fewer rows: it goes
/// with the walk it was true of.
#[test]
fn kept_live_goes_when_the_filters_change() {
    let server = FakeServer::new(600, 5);
    let mut app = refreshing(&server, 4);
    app.settings_mut().use_refresh_max_pages(2);
    server.settle(&mut app, at(10));
    let m = message_text(&app).expect("said").to_string();
    assert!(m.contains("top 100 rows kept live"), "{m}");
    // not on the Visitors tab: it is not about its rows
    server.settle(&mut app, ch('2'));
    assert_eq!(message_text(&app), None);
    server.settle(&mut app, ch('1'));
    server.settle(&mut app, at(20));
    assert!(message_text(&app).is_some_and(|m| m.contains("kept live")));
    // `s`: open conversations only, a new walk of one page
    server.settle(&mut app, ch('s'));
    assert!(app.conversations.rows().len() <= 100);
    assert!(
        !message_text(&app).is_some_and(|m| m.contains("kept live")),
        "{:?}",
        message_text(&app)
    );
}

/// A refresh's "1 new row" used to replace the search's "3 matches"; the count stays, and
/// counts the new row when it matches. Another tab, or another search, ends it.
#[test]
fn a_refresh_does_not_cover_the_search_count_which_follows_the_rows() {
    let mut server = FakeServer::new(60, 5);
    let mut app = refreshing(&server, 1);
    update(&mut app, ch('\\'));
    for c in "pending".chars() {
        update(&mut app, ch(c));
    }
    update(&mut app, key(KeyCode::Enter));
    let pending = |app: &App| {
        app.conversations
            .rows()
            .iter()
            .filter(|c| c.status.as_str() == "pending")
            .count()
    };
    let n = pending(&app);
    assert!(n > 1);
    assert_eq!(
        message_text(&app),
        Some(&*format!("{n} matches · n next · N previous"))
    );
    // a new pending conversation arrives with the refresh
    let new = (9000..)
        .map(testing::conversation)
        .find(|c| c.status.as_str() == "pending")
        .expect("a pending one");
    server.conversations.insert(0, new);
    server.settle(&mut app, at(10));
    assert_eq!(pending(&app), n + 1);
    assert_eq!(
        message_text(&app),
        Some(&*format!("{} matches · n next · N previous", n + 1))
    );
    // long after: still the count, as long as the search is on
    server.settle(&mut app, at(15));
    server.settle(&mut app, at(300));
    assert_eq!(
        message_text(&app),
        Some(&*format!("{} matches · n next · N previous", n + 1))
    );
    // `n`: "match k of n", k following the selection
    update(&mut app, ch('n'));
    assert!(
        message_text(&app)
            .is_some_and(|m| m.starts_with("match ") && m.ends_with(&format!(" of {}", n + 1))),
        "{:?}",
        message_text(&app)
    );
    // the other tab: not its search
    update(&mut app, ch('2'));
    assert_eq!(app.active(), Resource::Visitors);
    assert_eq!(message_text(&app), None);
}

/// An error cut at the terminal's edge ("is the base UR…") says where to read it whole, and
/// the help overlay shows the last one whole, even after it left the status line; a failed
/// page's error too.
#[test]
fn an_error_cut_at_the_edge_can_be_read_whole_in_the_help_overlay() {
    let server = FakeServer::new(60, 5);
    let mut app = testing::app(80, 24, 50);
    server.settle(&mut app, Msg::Resize(80, 24));
    let long = "export not written: cannot create /home/someone/exports/2026-11-22/conversations.csv: \
                permission denied; is the directory yours? (end-of-the-error)";
    update(
        &mut app,
        Msg::Notice {
            text: long.into(),
            error: true,
        },
    );
    let screen = testing::render(&app);
    let status = screen.lines().last().unwrap_or_default();
    assert!(status.contains("(? shows all)"), "{screen}");
    assert!(!screen.contains("(end-of-the-error)"), "{screen}");
    let whole = |app: &App, text: &str| {
        let help = testing::render(app);
        let missing: Vec<&str> = text
            .split(' ')
            .filter(|w| !w.is_empty() && !help.contains(w))
            .collect();
        assert!(missing.is_empty(), "{missing:?} not in\n{help}");
        assert!(help.contains("Last error (12:00:00)"), "{help}");
    };
    update(&mut app, ch('?'));
    whole(&app, long);
    // gone from the status line (Esc), still in help
    update(&mut app, key(KeyCode::Esc));
    update(&mut app, key(KeyCode::Esc));
    assert_eq!(message_text(&app), None);
    update(&mut app, ch('?'));
    whole(&app, long);
    update(&mut app, key(KeyCode::Esc));
    // at 120 columns (two columns of keys) too, and for a failed page
    server.settle(&mut app, Msg::Resize(120, 35));
    let page = "HTTP 404 not_found: no such route /v1/conversations (is the base URL right? \
                it should end with the API's version) (end-of-page-error)";
    app.conversations.fail(page.into());
    update(&mut app, ch('?'));
    whole(&app, page);
}

/// A notice said over a search's count (`y`, `R`…) gives the count back when it ends; Esc
/// dismisses the count for good.
#[test]
fn the_search_count_comes_back_after_a_notice_not_after_esc() {
    let server = FakeServer::new(60, 5);
    let mut app = testing::app(120, 30, 50);
    server.settle(&mut app, Msg::Resize(120, 30));
    update(&mut app, ch('\\'));
    for c in "pending".chars() {
        update(&mut app, ch(c));
    }
    update(&mut app, key(KeyCode::Enter));
    let count = message_text(&app).expect("the count").to_string();
    assert!(count.ends_with("matches · n next · N previous"), "{count}");
    update(&mut app, ch('R'));
    assert_eq!(message_text(&app), Some("auto refresh every 30s"));
    update(&mut app, at(10));
    assert_eq!(message_text(&app), Some(&*count));
    update(&mut app, key(KeyCode::Esc));
    assert_eq!(message_text(&app), None);
    update(&mut app, at(20));
    assert_eq!(message_text(&app), None);
}
