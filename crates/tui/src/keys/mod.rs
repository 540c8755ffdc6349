//! The one key map: actions, their default keys, descriptions and groups. The help overlay is
//! generated from it, so what `?` shows is what the app does.

pub mod config;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Declares [`Action`] from one table: each action's `[keys]` name, help group, default keys
/// and help text, in help order.
macro_rules! actions {
    ($($variant:ident = $name:literal, $group:ident, [$($key:expr),* $(,)?], $help:literal;)*) => {
        /// What a key does in the table view.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Action {
            $($variant,)*
        }

        impl Action {
            /// Every action, in help order.
            pub const ALL: &[Action] = &[$(Action::$variant),*];

            /// The action's name in `[keys]`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Action::$variant => $name,)*
                }
            }

            /// The action of a `[keys]` name.
            pub fn from_name(name: &str) -> Option<Action> {
                match name.trim() {
                    $($name => Some(Action::$variant),)*
                    _ => None,
                }
            }

            /// Where help lists the action.
            pub const fn group(self) -> Group {
                match self {
                    $(Action::$variant => Group::$group,)*
                }
            }

            /// What help says the action does.
            pub const fn help(self) -> &'static str {
                match self {
                    $(Action::$variant => $help,)*
                }
            }

            /// The keys the action has unless `[keys]` says otherwise.
            pub fn default_keys(self) -> Vec<Key> {
                match self {
                    $(Action::$variant => vec![$($key),*],)*
                }
            }
        }
    };
}

// THE place to add a key action: one line here (name in `[keys]`, help group, default keys,
// help text); then say what it does in `update::on_action` (usually one arm calling the
// feature's `update.rs`). Help, the README key table, `[keys]` and `convo doctor` follow.
actions! {
    Down = "down", Move, [Key::ch('j'), Key::plain(KeyCode::Down)], "next row";
    Up = "up", Move, [Key::ch('k'), Key::plain(KeyCode::Up)], "previous row";
    PageDown = "page_down", Move, [Key::plain(KeyCode::PageDown), Key::ctrl('f')], "page down";
    PageUp = "page_up", Move, [Key::plain(KeyCode::PageUp), Key::ctrl('b')], "page up";
    Top = "top", Move, [Key::ch('g'), Key::plain(KeyCode::Home)], "first row";
    Bottom = "bottom", Move, [Key::ch('G'), Key::plain(KeyCode::End)], "last loaded row (and load more)";
    JumpLeft = "jump_left", Move, [Key::ch('\'')], "to where a row left (last refresh)";
    NextTab = "next_tab", Tabs, [Key::plain(KeyCode::Tab)], "next tab";
    PrevTab = "prev_tab", Tabs, [Key::plain(KeyCode::BackTab)], "previous tab";
    FirstTab = "first_tab", Tabs, [Key::ch('1')], "Conversations";
    SecondTab = "second_tab", Tabs, [Key::ch('2')], "Visitors";
    Board = "board", Tabs, [Key::ch('B')], "board: every view's counts";
    Filter = "filter", Filters, [Key::ch('/'), Key::ch('f')], "edit filters";
    ClearFilters = "clear_filters", Filters, [Key::ch('x')], "clear all filters";
    ToggleUnassigned = "toggle_unassigned", Filters, [Key::ch('u')], "unassigned only on/off";
    CycleStatus = "cycle_status", Filters, [Key::ch('s')], "cycle status filter";
    Back = "back", Filters, [Key::plain(KeyCode::Backspace), Key::ch('[')], "back: pane, tab, filters, row";
    Views = "views", Filters, [Key::ch('v')], "saved views";
    Query = "query", Filters, [Key::ch(':')], "query line (Tab completes, ? plan)";
    SaveView = "save_view", Filters, [Key::ch('w')], "save the query as a view";
    Detail = "detail", Rows, [Key::plain(KeyCode::Enter)], "detail pane";
    DetailDown = "detail_down", Rows, [Key::ch('J')], "scroll detail down";
    DetailUp = "detail_up", Rows, [Key::ch('K')], "scroll detail up";
    DrillVisitor = "drill_visitor", Rows, [Key::ch('V')], "the visitor's conversations";
    DrillSite = "drill_site", Rows, [Key::ch('W')], "the site's conversations";
    DrillAssignee = "drill_assignee", Rows, [Key::ch('A')], "the assignee's conversations";
    Copy = "copy", Rows, [Key::ch('y')], "copy id to the clipboard";
    CopyField = "copy_field", Rows, [Key::ch('Y')], "copy a field of the row (menu)";
    OpenVisitor = "open_visitor", Rows, [Key::ch('i')], "the visitor's record (Visitors)";
    Mark = "mark", Rows, [Key::ch(' '), Key::ch('m')], "mark/unmark the row (then next)";
    ClearMarks = "clear_marks", Rows, [Key::ch('M')], "clear the marks";
    Commands = "commands", Rows, [Key::ch('!')], "your [[commands]] (menu)";
    Open = "open", Rows, [Key::ch('o')], "open in the web app";
    Export = "export", Rows, [Key::ch('e')], "export loaded rows or whole walk";
    Search = "search", Find, [Key::ch('\\')], "search (↑ earlier searches)";
    SearchNext = "search_next", Find, [Key::ch('n')], "next match";
    SearchPrev = "search_prev", Find, [Key::ch('N')], "previous match";
    SortNext = "sort_next", Find, [Key::ch('>')], "sort by next column";
    SortPrev = "sort_prev", Find, [Key::ch('<')], "sort by previous column";
    SortReverse = "sort_reverse", Find, [Key::ch('=')], "reverse sort · then server order";
    Reload = "reload", Lists, [Key::ch('r')], "reload · retry after an error";
    ToggleRefresh = "toggle_refresh", Lists, [Key::ch('R')], "auto refresh on/off";
    Summary = "summary", Lists, [Key::ch('S')], "summary by status, site, assignee";
    LoadAll = "load_all", Lists, [Key::ch('L')], "load every page (Esc stops)";
    Help = "help", General, [Key::ch('?')], "this help";
    Profiles = "profiles", General, [Key::ch('P')], "switch profile";
    Close = "close", General, [Key::plain(KeyCode::Esc)], "close / cancel";
    Suspend = "suspend", General, [Key::ctrl('z')], "suspend (the shell's fg resumes)";
    Quit = "quit", General, [Key::ch('q')], "close the pane on top, else quit";
    QuitNow = "quit_now", General, [Key::ch('Q'), Key::ctrl('c')], "quit from anywhere";
}

