//! One tab's list: its filters, its cursor walk (with a generation number), selection, scroll,
//! and the request state shown in the footer and status line. (Back's history is the app's,
//! one for both tabs: [`super::history`].)

use uuid::Uuid;

use super::command::{Command, RequestFilter};
use convo_api::{ApiError, ConversationFilter, Limit, Page, Resource, Row, VisitorFilter};
use convo_engine::pager::{Merged, Reading, Reread};
use convo_engine::walk::{Answered, RefreshStep, Walk};

mod held;
pub mod marks;
mod next;
pub mod union;
pub use held::Held;
pub use next::{NextWalk, Replacing};
pub use union::{UnionWalk, Verdict};

/// One value for each tab (a feature's per-tab state: search, sort…).
#[derive(Debug, Clone, Default)]
pub struct PerTab<T> {
    pub conversations: T,
    pub visitors: T,
}

impl<T> PerTab<T> {
    /// The value of `tab`.
    pub fn get(&self, tab: Resource) -> &T {
        match tab {
            Resource::Conversations => &self.conversations,
            Resource::Visitors => &self.visitors,
        }
    }

    /// The value of `tab`, to change.
    pub fn get_mut(&mut self, tab: Resource) -> &mut T {
        match tab {
            Resource::Conversations => &mut self.conversations,
            Resource::Visitors => &mut self.visitors,
        }
    }
}

/// A filter type a tab can hold.
pub trait TabFilter: Clone + Default + PartialEq {
    /// The filter frozen into a request.
    fn request(&self) -> RequestFilter;
    /// The query (of the language) these filters mean.
    fn query(&self) -> convo_query::query::Query;
}

impl TabFilter for ConversationFilter {
    fn request(&self) -> RequestFilter {
        RequestFilter::Conversations(self.clone())
    }
    fn query(&self) -> convo_query::query::Query {
        convo_query::query::filters::of_conversations(self)
    }
}

impl TabFilter for VisitorFilter {
    fn request(&self) -> RequestFilter {
        RequestFilter::Visitors(self.clone())
    }
    fn query(&self) -> convo_query::query::Query {
        convo_query::query::filters::of_visitors(self)
    }
}

/// The client is waiting before trying again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retry {
    /// When the next attempt starts (compared with `App::now` for the countdown).
    pub until: jiff::Timestamp,
    pub attempt: u32,
    /// Why (sanitised by the client).
    pub reason: String,
    /// A 429 rather than a failure.
    pub rate_limited: bool,
    /// No request sent yet: the request budget has no slot left until then.
    pub budget: bool,
}

/// How many pages past where it was a row to select again (Back, a reload) is looked for,
/// loading on, before the search gives up and says so.
pub const RESELECT_PAGES: usize = 10;

/// After a reload, the row to select again once it shows up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reselect {
    pub id: Uuid,
    /// Where it was; the search gives up [`RESELECT_PAGES`] pages past this.
    pub index: usize,
}

/// What a page of a refresh leads to.
#[derive(Debug, Clone, PartialEq)]
pub enum HeadStep {
    /// Ask for the next page of the re-read.
    Next(Command),
    /// The re-read is complete: merge it ([`TabState::finish_reread`]).
    Ready,
    /// It failed (the error is in `refresh_error`), or nothing was under way.
    Failed,
}

/// One line of the table's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenLine {
    /// The loaded row at this index.
    Row(usize),
    /// The row with this id, which left the list at the last refresh.
    Gone(Uuid),
}

