//! Issue 22 §4: the query line (`:`): completion, history, errors with their caret, the plan
//! (`?`), and the filter pane and the line as two editors of one query. `update` fed with
//! messages, and `TestBackend` snapshots of the line.

use crate::common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use convo::api::{Assignee, ConversationFilter, Resource, Status};
use convo::tui::app::App;
use convo::tui::command::{Command, RequestFilter};
use convo::tui::msg::Msg;
use convo::tui::prompt::Prompt;
use convo::tui::query_line::QueryLine;
use convo::tui::testing::{self, AGENT_B, FakeServer, ch, key};
use convo::tui::update::update;

fn loaded() -> (App, FakeServer) {
    common::app::loaded((120, 30), 300, 40)
}

use crate::common::app::type_text;

fn line(app: &App) -> &QueryLine {
    match app.prompt() {
        Some(Prompt::Query(l)) => l,
        other => panic!("no query line: {other:?}"),
    }
}

fn labels(app: &App) -> Vec<String> {
    line(app)
        .completion
        .as_ref()
        .map(|c| c.candidates.iter().map(|c| c.label.clone()).collect())
        .unwrap_or_default()
}

fn ids(app: &App) -> Vec<uuid::Uuid> {
    app.conversations.rows().iter().map(|r| r.id).collect()
}

fn back_tab() -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT))
}

/// `:` asks the store for the history and the attribute keys; Tab completes a field name
/// (one candidate: taken, with its colon), then its values, shown, cycled by Tab and
/// Shift-Tab; a comma goes on to the next value without the ones given.
#[test]
fn tab_completes_fields_then_values_and_cycles() {
    let (mut app, _s) = loaded();
    let cmds = update(&mut app, ch(':'));
    assert!(cmds.contains(&Command::LoadQueryLine {
        tab: Resource::Conversations
    }));
    assert_eq!(line(&app).text, "");
    type_text(&mut app, "sta");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(line(&app).text, "status:");
    assert!(line(&app).completion.is_none(), "one candidate is taken");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(labels(&app), ["open", "pending", "closed"]);
    assert_eq!(line(&app).text, "status:open");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(line(&app).text, "status:pending");
    update(&mut app, back_tab());
    update(&mut app, back_tab());
    assert_eq!(line(&app).text, "status:closed");
    type_text(&mut app, ",");
    assert!(
        line(&app).completion.is_none(),
        "typing ends the completion"
    );
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(labels(&app), ["open", "pending"]);
    assert_eq!(line(&app).text, "status:closed,open");
}

/// `assignee:` offers me/none/anyone, the agents of the loaded rows (by alias when they have
/// one), then the aliases not seen as a site; `site:` the sites seen; names with spaces go in quoted;
/// attribute keys from the store make `visitor.KEY` fields; an empty line offers the views.
#[test]
fn values_come_from_rows_aliases_views_and_the_store() {
    let (mut app, _s) = loaded();
    update(&mut app, ch(':'));
    type_text(&mut app, "assignee:");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(
        labels(&app),
        [
            "me",
            "none",
            "anyone",
            "Ana (EU desk)",
            &AGENT_B.to_string(),
        ]
        .map(String::from)
    );
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(line(&app).text, "assignee:\"Ana (EU desk)\"");
    type_text(&mut app, " site:w");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(
        line(&app).text,
        "assignee:\"Ana (EU desk)\" site:\"Web shop\""
    );

    update(
        &mut app,
        Msg::QueryLineLoaded {
            tab: Resource::Conversations,
            history: Vec::new(),
            attr_keys: vec!["plan".into(), "sales rep".into()],
        },
    );
    type_text(&mut app, " -visitor.");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(
        labels(&app),
        [
            "visitor.name:",
            "visitor.email:",
            "visitor.plan:",
            "visitor.\"sales rep\":"
        ]
    );
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, key(KeyCode::Tab));
    assert!(
        line(&app).text.ends_with(" -visitor.plan:"),
        "{}",
        line(&app).text
    );

    // An empty line: the tab's views (their queries) come first.
    update(&mut app, ctrl('u'));
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(
        labels(&app)[..2],
        ["view Unassigned open", "view Breaching"]
    );
    assert_eq!(line(&app).text, "status:open assignee:none");
}

fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// ↑ and ↓ walk the history the store answered (newest first), and come back to what was
/// being typed; Enter on a query keeps it in the store's history.
#[test]
fn up_and_down_walk_the_stored_history() {
    let (mut app, _s) = loaded();
    update(&mut app, ch(':'));
    update(
        &mut app,
        Msg::QueryLineLoaded {
            tab: Resource::Conversations,
            history: vec!["is:waiting".into(), "status:pending".into()],
            attr_keys: Vec::new(),
        },
    );
    type_text(&mut app, "sta");
    update(&mut app, key(KeyCode::Up));
    assert_eq!(line(&app).text, "status:pending");
    update(&mut app, key(KeyCode::Up));
    assert_eq!(line(&app).text, "is:waiting");
    update(&mut app, key(KeyCode::Up));
    assert_eq!(line(&app).text, "is:waiting");
    update(&mut app, key(KeyCode::Down));
    update(&mut app, key(KeyCode::Down));
    assert_eq!(line(&app).text, "sta");
    update(&mut app, key(KeyCode::Up));
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(
        cmds.contains(&Command::KeepQuery {
            tab: Resource::Conversations,
            text: "status:pending".into()
        }),
        "{cmds:?}"
    );
}

/// Enter on a bad query: the line stays open with the error (where, what was found, what
/// would do), nothing is fetched and the rows stay; Esc then leaves all as it was.
#[test]
fn a_bad_query_keeps_the_line_and_the_rows() {
    let (mut app, _s) = loaded();
    let before = ids(&app);
    update(&mut app, ch(':'));
    type_text(&mut app, "status:open stat:x");
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(
        !cmds
            .iter()
            .any(|c| matches!(c, Command::Fetch { .. } | Command::KeepQuery { .. })),
        "{cmds:?}"
    );
    let (e, text) = line(&app).error.clone().expect("an error on the line");
    assert_eq!(text, "status:open stat:x");
    assert_eq!(e.char_pos(&text), 12);
    assert!(
        e.render(&text).contains("            ^^^^"),
        "{}",
        e.render(&text)
    );
    assert_eq!(ids(&app), before);
    assert_eq!(*app.conversations.filter(), ConversationFilter::default());
    type_text(&mut app, "x");
    assert!(line(&app).error.is_none(), "an edit clears the error");
    update(&mut app, key(KeyCode::Esc));
    assert!(app.prompt().is_none());
    assert_eq!(ids(&app), before);
    assert_eq!(*app.conversations.filter(), ConversationFilter::default());
}

/// A query one request answers runs on Enter (the tab's filters: the pane shows them), and
/// `:` shows the tab's filters, however set, as the query's text.
#[test]
fn enter_runs_the_query_and_the_line_shows_the_tabs_filters() {
    let (mut app, s) = loaded();
    update(&mut app, ch(':'));
    type_text(&mut app, "status:open assignee:none");
    let cmds = s.settle(&mut app, key(KeyCode::Enter));
    assert!(app.prompt().is_none());
    let wanted = ConversationFilter {
        status: Some(Status::Open),
        assignee: Assignee::Unassigned,
        ..Default::default()
    };
    assert!(
        cmds.iter().any(
            |c| matches!(c, Command::Fetch { query: RequestFilter::Conversations(f), .. } if *f == wanted)
        ),
        "{cmds:?}"
    );
    assert_eq!(*app.conversations.filter(), wanted);
    assert!(
        app.conversations
            .rows()
            .iter()
            .all(|r| r.status == Status::Open && r.assignee_id.is_none())
    );
    // `s` cycles the status (as the pane would set it): the line shows it as a term.
    s.settle(&mut app, ch('s'));
    update(&mut app, ch(':'));
    // (followed by a space: a term typed at once is a term of its own)
    assert_eq!(line(&app).text, "status:pending assignee:none ");
    type_text(&mut app, "age:>1h");
    assert_eq!(line(&app).text, "status:pending assignee:none age:>1h");
    update(&mut app, key(KeyCode::Esc));
    // The pane opens on what the line set.
    update(&mut app, ch('/'));
    assert!(
        matches!(app.overlay(), convo::tui::overlay::Overlay::Filter(f) if f.conversation_filter() == Some(app.conversations.filter().clone()))
    );
}

/// A query one request cannot answer runs as a union with its checks (here two streams and
/// a negation checked in convo); the line then opens on it as written.
#[test]
fn a_union_query_runs_and_the_line_opens_on_it_as_written() {
    let (mut app, s) = loaded();
    update(&mut app, ch(':'));
    type_text(&mut app, "status:open,pending -site:\"Web shop\"");
    s.settle(&mut app, key(KeyCode::Enter));
    assert!(app.prompt().is_none());
    let rows = app.conversations.rows();
    assert!(rows.len() > 20, "{} rows", rows.len());
    assert!(
        rows.iter()
            .all(|r| r.status != Status::Closed && r.site_id != testing::SITE_A)
    );
    update(&mut app, ch(':'));
    assert_eq!(line(&app).text, "status:open,pending -site:\"Web shop\" ");
}

