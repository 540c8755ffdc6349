//! The whole state of the browser: the two tabs and each feature's own state, side by side.
//! Changed only by [`super::update::update`]; read by the view.

use super::derived::Derived;
use super::detail_pane::DetailPane;
use super::export::Exports;
pub use super::init::AppInit;
use super::looks::Looks;
use super::message::{StatusLine, StatusMessage};
use super::profiles::Profiles;
use super::prompt::Prompt;
use super::refresh_clock::RefreshClock;
use super::search::Search;
use super::session::Session;
pub use super::settings::DEFAULT_REFRESH_MAX_PAGES;
use super::settings::Settings;
use super::sort::Sorting;
use super::tab::{PerTab, TabState};
use super::watch::Watch;
use convo_api::VisitorFilter;
use convo_api::{Conversation, ConversationFilter, Resource, Visitor};

use super::overlay::Overlay;

/// A refresh samples the Conversations filter's counts at most this often (the end of a walk
/// always does). The trend draws a day in at most 96 slots, and the store keeps samples 8
/// days: a sample at every refresh of `refresh_secs = 1` grew the store by ~100 bytes a
/// second (360 KB an hour, 70 MB in 8 days, per filter) and made every refresh read the
/// whole day's samples back (the soak bench, docs/performance.md).
pub const SAMPLE_EVERY_SECS: i64 = 60;

/// The browser's state.
#[derive(Debug, Clone)]
pub struct App {
    /// What the session brought from its config.
    settings: Settings,
    pub conversations: TabState<Conversation, ConversationFilter>,
    pub visitors: TabState<Visitor, VisitorFilter>,
    active: Resource,
    size: (u16, u16),
    /// The clock used for relative times and countdowns; set by `Msg::Tick`.
    now: jiff::Timestamp,
    overlay: Overlay,
    /// Where Back (Backspace, `[`) returns to: one history for both tabs.
    history: super::history::History,
    /// The detail pane: open, scrolled, its visitor's attributes.
    detail: DetailPane,
    /// The trend, the samples taken, the conversations rung for.
    watch: Watch,
    /// The exports: the one written, a whole-walk one, the path and questions.
    exports: Exports,
    /// What the tabs' derived state was last computed from.
    derived: Derived,
    /// The status line: its message, the last error and message whole.
    status_line: StatusLine,
    /// The Conversations tab shows an oldest-first view ("Breaching"): the generation of the
    /// walk its order and load-all were set for (`u64::MAX`: not yet). Ends when the filters
    /// change.
    oldest_first: Option<u64>,
    /// The periodic refresh: on or off, and when its period started.
    refresh_clock: RefreshClock,
    /// Something on screen changed since the last draw.
    dirty: bool,
    /// The profiles and the one in use (`P`).
    profiles: Profiles,
    /// The open one-line prompt or picker, if any.
    prompt: Option<Prompt>,
    /// Each tab's quick search (`\`).
    search: PerTab<Search>,
    /// Earlier search queries (↑ / ↓ in the search prompt).
    search_history: super::search::History,
    /// Each tab's display sort (`>`, `<`, `=`).
    sort: PerTab<Sorting>,
    /// The e-mail lookup in flight, whose answer lands only while it is still current.
    lookups: super::tab_query::lookup::Lookups,
    /// Visitors' names where ids were (from the local store, the sync, the Visitors tab).
    names: super::names::VisitorNames,
    /// The local store's visitors for a union's checks on attributes (`visitor.plan:pro`).
    store_visitors: super::tab_query::store_visitors::StoreVisitors,
    /// "Since you last looked", per tab.
    looks: Looks,
    /// Each tab's look-ahead chain and its credits (`L`, a walk read behind the screen).
    ahead: PerTab<crate::ahead::Credits>,
    /// A view's query to run at the first `update` (a view opened at start whose query needs
    /// more than one request's filters, or looks visitors up by e-mail).
    pending_query: Option<convo_query::query::Query>,
    /// Each tab's queries run from the query line in this session (the local store keeps them
    /// across runs; without a store these are the line's ↑/↓).
    query_history: PerTab<super::search::History>,
    /// `B`: every view's counts (shown while `overlay` is `Overlay::Board`).
    board: super::board::Board,
    /// `[[commands]]`, their keys and each tab's marked rows.
    commands: super::commands::Commands,
}

/// Stream pages a query's scan reads before it waits, when the config sets no `scan_max_pages`.
pub const DEFAULT_SCAN_MAX_PAGES: usize = convo_config::QuerySettings::DEFAULT_SCAN_MAX_PAGES;

