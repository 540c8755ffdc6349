//! The walk of one filter's pages, as `convo list` and `convo summary` run it without a query,
//! the e-mail lookups too (the engine's walk driven over the client, the one driver of a
//! single stream on the command line): one
//! request at a time (each on a task of its own, cancelled when dropped), and on a walk of
//! everything the next page asked for before this one is decoded.
//!
//! A walk runs at the network's pace: when a page arrives, the next one is asked for from its
//! `next_cursor` (read from the end of the body, `peek_next`) before the page is decoded and
//! written, so the server works while convo decodes and prints. The guess is checked against
//! the walk once the page is decoded; a wrong one is cancelled and the right request sent.
//! Still one request in flight, and only when asked to `speculate`: otherwise the next page is
//! asked for once the caller says its rows will be wanted.

use crate::output::retry_line;
use convo_api::model::WireRow;
use convo_api::wire::envelope::peek_next;
use convo_api::{ApiError, BadRow, Client, Limit, ListFilter, Row};
use convo_engine::walk::Walk;

/// A page that arrived and was applied to the walk (its rows wait there).
pub struct Arrived {
    /// The page's number in the walk, from 1.
    pub page_no: usize,
    /// Its rows that could not be read.
    pub bad_rows: Vec<BadRow>,
}

/// The pages of one filter, walked in order.
pub struct Pages<'a, F, T: Row> {
    client: &'a Client,
    filter: &'a F,
    limit: Limit,
    walk: Walk<T>,
    speculate: bool,
    in_flight: Option<Fetch>,
}

impl<'a, F: ListFilter, T: Row + WireRow> Pages<'a, F, T> {
    /// A walk of `limit` rows a page; with `speculate`, each page's successor is asked for
    /// from the cursor at the end of its body, before it is decoded.
    pub fn new(client: &'a Client, filter: &'a F, limit: Limit, speculate: bool) -> Self {
        Pages {
            client,
            filter,
            limit,
            walk: Walk::new(limit.get(), 1),
            speculate,
            in_flight: None,
        }
    }

    /// The walk so far: its rows not yet drained, pages, warnings, whether more exist.
    pub fn walk(&self) -> &Walk<T> {
        &self.walk
    }

    /// Takes the rows the walk holds.
    pub fn drain_rows(&mut self) -> std::vec::Drain<'_, T> {
        self.walk.drain_rows()
    }

    /// The next page, applied to the walk; `None` when the list has no next page. The retry
    /// notices heard on the way go to `on_retry` first. Once the page is applied,
    /// `wants_next(walk)` says whether the page after it will be wanted: then it is asked for
    /// (or the guess kept, when it was right) before the rows are handed back.
    pub async fn next(
        &mut self,
        wants_next: impl FnOnce(&Walk<T>) -> bool,
        on_retry: &mut dyn FnMut(&str),
    ) -> Option<Result<Arrived, ApiError>> {
        let fetch = match self.in_flight.take() {
            Some(f) => f,
            None => {
                let cursor = self.walk.request()?;
                Fetch::start(self.client, self.filter, self.limit, cursor)
            }
        };
        let (result, retry_lines) = fetch.finish().await;
        for line in &retry_lines {
            on_retry(line);
        }
        let arrived = self.arrive(result, wants_next).await;
        if arrived.is_err() {
            // Nothing is in flight any more: the same cursor is asked for again if the caller
            // goes on.
            self.walk.stop();
        }
        Some(arrived)
    }

    async fn arrive(
        &mut self,
        body: Result<Vec<u8>, ApiError>,
        wants_next: impl FnOnce(&Walk<T>) -> bool,
    ) -> Result<Arrived, ApiError> {
        let body = body?;
        let guess = self.guess(&body).await;
        let page = self.client.decode_page::<T>(&body)?;
        drop(body);
        let page_no = self.walk.pages() + 1;
        let applied = self.walk.take(page);
        if wants_next(&self.walk)
            && let Some(cursor) = self.walk.request()
        {
            self.in_flight = Some(self.ask(cursor, guess).await);
        }
        // A guess the walk did not take (the walk ends) was cancelled as it was dropped.
        Ok(Arrived {
            page_no,
            bad_rows: applied.bad_rows,
        })
    }

    /// With `speculate`: the request for the page after `body`, from the cursor at its end,
    /// when the walk would follow it.
    async fn guess(&self, body: &[u8]) -> Option<(Fetch, String)> {
        if !self.speculate {
            return None;
        }
        let Some((true, Some(c))) = peek_next(body) else {
            return None;
        };
        if !self.walk.would_follow(c) {
            return None;
        }
        let fetch = Fetch::start(self.client, self.filter, self.limit, Some(c.into()));
        Fetch::let_it_leave().await;
        Some((fetch, c.to_string()))
    }

    /// The request for `cursor`: the guess when it asked for it; else (no guess, or a wrong
    /// one, cancelled as it is dropped) a new one, let out before the rows are written.
    async fn ask(&self, cursor: Option<String>, guess: Option<(Fetch, String)>) -> Fetch {
        match guess {
            Some((fetch, asked)) if cursor.as_deref() == Some(asked.as_str()) => fetch,
            wrong => {
                drop(wrong);
                let fetch = Fetch::start(self.client, self.filter, self.limit, cursor);
                Fetch::let_it_leave().await;
                fetch
            }
        }
    }
}

/// One page request running on its own task, with the retry notices it heard. The body comes
/// back undecoded: the walk reads the next cursor from it first.
struct Fetch {
    task: tokio::task::JoinHandle<Result<Vec<u8>, ApiError>>,
    retries: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Fetch {
    fn start<F: ListFilter>(
        client: &Client,
        filter: &F,
        limit: Limit,
        cursor: Option<String>,
    ) -> Self {
        let url = client.page_url(F::RESOURCE, &filter.query_pairs(), limit, cursor.as_deref());
        let retries = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let heard = retries.clone();
        let client = client.clone();
        let task = tokio::spawn(async move {
            let on_retry = move |n: convo_api::RetryNotice| {
                if let Ok(mut e) = heard.lock() {
                    e.push(retry_line(&n));
                }
            };
            client.get_body(url, &on_retry).await
        });
        Fetch { task, retries }
    }

    /// Lets a request just started reach the socket before the walk turns to work that does
    /// not yield (decoding, writing): `list` runs on one thread.
    async fn let_it_leave() {
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
    }

    /// The body (or the error), and the retry notices to print before it.
    async fn finish(mut self) -> (Result<Vec<u8>, ApiError>, Vec<String>) {
        let result = match (&mut self.task).await {
            Ok(r) => r,
            Err(e) => Err(ApiError::Network {
                detail: format!("the request task ended: {e}"),
                attempts: 1,
            }),
        };
        let lines = self
            .retries
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default();
        (result, lines)
    }
}

impl Drop for Fetch {
    /// A request nobody waits for any more (broken pipe, an error) is cancelled.
    fn drop(&mut self) {
        self.task.abort();
    }
}
