//! `update` fed with messages: state and commands, no I/O.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use uuid::Uuid;

use convo::api::{ApiError, Assignee, ConversationFilter, Resource, Status};
use convo::tui::command::{Command, RequestFilter};
use convo::tui::filter_form::Field;
use convo::tui::msg::{Loaded, Msg, Task};
use convo::tui::overlay::Overlay;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

use crate::common;
use common::app::at;

fn fetches(cmds: &[Command]) -> Vec<(Resource, Option<String>, RequestFilter)> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Fetch {
                tab, cursor, query, ..
            } => Some((*tab, cursor.clone(), query.clone())),
            _ => None,
        })
        .collect()
}

fn conv_fetches(cmds: &[Command]) -> Vec<(Option<String>, RequestFilter)> {
    fetches(cmds)
        .into_iter()
        .filter(|(t, _, _)| *t == Resource::Conversations)
        .map(|(_, c, q)| (c, q))
        .collect()
}

fn loaded(conversations: usize) -> (convo::tui::app::App, FakeServer) {
    common::app::loaded((120, 40), conversations, 30)
}

#[test]
fn first_message_asks_for_the_first_page_of_each_tab() {
    let mut app = testing::app(120, 40, 50);
    let cmds = update(&mut app, Msg::Resize(120, 40));
    let f = fetches(&cmds);
    assert_eq!(f.len(), 2, "{cmds:?}");
    assert!(f.iter().all(|(_, cursor, _)| cursor.is_none()));
    // one request in flight per tab: nothing more until the answers arrive
    assert!(fetches(&update(&mut app, key(KeyCode::End))).is_empty());
}

#[test]
fn lazy_load_asks_for_the_next_page_within_a_page_of_the_end_not_before() {
    let (mut app, server) = loaded(1000);
    // the first page arrived and, within a page of its end, the second was asked for at once
    assert_eq!(app.conversations.rows().len(), 100);
    for i in 1..50 {
        let cmds = update(&mut app, key(KeyCode::Down));
        assert!(
            conv_fetches(&cmds).is_empty(),
            "fetched too early at row {i}"
        );
    }
    assert_eq!(app.conversations.selected(), 49);
    let cmds = update(&mut app, key(KeyCode::Down));
    let f = conv_fetches(&cmds);
    assert_eq!(f.len(), 1, "selection 50 of 100 loaded is within a page");
    assert_eq!(f[0].0.as_deref(), Some("100"));
    // while it is in flight, no second request
    assert!(conv_fetches(&update(&mut app, key(KeyCode::Down))).is_empty());
    assert!(app.conversations.walk().is_loading());
    let _ = server;
}

#[test]
fn a_tall_screen_asks_until_it_is_full() {
    let mut app = testing::app(120, 200, 50);
    let server = FakeServer::new(1000, 5);
    server.settle(&mut app, Msg::Resize(120, 200));
    assert!(app.conversations.rows().len() >= 196);
}

#[test]
fn stale_answers_are_dropped() {
    let mut app = testing::app(120, 40, 50);
    let server = FakeServer::new(300, 5);
    let first = update(&mut app, Msg::Resize(120, 40));
    let old = first
        .iter()
        .find(|c| {
            matches!(
                c,
                Command::Fetch {
                    tab: Resource::Conversations,
                    ..
                }
            )
        })
        .cloned()
        .expect("a fetch");
    // the user changes the status filter before the first page arrives
    let cmds = update(&mut app, ch('s'));
    assert!(cmds.contains(&Command::Cancel {
        tab: Resource::Conversations
    }));
    let new = conv_fetches(&cmds);
    assert_eq!(new.len(), 1);
    let gen_now = app.conversations.generation();
    // the old answer arrives: dropped, nothing changes
    let stale = server.answer(&old).expect("answer");
    let cmds = update(&mut app, stale);
    assert!(cmds.is_empty());
    assert!(app.conversations.rows().is_empty());
    assert!(app.conversations.walk().is_loading());
    assert_eq!(app.conversations.generation(), gen_now);
}

#[test]
fn filter_pane_refuses_an_invalid_uuid_and_sends_nothing() {
    let (mut app, _server) = loaded(100);
    update(&mut app, ch('/'));
    assert!(matches!(app.overlay(), Overlay::Filter(_)));
    for c in "nope".chars() {
        update(&mut app, ch(c));
    }
    let Overlay::Filter(form) = app.overlay() else {
        panic!("pane closed")
    };
    assert_eq!(form.focus, Field::Site);
    assert!(form.error(Field::Site).is_some(), "marked as you type");
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(fetches(&cmds).is_empty(), "nothing sent: {cmds:?}");
    let Overlay::Filter(form) = app.overlay() else {
        panic!("pane closed on an invalid field")
    };
    assert!(form.refused);
    // fix it: clear and type a valid UUID
    for _ in 0..4 {
        update(&mut app, key(KeyCode::Backspace));
    }
    for c in testing::SITE_A.to_string().chars() {
        update(&mut app, ch(c));
    }
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(matches!(app.overlay(), Overlay::None));
    let f = conv_fetches(&cmds);
    assert_eq!(f.len(), 1);
    let RequestFilter::Conversations(q) = &f[0].1 else {
        panic!()
    };
    assert_eq!(q.site_id, Some(testing::SITE_A));
}

