//! The visitor sync: a walk of `GET /v1/visitors` (full pages, `limit=100`) into the store, so
//! names appear where ids were without the user visiting the Visitors tab.
//!
//! - Paced: requests start at least `1 / rps` seconds apart (plus a millisecond), so no second
//!   ever holds more than `rps` of them and there is no burst after a pause. The pace is kept
//!   on the client's clock ([`Client::clock`], `convo_api::clock`), so tests run it on a
//!   clock of their own. An open
//!   browser's sync ([`Pace::Background`]) walks again, once a walk has finished, at one
//!   request every [`REWALK_SPACING`] (its checks of the new end keep the first walk's pace);
//!   its client is a background one, so it also spends only its share of the service's
//!   request budget (`api::budget`).
//! - Yields: before each request it waits until the user's own fetches (counted by
//!   [`UserFetches`]) are done; those do not count against the pace.
//! - Backs off: a 429 (the client already waits `Retry-After`) doubles the spacing, up to
//!   30 s; it comes back down by halves after clean pages.
//! - Resumes: the next cursor is kept with each page's rows (one transaction), so a restart
//!   goes on where the last run stopped. A cursor the service no longer accepts restarts the
//!   walk from the first page. A finished walk is done again when it is older than
//!   `visitor_rewalk` (default one day): names and e-mails do change.
//! - Learns the list's order from its rows, as the union does
//!   ([`convo_api::order::orders_followed`]), and keeps its new end current between walks
//!   ([`Syncer::check_new_end`]): newest first, it reads from the top until a page holds only
//!   visitors it knows (usually one request); oldest first, it reads again from the cursor of
//!   the last page of the last walk. An order it cannot learn means full walks only.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::{StoreError, StoreTask, SyncState};
use convo_api::order::{Order, common_order, orders_followed};
use convo_api::{ApiError, Client, Limit, Page, RetryNotice, Visitor, VisitorFilter};
use convo_engine::cursor::{Cursors, Follow};

/// A check of the new end reads at most this many pages (the full walk does the rest).
pub const MAX_CHECK_PAGES: u32 = 10;

/// Longest spacing after repeated 429s.
const MAX_SPACING: Duration = Duration::from_secs(30);

/// Counts the user's own fetches in flight; the sync waits while any is.
#[derive(Debug, Default)]
pub struct UserFetches {
    busy: AtomicUsize,
    idle: Notify,
    /// Those held in [`UserFetches::idle`] now.
    held: AtomicUsize,
}

/// Held while a user's fetch is in flight.
#[derive(Debug)]
pub struct UserFetch(Arc<UserFetches>);

impl UserFetches {
    /// A fetch starts; it ends when the guard is dropped.
    pub fn begin(self: &Arc<Self>) -> UserFetch {
        self.busy.fetch_add(1, Ordering::SeqCst);
        UserFetch(self.clone())
    }

    /// Fetches in flight now.
    pub fn in_flight(&self) -> usize {
        self.busy.load(Ordering::SeqCst)
    }

    /// Waits until no user fetch is in flight.
    pub async fn idle(&self) {
        let mut held = None;
        loop {
            let notified = self.idle.notified();
            if self.in_flight() == 0 {
                return;
            }
            held.get_or_insert_with(|| Held::new(&self.held));
            notified.await;
        }
    }

    /// How many wait in [`UserFetches::idle`] now (the sync, held back by the user's fetches).
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }
}

/// Counts one waiter in [`UserFetches::idle`] while it lives.
struct Held<'a>(&'a AtomicUsize);

