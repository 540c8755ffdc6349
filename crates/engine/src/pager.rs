//! The cursor walk: a pure state machine, no I/O.
//!
//! It holds the rows of one walk, the next cursor, whether more exist, the ids seen and the
//! cursors used; it hands out the next request and applies a page. Shared by `convo list` and
//! the TUI. Every rule under "Pagination safety" in docs/design.md lives here:
//! - `has_more: true` with `next_cursor: null` ends the walk, with a warning;
//! - a `next_cursor` already used in this walk stops it, with a warning (no endless loop);
//! - an id already loaded in this walk is dropped and counted;
//! - one request in flight at a time (`next_request` hands out nothing while one is pending).
//!
//! Two more guards keep a lying server from holding the walk forever: a page larger than the
//! requested limit is kept but counted, and a run of pages that bring no new row stops the walk.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use uuid::Uuid;

use convo_api::{BadRow, Page, Row};

use crate::cursor::{Cursors, Follow};

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

/// The result of merging a re-read of the top of the list into a loaded walk (a refresh).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    /// Ids of rows that were not loaded before and come before rows that were (new since),
    /// in server order.
    pub new_ids: Vec<Uuid>,
    /// Ids of loaded rows whose content changed; they were updated in place.
    pub changed_ids: Vec<Uuid>,
    /// Ids of loaded rows the re-read no longer has: they left the table.
    pub left_ids: Vec<Uuid>,
    /// Rows at the top of the table that the re-read covered (live); rows after them were
    /// loaded earlier and kept as they were (the re-read's page budget ended first).
    pub live: usize,
    /// The re-read stopped at its page budget with more loaded rows after it (from the
    /// end: with loaded rows before the ones it covered).
    pub cut: bool,
    /// The re-read covered the end of the list, not its top ([`Pager::reconcile_tail`]):
    /// `live` rows from `live_from` on.
    pub from_end: bool,
    /// Where the rows the re-read covered begin (0 unless `from_end`).
    pub live_from: usize,
}

/// Where a page of a walk began: the cursor it was asked for with (`None`: the first page)
/// and the id of its first row (`None`: it added none). A re-read of the end of a list starts
/// from such a cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageStart {
    pub cursor: Option<String>,
    pub first: Option<Uuid>,
}

/// How a re-read ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ReadEnd {
    /// Still reading: the next page is after this cursor.
    Reading(String),
    /// The list ended within the re-read (`has_more: false`, or no cursor to go on with).
    Complete,
    /// The page budget ended it; more rows exist after this cursor (`None`: the server
    /// repeated a cursor, so there is none to go on with).
    Cut(Option<String>),
}

/// A re-read of a list from the top, page after page up to a budget (a refresh): collected
/// here, then merged into the walk at once by [`Pager::reconcile`].
#[derive(Debug, Clone)]
pub struct Reread<T> {
    rows: Vec<T>,
    ids: HashSet<Uuid>,
    cursors: HashSet<String>,
    pages: usize,
    budget: usize,
    end: ReadEnd,
    starts: Vec<PageStart>,
}

impl<T: Row> Reread<T> {
    /// A re-read of at most `budget` pages (at least one).
    pub fn new(budget: usize) -> Reread<T> {
        Reread::from_cursor(budget, None)
    }

    /// A re-read of at most `budget` pages from `cursor` (a page start of the walk; `None`:
    /// the top).
    pub fn from_cursor(budget: usize, cursor: Option<String>) -> Reread<T> {
        let mut cursors = HashSet::new();
        cursors.extend(cursor.clone());
        Reread {
            rows: Vec::new(),
            ids: HashSet::new(),
            cursors,
            pages: 0,
            budget: budget.max(1),
            end: ReadEnd::Reading(cursor.unwrap_or_default()),
            starts: Vec::new(),
        }
    }

