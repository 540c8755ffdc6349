//! What users of k9s, gh-dash and lazygit expect beyond browsing (issue 6): quick search,
//! display-only sort, export, open in the web app, profile switching, and the settings they
//! come from (theme, columns, `web_url`). State and update logic only; the runtime does the
//! I/O ([`Command::Export`], [`Command::OpenUrl`], [`Command::SwitchProfile`]).

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::App;
use super::columns::{Cells, Column, Columns};
use super::command::{Command, ExportKind};
use super::find::{Find, Sort};
use super::keys::{Action, KeyMap};
use super::tab::{TabFilter, TabState};
use super::theme::Theme;
use crate::api::{Limit, Resource, Row};
use crate::config::{Aliases, View};
use crate::output::{Printable, csv_field, json_terminal_safe};
use crate::ui_config::UiConfig;

/// Longest text a prompt takes.
const PROMPT_MAX: usize = 400;

/// A one-line prompt or the profile picker, drawn over the status line / centred.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    /// `\`: the search text as typed.
    Search(String),
    /// `e`: the export path.
    Export(String),
    /// After the path, when more pages exist: loaded rows or the whole walk (to this path).
    ExportScope(String),
    /// The whole walk was chosen: confirm fetching every remaining page (to this path).
    ExportConfirm(String),
    /// `P`: the profile picker with its selected line.
    Profiles(usize),
}

/// The settings and state of issue 6's features.
#[derive(Debug, Clone, Default)]
pub struct Habits {
    pub theme: Theme,
    pub columns: Columns,
    pub web_url: Option<String>,
    /// The profile in use, shown in the header.
    pub profile: Option<String>,
    /// Profiles the config defines (for `P`).
    pub profiles: Vec<String>,
    pub prompt: Option<Prompt>,
    pub conversations: Find,
    pub visitors: Find,
    /// A profile switch is being loaded.
    pub switching: Option<String>,
    /// A whole-walk export in progress.
    pub walk_export: Option<super::walk_export::WalkExport>,
}

impl Habits {
    /// From the config's `[keys]`-less parts (theme, columns, `web_url`) and the profiles.
    pub fn from_config(
        ui: &UiConfig,
        no_color: bool,
        profile: Option<String>,
        profiles: Vec<String>,
    ) -> Habits {
        Habits {
            theme: Theme::new(&ui.theme, no_color),
            columns: Columns::from_config(&ui.columns),
            web_url: ui.web_url.clone(),
            profile,
            profiles,
            ..Habits::default()
        }
    }

    /// Search and sort of a tab.
    pub fn find(&self, tab: Resource) -> &Find {
        match tab {
            Resource::Conversations => &self.conversations,
            Resource::Visitors => &self.visitors,
        }
    }

    fn find_mut(&mut self, tab: Resource) -> &mut Find {
        match tab {
            Resource::Conversations => &mut self.conversations,
            Resource::Visitors => &mut self.visitors,
        }
    }
}

/// A profile loaded by the runtime: what the app takes from the new config. (The runtime
/// keeps the new client itself.)
#[derive(Clone)]
pub struct ProfileSwitch {
    pub name: String,
    pub page_size: Limit,
    pub views: Vec<View>,
    pub aliases: Aliases,
    pub refresh_secs: Option<u64>,
    /// The header's endpoint text (host and masked key).
    pub endpoint: String,
    pub ui: UiConfig,
    pub profiles: Vec<String>,
    /// The client of the new profile; the runtime takes it.
    pub client: Option<crate::api::Client>,
}

impl std::fmt::Debug for ProfileSwitch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfileSwitch")
            .field("name", &self.name)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// Keys while a prompt is open; true when the key was taken.