impl<'a> Held<'a> {
    fn new(n: &'a AtomicUsize) -> Held<'a> {
        n.fetch_add(1, Ordering::SeqCst);
        Held(n)
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Drop for UserFetch {
    fn drop(&mut self) {
        if self.0.busy.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// How the walk is paced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// At most this many requests in any second.
    PerSecond(u32),
    /// An open browser's background sync: the first walk and the checks of the new end at
    /// most this many requests a second; once a walk has finished, a walk again (names and
    /// e-mails change) at one request every [`REWALK_SPACING`], so an idle browser costs the
    /// service little.
    Background(u32),
    /// As fast as the service answers (benches, `convo store sync --unpaced`).
    Unpaced,
}

/// The spacing of a background walk after the first one finished.
pub const REWALK_SPACING: Duration = Duration::from_secs(60);

impl Pace {
    /// The time between two requests.
    fn spacing(self) -> Duration {
        match self {
            Pace::PerSecond(n) | Pace::Background(n) => {
                Duration::from_secs(1) / n.max(1) + Duration::from_millis(1)
            }
            Pace::Unpaced => Duration::ZERO,
        }
    }

    /// The least time between two pages of a walk; `rewalk`: a walk has finished before.
    fn walk_spacing(self, rewalk: bool) -> Duration {
        match self {
            Pace::Background(_) if rewalk => REWALK_SPACING,
            _ => self.spacing(),
        }
    }
}

/// Where a walk stands, for a status line or a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Visitors received in this walk.
    pub walked: u64,
    /// Rows of the last complete walk, if one ever finished.
    pub last_total: Option<u64>,
    /// Pages fetched in this run.
    pub pages: u64,
    /// The walk reached the end of the list.
    pub done: bool,
    /// Waiting after a 429.
    pub backing_off: bool,
    /// Another convo on the same store walks; this one reads the names it writes.
    pub by_another: bool,
}

impl Progress {
    /// "names: 12,400 of ≥20,000 visitors" (or "names: 12,400 visitors so far" before any
    /// walk has finished; "names: all 20,113 visitors" when done).
    pub fn line(&self) -> String {
        let n = convo_text::thousands(self.walked);
        let mut s = if self.done {
            format!("names: all {n} visitors")
        } else {
            match self.last_total {
                Some(t) => format!(
                    "names: {n} of ≥{} visitors",
                    convo_text::thousands(t.max(self.walked))
                ),
                None => format!("names: {n} visitors so far"),
            }
        };
        if self.by_another && !self.done {
            s.push_str(", walked by another convo");
        }
        if self.backing_off {
            s.push_str(" (slowed down: rate limited)");
        }
        s
    }
}

/// Why a walk stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Api(#[from] ApiError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The service sent a cursor it had sent before: following it would loop.
    #[error("the visitors list sent a cursor it had already sent; the walk stops here")]
    Loop,
    /// Another convo took the walk over (this one's lease had expired): it goes on from the
    /// cursor kept; this one reads the names it writes.
    #[error("another convo took the visitor walk over")]
    LeaseLost,
}

/// What one call of [`walk`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub progress: Progress,
    /// Requests sent (pages, not counting the client's own retries).
    pub requests: u64,
}

/// Whether a full walk is due now: never done, under way, or the last one is older than
/// `rewalk_secs`.
pub fn due(state: &SyncState, now: i64, rewalk_secs: i64) -> bool {
    state.cursor.is_some()
        || state
            .finished_at
            .is_none_or(|t| now.saturating_sub(t) >= rewalk_secs)
}

/// The order the visitors list was seen to follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOrder {
    /// Fewer than two rows seen since the walk began.
    Learning,
    /// Every row seen follows it: the new end can be checked.
    Known(Order),
    /// No order convo knows fits the rows: full walks only.
    Unknown,
}

impl ListOrder {
    /// What the sync learned, from where it stands.
    pub fn of(state: &SyncState) -> ListOrder {
        match common_order(&[state.fits]) {
            Some(o @ (Order::CreatedDesc | Order::CreatedAsc)) if state.rows_seen >= 2 => {
                ListOrder::Known(o)
            }
            Some(_) if state.rows_seen < 2 => ListOrder::Learning,
            _ => ListOrder::Unknown,
        }
    }

    /// In words, for `convo store stats` and `convo doctor`.
    pub fn words(self) -> &'static str {
        match self {
            ListOrder::Learning => "in an order not learned yet (no page read)",
            ListOrder::Known(Order::CreatedAsc) => {
                "oldest first (learned from its rows): new visitors are read from the last page's cursor"
            }
            ListOrder::Known(_) => {
                "newest first (learned from its rows): new visitors are read from the top"
            }
            ListOrder::Unknown => {
                "in no order convo can learn from its rows: full walks only (visitor_rewalk), \
                 so new visitors are named only by the next walk"
            }
        }
    }
}

/// The one path the sync's requests take: paced, after the user's own fetches, slower after
/// a 429.
struct Requests<'a> {
    client: &'a Client,
    user: Option<Arc<UserFetches>>,
    base: Duration,
    spacing: Duration,
    last_start: Option<Instant>,
    sent: u64,
    backing_off: bool,
}

impl Requests<'_> {
    /// One page of the visitors list (full pages, `limit=100`) from `cursor`, at least
    /// `floor` after the last one.
    async fn page(
        &mut self,
        cursor: Option<&str>,
        floor: Duration,
    ) -> Result<Page<Visitor>, ApiError> {
        if let Some(u) = &self.user {
            u.idle().await;
        }
        let clock = self.client.clock();
        if let Some(t) = self.last_start {
            clock.sleep_until(t + self.spacing.max(floor)).await;
            // The user may have started a fetch while we slept: they go first.
            if let Some(u) = &self.user {
                u.idle().await;
            }
        }
        self.last_start = Some(clock.now());
        self.sent += 1;
        let limited = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let heard = limited.clone();
        let on_retry = move |n: RetryNotice| {
            if n.rate_limited {
                heard.store(true, Ordering::SeqCst);
            }
        };
        let page = self
            .client
            .list::<_, Visitor>(&VisitorFilter::default(), Limit::MAX, cursor, &on_retry)
            .await;
        if limited.load(Ordering::SeqCst) {
            self.spacing = (self.spacing.max(Duration::from_millis(500)) * 2).min(MAX_SPACING);
            self.backing_off = true;
        } else if self.spacing > self.base {
            self.spacing = (self.spacing / 2).max(self.base);
            self.backing_off = self.spacing > self.base;
        }
        page
    }
}

