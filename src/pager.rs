//! The cursor walk: a pure state machine, no I/O.
//!
//! It holds the rows of one walk, the next cursor, whether more exist, the ids seen and the
//! cursors used; it hands out the next request and applies a page. Shared by `convo list` and
//! the TUI. Every rule under "Pagination safety" in decisions.md lives here:
//! - `has_more: true` with `next_cursor: null` ends the walk, with a warning;
//! - a `next_cursor` already used in this walk stops it, with a warning (no endless loop);
//! - an id already loaded in this walk is dropped and counted;
//! - one request in flight at a time (`next_request` hands out nothing while one is pending).
//!
//! Two more guards keep a lying server from holding the walk forever: a page larger than the
//! requested limit is kept but counted, and a run of pages that bring no new row stops the walk.

use std::collections::HashSet;
use std::ops::Range;

use uuid::Uuid;

use crate::api::{BadRow, Page, Row};

/// How many pages in a row may bring nothing new before the walk is stopped as stuck.
pub const MAX_FRUITLESS_PAGES: u32 = 10;

/// What the walk noticed about the server's answers. Shown to the user, never fatal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Warnings {
    /// Rows dropped because their id was already loaded in this walk.
    pub duplicates: usize,
    /// Rows that could not be parsed (reported, the rest of their page kept).
    pub bad_rows: usize,
    /// The server said `has_more: true` with no `next_cursor`: the list ended there.
    pub inconsistent_end: bool,
    /// The server handed out a cursor already used in this walk: the walk stopped.
    pub cursor_loop: bool,
    /// Pages that held more rows than the requested limit (rows kept).
    pub oversize_pages: usize,
    /// Too many pages in a row brought no new row: the walk stopped.
    pub stalled: bool,
}

impl Warnings {
    pub fn is_empty(&self) -> bool {
        *self == Warnings::default()
    }

    /// The walk ended before the list did because the service misbehaved (no cursor with
    /// `has_more`, a repeated cursor, no progress): the rows loaded are not the whole list.
    pub fn ended_early(&self) -> bool {
        self.inconsistent_end || self.cursor_loop || self.stalled
    }

    /// Short human phrases, e.g. for a footer or stderr.
    pub fn messages(&self) -> Vec<String> {
        let mut m = Vec::new();
        if self.duplicates > 0 {
            m.push(format!("{} duplicate rows dropped", self.duplicates));
        }
        if self.bad_rows > 0 {
            m.push(format!("{} unreadable rows skipped", self.bad_rows));
        }
        if self.inconsistent_end {
            m.push("server said more rows exist but gave no cursor: list ends here".into());
        }
        if self.cursor_loop {
            m.push("server repeated a cursor: walk stopped to avoid a loop".into());
        }
        if self.oversize_pages > 0 {
            m.push(format!(
                "{} pages larger than the requested limit",
                self.oversize_pages
            ));
        }
        if self.stalled {
            m.push(format!(
                "{MAX_FRUITLESS_PAGES} pages in a row brought no new rows: walk stopped"
            ));
        }
        m
    }
}

/// Where the walk stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Next {
    /// Nothing fetched yet: the next request is the first page.
    First,
    /// More exists after this cursor.
    After(String),
    /// The list is complete (or the walk stopped; see warnings).
    End,
}

/// The result of applying one page.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// Indices in [`Pager::rows`] of the rows this page added.
    pub added: Range<usize>,
    /// Rows of this page dropped as duplicates.
    pub duplicates: usize,
    /// Rows of this page that could not be parsed.
    pub bad_rows: Vec<BadRow>,
}

/// The result of merging a fresh first page into a loaded walk (periodic refresh).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    /// Ids of rows that were not loaded before; they were put at the top, in server order.
    pub new_ids: Vec<Uuid>,
    /// Ids of loaded rows whose content changed; they were updated in place.
    pub changed_ids: Vec<Uuid>,
}

/// One cursor walk over one list with fixed filters.
#[derive(Debug, Clone)]
pub struct Pager<T> {
    rows: Vec<T>,
    seen: HashSet<Uuid>,
    cursors_used: HashSet<String>,
    next: Next,
    in_flight: bool,
    limit: usize,
    pages: usize,
    fruitless: u32,
    /// Rows handed out by [`Pager::drain_rows`] (streaming use), still counted as loaded.
    drained: usize,
    warnings: Warnings,
}

impl<T: Row> Pager<T> {
    /// A new walk that asks for `limit` rows a page.
    pub fn new(limit: usize) -> Pager<T> {
        Pager {
            rows: Vec::new(),
            seen: HashSet::new(),
            cursors_used: HashSet::new(),
            next: Next::First,
            in_flight: false,
            limit,
            pages: 0,
            fruitless: 0,
            drained: 0,
            warnings: Warnings::default(),
        }
    }

    /// The cursor of the next request (`Some(None)` for the first page), and marks it in
    /// flight; `None` when the walk is complete or a request is already pending.
    pub fn next_request(&mut self) -> Option<Option<String>> {
        if self.in_flight {
            return None;
        }
        let cursor = match &self.next {
            Next::First => None,
            Next::After(c) => Some(c.clone()),
            Next::End => return None,
        };
        self.in_flight = true;
        Some(cursor)
    }

