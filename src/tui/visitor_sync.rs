//! The runtime's side of the local store: opens it on its own thread (so a locked file never
//! holds the first frame), hands the known names to the screen, and runs the background
//! visitor sync (paced, after the user's own fetches). Anything wrong with the store is said
//! once on the status line; convo goes on without it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc;

use super::msg::Msg;
use super::names::VisitorLabel;
use crate::api::{Client, Visitor};
use crate::config::Config;
use crate::store::sync::{self, Pace, UserFetches};
use crate::store::{Store, StoreError, StoreTask};

/// The demo's server is on loopback: its names come in within a second or two.
const DEMO_RPS: u32 = 20;

/// The store link of a running TUI.
pub struct StoreLink {
    pub task: StoreTask,
    /// Set once a failure has been said.
    said: Arc<AtomicBool>,
    /// The task that sends the known names and runs the sync: stopped with the link (a
    /// profile switch drops the old profile's link).
    sync: tokio::task::AbortHandle,
    /// Keeps the request budget across runs ([`super::budget_keeper`]).
    budget: tokio::task::AbortHandle,
}

impl Drop for StoreLink {
    fn drop(&mut self) {
        self.sync.abort();
        self.budget.abort();
    }
}

fn labels(rows: &[Visitor]) -> Vec<(uuid::Uuid, VisitorLabel)> {
    rows.iter()
        .filter_map(|v| VisitorLabel::of(v).map(|l| (v.id, l)))
        .collect()
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
        let path = match crate::store::path_for(cfg) {
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
        let (t, s, tx2) = (task.clone(), said.clone(), tx.clone());
        let sync = tokio::spawn(async move {
            // A damaged file moved aside is said first; then the names known so far.
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
            match t.call(|st| st.visitor_names()).await {
                Ok(rows) => {
                    let l = rows
                        .into_iter()
                        .map(|r| {
                            let label = VisitorLabel {
                                name: r.name.map(Into::into),
                                email: r.email.map(Into::into),
                                external_id: r.external_id.map(Into::into),
                            };
                            (r.id, label)
                        })
                        .collect();
                    let _ = tx2.send(Msg::VisitorNames(l));
                }
                Err(e) => return say_once(&s, &tx2, &e),
            }
            if !run_sync {
                return;
            }
            loop {
                let state = match t.call(|st| st.sync_state()).await {
                    Ok(st) => st,
                    Err(e) => return say_once(&s, &tx2, &e),
                };
                let now = jiff::Timestamp::now().as_second();
                if sync::due(&state, now) {
                    let tx3 = tx2.clone();
                    let mut on_progress = move |p: sync::Progress, rows: &[Visitor]| {
                        if !rows.is_empty() {
                            let _ = tx3.send(Msg::VisitorNames(labels(rows)));
                        }
                        let line = (!p.done).then(|| p.line());
                        let _ = tx3.send(Msg::VisitorSync(line));
                    };
                    let r =
                        sync::walk(&client, &t, pace, Some(user.clone()), &mut on_progress).await;
                    if let Err(e) = r {
                        let _ = tx2.send(Msg::VisitorSync(None));
                        match e {
                            sync::SyncError::Store(e) => return say_once(&s, &tx2, &e),
                            e => {
                                let _ = tx2.send(Msg::Notice {
                                    text: format!(
                                        "visitor names: the sync stopped ({e}); it resumes at the next start"
                                    ),
                                    error: false,
                                });
                                return;
                            }
                        }
                    }
                }
                tokio::time::sleep(std::time::Duration::from_secs(60)).await;
            }
        });
        Some(StoreLink {
            task,
            said,
            sync: sync.abort_handle(),
            budget,
        })
    }

    /// Keeps visitor rows the user loaded; a failure is said once.
    /// Records `sample` (when given) under `key` and answers with the key's samples of the
    /// last 24 hours (`Msg::Samples`), for the summary pane's trend.
    pub fn samples(
        &self,
        key: String,
        sample: Option<crate::store::Sample>,
        tx: &mpsc::UnboundedSender<Msg>,
    ) {
        let since = jiff::Timestamp::now().as_second() - crate::store::samples::DAY_SECS;
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
    pub fn query_line(&self, tab: crate::api::Resource, tx: &mpsc::UnboundedSender<Msg>) {
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
                    let info = crate::query::eval::VisitorInfo {
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
