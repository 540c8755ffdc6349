//! The runtime's side of the local store: opens it on its own thread (so a locked file never
//! holds the first frame), reads the names the screen asks for, and runs the background
//! visitor sync (paced, after the user's own fetches): the full walk when it is due
//! (`visitor_rewalk`), and a check of the list's new end when a row has a visitor the store
//! does not know (and otherwise every [`CHECK_EVERY`]). With other convos on the same store,
//! one of them does this at a time (the store's lease, `store::sharing`); the others follow it
//! (docs/store-and-budget.md, "Many windows on one store"). Anything wrong with the store is
//! said once on the status line; convo goes on without it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};
use tokio::time::Instant;

use super::msg::Msg;
use super::names::VisitorLabel;
use convo_api::{Client, Visitor};
use convo_config::Config;
use convo_store::sharing::{FOLLOW_EVERY, Held, Sharing, Turn};
use convo_store::sync::{self, Pace, UserFetches};
use convo_store::{Store, StoreError, StoreTask};

/// The demo's server is on loopback: its names come in within a second or two.
const DEMO_RPS: u32 = 20;

/// Unprompted, the list's new end is checked this often.
pub const CHECK_EVERY: Duration = Duration::from_secs(10 * 60);

/// Checks asked for by rows start at least this far apart (a burst of pages is one check);
/// after a check that found no new visitor the gap doubles, up to [`MAX_GAP`] (rows of old
/// visitors the walk has not reached yet are not at the new end).
const MIN_GAP: Duration = Duration::from_secs(1);
const MAX_GAP: Duration = Duration::from_secs(60);

/// "A row has a visitor the store does not know": wakes the sync for a check of the new end.
#[derive(Debug, Default)]
struct Nudge {
    set: AtomicBool,
    wake: Notify,
}

