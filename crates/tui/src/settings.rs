//! What the browser took from the session's config ([`Settings`]): set as a whole by a start
//! or a profile switch ([`Settings::enter`], from a [`Session`]), a part by the section it
//! comes from; read everywhere.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::tz::TimeZone;

use crate::columns::{Column, Columns};
use crate::init::AppInit;
use crate::keys::KeyMap;
use crate::session::Session;
use crate::theme::Theme;
use convo_api::Limit;
use convo_config::builtin_views::builtin_views;
use convo_config::ui::UiConfig;
use convo_config::{Aliases, QuerySettings, View};
use convo_engine::sla::Sla;

/// Pages a refresh re-reads from the top when the config sets no `refresh_max_pages`.
pub const DEFAULT_REFRESH_MAX_PAGES: usize = 10;

/// What the browser took from the session's config: page size, views, names, refresh,
/// keys, look, targets, query settings, the header's endpoint, the time zone. Changed as a
/// whole by [`Settings::enter`] (a start or a profile switch), a part by the config section
/// it comes from ([`Settings::apply_ui`], [`Settings::set_sla`]); read everywhere.
#[derive(Debug, Clone)]
pub struct Settings {
    limit: Limit,
    /// The built-in views first ("Unassigned open", "Breaching"), then the config's.
    views: Vec<View>,
    aliases: Arc<Aliases>,
    /// `None`: no periodic refresh (0 is `None`).
    refresh_secs: Option<u64>,
    refresh_max_pages: usize,
    keymap: KeyMap,
    endpoint: String,
    demo: bool,
    stale_after_secs: i64,
    theme: Theme,
    columns: Columns,
    web_url: Option<String>,
    mouse: bool,
    sla: Arc<Sla>,
    query_settings: QuerySettings,
    config_file: Option<PathBuf>,
    tz: TimeZone,
}

impl Settings {
    /// The settings of a new app: `init`'s, the rest the defaults of an empty config.
    pub fn new(init: &AppInit) -> Settings {
        let mut views = builtin_views(init.agent_id);
        views.extend(init.views.iter().cloned());
        Settings {
            limit: init.page_size,
            views,
            aliases: Arc::new(init.aliases.clone()),
            refresh_secs: init.refresh_secs.filter(|s| *s > 0),
            refresh_max_pages: DEFAULT_REFRESH_MAX_PAGES,
            keymap: KeyMap::default(),
            endpoint: init.endpoint.clone(),
            demo: init.demo,
            stale_after_secs: crate::summary_pane::DEFAULT_STALE_AFTER_SECS,
            theme: Theme::plain(init.no_color),
            columns: Columns::default(),
            web_url: None,
            mouse: false,
            sla: Default::default(),
            query_settings: Default::default(),
            config_file: None,
            tz: init.tz.clone(),
        }
    }

    /// Takes a session's settings: look, keys, page size, names, refresh, views (the built-in
    /// ones for its `agent_id` in front), targets, query settings, endpoint.
    pub fn enter(&mut self, s: &Session) {
        self.apply_ui(&s.ui, self.theme.no_color);
        self.keymap = s.keymap.clone();
        self.limit = s.page_size;
        self.aliases = Arc::new(s.aliases.clone());
        let me = s.config.as_ref().and_then(|c| c.query.agent_id);
        let mut views = builtin_views(me);
        views.extend(s.views.iter().cloned());
        self.views = views;
        self.set_sla(s.sla.clone(), s.columns_configured);
        if let Some(c) = &s.config {
            self.query_settings = c.query;
            self.config_file = c.views_file();
        }
        self.endpoint = s.endpoint.clone();
    }

    /// Takes the look from the config: theme (with `NO_COLOR`), columns, `web_url`, `mouse`,
    /// `refresh_max_pages`, `stale_after`.
    pub fn apply_ui(&mut self, ui: &UiConfig, no_color: bool) {
        self.theme = Theme::new(&ui.theme, no_color);
        self.columns = Columns::from_config(&ui.columns);
        self.web_url = ui.web_url.clone();
        self.mouse = ui.mouse;
        self.refresh_max_pages = ui.refresh_max_pages.unwrap_or(DEFAULT_REFRESH_MAX_PAGES);
        self.stale_after_secs = ui
            .stale_after_secs
            .unwrap_or(convo_commands::summary::DEFAULT_STALE_AFTER_SECS);
    }

    /// Takes the response-time targets: with a first-response target the Conversations tab
    /// shows a DUE column after STATUS, unless `[columns]` lists the columns (then `due` is
    /// where it puts it, or nowhere).
    pub fn set_sla(&mut self, sla: Sla, columns_configured: bool) {
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
        self.sla = Arc::new(sla);
    }