impl App {
    /// A new app on the Conversations tab with no filters; nothing requested yet (the first
    /// message to `update` asks for the first pages).
    pub fn new(init: AppInit) -> App {
        App {
            settings: Settings::new(&init),
            conversations: TabState::new(
                Resource::Conversations,
                ConversationFilter::default(),
                init.page_size,
            ),
            visitors: TabState::new(Resource::Visitors, VisitorFilter::default(), init.page_size),
            active: Resource::Conversations,
            size: init.size,
            now: init.now,
            overlay: Overlay::None,
            history: Default::default(),
            detail: DetailPane::default(),
            watch: Watch::default(),
            status_line: StatusLine::default(),
            derived: Derived::default(),
            exports: Exports::default(),
            oldest_first: None,
            refresh_clock: RefreshClock::new(init.refresh_secs.is_some_and(|s| s > 0), init.now),
            dirty: true,
            profiles: Profiles::default(),
            prompt: None,
            search: PerTab::default(),
            search_history: Default::default(),
            sort: PerTab::default(),
            lookups: Default::default(),
            names: Default::default(),
            store_visitors: Default::default(),
            looks: Looks::default(),
            ahead: PerTab::default(),
            pending_query: None,
            query_history: PerTab::default(),
            board: Default::default(),
            commands: Default::default(),
        }
    }

    /// The query `tab` shows now (as written: names and `me` kept); what the chips show.
    pub fn query_of(&self, tab: Resource) -> &convo_query::query::Query {
        match tab {
            Resource::Conversations => self.conversations.query(),
            Resource::Visitors => self.visitors.query(),
        }
    }

    /// What the session brought from its config.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The settings, to change through [`Settings`]' methods (a profile switch goes through
    /// [`App::enter_session`]).
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    /// The periodic refresh's clock.
    pub fn refresh_clock(&self) -> &RefreshClock {
        &self.refresh_clock
    }

    /// The periodic refresh's clock, to switch, toggle or restart.
    pub fn refresh_clock_mut(&mut self) -> &mut RefreshClock {
        &mut self.refresh_clock
    }

    /// Finds a view by name (case-insensitive).
    pub fn view_index(&self, name: &str) -> Option<usize> {
        self.settings.view_index(name)
    }

    /// Puts a saved view on its tab (as a fresh start: no history entry) and switches to that
    /// tab: its filters and, for an oldest-first view ("Breaching"), its order, load-all and
    /// title, as `v` gives them.
    pub fn open_view_initially(&mut self, index: usize) {
        if let Some(v) = self.settings.views().get(index).cloned() {
            self.active = v.tab;
            self.conversations.start_with(v.conversations);
            self.visitors.start_with(v.visitors);
            // Its query as written (the chips), run by the first `update`.
            self.pending_query = v
                .query
                .as_deref()
                .and_then(|t| convo_query::query::parse(t, v.tab).ok());
            self.oldest_first = v.oldest_first.then_some(u64::MAX);
        }
    }

    /// The id of the selected row of the active tab.
    pub fn selected_id(&self) -> Option<uuid::Uuid> {
        match self.active {
            Resource::Conversations => self.conversations.selected_row().map(|r| r.id),
            Resource::Visitors => self.visitors.selected_row().map(|r| r.id),
        }
    }

    /// The tab on screen.
    pub fn active(&self) -> Resource {
        self.active
    }

    /// Puts `tab` on screen (a step Back returns to is the caller's to push).
    pub fn show_tab(&mut self, tab: Resource) {
        if self.active != tab {
            self.active = tab;
            self.dirty = true;
        }
    }

    /// What is over the table (a pane, the help, the board…).
    pub fn overlay(&self) -> &Overlay {
        &self.overlay
    }

    /// The overlay, to change in place (a pane's selection, a form's field).
    pub fn overlay_mut(&mut self) -> &mut Overlay {
        &mut self.overlay
    }

    /// Shows `o` over the table (in place of what was).
    pub fn open_overlay(&mut self, o: Overlay) {
        self.overlay = o;
        self.dirty = true;
    }

    /// Nothing over the table.
    pub fn close_overlay(&mut self) {
        self.open_overlay(Overlay::None);
    }

    /// The open one-line prompt or picker, if any.
    pub fn prompt(&self) -> &Option<Prompt> {
        &self.prompt
    }

