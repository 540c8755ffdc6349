//! The union executor: a plan's streams walked side by side, merged lazily.
//!
//! Each stream is one cursor walk ([`Pager`]) with at most one request in flight; a stream's
//! next page is asked for only when the merge needs its next row (or, with `prefetch`, as soon
//! as its page before arrived: one page ahead). The streams share the client and at most
//! [`MAX_PARALLEL`] requests are in flight at once.
//!
//! The spec promises no order, so the merge learns it from the rows (decisions.md "Data"):
//! once every stream's first page is in, the first of createdAt descending, createdAt
//! ascending, updatedAt descending that every stream follows is the order the rows are merged
//! by. If no common order fits (or a stream leaves it later), each stream's rows are given in
//! turn, and a notice says so. A row two streams return is given once. A stream that fails is
//! named in a notice and the others go on.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use jiff::Timestamp;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::plan::query_string;
use crate::api::model::WireRow;
use crate::api::{ApiError, Client, Conversation, Limit, ListFilter, Page, Row, Visitor};
use crate::output::{bad_row_line, retry_line};
use crate::pager::Pager;

/// Requests in flight at once over all the streams of a union (decisions.md: `max_parallel`).
pub const MAX_PARALLEL: usize = 4;

/// A row's times, from which the service's order is learned.
pub trait Timed: Row {
    fn created(&self) -> Option<Timestamp>;
    fn updated(&self) -> Option<Timestamp>;
}

impl Timed for Conversation {
    fn created(&self) -> Option<Timestamp> {
        self.created_at.parsed()
    }
    fn updated(&self) -> Option<Timestamp> {
        self.updated_at.parsed()
    }
}

impl Timed for Visitor {
    fn created(&self) -> Option<Timestamp> {
        self.created_at.as_ref().and_then(|t| t.parsed())
    }
    fn updated(&self) -> Option<Timestamp> {
        None
    }
}

/// An order the service may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    CreatedDesc,
    CreatedAsc,
    UpdatedDesc,
}

impl Order {
    const ALL: [Order; 3] = [Order::CreatedDesc, Order::CreatedAsc, Order::UpdatedDesc];

    pub fn label(self) -> &'static str {
        match self {
            Order::CreatedDesc => "createdAt, newest first",
            Order::CreatedAsc => "createdAt, oldest first",
            Order::UpdatedDesc => "updatedAt, latest first",
        }
    }

    fn key<T: Timed>(self, r: &T) -> Option<Timestamp> {
        match self {
            Order::CreatedDesc | Order::CreatedAsc => r.created(),
            Order::UpdatedDesc => r.updated(),
        }
    }

    /// Whether `b` may follow `a` in this order.
    fn follows<T: Timed>(self, a: &T, b: &T) -> bool {
        match (self.key(a), self.key(b)) {
            (Some(x), Some(y)) => match self {
                Order::CreatedAsc => x <= y,
                _ => x >= y,
            },
            _ => false,
        }
    }

    /// Whether `a` comes before `b` (strictly).
    fn before<T: Timed>(self, a: &T, b: &T) -> bool {
        match (self.key(a), self.key(b)) {
            (Some(x), Some(y)) => match self {
                Order::CreatedAsc => x < y,
                _ => x > y,
            },
            (None, Some(_)) => true,
            _ => false,
        }
    }
}

/// Which of [`Order::CreatedDesc`], [`Order::CreatedAsc`], [`Order::UpdatedDesc`] `rows`
/// follow, coming after `prev` (the part's row before them, if any). A part of one row
/// follows every order; a time that cannot be read follows none.
pub fn orders_followed<T: Timed>(prev: Option<&T>, rows: &[T]) -> [bool; 3] {
    let mut fits = [true; 3];
    let mut before = prev;
    for row in rows {
        if let Some(p) = before {
            for (k, o) in Order::ALL.iter().enumerate() {
                fits[k] = fits[k] && o.follows(p, row);
            }
        }
        before = Some(row);
    }
    fits
}

/// The first known order every part follows (`fits` from [`orders_followed`]), if any.
pub fn common_order(fits: &[[bool; 3]]) -> Option<Order> {
    Order::ALL
        .iter()
        .enumerate()
        .find(|(k, _)| fits.iter().all(|f| f[*k]))
        .map(|(_, o)| *o)
}

