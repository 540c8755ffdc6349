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

use std::collections::VecDeque;

use jiff::Timestamp;

use super::{TabFilter, TabState};
use crate::command::Command;
use crate::marks::Watched;
use convo_api::{ApiError, Limit, ListFilter, Page, Row};
use convo_engine::merge::{Step, Timed};
use convo_engine::union::Streams;
use convo_query::query::Term;

/// The union a tab walks (see the module).
#[derive(Debug, Clone)]
pub struct UnionWalk<T, F> {
    /// The streams' cursors and their merge: the engine's walk, which this drives with
    /// commands.
    walk: Streams<T, F>,
    /// The plan's checks, done in convo (resolved terms).
    pub checks: Vec<Term>,
    /// The checks as written, for the status line.
    pub checks_shown: Vec<String>,
    /// The clock relative checks (`age:`, `idle:`) are measured from: the walk's start.
    pub now: Timestamp,
    /// Rows the merge gave (each id once) and how many of them passed the checks.
    pub scanned: usize,
    pub matched: usize,
    /// Stream pages read when the scan budget last started.
    budget_from: usize,
    /// The scan stopped (its page budget, or Esc) until `L` or `G`.
    pub paused: bool,
    /// Rows a refresh gave beyond the rows it stood for: the next ones the walk shows.
    carry: VecDeque<T>,
    /// What the merge noticed (the order given up), for the status line, taken.
    pub notices: Vec<String>,
    limit: Limit,
    /// A refresh under way: the same streams read again from the top.
    refresh: Option<Box<Refresh<T, F>>>,
    /// The row a check could not yet judge ([`Verdict::Wait`]), with whether it was carried:
    /// the walk goes on from it when the answer is in.
    held: Option<(T, bool)>,
}

/// What the checks say of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
    /// Not yet known (its visitor's fields are being read from the local store): the walk
    /// waits at this row, in order, until it is asked again.
    Wait,
}

impl From<bool> for Verdict {
    fn from(b: bool) -> Verdict {
        if b { Verdict::Pass } else { Verdict::Fail }
    }
}

/// A refresh of a union: its streams re-read from the top (a walk of their own) until the
/// rows that pass are as many as the table has loaded, the list ends, or the page budget
/// (`refresh_max_pages` a stream) is spent; then merged into the table as a one-request tab's
/// refresh is (•, ~ and × follow).
#[derive(Debug, Clone)]
struct Refresh<T, F> {
    walk: UnionWalk<T, F>,
    rows: Vec<T>,
    /// Loaded rows it stands for.
    window: usize,
    /// Stream pages it may read.
    budget: usize,
    /// Rows it read that the checks no longer pass: what a loaded row that leaves is now.
    failed: Vec<T>,
}

impl<T: Row, F> UnionWalk<T, F> {
    /// Whether a refresh (its streams read again from the top) is under way.
    pub fn refreshing(&self) -> bool {
        self.refresh.is_some()
    }

    /// Gives up the refresh under way.
    pub fn drop_refresh(&mut self) {
        self.refresh = None;
    }

    /// A walk of these streams (from the plan) with these checks, pages of `limit`.
    pub fn new(
        streams: Vec<F>,
        checks: Vec<Term>,
        checks_shown: Vec<String>,
        limit: Limit,
        now: Timestamp,
    ) -> UnionWalk<T, F> {
        UnionWalk {
            walk: Streams::new(streams, limit.get()),
            checks,
            checks_shown,
            now,
            scanned: 0,
            matched: 0,
            budget_from: 0,
            paused: false,
            carry: VecDeque::new(),
            notices: Vec::new(),
            limit,
            refresh: None,
            held: None,
        }
    }

    /// The same streams and checks, walked again from the top (a reload, a refresh).
    pub fn fresh(&self, now: Timestamp) -> UnionWalk<T, F>
    where
        F: Clone,
    {
        UnionWalk::new(
            self.walk.filters().cloned().collect(),
            self.checks.clone(),
            self.checks_shown.clone(),
            self.limit,
            now,
        )
    }
}

impl<T: Timed + Clone, F> UnionWalk<T, F> {
    /// Whether a stream's request is in flight.
    pub fn loading(&self) -> bool {
        self.walk.loading()
    }

    /// Stream pages read, over every stream.
    pub fn pages(&self) -> usize {
        self.walk.pages()
    }

    /// How many streams.
    pub fn streams(&self) -> usize {
        self.walk.len()
    }

    /// Stream `i`'s filter.
    pub fn filter(&self, i: usize) -> Option<&F> {
        self.walk.filter(i)
    }