    /// The open prompt, to change in place (its text, its selection).
    pub fn prompt_mut(&mut self) -> &mut Option<Prompt> {
        &mut self.prompt
    }

    /// Opens `p` (in place of a prompt open).
    pub fn open_prompt(&mut self, p: Prompt) {
        self.prompt = Some(p);
        self.dirty = true;
    }

    /// Closes the prompt open, if any.
    pub fn close_prompt(&mut self) {
        self.take_prompt();
    }

    /// The prompt open, closed and handed over.
    pub fn take_prompt(&mut self) -> Option<Prompt> {
        let p = self.prompt.take();
        if p.is_some() {
            self.dirty = true;
        }
        p
    }

    /// Each tab's quick search (`\`).
    pub fn search(&self) -> &PerTab<Search> {
        &self.search
    }

    pub fn search_mut(&mut self) -> &mut PerTab<Search> {
        &mut self.search
    }

    /// Each tab's display sort (`>`, `<`, `=`).
    pub fn sort(&self) -> &PerTab<Sorting> {
        &self.sort
    }

    pub fn sort_mut(&mut self) -> &mut PerTab<Sorting> {
        &mut self.sort
    }

    /// The clock of relative times and countdowns (UTC instants).
    pub fn now(&self) -> jiff::Timestamp {
        self.now
    }

    /// Time passed (`Msg::Tick`): the clock reads `now`.
    pub fn set_clock(&mut self, now: jiff::Timestamp) {
        self.now = now;
    }

    /// The terminal's size (columns, rows).
    pub fn size(&self) -> (u16, u16) {
        self.size
    }

    /// The terminal was resized: each tab keeps its selected row on screen.
    pub fn resize(&mut self, w: u16, h: u16) {
        self.size = (w, h);
        let body = self.body_height();
        self.conversations.scroll_into_view(body);
        self.visitors.scroll_into_view(body);
        self.dirty = true;
    }

    /// Something on screen changed since the last draw.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Something on screen changed: the next frame draws it.
    pub fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    /// The frame is drawn: nothing waits to be shown.
    pub fn drawn(&mut self) {
        self.dirty = false;
    }