pub fn on_key(app: &mut App, k: KeyEvent, cmds: &mut Vec<Command>) -> bool {
    let Some(prompt) = app.habits.prompt.clone() else {
        return false;
    };
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let search = matches!(prompt, Prompt::Search(_));
    match prompt {
        Prompt::Profiles(sel) => {
            let n = app.habits.profiles.len().max(1);
            match k.code {
                KeyCode::Esc | KeyCode::Char('P') => app.habits.prompt = None,
                KeyCode::Down | KeyCode::Char('j') => {
                    app.habits.prompt = Some(Prompt::Profiles((sel + 1) % n))
                }
                KeyCode::Up | KeyCode::Char('k') => {
                    app.habits.prompt = Some(Prompt::Profiles((sel + n - 1) % n))
                }
                KeyCode::Enter => {
                    app.habits.prompt = None;
                    if let Some(name) = app.habits.profiles.get(sel).cloned() {
                        app.habits.switching = Some(name.clone());
                        app.say(format!(
                            "loading profile {}…",
                            crate::text::one_line(&name, 40)
                        ));
                        cmds.push(Command::SwitchProfile(name));
                    }
                }
                _ => {}
            }
        }
        Prompt::ExportScope(ref path) | Prompt::ExportConfirm(ref path) => {
            super::walk_export::on_prompt_key(app, &prompt, path.clone(), k, cmds)
        }
        Prompt::Search(mut text) | Prompt::Export(mut text) => {
            match k.code {
                KeyCode::Esc => {
                    app.habits.prompt = None;
                    if search {
                        set_query(app, String::new());
                        app.say("search cleared");
                    }
                    return true;
                }
                KeyCode::Enter => {
                    app.habits.prompt = None;
                    if search {
                        let n = app.habits.find(app.active).matches.len();
                        if text.is_empty() {
                            app.message = None;
                        } else {
                            app.say(format!(
                                "{n} match{} · {} next · {} previous",
                                if n == 1 { "" } else { "es" },
                                app.keymap.key_of(Action::SearchNext),
                                app.keymap.key_of(Action::SearchPrev)
                            ));
                        }
                    } else {
                        super::walk_export::after_path(app, text.trim(), cmds);
                    }
                    return true;
                }
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char('u') if ctrl => text.clear(),
                KeyCode::Char(c) if !ctrl && !c.is_control() => {
                    if text.chars().count() < PROMPT_MAX {
                        text.push(c);
                    }
                }
                _ => return true,
            }
            if search {
                set_query(app, text.clone());
                app.habits.prompt = Some(Prompt::Search(text));
                jump_to_first_match(app);
            } else {
                app.habits.prompt = Some(Prompt::Export(text));
            }
        }
    }
    true
}

/// The actions of this module, and moves while sorted; true when the action was handled.
pub fn before_action(app: &mut App, action: Action, cmds: &mut Vec<Command>) -> bool {
    let body = app.body_height();
    let sorted = app.habits.find(app.active).sorted();
    match action {
        Action::Search => {
            let q = app.habits.find(app.active).query.clone();
            app.habits.prompt = Some(Prompt::Search(q));
        }
        Action::SearchNext | Action::SearchPrev => step_match(app, action == Action::SearchPrev),
        Action::SortNext | Action::SortPrev => cycle_sort(app, action == Action::SortPrev),
        Action::SortReverse => {
            let f = app.habits.find_mut(app.active);
            f.sort = match f.sort {
                Some(s) if s.desc => Some(Sort { desc: false, ..s }),
                Some(_) => None,
                None => {
                    app.say(format!(
                        "no sort: {} / {} choose a column",
                        app.keymap.key_of(Action::SortNext),
                        app.keymap.key_of(Action::SortPrev)
                    ));
                    return true;
                }
            };
            resorted(app);
        }
        Action::Export | Action::Close if app.habits.walk_export.is_some() => {
            super::walk_export::on_action(app, action, cmds)
        }
        Action::Export => {
            let date = app.now.strftime("%Y-%m-%d").to_string();
            let path = format!("./convo-{}-{date}.csv", app.active.name());
            app.habits.prompt = Some(Prompt::Export(path));
        }
        Action::Open => open(app, cmds),
        Action::Profiles => {
            if app.habits.profiles.is_empty() {
                app.say("no profiles: add [profiles.NAME] sections to the config");
            } else {
                let cur = app
                    .habits
                    .profile
                    .as_ref()
                    .and_then(|p| app.habits.profiles.iter().position(|x| x == p))
                    .unwrap_or(0);
                app.habits.prompt = Some(Prompt::Profiles(cur));
            }
        }
        Action::Down if sorted => move_sorted(app, 1, body),
        Action::Up if sorted => move_sorted(app, -1, body),
        Action::PageDown if sorted && app.detail.is_none() => move_sorted(app, body as isize, body),
        Action::PageUp if sorted && app.detail.is_none() => {
            move_sorted(app, -(body as isize), body)
        }
        Action::Top if sorted => move_sorted(app, isize::MIN / 2, body),
        Action::Bottom if sorted => move_sorted(app, isize::MAX / 2, body),
        _ => return false,
    }
    true
}