/// The state of one tab.
#[derive(Debug, Clone)]
pub struct TabState<T, F> {
    tab: Resource,
    /// The query the tab shows (as written: names and `me` kept), its source of truth: the
    /// filters of one request (`filter`) or, when it needs more, a union walk (`union`).
    query: convo_query::query::Query,
    /// The filters `query` was last taken from (`None`: it was set as a query, see
    /// [`TabState::sync_query`]).
    query_from: Option<F>,
    /// The query needs more than one request's filters: its streams, merged, and the checks
    /// done in convo (`None`: one stream, no check; the walk of `filter`).
    union: Option<Box<UnionWalk<T, F>>>,
    filter: F,
    /// The walk of the rows on screen (the engine's): rows, cursors, the generation its
    /// answers carry (a new one for every new walk: filter change, reload; older answers are
    /// dropped), its failure, a refresh under way.
    walk: Walk<T>,
    /// The last generation handed out (to this walk or to `next`): never handed out twice.
    issued: u64,
    /// A walk read behind the rows on screen, which it replaces once it has answered.
    next: Option<NextWalk<T, F>>,
    /// Index of the selected row in `pager.rows()`.
    selected: usize,
    /// Index of the first row on screen.
    offset: usize,
    retry: Option<Retry>,
    /// `L`: keep loading until the walk is done.
    load_all: bool,
    reselect: Option<Reselect>,
    /// The page size of the refresh under way.
    refresh_limit: Limit,
    /// Rows new or changed since the previous fetch (see [`super::marks`]).
    marks: super::marks::Marks,
    /// The selected row left the view at a refresh: the cursor stays on it ([`held`]).
    held: Option<Held<T>>,
    /// What a union's refresh read of rows its checks no longer pass (for [`Held::now`]).
    left_now: Vec<T>,
    /// Rows that arrived above the screen at refreshes while the selection kept its line,
    /// not yet scrolled to ("N new above").
    new_above: usize,
    /// A row to select again that was not found (Back, a reload): said, then taken.
    lost: Option<Reselect>,
    /// The rows that left at the last refresh that had any leave, each with the kept row it
    /// followed (`None`: it was first): where the jump key goes, also after the refresh
    /// that shows them × has passed.
    left_places: Vec<(Uuid, Option<Uuid>)>,
    /// Nothing is open on the tab's rows (no detail pane) and they are in server order: on
    /// row 1, the user watches the top ([`TabState::follows_top`]). The app sets it.
    watching: bool,
}

impl<T: Row + Clone + PartialEq, F: TabFilter> TabState<T, F> {
    /// An empty tab that has not asked for anything yet.
    pub fn new(tab: Resource, filter: F, limit: Limit) -> Self {
        TabState {
            tab,
            query: filter.query(),
            query_from: Some(filter.clone()),
            union: None,
            filter,
            walk: Walk::new(limit.get(), 1),
            issued: 1,
            next: None,
            selected: 0,
            offset: 0,
            retry: None,
            load_all: false,
            reselect: None,
            refresh_limit: limit,
            marks: Default::default(),
            held: None,
            left_now: Vec::new(),
            new_above: 0,
            lost: None,
            left_places: Vec::new(),
            watching: true,
        }
    }

    /// A watcher, not a reader: the first row selected, at the top of the screen, no pane
    /// open on it. A refresh then keeps the cursor on row 1 and the new rows come into view
    /// under it; a reader (moved, or a pane open) is held still instead, the rows that arrive
    /// above counted in `new_above`.
    pub fn follows_top(&self) -> bool {
        self.watching && self.selected == 0 && self.offset == 0 && self.held.is_none()
    }

    /// Which tab this is.
    pub fn tab(&self) -> Resource {
        self.tab
    }

    /// The query the tab shows, as written.
    pub fn query(&self) -> &convo_query::query::Query {
        &self.query
    }

    /// The union walk the query needs, when one request's filters do not answer it.
    pub fn union(&self) -> Option<&UnionWalk<T, F>> {
        self.union.as_deref()
    }

    /// The filters of one request the tab walks (the default while a union is shown).
    pub fn filter(&self) -> &F {
        &self.filter
    }

    /// The walk read behind the rows on screen, while there is one.
    pub fn next(&self) -> Option<&NextWalk<T, F>> {
        self.next.as_ref()
    }

    /// Index of the selected row among the loaded rows.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Index of the first row on screen.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The wait before the client tries again, while there is one.
    pub fn retry(&self) -> Option<&Retry> {
        self.retry.as_ref()
    }

    /// `L` is on: the walk loads every page left.
    pub fn load_all(&self) -> bool {
        self.load_all
    }

