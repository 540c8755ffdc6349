//! A bad query: where, what was found there, what would be accepted, and a caret under it.

use std::ops::Range;

use convo_text as text;

/// Why a query was refused (before any request). `at` is a byte range of the text it was
/// parsed from; [`QueryError::render`] turns it into a caret under the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{found}: expected {expected}{}", hint.as_deref().map(|h| format!(" ({h})")).unwrap_or_default())]
pub struct QueryError {
    /// Byte range in the query text (`start == end` at its end: something is missing).
    pub at: Range<usize>,
    /// What is there, as the user sees it (e.g. `unknown field "stat"`).
    pub found: String,
    /// What would be accepted there.
    pub expected: String,
    /// How to fix it, when there is a likely fix.
    pub hint: Option<String>,
}

impl QueryError {
    pub(crate) fn new(
        at: Range<usize>,
        found: impl Into<String>,
        expected: impl Into<String>,
    ) -> QueryError {
        QueryError {
            at,
            found: found.into(),
            expected: expected.into(),
            hint: None,
        }
    }

    pub(crate) fn hint(mut self, h: impl Into<String>) -> QueryError {
        self.hint = Some(h.into());
        self
    }

    /// Where it is, in characters from the start of `query` (for a caret in a text field).
    pub fn char_pos(&self, query: &str) -> usize {
        query
            .get(..self.at.start.min(query.len()))
            .map_or(0, |p| p.chars().count())
    }

    /// The query (sanitised, on one line), a caret line under the position, and the message:
    ///
    /// ```text
    ///   status:open status:pending
    ///               ^^^^^^^^^^^^^^
    ///   found a second status term: expected status once (use status:open,pending)
    /// ```
    pub fn render(&self, query: &str) -> String {
        let start = floor_boundary(query, self.at.start);
        let end = floor_boundary(query, self.at.end.max(start));
        let before = text::sanitize(&query[..start]);
        let under = text::sanitize(&query[start..end]);
        let pad = text::width(&before);
        let carets = text::width(&under).max(1);
        format!(
            "  {}\n  {}{}\n  {}",
            text::sanitize(query),
            " ".repeat(pad),
            "^".repeat(carets),
            text::sanitize(&self.to_string())
        )
    }
}

/// The largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
