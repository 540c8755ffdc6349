//! The selected row that left the view at a refresh, as a careful mail client keeps a message
//! another client moved: it stays under the cursor, greyed and marked `×`, the detail pane
//! stays on it (with what it is now, when a refresh read it), until the user moves. Moving
//! from it goes to the rows it was between.

use uuid::Uuid;

use super::{ScreenLine, TabFilter, TabState};
use convo_api::Row;

/// The selected row that left (see the module).
#[derive(Debug, Clone, PartialEq)]
pub struct Held<T> {
    /// The row as it was last loaded.
    pub row: T,
    /// What it is now, when a refresh read it (a union's streams still list it but its
    /// checks no longer pass it); `None`: the service no longer lists it in this view.
    pub now: Option<T>,
    /// It was the last row: it shows after the row at `selected`, not above it.
    pub at_end: bool,
}

impl<T: Row + Clone + PartialEq, F: TabFilter> TabState<T, F> {
    /// The selected row that left the view, while the cursor stays on it.
    pub fn held(&self) -> Option<&Held<T>> {
        self.held.as_ref()
    }

    /// The line the cursor is on: the held row's, else the selected row's.
    pub fn cursor_line(&self) -> ScreenLine {
        match &self.held {
            Some(h) => ScreenLine::Gone(h.row.id()),
            None => ScreenLine::Row(self.selected),
        }
    }

    /// The row `delta` lines from the cursor (clamped to the loaded rows). From a held row,
    /// one line down is the row after it, one line up the row before it.
    pub fn move_target(&self, delta: isize) -> usize {
        let last = self.walk.rows().len().saturating_sub(1) as isize;
        let from = self.selected as isize;
        let target = match &self.held {
            // Held above `selected`: down 1 is `selected`, up 1 is the row before it.
            Some(h) if !h.at_end && delta > 0 => from + delta - 1,
            // Held after the last row: up 1 is that row.
            Some(h) if h.at_end && delta < 0 => from + delta + 1,
            _ => from.saturating_add(delta),
        };
        target.clamp(0, last.max(0)) as usize
    }

    /// After a refresh's merge: the selected row `id` left (it is among the rows that left,
    /// after the kept row `after`): the cursor stays on it, and `selected` is the row that
    /// took its place (or the last row, when it was last). It was the first row: it stays
    /// below the rows that arrived on top at this refresh (`new`), which are newer than it.
    pub(super) fn hold(&mut self, id: Uuid, new: &[Uuid]) {
        let Some(g) = self.walk.gone().find(|g| g.row.id() == id) else {
            return;
        };
        let (row, after) = (g.row.clone(), g.after);
        let rows = self.walk.rows();
        let at = match after {
            None => rows.iter().take_while(|r| new.contains(&r.id())).count(),
            Some(a) => rows.iter().position(|r| r.id() == a).map_or(0, |p| p + 1),
        };
        let at_end = at >= rows.len();
        self.selected = if at_end {
            rows.len().saturating_sub(1)
        } else {
            at
        };
        self.held = Some(Held {
            row,
            now: None,
            at_end,
        });
    }

    /// What the held row `id` is now, as a look-up found it (nothing when another row is held
    /// now, or a refresh already read it).
    pub fn held_now(&mut self, id: Uuid, now: T) {
        if let Some(h) = self
            .held
            .as_mut()
            .filter(|h| h.row.id() == id && h.now.is_none())
        {
            h.now = Some(now);
        }
    }

    /// After a refresh's merge with a row held: what a refresh read of it (`left_now`), and
    /// whether it came back (then it is selected again, no longer held).
    pub(super) fn follow_held(&mut self, left_now: Vec<T>) {
        let Some(h) = self.held.as_mut() else {
            return;
        };
        let id = h.row.id();
        if let Some(now) = left_now.into_iter().find(|r| r.id() == id) {
            h.now = Some(now);
        }
        if let Some(i) = self.walk.rows().iter().position(|r| r.id() == id) {
            self.held = None;
            self.selected = i;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{conversation, page};
    use convo_api::{Conversation, ConversationFilter, Limit, Resource};

    const BODY: usize = 5;

    /// A tab with `rows` loaded (one page), then refreshed to `fresh`.
    fn refreshed(
        rows: &[Conversation],
        fresh: &[Conversation],
        selected: usize,
    ) -> TabState<Conversation, ConversationFilter> {
        let limit = Limit::new(20).unwrap_or(Limit::DEFAULT);
        let mut t = TabState::new(
            Resource::Conversations,
            ConversationFilter::default(),
            limit,
        );
        let _ = t.next_fetch(BODY, limit);
        t.apply(t.generation(), Ok(page(rows, 0, 20)), BODY);
        t.select(selected, BODY);
        assert!(t.head_fetch(limit, 10, false).is_some());
        assert_eq!(
            t.head_page(Ok(page(fresh, 0, 20))),
            super::super::HeadStep::Ready
        );
        t.finish_reread(BODY);
        t
    }

    #[test]
    fn the_last_row_held_shows_after_the_row_above_and_steps_back_to_it() {
        let rows: Vec<Conversation> = (0..8).map(conversation).collect();
        let mut t = refreshed(&rows, &rows[..7], 7);
        let gone = rows[7].id;
        assert_eq!(t.selected_row().map(|r| r.id), Some(gone), "held");
        assert_eq!(t.selected, 6);
        let lines = t.screen_lines(BODY, true);
        assert_eq!(
            lines.last(),
            Some(&ScreenLine::Gone(gone)),
            "after the last row"
        );
        assert_eq!(lines.len(), BODY, "the cursor on screen");
        assert_eq!(t.move_target(1), 6, "nothing below: the last row");
        assert_eq!(t.move_target(-1), 6, "up: the row above it");
        t.select(t.move_target(-1), BODY);
        assert!(t.held().is_none());
        assert_eq!(t.selected_row().map(|r| r.id), Some(rows[6].id));
    }

    #[test]
    fn a_held_row_that_comes_back_is_selected_again() {
        let rows: Vec<Conversation> = (0..8).map(conversation).collect();
        let fresh: Vec<Conversation> = rows
            .iter()
            .filter(|r| r.id != rows[3].id)
            .cloned()
            .collect();
        let mut t = refreshed(&rows, &fresh, 3);
        assert!(t.held().is_some());
        assert_eq!(t.selected, 3, "the row that took its place");
        assert_eq!(t.move_target(1), 3, "down: the row after it");
        assert_eq!(t.move_target(-1), 2, "up: the row before it");
        let limit = Limit::new(20).unwrap_or(Limit::DEFAULT);
        assert!(t.head_fetch(limit, 10, false).is_some());
        let _ = t.head_page(Ok(page(&rows, 0, 20)));
        t.finish_reread(BODY);
        assert!(t.held().is_none(), "back in the list");
        assert_eq!(t.selected, 3);
        assert_eq!(t.selected_row().map(|r| r.id), Some(rows[3].id));
    }
}