impl Nudge {
    fn nudge(&self) {
        self.set.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    fn take(&self) -> bool {
        self.set.swap(false, Ordering::SeqCst)
    }
}

/// The walk's lease: a test build may shorten it (`CONVO_TEST_LEASE_MS`).
fn lease_for_tests() -> Option<Duration> {
    #[cfg(feature = "testing")]
    return convo_query::testing::lease();
    #[cfg(not(feature = "testing"))]
    None
}

/// The store link of a running TUI.
pub struct StoreLink {
    pub task: StoreTask,
    /// Set once a failure has been said.
    said: Arc<AtomicBool>,
    /// The task that runs the sync: stopped with the link (a profile switch drops the old
    /// profile's link).
    sync: tokio::task::AbortHandle,
    /// Keeps the request budget across runs ([`super::budget_keeper`]).
    budget: tokio::task::AbortHandle,
    nudge: Arc<Nudge>,
}

impl Drop for StoreLink {
    fn drop(&mut self) {
        self.sync.abort();
        self.budget.abort();
    }
}

fn labels(rows: &[Visitor]) -> Vec<(uuid::Uuid, Option<VisitorLabel>)> {
    rows.iter().map(|v| (v.id, VisitorLabel::of(v))).collect()
}

/// Says a store failure on the status line, once per run (`store = false` says nothing).
fn say_once(said: &AtomicBool, tx: &mpsc::UnboundedSender<Msg>, e: &StoreError) {
    if matches!(e, StoreError::Disabled) || said.swap(true, Ordering::SeqCst) {
        return;
    }
    let _ = tx.send(Msg::Notice {
        text: e.to_string(),
        error: true,
    });
}

impl StoreLink {
    /// Opens this config's store and, when `visitor_sync` is on, starts the walk. `None` when
    /// the store is off (`store = false`) or has no place (said once).
    pub fn start(
        cfg: &Config,
        demo: bool,
        look_key: String,
        client: Client,
        tx: mpsc::UnboundedSender<Msg>,
        user: Arc<UserFetches>,
    ) -> Option<StoreLink> {
        let said = Arc::new(AtomicBool::new(false));
        let path = match convo_store::path_for(cfg) {
            Ok(p) => p,
            Err(e) => {
                say_once(&said, &tx, &e);
                return None;
            }
        };
        let task = match StoreTask::spawn_with(move || Store::open(&path)) {
            Ok(t) => t,
            Err(e) => {
                let _ = tx.send(Msg::Notice {
                    text: format!(
                        "cannot start the local store's thread ({e}): running without it"
                    ),
                    error: true,
                });
                return None;
            }
        };
        let pace = if demo {
            Pace::Background(cfg.store.visitor_sync_rps.max(DEMO_RPS))
        } else {
            Pace::Background(cfg.store.visitor_sync_rps)
        };
        let budget = super::budget_keeper::spawn(task.clone(), client.clone());
        let run_sync = cfg.store.visitor_sync;
        // The sync is background work: it spends only its share of the request budget.
        let client = client.background();
        let rewalk = cfg.store.visitor_rewalk_secs;
        let nudge = Arc::new(Nudge::default());
        let (t, s, tx2, n) = (task.clone(), said.clone(), tx.clone(), nudge.clone());
        let sync = tokio::spawn(async move {
            // A damaged file moved aside is said first; then the last look.
            match t.call(|st| Ok(st.notice.take())).await {
                Ok(Some(n)) => {
                    let _ = tx2.send(Msg::Notice {
                        text: n,
                        error: false,
                    });
                }
                Ok(None) => {}
                Err(e) => return say_once(&s, &tx2, &e),
            }
            let key = look_key.clone();
            match t.call(move |st| st.look(&key)).await {
                Ok(Some(snap)) => {
                    let _ = tx2.send(Msg::LastLook {
                        key: look_key,
                        taken_at: snap.taken_at,
                        rows: snap.rows.iter().map(|r| (r.id, r.watched)).collect(),
                    });
                }
                Ok(None) => {}
                Err(e) => return say_once(&s, &tx2, &e),
            }
            if run_sync {
                let run = SyncRun {
                    client: &client,
                    store: &t,
                    tx: &tx2,
                    nudge: &n,
                    rewalk,
                    sharing: Sharing::new(lease_for_tests()),
                };
                if let Err(e) = run.run(pace, user).await {
                    let _ = tx2.send(Msg::VisitorSync(None));
                    match e {
                        sync::SyncError::Store(e) => say_once(&s, &tx2, &e),
                        e => {
                            let _ = tx2.send(Msg::Notice {
                                text: format!(
                                    "visitor names: the sync stopped ({e}); it resumes at the next start"
                                ),
                                error: false,
                            });
                        }
                    }
                }
            }
        });
        Some(StoreLink {
            task,
            said,
            sync: sync.abort_handle(),
            budget,
            nudge,
        })
    }

    /// Keeps visitor rows the user loaded; a failure is said once.
    /// Records `sample` (when given) under `key` and answers with the key's samples of the
    /// last 24 hours (`Msg::Samples`), for the summary pane's trend.
    pub fn samples(
        &self,
        key: String,
        sample: Option<convo_store::Sample>,
        tx: &mpsc::UnboundedSender<Msg>,
    ) {
        let since = jiff::Timestamp::now().as_second() - convo_store::samples::DAY_SECS;
        let k = key.clone();
        let answer = self.task.run(move |s| {
            if let Some(sample) = &sample {
                s.record_sample(&k, sample)?;
            }
            s.samples_since(&k, since)
        });
        let (said, tx) = (self.said.clone(), tx.clone());
        tokio::spawn(async move {
            match answer.await {
                Ok(Ok(samples)) => {
                    let _ = tx.send(Msg::Samples { key, samples });
                }
                Ok(Err(e)) => say_once(&said, &tx, &e),
                Err(_) => {}
            }
        });
    }

