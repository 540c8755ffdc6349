//! Issue 22 §4: saving the tab's query as a view (`w`): the name asked for, a view of that
//! name replaced only after `y`, the written view in `v`'s list at once and running its query.
//! `update` fed with messages; the file itself: config::save_view's tests and tests/tui_pty.rs.

use crate::common;

use std::path::PathBuf;

use crossterm::event::KeyCode;

use convo::api::{Resource, Status};
use convo::config::save_view::{NewView, SaveError, Saved};
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::overlay::Overlay;
use convo::tui::prompt::Prompt;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

fn loaded() -> (App, FakeServer) {
    let (mut app, server) = common::app::loaded((120, 30), 300, 40);
    app.settings_mut()
        .use_config_file(Some(PathBuf::from("/home/u/.config/convo/config.toml")));
    (app, server)
}

use crate::common::app::type_text;

fn run_query(app: &mut App, s: &FakeServer, q: &str) {
    update(app, ch(':'));
    // The line opens on the tab's query: cleared first.
    update(app, common::app::ctrl('u'));
    type_text(app, q);
    s.settle(app, key(KeyCode::Enter));
    assert!(app.prompt().is_none(), "{:?}", app.prompt());
}

fn save_command(cmds: &[Command]) -> (NewView, bool) {
    cmds.iter()
        .find_map(|c| match c {
            Command::SaveView {
                path,
                view,
                replace,
                profile,
            } => {
                assert_eq!(path, &PathBuf::from("/home/u/.config/convo/config.toml"));
                assert_eq!(profile, &None);
                Some((view.clone(), *replace))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no SaveView in {cmds:?}"))
}

fn saved(app: &mut App, view: NewView, replaced: bool) {
    update(
        app,
        Msg::ViewSaved {
            view,
            result: Ok(Saved {
                path: "/home/u/.config/convo/config.toml".into(),
                created: false,
                replaced,
            }),
        },
    );
}

/// `w` asks for a name and saves the tab's query (as the line shows it) under it; once
/// written, the view is in `v`'s list and choosing it runs the query.
#[test]
fn w_saves_the_query_as_a_view_that_v_lists_and_runs() {
    let (mut app, s) = loaded();
    run_query(&mut app, &s, "status:open,pending -site:\"Web shop\"");
    update(&mut app, ch('w'));
    assert!(matches!(app.prompt(), Some(Prompt::SaveView(_))));
    let cmds = type_text(&mut app, "Not the shop");
    assert!(cmds.is_empty());
    let cmds = update(&mut app, key(KeyCode::Enter));
    let (view, replace) = save_command(&cmds);
    assert_eq!(
        view,
        NewView {
            name: "Not the shop".into(),
            tab: Resource::Conversations,
            query: "status:open,pending -site:\"Web shop\"".into()
        }
    );
    assert!(!replace);
    assert!(app.prompt().is_none());
    saved(&mut app, view, false);
    let i = app.view_index("not the shop").expect("the view is listed");
    assert!(
        app.status_line()
            .shown()
            .as_ref()
            .unwrap()
            .text
            .contains("saved in /home/u/.config/convo/config.toml")
    );

    // Elsewhere (x clears the query), then the view from `v`: its query runs again.
    s.settle(&mut app, ch('x'));
    assert!(app.query_of(Resource::Conversations).is_empty());
    assert!(common::app::with_status(&app, Status::Closed).0 > 0);
    update(&mut app, ch('v'));
    for _ in 0..i {
        update(&mut app, key(KeyCode::Down));
    }
    s.settle(&mut app, key(KeyCode::Enter));
    assert!(matches!(app.overlay(), Overlay::None));
    let rows = app.conversations.rows();
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|r| r.status != Status::Closed && r.site_id != testing::SITE_A)
    );
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        "status:open,pending -site:\"Web shop\""
    );
}

/// A name a view has: asked before replacing (y replaces, Esc goes back to the name); the
/// built-in views' names are refused; a view found in the file under that name asks too.
#[test]
fn an_existing_name_is_replaced_only_after_y() {
    let (mut app, s) = loaded();
    run_query(&mut app, &s, "status:pending");
    update(&mut app, ch('w'));
    type_text(&mut app, "breaching");
    update(&mut app, key(KeyCode::Enter));
    assert!(matches!(app.prompt(), Some(Prompt::SaveView(v)) if !v.confirm));
    assert!(app.status_line().shown().unwrap().text.contains("built-in"));
    for _ in 0.."breaching".len() {
        update(&mut app, key(KeyCode::Backspace));
    }
    type_text(&mut app, "Pending");
    let cmds = update(&mut app, key(KeyCode::Enter));
    let (view, _) = save_command(&cmds);
    saved(&mut app, view, false);
    let n = app.settings().views().len();

    run_query(&mut app, &s, "status:closed");
    update(&mut app, ch('w'));
    type_text(&mut app, "PENDING");
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert!(matches!(app.prompt(), Some(Prompt::SaveView(v)) if v.confirm));
    update(&mut app, key(KeyCode::Esc));
    assert!(matches!(app.prompt(), Some(Prompt::SaveView(v)) if !v.confirm && v.name == "PENDING"));
    update(&mut app, key(KeyCode::Enter));
    let cmds = update(&mut app, ch('y'));
    let (view, replace) = save_command(&cmds);
    assert!(replace);
    saved(&mut app, view.clone(), true);
    assert_eq!(app.settings().views().len(), n, "replaced, not added");
    let i = app.view_index("pending").unwrap();
    assert_eq!(
        app.settings().views()[i].query.as_deref(),
        Some("status:closed")
    );

    // The file had it (written by another convo): the answer asks to replace.
    update(
        &mut app,
        Msg::ViewSaved {
            view: NewView {
                name: "Elsewhere".into(),
                ..view
            },
            result: Err(SaveError::Exists("Elsewhere".into())),
        },
    );
    assert!(
        matches!(app.prompt(), Some(Prompt::SaveView(v)) if v.confirm && v.name == "Elsewhere")
    );
}

/// A file that cannot be written: said, nothing listed; a tab with no query has nothing to
/// save.
#[test]
fn a_failed_save_is_said_and_an_empty_query_is_not_saved() {
    let (mut app, s) = loaded();
    update(&mut app, ch('w'));
    assert!(app.prompt().is_none());
    assert!(
        app.status_line()
            .shown()
            .as_ref()
            .unwrap()
            .text
            .contains("no query to save")
    );
    run_query(&mut app, &s, "status:open");
    update(&mut app, ch('w'));
    type_text(&mut app, "Open");
    let cmds = update(&mut app, key(KeyCode::Enter));
    let (view, _) = save_command(&cmds);
    let n = app.settings().views().len();
    update(
        &mut app,
        Msg::ViewSaved {
            view,
            result: Err(SaveError::Io {
                path: "/home/u/.config/convo/config.toml".into(),
                reason: "the file is read-only".into(),
            }),
        },
    );
    assert_eq!(app.settings().views().len(), n);
    let m = app.status_line().shown().unwrap();
    assert!(
        m.error && m.text.contains("view not saved") && m.text.contains("read-only"),
        "{m:?}"
    );
}
