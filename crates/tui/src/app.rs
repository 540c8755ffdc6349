//! The whole state of the browser: the two tabs and each feature's own state, side by side.
//! Changed only by [`super::update::update`]; read by the view.

use jiff::tz::TimeZone;

use super::columns::{Column, Columns};
use super::export::WalkExport;
use super::keys::KeyMap;
use super::message::StatusMessage;
use super::profiles::Profiles;
use super::prompt::Prompt;
use super::search::Search;
use super::sort::Sorting;
use super::tab::{PerTab, TabState};
use super::theme::Theme;
use convo_api::VisitorFilter;
use convo_api::{Conversation, ConversationFilter, Limit, Resource, Visitor};
use convo_config::ui::UiConfig;
use convo_config::{Aliases, View};

use super::overlay::Overlay;
use convo_config::builtin_views::builtin_views;

/// A refresh samples the Conversations filter's counts at most this often (the end of a walk
/// always does). The trend draws a day in at most 96 slots, and the store keeps samples 8
/// days: a sample at every refresh of `refresh_secs = 1` grew the store by ~100 bytes a
/// second (360 KB an hour, 70 MB in 8 days, per filter) and made every refresh read the
/// whole day's samples back (the soak bench, docs/performance.md).
pub const SAMPLE_EVERY_SECS: i64 = 60;

/// Pages a refresh re-reads from the top when the config sets no `refresh_max_pages`.
pub const DEFAULT_REFRESH_MAX_PAGES: usize = 10;

/// Everything `App::new` needs; `run` fills it from the config, tests by hand.
#[derive(Debug, Clone)]
pub struct AppInit {
    pub page_size: Limit,
    /// Config views; the built-in one is added in front.
    pub views: Vec<View>,
    pub aliases: Aliases,
    /// `None` or 0: no periodic refresh.
    pub refresh_secs: Option<u64>,
    /// Shown in the header (sanitised there): e.g. the base URL's host and the masked key.
    pub endpoint: String,
    pub demo: bool,
    pub now: jiff::Timestamp,
    pub tz: TimeZone,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// `agent_id` (who `me` is): the built-in "My open" view when set.
    pub agent_id: Option<uuid::Uuid>,
}