    /// Reads the query line's history of `tab` and the attribute keys
    /// (`Msg::QueryLineLoaded`).
    pub fn query_line(&self, tab: convo_api::Resource, tx: &mpsc::UnboundedSender<Msg>) {
        let answer = self
            .task
            .run(move |s| Ok((s.query_history(tab)?, s.attribute_keys()?)));
        let (said, tx) = (self.said.clone(), tx.clone());
        tokio::spawn(async move {
            match answer.await {
                Ok(Ok((history, attr_keys))) => {
                    let _ = tx.send(Msg::QueryLineLoaded {
                        tab,
                        history,
                        attr_keys,
                    });
                }
                Ok(Err(e)) => say_once(&said, &tx, &e),
                Err(_) => {}
            }
        });
    }

    /// Reads one visitor's attributes (`Msg::VisitorAttributes`; `Null` when unknown).
    pub fn attributes(&self, id: uuid::Uuid, tx: &mpsc::UnboundedSender<Msg>) {
        let answer = self.task.run(move |s| s.visitor(id));
        let (said, tx) = (self.said.clone(), tx.clone());
        tokio::spawn(async move {
            match answer.await {
                Ok(Ok(v)) => {
                    let attributes = v.map_or(serde_json::Value::Null, |v| v.attributes_json());
                    let _ = tx.send(Msg::VisitorAttributes { id, attributes });
                }
                Ok(Err(e)) => say_once(&said, &tx, &e),
                Err(_) => {}
            }
        });
    }

    /// Reads visitors `ids` for a union's checks (`Msg::StoreVisitors`; a store that fails
    /// is said once and answers as none).
    pub fn visitors(&self, ids: Vec<uuid::Uuid>, tx: &mpsc::UnboundedSender<Msg>) {
        let asked = ids.clone();
        let answer = self.task.run(move |s| {
            let mut known = Vec::new();
            for id in ids {
                if let Some(v) = s.visitor(id)? {
                    let info = convo_query::query::eval::VisitorInfo {
                        attributes: v.attributes_json(),
                        name: v.name,
                        email: v.email,
                    };
                    known.push((id, info));
                }
            }
            Ok(known)
        });
        let (said, tx) = (self.said.clone(), tx.clone());
        tokio::spawn(async move {
            let (known, store) = match answer.await {
                Ok(Ok(known)) => (known, true),
                Ok(Err(e)) => {
                    say_once(&said, &tx, &e);
                    (Vec::new(), false)
                }
                Err(_) => (Vec::new(), false),
            };
            let _ = tx.send(Msg::StoreVisitors {
                asked,
                known,
                store,
            });
        });
    }

    pub fn keep(&self, rows: Vec<Visitor>, tx: &mpsc::UnboundedSender<Msg>) {
        let answer = self
            .task
            .run(move |s| s.upsert_visitors(&rows, jiff::Timestamp::now().as_second()));
        let (said, tx) = (self.said.clone(), tx.clone());
        tokio::spawn(async move {
            if let Ok(Err(e)) = answer.await {
                say_once(&said, &tx, &e);
            }
        });
    }
}

/// Reads the names of `ids` (with their rows) from the store (`Msg::NamesLoaded`); those it
/// does not know are noted for `convo store stats` and wake the sync. Without a store, none
/// is known.
pub fn load_names(
    link: &Option<StoreLink>,
    ids: Vec<(uuid::Uuid, u32)>,
    tx: &mpsc::UnboundedSender<Msg>,
) {
    let asked: Vec<uuid::Uuid> = ids.iter().map(|(id, _)| *id).collect();
    let Some(link) = link else {
        let _ = tx.send(Msg::NamesLoaded {
            asked,
            found: Vec::new(),
        });
        return;
    };
    let q = asked.clone();
    let answer = link.task.run(move |s| {
        let rows = s.names_of(&q)?;
        let known: std::collections::HashSet<uuid::Uuid> = rows.iter().map(|r| r.id).collect();
        let unknown: Vec<(uuid::Uuid, u32)> = ids
            .into_iter()
            .filter(|(id, _)| !known.contains(id))
            .collect();
        s.note_unknown(&unknown, jiff::Timestamp::now().as_second())?;
        Ok((rows, !unknown.is_empty()))
    });
    let (said, tx, nudge) = (link.said.clone(), tx.clone(), link.nudge.clone());
    tokio::spawn(async move {
        let found = match answer.await {
            Ok(Ok((rows, unknown))) => {
                if unknown {
                    nudge.nudge();
                }
                rows.into_iter()
                    .map(|r| {
                        let l = VisitorLabel::from_fields(
                            r.name.as_deref(),
                            r.email.as_deref(),
                            r.external_id.as_deref(),
                        );
                        (r.id, l)
                    })
                    .collect()
            }
            Ok(Err(e)) => {
                say_once(&said, &tx, &e);
                Vec::new()
            }
            Err(_) => Vec::new(),
        };
        let _ = tx.send(Msg::NamesLoaded { asked, found });
    });
}

/// One run of the visitor sync in the TUI.
struct SyncRun<'a> {
    client: &'a Client,
    store: &'a StoreTask,
    tx: &'a mpsc::UnboundedSender<Msg>,
    nudge: &'a Nudge,
    rewalk: i64,
    sharing: Sharing,
}

