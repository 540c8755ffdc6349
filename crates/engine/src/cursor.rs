//! How a walk follows cursors, by the rules of docs/design.md "Pagination safety": pure, no I/O.
//!
//! One walk's cursors: where it stands (its first page, after a cursor, or at the end) and the
//! cursors whose pages it has read. A page's end says what comes next ([`Cursors::follow`]):
//! `has_more: false` ends the list; `has_more: true` with no cursor (or an empty one) ends it
//! too, as a warning; a cursor the walk has already read would loop, so it ends the walk.
//! [`crate::pager::Pager`] (every walk that keeps its rows) and the visitor sync of the local
//! store (a walk of a million rows that keeps none, resumed from a stored cursor) both follow
//! cursors with it.

use std::collections::HashSet;

/// Where a walk stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Next {
    /// Nothing read yet: the next request is the first page.
    First,
    /// More exists after this cursor.
    After(String),
    /// The list is complete (or the walk stopped).
    End,
}

/// What a page's end says of the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Follow {
    /// The walk goes on after this cursor.
    Next(String),
    /// `has_more: false`: the list is complete.
    End,
    /// `has_more: true` with no cursor (or an empty one): the list ends here, a warning.
    NoCursor,
    /// A cursor the walk has read already: it would loop, so it stops.
    Loop,
}

/// One walk's cursors (see the module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursors {
    next: Next,
    /// Cursors whose pages were read in this walk.
    used: HashSet<String>,
}

impl Default for Cursors {
    fn default() -> Self {
        Cursors::new()
    }
}

impl Cursors {
    /// A walk from the first page.
    pub fn new() -> Cursors {
        Cursors {
            next: Next::First,
            used: HashSet::new(),
        }
    }

    /// A walk that goes on after `cursor` (`None`: from the first page), e.g. from where a
    /// walk of an earlier run stopped; no cursor is known read yet.
    pub fn resume(cursor: Option<String>) -> Cursors {
        Cursors {
            next: cursor.map_or(Next::First, Next::After),
            used: HashSet::new(),
        }
    }

    /// A walk that goes on after `cursor` (`None`: at its end) having read the pages of `used`.
    pub fn from_parts(cursor: Option<String>, mut used: HashSet<String>) -> Cursors {
        if let Some(c) = &cursor {
            used.remove(c);
        }
        Cursors {
            next: cursor.map_or(Next::End, Next::After),
            used,
        }
    }

    /// The cursor of the next page (`Some(None)`: the first page); `None` at the end.
    pub fn next(&self) -> Option<Option<&str>> {
        match &self.next {
            Next::First => Some(None),
            Next::After(c) => Some(Some(c)),
            Next::End => None,
        }
    }

    /// The cursor the next page is asked with, when it is not the first page.
    pub fn after(&self) -> Option<&str> {
        match &self.next {
            Next::After(c) => Some(c),
            _ => None,
        }
    }

    /// The walk has no next page.
    pub fn is_end(&self) -> bool {
        self.next == Next::End
    }

    /// Ends the walk (it stopped, or the list was read whole another way).
    pub fn stop(&mut self) {
        self.next = Next::End;
    }

    /// Whether a page answered with `has_more: true` and `cursor` would be followed: a cursor
    /// that is not empty, not read in this walk and not the one being read.
    pub fn would_follow(&self, cursor: &str) -> bool {
        !cursor.is_empty()
            && !self.used.contains(cursor)
            && !matches!(&self.next, Next::After(c) if c == cursor)
    }

    /// The page at [`Cursors::next`] was read and ended with `has_more` and `cursor`: what
    /// comes next, and the walk now stands there.
    pub fn follow(&mut self, has_more: bool, cursor: Option<String>) -> Follow {
        if let Next::After(read) = std::mem::replace(&mut self.next, Next::End) {
            self.used.insert(read);
        }
        match (has_more, cursor) {
            (false, _) => Follow::End,
            (true, None) => Follow::NoCursor,
            (true, Some(c)) if c.is_empty() => Follow::NoCursor,
            (true, Some(c)) if self.used.contains(&c) => Follow::Loop,
            (true, Some(c)) => {
                self.next = Next::After(c.clone());
                Follow::Next(c)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_cursors_to_the_end_and_stops_at_a_repeat_or_a_missing_one() {
        let mut c = Cursors::new();
        assert_eq!(c.next(), Some(None));
        assert_eq!(c.follow(true, Some("a".into())), Follow::Next("a".into()));
        assert_eq!(c.next(), Some(Some("a")));
        assert!(!c.would_follow("a"), "the page being read");
        assert_eq!(c.follow(true, Some("b".into())), Follow::Next("b".into()));
        assert!(!c.would_follow("a"), "read already");
        assert_eq!(c.follow(true, Some("a".into())), Follow::Loop);
        assert!(c.is_end());
        let mut c = Cursors::resume(Some("x".into()));
        assert_eq!(c.follow(true, Some(String::new())), Follow::NoCursor);
        assert!(c.is_end());
        let mut c = Cursors::resume(Some("x".into()));
        assert_eq!(c.follow(true, None), Follow::NoCursor);
        let mut c = Cursors::new();
        assert_eq!(c.follow(false, Some("z".into())), Follow::End);
        assert_eq!(c.next(), None);
    }
}
