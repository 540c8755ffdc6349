//! Pieces for tests that drive `update()` directly (no I/O): SLA targets, a colleague
//! picking a conversation up, a failed page, another profile.

use convo::api::{ApiError, Limit, Resource, RetryNotice};
use convo::config::ui::UiConfig;
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::keys::KeyMap;
use convo::tui::msg::{Loaded, Msg};
use convo::tui::profiles::ProfileSwitch;
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
        Resource::Conversations => app.conversations.generation,
        Resource::Visitors => app.visitors.generation,
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
    let generation = app.conversations.generation;
    let notice = RetryNotice {
        attempt,
        wait,
        reason: reason.into(),
        rate_limited,
    };
    update(
        app,
        Msg::Retrying {
            tab: Resource::Conversations,
            generation,
            notice,
        },
    )
}

/// The "staging" profile as loading it would give it (pages of 20, defaults otherwise).
pub fn staging() -> ProfileSwitch {
    ProfileSwitch {
        name: "staging".into(),
        page_size: Limit::new(20).unwrap(),
        views: Vec::new(),
        aliases: Default::default(),
        refresh_secs: None,
        endpoint: "staging.example · sk_…wxyz".into(),
        ui: UiConfig::default(),
        profiles: vec!["prod".into(), "staging".into()],
        keymap: KeyMap::default(),
        sla: Default::default(),
        columns_configured: false,
        client: None,
        config: None,
    }
}