    /// Takes one page; the cursor of the next page to ask for while the re-read goes on.
    /// Duplicate ids are dropped; a repeated cursor ends it (no loop).
    pub fn apply(&mut self, page: Page<T>) -> Option<String> {
        self.pages += 1;
        let cursor = match &self.end {
            ReadEnd::Reading(c) if !c.is_empty() => Some(c.clone()),
            _ => None,
        };
        let start = self.rows.len();
        for row in page.items {
            if self.ids.insert(row.id()) {
                self.rows.push(row);
            }
        }
        self.starts.push(PageStart {
            cursor,
            first: self.rows.get(start).map(Row::id),
        });
        self.end = match (page.has_more, page.next_cursor) {
            (true, Some(c)) if !c.is_empty() => {
                if !self.cursors.insert(c.clone()) {
                    ReadEnd::Cut(None)
                } else if self.pages >= self.budget {
                    ReadEnd::Cut(Some(c))
                } else {
                    ReadEnd::Reading(c)
                }
            }
            // `has_more: false`, or `true` with no cursor: docs/design.md "Pagination safety" ends the list there.
            _ => ReadEnd::Complete,
        };
        match &self.end {
            ReadEnd::Reading(c) => Some(c.clone()),
            _ => None,
        }
    }

    /// Pages read so far.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// The rows read so far, in server order.
    pub fn rows(&self) -> &[T] {
        &self.rows
    }
}

/// A refresh of a walk, planned by [`Pager::plan_refresh`]: its re-read, how many loaded rows
/// it stands for, and where it starts. Merged into the walk by [`Pager::finish_refresh`].
#[derive(Debug, Clone)]
pub struct Refresh<T> {
    /// Its pages so far.
    pub read: Reread<T>,
    /// Loaded rows it stands for (from the top; from the end: where they begin).
    pub window: usize,
    /// A re-read of the end of the list from the start of this page of the walk (`None`: of
    /// its top).
    pub from_page: Option<usize>,
    /// The cursor of its first request (`None`: the first page).
    pub cursor: Option<String>,
}

/// Where a reader of the walk is, for [`Pager::wants_page`]: the selected row, the first row on
/// screen and how many rows the screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    pub selected: usize,
    pub offset: usize,
    pub body: usize,
    /// The whole list is wanted (`L`), or a row is looked for further down: every page.
    pub eager: bool,
}

impl Reading {
    /// Whether this reader wants more rows of a walk that has `loaded` rows, `page` a page:
    /// within a page of the end, a screen that shows past it, or `eager`. (The look-ahead
    /// rule, for one stream and for a union.)
    pub fn wants(&self, loaded: usize, page: usize) -> bool {
        self.eager || loaded <= self.selected + page || self.offset + self.body > loaded
    }
}

/// One cursor walk over one list with fixed filters.
#[derive(Debug, Clone)]
pub(crate) struct Pager<T> {
    rows: Vec<T>,
    seen: HashSet<Uuid>,
    cursors: Cursors,
    in_flight: bool,
    limit: usize,
    pages: usize,
    fruitless: u32,
    /// Rows handed out by [`Pager::drain_rows`] (streaming use), still counted as loaded.
    drained: usize,
    warnings: Warnings,
    /// The rows that left at the last refresh (until the next one).
    gone: Vec<Gone<T>>,
    /// Where each page began, in order (for a re-read of the end of the list).
    starts: Vec<PageStart>,
}

/// A row that left the list at the last refresh, and where it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Gone<T> {
    /// The id of the row it came after (one that stayed), `None` at the top.
    pub after: Option<Uuid>,
    pub row: T,
}

impl<T: Row> Pager<T> {
    /// A new walk that asks for `limit` rows a page.
    pub fn new(limit: usize) -> Pager<T> {
        Pager {
            rows: Vec::new(),
            seen: HashSet::new(),
            cursors: Cursors::new(),
            in_flight: false,
            limit,
            pages: 0,
            fruitless: 0,
            drained: 0,
            warnings: Warnings::default(),
            gone: Vec::new(),
            starts: Vec::new(),
        }
    }

    /// The cursor of the next request (`Some(None)` for the first page), and marks it in
    /// flight; `None` when the walk is complete or a request is already pending.
    pub fn next_request(&mut self) -> Option<Option<String>> {
        if self.in_flight {
            return None;
        }
        let cursor = self.cursors.next()?.map(str::to_string);
        self.in_flight = true;
        Some(cursor)
    }