/// The table shows a site or agent by its `[aliases]` name ("Web shop"); the filter pane takes
/// that name too (ignoring case), shows an aliased UUID by its name when reopened, and says
/// when a name is not in `[aliases]` (it said "not a UUID" to "Web shop").
#[test]
fn filter_pane_takes_the_names_of_aliases_for_site_and_agent() {
    let (mut app, _server) = loaded(100);
    update(&mut app, ch('/'));
    for c in "web shop".chars() {
        update(&mut app, ch(c));
    }
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, key(KeyCode::Tab)); // assignee
    for _ in 0..3 {
        update(&mut app, key(KeyCode::Right)); // assigned to <uuid>
    }
    update(&mut app, key(KeyCode::Tab)); // the agent id field
    for c in "Ana (EU desk)".chars() {
        update(&mut app, ch(c));
    }
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(matches!(app.overlay(), Overlay::None), "applied");
    let f = conv_fetches(&cmds);
    let Some((_, RequestFilter::Conversations(q))) = f.first() else {
        panic!("no fetch: {cmds:?}")
    };
    assert_eq!(q.site_id, Some(testing::SITE_A));
    assert_eq!(q.assignee, Assignee::Agent(testing::AGENT_A));
    // Reopened: the names, not the UUIDs.
    update(&mut app, ch('/'));
    let Overlay::Filter(form) = app.overlay() else {
        panic!("pane closed")
    };
    assert_eq!(form.site.value(), "Web shop");
    assert_eq!(form.agent.value(), "Ana (EU desk)");
    // A name that is not in [aliases] is refused, and says so.
    update(&mut app, key(KeyCode::Esc));
    update(&mut app, ch('x'));
    update(&mut app, ch('/'));
    for c in "Web shoe".chars() {
        update(&mut app, ch(c));
    }
    let Overlay::Filter(form) = app.overlay() else {
        panic!("pane closed")
    };
    assert_eq!(
        form.error(Field::Site).as_deref(),
        Some("site id: not a UUID nor a name in [aliases]")
    );
    assert!(fetches(&update(&mut app, key(KeyCode::Enter))).is_empty());
}

/// `J` / `K` scroll the detail pane; with the pane closed they did nothing and said nothing.
#[test]
fn detail_scroll_keys_without_the_pane_say_how_to_open_it() {
    let (mut app, _server) = loaded(100);
    let before = app.conversations.selected();
    update(&mut app, ch('J'));
    let said = app.status_line().shown().map(|m| m.text.clone());
    assert_eq!(
        said.as_deref(),
        Some("no detail pane to scroll: Enter opens it")
    );
    assert_eq!(app.conversations.selected(), before, "the selection stays");
    assert!(!app.detail().is_open(), "the pane stays closed");
    update(&mut app, key(KeyCode::Esc));
    update(&mut app, key(KeyCode::Enter));
    update(&mut app, ch('J'));
    assert!(
        app.status_line().shown().is_none(),
        "with the pane open, J scrolls it quietly"
    );
    assert!(app.detail().is_open());
}

/// After `V` the chips name the visitor as the table does, not by a short id nobody knows
/// (they showed the first 8 hex digits of the id): the query's term (`visitor:<uuid>`, as `:`
/// writes it), then the name. On the first row and on another.
#[test]
fn the_visitor_chip_names_the_visitor_the_table_names() {
    for downs in [0, 1] {
        let (mut app, server) = loaded(300);
        for _ in 0..downs {
            update(&mut app, key(KeyCode::Down));
        }
        let row = app.conversations.selected_row().cloned().expect("row");
        let name = app.names().shown(&row.visitor_id).expect("a known name");
        let name = name.to_string();
        server.settle(&mut app, ch('V'));
        let screen = testing::render(&app);
        let chips = screen.lines().nth(1).unwrap_or_default();
        let want = format!(" visitor:{}  ({name}) ", row.visitor_id);
        assert!(chips.contains(&want), "row {downs}: no {want:?} in {chips}");
    }
}

#[test]
fn escape_cancels_the_pane_and_keeps_the_filters() {
    let (mut app, _server) = loaded(100);
    update(&mut app, ch('f'));
    update(&mut app, key(KeyCode::Tab)); // status
    update(&mut app, ch(' '));
    let cmds = update(&mut app, key(KeyCode::Esc));
    assert!(cmds.is_empty());
    assert_eq!(*app.conversations.filter(), ConversationFilter::default());
}

fn apply_assignee(steps: usize, agent: Option<&str>) -> ConversationFilter {
    let (mut app, _server) = loaded(100);
    update(&mut app, ch('/'));
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, key(KeyCode::Tab)); // assignee
    for _ in 0..steps {
        update(&mut app, key(KeyCode::Right));
    }
    if let Some(a) = agent {
        update(&mut app, key(KeyCode::Tab)); // the agent id field appears
        for c in a.chars() {
            update(&mut app, ch(c));
        }
    }
    let cmds = update(&mut app, key(KeyCode::Enter));
    if steps == 0 {
        assert!(cmds.is_empty(), "unchanged filters send nothing");
        return app.conversations.filter().clone();
    }
    match conv_fetches(&cmds).first() {
        Some((_, RequestFilter::Conversations(q))) => q.clone(),
        other => panic!("no conversations fetch: {other:?} in {cmds:?}"),
    }
}

#[test]
fn assignee_has_four_states() {
    assert_eq!(apply_assignee(0, None).assignee, Assignee::Any);
    assert_eq!(apply_assignee(1, None).assignee, Assignee::Unassigned);
    assert_eq!(apply_assignee(2, None).assignee, Assignee::Anyone);
    let a = testing::AGENT_B;
    assert_eq!(
        apply_assignee(3, Some(&a.to_string())).assignee,
        Assignee::Agent(a)
    );
    // "assigned to <uuid>" with no uuid is refused
    let (mut app, _s) = loaded(10);
    update(&mut app, ch('/'));
    update(&mut app, key(KeyCode::Tab));
    update(&mut app, key(KeyCode::Tab));
    for _ in 0..3 {
        update(&mut app, ch(' '));
    }
    assert!(fetches(&update(&mut app, key(KeyCode::Enter))).is_empty());
    let Overlay::Filter(form) = app.overlay() else {
        panic!()
    };
    assert!(form.error(Field::Agent).is_some());
}