    /// The areas for the terminal's size and the open panes.
    pub fn areas(&self) -> super::layout::Areas {
        super::layout::Areas::new(
            ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1),
            self.detail.is_open(),
        )
    }

    /// Rows of the table body on screen now.
    pub fn body_height(&self) -> usize {
        self.areas().body_height()
    }

    /// Says something on the status line for a while (a notice).
    pub fn say(&mut self, text: impl Into<String>) {
        self.post(StatusMessage::notice(text, self.now));
    }

    /// Says on the status line what failed; it stays until Esc or a newer message.
    pub fn say_error(&mut self, text: impl Into<String>) {
        self.post(StatusMessage::error(text));
    }

    /// Puts a message on the status line (news from the background does not cover an error
    /// or a search's count).
    pub fn post(&mut self, m: StatusMessage) {
        if self.status_line.post(m, self.now) {
            self.dirty = true;
        }
    }

    /// The Conversations tab shows an oldest-first view ("Breaching"): the walk its order
    /// and load-all were set for (`u64::MAX`: not yet, the next `update` sets them).
    pub fn oldest_first(&self) -> Option<u64> {
        self.oldest_first
    }

    /// The Conversations tab shows an oldest-first view.
    pub fn shows_oldest_first(&self) -> bool {
        self.oldest_first.is_some()
    }

    /// A view (or a place Back returns to) is shown: oldest-first or not. Its order is set
    /// for its walk by the next `update`.
    pub fn open_oldest_first(&mut self, oldest_first: bool) {
        self.oldest_first = oldest_first.then_some(u64::MAX);
    }

    /// The oldest-first order and load-all are set for walk `generation`.
    pub fn oldest_first_set_for(&mut self, generation: u64) {
        self.oldest_first = Some(generation);
    }

    /// Other filters than the oldest-first view's (or another service): it ends.
    pub fn end_oldest_first(&mut self) {
        self.oldest_first = None;
    }

    /// The query of a view opened at start that waits for the first `update` (it needs more
    /// than one request's filters, or looks visitors up by e-mail).
    pub fn queued_query(&self) -> Option<&convo_query::query::Query> {
        self.pending_query.as_ref()
    }

    /// A query to run at the next `update` as the view's own place (`None`: none).
    pub fn queue_query(&mut self, q: Option<convo_query::query::Query>) {
        self.pending_query = q;
    }

    /// The query waiting for the first `update`, taken to run it.
    pub fn take_queued_query(&mut self) -> Option<convo_query::query::Query> {
        self.pending_query.take()
    }

    /// Where Back (Backspace, `[`) returns to: one history for both tabs.
    pub fn history(&self) -> &super::history::History {
        &self.history
    }

    pub fn history_mut(&mut self) -> &mut super::history::History {
        &mut self.history
    }

    /// Earlier search queries (↑ / ↓ in the search prompt).
    pub fn search_history(&self) -> &super::search::History {
        &self.search_history
    }

    pub fn search_history_mut(&mut self) -> &mut super::search::History {
        &mut self.search_history
    }

    /// Each tab's queries run from the query line in this session (the local store keeps them
    /// across runs; without a store these are the line's ↑/↓).
    pub fn query_history(&self) -> &PerTab<super::search::History> {
        &self.query_history
    }

    pub fn query_history_mut(&mut self) -> &mut PerTab<super::search::History> {
        &mut self.query_history
    }

    /// The e-mail lookup in flight, whose answer lands only while it is still current.
    pub fn lookups(&self) -> &super::tab_query::lookup::Lookups {
        &self.lookups
    }

    pub fn lookups_mut(&mut self) -> &mut super::tab_query::lookup::Lookups {
        &mut self.lookups
    }

    /// The local store's visitors for a union's checks on attributes (`visitor.plan:pro`).
    pub fn store_visitors(&self) -> &super::tab_query::store_visitors::StoreVisitors {
        &self.store_visitors
    }

    pub fn store_visitors_mut(&mut self) -> &mut super::tab_query::store_visitors::StoreVisitors {
        &mut self.store_visitors
    }

    /// Visitors' names where ids were (from the local store, the sync, the Visitors tab).
    pub fn names(&self) -> &super::names::VisitorNames {
        &self.names
    }

    pub fn names_mut(&mut self) -> &mut super::names::VisitorNames {
        &mut self.names
    }

    /// `[[commands]]`, their keys and each tab's marked rows.
    pub fn commands(&self) -> &super::commands::Commands {
        &self.commands
    }

    pub fn commands_mut(&mut self) -> &mut super::commands::Commands {
        &mut self.commands
    }

    /// The profiles and the one in use (`P`).
    pub fn profiles(&self) -> &Profiles {
        &self.profiles
    }

    pub fn profiles_mut(&mut self) -> &mut Profiles {
        &mut self.profiles
    }

    /// `B`: every view's counts (shown while `overlay` is `Overlay::Board`).
    pub fn board(&self) -> &super::board::Board {
        &self.board
    }

    pub fn board_mut(&mut self) -> &mut super::board::Board {
        &mut self.board
    }

    /// An e-mail lookup's answer (`ticket`): true while it is the one in flight for the
    /// Conversations tab's walk (a newer key replaced it otherwise); it is no longer in flight.
    pub fn lookup_answered(&mut self, ticket: u64) -> bool {
        self.lookups
            .answered(ticket, self.conversations.generation())
    }

    /// The Conversations tab beside what a union's checks read: the visitors' names and the
    /// local store's visitors (asked for when a row waits on one).
    pub fn conversations_with_visitors(
        &mut self,
    ) -> (
        &mut TabState<Conversation, ConversationFilter>,
        &super::names::VisitorNames,
        &mut super::tab_query::store_visitors::StoreVisitors,
    ) {
        (
            &mut self.conversations,
            &self.names,
            &mut self.store_visitors,
        )
    }

    /// The detail pane.
    pub fn detail(&self) -> &DetailPane {
        &self.detail
    }

    pub fn detail_mut(&mut self) -> &mut DetailPane {
        &mut self.detail
    }

    /// The trend, the samples taken, the conversations rung for.
    pub fn watch(&self) -> &Watch {
        &self.watch
    }

    pub fn watch_mut(&mut self) -> &mut Watch {
        &mut self.watch
    }

    /// Each tab's look-ahead chain and its credits.
    pub fn ahead(&self) -> &PerTab<crate::ahead::Credits> {
        &self.ahead
    }

    /// Each tab's look-ahead chain and its credits, to grant, top up or hold.
    pub fn ahead_mut(&mut self) -> &mut PerTab<crate::ahead::Credits> {
        &mut self.ahead
    }

    /// "Since you last looked", per tab.
    pub fn looks(&self) -> &Looks {
        &self.looks
    }

    /// "Since you last looked", changed by [`super::update::since_look`].
    pub fn looks_mut(&mut self) -> &mut Looks {
        &mut self.looks
    }

    /// What the tabs' derived state was last computed from.
    pub fn derived(&self) -> &Derived {
        &self.derived
    }

    /// Kept by [`super::update::derive`].
    pub fn derived_mut(&mut self) -> &mut Derived {
        &mut self.derived
    }

    /// The exports under way.
    pub fn exports(&self) -> &Exports {
        &self.exports
    }

    /// The exports, changed by [`super::export`].
    pub fn exports_mut(&mut self) -> &mut Exports {
        &mut self.exports
    }

    /// The status line: what it shows, the last error and message.
    pub fn status_line(&self) -> &StatusLine {
        &self.status_line
    }

    /// The status line, to clear, re-word or settle.
    pub fn status_line_mut(&mut self) -> &mut StatusLine {
        &mut self.status_line
    }
}

