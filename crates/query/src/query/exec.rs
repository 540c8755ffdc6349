//! The union executor: a plan's streams walked side by side, merged lazily.
//!
//! Each stream is one cursor walk with at most one request in flight; a stream's
//! next page is asked for only when the merge needs its next row (or, with `prefetch`, as soon
//! as its page before arrived: one page ahead). The streams share the client, whose
//! `max_parallel` permits (one set per service, for every walk of the process) are the only
//! cap on the requests in flight at once.
//!
//! The walk itself (the streams' cursors, the order learned from the rows, each id once, the
//! request count budgets are kept by) is the engine's [`Streams`], which the browser's union
//! tabs drive too; this is its driver over the client. A stream that fails is named in a notice and the others go
//! on.

use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;

use super::plan::request_line;
use crate::output::{bad_row_line, retry_line};
use convo_api::model::WireRow;
use convo_api::{ApiError, Client, Limit, ListFilter, Page};
use convo_engine::merge::Step;
pub use convo_engine::merge::{Merge, Order, Timed, common_order, orders_followed};
use convo_engine::union::Streams;

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

/// A union of streams, merged lazily. Rows come out of [`Union::next`].
pub struct Union<F, T> {
    client: Client,
    limit: Limit,
    /// The walk itself: the streams' cursors and their merge (the engine's).
    walk: Streams<T, F>,
    /// Each stream's request in flight, by stream number.
    in_flight: Vec<Option<Fetch<T>>>,
    prefetch: bool,
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
            in_flight: streams.iter().map(|_| None).collect(),
            walk: Streams::new(streams, limit.get()),
            prefetch,
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
        self.max_requests.is_some_and(|m| self.walk.requests() >= m)
    }

    /// Requests sent so far (retries not counted).
    pub fn requests(&self) -> u64 {
        self.walk.requests()
    }

    /// How rows are merged, once the first pages are in.
    pub fn merge(&self) -> Option<Merge> {
        self.walk.merge()
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
        self.walk.duplicates()
    }

    /// Whether some stream's walk ended before its list did (a failure, or a pager warning).
    pub fn incomplete(&self) -> bool {
        self.walk.incomplete()
    }

    /// Whether any stream may still have rows.
    pub fn has_more(&self) -> bool {
        self.walk.has_more()
    }

    /// The walk warnings of every stream (for the end of a walk), naming the stream when several.
    pub fn warnings(&self) -> Vec<String> {
        let several = self.walk.len() > 1;
        let mut out = Vec::new();
        for (i, w) in self.walk.warnings() {
            for w in w.messages() {
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
        self.walk.filter(i).map(request_line).unwrap_or_default()
    }

    /// Starts stream `i`'s next request if it has none in flight and its walk goes on.
    fn start(&mut self, i: usize) {
        if self.in_flight.get(i).is_none_or(Option::is_some) || self.budget_spent() {
            return;
        }
        let Some(cursor) = self.walk.request(i) else {
            return;
        };
        let Some(filter) = self.walk.filter(i) else {
            return;
        };
        let url = self.client.page_url(
            F::RESOURCE,
            &filter.query_pairs(),
            self.limit,
            cursor.as_deref(),
        );
        let retries = Arc::new(Mutex::new(Vec::new()));
        let heard = retries.clone();
        let client = self.client.clone();
        let task = tokio::spawn(async move {
            let on_retry = move |n: convo_api::RetryNotice| {
                if let Ok(mut e) = heard.lock() {
                    e.push(retry_line(&n));
                }
            };
            let body = client.get_body(url, &on_retry).await?;
            client.decode_page::<T>(&body)
        });
        self.in_flight[i] = Some(Fetch { task, retries });
    }

    /// Waits for stream `i`'s request in flight (starting one if needed) and takes its page.
    async fn fill(&mut self, i: usize) {
        self.start(i);
        let Some(mut fetch) = self.in_flight.get_mut(i).and_then(Option::take) else {
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
        let page = match result {
            Ok(p) => p,
            Err(e) => {
                self.walk.fail(i, convo_text::one_line(&e.cause(), 2000));
                let name = self.describe(i);
                let n = self.walk.len();
                self.notices.push(if n > 1 {
                    format!(
                        "convo: stream {} of {n} ({name}) failed: {e}; the other streams' rows are shown",
                        i + 1,
                    )
                } else {
                    format!("convo: {name} failed: {e}")
                });
                self.failures.push((i, e));
                return;
            }
        };
        let page_no = self.walk.pages_of(i) + 1;
        for b in self.walk.page(i, page).unwrap_or_default() {
            self.bad_rows += 1;
            self.notices.push(bad_row_line(&b, page_no));
        }
        if self.prefetch {
            self.start(i);
        }
        self.notices.extend(
            self.walk
                .take_notices()
                .into_iter()
                .map(|n| format!("convo: {n}")),
        );
    }

    /// The next row of the union (each id once), `None` at its end.
    pub async fn next(&mut self) -> Option<T> {
        loop {
            match self.walk.step() {
                Step::Row(r) => return Some(r),
                Step::End => return None,
                Step::Need(parts) => {
                    // Side by side: every request first, then each answer.
                    for &i in &parts {
                        self.start(i);
                    }
                    // A row waits on a page the budget does not allow: the walk ends here.
                    if self.budget_spent()
                        && parts
                            .iter()
                            .any(|&i| self.in_flight.get(i).is_some_and(Option::is_none))
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