#[test]
fn quick_keys_toggle_unassigned_and_cycle_status() {
    let (mut app, server) = loaded(300);
    server.settle(&mut app, ch('u'));
    assert_eq!(app.conversations.filter().assignee, Assignee::Unassigned);
    assert!(
        app.conversations
            .rows()
            .iter()
            .all(|c| c.assignee_id.is_none())
    );
    server.settle(&mut app, ch('u'));
    assert_eq!(app.conversations.filter().assignee, Assignee::Any);
    let mut seen = Vec::new();
    for _ in 0..4 {
        server.settle(&mut app, ch('s'));
        seen.push(app.conversations.filter().status.clone());
    }
    assert_eq!(
        seen,
        vec![
            Some(Status::Open),
            Some(Status::Pending),
            Some(Status::Closed),
            None
        ]
    );
    server.settle(&mut app, ch('x'));
    assert_eq!(*app.conversations.filter(), ConversationFilter::default());
}

#[test]
fn reload_keeps_the_selected_row_by_id() {
    let (mut app, mut server) = loaded(300);
    for _ in 0..30 {
        update(&mut app, key(KeyCode::Down));
    }
    let id = app.selected_id().expect("selected");
    // two new conversations appear at the top before the reload
    server.conversations.insert(0, testing::conversation(5000));
    server.conversations.insert(0, testing::conversation(5001));
    let cmds = server.settle(&mut app, ch('r'));
    assert!(cmds.contains(&Command::Cancel {
        tab: Resource::Conversations
    }));
    assert_eq!(app.selected_id(), Some(id));
    assert_eq!(app.conversations.selected(), 32);
}

/// Asserts that every conversation shown is visitor `id`'s.
fn assert_only_visitor(app: &convo::tui::app::App, id: uuid::Uuid) {
    let others = app
        .conversations
        .rows()
        .iter()
        .filter(|c| c.visitor_id != id);
    assert_eq!(others.count(), 0, "rows of other visitors than {id}");
}

#[test]
fn drill_down_and_back() {
    let (mut app, server) = loaded(300);
    update(&mut app, key(KeyCode::Down));
    let row = app.conversations.selected_row().cloned().expect("row");
    server.settle(&mut app, ch('V'));
    assert_eq!(app.conversations.filter().visitor_id, Some(row.visitor_id));
    assert_only_visitor(&app, row.visitor_id);
    server.settle(&mut app, ch('W'));
    assert_eq!(
        app.conversations.filter().site_id,
        Some(app.conversations.rows()[0].site_id)
    );
    server.settle(&mut app, key(KeyCode::Backspace));
    assert_eq!(app.conversations.filter().visitor_id, Some(row.visitor_id));
    server.settle(&mut app, ch('['));
    assert_eq!(*app.conversations.filter(), ConversationFilter::default());
    assert_eq!(app.conversations.rows().len(), 100);
    // nothing earlier: a message, no request
    let cmds = server.settle(&mut app, ch('['));
    assert!(fetches(&cmds).is_empty());
    assert!(app.status_line().shown().is_some());
}

#[test]
fn from_a_visitor_drill_switches_to_their_conversations() {
    let (mut app, server) = loaded(300);
    server.settle(&mut app, ch('2'));
    assert_eq!(app.active(), Resource::Visitors);
    update(&mut app, key(KeyCode::Down));
    let v = app.visitors.selected_row().cloned().expect("visitor");
    server.settle(&mut app, ch('V'));
    assert_eq!(app.active(), Resource::Conversations);
    assert_eq!(app.conversations.filter().visitor_id, Some(v.id));
    assert_only_visitor(&app, v.id);
}

#[test]
fn back_returns_across_tabs_to_the_visitor_it_came_from() {
    let (mut app, server) = loaded(300);
    // Conversations: open ones (a first move), a few rows down; then the Visitors tab.
    server.settle(&mut app, ch('s'));
    let open = app.conversations.filter().clone();
    assert_eq!(open.status, Some(Status::Open));
    for _ in 0..2 {
        update(&mut app, key(KeyCode::Down));
    }
    let conv = app.selected_id().expect("conversation");
    server.settle(&mut app, ch('2'));
    for _ in 0..3 {
        update(&mut app, key(KeyCode::Down));
    }
    let v = app.visitors.selected_row().cloned().expect("visitor");
    server.settle(&mut app, ch('V'));
    assert_eq!(app.active(), Resource::Conversations);
    // Backspace: the visitor you came from, not the Conversations tab's earlier filters.
    let cmds = server.settle(&mut app, key(KeyCode::Backspace));
    assert_eq!(app.active(), Resource::Visitors);
    assert_eq!(app.visitors.selected_row().map(|r| r.id), Some(v.id));
    assert!(
        fetches(&cmds)
            .iter()
            .all(|(t, _, _)| *t == Resource::Conversations),
        "the Visitors tab's rows are still there: {cmds:?}"
    );
    // ...and the Conversations tab shows again what it showed then, on the same row.
    assert_eq!(*app.conversations.filter(), open);
    assert_eq!(app.conversations.selected_row().map(|r| r.id), Some(conv));
    // Back again: the Conversations tab left for Visitors (a tab switch is a step too).
    server.settle(&mut app, key(KeyCode::Backspace));
    assert_eq!(app.active(), Resource::Conversations);
    assert_eq!(*app.conversations.filter(), open);
    assert_eq!(app.conversations.selected_row().map(|r| r.id), Some(conv));
    // And again: the Conversations tab before `s`.
    server.settle(&mut app, key(KeyCode::Backspace));
    assert_eq!(app.active(), Resource::Conversations);
    assert_eq!(*app.conversations.filter(), ConversationFilter::default());
    // Nothing earlier: said, nothing asked.
    let cmds = server.settle(&mut app, key(KeyCode::Backspace));
    assert!(fetches(&cmds).is_empty());
    assert_eq!(
        app.status_line().shown().map(|m| m.text.as_str()),
        Some("nothing to go back to")
    );
}

