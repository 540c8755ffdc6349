//! The one key map: actions, their default keys, descriptions and groups. The help overlay is
//! generated from it, so what `?` shows is what the app does.

pub mod config;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key does in the table view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Down,
    Up,
    PageDown,
    PageUp,
    Top,
    Bottom,
    NextTab,
    PrevTab,
    FirstTab,
    SecondTab,
    Filter,
    ClearFilters,
    ToggleUnassigned,
    CycleStatus,
    Back,
    Views,
    Detail,
    DetailDown,
    DetailUp,
    DrillVisitor,
    DrillSite,
    DrillAssignee,
    Summary,
    Copy,
    Reload,
    ToggleRefresh,
    LoadAll,
    Help,
    Close,
    Quit,
    Suspend,
    Search,
    SearchNext,
    SearchPrev,
    SortNext,
    SortPrev,
    SortReverse,
    Export,
    Open,
    Profiles,
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
        use Action as A;
        use Group as G;
        use KeyCode as C;
        let b = |action, keys: &[Key], group, help| Binding {
            action,
            keys: keys.to_vec(),
            group,
            help,
        };
        KeyMap {
            bindings: vec![
                b(
                    A::Down,
                    &[Key::ch('j'), Key::plain(C::Down)],
                    G::Move,
                    "next row",
                ),
                b(
                    A::Up,
                    &[Key::ch('k'), Key::plain(C::Up)],
                    G::Move,
                    "previous row",
                ),
                b(
                    A::PageDown,
                    &[Key::plain(C::PageDown), Key::ctrl('f')],
                    G::Move,
                    "page down",
                ),
                b(
                    A::PageUp,
                    &[Key::plain(C::PageUp), Key::ctrl('b')],
                    G::Move,
                    "page up",
                ),
                b(
                    A::Top,
                    &[Key::ch('g'), Key::plain(C::Home)],
                    G::Move,
                    "first row",
                ),
                b(
                    A::Bottom,
                    &[Key::ch('G'), Key::plain(C::End)],
                    G::Move,
                    "last loaded row (and load more)",
                ),
                b(A::NextTab, &[Key::plain(C::Tab)], G::Tabs, "next tab"),
                b(
                    A::PrevTab,
                    &[Key::plain(C::BackTab)],
                    G::Tabs,
                    "previous tab",
                ),
                b(A::FirstTab, &[Key::ch('1')], G::Tabs, "Conversations"),
                b(A::SecondTab, &[Key::ch('2')], G::Tabs, "Visitors"),
                b(
                    A::Filter,
                    &[Key::ch('/'), Key::ch('f')],
                    G::Filters,
                    "edit filters",
                ),
                b(
                    A::ClearFilters,
                    &[Key::ch('x')],
                    G::Filters,
                    "clear all filters",
                ),
                b(
                    A::ToggleUnassigned,
                    &[Key::ch('u')],
                    G::Filters,
                    "unassigned only on/off",
                ),
                b(
                    A::CycleStatus,
                    &[Key::ch('s')],
                    G::Filters,
                    "cycle status filter",
                ),
                b(
                    A::Back,
                    &[Key::plain(C::Backspace), Key::ch('[')],
                    G::Filters,
                    "previous filters",
                ),
                b(A::Views, &[Key::ch('v')], G::Filters, "saved views"),
                b(A::Detail, &[Key::plain(C::Enter)], G::Rows, "detail pane"),
                b(
                    A::DetailDown,
                    &[Key::ch('J')],
                    G::Rows,
                    "scroll detail down",
                ),
                b(A::DetailUp, &[Key::ch('K')], G::Rows, "scroll detail up"),
                b(
                    A::DrillVisitor,
                    &[Key::ch('V')],
                    G::Rows,
                    "the visitor's conversations",
                ),
                b(
                    A::DrillSite,
                    &[Key::ch('W')],
                    G::Rows,
                    "the site's conversations",
                ),
                b(
                    A::DrillAssignee,
                    &[Key::ch('A')],
                    G::Rows,
                    "the assignee's conversations",
                ),
                b(A::Copy, &[Key::ch('y')], G::Rows, "copy id (OSC 52)"),
                b(A::Open, &[Key::ch('o')], G::Rows, "open in the web app"),
                b(
                    A::Export,
                    &[Key::ch('e')],
                    G::Rows,
                    "export loaded rows or whole walk",
                ),
                b(A::Search, &[Key::ch('\\')], G::Find, "search"),
                b(A::SearchNext, &[Key::ch('n')], G::Find, "next match"),
                b(A::SearchPrev, &[Key::ch('N')], G::Find, "previous match"),
                b(A::SortNext, &[Key::ch('>')], G::Find, "sort by next column"),
                b(
                    A::SortPrev,
                    &[Key::ch('<')],
                    G::Find,
                    "sort by previous column",
                ),
                b(
                    A::SortReverse,
                    &[Key::ch('=')],
                    G::Find,
                    "reverse sort · then server order",
                ),
                b(
                    A::Reload,
                    &[Key::ch('r')],
                    G::Lists,
                    "reload · retry after an error",
                ),
                b(
                    A::ToggleRefresh,
                    &[Key::ch('R')],
                    G::Lists,
                    "auto refresh on/off",
                ),
                b(
                    A::Summary,
                    &[Key::ch('S')],
                    G::Lists,
                    "summary by status, site, assignee",
                ),
                b(
                    A::LoadAll,
                    &[Key::ch('L')],
                    G::Lists,
                    "load every page (Esc stops)",
                ),
                b(A::Help, &[Key::ch('?')], G::General, "this help"),
                b(A::Profiles, &[Key::ch('P')], G::General, "switch profile"),
                b(
                    A::Close,
                    &[Key::plain(C::Esc)],
                    G::General,
                    "close / cancel",
                ),
                b(
                    A::Suspend,
                    &[Key::ctrl('z')],
                    G::General,
                    "suspend (the shell's fg resumes)",
                ),
                b(A::Quit, &[Key::ch('q'), Key::ctrl('c')], G::General, "quit"),
            ],
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
        assert_eq!(km.action(&c), Some(Action::Quit));
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