    /// The cursor of the request in flight (`Some(None)`: the first page), if one is.
    pub fn in_flight(&self) -> Option<Option<&str>> {
        if !self.in_flight {
            return None;
        }
        self.cursors.next()
    }

    /// Whether the page now in flight, answering with `has_more: true` and this cursor, would
    /// lead [`Pager::apply`] to ask for it next: a cursor not used before (nor the one in
    /// flight), and no stall within reach. For asking early, before the page is decoded
    /// (`list` and the TUI's walk); the pager still decides once the page is applied.
    pub fn would_follow(&self, cursor: &str) -> bool {
        self.in_flight
            && !cursor.is_empty()
            && self.fruitless + 1 < MAX_FRUITLESS_PAGES
            && self.cursors.would_follow(cursor)
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
        self.starts.push(PageStart {
            cursor: self.cursors.after().map(str::to_string),
            first: self.rows.get(start).map(Row::id),
        });

        self.fruitless = if added.is_empty() {
            self.fruitless + 1
        } else {
            0
        };
        match self.cursors.follow(page.has_more, page.next_cursor) {
            Follow::End => {}
            Follow::NoCursor => self.warnings.inconsistent_end = true,
            Follow::Loop => self.warnings.cursor_loop = true,
            Follow::Next(_) if self.fruitless >= MAX_FRUITLESS_PAGES => {
                self.warnings.stalled = true;
                self.cursors.stop();
            }
            Follow::Next(_) => {}
        }
        Applied {
            added,
            duplicates,
            bad_rows: page.bad_rows,
        }
    }

