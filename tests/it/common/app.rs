//! Pieces for tests that drive `update()` directly (no I/O): SLA targets, a colleague
//! picking a conversation up, a failed page, another profile.

use convo::api::{ApiError, Limit, Resource, RetryNotice};
use convo::config::ui::UiConfig;
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::keys::KeyMap;
use convo::tui::msg::{Loaded, Msg};
use convo::tui::session::Session;
use convo::tui::testing::{self, FakeServer};
use convo::tui::update::update;

/// A clock tick `secs` seconds after the fixed test clock (`testing::now()`).
pub fn at(secs: i64) -> Msg {
    Msg::Tick(
        testing::now()
            .checked_add(jiff::SignedDuration::from_secs(secs))
            .unwrap_or(testing::now()),
    )
}

/// The footer line (the screen's last line but one).
pub fn footer(app: &App) -> String {
    let screen = testing::render(app);
    let lines: Vec<&str> = screen.lines().collect();
    lines[lines.len() - 2].to_string()
}

/// An SLA with only a first-response target of `mins` minutes.
pub fn first_response(mins: i64) -> convo::sla::Sla {
    convo::sla::Sla {
        base: convo::sla::Policy {
            first_response: Some(mins * 60),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// A colleague (AGENT_A) picks conversation `id` up on the server.
pub fn assign(server: &mut FakeServer, id: uuid::Uuid) {
    let c = server
        .conversations
        .iter_mut()
        .find(|c| c.id == id)
        .expect("on the server");
    c.assignee_id = Some(testing::AGENT_A);
}

/// The page in flight on `tab` (its current generation) answers `result`.
pub fn page_loaded(app: &mut App, tab: Resource, result: Result<Loaded, ApiError>) -> Vec<Command> {
    let generation = match tab {
        Resource::Conversations => app.conversations.generation(),
        Resource::Visitors => app.visitors.generation(),
    };
    update(
        app,
        Msg::PageLoaded {
            tab,
            generation,
            result,
        },
    )
}

/// The conversations page in flight fails with HTTP `status` and `detail` after 4 attempts.
pub fn page_fails(app: &mut App, status: u16, detail: String) -> Vec<Command> {
    let result = Err(ApiError::Server {
        status,
        detail,
        attempts: 4,
    });
    page_loaded(app, Resource::Conversations, result)
}

/// The client says it retries the conversations page in flight: attempt `attempt`, in
/// `wait`, because `reason` (`rate_limited` for an HTTP 429).
pub fn retrying(
    app: &mut App,
    attempt: u32,
    wait: std::time::Duration,
    reason: &str,
    rate_limited: bool,
) -> Vec<Command> {
    let generation = app.conversations.generation();
    let mut msg = retry_of(generation, attempt, wait, reason, rate_limited);
    if let Msg::Retrying { cursor, .. } = &mut msg {
        *cursor = app
            .conversations
            .walk()
            .in_flight()
            .flatten()
            .map(str::to_string);
    }
    update(app, msg)
}

/// [`retrying`]'s message for the first page of the conversations walk `generation` (a
/// reload's new walk, say, while the rows on screen are still the old walk's).
pub fn retry_of(
    generation: u64,
    attempt: u32,
    wait: std::time::Duration,
    reason: &str,
    rate_limited: bool,
) -> Msg {
    let notice = RetryNotice {
        attempt,
        wait,
        reason: reason.into(),
        rate_limited,
        budget: false,
    };
    Msg::Retrying {
        tab: Resource::Conversations,
        generation,
        cursor: None,
        notice,
    }
}

/// The app `server` shows in a `cols` x `rows` terminal once its first pages are in.
pub fn on_screen(server: &FakeServer, cols: u16, rows: u16) -> App {
    let mut app = testing::app(cols, rows, 50);
    server.settle(&mut app, Msg::Resize(cols, rows));
    app
}

/// The local store names visitor `id`: `name`, `email`, `external_id`.
pub fn visitor_named(
    id: uuid::Uuid,
    name: Option<&str>,
    email: Option<&str>,
    external_id: Option<&str>,
) -> Msg {
    let label = convo::tui::names::VisitorLabel {
        name: name.map(Into::into),
        email: email.map(Into::into),
        external_id: external_id.map(Into::into),
    };
    Msg::NamesLoaded {
        asked: vec![id],
        found: vec![(id, Some(label))],
    }
}

/// The screen's error line (the status line while an error shows); panics with the screen
/// when there is none.
pub fn error_line(app: &App) -> String {
    let screen = testing::render(app);
    match screen.lines().find(|l| l.contains(" error: ")) {
        Some(line) => line.to_string(),
        None => panic!("no error line: {screen}"),
    }
}

/// The "staging" profile as loading it would give it (pages of 20, defaults otherwise).
pub fn staging() -> Session {
    Session {
        name: "staging".into(),
        page_size: Limit::new(20).unwrap(),
        views: Vec::new(),
        aliases: Default::default(),
        refresh_secs: None,
        endpoint: "staging.example · sk_…wxyz".into(),
        ui: UiConfig::default(),
        profiles: vec!["prod".into(), "staging".into()],
        keymap: KeyMap::default(),
        command_keys: Vec::new(),
        sla: Default::default(),
        columns_configured: false,
        client: None,
        config: None,
    }
}

/// A page of conversations (`more`: it names a next cursor).
pub fn conv_page(rows: Vec<convo::api::Conversation>, more: bool) -> Result<Loaded, ApiError> {
    Ok(Loaded::Conversations(convo::api::Page {
        has_more: more,
        next_cursor: more.then(|| "next".to_string()),
        items: rows,
        bad_rows: Vec::new(),
    }))
}

/// Stream `stream`'s page of the Conversations tab's union walk arrives (for this walk).
pub fn part_loaded(app: &mut App, stream: usize, result: Result<Loaded, ApiError>) -> Vec<Command> {
    let generation = app.conversations.generation();
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

/// The key `c` with Ctrl held (Ctrl-U clears a prompt).
pub fn ctrl(c: char) -> Msg {
    Msg::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char(c),
        crossterm::event::KeyModifiers::CONTROL,
    ))
}

/// How many of the Conversations tab's loaded rows have `status`, and how many rows in all.
pub fn with_status(app: &App, status: convo::api::Status) -> (usize, usize) {
    let rows = app.conversations.rows();
    (
        rows.iter().filter(|r| r.status == status).count(),
        rows.len(),
    )
}

/// An app on a `size` (columns, rows) screen, `server`'s first pages loaded (the first
/// message: the screen's size).
pub fn started(server: &FakeServer, size: (u16, u16)) -> App {
    started_by(server, size, 50, Msg::Resize(size.0, size.1))
}

/// As [`started`], with `page` rows a page and `first` as the message that starts it.
pub fn started_by(server: &FakeServer, size: (u16, u16), page: i64, first: Msg) -> App {
    let mut app = testing::app(size.0, size.1, page);
    server.settle(&mut app, first);
    app
}

/// A fake server of `conversations` and `visitors` and an app on a `size` screen with its
/// first pages loaded.
pub fn loaded(size: (u16, u16), conversations: usize, visitors: usize) -> (App, FakeServer) {
    let server = FakeServer::new(conversations, visitors);
    let app = started(&server, size);
    (app, server)
}

/// The text of the message line (empty when none).
pub fn said(app: &App) -> String {
    app.status_line()
        .shown()
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default()
}

/// `s` typed, a key a character; the commands they asked for.
pub fn type_text(app: &mut App, s: &str) -> Vec<Command> {
    s.chars()
        .flat_map(|c| update(app, testing::ch(c)))
        .collect()
}