    /// The scan goes on past its page budget (`L`, `G`).
    pub fn go_on(&mut self) {
        self.paused = false;
        self.budget_from = self.walk.pages();
    }

    /// Esc: the scan stops where it is.
    pub fn stop(&mut self) {
        self.paused = true;
    }

    /// The streams that failed: (number from 0, why).
    pub fn failures(&self) -> Vec<(usize, &str)> {
        self.walk.failures()
    }

    /// Takes a page (or failure) of stream `i`; `false` when it was not asked for (dropped).
    pub fn take(&mut self, i: usize, result: Result<Page<T>, ApiError>) -> Result<bool, String>
    where
        T: Row,
    {
        if !self.walk.in_flight(i) {
            return Ok(false);
        }
        match result {
            Ok(page) => {
                self.walk.page(i, page);
                self.notices.extend(self.walk.take_notices());
                Ok(true)
            }
            Err(e) => {
                let why = convo_text::one_line(&e.cause(), 2000);
                self.walk.fail(i, why.clone());
                Err(why)
            }
        }
    }

    /// The requests for the next page of streams `parts` that have none in flight.
    fn fetches(
        &mut self,
        parts: Vec<usize>,
        tab: convo_api::Resource,
        generation: u64,
        head: bool,
    ) -> Vec<Command>
    where
        F: TabFilter,
    {
        let mut cmds = Vec::new();
        for i in parts {
            let Some(cursor) = self.walk.request(i) else {
                continue;
            };
            let Some(query) = self.walk.filter(i).map(TabFilter::request) else {
                continue;
            };
            cmds.push(Command::FetchPart {
                tab,
                generation,
                stream: i,
                head,
                cursor,
                query,
                limit: self.limit,
            });
        }
        cmds
    }

    /// The merge's next row: a held one first, then a carried one.
    fn next_row(&mut self) -> (Step<T>, bool) {
        if let Some((r, carried)) = self.held.take() {
            return (Step::Row(r), carried);
        }
        match self.carry.pop_front() {
            Some(r) => (Step::Row(r), true),
            None => (self.walk.step(), false),
        }
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
        if u.walk.pages() == 0 && !u.walk.loading() {
            u.now = now;
        }
        Some((u.checks.clone(), u.now))
    }

    /// What the union's merge noticed since asked last (the order given up), taken.
    pub fn take_union_notices(&mut self) -> Vec<String> {
        self.union
            .as_mut()
            .map(|u| std::mem::take(&mut u.notices))
            .unwrap_or_default()
    }

    /// `L`, `G`: a union's scan goes on past its page budget.
    pub fn go_on_scan(&mut self) {
        if let Some(u) = self.union.as_mut() {
            u.go_on();
        }
    }

    /// A union whose streams are scanned for rows its checks keep, and not stopped.
    pub fn scanning(&self) -> bool {
        self.union
            .as_ref()
            .is_some_and(|u| !u.paused && self.walk.has_more() && !u.checks.is_empty())
    }