/// The browser's state.
#[derive(Debug, Clone)]
pub struct App {
    pub conversations: TabState<Conversation, ConversationFilter>,
    pub visitors: TabState<Visitor, VisitorFilter>,
    pub active: Resource,
    pub limit: Limit,
    pub size: (u16, u16),
    /// The clock used for relative times and countdowns; set by `Msg::Tick`.
    pub now: jiff::Timestamp,
    /// Local time zone of the detail pane (UTC in tests).
    pub tz: TimeZone,
    pub overlay: Overlay,
    /// Where Back (Backspace, `[`) returns to: one history for both tabs.
    pub history: super::history::History,
    /// The detail pane is open, scrolled by this many lines.
    pub detail: Option<usize>,
    /// The status line's message and how long it stays true (see [`super::message`]).
    pub message: Option<StatusMessage>,
    /// The last error the status line showed, whole (the help overlay shows it).
    pub last_error: Option<super::message::LastError>,
    /// The last message the status line was given (an error or not), whole: the status line
    /// may cut it, the help overlay shows it.
    pub last_message: Option<super::message::LastError>,
    /// The built-in views first ("Unassigned open", "Breaching"), then the config's.
    pub views: Vec<View>,
    /// The Conversations tab shows an oldest-first view ("Breaching"): the generation of the
    /// walk its order and load-all were set for (`u64::MAX`: not yet). Ends when the filters
    /// change.
    pub oldest_first: Option<u64>,
    /// The attributes of the visitor of the conversation in the detail pane, from the local
    /// store: (visitor, `None` while asked for).
    pub detail_visitor: Option<(uuid::Uuid, Option<serde_json::Value>)>,
    /// The trend of the Conversations filter from the local store: (filter key, samples of
    /// the last 24 h, oldest first). `None` until the store answers (or without a store).
    pub trend: Option<(String, Vec<convo_store::Sample>)>,
    /// The Conversations walk whose completion was sampled (one sample per walk; refreshes
    /// sample too, at most every [`SAMPLE_EVERY_SECS`]).
    pub sampled: Option<u64>,
    /// When the last sample was taken (unix seconds).
    pub sampled_at: Option<i64>,
    /// Conversations of a `notify = true` view already rung for as imminent.
    pub imminent: super::notify::Imminent,
    pub aliases: Aliases,
    pub refresh_secs: Option<u64>,
    /// `R` toggles periodic refresh (when `refresh_secs` is set it starts on).
    pub refresh_on: bool,
    /// When the last refresh ended (the period runs from there).
    pub last_refresh: jiff::Timestamp,
    /// Pages a refresh re-reads from the top at most (`refresh_max_pages`).
    pub refresh_max_pages: usize,
    pub keymap: KeyMap,
    pub endpoint: String,
    pub demo: bool,
    /// Something on screen changed since the last draw.
    pub dirty: bool,
    /// The summary counts a conversation that is not closed as stale after this long
    /// without an update (`stale_after`).
    pub stale_after_secs: i64,
    pub theme: Theme,
    /// Which columns each tab shows, in order.
    pub columns: Columns,
    /// `o`: the web app's URL template (`web_url`).
    pub web_url: Option<String>,
    /// `mouse = true`: mouse capture is on (clicks and the wheel work).
    pub mouse: bool,
    /// The profiles and the one in use (`P`).
    pub profiles: Profiles,
    /// The open one-line prompt or picker, if any.
    pub prompt: Option<Prompt>,
    /// Each tab's quick search (`\`).
    pub search: PerTab<Search>,
    /// Earlier search queries (↑ / ↓ in the search prompt).
    pub search_history: super::search::History,
    /// Each tab's display sort (`>`, `<`, `=`).
    pub sort: PerTab<Sorting>,
    /// A whole-walk export in progress.
    pub walk_export: Option<WalkExport>,
    /// The e-mail lookup in flight, whose answer lands only while it is still current.
    pub lookups: super::tab_query::lookup::Lookups,
    /// The export being written, a part at a time.
    pub export_stream: Option<super::export::ExportStream>,
    /// The last export's id.
    pub export_ids: u64,
    /// The export path last typed, offered again by `e` until an export to it is written
    /// (after a refusal, a failure or a cancelled question it is not lost).
    pub export_path: Option<String>,
    /// The export's questions awaited from the runtime, and the keys typed ahead of them.
    pub export_ahead: super::export::Ahead,
    /// Conversation exports carry the visitor's name and e-mail and the site's and
    /// assignee's aliases after the ids (Tab in the path prompt turns it off and on).
    pub export_names: bool,
    /// Visitors' names where ids were (from the local store, the sync, the Visitors tab).
    pub names: super::names::VisitorNames,
    /// The local store's visitors for a union's checks on attributes (`visitor.plan:pro`).
    pub store_visitors: super::tab_query::store_visitors::StoreVisitors,
    /// "Since you last looked", per tab: the walk compared with the last look (see
    /// [`SinceLook`]); the status line counts its marks.
    pub since_look: PerTab<Option<SinceLook>>,
    /// Each tab's look-ahead chain and its credits (`L`, a walk read behind the screen).
    pub ahead: PerTab<crate::ahead::Credits>,
    /// Response-time targets (`[sla]`): the DUE column and the summary pane's counts.
    pub sla: std::sync::Arc<convo_engine::sla::Sla>,
    /// `agent_id` (what `assignee:me` means) and `max_streams`, for queries run here.
    pub query_settings: convo_config::QuerySettings,
    /// A view's query to run at the first `update` (a view opened at start whose query needs
    /// more than one request's filters, or looks visitors up by e-mail).
    pub pending_query: Option<convo_query::query::Query>,
    /// Per tab, the view whose "since you last looked" was last asked of the store (by its
    /// look key); `None` until the store runs.
    pub look_asked: PerTab<Option<String>>,
    /// Stream pages a union tab reads for rows its checks let through before it waits for
    /// `L` (`scan_max_pages`).
    pub scan_max_pages: usize,
    /// Each tab's queries run from the query line in this session (the local store keeps them
    /// across runs; without a store these are the line's ↑/↓).
    pub query_history: PerTab<super::search::History>,
    /// The config file views are saved into (`w`), whether it exists yet or not.
    pub config_file: Option<std::path::PathBuf>,
    /// `B`: every view's counts (shown while `overlay` is `Overlay::Board`).
    pub board: super::board::Board,
    /// `[[commands]]`, their keys and each tab's marked rows.
    pub commands: super::commands::Commands,
}

/// A tab's walk compared with the view's last look ("since you last looked").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinceLook {
    /// The walk compared.
    pub generation: u64,
    /// When the look was taken (unix seconds).
    pub taken_at: i64,
    /// The tab's marks' revision then: a refresh merged since replaces the marks with its own.
    pub revision: u64,
    /// The counts the status line said last (new, changed).
    pub said: Option<(usize, usize)>,
}

/// Stream pages a query's scan reads before it waits, when the config sets no `scan_max_pages`.
pub const DEFAULT_SCAN_MAX_PAGES: usize = convo_config::QuerySettings::DEFAULT_SCAN_MAX_PAGES;