    /// Whether the page now in flight, answering with `has_more: true` and this cursor, would
    /// lead [`Pager::apply`] to ask for it next: a cursor not used before (nor the one in
    /// flight), and no stall within reach. For asking early, before the page is decoded
    /// (`list` and the TUI's walk); the pager still decides once the page is applied.
    pub fn would_follow(&self, cursor: &str) -> bool {
        self.in_flight
            && !cursor.is_empty()
            && self.fruitless + 1 < MAX_FRUITLESS_PAGES
            && !self.cursors_used.contains(cursor)
            && !matches!(&self.next, Next::After(c) if c == cursor)
    }

    /// The request in flight failed: the same cursor will be asked for again next time.
    pub fn failed(&mut self) {
        self.in_flight = false;
    }

    /// Applies the answer to the request in flight.
    pub fn apply(&mut self, page: Page<T>) -> Applied {
        self.in_flight = false;
        self.pages += 1;
        if page.items.len() + page.bad_rows.len() > self.limit {
            self.warnings.oversize_pages += 1;
        }
        let start = self.rows.len();
        let mut duplicates = 0;
        for row in page.items {
            if self.seen.insert(row.id()) {
                self.rows.push(row);
            } else {
                duplicates += 1;
            }
        }
        self.warnings.duplicates += duplicates;
        self.warnings.bad_rows += page.bad_rows.len();
        let added = start..self.rows.len();

        if let Next::After(used) = std::mem::replace(&mut self.next, Next::End) {
            self.cursors_used.insert(used);
        }
        self.fruitless = if added.is_empty() {
            self.fruitless + 1
        } else {
            0
        };
        self.next = match (page.has_more, page.next_cursor) {
            (false, _) => Next::End,
            (true, None) => {
                self.warnings.inconsistent_end = true;
                Next::End
            }
            (true, Some(c)) if c.is_empty() => {
                self.warnings.inconsistent_end = true;
                Next::End
            }
            (true, Some(c)) if self.cursors_used.contains(&c) => {
                self.warnings.cursor_loop = true;
                Next::End
            }
            (true, Some(_)) if self.fruitless >= MAX_FRUITLESS_PAGES => {
                self.warnings.stalled = true;
                Next::End
            }
            (true, Some(c)) => Next::After(c),
        };
        Applied {
            added,
            duplicates,
            bad_rows: page.bad_rows,
        }
    }

    /// Merges a fresh first page (a refresh) into the loaded rows without restarting the walk:
    /// unknown rows go to the top in server order, known rows are updated in place. The walk's
    /// cursor, warnings and in-flight state are untouched.
    pub fn merge_head(&mut self, fresh: Vec<T>) -> Merged
    where
        T: PartialEq,
    {
        let mut merged = Merged::default();
        let mut top = Vec::new();
        for row in fresh {
            let id = row.id();
            if self.seen.insert(id) {
                merged.new_ids.push(id);
                top.push(row);
            } else if let Some(slot) = self.rows.iter_mut().find(|r| r.id() == id)
                && *slot != row
            {
                *slot = row;
                merged.changed_ids.push(id);
            }
        }
        if !top.is_empty() {
            self.rows.splice(0..0, top);
        }
        merged
    }

    /// The rows loaded so far (minus any drained), in server order.
    pub fn rows(&self) -> &[T] {
        &self.rows
    }