/// After every message: recompute search matches and the sort permutation when the rows
/// changed, and keep the sorted selection on screen. Cheap when nothing changed.
pub fn after_update(app: &mut App) {
    let body = app.body_height();
    let (now, h) = (app.now, &mut app.habits);
    refresh_tab(
        &mut h.conversations,
        &app.conversations,
        &h.columns.conversations,
        now,
        &app.aliases,
        body,
        false,
    );
    refresh_tab(
        &mut h.visitors,
        &app.visitors,
        &h.columns.visitors,
        now,
        &app.aliases,
        body,
        false,
    );
}

fn refresh_tab<T: Row + Cells + Clone + PartialEq, F: TabFilter>(
    find: &mut Find,
    t: &TabState<T, F>,
    columns: &[Column],
    now: jiff::Timestamp,
    aliases: &Aliases,
    body: usize,
    force: bool,
) {
    find.refresh(t.rows(), t.generation, columns, now, aliases, force);
    if find.sorted() {
        find.scroll_to(t.selected, t.rows().len(), body);
    }
}

/// Recomputes the active tab's matches and order now (the query or sort changed).
fn force_refresh(app: &mut App) {
    let body = app.body_height();
    let (now, h) = (app.now, &mut app.habits);
    match app.active {
        Resource::Conversations => refresh_tab(
            &mut h.conversations,
            &app.conversations,
            &h.columns.conversations,
            now,
            &app.aliases,
            body,
            true,
        ),
        Resource::Visitors => refresh_tab(
            &mut h.visitors,
            &app.visitors,
            &h.columns.visitors,
            now,
            &app.aliases,
            body,
            true,
        ),
    }
}

fn set_query(app: &mut App, q: String) {
    app.habits.find_mut(app.active).query = q;
    force_refresh(app);
}

fn selected(app: &App) -> usize {
    match app.active {
        Resource::Conversations => app.conversations.selected,
        Resource::Visitors => app.visitors.selected,
    }
}

fn rows_len(app: &App) -> usize {
    match app.active {
        Resource::Conversations => app.conversations.rows().len(),
        Resource::Visitors => app.visitors.rows().len(),
    }
}

/// Selects row `i` (an index into the loaded rows) and keeps it on screen.
fn select_row(app: &mut App, i: usize) {
    let body = app.body_height();
    match app.active {
        Resource::Conversations => app.conversations.select(i, body),
        Resource::Visitors => app.visitors.select(i, body),
    }
    let (sel, n) = (selected(app), rows_len(app));
    let f = app.habits.find_mut(app.active);
    if f.sorted() {
        f.scroll_to(sel, n, body);
    }
    if let Some(s) = app.detail.as_mut() {
        *s = 0;
    }
}