/// What a check of the new end did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// Read this many pages; this many visitors were new to the store.
    Read { pages: u32, new: u64 },
    /// Nothing to read from: the order is not known (yet), or (oldest first) no walk has
    /// reached the end yet, which the walk under way will do.
    Skipped,
}

/// The visitor sync of one store: its full walk, page by page, and its checks of the new end,
/// sharing one pace.
pub struct Syncer<'a> {
    store: &'a StoreTask,
    pace: Pace,
    req: Requests<'a>,
    state: SyncState,
    /// The walk's last row (its order is checked across pages).
    prev: Option<Visitor>,
    /// How this walk follows cursors (the engine's rules: a repeat would loop, `has_more`
    /// with no cursor ends the list). Where it stands is also kept in `state.cursor`, for
    /// the next run.
    cursors: Cursors,
    restarted: bool,
    progress: Progress,
    /// The lease this sync walks under (its holder id), when processes share the store: a
    /// page is kept as where the walk stands only while the lease is this one's.
    holder: Option<String>,
}

impl<'a> Syncer<'a> {
    /// The sync of `store`, from where it stands. `user` (the TUI's fetches) is waited for
    /// before each request.
    pub async fn open(
        client: &'a Client,
        store: &'a StoreTask,
        pace: Pace,
        user: Option<Arc<UserFetches>>,
    ) -> Result<Syncer<'a>, SyncError> {
        let state = store.call(|s| s.sync_state()).await?;
        let cursors = Cursors::resume(state.cursor.clone());
        let progress = Progress {
            walked: if state.cursor.is_some() {
                state.walked
            } else {
                0
            },
            last_total: state.last_total,
            pages: 0,
            done: false,
            backing_off: false,
            by_another: false,
        };
        Ok(Syncer {
            store,
            pace,
            req: Requests {
                client,
                user,
                base: pace.spacing(),
                spacing: pace.spacing(),
                last_start: None,
                sent: 0,
                backing_off: false,
            },
            state,
            prev: None,
            cursors,
            restarted: false,
            progress,
            holder: None,
        })
    }

    /// Walks under the lease of `holder` (see [`super::lease`]): a page written after another
    /// process took the walk over ends this sync's turn with [`SyncError::LeaseLost`].
    pub fn held_by(mut self, holder: &str) -> Self {
        self.holder = Some(holder.to_string());
        self
    }

    /// Where the sync stands.
    pub fn state(&self) -> &SyncState {
        &self.state
    }

    /// Where the walk stands.
    pub fn progress(&self) -> Progress {
        self.progress
    }

    /// Requests sent so far.
    pub fn requests(&self) -> u64 {
        self.req.sent
    }

    /// Takes `rows` (after `prev`) into the order being learned.
    fn learn_order(&mut self, prev: Option<&Visitor>, rows: &[Visitor]) {
        let f = orders_followed(prev, rows);
        for (k, fit) in f.iter().enumerate() {
            self.state.fits[k] &= *fit;
        }
        self.state.rows_seen += rows.len() as u64;
    }

    async fn record(&mut self, rows: Arc<Vec<Visitor>>, now: i64) -> Result<u64, SyncError> {
        let kept = self.state.clone();
        let holder = self.holder.clone();
        self.store
            .call(move |s| s.record_sync_page_as(&rows, &kept, now, holder.as_deref()))
            .await?
            .ok_or(SyncError::LeaseLost)
    }

    /// Fetches and keeps the next page of the full walk (the first of a new walk when none is
    /// under way); returns its rows.
    pub async fn walk_page(&mut self) -> Result<Vec<Visitor>, SyncError> {
        loop {
            if self.state.cursor.is_none() {
                // A new walk: its rows teach the order afresh.
                self.state.walked = 0;
                self.state.started_at = Some(jiff::Timestamp::now().as_second());
                self.state.fits = [true; 3];
                self.state.rows_seen = 0;
                self.prev = None;
                self.cursors = Cursors::new();
                self.progress.walked = 0;
                self.progress.done = false;
            }
            let asked = self.state.cursor.clone();
            let floor = self.pace.walk_spacing(self.state.last_total.is_some());
            let page = self.req.page(asked.as_deref(), floor).await;
            self.progress.backing_off = self.req.backing_off;
            let page = match page {
                Ok(p) => p,
                Err(ApiError::BadRequest { .. }) if asked.is_some() && !self.restarted => {
                    // The kept cursor is no longer accepted: start this walk over.
                    self.restarted = true;
                    self.state.cursor = None;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let now = jiff::Timestamp::now().as_second();
            let prev = self.prev.take();
            self.learn_order(prev.as_ref(), &page.items);
            self.prev = page.items.last().cloned().or(prev);
            self.state.walked += page.items.len() as u64;
            self.state.cursor = match self.cursors.follow(page.has_more, page.next_cursor) {
                Follow::Next(c) => Some(c),
                // The list ends here (`has_more` with no cursor is taken as its end).
                Follow::End | Follow::NoCursor => None,
                Follow::Loop => return Err(SyncError::Loop),
            };
            if self.state.cursor.is_none() {
                self.state.finished_at = Some(now);
                self.state.last_total = Some(self.state.walked);
                self.state.tail = Some(asked);
            }
            let rows = Arc::new(page.items);
            self.record(rows.clone(), now).await?;
            self.progress.walked = self.state.walked;
            self.progress.pages += 1;
            if self.state.cursor.is_none() {
                self.progress.done = true;
                self.progress.last_total = self.state.last_total;
            }
            return Ok(Arc::unwrap_or_clone(rows));
        }
    }

    /// Reads the list's new end into the store, as its learned order says (see the module);
    /// `on_rows` hears each page's rows (already in the store).
    pub async fn check_new_end<P: FnMut(&[Visitor])>(
        &mut self,
        on_rows: &mut P,
    ) -> Result<Checked, SyncError> {
        let oldest_first = match ListOrder::of(&self.state) {
            ListOrder::Known(Order::CreatedAsc) => true,
            ListOrder::Known(_) => false,
            _ => return Ok(Checked::Skipped),
        };
        let mut asked = if oldest_first {
            match self.state.tail.clone() {
                Some(t) => t,
                None => return Ok(Checked::Skipped),
            }
        } else {
            None
        };
        let (mut pages, mut new) = (0, 0);
        let mut cursors = Cursors::resume(asked.clone());
        loop {
            let page = match self.req.page(asked.as_deref(), Duration::ZERO).await {
                Ok(p) => p,
                Err(ApiError::BadRequest { .. }) if oldest_first && asked.is_some() => {
                    // The kept cursor is no longer accepted: the next walk finds the end.
                    self.state.tail = None;
                    self.record(Arc::new(Vec::new()), jiff::Timestamp::now().as_second())
                        .await?;
                    return Ok(Checked::Read { pages, new });
                }
                Err(e) => return Err(e.into()),
            };
            let now = jiff::Timestamp::now().as_second();
            pages += 1;
            self.learn_order(None, &page.items);
            self.state.checked_at = Some(now);
            // A cursor read already would loop: the check ends at this page, which is not the
            // list's end.
            let (next, looped) = match cursors.follow(page.has_more, page.next_cursor) {
                Follow::Next(c) => (Some(c), false),
                Follow::Loop => (None, true),
                Follow::End | Follow::NoCursor => (None, false),
            };
            if oldest_first && next.is_none() && !looped {
                self.state.tail = Some(asked.clone());
            }
            let rows = Arc::new(page.items);
            let fresh = self.record(rows.clone(), now).await?;
            new += fresh;
            on_rows(&rows);
            let Some(next) = next else {
                return Ok(Checked::Read { pages, new });
            };
            // Newest first: a page of known visitors is where the new end stops.
            if (!oldest_first && fresh == 0) || pages >= MAX_CHECK_PAGES {
                return Ok(Checked::Read { pages, new });
            }
            asked = Some(next);
        }
    }
}

/// Walks the visitors list to its end into the store, from where the last run stopped (or
/// from the start). `user` (the TUI's fetches) is waited for before each request.
/// `on_progress` hears after each page, with the page's rows (already in the store).
pub async fn walk<P: FnMut(Progress, &[Visitor])>(
    client: &Client,
    store: &StoreTask,
    pace: Pace,
    user: Option<Arc<UserFetches>>,
    on_progress: &mut P,
) -> Result<Outcome, SyncError> {
    let mut s = Syncer::open(client, store, pace, user).await?;
    on_progress(s.progress(), &[]);
    loop {
        let rows = s.walk_page().await?;
        let progress = s.progress();
        on_progress(progress, &rows);
        if progress.done {
            return Ok(Outcome {
                progress,
                requests: s.requests(),
            });
        }
    }
}
