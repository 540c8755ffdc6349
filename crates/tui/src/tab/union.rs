//! A tab whose query needs more than one request: each stream walked with its own cursors, the
//! rows merged ([`convo_query::query::merge`]), the plan's checks applied as they arrive, and the
//! merged rows that pass handed to the tab's walk as if they were its pages (so selection,
//! marks, search, sort and exports of loaded rows work as on any tab).
//!
//! A stream is asked for a page only when the merge needs its next row to fill the table's
//! wish (the screen, plus the one-page-ahead prefetch); every fetch carries the tab, the walk's
//! generation and the stream's number, so answers of an older walk are dropped. A query few
//! rows pass does not read without end: after `scan_max_pages` stream pages the walk waits
//! (the footer says "scanned 4,000 · 12 match"), and `L` or `G` go on.

use jiff::Timestamp;

use super::{TabFilter, TabState};
use crate::command::Command;
use crate::marks::Watched;
use convo_api::{ApiError, Limit, ListFilter, Page, Row};
use convo_engine::merge::Timed;
pub use convo_engine::scan::Verdict;
use convo_engine::scan::{Next, RefreshNext, Scan};
use convo_query::query::Term;

/// The union a tab walks (see the module): the engine's scan of its streams, and the plan's
/// checks it is read through.
#[derive(Debug, Clone)]
pub struct UnionWalk<T, F> {
    /// The streams, their merge, the scan's counts, budget and refresh: the engine's, which
    /// this drives with commands.
    scan: Scan<T, F>,
    /// The plan's checks, done in convo (resolved terms).
    pub checks: Vec<Term>,
    /// The checks as written, for the status line.
    pub checks_shown: Vec<String>,
    /// The clock relative checks (`age:`, `idle:`) are measured from: the walk's start.
    pub now: Timestamp,
    /// The clock of the refresh under way (the walk's once it goes on from the refresh).
    refresh_now: Timestamp,
    limit: Limit,
}

impl<T: Row, F> UnionWalk<T, F> {
    /// A walk of these streams (from the plan) with these checks, pages of `limit`.
    pub fn new(
        streams: Vec<F>,
        checks: Vec<Term>,
        checks_shown: Vec<String>,
        limit: Limit,
        now: Timestamp,
    ) -> UnionWalk<T, F> {
        UnionWalk {
            scan: Scan::new(streams, limit.get()),
            checks,
            checks_shown,
            now,
            refresh_now: now,
            limit,
        }
    }

    /// The same streams and checks, walked again from the top (a reload, a refresh).
    pub fn fresh(&self, now: Timestamp) -> UnionWalk<T, F>
    where
        F: Clone,
    {
        UnionWalk {
            scan: self.scan.fresh(),
            checks: self.checks.clone(),
            checks_shown: self.checks_shown.clone(),
            now,
            refresh_now: now,
            limit: self.limit,
        }
    }

    /// Whether a refresh (its streams read again from the top) is under way.
    pub fn refreshing(&self) -> bool {
        self.scan.refreshing()
    }

    /// Gives up the refresh under way.
    pub fn drop_refresh(&mut self) {
        self.scan.drop_refresh();
    }

    /// Whether a stream's request is in flight.
    pub fn loading(&self) -> bool {
        self.scan.loading()
    }

    /// Stream pages read, over every stream.
    pub fn pages(&self) -> usize {
        self.scan.pages()
    }

    /// How many streams.
    pub fn streams(&self) -> usize {
        self.scan.streams()
    }

    /// Stream `i`'s filter.
    pub fn filter(&self, i: usize) -> Option<&F> {
        self.scan.filter(i)
    }

    /// Rows the merge gave (each id once).
    pub fn scanned(&self) -> usize {
        self.scan.scanned()
    }

    /// Rows that passed the checks.
    pub fn matched(&self) -> usize {
        self.scan.matched()
    }

    /// The scan stopped (its page budget, or Esc) until `L` or `G`.
    pub fn paused(&self) -> bool {
        self.scan.paused()
    }

    /// The streams that failed: (number from 0, why).
    pub fn failures(&self) -> Vec<(usize, &str)> {
        self.scan.failures()
    }