impl App {
    /// Takes a session's settings ([`Settings::enter`]), its commands, profiles and refresh.
    /// What belonged to the service before is the caller's to reset.
    pub fn enter_session(&mut self, s: &Session) {
        self.settings_mut().enter(s);
        self.commands_mut()
            .configure(s.ui.commands.clone(), s.command_keys.clone());
        self.refresh_every(s.refresh_secs);
        let current = s
            .config
            .as_ref()
            .map_or_else(|| Some(s.name.clone()), |c| c.profile.clone());
        self.profiles_mut().offer(s.profiles.clone(), current);
    }
}

#[cfg(test)]
mod session_tests {
    use super::*;
    use convo_config::{Config, Overrides};

    fn config(text: &str) -> Config {
        let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
        Config::from_toml_str(
            text,
            std::path::Path::new("/t/c.toml"),
            &Overrides::default(),
            &env,
        )
        .unwrap()
    }

    /// What a session sets in the app, as text (every field [`App::enter_session`] owns).
    fn settings(app: &App) -> String {
        let views: Vec<&str> = app
            .settings()
            .views()
            .iter()
            .map(|v| v.name.as_str())
            .collect();
        format!(
            "{:?}",
            (
                (
                    app.settings().limit(),
                    app.settings().refresh_secs(),
                    app.refresh_clock().is_on(),
                    &app.settings().aliases(),
                    views
                ),
                (
                    &app.settings().keymap(),
                    app.settings().stale_after_secs(),
                    &app.settings().theme(),
                    &app.settings().columns()
                ),
                (
                    &app.settings().web_url(),
                    app.settings().mouse(),
                    app.settings().refresh_max_pages(),
                    &app.settings().sla()
                ),
                (
                    app.settings().query_settings(),
                    app.settings().scan_max_pages(),
                    &app.settings().config_file()
                ),
                (&app.commands().list, &app.commands().keys),
                (
                    &app.profiles().current,
                    &app.profiles().names,
                    &app.settings().endpoint()
                ),
            )
        )
    }

    const A: &str = r#"
base_url = "https://a.example"
page_size = 40
refresh_secs = 20
stale_after = "3h"
mouse = true
agent_id = "5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60"
scan_max_pages = 7
[aliases.sites]
"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90" = "Web shop"
[[views]]
name = "Mine on the web shop"
query = "assignee:me status:open site:\"Web shop\""
[keys]
reload = ["F5"]
[theme]
preset = "light"
[columns]
conversations = ["status", "due", "site", "id"]
[sla]
first_response = "5m"
"#;

    const B: &str = r#"
base_url = "https://b.example"
page_size = 90
"#;

    /// Starting on a config and switching to it from another give the browser the same
    /// settings: one way from a config to a session.
    #[test]
    fn a_profile_switched_to_sets_what_a_start_on_it_sets() {
        let (a, b) = (config(A), config(B));
        let client = |c: &Config| convo_commands::setup::client_for(c).unwrap();
        let opts = crate::TuiOptions::default();
        let started = crate::app_from_config(&a, &client(&a), &opts).unwrap();
        let mut switched = crate::app_from_config(&b, &client(&b), &opts).unwrap();
        assert_ne!(settings(&started), settings(&switched));
        let name = crate::profiles::TOP_LEVEL.to_string();
        let s = Session::of(&a, name, client(&a)).unwrap();
        let id = switched.profiles().request;
        crate::profiles::update::profile_loaded(&mut switched, id, Ok(Box::new(s)));
        assert_eq!(settings(&started), settings(&switched));
    }
}