fn move_sorted(app: &mut App, delta: isize, _body: usize) {
    let n = rows_len(app);
    if n == 0 {
        return;
    }
    let f = app.habits.find(app.active);
    let pos = f.pos(selected(app)) as isize;
    let target = pos.saturating_add(delta).clamp(0, n as isize - 1) as usize;
    let i = f.row_at(target);
    select_row(app, i);
}

fn jump_to_first_match(app: &mut App) {
    let f = app.habits.find(app.active);
    let from = f.pos(selected(app));
    if let Some((i, _)) = f.first_match_from(from) {
        select_row(app, i);
    }
}

fn step_match(app: &mut App, back: bool) {
    let f = app.habits.find(app.active);
    if f.query.is_empty() {
        return app.say(format!(
            "no search: {} searches the loaded rows",
            app.keymap.key_of(Action::Search)
        ));
    }
    let total = f.matches.len();
    let from = f.pos(selected(app));
    match f.next_match(from, back) {
        Some((i, k)) => {
            select_row(app, i);
            app.say(format!("match {k} of {total}"));
        }
        None => {
            let q = crate::text::one_line(&f.query, 40);
            app.say(format!("no match for {q:?} in the loaded rows"));
        }
    }
}

fn cycle_sort(app: &mut App, back: bool) {
    let cols: Vec<Column> = app.habits.columns.of(app.active).to_vec();
    if cols.is_empty() {
        return;
    }
    let f = app.habits.find_mut(app.active);
    let cur = f.sort.and_then(|s| cols.iter().position(|c| *c == s.col));
    let next = match (cur, back) {
        (None, false) => 0,
        (None, true) => cols.len() - 1,
        (Some(i), false) => (i + 1) % cols.len(),
        (Some(i), true) => (i + cols.len() - 1) % cols.len(),
    };
    let desc = f.sort.is_none_or(|s| s.desc);
    f.sort = Some(Sort {
        col: cols[next],
        desc,
    });
    resorted(app);
}

/// The sort changed: recompute it, keep the selected row selected and on screen.
fn resorted(app: &mut App) {
    force_refresh(app);
    let sel = selected(app);
    select_row(app, sel);
    app.message = None;
}

/// The header's sort mark, e.g. `sorted by created ↓ (display only)`.
pub fn sort_mark(app: &App) -> Option<String> {
    let s = app.habits.find(app.active).sort?;
    Some(format!(
        "sorted by {} {} (display only)",
        s.col.name(),
        if s.desc { "↓" } else { "↑" }
    ))
}

fn open(app: &mut App, cmds: &mut Vec<Command>) {
    let Some(template) = app.habits.web_url.clone() else {
        return app.say(
            "set web_url in the config (e.g. \"https://app.example.com/conversations/{id}\") to open rows",
        );
    };
    let Some(id) = app.selected_id() else {
        return app.say("no row selected");
    };
    // Only the template and a UUID: nothing the server sent goes into the URL.
    let url = crate::ui_config::web_url_for(&template, app.active.name(), &id);
    app.say(format!("opening {}", crate::text::one_line(&url, 200)));
    cmds.push(Command::OpenUrl(url));
}

/// Formats `tab`'s loaded rows (server order) as CSV, or JSONL when the path ends in
/// `.jsonl`/`.json`, and asks the runtime to write them to a new file.
pub(super) fn export(
    app: &mut App,
    tab: Resource,
    path: &str,
    kind: ExportKind,
    cmds: &mut Vec<Command>,
) {
    if path.is_empty() {
        return app.say("export cancelled: no path");
    }
    let jsonl = path.ends_with(".jsonl") || path.ends_with(".json");
    let (contents, rows) = with_tab!(ref app, tab, |t| format_rows(t.rows(), jsonl));
    if rows == 0 {
        return app.say("nothing to export: no rows loaded");
    }
    app.say(format!(
        "exporting {rows} rows to {}…",
        crate::text::one_line(path, 200)
    ));
    cmds.push(Command::Export {
        path: PathBuf::from(path),
        contents,
        rows,
        kind,
    });
}