#[test]
fn a_visitor_filter_chip_names_the_visitor() {
    let (mut app, server) = loaded(300);
    let row = app.conversations.selected_row().cloned().expect("row");
    let name = app
        .names()
        .shown(&row.visitor_id)
        .expect("a known name")
        .to_string();
    server.settle(&mut app, ch('V'));
    let screen = testing::render(&app);
    let chips = screen.lines().nth(1).unwrap_or_default();
    assert!(chips.contains(&format!("({name})")), "{chips}");
}

#[test]
fn back_from_a_drill_down_lands_on_the_row_it_started_from() {
    let (mut app, server) = loaded(300);
    for _ in 0..7 {
        update(&mut app, key(KeyCode::Down));
    }
    let id = app.selected_id().expect("row");
    server.settle(&mut app, ch('W'));
    assert_ne!(*app.conversations.filter(), ConversationFilter::default());
    server.settle(&mut app, key(KeyCode::Backspace));
    assert_eq!(*app.conversations.filter(), ConversationFilter::default());
    assert_eq!(app.selected_id(), Some(id));
    assert_eq!(app.conversations.selected(), 7);
}

#[test]
fn periodic_refresh_merges_on_top_and_keeps_the_selected_id() {
    let mut app = testing::app(120, 40, 50);
    app.refresh_every(Some(10));
    let mut server = FakeServer::new(300, 5);
    server.settle(&mut app, Msg::Resize(120, 40));
    for _ in 0..10 {
        update(&mut app, key(KeyCode::Down));
    }
    let id = app.selected_id().expect("selected");
    for i in 0..3 {
        server
            .conversations
            .insert(0, testing::conversation(9000 + i));
    }
    // not yet due
    assert!(update(&mut app, at(5)).is_empty());
    let cmds = server.settle(&mut app, at(10));
    assert!(cmds.iter().any(|c| matches!(c, Command::FetchHead { .. })));
    assert_eq!(app.selected_id(), Some(id));
    assert_eq!(app.conversations.selected(), 13);
    assert_eq!(app.conversations.rows()[0].id, server.conversations[0].id);
    // R turns it off: no more refreshes
    update(&mut app, ch('R'));
    assert!(update(&mut app, at(100)).is_empty());
}

#[test]
fn refresh_interval_zero_means_never() {
    let mut app = testing::app(120, 40, 50);
    assert!(!app.refresh_clock().is_on());
    let server = FakeServer::new(100, 5);
    server.settle(&mut app, Msg::Resize(120, 40));
    assert!(update(&mut app, at(3600)).is_empty());
}

#[test]
fn tabs_keep_their_own_state() {
    let (mut app, server) = loaded(300);
    for _ in 0..5 {
        update(&mut app, key(KeyCode::Down));
    }
    server.settle(&mut app, key(KeyCode::Tab));
    assert_eq!(app.active(), Resource::Visitors);
    update(&mut app, key(KeyCode::Down));
    update(&mut app, key(KeyCode::Down));
    server.settle(&mut app, key(KeyCode::BackTab));
    assert_eq!(app.active(), Resource::Conversations);
    assert_eq!(app.conversations.selected(), 5);
    server.settle(&mut app, ch('2'));
    assert_eq!(app.visitors.selected(), 2);
    server.settle(&mut app, ch('1'));
    assert_eq!(app.active(), Resource::Conversations);
}

#[test]
fn mouse_selects_rows_and_switches_tabs() {
    let (mut app, _server) = loaded(300);
    let click = |column, row| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    // body starts at row 3 (header, chips, column titles)
    update(&mut app, click(10, 7));
    assert_eq!(app.conversations.selected(), 4);
    update(
        &mut app,
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: 10,
            row: 10,
            modifiers: KeyModifiers::NONE,
        }),
    );
    assert_eq!(app.conversations.selected(), 7);
    let visitors = convo::tui::layout::tab_titles()[1].clone();
    update(&mut app, click(visitors.x + 2, 0));
    assert_eq!(app.active(), Resource::Visitors);
}

#[test]
fn retry_countdown_shows_and_counts_down() {
    let mut app = testing::app(120, 30, 50);
    update(&mut app, Msg::Resize(120, 30));
    let wait = std::time::Duration::from_secs(3);
    common::app::retrying(&mut app, 1, wait, "rate limited (HTTP 429)", true);
    let screen = testing::render(&app);
    common::assert_has(&screen, "retrying in 3s");
    common::assert_has(&screen, "rate limited");
    app.drawn();
    update(&mut app, at(1));
    assert!(app.is_dirty(), "a countdown redraws every second");
    assert!(testing::render(&app).contains("retrying in 2s"));
}