    /// A row to select again once it shows up (Back, a reload), while it is looked for.
    pub fn reselect(&self) -> Option<Reselect> {
        self.reselect
    }

    /// Rows new or changed since the previous fetch.
    pub fn marks(&self) -> &super::marks::Marks {
        &self.marks
    }

    /// Rows that arrived above the screen at refreshes, not yet scrolled to.
    pub fn new_above(&self) -> usize {
        self.new_above
    }

    /// A row to select again that was not found, until it is said.
    pub fn lost(&self) -> Option<Reselect> {
        self.lost
    }

    /// The row to select again that was not found, taken to be said (once).
    pub fn take_lost(&mut self) -> Option<Reselect> {
        self.lost.take()
    }

    /// The rows that left at the last refresh that had any leave, each with the kept row it
    /// followed.
    pub fn left_places(&self) -> &[(Uuid, Option<Uuid>)] {
        &self.left_places
    }

    /// The rows loaded so far.
    pub fn rows(&self) -> &[T] {
        self.walk.rows()
    }

    /// The walk of the rows on screen (rows, pages, whether more exist, warnings).
    pub fn walk(&self) -> &Walk<T> {
        &self.walk
    }

    /// The generation of the walk on screen (its answers carry it).
    pub fn generation(&self) -> u64 {
        self.walk.generation()
    }

    /// Why the walk's last request failed (sanitised, key-free): it stops automatic loading
    /// until the user asks again.
    pub fn error(&self) -> Option<&str> {
        self.walk.error()
    }

    /// The user asks again after a failure: the walk may load on.
    pub fn clear_error(&mut self) {
        self.walk.clear_error();
    }

    /// A refresh (a re-read from the top) is under way: of the walk, or of a union's streams.
    pub fn refreshing(&self) -> bool {
        self.walk.refreshing() || self.union.as_ref().is_some_and(|u| u.refreshing())
    }

    /// Why the last refresh failed (shown in the footer; it never covers the table).
    pub fn refresh_error(&self) -> Option<&str> {
        self.walk.refresh_error()
    }

    /// The selected row, if any row is loaded: the row that left under the cursor while it
    /// is held there ([`held`]).
    pub fn selected_row(&self) -> Option<&T> {
        match &self.held {
            Some(h) => Some(&h.row),
            None => self.walk.rows().get(self.selected),
        }
    }

    /// Starts a new walk (new generation); older answers will be dropped.
    pub fn restart(&mut self, keep_selection: bool) -> Command {
        self.reselect = if keep_selection {
            self.selected_row().map(|r| Reselect {
                id: r.id(),
                index: self.selected,
            })
        } else {
            None
        };
        if !keep_selection {
            self.selected = 0;
            self.offset = 0;
        }
        let generation = self.new_generation();
        self.next = None;
        self.walk = Walk::new(self.walk.limit(), generation);
        if let Some(u) = self.union.as_mut() {
            **u = u.fresh(u.now);
        }
        self.retry = None;
        self.load_all = false;
        self.held = None;
        self.new_above = 0;
        self.left_places.clear();
        Command::Cancel { tab: self.tab }
    }

    /// Keeps `query` the query of the filters while the tab walks one request's filters that
    /// were set as filters (the filter pane, a view's keys, a drill-down); a query set with
    /// [`TabState::set_query`] stays as written.
    pub fn sync_query(&mut self) {
        if self.union.is_none() && self.query_from.as_ref() != Some(&self.filter) {
            self.query = self.filter.query();
            self.query_from = Some(self.filter.clone());
        }
    }

    /// The tab shows `query`, which one request's filters answer (`filter`): set as the
    /// filters, the query kept as written. `None` when nothing changed.
    pub fn set_query(&mut self, query: convo_query::query::Query, filter: F) -> Option<Command> {
        let c = self.set_filter(filter.clone());
        self.query = query;
        self.query_from = Some(filter);
        c
    }