/// Rows as CSV (header first) or JSONL, with `convo list`'s formatting.
pub fn format_rows<T: Printable>(rows: &[T], jsonl: bool) -> (String, usize) {
    let mut out = String::new();
    if jsonl {
        for r in rows {
            if let Ok(j) = serde_json::to_string(r) {
                out.push_str(&json_terminal_safe(j));
                out.push('\n');
            }
        }
    } else {
        out.push_str(&T::CSV_HEADER.join(","));
        out.push('\n');
        for r in rows {
            let line: Vec<String> = r.csv_fields().iter().map(|f| csv_field(f, false)).collect();
            out.push_str(&line.join(","));
            out.push('\n');
        }
    }
    (out, rows.len())
}

/// A loaded profile: the new settings, both tabs restarted (new generations, older answers
/// dropped), search and sort cleared.
pub fn profile_loaded(app: &mut App, result: Result<Box<ProfileSwitch>, String>) -> Vec<Command> {
    app.habits.switching = None;
    let sw = match result {
        Ok(sw) => sw,
        Err(e) => {
            app.message = Some(super::app::Message {
                text: format!("profile not switched: {}", crate::text::one_line(&e, 300)),
                error: true,
            });
            return Vec::new();
        }
    };
    let keymap = match KeyMap::with_config(&sw.ui.keys) {
        Ok(k) => k,
        Err(e) => {
            app.message = Some(super::app::Message {
                text: format!(
                    "profile not switched: {}: {}",
                    e.key,
                    crate::text::one_line(&e.message, 300)
                ),
                error: true,
            });
            return Vec::new();
        }
    };
    let no_color = app.habits.theme.no_color;
    app.habits = Habits::from_config(&sw.ui, no_color, Some(sw.name.clone()), sw.profiles.clone());
    app.keymap = keymap;
    app.limit = sw.page_size;
    app.aliases = sw.aliases.clone();
    app.stale_after_secs = sw
        .ui
        .stale_after_secs
        .unwrap_or(crate::summary::DEFAULT_STALE_AFTER_SECS);
    app.refresh_secs = sw.refresh_secs.filter(|s| *s > 0);
    app.refresh_on = app.refresh_secs.is_some();
    let mut views = vec![super::app::builtin_view()];
    views.extend(sw.views.iter().cloned());
    app.views = views;
    app.endpoint = sw.endpoint.clone();
    app.detail = None;
    app.overlay = super::app::Overlay::None;
    // Ids in filters belong to the old service: both tabs start unfiltered.
    app.conversations.filter = Default::default();
    app.visitors.filter = Default::default();
    app.conversations.pager = crate::pager::Pager::new(sw.page_size.get());
    app.visitors.pager = crate::pager::Pager::new(sw.page_size.get());
    let cmds = vec![
        app.conversations.restart(false),
        app.visitors.restart(false),
    ];
    app.conversations.history.clear();
    app.visitors.history.clear();
    app.say(format!("profile {}", crate::text::one_line(&sw.name, 40)));
    cmds
}

/// Test support: the runtime's export writer.
#[doc(hidden)]
pub fn testing_export(
    path: PathBuf,
    contents: String,
    rows: usize,
    tx: &tokio::sync::mpsc::UnboundedSender<super::msg::Msg>,
) {
    super::habits_io::export(path, contents, rows, ExportKind::Loaded, tx);
}

/// Test support: carries out a [`Command::Export`] as the runtime does (other commands are
/// ignored); the answer comes on `tx`.
#[doc(hidden)]
pub fn testing_run_export(cmd: Command, tx: &tokio::sync::mpsc::UnboundedSender<super::msg::Msg>) {
    if let Command::Export {
        path,
        contents,
        rows,
        kind,
    } = cmd
    {
        super::habits_io::export(path, contents, rows, kind, tx);
    }
}