/// `?` on the line shows the plan: each stream's request and the checks done in convo, with
/// why; Esc goes back to the line as it was.
#[test]
fn question_mark_explains_the_plan_and_esc_goes_back() {
    let (mut app, _s) = loaded();
    update(&mut app, ch(':'));
    type_text(&mut app, "status:open,pending -site:\"Web shop\" age:>1h");
    update(&mut app, ch('?'));
    let (plan, _) = line(&app).explain.clone().expect("the plan");
    for want in [
        "query: status:open,pending -site:\"Web shop\" age:>1h",
        "GET /v1/conversations?status=open",
        "GET /v1/conversations?status=pending",
        "negation",
        "the API has no time filter",
    ] {
        assert!(plan.contains(want), "{want:?} in\n{plan}");
    }
    // ↓ scrolls it, never past its last line.
    for _ in 0..100 {
        update(&mut app, key(KeyCode::Down));
    }
    let (_, scroll) = line(&app).explain.clone().expect("still the plan");
    assert_eq!(scroll, plan.lines().count() - 1);
    update(&mut app, key(KeyCode::Esc));
    assert!(line(&app).explain.is_none());
    assert_eq!(
        line(&app).text,
        "status:open,pending -site:\"Web shop\" age:>1h"
    );
    // Inside quotes `?` is text.
    type_text(&mut app, " \"why?");
    assert!(line(&app).explain.is_none());
    assert!(line(&app).text.ends_with("\"why?"));
}

/// The line with its completions, with an error, and the plan overlay: one snapshot each,
/// named as the tests they were.
#[test]
fn snapshots_of_the_query_line() {
    let cases: [(&str, &str, &[Msg]); 3] = [
        (
            "snapshot_query_line_with_completions",
            "is:waiting assignee:",
            &[key(KeyCode::Tab), key(KeyCode::Tab)],
        ),
        (
            "snapshot_query_line_with_an_error",
            "status:open status:pending",
            &[key(KeyCode::Enter)],
        ),
        (
            "snapshot_query_plan_overlay",
            "assignee:none,\"Ana (EU desk)\" -status:closed idle:>30m",
            &[ch('?')],
        ),
    ];
    for (name, text, keys) in cases {
        let (mut app, _s) = loaded();
        update(&mut app, ch(':'));
        type_text(&mut app, text);
        for k in keys {
            update(&mut app, k.clone());
        }
        insta::assert_snapshot!(name, testing::render(&app));
    }
}

/// The pane over a tab running a query its fields cannot hold says so (and what the query
/// is); applying the pane replaces the query with its fields.
#[test]
fn the_pane_over_a_union_says_so_and_replaces_it() {
    let (mut app, s) = loaded();
    update(&mut app, ch(':'));
    type_text(&mut app, "status:open,pending");
    s.settle(&mut app, key(KeyCode::Enter));
    update(&mut app, ch('/'));
    match app.overlay() {
        convo::tui::overlay::Overlay::Filter(f) => {
            assert_eq!(f.query_note.as_deref(), Some("status:open,pending"))
        }
        other => panic!("{other:?}"),
    }
    insta::assert_snapshot!(testing::render(&app));
    // Status (the field after the site): closed, the third choice after any; then Enter.
    update(&mut app, key(KeyCode::Tab));
    for _ in 0..3 {
        update(&mut app, key(KeyCode::Right));
    }
    s.settle(&mut app, key(KeyCode::Enter));
    assert_eq!(
        app.query_of(Resource::Conversations).to_string(),
        "status:closed"
    );
    let (closed, all) = common::app::with_status(&app, Status::Closed);
    assert_eq!(closed, all, "only closed rows");
    // A pane over filters says nothing more.
    update(&mut app, ch('/'));
    assert!(
        matches!(app.overlay(), convo::tui::overlay::Overlay::Filter(f) if f.query_note.is_none())
    );
}

/// Without a local store (no answer to LoadQueryLine), ↑ still brings back the queries run
/// in this session, newest first.
#[test]
fn without_a_store_up_recalls_this_sessions_queries() {
    let (mut app, s) = loaded();
    for q in ["status:open", "is:waiting"] {
        update(&mut app, ch(':'));
        update(&mut app, ctrl('u'));
        type_text(&mut app, q);
        s.settle(&mut app, key(KeyCode::Enter));
    }
    update(&mut app, ch(':'));
    update(&mut app, ctrl('u'));
    update(&mut app, key(KeyCode::Up));
    assert_eq!(line(&app).text, "is:waiting");
    update(&mut app, key(KeyCode::Up));
    assert_eq!(line(&app).text, "status:open");
}