#[test]
fn an_error_keeps_the_rows_and_r_retries_the_same_page() {
    let (mut app, server) = loaded(300);
    for _ in 0..60 {
        update(&mut app, key(KeyCode::Down));
    }
    let cmds = update(&mut app, key(KeyCode::Down));
    let _ = cmds;
    // find the fetch that is in flight: the page after 100
    assert!(app.conversations.walk().is_loading());
    // A cause longer than the 120 columns.
    let detail = ": unavailable while the primary database fails over to its replica elsewhere";
    common::app::page_fails(&mut app, 503, detail.to_string());
    assert_eq!(app.conversations.rows().len(), 100);
    assert!(app.conversations.error().is_some());
    let screen = testing::render(&app);
    common::assert_has(&screen, "the service failed (HTTP 503");
    // The cause first (" error: CAUSE · r retries; loaded rows stay"), whole in the help.
    common::assert_has(&screen, " error: ");
    common::assert_has(&screen, "(? shows all)");
    // no automatic retry while scrolling in the middle
    assert!(conv_fetches(&update(&mut app, key(KeyCode::Down))).is_empty());
    let cmds = update(&mut app, ch('r'));
    let f = conv_fetches(&cmds);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0.as_deref(), Some("100"), "the same page again");
    assert_eq!(app.conversations.rows().len(), 100, "rows kept");
    let answer = server
        .answer(
            cmds.iter()
                .find(|c| matches!(c, Command::Fetch { .. }))
                .unwrap(),
        )
        .unwrap();
    update(&mut app, answer);
    assert_eq!(app.conversations.rows().len(), 150);
    assert!(app.conversations.error().is_none());
}

/// The status line says each thing once: the cause, then one hint (the service's error text
/// alone would add "rows already loaded are kept, retry later" before the TUI's own hint).
#[test]
fn an_error_on_the_status_line_says_the_cause_then_one_hint() {
    let (mut app, _server) = loaded(300);
    update(&mut app, Msg::Resize(200, 40));
    update(&mut app, key(KeyCode::End));
    common::app::page_fails(&mut app, 503, ": unavailable".to_string());
    let line = common::app::error_line(&app);
    assert_eq!(
        line.trim_matches(|c| c == '"' || c == ' '),
        "error: the service failed (HTTP 503: unavailable) 4 times in a row · r retries; \
         loaded rows stay",
        "{}",
        testing::render(&app)
    );
}

/// `x` with no filters set says there was nothing to clear (not "filters unchanged"), on
/// either tab, and fetches nothing; with a filter set it clears it.
#[test]
fn x_with_no_filters_says_there_are_none_to_clear() {
    let (mut app, _server) = loaded(300);
    for tab in ['1', '2'] {
        update(&mut app, ch(tab));
        let cmds = update(&mut app, ch('x'));
        assert!(conv_fetches(&cmds).is_empty(), "{cmds:?}");
        let said = app.status_line().shown().map(|m| m.text.clone());
        assert_eq!(said.as_deref(), Some("no filters to clear"), "tab {tab}");
    }
    update(&mut app, ch('1'));
    update(&mut app, ch('s'));
    assert!(app.conversations.filter().status.is_some());
    update(&mut app, ch('x'));
    assert_eq!(*app.conversations.filter(), ConversationFilter::default());
}

#[test]
fn scrolling_to_the_end_retries_after_an_error() {
    let (mut app, _server) = loaded(300);
    update(&mut app, key(KeyCode::End));
    let result = Err(ApiError::Timeout {
        timeout: std::time::Duration::from_secs(15),
        attempts: 4,
    });
    common::app::page_loaded(&mut app, Resource::Conversations, result);
    assert!(app.conversations.error().is_some());
    let cmds = update(&mut app, key(KeyCode::End));
    assert_eq!(conv_fetches(&cmds).len(), 1);
}

#[test]
fn end_walks_to_all_loaded_and_load_all_is_cancellable() {
    let (mut app, server) = loaded(230);
    while !app.conversations.walk().is_done() {
        server.settle(&mut app, key(KeyCode::End));
    }
    assert_eq!(app.conversations.rows().len(), 230);
    server.settle(&mut app, key(KeyCode::End));
    assert_eq!(app.conversations.selected(), 229);
    assert!(testing::render(&app).contains("all 230 loaded"));

    let (mut app, server) = loaded(1000);
    server.settle(&mut app, ch('L'));
    assert_eq!(app.conversations.rows().len(), 1000);
    let mut app2 = testing::app(120, 40, 50);
    let _ = update(&mut app2, Msg::Resize(120, 40));
    update(&mut app2, ch('L'));
    assert!(app2.conversations.load_all());
    update(&mut app2, key(KeyCode::Esc));
    assert!(!app2.conversations.load_all());
}

#[test]
fn copy_sends_only_the_uuid() {
    let (mut app, _server) = loaded(10);
    let cmds = update(&mut app, ch('y'));
    let id = app.selected_id().unwrap();
    assert_eq!(cmds, vec![Command::CopyToClipboard(id.to_string())]);
    // Named short on the status line (the whole id is what is copied).
    assert!(
        app.status_line()
            .shown()
            .as_ref()
            .unwrap()
            .text
            .contains(&convo::api::short_id(&id))
    );
    assert!(Uuid::parse_str(&id.to_string()).is_ok());
}

#[test]
fn builtin_view_applies_status_open_and_unassigned() {
    let (mut app, server) = loaded(300);
    server.settle(&mut app, ch('2'));
    update(&mut app, ch('v'));
    assert!(matches!(app.overlay(), Overlay::Views { .. }));
    server.settle(&mut app, key(KeyCode::Enter));
    assert_eq!(app.active(), Resource::Conversations);
    assert_eq!(app.conversations.filter().status, Some(Status::Open));
    assert_eq!(app.conversations.filter().assignee, Assignee::Unassigned);
    assert!(
        app.conversations
            .rows()
            .iter()
            .all(|c| c.status == Status::Open && c.assignee_id.is_none())
    );
}