/// How the union gives its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Merged by the order every stream follows.
    Ordered(Order),
    /// Each stream's rows in turn, as the service sends them (no common known order).
    InTurn,
}

/// One page request on its own task (which decodes the page too, off the merge's thread), with
/// the retry notices it heard.
struct Fetch<T> {
    task: JoinHandle<Result<Page<T>, ApiError>>,
    retries: Arc<Mutex<Vec<String>>>,
}

impl<T> Drop for Fetch<T> {
    /// A request nobody waits for any more is cancelled.
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Stream<F, T> {
    filter: F,
    pager: Pager<T>,
    buf: VecDeque<T>,
    in_flight: Option<Fetch<T>>,
    failed: bool,
    /// Orders its rows so far are consistent with.
    fits: [bool; 3],
    /// Its last row received (for checking the order across pages).
    last: Option<T>,
}

impl<F, T: Timed> Stream<F, T> {
    fn done(&self) -> bool {
        self.failed || (self.in_flight.is_none() && !self.pager.has_more())
    }
}

/// A union of streams, merged lazily. Rows come out of [`Union::next`].
pub struct Union<F, T> {
    client: Client,
    limit: Limit,
    streams: Vec<Stream<F, T>>,
    merge: Option<Merge>,
    seen: HashSet<Uuid>,
    permits: Arc<Semaphore>,
    prefetch: bool,
    requests: u64,
    notices: Vec<String>,
    failures: Vec<(usize, ApiError)>,
    bad_rows: usize,
    duplicates: usize,
}

impl<F, T> Union<F, T>
where
    F: ListFilter,
    T: WireRow + Timed + Clone + Send + 'static,
{
    /// A union of these streams (the plan's), `limit` rows a request. `prefetch`: ask for a
    /// stream's next page as soon as a page arrives (a walk of everything), not only when the
    /// merge needs it.
    pub fn new(client: Client, streams: Vec<F>, limit: Limit, prefetch: bool) -> Union<F, T> {
        Union {
            client,
            limit,
            streams: streams
                .into_iter()
                .map(|filter| Stream {
                    filter,
                    pager: Pager::new(limit.get()),
                    buf: VecDeque::new(),
                    in_flight: None,
                    failed: false,
                    fits: [true; 3],
                    last: None,
                })
                .collect(),
            merge: None,
            seen: HashSet::new(),
            permits: Arc::new(Semaphore::new(MAX_PARALLEL)),
            prefetch,
            requests: 0,
            notices: Vec::new(),
            failures: Vec::new(),
            bad_rows: 0,
            duplicates: 0,
        }
    }

    /// Requests sent so far (retries not counted).
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// How rows are merged, once the first pages are in.
    pub fn merge(&self) -> Option<Merge> {
        self.merge
    }

    /// Lines for stderr (retries, unreadable rows, a failed stream, the order), taken.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// The streams that failed: their number (from 0) and why.
    pub fn failures(&self) -> &[(usize, ApiError)] {
        &self.failures
    }

    /// Rows that could not be read, over every stream.
    pub fn bad_rows(&self) -> usize {
        self.bad_rows
    }

    /// Rows dropped because another stream (or the same one) had given them already.
    pub fn duplicates(&self) -> usize {
        self.duplicates
    }

    /// Whether some stream's walk ended before its list did (a failure, or a pager warning).
    pub fn incomplete(&self) -> bool {
        !self.failures.is_empty()
            || self
                .streams
                .iter()
                .any(|s| s.pager.warnings().ended_early())
    }

    /// Whether any stream may still have rows.
    pub fn has_more(&self) -> bool {
        self.streams.iter().any(|s| !s.buf.is_empty() || !s.done())
    }

    /// Pager warnings of every stream (for the end of a walk), naming the stream when several.
    pub fn warnings(&self) -> Vec<String> {
        let several = self.streams.len() > 1;
        let mut out = Vec::new();
        for (i, s) in self.streams.iter().enumerate() {
            for w in s.pager.warnings().messages() {
                if w.contains("unreadable") {
                    continue;
                }
                out.push(if several {
                    format!("stream {} ({}): {w}", i + 1, self.describe(i))
                } else {
                    w
                });
            }
        }
        out
    }

    fn describe(&self, i: usize) -> String {
        let q = query_string(&self.streams[i].filter);
        let path = F::RESOURCE.path();
        if q.is_empty() {
            format!("GET {path}")
        } else {
            format!("GET {path}?{q}")
        }
    }

    /// Starts stream `i`'s next request if it has none in flight and its walk goes on.
    fn start(&mut self, i: usize) {
        let s = &mut self.streams[i];
        if s.failed || s.in_flight.is_some() {
            return;
        }
        let Some(cursor) = s.pager.next_request() else {
            return;
        };
        let url = self.client.page_url(
            F::RESOURCE,
            &s.filter.query_pairs(),
            self.limit,
            cursor.as_deref(),
        );
        let retries = Arc::new(Mutex::new(Vec::new()));
        let heard = retries.clone();
        let client = self.client.clone();
        let permits = self.permits.clone();
        let task = tokio::spawn(async move {
            // Never closed, so acquiring cannot fail; without a permit it would still work.
            let _permit = permits.acquire_owned().await.ok();
            let on_retry = move |n: crate::api::RetryNotice| {
                if let Ok(mut e) = heard.lock() {
                    e.push(retry_line(&n));
                }
            };
            let body = client.get_body(url, &on_retry).await?;
            client.decode_page::<T>(&body)
        });
        self.requests += 1;
        s.in_flight = Some(Fetch { task, retries });
    }

    /// Waits for stream `i`'s request in flight (starting one if needed) and takes its page.
    async fn fill(&mut self, i: usize) {
        self.start(i);
        let Some(mut fetch) = self.streams[i].in_flight.take() else {
            return;
        };
        let result = match (&mut fetch.task).await {
            Ok(r) => r,
            Err(e) => Err(ApiError::Network {
                detail: format!("the request task ended: {e}"),
                attempts: 1,
            }),
        };
        if let Ok(mut l) = fetch.retries.lock() {
            self.notices.append(&mut l);
        }
        drop(fetch);
        let page = result;
        let several = self.streams.len() > 1;
        let name = self.describe(i);
        let s = &mut self.streams[i];
        let page = match page {
            Ok(p) => p,
            Err(e) => {
                s.pager.failed();
                s.failed = true;
                self.notices.push(if several {
                    format!(
                        "convo: stream {} of {} ({name}) failed: {e}; the other streams' rows are shown",
                        i + 1,
                        self.streams.len()
                    )
                } else {
                    format!("convo: {name} failed: {e}")
                });
                self.failures.push((i, e));
                return;
            }
        };
        let page_no = s.pager.pages() + 1;
        let applied = s.pager.apply(page);
        for b in &applied.bad_rows {
            self.bad_rows += 1;
            self.notices.push(bad_row_line(b, page_no));
        }
        let rows: Vec<T> = s.pager.drain_rows().collect();
        let fits = orders_followed(s.last.as_ref().or(s.buf.back()), &rows);
        for (have, now) in s.fits.iter_mut().zip(fits) {
            *have = *have && now;
        }
        if !rows.is_empty() {
            s.last = None;
        }
        s.buf.extend(rows);
        if self.prefetch {
            self.start(i);
        }
        // The order chosen must still hold for this stream.
        if let Some(Merge::Ordered(o)) = self.merge {
            let k = Order::ALL.iter().position(|x| *x == o).unwrap_or(0);
            if !self.streams[i].fits[k] {
                self.merge = Some(Merge::InTurn);
                self.notices.push(format!(
                    "convo: order: as the service sends each part (stream {} left {})",
                    i + 1,
                    o.label()
                ));
            }
        }
    }

    /// Fills every stream that is out of rows and not done, side by side.
    async fn fill_empty(&mut self) {
        let want: Vec<usize> = (0..self.streams.len())
            .filter(|&i| self.streams[i].buf.is_empty() && !self.streams[i].done())
            .collect();
        for &i in &want {
            self.start(i);
        }
        for i in want {
            self.fill(i).await;
        }
    }

    /// Learns the order from the first pages: the first every stream fits.
    fn decide(&mut self) {
        let live: Vec<&Stream<F, T>> = self.streams.iter().filter(|s| !s.failed).collect();
        if self.streams.len() <= 1 {
            self.merge = Some(Merge::InTurn);
            return;
        }
        let fits: Vec<[bool; 3]> = live.iter().map(|s| s.fits).collect();
        self.merge = Some(match common_order(&fits) {
            Some(o) => Merge::Ordered(o),
            None => {
                self.notices
                    .push("convo: order: as the service sends each part".to_string());
                Merge::InTurn
            }
        });
    }

    /// The next row of the union (each id once), `None` at its end.
    pub async fn next(&mut self) -> Option<T> {
        loop {
            if self.merge.is_none() {
                self.fill_empty().await;
                self.decide();
            }
            let pick = match self.merge {
                Some(Merge::Ordered(o)) => {
                    self.fill_empty().await;
                    // fill_empty may have switched to InTurn: then the next turn picks.
                    if self.merge != Some(Merge::Ordered(o)) {
                        continue;
                    }
                    let mut best: Option<usize> = None;
                    for (i, s) in self.streams.iter().enumerate() {
                        let Some(head) = s.buf.front() else { continue };
                        best = match best {
                            Some(b) if !o.before(head, &self.streams[b].buf[0]) => Some(b),
                            _ => Some(i),
                        };
                    }
                    best
                }
                _ => {
                    let mut found = None;
                    for i in 0..self.streams.len() {
                        if self.streams[i].buf.is_empty() && !self.streams[i].done() {
                            self.fill(i).await;
                        }
                        if !self.streams[i].buf.is_empty() {
                            found = Some(i);
                            break;
                        }
                    }
                    found
                }
            };
            let i = pick?;
            let s = &mut self.streams[i];
            let row = s.buf.pop_front()?;
            if s.buf.is_empty() {
                s.last = Some(row.clone());
            }
            if self.seen.insert(row.id()) {
                return Some(row);
            }
            self.duplicates += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Status, Timestamp as Stamp};

    fn conv(n: u128, created: &str, updated: &str) -> Conversation {
        Conversation {
            id: Uuid::from_u128(n),
            site_id: Uuid::nil(),
            visitor_id: Uuid::nil(),
            status: Status::Open,
            assignee_id: None,
            created_at: Stamp::parse(created),
            updated_at: Stamp::parse(updated),
        }
    }

    #[test]
    fn the_order_is_learned_from_the_rows() {
        let a = conv(1, "2026-11-20T10:00:00Z", "2026-11-20T11:00:00Z");
        let b = conv(2, "2026-11-20T09:00:00Z", "2026-11-20T12:00:00Z");
        let c = conv(3, "2026-11-20T08:00:00Z", "2026-11-20T10:30:00Z");
        let newest = orders_followed(None, &[a.clone(), b.clone(), c.clone()]);
        assert_eq!(newest, [true, false, false]);
        let oldest = orders_followed(None, &[c.clone(), b.clone(), a.clone()]);
        assert_eq!(oldest, [false, true, false]);
        let updated = orders_followed(None, &[b.clone(), a.clone(), c.clone()]);
        assert_eq!(updated, [false, false, true]);
        // Across pages: the row before the page counts.
        assert_eq!(
            orders_followed(Some(&c), std::slice::from_ref(&a)),
            [false, true, false]
        );
        // One row fits anything; an unreadable time fits nothing.
        assert_eq!(orders_followed(None, std::slice::from_ref(&a)), [true; 3]);
        let raw = conv(4, "yesterday", "yesterday");
        assert_eq!(orders_followed(Some(&a), &[raw]), [false; 3]);
        assert_eq!(common_order(&[newest, [true; 3]]), Some(Order::CreatedDesc));
        assert_eq!(
            common_order(&[updated, [true; 3]]),
            Some(Order::UpdatedDesc)
        );
        assert_eq!(
            common_order(&[newest, oldest]),
            None,
            "parts disagree: in turn"
        );
        assert_eq!(common_order(&[]), Some(Order::CreatedDesc));
    }
}