    /// Merges a finished re-read of the top of the list (a refresh) into the walk.
    ///
    /// The re-read stands for the first `window` loaded rows (all of them when it reached the
    /// end of the list): those rows become the re-read's, in server order. Rows of the window
    /// it no longer has left the table (`left_ids`); rows it has that were not loaded are new;
    /// rows it has that changed are updated. Rows after the window (the re-read's page budget
    /// ended before them) stay as loaded. When the re-read covered every loaded row and no
    /// page is in flight, the walk goes on from the re-read's cursor (a server's cursor may
    /// be an offset, so the old one could skip rows). Costs O(window + re-read), not
    /// O(loaded): with a million rows loaded, a one-page refresh touches one page.
    pub fn reconcile(&mut self, fresh: Reread<T>, window: usize) -> Merged
    where
        T: PartialEq,
    {
        let complete = fresh.end == ReadEnd::Complete;
        let window = if complete {
            self.rows.len()
        } else {
            window.min(self.rows.len())
        };
        let index: HashMap<Uuid, usize> = self.rows[..window]
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id(), i))
            .collect();
        let mut merged = Merged::default();
        // Rows of the re-read that were loaded after the window moved up into it: out of the
        // kept rows (rare: a scan of those rows only then).
        let moved_up: HashSet<Uuid> = fresh
            .rows
            .iter()
            .map(Row::id)
            .filter(|id| !index.contains_key(id) && self.seen.contains(id))
            .collect();
        if !moved_up.is_empty() {
            let mut tail = self.rows.split_off(window);
            tail.retain(|r| !moved_up.contains(&r.id()));
            self.rows.append(&mut tail);
        }
        // A row not loaded before is new only when a row that was loaded comes after it;
        // past the last of those it is only further down the list than the walk had got.
        let frontier = fresh
            .rows
            .iter()
            .rposition(|r| index.contains_key(&r.id()) || moved_up.contains(&r.id()))
            .map_or(0, |p| p + 1);
        // Rows past that point were never loaded: left for the walk to load (the table does
        // not grow by a page at every refresh), which then goes on from its own cursor.
        let mut fresh = fresh;
        let beyond = if complete {
            0
        } else {
            fresh.rows.len() - frontier
        };
        for r in fresh.rows.drain(fresh.rows.len() - beyond..) {
            fresh.ids.remove(&r.id());
        }
        for (p, row) in fresh.rows.iter().enumerate() {
            let id = row.id();
            match index.get(&id) {
                Some(&i) if self.rows[i] != *row => merged.changed_ids.push(id),
                Some(_) => {}
                None if moved_up.contains(&id) => {}
                None if p < frontier => merged.new_ids.push(id),
                None => {}
            }
        }
        // Where each row that left was: after the last row before it that stays.
        // (Indices, in order: the rows are matched to them as they come out, without hashing.)
        let mut left_at: Vec<(usize, Option<Uuid>)> = Vec::new();
        let mut kept: Option<Uuid> = None;
        for (i, r) in self.rows[..window].iter().enumerate() {
            let id = r.id();
            if fresh.ids.contains(&id) {
                kept = Some(id);
            } else {
                merged.left_ids.push(id);
                left_at.push((i, kept));
                self.seen.remove(&id);
            }
        }
        let tail_empty = window == self.rows.len();
        merged.live = fresh.rows.len();
        merged.cut = !tail_empty;
        // Page starts: the re-read's, then the walk's after the window.
        let mut starts = std::mem::take(&mut fresh.starts);
        if !complete {
            starts.extend(
                self.starts
                    .drain(..)
                    .filter(|s| s.first.is_some_and(|id| !index.contains_key(&id))),
            );
        }
        self.starts = starts;
        self.seen.extend(fresh.ids.iter().copied());
        self.gone.clear();
        let mut left = left_at.into_iter().peekable();
        for (i, row) in self.rows.splice(..window, fresh.rows).enumerate() {
            if let Some((_, after)) = left.next_if(|(at, _)| *at == i) {
                self.gone.push(Gone { after, row });
            }
        }
        if complete {
            self.cursors.stop();
        } else if tail_empty && !self.in_flight && beyond == 0 {
            let next = match fresh.end {
                ReadEnd::Cut(Some(c)) | ReadEnd::Reading(c) if !c.is_empty() => Some(c),
                _ => {
                    self.warnings.cursor_loop = true;
                    None
                }
            };
            self.cursors = Cursors::from_parts(next, fresh.cursors);
            self.fruitless = 0;
        }
        merged
    }

    /// Merges a finished re-read of the end of the list (a refresh of a view that shows the
    /// list's last rows first, oldest first): it began at the start of page `page` of the
    /// walk ([`Pager::starts`]) and stands for the rows from `window` on; the rows before
    /// (that page included, read again only so that a row shifted across its edge is not
    /// taken for gone) stay as loaded. Rows from `window` on become the re-read's: rows it no
    /// longer has left, rows it has that were not loaded are new, changed ones are updated.
    /// When the page budget ended it before the end of the list, loaded rows past the last one
    /// it met stay as loaded.
    pub fn reconcile_tail(&mut self, fresh: Reread<T>, page: usize, window: usize) -> Merged
    where
        T: PartialEq,
    {
        let complete = fresh.end == ReadEnd::Complete;
        let window = window.min(self.rows.len());
        let tail: HashMap<Uuid, usize> = self.rows[window..]
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id(), i))
            .collect();
        let mut merged = Merged {
            from_end: true,
            live_from: window,
            ..Merged::default()
        };
        // The re-read's rows that are not loaded above the window, in server order.
        let mut fresh = fresh;
        let mut rows: Vec<T> = fresh
            .rows
            .drain(..)
            .filter(|r| tail.contains_key(&r.id()) || !self.seen.contains(&r.id()))
            .collect();
        if !complete {
            // Past the last loaded row it met, the walk had not got there: not new.
            let frontier = rows
                .iter()
                .rposition(|r| tail.contains_key(&r.id()))
                .map_or(0, |p| p + 1);
            rows.truncate(frontier);
        }
        let covered = if complete {
            tail.len()
        } else {
            rows.iter()
                .filter_map(|r| tail.get(&r.id()))
                .max()
                .map_or(0, |j| j + 1)
        };
        let ids: HashSet<Uuid> = rows.iter().map(Row::id).collect();
        for row in &rows {
            let id = row.id();
            match tail.get(&id) {
                Some(&i) if self.rows[window + i] != *row => merged.changed_ids.push(id),
                Some(_) => {}
                None => merged.new_ids.push(id),
            }
        }
        let mut kept = window.checked_sub(1).map(|i| self.rows[i].id());
        let mut gone = Vec::new();
        let old: Vec<T> = self.rows.drain(window..).collect();
        let mut rest = Vec::new();
        for (i, r) in old.into_iter().enumerate() {
            let id = r.id();
            if i >= covered {
                rest.push(r);
            } else if ids.contains(&id) {
                kept = Some(id);
            } else {
                merged.left_ids.push(id);
                self.seen.remove(&id);
                gone.push(Gone {
                    after: kept,
                    row: r,
                });
            }
        }
        self.seen.extend(ids);
        merged.live = rows.len();
        merged.cut = window > 0 || !rest.is_empty();
        self.rows.extend(rows);
        self.rows.extend(rest);
        self.gone = gone;
        self.starts.truncate(page);
        self.starts.append(&mut fresh.starts);
        if complete {
            self.cursors.stop();
        }
        merged
    }

    /// Where each page of the walk began, in order (re-reads included).
    pub fn starts(&self) -> &[PageStart] {
        &self.starts
    }

    /// The rows that left at the last refresh, in the order they were loaded, and where
    /// each was; one that has come back since is left out.
    pub fn gone(&self) -> impl Iterator<Item = &Gone<T>> {
        self.gone
            .iter()
            .filter(|g| !self.seen.contains(&g.row.id()))
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
        self.cursors.is_end()
    }

    /// True before the first page and while more pages exist.
    pub fn has_more(&self) -> bool {
        !self.cursors.is_end()
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

    /// Whether a reader at `at` wants the next page now: within a page of the end of what is
    /// loaded, a screen that shows past the end, or `eager`. Never while a request is in
    /// flight or after the end. (The look-ahead of the browser's tabs.)
    pub fn wants_page(&self, at: Reading) -> bool {
        if self.in_flight || !self.has_more() {
            return false;
        }
        at.wants(self.rows.len(), self.limit)
    }

    /// A refresh of this walk, `limit` rows a request, at most `max_pages` pages: `None` before
    /// its first page.
    ///
    /// It re-reads from the top as many pages as are loaded and one more (a row that new rows
    /// pushed down past the loaded ones is still read: kept, not taken for gone; only a row
    /// missing from a read that went past it has left), at most `max_pages`; the rows after
    /// those stay as loaded. With `from_end` (a view that shows the list's last rows first)
    /// and more pages than that, it re-reads the end of the complete walk instead: from the
    /// start of its `max_pages`-th page from the end (cursors as the walk met them), standing
    /// for the pages after that one; the rows before stay as loaded.
    pub fn plan_refresh(
        &self,
        limit: usize,
        max_pages: usize,
        from_end: bool,
    ) -> Option<Refresh<T>> {
        if self.pages == 0 {
            return None;
        }
        let limit = limit.max(1);
        let loaded = self.rows.len();
        let pages = loaded.div_ceil(limit).max(1);
        let budget = (pages + 1).min(max_pages.max(1));
        if from_end
            && pages >= budget
            && let Some(r) = self.plan_tail(budget)
        {
            return Some(r);
        }
        let window = if pages < budget {
            loaded
        } else {
            loaded.min(budget.saturating_sub(1).max(1) * limit)
        };
        Some(Refresh {
            read: Reread::new(budget),
            window,
            from_page: None,
            cursor: None,
        })
    }

    /// A re-read of the last `budget` pages of a complete walk: from the start of the first
    /// of them (read again so that a row shifted across its edge is not taken for gone),
    /// standing for the rows of the others. `None` when the walk is not complete or its page
    /// starts do not allow it (fewer than two pages in the budget, rows gone).
    fn plan_tail(&self, budget: usize) -> Option<Refresh<T>> {
        let n = self.starts.len();
        if !self.is_done() || budget < 2 || n < budget {
            return None;
        }
        let page = n - budget;
        let cursor = self.starts[page].cursor.clone()?;
        let window = self.starts[page + 1..].iter().find_map(|s| {
            s.first
                .and_then(|id| self.rows.iter().rposition(|r| r.id() == id))
        })?;
        Some(Refresh {
            read: Reread::from_cursor(budget, Some(cursor.clone())),
            window,
            from_page: Some(page),
            cursor: Some(cursor),
        })
    }

    /// Merges a finished refresh into the walk ([`Pager::reconcile`] or, from the end,
    /// [`Pager::reconcile_tail`]).
    pub fn finish_refresh(&mut self, r: Refresh<T>) -> Merged
    where
        T: Clone + PartialEq,
    {
        match r.from_page {
            Some(page) => self.reconcile_tail(r.read, page, r.window),
            None => self.reconcile(r.read, r.window),
        }
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

    /// A walk of `pages` pages of 2 rows (ids from 1), cursors "c1", "c2", …; `done`: the last
    /// page ends the list.
    fn walked(pages: u128, done: bool) -> Pager<R> {
        let mut p = Pager::new(2);
        for i in 0..pages {
            p.next_request();
            let last = i + 1 == pages && done;
            let c = format!("c{}", i + 1);
            p.apply(page(
                &[2 * i + 1, 2 * i + 2],
                !last,
                (!last).then_some(c.as_str()),
            ));
        }
        p
    }

    #[test]
    fn a_refresh_reads_one_page_more_than_is_loaded_within_its_budget() {
        assert!(
            Pager::<R>::new(2).plan_refresh(2, 10, false).is_none(),
            "nothing read yet"
        );
        let p = walked(3, false);
        let r = p.plan_refresh(2, 10, false).unwrap();
        assert_eq!(
            (r.read.budget, r.window, r.from_page, r.cursor),
            (4, 6, None, None)
        );
        // A budget of 2 pages stands for the first page's rows only: the second is read to
        // meet a row pushed down, never to call one gone.
        let r = p.plan_refresh(2, 2, false).unwrap();
        assert_eq!((r.read.budget, r.window), (2, 2));
    }

    #[test]
    fn a_refresh_from_the_end_starts_at_a_page_the_walk_met() {
        let p = walked(5, true);
        let r = p.plan_refresh(2, 3, true).unwrap();
        // Pages 3, 4 and 5 read again from page 3's cursor, standing for the rows of 4 and 5.
        assert_eq!(r.from_page, Some(2));
        assert_eq!(r.cursor.as_deref(), Some("c2"));
        assert_eq!(r.window, 6);
        // An incomplete walk has no end to start from: from the top.
        let r = walked(5, false).plan_refresh(2, 3, true).unwrap();
        assert_eq!((r.from_page, r.cursor), (None, None));
    }

    #[test]
    fn the_look_ahead_wants_a_page_near_the_end_or_past_the_screen() {
        let p = walked(2, false);
        let at = |selected, offset, body, eager| Reading {
            selected,
            offset,
            body,
            eager,
        };
        assert!(
            !p.wants_page(at(0, 0, 2, false)),
            "4 loaded, row 1 of a 2-row screen"
        );
        assert!(p.wants_page(at(2, 0, 2, false)), "within a page of the end");
        assert!(
            p.wants_page(at(0, 0, 5, false)),
            "the screen shows past the end"
        );
        assert!(p.wants_page(at(0, 0, 2, true)), "L");
        let mut p = p;
        p.next_request();
        assert!(!p.wants_page(at(0, 0, 2, true)), "one request in flight");
        assert!(
            !walked(2, true).wants_page(at(3, 0, 9, true)),
            "the list ended"
        );
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

    /// A re-read of `pages` (ids per page), the last one ending with `end` (`None`: the list
    /// ends there).
    fn reread(budget: usize, pages: &[&[u128]], end: Option<&str>) -> Reread<R> {
        let mut r = Reread::new(budget);
        for (n, ids) in pages.iter().enumerate() {
            let last = n + 1 == pages.len();
            let cursor = if last {
                end.map(str::to_string)
            } else {
                Some(format!("r{n}"))
            };
            let mut p = page(ids, cursor.is_some(), cursor.as_deref());
            for r in p.items.iter_mut().filter(|r| r.0 == 5) {
                r.1 = 1; // row 5 changed
            }
            let next = r.apply(p);
            assert_eq!(next.is_some(), !last && n + 1 < budget, "page {n}");
        }
        r
    }

    fn u(ids: &[u128]) -> Vec<Uuid> {
        ids.iter().map(|&i| Uuid::from_u128(i)).collect()
    }

    #[test]
    fn a_refresh_adds_updates_and_removes_and_goes_on_from_its_cursor() {
        let mut p = Pager::new(3);
        p.next_request();
        p.apply(page(&[5, 4, 3], true, Some("a")));
        // 4 left (assigned elsewhere), 7 is new, 5 changed; the list goes on after "b".
        let m = p.reconcile(reread(1, &[&[7, 5, 3]], Some("b")), 3);
        assert_eq!(m.new_ids, u(&[7]));
        assert_eq!(m.changed_ids, u(&[5]));
        assert_eq!(m.left_ids, u(&[4]));
        assert!(!m.cut);
        assert_eq!(ids(&p), vec![7, 5, 3]);
        assert_eq!(p.rows()[1].1, 1);
        // 4 is remembered after the row it followed, until it comes back
        let gone: Vec<_> = p.gone().map(|g| (g.after, g.row.0)).collect();
        assert_eq!(gone, vec![(Some(Uuid::from_u128(5)), 4)]);
        // the walk goes on from the re-read's cursor; a row that left may come back later
        assert_eq!(p.next_request(), Some(Some("b".into())));
        p.apply(page(&[4, 2], false, None));
        assert_eq!(ids(&p), vec![7, 5, 3, 4, 2]);
        assert_eq!(p.warnings().duplicates, 0);
        assert_eq!(p.gone().count(), 0, "4 is back: not shown as gone");
    }

    #[test]
    fn rows_that_left_are_remembered_where_they_were_for_one_refresh() {
        let mut p = Pager::new(3);
        p.next_request();
        p.apply(page(&[3, 2, 1], false, None));
        // 3 (the top) and 1 left
        p.reconcile(reread(1, &[&[2]], None), 3);
        let gone: Vec<_> = p.gone().map(|g| (g.after, g.row.0)).collect();
        assert_eq!(gone, vec![(None, 3), (Some(Uuid::from_u128(2)), 1)]);
        // the next refresh, with nothing leaving, forgets them
        p.reconcile(reread(1, &[&[2]], None), 1);
        assert_eq!(p.gone().count(), 0);
    }

    #[test]
    fn a_refresh_that_reaches_the_end_keeps_only_its_rows() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[6, 5], true, Some("a")));
        p.next_request();
        p.apply(page(&[4, 3], true, Some("b")));
        let m = p.reconcile(reread(5, &[&[6, 4], &[3]], None), 4);
        assert_eq!(m.left_ids, u(&[5]));
        assert_eq!(ids(&p), vec![6, 4, 3]);
        assert!(p.is_done());
        assert_eq!(p.next_request(), None);
    }

    #[test]
    fn past_the_budget_rows_stay_as_loaded_and_the_walk_keeps_its_cursor() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[9, 8], true, Some("a")));
        p.next_request();
        p.apply(page(&[7, 6], true, Some("b")));
        p.next_request();
        p.apply(page(&[5, 4], true, Some("c")));
        // one page re-read (the budget): 8 left, 10 came; 7 moved up from the kept rows
        let m = p.reconcile(reread(1, &[&[10, 9, 7]], Some("x")), 2);
        assert!(m.cut);
        assert_eq!(m.live, 3);
        assert_eq!(m.new_ids, u(&[10]));
        assert_eq!(m.left_ids, u(&[8]));
        assert_eq!(ids(&p), vec![10, 9, 7, 6, 5, 4]);
        assert_eq!(p.next_request(), Some(Some("c".into())));
        p.apply(page(&[8, 3], false, None));
        assert_eq!(ids(&p), vec![10, 9, 7, 6, 5, 4, 8, 3], "8 is loaded again");
    }

    #[test]
    fn a_page_in_flight_keeps_the_walks_cursor() {
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[4, 3], true, Some("a")));
        assert_eq!(p.next_request(), Some(Some("a".into())));
        p.reconcile(reread(1, &[&[5, 4]], Some("z")), 2);
        assert_eq!(ids(&p), vec![5, 4]);
        p.apply(page(&[3, 2], false, None));
        assert_eq!(ids(&p), vec![5, 4, 3, 2]);
        assert!(p.is_done());
    }

    #[test]
    fn a_reread_of_the_end_merges_into_the_last_rows_and_keeps_the_others() {
        let mut p = Pager::new(2);
        for (ids, more, cursor) in [
            (&[9u128, 8][..], true, Some("a")),
            (&[7, 6], true, Some("b")),
            (&[5, 4], true, Some("c")),
            (&[3, 2], false, None),
        ] {
            p.next_request();
            p.apply(page(ids, more, cursor));
        }
        let starts: Vec<_> = p.starts().iter().map(|s| s.cursor.clone()).collect();
        assert_eq!(
            starts,
            [None, Some("a".into()), Some("b".into()), Some("c".into())]
        );
        // From the start of page 2 ("b"), standing for the rows from 3 on: 8 left above (so
        // an offset cursor reads one row later), 2 left, 3 changed, 1 came (reopened).
        let mut r: Reread<R> = Reread::from_cursor(2, Some("b".into()));
        assert_eq!(
            r.apply(Page {
                items: vec![R(4, 0), R(3, 1)],
                has_more: true,
                next_cursor: Some("c2".into()),
                bad_rows: vec![],
            }),
            Some("c2".into())
        );
        assert_eq!(r.apply(page(&[1], false, None)), None);
        let m = p.reconcile_tail(r, 2, 6);
        assert_eq!(ids(&p), vec![9, 8, 7, 6, 5, 4, 3, 1]);
        assert_eq!(p.rows()[6].1, 1, "3 updated");
        assert_eq!(
            (m.new_ids, m.changed_ids, m.left_ids),
            (u(&[1]), u(&[3]), u(&[2]))
        );
        assert_eq!((m.from_end, m.live_from, m.live, m.cut), (true, 6, 2, true));
        let gone: Vec<_> = p.gone().map(|g| (g.after, g.row.0)).collect();
        assert_eq!(gone, vec![(Some(Uuid::from_u128(3)), 2)]);
        let starts: Vec<_> = p.starts().iter().map(|s| s.cursor.clone()).collect();
        assert_eq!(
            starts,
            [None, Some("a".into()), Some("b".into()), Some("c2".into())]
        );
        assert!(p.is_done());
        // Cut by its budget before the end: loaded rows past the last one it met stay.
        let mut r: Reread<R> = Reread::from_cursor(1, Some("b".into()));
        assert_eq!(r.apply(page(&[5, 4, 3], true, Some("z"))), None);
        let m = p.reconcile_tail(r, 2, 6);
        assert_eq!(ids(&p), vec![9, 8, 7, 6, 5, 4, 3, 1]);
        assert_eq!((m.live, m.left_ids.len()), (1, 0));
    }

    #[test]
    fn a_reread_drops_duplicates_and_stops_on_a_repeated_cursor() {
        let mut r: Reread<R> = Reread::new(10);
        assert_eq!(r.apply(page(&[3, 2], true, Some("a"))), Some("a".into()));
        assert_eq!(r.apply(page(&[2, 1], true, Some("a"))), None, "a loop");
        assert_eq!(r.rows().len(), 3);
        assert_eq!(r.pages(), 2);
        let mut p = Pager::new(2);
        p.next_request();
        p.apply(page(&[3, 2], true, Some("a")));
        p.reconcile(r, 2);
        // 1 was never loaded: left for the walk, which goes on from its own cursor
        assert_eq!(ids(&p), vec![3, 2]);
        assert_eq!(p.next_request(), Some(Some("a".into())));
    }
}