/// Back from a drill-down out of the "Breaching" view gives the view again: its filters,
/// every page loaded, oldest first (not only its filters in server order).
#[test]
fn back_into_the_breaching_view_is_the_view_again() {
    let (mut app, server) = loaded(300);
    // "Breaching" is `due:breaching`: it needs a first-response target.
    app.settings_mut()
        .set_sla(common::app::first_response(25), false);
    update(&mut app, ch('v'));
    update(&mut app, key(KeyCode::Down));
    server.settle(&mut app, key(KeyCode::Enter));
    let breaching = app.conversations.filter().clone();
    assert!(app.shows_oldest_first());
    assert!(app.conversations.walk().is_done(), "every page loaded");
    server.settle(&mut app, ch('W'));
    assert!(!app.shows_oldest_first());
    server.settle(&mut app, key(KeyCode::Backspace));
    assert_eq!(*app.conversations.filter(), breaching);
    assert_eq!(app.oldest_first(), Some(app.conversations.generation()));
    assert!(
        app.conversations.walk().is_done(),
        "every page loaded again"
    );
    let sort = app.sort().get(Resource::Conversations).sort;
    assert_eq!(
        sort.map(|s| (s.col, s.desc)),
        Some((convo::tui::columns::Column::Created, false)),
        "oldest first"
    );
}

#[test]
fn ctrl_c_and_q_quit() {
    let (mut app, _server) = loaded(10);
    let c = Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert_eq!(update(&mut app, c.clone()), vec![Command::Quit]);
    update(&mut app, ch('/'));
    assert_eq!(update(&mut app, c), vec![Command::Quit], "even in the pane");
    let (mut app, _server) = loaded(10);
    assert_eq!(update(&mut app, ch('q')), vec![Command::Quit]);
    // Issue 39, 4: over the table, q closes what is on top; Q quits from anywhere.
    update(&mut app, ch('?'));
    assert!(update(&mut app, ch('q')).is_empty(), "q closes the help");
    assert!(matches!(app.overlay(), Overlay::None));
    update(&mut app, key(KeyCode::Enter));
    assert!(update(&mut app, ch('q')).is_empty(), "q closes the pane");
    assert!(!app.detail().is_open());
    update(&mut app, ch('?'));
    assert_eq!(
        update(&mut app, ch('Q')),
        vec![Command::Quit],
        "Q from help"
    );
    update(&mut app, key(KeyCode::Esc));
    update(&mut app, key(KeyCode::Enter));
    assert_eq!(
        update(&mut app, ch('Q')),
        vec![Command::Quit],
        "Q from the pane"
    );
}

#[test]
fn wrong_page_kind_is_an_error_not_a_panic() {
    let mut app = testing::app(120, 40, 50);
    update(&mut app, Msg::Resize(120, 40));
    let result = Ok(Loaded::Visitors(testing::page(
        &[testing::visitor(0)],
        0,
        50,
    )));
    common::app::page_loaded(&mut app, Resource::Conversations, result);
    assert!(app.conversations.error().is_some());
}

/// Virtual time: Down at 30 rows/s against a server that answers 50 ms after each fetch,
/// through 2,000 rows. The selection must never sit on the last loaded row while more exist
/// (that is where a user would wait).
#[test]
fn scrolling_at_key_repeat_speed_never_reaches_an_unloaded_row() {
    let (report, blocked) = simulate(30.0, 50, 2000);
    eprintln!("{report}");
    assert_eq!(blocked, 0, "{report}");
}

fn simulate(rows_per_sec: f64, latency_ms: u64, target: usize) -> (String, usize) {
    let mut app = testing::app(200, 50, 50);
    let server = FakeServer::new(target + 500, 10);
    let mut pending: Vec<(u64, Msg)> = Vec::new();
    let schedule = |cmds: Vec<Command>, t: u64, pending: &mut Vec<(u64, Msg)>| {
        for c in cmds {
            if let Some(m) = server.answer(&c) {
                pending.push((t + latency_ms, m));
            }
        }
    };
    let cmds = update(&mut app, Msg::Resize(200, 50));
    schedule(cmds, 0, &mut pending);
    let step = (1000.0 / rows_per_sec) as u64;
    let mut next_key = 100; // the user starts once the first page is on screen
    let mut min_margin = usize::MAX;
    let mut blocked = 0;
    let mut presses = 0;
    while app.conversations.selected() < target {
        pending.sort_by_key(|(t, _)| *t);
        let due = pending.first().map(|(t, _)| *t);
        if due.is_some_and(|d| d <= next_key) {
            let (t, m) = pending.remove(0);
            let cmds = update(&mut app, m);
            schedule(cmds, t, &mut pending);
            continue;
        }
        let loaded = app.conversations.rows().len();
        let margin = loaded - 1 - app.conversations.selected();
        min_margin = min_margin.min(margin);
        if margin == 0 && app.conversations.walk().has_more() {
            blocked += 1;
        }
        let cmds = update(&mut app, key(KeyCode::Down));
        schedule(cmds, next_key, &mut pending);
        presses += 1;
        next_key += step;
        assert!(presses < target * 4, "stuck");
    }
    (
        format!(
            "prefetch: {rows_per_sec} rows/s, {latency_ms} ms server, {target} rows: minimum margin \
             {min_margin} rows ahead of the selection, {blocked} key presses on the last loaded row"
        ),
        blocked,
    )
}

#[test]
fn faster_scrolling_still_keeps_ahead() {
    // 100 rows/s (held PageDown-ish speed) on the same server
    let (report, blocked) = simulate(100.0, 50, 2000);
    eprintln!("{report}");
    assert_eq!(blocked, 0, "{report}");
}

fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