    /// The requests `asks` ((stream, cursor)) as the fetches to send.
    fn fetches(
        &self,
        asks: Vec<(usize, Option<String>)>,
        tab: convo_api::Resource,
        generation: u64,
        head: bool,
    ) -> Vec<Command>
    where
        F: TabFilter,
    {
        asks.into_iter()
            .filter_map(|(i, cursor)| {
                let query = self.scan.filter(i)?.request();
                Some(Command::FetchPart {
                    tab,
                    generation,
                    stream: i,
                    head,
                    cursor,
                    query,
                    limit: self.limit,
                })
            })
            .collect()
    }
}

/// A stream's request line (`GET /v1/conversations?status=open`), for messages.
pub fn stream_line<F: ListFilter>(f: &F) -> String {
    convo_query::query::plan::request_line(f)
}

impl<T: Row + Clone + PartialEq + Timed, F: TabFilter> TabState<T, F> {
    /// The union's checks and the clock their relative terms (`age:`, `idle:`) are measured
    /// from (a walk that has not read yet takes `now`); `None` when the tab walks one
    /// request's filters.
    pub fn union_checks(&mut self, now: Timestamp) -> Option<(Vec<Term>, Timestamp)> {
        let u = self.union.as_mut()?;
        if u.scan.pages() == 0 && !u.scan.loading() {
            u.now = now;
            u.refresh_now = now;
        }
        Some((u.checks.clone(), u.now))
    }

    /// What the union's merge noticed since asked last (the order given up), taken.
    pub fn take_union_notices(&mut self) -> Vec<String> {
        self.union
            .as_mut()
            .map(|u| u.scan.take_notices())
            .unwrap_or_default()
    }

    /// `L`, `G`: a union's scan goes on past its page budget.
    pub fn go_on_scan(&mut self) {
        if let Some(u) = self.union.as_mut() {
            u.scan.go_on();
        }
    }

    /// A union whose streams are scanned for rows its checks keep, and not stopped.
    pub fn scanning(&self) -> bool {
        self.union
            .as_ref()
            .is_some_and(|u| !u.scan.paused() && self.walk.has_more() && !u.checks.is_empty())
    }

    /// Esc while it scans ([`TabState::scanning`]): the scan stops where it is, until `L`;
    /// true if it did.
    pub fn stop_scan(&mut self) -> bool {
        let scanning = self.scanning();
        if let Some(u) = self.union.as_mut().filter(|_| scanning) {
            u.scan.stop();
        }
        scanning
    }
}