/// The Visitors tab: its own fields (attribute keys from the store as `attr.KEY`), and a
/// query the service cannot answer (a name) runs as a check on its rows.
#[test]
fn the_visitors_tab_has_its_own_fields_and_runs_its_queries() {
    let (mut app, s) = loaded();
    s.settle(&mut app, ch('2'));
    let cmds = update(&mut app, ch(':'));
    assert!(cmds.contains(&Command::LoadQueryLine {
        tab: Resource::Visitors
    }));
    update(
        &mut app,
        Msg::QueryLineLoaded {
            tab: Resource::Visitors,
            history: Vec::new(),
            attr_keys: vec!["plan".into()],
        },
    );
    type_text(&mut app, "a");
    update(&mut app, key(KeyCode::Tab));
    assert_eq!(labels(&app), ["age:", "attr.plan:"]);
    update(&mut app, ctrl('u'));
    type_text(&mut app, "name:souza");
    s.settle(&mut app, key(KeyCode::Enter));
    assert!(app.prompt().is_none());
    let rows = app.visitors.rows();
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|v| v.name.as_deref().is_some_and(|n| n.contains("Souza"))),
        "{rows:?}"
    );
}

/// The line, its candidates, its error and the plan draw in any terminal down to the
/// smallest convo draws in, without a panic, and the line stays inside the screen.
#[test]
fn the_line_draws_in_small_terminals() {
    for (w, h) in [(20, 6), (24, 7), (40, 10), (60, 12)] {
        let mut app = testing::app(w, h, 50);
        let s = FakeServer::new(30, 5);
        s.settle(&mut app, Msg::Resize(w, h));
        update(&mut app, ch(':'));
        type_text(
            &mut app,
            "status:open status:\"pending ünïcødé 🌸\" assignee:",
        );
        update(&mut app, key(KeyCode::Enter));
        let screen = testing::render(&app);
        assert!(screen.contains("query"), "{w}x{h}:\n{screen}");
        update(&mut app, key(KeyCode::Tab));
        testing::render(&app);
        update(&mut app, ctrl('u'));
        type_text(&mut app, "status:open,pending -site:\"Web shop\" idle:>1h");
        update(&mut app, ch('?'));
        assert!(line(&app).explain.is_some());
        testing::render(&app);
    }
}

/// `?` names the saved views that are this very query and what they add to it; `me` says
/// which agent it is.
#[test]
fn the_plan_names_the_views_of_the_query_and_what_me_is() {
    let (mut app, _s) = loaded();
    let q = convo::config::QuerySettings {
        agent_id: Some(testing::AGENT_A),
        ..app.settings().query_settings()
    };
    app.settings_mut().use_query_settings(q);
    update(&mut app, ch(':'));
    type_text(&mut app, "assignee:none status:open");
    update(&mut app, ch('?'));
    let (plan, _) = line(&app).explain.clone().expect("the plan");
    assert!(plan.contains("view: Unassigned open\n"), "{plan}");
    // "Breaching" is `due:breaching`, not the whole queue.
    assert!(!plan.contains("view: Breaching"), "{plan}");
    update(&mut app, key(KeyCode::Esc));
    update(&mut app, ctrl('u'));
    type_text(&mut app, "assignee:me");
    update(&mut app, ch('?'));
    let (plan, _) = line(&app).explain.clone().expect("the plan");
    assert!(
        plan.contains(&format!(
            "me: Ana (EU desk) = agent {} (agent_id in the config)",
            testing::AGENT_A
        )),
        "{plan}"
    );
    assert!(!plan.contains("view:"), "{plan}");
}

/// While the line is open the mouse reaches nothing under it (a click on the other tab's
/// title, the wheel over the rows).
#[test]
fn the_mouse_does_nothing_while_the_line_is_open() {
    let (mut app, _s) = loaded();
    app.settings_mut().apply_ui(
        &convo::config::ui::UiConfig {
            mouse: true,
            ..Default::default()
        },
        false,
    );
    update(&mut app, ch(':'));
    let visitors_title = convo::tui::layout::tab_titles()
        .into_iter()
        .find(|t| t.tab == Resource::Visitors)
        .expect("a Visitors title");
    let click = |col: u16, row: u16, kind| {
        Msg::Mouse(crossterm::event::MouseEvent {
            kind,
            column: col,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(
        &mut app,
        click(
            visitors_title.x,
            0,
            crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
        ),
    );
    update(
        &mut app,
        click(10, 12, crossterm::event::MouseEventKind::ScrollDown),
    );
    assert_eq!(app.active(), Resource::Conversations);
    assert_eq!(app.conversations.selected(), 0);
    assert!(matches!(app.prompt(), Some(Prompt::Query(_))));
}
