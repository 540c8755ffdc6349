//! The runtime's side of a look-ahead chain (`crate::ahead` keeps its accounting in the app):
//! one task per chain asks for the page at its cursor, then for each next page the moment a
//! body names its cursor (before that page is decoded, before the loop sees it) while the
//! app's grant allows, and sends each page to the loop in walk order. It keeps no state of
//! the walk: the task, and the grant the app sets ([`Credit`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

use super::Runtime;
use super::request::{decode, fetch_body, retry_notices};
use crate::command::RequestFilter;
use crate::msg::{Msg, Task};
use convo_api::wire::envelope::peek_next;
use convo_api::{ApiError, Client, Limit, Resource};

pub use crate::ahead::AHEAD_PAGES;

/// The pages a chain may ask for in all, as the app last granted ([`crate::command::Command::Grant`]).
#[derive(Default)]
pub(super) struct Credit {
    granted: AtomicUsize,
    /// Wakes a chain that waits for credit.
    more: Notify,
}

impl Credit {
    pub(super) fn set(&self, pages: usize) {
        self.granted.store(pages, Ordering::Release);
        self.more.notify_one();
    }

    /// Waits until the chain may ask for its page number `sent + 1`.
    async fn wait_for(&self, sent: usize) {
        loop {
            let more = self.more.notified();
            if sent < self.granted.load(Ordering::Acquire) {
                return;
            }
            more.await;
        }
    }

    fn allows(&self, sent: usize) -> bool {
        sent < self.granted.load(Ordering::Acquire)
    }
}

/// Aborts its request when dropped (the chain aborted takes its request with it).
struct Request(JoinHandle<Result<Vec<u8>, ApiError>>);

impl Drop for Request {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What a chain asks with.
pub(super) struct Chain {
    pub(super) client: Client,
    pub(super) query: RequestFilter,
    pub(super) limit: Limit,
    pub(super) tab: Resource,
    pub(super) generation: u64,
    pub(super) chain: u64,
    pub(super) credit: Arc<Credit>,
}

impl Runtime {
    /// Starts chain `c` at `from` (its task replaces the tab's page fetch or chain in flight).
    pub(super) fn spawn_chain(&mut self, c: Chain, from: Option<String>) {
        #[cfg(feature = "testing")]
        let panic_now = self
            .test_fault
            .take_if(|f| *f == convo_query::testing::PanicAt::Fetch)
            .is_some();
        let tx = self.tx.clone();
        let user_fetches = self.user_fetches.clone();
        let (tab, generation) = (c.tab, c.generation);
        self.chains.insert(tab, (c.chain, c.credit.clone()));
        let task = crate::tasks::spawn(Task::Page { tab, generation }, &self.tx, async move {
            #[cfg(feature = "testing")]
            if panic_now {
                panic!("CONVO_TEST_PANIC=fetch: this fetch task panics (test only)");
            }
            c.walk(from, &tx, &user_fetches).await;
        });
        if let Some(old) = self.tasks.insert((tab, false), task) {
            old.abort();
        }
    }
}

impl Chain {
    /// One request of the chain, in a task of its own so that it leaves while the page before
    /// it is decoded; the visitor sync waits while it is in flight.
    fn ask(
        &self,
        cursor: Option<String>,
        tx: &mpsc::UnboundedSender<Msg>,
        user_fetches: &Arc<convo_store::sync::UserFetches>,
    ) -> Request {
        let busy = user_fetches.begin();
        let on_retry = retry_notices(tx, self.tab, self.generation, false, cursor.as_deref());
        let (client, query, limit) = (self.client.clone(), self.query.clone(), self.limit);
        let task = tokio::spawn(async move {
            let _busy = busy;
            fetch_body(&client, &query, limit, cursor.as_deref(), &on_retry).await
        });
        Request(task)
    }

    async fn walk(
        self,
        from: Option<String>,
        tx: &mpsc::UnboundedSender<Msg>,
        user_fetches: &Arc<convo_store::sync::UserFetches>,
    ) {
        self.credit.wait_for(0).await;
        let mut sent = 1;
        let mut pending = Some(self.ask(from, tx, user_fetches));
        while let Some(mut request) = pending.take() {
            let body = match (&mut request.0).await {
                Ok(body) => body,
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(_) => return, // aborted
            };
            // The page after this one, asked for at once when the grant allows it.
            let next = match &body {
                Ok(b) => match peek_next(b) {
                    Some((true, Some(next))) if !next.is_empty() => Some(next.to_string()),
                    _ => None,
                },
                Err(_) => None,
            };
            let mut waiting = None;
            if let Some(next) = next {
                if self.credit.allows(sent) {
                    sent += 1;
                    pending = Some(self.ask(Some(next), tx, user_fetches));
                    let_it_leave().await;
                } else {
                    waiting = Some(next);
                }
            }
            let result = decode(&self.client, &self.query, body);
            let failed = result.is_err();
            if let Err(e) = &result {
                tracing::warn!(tab = ?self.tab, "fetch failed: {e}");
            }
            let sent_to_loop = tx.send(Msg::AheadLoaded {
                tab: self.tab,
                generation: self.generation,
                chain: self.chain,
                result,
            });
            if failed || sent_to_loop.is_err() {
                return;
            }
            if let Some(next) = waiting {
                self.credit.wait_for(sent).await;
                sent += 1;
                pending = Some(self.ask(Some(next), tx, user_fetches));
            }
        }
    }
}

/// Lets a request just asked for ahead reach the socket before its walk turns to decoding (work
/// that does not yield): a task spawned from a worker waits in that worker's LIFO slot, which
/// no other worker steals, until the spawning task yields (as `convo list` does).
async fn let_it_leave() {
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
}