/// When the next checks of the new end are due, in this process.
struct Checks {
    /// The unprompted check (every [`CHECK_EVERY`], counted from the store's last check).
    rare: Instant,
    /// A check asked for by rows, not before this.
    asked_at: Instant,
    gap: Duration,
    asked: bool,
}

impl Checks {
    fn due(&self, state: &convo_store::SyncState, at: Instant, now: i64) -> bool {
        let rare = at >= self.rare
            && state
                .checked_at
                .is_none_or(|c| now.saturating_sub(c) >= CHECK_EVERY.as_secs() as i64);
        rare || (self.asked && at >= self.asked_at)
    }
}

/// Why a turn at the walk ended.
enum TurnEnd {
    /// Nothing is due: the lease was given back.
    Idle,
    /// Another process took the walk over.
    Lost,
}

impl SyncRun<'_> {
    /// With other convos on the same store, one walks (and checks the new end) at a time:
    /// this one takes the turn when something is due and the turn is free, else follows the
    /// one that has it (its progress on the status line, the names it writes asked of the
    /// store). Ends only on an error.
    async fn run(&self, pace: Pace, user: Arc<UserFetches>) -> Result<(), sync::SyncError> {
        let state = self.store.call(|s| s.sync_state()).await?;
        let start = Instant::now();
        let now = jiff::Timestamp::now().as_second();
        let age = state.checked_at.map_or(i64::MAX, |c| now.saturating_sub(c));
        let mut checks = Checks {
            rare: start + CHECK_EVERY.saturating_sub(Duration::from_secs(age.max(0) as u64)),
            asked_at: start,
            gap: MIN_GAP,
            asked: false,
        };
        // The other's walk as last seen, and whether a line about it is shown.
        let mut seen: Option<u64> = None;
        let mut shown = false;
        loop {
            checks.asked |= self.nudge.take();
            let state = self.store.call(|s| s.sync_state()).await?;
            let now = jiff::Timestamp::now().as_second();
            let at = Instant::now();
            let walk_due = sync::due(&state, now, self.rewalk);
            if walk_due || checks.due(&state, at, now) {
                match self.sharing.take(self.store).await? {
                    Turn::Mine(held) => {
                        seen = None;
                        match self.turn(held, pace, user.clone(), &mut checks).await? {
                            TurnEnd::Idle => {
                                let _ = self.tx.send(Msg::VisitorSync(None));
                                shown = false;
                            }
                            TurnEnd::Lost => {}
                        }
                        continue;
                    }
                    Turn::Theirs { .. } => {
                        if checks.asked {
                            // The holder checks the new end for us.
                            self.store.call(|s| s.ask_check().map(|_| ())).await?;
                            checks.asked = false;
                        }
                        if state.cursor.is_some() {
                            let line = convo_store::sharing::followed(&state).line();
                            let _ = self.tx.send(Msg::VisitorSync(Some(line)));
                            shown = true;
                        }
                        if seen.is_some_and(|w| w != state.walked) {
                            let _ = self.tx.send(Msg::NamesWritten);
                        }
                        seen = Some(state.walked);
                        tokio::select! {
                            _ = self.nudge.wake.notified() => {}
                            _ = tokio::time::sleep(FOLLOW_EVERY) => {}
                        }
                        continue;
                    }
                }
            }
            if shown {
                // The other's walk ended: its last names are read once more.
                let _ = self.tx.send(Msg::VisitorSync(None));
                let _ = self.tx.send(Msg::NamesWritten);
                shown = false;
            }
            seen = None;
            // Nothing due: wait for a row to ask, the next check or the next walk.
            let to_walk = state
                .finished_at
                .map_or(0, |f| (f + self.rewalk).saturating_sub(now))
                .max(1) as u64;
            let mut until = checks.rare.min(at + Duration::from_secs(to_walk));
            if checks.asked {
                until = until.min(checks.asked_at);
            }
            let wait = until.saturating_duration_since(at);
            tokio::select! {
                _ = self.nudge.wake.notified() => {}
                _ = tokio::time::sleep(wait.max(Duration::from_millis(50))) => {}
            }
        }
    }

    /// A turn at the walk: checks the new end when asked (by rows here or by another convo)
    /// or every [`CHECK_EVERY`], and walks while the walk is due; gives the turn back when
    /// nothing is.
    async fn turn(
        &self,
        held: Held,
        pace: Pace,
        user: Arc<UserFetches>,
        checks: &mut Checks,
    ) -> Result<TurnEnd, sync::SyncError> {
        let mut s = sync::Syncer::open(self.client, self.store, pace, Some(user))
            .await?
            .held_by(held.id());
        loop {
            if held.lost() {
                return Ok(TurnEnd::Lost);
            }
            checks.asked |= self.nudge.take() | held.take_asked();
            let now = jiff::Timestamp::now().as_second();
            let at = Instant::now();
            if checks.due(s.state(), at, now) {
                let tx = self.tx;
                let checked = s
                    .check_new_end(&mut |rows: &[Visitor]| {
                        let _ = tx.send(Msg::VisitorNames(labels(rows)));
                    })
                    .await;
                let checked = match checked {
                    Err(sync::SyncError::LeaseLost) => return Ok(TurnEnd::Lost),
                    other => other?,
                };
                checks.rare = Instant::now() + CHECK_EVERY;
                match checked {
                    sync::Checked::Read { new, .. } => {
                        checks.gap = if new > 0 {
                            MIN_GAP
                        } else {
                            (checks.gap * 2).min(MAX_GAP)
                        };
                        checks.asked_at = Instant::now() + checks.gap;
                        checks.asked = false;
                    }
                    // No order yet: the walk under way (if any) teaches it, then try again.
                    sync::Checked::Skipped => {
                        checks.asked &= sync::due(s.state(), now, self.rewalk);
                        checks.asked_at = Instant::now() + MIN_GAP;
                    }
                }
                continue;
            }
            if sync::due(s.state(), now, self.rewalk) {
                let rows = match s.walk_page().await {
                    Err(sync::SyncError::LeaseLost) => return Ok(TurnEnd::Lost),
                    other => other?,
                };
                let p = s.progress();
                if !rows.is_empty() {
                    let _ = self.tx.send(Msg::VisitorNames(labels(&rows)));
                }
                let _ = self.tx.send(Msg::VisitorSync((!p.done).then(|| p.line())));
                continue;
            }
            held.release().await;
            return Ok(TurnEnd::Idle);
        }
    }
}