/// Where a binding is listed in the help overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Move,
    Tabs,
    Filters,
    Find,
    Rows,
    Lists,
    General,
}

impl Group {
    /// All groups, in help order.
    pub const ALL: [Group; 7] = [
        Group::Move,
        Group::Tabs,
        Group::Filters,
        Group::Find,
        Group::Rows,
        Group::Lists,
        Group::General,
    ];

    /// The heading shown in the help overlay.
    pub fn title(self) -> &'static str {
        match self {
            Group::Move => "Move",
            Group::Tabs => "Tabs",
            Group::Filters => "Filters",
            Group::Find => "Search & sort (loaded rows)",
            Group::Rows => "Row",
            Group::Lists => "Loading",
            Group::General => "General",
        }
    }
}

/// One key: a code and the Ctrl/Alt modifiers (Shift is part of the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub const fn plain(code: KeyCode) -> Key {
        Key {
            code,
            mods: KeyModifiers::NONE,
        }
    }

    pub const fn ch(c: char) -> Key {
        Key::plain(KeyCode::Char(c))
    }

    const fn ctrl(c: char) -> Key {
        Key {
            code: KeyCode::Char(c),
            mods: KeyModifiers::CONTROL,
        }
    }

    /// The key of an event, with Shift folded into characters and Shift-Tab.
    pub fn of(ev: &KeyEvent) -> Key {
        let mods = ev.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        let code = match ev.code {
            KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            KeyCode::Tab if ev.modifiers.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
            other => other,
        };
        Key { code, mods }
    }

    /// How the key is written in help and hints.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift-Tab".into(),
            KeyCode::Backspace => "Backspace".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        let mut s = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            s.push_str("Ctrl-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            s.push_str("Alt-");
        }
        s.push_str(&base);
        s
    }
}

/// An action, the keys that trigger it, and how help describes it.
#[derive(Debug, Clone)]
pub struct Binding {
    pub action: Action,
    pub keys: Vec<Key>,
    pub group: Group,
    pub help: &'static str,
}

/// All bindings: [`KeyMap::default`], with the config's `[keys]` laid over it by
/// [`KeyMap::with_config`] (in [`config`]).
#[derive(Debug, Clone)]
pub struct KeyMap {
    pub bindings: Vec<Binding>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap {
            bindings: Action::ALL
                .iter()
                .map(|&action| Binding {
                    action,
                    keys: action.default_keys(),
                    group: action.group(),
                    help: action.help(),
                })
                .collect(),
        }
    }
}

impl KeyMap {
    /// The action bound to this key event, if any.
    pub fn action(&self, ev: &KeyEvent) -> Option<Action> {
        let key = Key::of(ev);
        self.bindings
            .iter()
            .find(|b| b.keys.contains(&key))
            .map(|b| b.action)
    }

    /// The keys of an action joined for a hint, e.g. `/ f`.
    pub fn keys_of(&self, action: Action) -> String {
        self.bindings
            .iter()
            .filter(|b| b.action == action)
            .flat_map(|b| b.keys.iter().map(Key::label))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The first key of an action, for short hints.
    pub fn key_of(&self, action: Action) -> String {
        self.bindings
            .iter()
            .find(|b| b.action == action)
            .and_then(|b| b.keys.first())
            .map(Key::label)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_and_ctrl_fold() {
        let km = KeyMap::default();
        let g = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(km.action(&g), Some(Action::Bottom));
        let c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(km.action(&c), Some(Action::QuitNow));
        let bt = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(km.action(&bt), Some(Action::PrevTab));
        let plain_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE);
        assert_eq!(km.action(&plain_c), None);
    }

    #[test]
    fn every_key_is_bound_once() {
        let km = KeyMap::default();
        let all: Vec<Key> = km.bindings.iter().flat_map(|b| b.keys.clone()).collect();
        for (i, k) in all.iter().enumerate() {
            assert!(!all[i + 1..].contains(k), "{} bound twice", k.label());
        }
    }
}