    /// The tab shows `query`, which needs the union `walk` (several streams, or checks done
    /// in convo): a new walk of it.
    pub fn set_union(
        &mut self,
        query: convo_query::query::Query,
        walk: UnionWalk<T, F>,
    ) -> Command {
        self.filter = F::default();
        self.union = Some(Box::new(walk));
        self.query = query;
        self.query_from = None;
        self.restart(false)
    }

    /// A generation never handed out before.
    fn new_generation(&mut self) -> u64 {
        self.issued = self.issued.max(self.walk.generation()) + 1;
        self.issued
    }

    /// Sets new filters and starts a new walk; `None` when they are the filters already (and
    /// no union is shown instead).
    pub fn set_filter(&mut self, filter: F) -> Option<Command> {
        if filter == self.filter && self.union.is_none() {
            return None;
        }
        self.filter = filter;
        self.union = None;
        Some(self.restart(false))
    }

    /// Back to earlier filters (new walk) that selects `row` again once it shows up.
    pub fn restore(&mut self, filter: F, row: Option<Reselect>) -> Command {
        self.filter = filter;
        self.union = None;
        let c = self.restart(false);
        self.reselect = row;
        c
    }

    /// Selects the row `row` names, with the same filters: by id among the loaded rows, else
    /// loading on to find it (within [`RESELECT_PAGES`] pages past where it was); when it is
    /// not there, where it was, and `lost` says so.
    pub fn reselect_now(&mut self, row: Reselect, body: usize) {
        match self.walk.rows().iter().position(|r| r.id() == row.id) {
            Some(i) => self.select(i, body),
            None if self.walk.has_more() => {
                self.held = None;
                self.reselect = Some(row);
            }
            None => {
                self.lost = Some(row);
                self.select(row.index, body);
            }
        }
    }

    /// The selected row and where it is (for Back to come back to).
    pub fn selection(&self) -> Option<Reselect> {
        self.selected_row().map(|r| Reselect {
            id: r.id(),
            index: self.selected,
        })
    }

    /// Moves the selection (clamped to the loaded rows) and keeps it on screen; a row held
    /// under the cursor ([`held`]) is let go.
    pub fn select(&mut self, index: usize, body: usize) {
        self.held = None;
        self.place(index, body);
    }

    /// The selection at `index` (clamped), kept on screen; a held row stays held.
    fn place(&mut self, index: usize, body: usize) {
        let n = self.walk.rows().len();
        self.selected = index.min(n.saturating_sub(1));
        self.scroll_into_view(body);
    }

    /// What each of the table's `body` lines shows, in server order from `offset`: the
    /// loaded rows and, with `gone`, each row that left at the last refresh just after the
    /// row it followed (shown for that one refresh, so the eye can follow; never counted,
    /// searched or selected), and the selected row that left where it was ([`held`]). Rows
    /// that left above the cursor push the rows above them off the top: every row that left
    /// is shown, and the cursor stays on screen.
    pub fn screen_lines(&self, body: usize, gone: bool) -> Vec<ScreenLine> {
        let rows = self.walk.rows();
        let n = rows.len();
        let start = self.offset.min(n);
        let plain = || {
            (start..(start + body).min(n))
                .map(ScreenLine::Row)
                .collect()
        };
        if !gone {
            return plain();
        }
        let held = self.held.as_ref().map(|h| (h.row.id(), h.at_end));
        let mut after: std::collections::HashMap<Option<Uuid>, Vec<&T>> = Default::default();
        for g in self.walk.gone() {
            if held.is_none_or(|(id, _)| id != g.row.id()) {
                after.entry(g.after).or_default().push(&g.row);
            }
        }
        if after.is_empty() && held.is_none() {
            return plain();
        }
        // In server order from `start`: each row, the rows that left after it, the held row
        // at its place. Rows that left above the cursor push the rows above them off the top
        // of the screen, not the cursor down: the cursor keeps its line (while it fits).
        let cursor = self.cursor_line();
        let mut out: Vec<ScreenLine> = Vec::with_capacity(body + 4);
        let gone_after = |key: Option<Uuid>| after.get(&key).into_iter().flatten().map(|r| r.id());
        if start == 0 {
            out.extend(gone_after(None).map(ScreenLine::Gone));
        }
        if n == 0
            && let Some((id, _)) = held
        {
            out.push(ScreenLine::Gone(id));
        }
        // Where the cursor's line is in `out`, once placed.
        let mut at: Option<usize> = None;
        for (i, r) in rows.iter().enumerate().skip(start) {
            if at.is_none() {
                at = out.iter().position(|l| *l == cursor);
            }
            let dropped = at.map_or(0, |c| (c + 1).saturating_sub(body));
            if out.len() >= body + dropped && (at.is_some() || i > self.selected) {
                break;
            }
            if let Some((id, false)) = held
                && i == self.selected
            {
                out.push(ScreenLine::Gone(id));
            }
            out.push(ScreenLine::Row(i));
            if let Some((id, true)) = held
                && i == self.selected
            {
                out.push(ScreenLine::Gone(id));
            }
            out.extend(gone_after(Some(r.id())).map(ScreenLine::Gone));
        }
        let at = at.or_else(|| out.iter().position(|l| *l == cursor));
        let dropped = at.map_or(0, |c| (c + 1).saturating_sub(body));
        out.drain(..dropped.min(out.len()));
        out.truncate(body);
        out
    }