#[test]
fn ctrl_z_suspends_from_the_table_the_filter_pane_and_help_and_can_be_rebound() {
    let (mut app, _server) = loaded(10);
    update(&mut app, key(KeyCode::Down));
    let selected = app.conversations.selected();
    assert_eq!(update(&mut app, ctrl('z')), vec![Command::Suspend]);
    assert_eq!(
        app.conversations.selected(),
        selected,
        "nothing else changes"
    );
    update(&mut app, ch('/'));
    assert_eq!(
        update(&mut app, ctrl('z')),
        vec![Command::Suspend],
        "even while typing in the filter pane"
    );
    assert!(
        matches!(app.overlay(), Overlay::Filter(_)),
        "the pane stays open"
    );
    update(&mut app, key(KeyCode::Esc));
    update(&mut app, ch('?'));
    assert_eq!(
        update(&mut app, ctrl('z')),
        vec![Command::Suspend],
        "from help"
    );
    // [keys] suspend = "Ctrl-X": Ctrl-Z is then nothing, Ctrl-X suspends.
    let mut keys = std::collections::BTreeMap::new();
    keys.insert("suspend".to_string(), vec!["Ctrl-X".to_string()]);
    app.settings_mut()
        .use_keymap(convo::tui::keys::KeyMap::with_config(&keys).expect("keys"));
    update(&mut app, key(KeyCode::Esc));
    assert!(!update(&mut app, ctrl('z')).contains(&Command::Suspend));
    assert_eq!(update(&mut app, ctrl('x')), vec![Command::Suspend]);
    let help = testing::render(&{
        let mut a = app.clone();
        update(&mut a, ch('?'));
        a
    });
    assert!(
        help.contains("Ctrl-x") && help.contains("suspend"),
        "{help}"
    );
}

#[test]
fn a_panicked_fetch_is_an_error_that_keeps_the_rows_and_r_retries_the_same_page() {
    let (mut app, server) = loaded(300);
    for _ in 0..61 {
        update(&mut app, key(KeyCode::Down));
    }
    assert!(app.conversations.walk().is_loading());
    let generation = app.conversations.generation();
    // A panic of an older walk's task is dropped like its answer would be.
    update(
        &mut app,
        Msg::TaskFailed {
            task: Task::Page {
                tab: Resource::Conversations,
                generation: generation - 1,
            },
            message: "old".into(),
        },
    );
    assert!(app.conversations.error().is_none());
    assert!(app.conversations.walk().is_loading());
    update(
        &mut app,
        Msg::TaskFailed {
            task: Task::Page {
                tab: Resource::Conversations,
                generation,
            },
            message: "index out of bounds".into(),
        },
    );
    assert_eq!(app.conversations.rows().len(), 100, "rows kept");
    assert!(!app.conversations.walk().is_loading());
    let screen = testing::render(&app);
    common::assert_has(
        &screen,
        "internal error (a bug in convo): index out of bounds",
    );
    // The cause first, then what to do.
    common::assert_has(
        &screen,
        " error: internal error (a bug in convo): index out of bounds · r retries",
    );
    let cmds = update(&mut app, ch('r'));
    let f = conv_fetches(&cmds);
    assert_eq!(f.len(), 1, "{cmds:?}");
    assert_eq!(f[0].0.as_deref(), Some("100"), "the same page again");
    let fetch = cmds
        .iter()
        .find(|c| matches!(c, Command::Fetch { .. }))
        .expect("fetch");
    update(&mut app, server.answer(fetch).expect("answer"));
    assert_eq!(app.conversations.rows().len(), 150);
    assert!(app.conversations.error().is_none());
}

#[test]
fn a_panicked_refresh_export_or_profile_load_says_so_and_nothing_is_stuck() {
    let (mut app, _server) = loaded(100);
    let generation = app.conversations.generation();
    let limit = convo::api::Limit::new(100).expect("a limit");
    let refresh = app.conversations.head_fetch(limit, 10, false);
    assert!(refresh.is_some() && app.conversations.refreshing());
    update(
        &mut app,
        Msg::TaskFailed {
            task: Task::Head {
                tab: Resource::Conversations,
                generation,
            },
            message: "boom".into(),
        },
    );
    assert!(!app.conversations.refreshing(), "the next refresh can go");
    assert_eq!(app.conversations.rows().len(), 100);
    let screen = testing::render(&app);
    common::assert_has(&screen, "refresh failed: internal error");

    update(
        &mut app,
        Msg::TaskFailed {
            task: Task::Export,
            message: "disk on fire".into(),
        },
    );
    let m = app.status_line().shown().expect("message");
    assert!(m.error && m.text.contains("export failed") && m.text.contains("disk on fire"));

    app.profiles_mut().switching = Some("staging".into());
    update(
        &mut app,
        Msg::TaskFailed {
            task: Task::Profile,
            message: "bad".into(),
        },
    );
    assert!(app.profiles().switching.is_none(), "P works again");
    let m = app.status_line().shown().expect("message");
    assert!(
        m.error && m.text.starts_with("profile not switched"),
        "{}",
        m.text
    );
}

/// Quick search matches the visitor's name and e-mail from the local store (the VISITOR
/// column shows them), case-insensitively; names that arrive while a search is on count at once.
#[test]
fn quick_search_matches_visitor_names_and_emails() {
    let server = FakeServer::new(200, 5);
    let mut app = common::app::on_screen(&server, 120, 30);
    let rows = app.conversations.rows().to_vec();
    let target = rows[37].visitor_id;
    let theirs: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, c)| c.visitor_id == target)
        .map(|(i, _)| i)
        .collect();
    // Search first: no name known yet, no match.
    update(&mut app, ch('\\'));
    for c in "quintan".chars() {
        update(&mut app, ch(c));
    }
    update(&mut app, key(KeyCode::Enter));
    assert!(app.search().get(Resource::Conversations).matches.is_empty());
    // The name arrives: the rows of that visitor match at once.
    update(
        &mut app,
        common::app::visitor_named(
            target,
            Some("Zélia Quintanilha"),
            Some("ZQ@Example.org"),
            None,
        ),
    );
    assert_eq!(app.search().get(Resource::Conversations).matches, theirs);
    // By e-mail, case-insensitive; n jumps to the first of them.
    update(&mut app, ch('\\'));
    for _ in 0..7 {
        update(&mut app, key(KeyCode::Backspace));
    }
    for c in "zq@example".chars() {
        update(&mut app, ch(c));
    }
    update(&mut app, key(KeyCode::Enter));
    assert_eq!(app.search().get(Resource::Conversations).matches, theirs);
    assert!(
        theirs.contains(&app.conversations.selected()),
        "{}",
        app.conversations.selected()
    );
}