    /// Hands out the stored rows for streaming (flat memory); ids stay remembered.
    pub fn drain_rows(&mut self) -> std::vec::Drain<'_, T> {
        self.drained += self.rows.len();
        self.rows.drain(..)
    }

    /// Rows loaded in this walk, including drained ones.
    pub fn loaded(&self) -> usize {
        self.drained + self.rows.len()
    }

    pub fn is_loading(&self) -> bool {
        self.in_flight
    }

    /// True once the first page has arrived and no further page exists (or the walk stopped).
    pub fn is_done(&self) -> bool {
        self.next == Next::End
    }

    /// True before the first page and while more pages exist.
    pub fn has_more(&self) -> bool {
        self.next != Next::End
    }

    /// Pages applied so far.
    pub fn pages(&self) -> usize {
        self.pages
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn warnings(&self) -> &Warnings {
        &self.warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct R(u128, u8);
    impl Row for R {
        fn id(&self) -> Uuid {
            Uuid::from_u128(self.0)
        }
    }

    fn page(ids: &[u128], has_more: bool, cursor: Option<&str>) -> Page<R> {
        Page {
            items: ids.iter().map(|&i| R(i, 0)).collect(),
            has_more,
            next_cursor: cursor.map(str::to_string),
            bad_rows: vec![],
        }
    }

    fn ids(p: &Pager<R>) -> Vec<u128> {
        p.rows().iter().map(|r| r.0).collect()
    }

    #[test]
    fn walks_pages_in_order_one_request_at_a_time() {
        let mut p = Pager::new(2);
        assert_eq!(p.next_request(), Some(None));
        assert_eq!(p.next_request(), None, "one request in flight");
        p.apply(page(&[1, 2], true, Some("a")));
        assert_eq!(p.next_request(), Some(Some("a".into())));
        p.apply(page(&[3], false, None));
        assert_eq!(p.next_request(), None);
        assert!(p.is_done());
        assert_eq!(ids(&p), vec![1, 2, 3]);
        assert!(p.warnings().is_empty());
    }

    #[test]
    fn failure_retries_same_cursor() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1, 2], true, Some("a")));
        assert_eq!(p.next_request(), Some(Some("a".into())));
        p.failed();
        assert_eq!(p.next_request(), Some(Some("a".into())));
    }

    #[test]
    fn has_more_without_cursor_ends_with_warning() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1, 2], true, None));
        assert!(p.is_done());
        assert!(p.warnings().inconsistent_end);
        assert_eq!(p.next_request(), None);
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1, 2], true, Some("")));
        assert!(p.warnings().inconsistent_end);
    }

    #[test]
    fn would_follow_is_what_apply_then_asks_for() {
        let mut p = Pager::new(2);
        assert!(!p.would_follow("a"), "nothing in flight");
        p.next_request();
        assert!(p.would_follow("a"));
        assert!(!p.would_follow(""));
        p.apply(page(&[1, 2], true, Some("a")));
        assert!(!p.would_follow("b"), "nothing in flight");
        assert_eq!(p.next_request(), Some(Some("a".into())));
        assert!(!p.would_follow("a"), "the cursor in flight");
        assert!(p.would_follow("b"));
        p.apply(page(&[3, 4], true, Some("b")));
        p.next_request();
        assert!(!p.would_follow("a"), "a cursor used before");
        // Fruitless pages: no guess when this page could stall the walk.
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1], true, Some("c0")));
        for i in 1..MAX_FRUITLESS_PAGES {
            p.next_request();
            assert!(p.would_follow(&format!("c{i}")), "{i}");
            p.apply(page(&[1], true, Some(&format!("c{i}"))));
        }
        p.next_request();
        assert!(!p.would_follow("next"));
        p.apply(page(&[1], true, Some("next")));
        assert!(p.warnings().stalled);
    }

    #[test]
    fn repeated_cursor_stops_the_walk() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1, 2], true, Some("a")));
        p.next_request();
        p.apply(page(&[3, 4], true, Some("a")));
        assert!(p.is_done());
        assert!(p.warnings().cursor_loop);
        assert_eq!(ids(&p), vec![1, 2, 3, 4]);
    }

    #[test]
    fn duplicates_dropped_and_counted() {
        let mut p = Pager::new(3);
        p.next_request();
        p.apply(page(&[1, 2, 3], true, Some("a")));
        p.next_request();
        let a = p.apply(page(&[2, 3, 4], false, None));
        assert_eq!(a.duplicates, 2);
        assert_eq!(a.added, 3..4);
        assert_eq!(ids(&p), vec![1, 2, 3, 4]);
        assert_eq!(p.warnings().duplicates, 2);
    }

    #[test]
    fn oversize_page_kept_and_counted() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1, 2, 3], false, None));
        assert_eq!(p.loaded(), 3);
        assert_eq!(p.warnings().oversize_pages, 1);
    }

    #[test]
    fn fresh_cursors_without_new_rows_stall_out() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1, 2], true, Some("c0")));
        let mut requests = 1;
        while let Some(_c) = p.next_request() {
            requests += 1;
            assert!(requests < 100, "walk never stopped");
            let c = format!("c{requests}");
            p.apply(page(&[1, 2], true, Some(&c)));
        }
        assert!(p.warnings().stalled);
        assert_eq!(requests as u32, MAX_FRUITLESS_PAGES + 1);
    }

    #[test]
    fn has_more_false_ends_even_with_cursor() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1], false, Some("x")));
        assert!(p.is_done());
    }

    #[test]
    fn drain_keeps_ids_for_dedup() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[1, 2], true, Some("a")));
        assert_eq!(p.drain_rows().count(), 2);
        p.next_request();
        p.apply(page(&[2, 3], false, None));
        assert_eq!(ids(&p), vec![3]);
        assert_eq!(p.loaded(), 3);
    }

    #[test]
    fn merge_head_puts_new_rows_on_top_and_updates_known() {
        let mut p = Pager::new(3);
        p.next_request();
        p.apply(page(&[5, 4, 3], true, Some("a")));
        let m = p.merge_head(vec![R(7, 0), R(6, 0), R(5, 1), R(4, 0)]);
        assert_eq!(m.new_ids, vec![Uuid::from_u128(7), Uuid::from_u128(6)]);
        assert_eq!(m.changed_ids, vec![Uuid::from_u128(5)]);
        assert_eq!(ids(&p), vec![7, 6, 5, 4, 3]);
        assert_eq!(p.rows()[2].1, 1);
        // the walk goes on from where it was
        assert_eq!(p.next_request(), Some(Some("a".into())));
    }
}