    /// Esc while it scans ([`TabState::scanning`]): the scan stops where it is, until `L`;
    /// true if it did.
    pub fn stop_scan(&mut self) -> bool {
        let scanning = self.scanning();
        if let Some(u) = self.union.as_mut().filter(|_| scanning) {
            u.stop();
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
    /// the streams' pages the merge needs next (`scan_max_pages` stream pages at most before
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
        let mut batch: Vec<T> = Vec::new();
        // While a refresh reads the streams again, the walk waits: it takes the refresh's
        // place when it is merged.
        loop {
            if u.refresh.is_some() {
                break;
            }
            if batch.len() >= page {
                self.hand(std::mem::take(&mut batch), true, body);
            }
            if !self.union_wants(body) {
                break;
            }
            // The rows in the batch are wanted too: hand them before asking for more.
            let (step, carried) = u.next_row();
            match step {
                Step::Row(r) => {
                    let verdict = pass(&r);
                    if verdict == Verdict::Wait {
                        // In order: nothing after it shows before it is judged.
                        u.held = Some((r, carried));
                        break;
                    }
                    if !carried {
                        u.scanned += 1;
                    }
                    if verdict == Verdict::Pass {
                        if !carried {
                            u.matched += 1;
                        }
                        batch.push(r);
                    }
                }
                Step::Need(parts) => {
                    if !batch.is_empty() {
                        // What passed so far shows before the streams are asked again.
                        self.hand(std::mem::take(&mut batch), true, body);
                        continue;
                    }
                    let over = !self.load_all
                        && u.pages().saturating_sub(u.budget_from) >= scan_max_pages.max(1);
                    if over {
                        u.paused = true;
                    }
                    if u.paused && !self.load_all {
                        break;
                    }
                    cmds.extend(u.fetches(parts, self.tab, self.walk.generation(), false));
                    break;
                }
                Step::End => {
                    self.hand(std::mem::take(&mut batch), false, body);
                    break;
                }
            }
        }
        if !batch.is_empty() {
            self.hand(batch, true, body);
        }
        // The table's pager is "in flight" while a stream is: the footer says loading.
        // Waiting for the store's answer on a row counts as loading too.
        self.walk.streams_loading(u.loading() || u.held.is_some());
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
        if u.refresh.is_some() || (self.walk.pages() == 0 && u.pages() == 0) {
            return (false, None);
        }
        if window == 0 {
            // Nothing shown for a re-read to stand for: the scan starts again from the top.
            u.now = now;
            return (true, Some(self.restart(false)));
        }
        let budget = max_pages.max(1).saturating_mul(u.streams().max(1));
        u.refresh = Some(Box::new(Refresh {
            walk: u.fresh(now),
            rows: Vec::new(),
            window,
            budget,
            failed: Vec::new(),
        }));
        (true, None)
    }

    /// Goes on with the refresh under way: its rows that pass, the pages it needs, and once it
    /// is complete, its merge into the table (what is new, changed, gone).
    fn pump_refresh(
        &mut self,
        u: &mut UnionWalk<T, F>,
        body: usize,
        pass: &dyn Fn(&T) -> Verdict,
        cmds: &mut Vec<Command>,
    ) -> Option<convo_engine::pager::Merged> {
        let r = u.refresh.as_mut()?;
        let complete = loop {
            // A page more than it stands for: a row new ones pushed down is still met.
            if r.rows.len() >= r.window.max(1) + u.limit.get() {
                break false;
            }
            match r.walk.next_row().0 {
                Step::Row(x) => match pass(&x) {
                    Verdict::Wait => {
                        r.walk.held = Some((x, false));
                        return None;
                    }
                    v => {
                        r.walk.scanned += 1;
                        if v == Verdict::Pass {
                            r.walk.matched += 1;
                            r.rows.push(x);
                        } else {
                            // What a row that leaves the view is now, if it was loaded.
                            r.failed.push(x);
                        }
                    }
                },
                Step::Need(parts) => {
                    if r.walk.pages() >= r.budget {
                        break false;
                    }
                    cmds.extend(
                        r.walk
                            .fetches(parts, self.tab, self.walk.generation(), true),
                    );
                    return None;
                }
                Step::End => break true,
            }
        };
        let r = *u.refresh.take()?;
        // What it stands for: the loaded rows up to the last one it met again (in the merge's
        // order, every row before that one that still matches was read). A loaded row past
        // it was not read again (the page budget ended the refresh, or new rows pushed it
        // down): it stays as loaded, never taken for gone.
        let window = if complete {
            r.window
        } else {
            let met: std::collections::HashSet<uuid::Uuid> = r.rows.iter().map(Row::id).collect();
            let loaded = self.walk.rows();
            loaded[..r.window.min(loaded.len())]
                .iter()
                .rposition(|x| met.contains(&x.id()))
                .map_or(0, |p| p + 1)
        };
        self.walk
            .refresh_read_elsewhere(r.rows.clone(), complete, window);
        self.left_now = r.failed;
        let merged = super::marks::merge_ready(self, body);
        // The refresh read past every loaded row: its walk goes on from there (the rows it
        // read past the last one loaded come first), and its scan counts (never less than
        // the scan it replaces had counted). Otherwise the walk goes on from where it was.
        if complete || !merged.cut {
            let kept: std::collections::HashSet<uuid::Uuid> =
                self.walk.rows().iter().map(Row::id).collect();
            let mut w = r.walk;
            w.carry = r
                .rows
                .into_iter()
                .filter(|x| !kept.contains(&x.id()))
                .collect();
            w.scanned = w.scanned.max(u.scanned);
            *u = w;
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
        if head {
            // A page of the refresh: a stream that fails ends it (the rows stay as loaded).
            let r = u.refresh.as_mut()?;
            if let Err(why) = r.walk.take(stream, result) {
                u.refresh = None;
                self.walk.refresh_failed(why);
            }
            return None;
        }
        self.retry = None;
        let n = u.streams();
        match u.take(stream, result) {
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
