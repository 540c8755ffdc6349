//! The visitor walk shared by the processes of one store: a turn at the walk is taken under
//! the store's lease ([`super::lease`]), renewed in the background while held, and given back
//! when nothing is due; a process without the turn follows the one that has it (its progress
//! is read from the store, where the walk's position and the names are).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::lease::{Holder, LEASE, Lease};
use super::sync::{Outcome, Pace, Progress, SyncError, Syncer};
use super::{StoreError, StoreTask, SyncState};
use convo_api::{Client, Visitor};

/// A follower looks at the store this often: how soon it sees the walk's progress and the
/// names written, and takes the walk over from a holder that is gone.
pub const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// This process as a possible holder of the walk, and how long its lease lasts.
#[derive(Debug, Clone)]
pub struct Sharing {
    pub me: Arc<Holder>,
    /// [`LEASE`] but in tests (a short lease, so expiry is seen without waiting a minute).
    pub lease: Duration,
}

impl Sharing {
    /// This process, with a lease of `lease` (`None`: [`LEASE`]).
    pub fn new(lease: Option<Duration>) -> Sharing {
        Sharing {
            me: Arc::new(Holder::this_process()),
            lease: lease.unwrap_or(LEASE).max(Duration::from_millis(300)),
        }
    }

    fn now_ms() -> i64 {
        jiff::Timestamp::now().as_millisecond()
    }

    /// Takes the turn at the walk, or says who has it.
    pub async fn take(&self, store: &StoreTask) -> Result<Turn, StoreError> {
        let (me, len) = (self.me.clone(), self.lease);
        match store
            .call(move |s| s.take_lease(&me, Sharing::now_ms(), len))
            .await?
        {
            Lease::Taken { taken_over } => {
                if taken_over {
                    tracing::info!("visitor walk taken over from a convo that is gone or stopped");
                }
                Ok(Turn::Mine(Held::keep(store.clone(), self.clone())))
            }
            Lease::HeldBy { pid, host } => Ok(Turn::Theirs { pid, host }),
        }
    }
}

/// Who has the walk.
#[derive(Debug)]
pub enum Turn {
    Mine(Held),
    Theirs { pid: u32, host: String },
}

/// The turn at the walk, held: renewed every third of a lease until let go or lost.
#[derive(Debug)]
pub struct Held {
    store: StoreTask,
    sharing: Sharing,
    lost: Arc<AtomicBool>,
    asked: Arc<AtomicBool>,
    keeper: tokio::task::AbortHandle,
    released: bool,
}

impl Held {
    fn keep(store: StoreTask, sharing: Sharing) -> Held {
        let (lost, asked) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let (t, sh, l, a) = (store.clone(), sharing.clone(), lost.clone(), asked.clone());
        let keeper = tokio::spawn(async move {
            loop {
                tokio::time::sleep(sh.lease / 3).await;
                let (me, len) = (sh.me.clone(), sh.lease);
                match t
                    .call(move |s| s.renew_lease(&me, Sharing::now_ms(), len))
                    .await
                {
                    Ok(Some(check)) => {
                        if check {
                            a.store(true, Ordering::SeqCst);
                        }
                    }
                    // Another took it, or the store failed (the walk's own write says so).
                    Ok(None) | Err(_) => {
                        l.store(true, Ordering::SeqCst);
                        return;
                    }
                }
            }
        })
        .abort_handle();
        Held {
            store,
            sharing,
            lost,
            asked,
            keeper,
            released: false,
        }
    }

    /// The holder id a [`Syncer`] walks under ([`Syncer::held_by`]).
    pub fn id(&self) -> &str {
        &self.sharing.me.id
    }

    /// The lease was found taken by another at a renewal.
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }

    /// Another process asked for a check of the new end (taken once).
    pub fn take_asked(&self) -> bool {
        self.asked.swap(false, Ordering::SeqCst)
    }

    /// Gives the turn back (waits for the store to have done it).
    pub async fn release(mut self) {
        self.keeper.abort();
        let me = self.sharing.me.clone();
        let _ = self.store.call(move |s| s.release_lease(&me)).await;
        self.released = true;
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        // Given back when the turn ends any other way (an error, a profile switch).
        self.keeper.abort();
        if self.released {
            return;
        }
        let me = self.sharing.me.clone();
        self.store.submit(move |s| s.release_lease(&me));
    }
}

/// Where another process's walk stands, as the store says: for the follower's status line.
pub fn followed(state: &SyncState) -> Progress {
    let under_way = state.cursor.is_some();
    Progress {
        walked: if under_way {
            state.walked
        } else {
            state.last_total.unwrap_or(0)
        },
        last_total: state.last_total,
        pages: 0,
        done: !under_way && state.finished_at.is_some(),
        backing_off: false,
        by_another: true,
    }
}

/// `convo store sync` with other processes on the store: walks the visitors list to its end
/// under the lease, or, while another process walks, follows it (its progress is heard, with
/// `by_another`) until that walk ends, taking it over from the cursor kept if its holder
/// stops. A walk that another process finished after this one began is not done again.
pub async fn walk_shared<P: FnMut(Progress, &[Visitor])>(
    client: &Client,
    store: &StoreTask,
    pace: Pace,
    sharing: &Sharing,
    on_progress: &mut P,
) -> Result<Outcome, SyncError> {
    let began = jiff::Timestamp::now().as_second();
    let mut requests = 0;
    let finished_since =
        |st: &SyncState| st.cursor.is_none() && st.finished_at.is_some_and(|f| f >= began);
    loop {
        match sharing.take(store).await? {
            Turn::Mine(held) => {
                let mut s = Syncer::open(client, store, pace, None)
                    .await?
                    .held_by(held.id());
                if finished_since(s.state()) {
                    held.release().await;
                    return Ok(Outcome {
                        progress: followed(s.state()),
                        requests,
                    });
                }
                on_progress(s.progress(), &[]);
                loop {
                    if held.lost() {
                        break;
                    }
                    match s.walk_page().await {
                        Ok(rows) => on_progress(s.progress(), &rows),
                        Err(SyncError::LeaseLost) => break,
                        Err(e) => {
                            held.release().await;
                            return Err(e);
                        }
                    }
                    if s.progress().done {
                        held.release().await;
                        return Ok(Outcome {
                            progress: s.progress(),
                            requests: requests + s.requests(),
                        });
                    }
                }
                requests += s.requests();
                drop(held);
            }
            Turn::Theirs { .. } => {
                let st = store.call(|s| s.sync_state()).await?;
                if finished_since(&st) {
                    return Ok(Outcome {
                        progress: followed(&st),
                        requests,
                    });
                }
                on_progress(followed(&st), &[]);
                tokio::time::sleep(FOLLOW_EVERY).await;
            }
        }
    }
}