    /// The row that left at the last refresh with this id.
    pub fn gone_row(&self, id: Uuid) -> Option<&T> {
        match &self.held {
            Some(h) if h.row.id() == id => Some(&h.row),
            _ => self.walk.gone().map(|g| &g.row).find(|r| r.id() == id),
        }
    }

    /// Adjusts the scroll offset so the selection is visible in `body` rows.
    pub fn scroll_into_view(&mut self, body: usize) {
        let body = body.max(1);
        // A held row after the last one takes the line below it.
        let cursor = self.selected + self.held.as_ref().is_some_and(|h| h.at_end) as usize;
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if cursor >= self.offset + body {
            self.offset = cursor + 1 - body;
        }
        let n = self.walk.rows().len();
        // On the last loaded row with more to come, keep a line free for "loading…".
        if n > 0 && self.selected + 1 == n && self.walk.has_more() {
            self.offset = self.offset.max((n + 1).saturating_sub(body));
        }
        // Never leave empty space under the last row when rows above could fill it.
        if self.offset + body > n + 1 {
            self.offset = (n + 1).saturating_sub(body).min(self.selected);
        }
        // New rows above the screen are the top ones: those scrolled to are seen.
        self.new_above = self.new_above.min(self.offset);
    }

    /// True when the next page should be asked for now: the selection is within a page of
    /// the end of what is loaded, the screen shows past the end, `L` is on, or a reload is
    /// still looking for the row it should select. Never while one is in flight, after the
    /// end, or after an error (until the user retries).
    pub fn wants_page(&self, body: usize) -> bool {
        self.next.is_none() && self.walk.wants_page(self.reading(body))
    }

    /// Where the table's reader is, for the engine's look-ahead.
    pub(super) fn reading(&self, body: usize) -> Reading {
        Reading {
            selected: self.selected,
            offset: self.offset,
            body,
            eager: self.load_all || self.reselect.is_some(),
        }
    }

    /// `L`: every page left is loaded; after a failure, the walk asks again.
    pub fn load_whole(&mut self) {
        self.load_all = true;
        self.walk.clear_error();
    }

    /// `L` stops (Esc, an export's walk that ended): the walk loads as the reader needs.
    pub fn stop_loading(&mut self) {
        self.load_all = false;
    }

    /// The filters the tab starts with, no walk started (a view opened at start, a place
    /// restored: the first update walks them); the query follows them.
    pub fn start_with(&mut self, filter: F) {
        self.filter = filter;
        self.union = None;
        self.sync_query();
    }

    /// Selects loaded row `index` without scrolling the rows in server order (a sorted view
    /// scrolls itself).
    pub fn select_in_sort(&mut self, index: usize) {
        self.selected = index.min(self.walk.rows().len().saturating_sub(1));
    }

