//! The union executor: a plan's streams walked side by side, merged lazily.
//!
//! Each stream is one cursor walk ([`Pager`]) with at most one request in flight; a stream's
//! next page is asked for only when the merge needs its next row (or, with `prefetch`, as soon
//! as its page before arrived: one page ahead). The streams share the client and at most
//! [`MAX_PARALLEL`] requests are in flight at once.
//!
//! The merge itself (the order learned from the rows, each id once) is [`super::merge`], which
//! the browser's union tabs share. A stream that fails is named in a notice and the others go
//! on.

use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

pub use super::merge::{Merge, Order, Timed, common_order, orders_followed};
use super::merge::{Merger, Step};
use super::plan::request_line;
use crate::api::model::WireRow;
use crate::api::{ApiError, Client, Limit, ListFilter, Page};
use crate::output::{bad_row_line, retry_line};
use crate::pager::Pager;

/// Requests in flight at once over all the streams of a union (docs/design.md "Transport": `max_parallel`).
pub const MAX_PARALLEL: usize = 4;

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
    in_flight: Option<Fetch<T>>,
    failed: bool,
}

/// A union of streams, merged lazily. Rows come out of [`Union::next`].
pub struct Union<F, T> {
    client: Client,
    limit: Limit,
    streams: Vec<Stream<F, T>>,
    merger: Merger<T>,
    permits: Arc<Semaphore>,
    prefetch: bool,
    requests: u64,
    notices: Vec<String>,
    failures: Vec<(usize, ApiError)>,
    bad_rows: usize,
    /// Most requests the walk may send ([`Union::with_max_requests`]); `None`: no bound.
    max_requests: Option<u64>,
    /// The walk stopped because a row needed a request past `max_requests`.
    out_of_budget: bool,
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
            merger: Merger::new(streams.len()),
            streams: streams
                .into_iter()
                .map(|filter| Stream {
                    filter,
                    pager: Pager::new(limit.get()),
                    in_flight: None,
                    failed: false,
                })
                .collect(),
            permits: Arc::new(Semaphore::new(MAX_PARALLEL)),
            prefetch,
            requests: 0,
            notices: Vec::new(),
            failures: Vec::new(),
            bad_rows: 0,
            max_requests: None,
            out_of_budget: false,
        }
    }

    /// A page budget: the walk sends at most `n` requests (retries not counted) over all its
    /// streams, then ends ([`Union::next`] gives `None`) with [`Union::out_of_budget`] set, so
    /// the caller can say "≥ N" instead of a count.
    pub fn with_max_requests(mut self, n: u64) -> Self {
        self.max_requests = Some(n);
        self
    }

    /// Whether the walk ended at its page budget with rows left to read.
    pub fn out_of_budget(&self) -> bool {
        self.out_of_budget
    }

    fn budget_spent(&self) -> bool {
        self.max_requests.is_some_and(|m| self.requests >= m)
    }

    /// Requests sent so far (retries not counted).
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// How rows are merged, once the first pages are in.
    pub fn merge(&self) -> Option<Merge> {
        self.merger.merge()
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
        self.merger.duplicates()
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
        self.merger.has_more()
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
        request_line(&self.streams[i].filter)
    }

    /// Starts stream `i`'s next request if it has none in flight and its walk goes on.
    fn start(&mut self, i: usize) {
        let s = &mut self.streams[i];
        if s.failed || s.in_flight.is_some() {
            return;
        }
        if self.max_requests.is_some_and(|m| self.requests >= m) {
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
                self.merger.fail(i);
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
        let more = s.pager.has_more();
        self.merger.push(i, rows, more);
        if self.prefetch {
            self.start(i);
        }
        self.notices.extend(
            self.merger
                .take_notices()
                .into_iter()
                .map(|n| format!("convo: {n}")),
        );
    }

    /// The next row of the union (each id once), `None` at its end.
    pub async fn next(&mut self) -> Option<T> {
        loop {
            match self.merger.step() {
                Step::Row(r) => return Some(r),
                Step::End => return None,
                Step::Need(parts) => {
                    // Side by side: every request first, then each answer.
                    for &i in &parts {
                        self.start(i);
                    }
                    // A row waits on a page the budget does not allow: the walk ends here.
                    if self.budget_spent()
                        && parts.iter().any(|&i| self.streams[i].in_flight.is_none())
                    {
                        self.out_of_budget = true;
                        return None;
                    }
                    for i in parts {
                        self.fill(i).await;
                    }
                }
            }
        }
    }
}
