//! The visitor sync: a walk of `GET /v1/visitors` (full pages, `limit=100`) into the store, so
//! names appear where ids were without the user visiting the Visitors tab.
//!
//! - Paced: requests start at least `1 / rps` seconds apart (plus a millisecond), so no second
//!   ever holds more than `rps` of them and there is no burst after a pause. An open
//!   browser's sync ([`Pace::Background`]) walks again, once a walk has finished, at one
//!   request a minute; its client is a background one, so it also spends only its share of
//!   the service's request budget (`api::budget`).
//! - Yields: before each request it waits until the user's own fetches (counted by
//!   [`UserFetches`]) are done; those do not count against the pace.
//! - Backs off: a 429 (the client already waits `Retry-After`) doubles the spacing, up to
//!   30 s; it comes back down by halves after clean pages.
//! - Resumes: the next cursor is kept with each page's rows (one transaction), so a restart
//!   goes on where the last run stopped. A cursor the service no longer accepts restarts the
//!   walk from the first page. The spec promises no order, so every walk is a full walk; a
//!   finished walk is done again when it is older than [`REWALK_AFTER_SECS`].

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::{StoreError, StoreTask, SyncState};
use crate::api::{ApiError, Client, Limit, RetryNotice, Visitor, VisitorFilter};

/// A finished walk is done again after this long (the next start or the next round).
pub const REWALK_AFTER_SECS: i64 = 15 * 60;

/// Longest spacing after repeated 429s.
const MAX_SPACING: Duration = Duration::from_secs(30);

/// Counts the user's own fetches in flight; the sync waits while any is.
#[derive(Debug, Default)]
pub struct UserFetches {
    busy: AtomicUsize,
    idle: Notify,
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
        loop {
            let notified = self.idle.notified();
            if self.in_flight() == 0 {
                return;
            }
            notified.await;
        }
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
    /// An open browser's background sync: the first walk at most this many requests a
    /// second; once a walk has finished, a walk again (names and e-mails change) at one
    /// request every [`REWALK_SPACING`], so an idle browser costs the service little.
    Background(u32),
    /// As fast as the service answers (benches, `convo store sync --unpaced`).
    Unpaced,
}

/// The spacing of a background walk after the first one finished.
pub const REWALK_SPACING: Duration = Duration::from_secs(60);

impl Pace {
    /// The time between two requests; `rewalk`: a walk has finished before.
    fn spacing(self, rewalk: bool) -> Duration {
        match self {
            Pace::Background(_) if rewalk => REWALK_SPACING,
            Pace::PerSecond(n) | Pace::Background(n) => {
                Duration::from_secs(1) / n.max(1) + Duration::from_millis(1)
            }
            Pace::Unpaced => Duration::ZERO,
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
}

impl Progress {
    /// "names: 12,400 of ≥20,000 visitors" (or "names: 12,400 visitors so far" before any
    /// walk has finished; "names: all 20,113 visitors" when done).
    pub fn line(&self) -> String {
        let n = crate::text::thousands(self.walked);
        let mut s = if self.done {
            format!("names: all {n} visitors")
        } else {
            match self.last_total {
                Some(t) => format!(
                    "names: {n} of ≥{} visitors",
                    crate::text::thousands(t.max(self.walked))
                ),
                None => format!("names: {n} visitors so far"),
            }
        };
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
}

/// What one call of [`walk`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub progress: Progress,
    /// Requests sent (pages, not counting the client's own retries).
    pub requests: u64,
}

/// Whether a walk is due now: never done, under way, or the last one is old.
pub fn due(state: &SyncState, now: i64) -> bool {
    state.cursor.is_some()
        || state
            .finished_at
            .is_none_or(|t| now.saturating_sub(t) >= REWALK_AFTER_SECS)
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
    let mut state = store.call(|s| s.sync_state()).await?;
    let now = jiff::Timestamp::now().as_second();
    if state.cursor.is_none() {
        state.walked = 0;
        state.started_at = Some(now);
    }
    let mut progress = Progress {
        walked: state.walked,
        last_total: state.last_total,
        pages: 0,
        done: false,
        backing_off: false,
    };
    on_progress(progress, &[]);
    let base = pace.spacing(state.last_total.is_some());
    let mut spacing = base;
    let mut last_start: Option<Instant> = None;
    let mut seen = HashSet::new();
    let mut restarted = false;
    let mut requests = 0u64;
    let filter = VisitorFilter::default();
    loop {
        if let Some(u) = &user {
            u.idle().await;
        }
        if let Some(t) = last_start {
            tokio::time::sleep_until(t + spacing).await;
            // The user may have started a fetch while we slept: they go first.
            if let Some(u) = &user {
                u.idle().await;
            }
        }
        last_start = Some(Instant::now());
        requests += 1;
        let limited = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let heard = limited.clone();
        let on_retry = move |n: RetryNotice| {
            if n.rate_limited {
                heard.store(true, Ordering::SeqCst);
            }
        };
        let page = client
            .list::<_, Visitor>(&filter, Limit::MAX, state.cursor.as_deref(), &on_retry)
            .await;
        if limited.load(Ordering::SeqCst) {
            spacing = (spacing.max(Duration::from_millis(500)) * 2).min(MAX_SPACING.max(base));
            progress.backing_off = true;
        } else if spacing > base {
            spacing = (spacing / 2).max(base);
            progress.backing_off = spacing > base;
        }
        let page = match page {
            Ok(p) => p,
            Err(ApiError::BadRequest { .. }) if state.cursor.is_some() && !restarted => {
                // The kept cursor is no longer accepted: start this walk over.
                restarted = true;
                state.cursor = None;
                state.walked = 0;
                progress.walked = 0;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let now = jiff::Timestamp::now().as_second();
        state.walked += page.items.len() as u64;
        let next = page.next_cursor.filter(|_| page.has_more);
        if let Some(c) = &next
            && !seen.insert(c.clone())
        {
            return Err(SyncError::Loop);
        }
        state.cursor = next;
        if state.cursor.is_none() {
            state.finished_at = Some(now);
            state.last_total = Some(state.walked);
        }
        let rows = Arc::new(page.items);
        let kept = state.clone();
        let written = rows.clone();
        store
            .call(move |s| s.record_sync_page(&written, &kept, now))
            .await?;
        progress.walked = state.walked;
        progress.pages += 1;
        if state.cursor.is_none() {
            progress.done = true;
            progress.last_total = state.last_total;
            on_progress(progress, &rows);
            return Ok(Outcome { progress, requests });
        }
        on_progress(progress, &rows);
    }
}
