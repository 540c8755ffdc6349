//! The runtime's side of a look-ahead chain (`crate::ahead` keeps its accounting in the app):
//! the task of each page asks for the next page the moment its body names the cursor (before
//! it decodes its own page, before the loop sees it) while the app's grant allows, then sends
//! its page to the loop in walk order. The runtime keeps no state of the walk: per tab the
//! chain's number and its [`Credit`] (the grant the app sets, and the tasks to abort).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::{AbortHandle, JoinHandle};

use super::Runtime;
use super::request::{decode, fetch_body, retry_notices};
use crate::command::RequestFilter;
use crate::msg::{Msg, Task};
use convo_api::wire::envelope::peek_next;
use convo_api::{Client, Limit, Resource};

pub use crate::ahead::AHEAD_PAGES;

/// The pages a chain may ask for in all, as the app last granted
/// ([`crate::command::Command::Grant`]), and what stops the chain.
#[derive(Default)]
pub(super) struct Credit {
    granted: AtomicUsize,
    /// Wakes a chain that waits for credit.
    more: Notify,
    /// The chain was replaced or cancelled: nothing more is asked for, nor sent to the loop.
    stopped: AtomicBool,
    /// The chain's tasks that may still run (a page's, and the next one's it started).
    tasks: Mutex<Vec<AbortHandle>>,
}

impl Credit {
    pub(super) fn set(&self, pages: usize) {
        self.granted.store(pages, Ordering::Release);
        self.more.notify_one();
    }

    /// Stops the chain: its tasks are aborted, a request in flight with them.
    pub(super) fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        for t in self
            .tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
        {
            t.abort();
        }
        self.more.notify_one();
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// Whether the chain may ask for its page number `sent + 1`.
    fn allows(&self, sent: usize) -> bool {
        sent < self.granted.load(Ordering::Acquire)
    }

    /// Waits until the chain may ask for its page number `sent + 1`; false when it was stopped.
    async fn wait_for(&self, sent: usize) -> bool {
        loop {
            let more = self.more.notified();
            if self.stopped() {
                return false;
            }
            if self.allows(sent) {
                return true;
            }
            more.await;
        }
    }

    fn track(&self, task: AbortHandle) {
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        tasks.retain(|t| !t.is_finished());
        if self.stopped() {
            task.abort();
        } else {
            tasks.push(task);
        }
    }
}

/// What a chain asks with, shared by the tasks of its pages.
pub(super) struct Chain {
    pub(super) client: Client,
    pub(super) query: RequestFilter,
    pub(super) limit: Limit,
    pub(super) tab: Resource,
    pub(super) generation: u64,
    pub(super) chain: u64,
    pub(super) credit: Arc<Credit>,
    pub(super) tx: mpsc::UnboundedSender<Msg>,
    pub(super) user_fetches: Arc<convo_store::sync::UserFetches>,
}

impl Runtime {
    /// Starts chain `c` at `from`: it replaces the tab's page fetch or chain in flight.
    pub(super) fn spawn_chain(&mut self, c: Chain, from: Option<String>) {
        let tab = c.tab;
        if let Some((_, old)) = self.chains.insert(tab, (c.chain, c.credit.clone())) {
            old.stop();
        }
        #[cfg(feature = "testing")]
        if self
            .test_fault
            .take_if(|f| *f == convo_query::testing::PanicAt::Fetch)
            .is_some()
        {
            let generation = c.generation;
            let task = crate::tasks::spawn(Task::Page { tab, generation }, &self.tx, async {
                panic!("CONVO_TEST_PANIC=fetch: this fetch task panics (test only)");
            });
            if let Some(old) = self.tasks.insert((tab, false), task) {
                old.abort();
            }
            return;
        }
        let (first, turn) = oneshot::channel();
        let _ = first.send(());
        let task = ask(Arc::new(c), from, 1, turn);
        if let Some(old) = self.tasks.insert((tab, false), task) {
            old.abort();
        }
    }
}

/// The task of the chain's page number `sent` (at `cursor`): its request, the next page's
/// asked for as soon as its body names the cursor (credit permitting, else once the app
/// grants it), its page decoded and sent to the loop when `turn` says the page before it has
/// gone. The visitor sync waits while its request is in flight.
fn ask(
    c: Arc<Chain>,
    cursor: Option<String>,
    sent: usize,
    turn: oneshot::Receiver<()>,
) -> JoinHandle<()> {
    let busy = c.user_fetches.begin();
    let me = c.clone();
    let task = crate::tasks::spawn(
        Task::Page {
            tab: c.tab,
            generation: c.generation,
        },
        &c.tx,
        async move {
            let c = me;
            let on_retry = retry_notices(&c.tx, c.tab, c.generation, false, cursor.as_deref());
            let body = fetch_body(&c.client, &c.query, c.limit, cursor.as_deref(), &on_retry).await;
            drop(busy);
            let (gone, next_turn) = oneshot::channel();
            let mut waiting = None;
            if let Ok(b) = &body
                && let Some((true, Some(next))) = peek_next(b)
                && !next.is_empty()
            {
                if c.credit.allows(sent) && !c.credit.stopped() {
                    ask(c.clone(), Some(next.to_string()), sent + 1, next_turn);
                    let_it_leave().await;
                } else {
                    waiting = Some((next.to_string(), next_turn));
                }
            }
            let result = decode(&c.client, &c.query, body);
            let failed = result.is_err();
            if let Err(e) = &result {
                tracing::warn!(tab = ?c.tab, "fetch failed: {e}");
            }
            // In walk order: after the page before this one (an error ends the chain).
            let _ = turn.await;
            if c.credit.stopped() {
                return;
            }
            let _ = c.tx.send(Msg::AheadLoaded {
                tab: c.tab,
                generation: c.generation,
                chain: c.chain,
                result,
            });
            let _ = gone.send(());
            if let Some((next, next_turn)) = waiting.filter(|_| !failed)
                && c.credit.wait_for(sent).await
            {
                ask(c.clone(), Some(next), sent + 1, next_turn);
            }
        },
    );
    c.credit.track(task.abort_handle());
    task
}

/// Lets a request just asked for ahead reach the socket before its walk turns to decoding (work
/// that does not yield): a task spawned from a worker waits in that worker's LIFO slot, which
/// no other worker steals, until the spawning task yields (as `convo list` does).
async fn let_it_leave() {
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
}