    /// Selects `row` once it shows up (Back to a union run again).
    pub fn reselect_when_found(&mut self, row: Option<Reselect>) {
        self.reselect = row;
    }

    /// Shows one more line above the screen's first (a row that left above the cursor).
    pub fn reveal_above(&mut self) {
        self.offset = self.offset.saturating_sub(1);
    }

    /// Whether the user watches the top (no pane open on the rows, in server order): the app
    /// says so before each message ([`TabState::follows_top`]).
    pub fn set_watching(&mut self, watching: bool) {
        self.watching = watching;
    }

    /// The client waits before trying again (said in the footer until the answer).
    pub fn retrying(&mut self, retry: Retry) {
        self.retry = Some(retry);
    }

    /// `L` is on and has pages still to load (not after the last page, nor after an error
    /// that waits for the user): what Esc stops.
    pub fn loading_all(&self) -> bool {
        self.load_all && self.walk.has_more() && self.walk.error().is_none()
    }

    /// The fetch of the next page, if one is wanted (and marks it in flight): of the walk
    /// read behind the screen while there is one (until it is ready or fails), else of the
    /// walk on screen.
    pub fn next_fetch(&mut self, body: usize, limit: Limit) -> Option<Command> {
        if let Some(n) = self.next.as_mut() {
            if n.walk.error().is_some() || n.ready() {
                return None;
            }
            let cursor = n.walk.request()?;
            return Some(Command::Fetch {
                tab: self.tab,
                generation: n.walk.generation(),
                cursor,
                query: n.filter.request(),
                limit,
            });
        }
        if self.next.is_some() {
            return None;
        }
        let cursor = self.walk.request_for(self.reading(body))?;
        Some(Command::Fetch {
            tab: self.tab,
            generation: self.walk.generation(),
            cursor,
            query: self.filter.request(),
            limit,
        })
    }

    /// Applies the answer of walk `generation`'s request in flight (an answer of another
    /// walk, or none asked, is dropped): true when it was this walk's.
    pub fn apply(
        &mut self,
        generation: u64,
        result: Result<Page<T>, ApiError>,
        body: usize,
    ) -> bool {
        let result = result.map_err(|e| convo_text::one_line(&e.cause(), 2000));
        match self.walk.answer(generation, result) {
            Answered::Stale => return false,
            Answered::Page(_) => self.after_page(body),
            Answered::Failed => self.load_all = false,
        }
        self.retry = None;
        true
    }

    /// The request in flight failed with `why`: shown on the status line, the rows stay, and
    /// the walk waits for the user to retry.
    pub fn fail(&mut self, why: String) {
        self.retry = None;
        self.load_all = false;
        self.walk.fail(convo_text::one_line(&why, 2000));
    }

    fn after_page(&mut self, body: usize) {
        if let Some(want) = self.reselect {
            if let Some(i) = self.walk.rows().iter().position(|r| r.id() == want.id) {
                self.reselect = None;
                self.select(i, body);
                return;
            }
            let loaded = self.walk.rows().len();
            let bound = want.index + RESELECT_PAGES * self.walk.limit();
            if self.walk.is_done() || loaded > bound {
                // Not found: where it was, and said (never another row silently).
                self.reselect = None;
                self.lost = Some(want);
                self.select(want.index, body);
            }
        } else {
            self.place(self.selected, body);
        }
    }

    /// Takes one page of the refresh under way: the request for the next page while the
    /// re-read goes on, else whether it is ready to merge or failed.
    pub fn head_page(&mut self, result: Result<Page<T>, ApiError>) -> HeadStep {
        let result = result.map_err(|e| convo_text::one_line(&e.cause(), 2000));
        match self.walk.refresh_page(self.walk.generation(), result) {
            RefreshStep::Next(cursor) => HeadStep::Next(Command::FetchHead {
                tab: self.tab,
                generation: self.walk.generation(),
                query: self.filter.request(),
                limit: self.refresh_limit,
                cursor: Some(cursor),
            }),
            RefreshStep::Ready => HeadStep::Ready,
            RefreshStep::Failed => HeadStep::Failed,
        }
    }