impl App {
    /// A new app on the Conversations tab with no filters; nothing requested yet (the first
    /// message to `update` asks for the first pages).
    pub fn new(init: AppInit) -> App {
        let refresh_secs = init.refresh_secs.filter(|s| *s > 0);
        let mut views = builtin_views(init.agent_id);
        views.extend(init.views);
        App {
            conversations: TabState::new(
                Resource::Conversations,
                ConversationFilter::default(),
                init.page_size,
            ),
            visitors: TabState::new(Resource::Visitors, VisitorFilter::default(), init.page_size),
            active: Resource::Conversations,
            limit: init.page_size,
            size: init.size,
            now: init.now,
            tz: init.tz,
            overlay: Overlay::None,
            history: Default::default(),
            detail: None,
            message: None,
            last_error: None,
            last_message: None,
            views,
            oldest_first: None,
            imminent: Default::default(),
            trend: None,
            detail_visitor: None,
            sampled: None,
            sampled_at: None,
            aliases: init.aliases,
            refresh_secs,
            refresh_on: refresh_secs.is_some(),
            last_refresh: init.now,
            refresh_max_pages: DEFAULT_REFRESH_MAX_PAGES,
            keymap: KeyMap::default(),
            endpoint: init.endpoint,
            demo: init.demo,
            dirty: true,
            stale_after_secs: super::summary_pane::DEFAULT_STALE_AFTER_SECS,
            theme: Theme::default(),
            columns: Columns::default(),
            web_url: None,
            mouse: false,
            profiles: Profiles::default(),
            prompt: None,
            search: PerTab::default(),
            search_history: Default::default(),
            sort: PerTab::default(),
            walk_export: None,
            lookups: Default::default(),
            export_stream: None,
            export_ids: 0,
            export_path: None,
            export_ahead: Default::default(),
            export_names: true,
            names: Default::default(),
            store_visitors: Default::default(),
            since_look: PerTab::default(),
            ahead: PerTab::default(),
            sla: Default::default(),
            query_settings: Default::default(),
            pending_query: None,
            look_asked: PerTab::default(),
            scan_max_pages: DEFAULT_SCAN_MAX_PAGES,
            query_history: PerTab::default(),
            config_file: None,
            board: Default::default(),
            commands: Default::default(),
        }
    }

    /// The query `tab` shows now (as written: names and `me` kept); what the chips show.
    pub fn query_of(&self, tab: Resource) -> &convo_query::query::Query {
        match tab {
            Resource::Conversations => &self.conversations.query,
            Resource::Visitors => &self.visitors.query,
        }
    }

    /// Takes the look from the config: theme (with `NO_COLOR`), columns, `web_url`, `mouse`.
    pub fn apply_ui(&mut self, ui: &UiConfig, no_color: bool) {
        self.theme = Theme::new(&ui.theme, no_color);
        self.columns = Columns::from_config(&ui.columns);
        self.web_url = ui.web_url.clone();
        self.mouse = ui.mouse;
        self.refresh_max_pages = ui.refresh_max_pages.unwrap_or(DEFAULT_REFRESH_MAX_PAGES);
    }

    /// Takes the response-time targets: with a first-response target the Conversations tab
    /// shows a DUE column after STATUS, unless `[columns]` lists the columns (then `due` is
    /// where it puts it, or nowhere).
    pub fn set_sla(&mut self, sla: convo_engine::sla::Sla, columns_configured: bool) {
        use convo_engine::sla::Target;
        let cols = &mut self.columns.conversations;
        if !columns_configured {
            cols.retain(|c| !matches!(c, Column::Due | Column::Resolution));
            // DUE after STATUS, RESOLVE after DUE (or STATUS), each only when tracked.
            let mut at = cols
                .iter()
                .position(|c| *c == Column::Status)
                .map_or(0, |i| i + 1);
            for (target, col) in [
                (Target::FirstResponse, Column::Due),
                (Target::Resolution, Column::Resolution),
            ] {
                if sla.is_tracked(target) {
                    cols.insert(at, col);
                    at += 1;
                }
            }
        }
        // The built-in views on the first-response target need one.
        self.views
            .retain(|v| !convo_config::builtin_views::needs_missing_target(v, &sla));
        self.sla = std::sync::Arc::new(sla);
    }

    /// Finds a view by name (case-insensitive).
    pub fn view_index(&self, name: &str) -> Option<usize> {
        self.views
            .iter()
            .position(|v| v.name.eq_ignore_ascii_case(name.trim()))
    }

    /// Puts a saved view on its tab (as a fresh start: no history entry) and switches to that
    /// tab: its filters and, for an oldest-first view ("Breaching"), its order, load-all and
    /// title, as `v` gives them.
    pub fn open_view_initially(&mut self, index: usize) {
        if let Some(v) = self.views.get(index).cloned() {
            self.active = v.tab;
            self.conversations.filter = v.conversations;
            self.visitors.filter = v.visitors;
            self.conversations.sync_query();
            self.visitors.sync_query();
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

    /// The areas for the terminal's size and the open panes.
    pub fn areas(&self) -> super::layout::Areas {
        super::layout::Areas::new(
            ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1),
            self.detail.is_some(),
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
        if self
            .message
            .as_ref()
            .is_none_or(|shown| m.may_replace(shown))
        {
            if m.error {
                super::message::remember(&mut self.last_error, &m.text, self.now);
            }
            super::message::remember(&mut self.last_message, &m.text, self.now);
            self.message = Some(m);
            self.dirty = true;
        }
    }
}
