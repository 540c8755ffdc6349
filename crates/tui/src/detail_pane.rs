//! The detail pane's state: open or not, its scroll, the visitor whose attributes it shows.
//! What it says is `detail`'s; `view::detail` draws it.

/// The detail pane: open or not, how far it is scrolled, and the attributes the store keeps
/// of the visitor of the conversation it shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DetailPane {
    /// Open, scrolled by this many lines.
    scroll: Option<usize>,
    /// The visitor of the conversation shown: (visitor, its attributes; `None` while asked
    /// for).
    visitor: Option<(uuid::Uuid, Option<serde_json::Value>)>,
}

impl DetailPane {
    /// The pane is open.
    pub fn is_open(&self) -> bool {
        self.scroll.is_some()
    }

    /// Lines scrolled, when open.
    pub fn scroll(&self) -> Option<usize> {
        self.scroll
    }

    /// Opens the pane at its top (or takes an open one back to it).
    pub fn open(&mut self) {
        self.scroll = Some(0);
    }

    pub fn close(&mut self) {
        self.scroll = None;
    }

    /// Enter: open becomes closed and closed open (at the top).
    pub fn toggle(&mut self) {
        self.scroll = if self.is_open() { None } else { Some(0) };
    }

    /// Another row is shown: an open pane starts at its top.
    pub fn row_changed(&mut self) {
        if let Some(s) = self.scroll.as_mut() {
            *s = 0;
        }
    }

    /// Scrolls an open pane by `delta` lines, within `0..=max`.
    pub fn scroll_by(&mut self, delta: isize, max: usize) {
        if let Some(s) = self.scroll.as_mut() {
            *s = (*s as isize).saturating_add(delta).clamp(0, max as isize) as usize;
        }
    }

    /// The attributes of visitor `id`, when the store has answered for it.
    pub fn attributes_of(&self, id: uuid::Uuid) -> Option<&serde_json::Value> {
        self.visitor
            .as_ref()
            .filter(|(v, _)| *v == id)
            .and_then(|(_, a)| a.as_ref())
    }

    /// The pane shows a conversation of visitor `id`: true when its attributes are to be
    /// asked for (once per visitor shown).
    pub fn ask_visitor(&mut self, id: uuid::Uuid) -> bool {
        if self.visitor.as_ref().is_some_and(|(v, _)| *v == id) {
            return false;
        }
        self.visitor = Some((id, None));
        true
    }

    /// The store's attributes of visitor `id`: kept if it is still the one shown (true).
    pub fn visitor_answered(&mut self, id: uuid::Uuid, attributes: serde_json::Value) -> bool {
        if self.visitor.as_ref().is_none_or(|(v, _)| *v != id) {
            return false;
        }
        self.visitor = Some((id, Some(attributes)));
        true
    }

    /// Another service: the pane closes and its visitor is forgotten.
    pub fn forget(&mut self) {
        *self = DetailPane::default();
    }
}