impl<T, F> TabState<T, F>
where
    T: Row + Clone + PartialEq + Timed + Watched,
    F: TabFilter,
{
    /// Whether the table wants more rows of the union (as [`TabState::wants_page`] for one
    /// request, but a stream in flight does not stop the merge from handing out rows).
    fn union_wants(&self, body: usize) -> bool {
        self.next.is_none() && self.walk.wants_rows(self.reading(body))
    }

    /// Hands the union's rows that pass `pass` to the table while it wants them, and asks for
    /// the streams' pages the scan needs next (`scan_max_pages` stream pages at most before
    /// the scan waits for `L`). The fetches to send, and a refresh's merge when it completed.
    pub fn pump(
        &mut self,
        body: usize,
        scan_max_pages: usize,
        pass: &dyn Fn(&T) -> Verdict,
    ) -> (Vec<Command>, Option<convo_engine::pager::Merged>) {
        let mut cmds = Vec::new();
        let Some(mut u) = self.union.take() else {
            return (cmds, None);
        };
        let page = self.walk.limit().max(1);
        // While a refresh reads the streams again, the walk waits: it takes the refresh's
        // place when it is merged.
        while !u.scan.refreshing() && self.union_wants(body) {
            match u.scan.next_batch(page, self.load_all, scan_max_pages, pass) {
                Next::Rows { rows, more } => {
                    self.hand(rows, more, body);
                    if !more {
                        break;
                    }
                }
                Next::Ask(asks) => {
                    let generation = self.walk.generation();
                    cmds.extend(u.fetches(asks, self.tab, generation, false));
                    break;
                }
                Next::Wait | Next::Paused => break,
            }
        }
        // The table's walk is "in flight" while a stream is: the footer says loading.
        // Waiting for the store's answer on a row counts as loading too.
        self.walk
            .streams_loading(u.scan.loading() || u.scan.waiting());
        let merged = self.pump_refresh(&mut u, body, pass, &mut cmds);
        self.union = Some(u);
        (cmds, merged)
    }

    /// Starts a refresh of the union (`r`, the periodic refresh): its streams are read again
    /// from the top behind the rows on screen, at most `max_pages` pages a stream; with no row
    /// shown, the walk starts again (its command). False when one is under way or nothing was
    /// read yet.
    pub fn union_refresh(&mut self, now: Timestamp, max_pages: usize) -> (bool, Option<Command>) {
        let window = self.walk.rows().len();
        let Some(u) = self.union.as_mut() else {
            return (false, None);
        };
        if u.scan.refreshing() || (self.walk.pages() == 0 && u.scan.pages() == 0) {
            return (false, None);
        }
        if window == 0 {
            // Nothing shown for a re-read to stand for: the scan starts again from the top.
            u.now = now;
            return (true, Some(self.restart(false)));
        }
        u.refresh_now = now;
        (u.scan.begin_refresh(window, max_pages), None)
    }

    /// Goes on with the refresh under way: the pages it needs, and once it has read enough,
    /// its merge into the table (what is new, changed, gone; •, ~ and × follow).
    fn pump_refresh(
        &mut self,
        u: &mut UnionWalk<T, F>,
        body: usize,
        pass: &dyn Fn(&T) -> Verdict,
        cmds: &mut Vec<Command>,
    ) -> Option<convo_engine::pager::Merged> {
        let r = match u.scan.refresh_step(u.limit.get(), pass)? {
            RefreshNext::Ask(asks) => {
                cmds.extend(u.fetches(asks, self.tab, self.walk.generation(), true));
                return None;
            }
            RefreshNext::Wait => return None,
            RefreshNext::Ready(r) => r,
        };
        let window = r.stands_for(self.walk.rows());
        self.walk
            .refresh_read_elsewhere(r.rows.clone(), r.complete, window);
        self.left_now = r.failed.clone();
        let merged = super::marks::merge_ready(self, body);
        // The refresh read past every loaded row: the walk goes on from there (the rows it
        // read past the last one loaded come first). Otherwise from where it was.
        let past = r.complete || !merged.cut;
        let kept: std::collections::HashSet<uuid::Uuid> =
            self.walk.rows().iter().map(Row::id).collect();
        u.scan.adopt(*r, past, &kept);
        if past {
            u.now = u.refresh_now;
        }
        Some(merged)
    }

    /// Appends `rows` to the table as a page of its walk (`more`: the union goes on).
    fn hand(&mut self, rows: Vec<T>, more: bool, body: usize) {
        if rows.is_empty() && more {
            return;
        }
        let start = self.walk.rows().len();
        self.walk.hand(rows, more);
        self.after_page(body);
        super::marks::after_page(self, start);
    }

    /// A page (or failure) of stream `stream` of walk `generation`: `Some(why)` when that
    /// stream failed now (its request named in the message); stale answers are dropped.
    pub fn union_page(
        &mut self,
        generation: u64,
        stream: usize,
        head: bool,
        result: Result<Page<T>, ApiError>,
    ) -> Option<String>
    where
        F: ListFilter,
    {
        if generation != self.walk.generation() {
            return None;
        }
        let u = self.union.as_mut()?;
        let answer = result.map_err(|e| convo_text::one_line(&e.cause(), 2000));
        if head {
            // A page of the refresh: a stream that fails ends it (the rows stay as loaded).
            if let Err(why) = u.scan.take(stream, true, answer) {
                self.walk.refresh_failed(why);
            }
            return None;
        }
        self.retry = None;
        let n = u.scan.streams();
        match u.scan.take(stream, false, answer) {
            Ok(_) => None,
            Err(why) => {
                let line = u.filter(stream).map(stream_line).unwrap_or_default();
                Some(format!(
                    "stream {} of {n} ({line}) failed: {why}; the other streams' rows are shown",
                    stream + 1
                ))
            }
        }
    }
}