    /// The refresh under way failed with `why` (a task that panicked): the rows stay as
    /// loaded, the footer says why.
    pub fn refresh_failed(&mut self, why: String) {
        if let Some(u) = self.union.as_mut() {
            u.drop_refresh();
        }
        self.walk.refresh_failed(convo_text::one_line(&why, 2000));
    }

    /// Gives up the refresh under way (an export is reading the rows it would move).
    pub fn drop_reread(&mut self) {
        self.walk.drop_refresh();
    }

    /// The refresh under way, once [`TabState::head_page`] said it is ready.
    pub fn reread(&self) -> Option<&Reread<T>> {
        self.walk.refresh_read()
    }

    /// Merges the finished refresh into the rows. The selection stays on its row, on the
    /// same screen line (the view scrolls with rows that arrive above it, counted in
    /// `new_above`); when its row left, the cursor stays on it, greyed ([`held`]), with
    /// `selected` on the row that took its place (the one above at the end).
    pub fn finish_reread(&mut self, body: usize) -> Merged {
        let left_now = std::mem::take(&mut self.left_now);
        if !self.walk.refreshing() {
            return Merged::default();
        }
        let follow = self.follows_top();
        // The loaded row at the cursor (the one below a held row).
        let (sel_id, line) = (
            self.walk.rows().get(self.selected).map(Row::id),
            self.selected.saturating_sub(self.offset),
        );
        let old_selected = self.selected;
        let Some((merged, window)) = self.walk.finish_refresh() else {
            return Merged::default();
        };
        if !merged.left_ids.is_empty() {
            self.left_places = self.walk.gone().map(|g| (g.row.id(), g.after)).collect();
        }
        let rows = self.walk.rows();
        let found = sel_id.and_then(|id| {
            if old_selected >= window && !merged.from_end {
                // Kept below the live rows: shifted by what the live part gained or lost.
                let guess = (old_selected + merged.live).saturating_sub(window);
                if rows.get(guess).is_some_and(|r| r.id() == id) {
                    return Some(guess);
                }
            }
            rows.iter().position(|r| r.id() == id)
        });
        self.selected = found
            .unwrap_or(old_selected)
            .min(rows.len().saturating_sub(1));
        match sel_id {
            Some(id) if self.held.is_none() && found.is_none() => self.hold(id, &merged.new_ids),
            _ => {}
        }
        self.follow_held(left_now);
        if follow && self.held.is_none() {
            // A watcher: row 1 stays selected, what arrived comes into view under it.
            self.selected = 0;
            self.offset = 0;
            self.scroll_into_view(body);
            return merged;
        }
        // The selection keeps its screen line: rows that arrive above it scroll the view
        // (and are counted), the row being read does not walk down the screen.
        self.offset = self.selected.saturating_sub(line);
        let live = merged.live_from..(merged.live_from + merged.live).min(self.offset);
        let new: std::collections::HashSet<&Uuid> = merged.new_ids.iter().collect();
        let arrived = self
            .walk
            .rows()
            .get(live)
            .unwrap_or_default()
            .iter()
            .filter(|r| new.contains(&r.id()))
            .count();
        self.new_above += arrived;
        self.scroll_into_view(body);
        merged
    }

    /// The refresh request, when the walk has a first page and no refresh is pending: the
    /// engine plans it ([`Walk::begin_refresh`]: how many pages, which rows it stands for, from
    /// the top or, with `from_end`, from the end of a complete walk).
    pub fn head_fetch(
        &mut self,
        limit: Limit,
        max_pages: usize,
        from_end: bool,
    ) -> Option<Command> {
        if self.refreshing() || self.next.is_some() {
            return None;
        }
        let cursor = self.walk.begin_refresh(limit.get(), max_pages, from_end)?;
        self.refresh_limit = limit;
        Some(Command::FetchHead {
            tab: self.tab,
            generation: self.walk.generation(),
            query: self.filter.request(),
            limit,
            cursor,
        })
    }
}
