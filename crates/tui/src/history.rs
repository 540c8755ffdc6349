//! Back (Backspace, `[`): one history for both tabs, as k9s keeps one for all its views.
//!
//! Every move to other filters (the filter pane, `x`, `u`, `s`, a view, a drill-down, a
//! summary bucket, an e-mail lookup) first remembers where the user was: the tab on screen,
//! and each tab's filters and selected row. Back returns there: to that tab, with those
//! filters, on that row. So Visitors → `V` (their conversations) → Back is the visitor you
//! came from, not the Conversations tab's earlier filters. Switching tabs (`1`, `2`, Tab) is
//! not a move: it changes no filters, and the key that did it undoes it. How Back is carried
//! out: `update::go_back`.

use super::tab::Reselect;
use convo_api::{ConversationFilter, Resource, VisitorFilter};

/// How many places Back can return to.
pub const HISTORY_MAX: usize = 50;

/// One tab as it was: its filters and its selected row (and where that row was).
#[derive(Debug, Clone, PartialEq)]
pub struct TabPlace<F> {
    pub filter: F,
    pub selected: Option<Reselect>,
    /// The query it showed when one request's filters could not (a union): Back runs it
    /// again.
    pub union: Option<convo_query::query::Query>,
    /// The display sort it was shown in (`>`, `<`): Back shows it so again.
    pub sort: Option<super::sort::Sort>,
}

/// Where the user was before a move: the tab on screen, and both tabs' filters and selected
/// rows (a drill-down from Visitors changes the Conversations tab's filters; Back puts them
/// back too, so that `1` then shows what it showed before).
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub active: Resource,
    pub conversations: TabPlace<ConversationFilter>,
    pub visitors: TabPlace<VisitorFilter>,
    /// The Conversations tab showed an oldest-first view ("Breaching").
    pub oldest_first: bool,
}

/// The places Back returns to, the latest last.
#[derive(Debug, Clone, Default)]
pub struct History {
    places: Vec<Place>,
}

impl History {
    /// Remembers a place (the oldest is forgotten past [`HISTORY_MAX`]).
    pub fn push(&mut self, place: Place) {
        self.places.push(place);
        if self.places.len() > HISTORY_MAX {
            self.places.remove(0);
        }
    }

    /// The latest place, taken off the history.
    pub fn pop(&mut self) -> Option<Place> {
        self.places.pop()
    }

    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Forgets everything (a profile switch: ids in filters belong to the old service).
    pub fn clear(&mut self) {
        self.places.clear();
    }
}