    /// A view saved (`w`): it replaces the view of its name (keeping its `notify`) or comes
    /// last.
    pub fn save_view(&mut self, mut v: View) {
        match self.view_index(&v.name) {
            Some(i) => {
                v.notify = self.views[i].notify;
                self.views[i] = v;
            }
            None => self.views.push(v),
        }
    }

    /// The refresh period (`refresh_secs`; 0 is none). The clock is the app's
    /// ([`App::refresh_every`]).
    pub fn use_refresh_secs(&mut self, secs: Option<u64>) {
        self.refresh_secs = secs.filter(|n| *n > 0);
    }

    /// Finds a view by name (case-insensitive).
    pub fn view_index(&self, name: &str) -> Option<usize> {
        self.views
            .iter()
            .position(|v| v.name.eq_ignore_ascii_case(name.trim()))
    }

    /// The page size.
    pub fn limit(&self) -> Limit {
        self.limit
    }
    /// The built-in views first ("Unassigned open", "Breaching"), then the config's.
    pub fn views(&self) -> &[View] {
        &self.views
    }
    /// The names of sites and agents (`[aliases]`), shared (cheap to clone).
    pub fn aliases(&self) -> &Arc<Aliases> {
        &self.aliases
    }
    /// The refresh period the config sets (`None`: no periodic refresh).
    pub fn refresh_secs(&self) -> Option<u64> {
        self.refresh_secs
    }
    /// Pages a refresh re-reads from the top at most (`refresh_max_pages`).
    pub fn refresh_max_pages(&self) -> usize {
        self.refresh_max_pages
    }
    pub fn keymap(&self) -> &KeyMap {
        &self.keymap
    }
    /// Shown in the header (sanitised there): the base URL's host and the masked key.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }
    pub fn demo(&self) -> bool {
        self.demo
    }
    /// The summary counts a conversation that is not closed as stale after this long
    /// without an update (`stale_after`).
    pub fn stale_after_secs(&self) -> i64 {
        self.stale_after_secs
    }
    pub fn theme(&self) -> &Theme {
        &self.theme
    }
    /// Which columns each tab shows, in order.
    pub fn columns(&self) -> &Columns {
        &self.columns
    }
    /// `o`: the web app's URL template (`web_url`).
    pub fn web_url(&self) -> Option<&str> {
        self.web_url.as_deref()
    }
    /// `mouse = true`: mouse capture is on (clicks and the wheel work).
    pub fn mouse(&self) -> bool {
        self.mouse
    }
    /// Response-time targets (`[sla]`): the DUE column and the summary pane's counts.
    pub fn sla(&self) -> &Arc<Sla> {
        &self.sla
    }
    /// `agent_id` (what `assignee:me` means), `max_streams`, `scan_max_pages`.
    pub fn query_settings(&self) -> QuerySettings {
        self.query_settings
    }
    /// Stream pages a union tab reads for rows its checks let through before it waits for
    /// `L` (`scan_max_pages`).
    pub fn scan_max_pages(&self) -> usize {
        self.query_settings.scan_max_pages
    }
    /// The config file views are saved into (`w`), whether it exists yet or not.
    pub fn config_file(&self) -> Option<&Path> {
        self.config_file.as_deref()
    }
    /// Local time zone of the detail pane (UTC in tests).
    pub fn tz(&self) -> &TimeZone {
        &self.tz
    }
}

/// What one config key sets alone, for a test that sets up its case without a whole config
/// (a session sets them all through [`Settings::enter`]).
#[cfg(any(test, feature = "testing"))]
impl Settings {
    /// The refresh pages a refresh re-reads at most (`refresh_max_pages`).
    pub fn use_refresh_max_pages(&mut self, pages: usize) {
        self.refresh_max_pages = pages;
    }

    /// The time zone of times shown whole (the detail pane, the help's last error).
    pub fn use_tz(&mut self, tz: TimeZone) {
        self.tz = tz;
    }

    /// The names of sites and agents (`[aliases]`).
    pub fn use_aliases(&mut self, aliases: Aliases) {
        self.aliases = Arc::new(aliases);
    }

    /// The views `v` and the board list, as given (a session puts the built-in ones first).
    pub fn use_views(&mut self, views: Vec<View>) {
        self.views = views;
    }

    /// The key map of a checked `[keys]`.
    pub fn use_keymap(&mut self, keymap: KeyMap) {
        self.keymap = keymap;
    }

    /// The config's query keys (`agent_id`, `max_streams`, `scan_max_pages`).
    pub fn use_query_settings(&mut self, q: QuerySettings) {
        self.query_settings = q;
    }

    /// The header's endpoint text, and whether it is the demo server.
    pub fn show_endpoint(&mut self, endpoint: String, demo: bool) {
        self.endpoint = endpoint;
        self.demo = demo;
    }

    /// The config file views are saved into (`w`).
    pub fn use_config_file(&mut self, path: Option<PathBuf>) {
        self.config_file = path;
    }
}
