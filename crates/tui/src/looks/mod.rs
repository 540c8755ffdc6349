//! "Since you last looked": per tab, the walk compared with the view's last look kept in
//! the store, the view whose look was last asked for, and the status line's count of the
//! marks (said again as a walk's pages bring more).

use crate::tab::PerTab;
use convo_api::Resource;

pub mod update;

/// A tab's walk compared with the view's last look.
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

/// Each tab's look: the comparison under way and the view asked for.
#[derive(Debug, Clone, Default)]
pub struct Looks {
    /// The walk compared with the last look, until another walk or a refresh's own marks.
    kept: PerTab<Option<SinceLook>>,
    /// The view whose look was last asked of the store (by its look key); `None` until the
    /// store runs.
    asked: PerTab<Option<String>>,
}

impl Looks {
    /// `tab`'s walk compared with its view's last look, if it is.
    pub fn of(&self, tab: Resource) -> Option<SinceLook> {
        *self.kept.get(tab)
    }

    /// The store has started: the Conversations view's look (`key`) is asked for now, the
    /// Visitors view's by the next `update`.
    pub fn store_started(&mut self, key: String) {
        self.asked.conversations = Some(key);
        self.asked.visitors = Some(String::new());
    }
}