/// The e-mail lookup `cmds` ask for: its ticket, e-mail and the rest of the filters.
fn lookup_of(cmds: &[Command]) -> (u64, String, convo::api::ConversationFilter) {
    match cmds
        .iter()
        .find(|c| matches!(c, Command::ResolveEmail { .. }))
    {
        Some(Command::ResolveEmail {
            ticket,
            email,
            base,
        }) => (*ticket, email.clone(), base.clone()),
        _ => panic!("no lookup: {cmds:?}"),
    }
}

/// Opens the filter pane, goes to "visitor email" and types `email`, then Enter.
fn apply_visitor_email(app: &mut convo::tui::app::App, email: &str) -> Vec<Command> {
    update(app, ch('/'));
    for _ in 0..4 {
        update(app, key(KeyCode::Tab)); // status, assignee, visitor id, visitor email
    }
    let Overlay::Filter(form) = app.overlay() else {
        panic!("pane closed")
    };
    assert_eq!(form.focus, Field::VisitorEmail);
    for c in email.chars() {
        update(app, ch(c));
    }
    update(app, key(KeyCode::Enter))
}

#[test]
fn a_visitor_email_is_asked_of_the_service_and_its_visitors_walked_merged() {
    let (mut app, _server) = loaded(100);
    let before = app.conversations.filter().clone();
    let cmds = apply_visitor_email(&mut app, " ana@example.com ");
    // nothing is fetched before the service says which visitors have it
    assert!(conv_fetches(&cmds).is_empty(), "{cmds:?}");
    let (ticket, email, base) = lookup_of(&cmds);
    assert_eq!(email, "ana@example.com");
    assert_eq!(
        *app.conversations.filter(),
        before,
        "filters unchanged meanwhile"
    );

    // a typo: said, and the filters stay as they were
    let cmds = update(
        &mut app,
        Msg::EmailResolved {
            ticket,
            email: "ana@example.com".into(),
            base: base.clone(),
            result: Ok(vec![]),
        },
    );
    assert!(conv_fetches(&cmds).is_empty());
    let m = app.status_line().shown().expect("a message");
    assert!(m.error);
    assert!(
        m.text.contains(
            "no visitor has the e-mail \"ana@example.com\" (the service matches whole addresses"
        ),
        "{}",
        m.text
    );
    assert_eq!(*app.conversations.filter(), before);

    // two visitors: one new walk whose filter names both; never sent as one visitor_id
    let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
    let (ticket, _, _) = lookup_of(&apply_visitor_email(&mut app, "ana@example.com"));
    let cmds = update(
        &mut app,
        Msg::EmailResolved {
            ticket,
            email: "ana@example.com".into(),
            base: base.clone(),
            result: Ok(vec![a, b]),
        },
    );
    let f = conv_fetches(&cmds);
    assert_eq!(f.len(), 1, "{cmds:?}");
    let RequestFilter::Conversations(q) = &f[0].1 else {
        panic!()
    };
    assert_eq!(q.merged_visitors(), Some(&[a, b][..]));
    assert_eq!(q.visitor_id, None);
    assert_eq!(*app.conversations.filter(), *q);

    // one visitor: sent as visitor_id, shown as the e-mail
    update(&mut app, ch('x'));
    let (ticket, _, _) = lookup_of(&apply_visitor_email(&mut app, "solo@example.com"));
    let cmds = update(
        &mut app,
        Msg::EmailResolved {
            ticket,
            email: "solo@example.com".into(),
            base,
            result: Ok(vec![a]),
        },
    );
    let f = conv_fetches(&cmds);
    let RequestFilter::Conversations(q) = &f[0].1 else {
        panic!()
    };
    assert_eq!(q.visitor_id, Some(a));
    assert_eq!(q.merged_visitors(), None);
    // reopening the pane shows the e-mail, and Enter with it unchanged asks nothing again
    let cmds = {
        update(&mut app, ch('/'));
        update(&mut app, key(KeyCode::Enter))
    };
    assert!(
        !cmds
            .iter()
            .any(|c| matches!(c, Command::ResolveEmail { .. })),
        "{cmds:?}"
    );
    assert_eq!(app.conversations.filter().visitor_id, Some(a));
}

#[test]
fn a_visitors_email_filter_that_finds_nobody_says_the_service_matches_whole_addresses() {
    // A service with no visitor for the address (the fake has none at all).
    let mut app = testing::app(120, 20, 50);
    let server = FakeServer::new(10, 0);
    server.settle(&mut app, Msg::Resize(120, 20));
    server.settle(&mut app, key(KeyCode::Tab));
    assert_eq!(app.active(), Resource::Visitors);
    let screen = testing::render(&app);
    assert!(!screen.contains("whole e-mail addresses"), "{screen}");
    server.settle(&mut app, ch('/'));
    for c in "fatima".chars() {
        server.settle(&mut app, ch(c));
    }
    server.settle(&mut app, key(KeyCode::Enter));
    assert_eq!(app.visitors.filter().email.as_deref(), Some("fatima"));
    let screen = testing::render(&app);
    common::assert_has(
        &screen,
        "no rows (the service matches whole e-mail addresses)",
    );
}
