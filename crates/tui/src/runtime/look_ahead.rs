//! The look-ahead of a walk (`L`, or a reload read behind the screen): the pages after the
//! app's are asked for as soon as their cursors arrive, kept per tab until the app asks for
//! them, and stopped when the walk no longer wants them.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Runtime;
use super::request::{decode, fetch_body, retry_notices};
use crate::app::App;
use crate::command::RequestFilter;
use crate::msg::{Loaded, Msg, Task};
use convo_api::wire::envelope::peek_next;
use convo_api::{ApiError, Client, Limit, Resource};

/// How many pages a walk that wants the whole list (`L`) may have asked for ahead of the
/// pages the app has asked for: each is asked for as soon as the page before it named its
/// cursor (one request in flight at a time, as `convo list` does), whether or not the loop
/// has applied that page yet, so the walk goes at the server's pace while the loop applies
/// and draws; it waits here when the loop falls this far behind.
pub const AHEAD_PAGES: usize = 4;

/// A page of a walk asked for ahead, before the app asked for it: its request, then its
/// decoded answer.
pub(super) struct Ahead {
    pub(super) cursor: String,
    task: JoinHandle<()>,
    pub(super) page: tokio::sync::oneshot::Receiver<Result<Loaded, ApiError>>,
}

/// Per tab, the walk the fetches belong to: its generation, the cursors asked for in it (a
/// cursor seen again is never asked for ahead: the pager will call it a loop) and the pages
/// asked for ahead.
#[derive(Default)]
pub(super) struct Walk {
    pub(super) generation: u64,
    pub(super) asked: HashSet<String>,
    /// Pages asked for ahead, in walk order (the first is the next the app will ask for).
    pub(super) ahead: VecDeque<Ahead>,
    /// How many pages may be asked for ahead: 0, 1 (a reload read behind the screen), or
    /// [`AHEAD_PAGES`] (the whole list). Set from the app after every update.
    pub(super) room: usize,
    /// The cursor after the last page asked for ahead, when `room` stopped the walk there.
    pub(super) paused: Option<String>,
    /// The app asked for the first page asked for ahead before it arrived: its task sends it
    /// to the loop when it has decoded it.
    pub(super) wanted: Option<String>,
}

impl Walk {
    pub(super) fn cancel_ahead(&mut self) {
        for a in self.ahead.drain(..) {
            a.task.abort();
        }
        self.paused = None;
        self.wanted = None;
        self.room = 0;
    }
}

/// What a fetch task of a walk needs to ask for the page after its own.
#[derive(Clone)]
pub(super) struct Asker {
    pub(super) walks: Walks,
    pub(super) client: Client,
    pub(super) query: RequestFilter,
    pub(super) limit: Limit,
    pub(super) tx: mpsc::UnboundedSender<Msg>,
    pub(super) tab: Resource,
    pub(super) generation: u64,
    /// The visitor sync waits while a page asked for ahead is in flight, as for any fetch of
    /// the user's.
    pub(super) user_fetches: Arc<convo_store::sync::UserFetches>,
}

impl Asker {
    /// The page at `cursor` is asked for ahead (`w` is this walk's): a task fetches it, asks
    /// for the one after it in turn (room permitting), then decodes it.
    fn ask(&self, w: &mut Walk, cursor: String) {
        w.asked.insert(cursor.clone());
        let (put, page) = tokio::sync::oneshot::channel();
        let (me, c) = (self.clone(), cursor.clone());
        let busy = self.user_fetches.begin();
        let task = crate::tasks::spawn(
            Task::Page {
                tab: self.tab,
                generation: self.generation,
            },
            &self.tx,
            async move {
                let _busy = busy;
                let on_retry = retry_notices(&me.tx, me.tab, me.generation, false, Some(&c));
                let body = fetch_body(&me.client, &me.query, me.limit, Some(&c), &on_retry).await;
                if let Ok(b) = &body
                    && me.go_on(b)
                {
                    let_it_leave().await;
                }
                let result = decode(&me.client, &me.query, body);
                let mut all = lock(&me.walks);
                match all.get_mut(&me.tab) {
                    // The app asked for it meanwhile: it goes to the loop at once.
                    Some(w) if w.generation == me.generation && w.wanted.as_ref() == Some(&c) => {
                        w.wanted = None;
                        w.ahead.pop_front();
                        me.resume(w);
                        drop(all);
                        let _ = me.tx.send(Msg::PageLoaded {
                            tab: me.tab,
                            generation: me.generation,
                            result,
                        });
                    }
                    // Kept until the app asks for it (under the lock: see `spawn`).
                    _ => {
                        let _ = put.send(result);
                    }
                }
            },
        );
        w.ahead.push_back(Ahead { cursor, task, page });
    }

    /// The first page asked for ahead has gone to the app: its place in the queue is free, and
    /// the walk goes on if it waited for room.
    pub(super) fn resume(&self, w: &mut Walk) {
        if w.ahead.len() < w.room
            && let Some(next) = w.paused.take()
        {
            self.ask(w, next);
        }
    }

    /// A body of this walk has arrived: the page after it is asked for at once, before this
    /// one is decoded, if the walk wants it and has room; else it waits in `paused`.
    /// True when it asked.
    pub(super) fn go_on(&self, body: &[u8]) -> bool {
        let Some((true, Some(next))) = peek_next(body) else {
            return false;
        };
        let mut all = lock(&self.walks);
        let Some(w) = all.get_mut(&self.tab) else {
            return false;
        };
        if w.generation != self.generation || next.is_empty() || w.asked.contains(next) {
            return false;
        }
        if w.ahead.len() < w.room {
            self.ask(w, next.to_string());
            return true;
        }
        if w.room > 0 {
            w.paused = Some(next.to_string());
        }
        false
    }
}

pub(super) type Walks = Arc<Mutex<HashMap<Resource, Walk>>>;

impl Runtime {
    /// After every update: a walk that no longer wants pages ahead (`Esc` stopped `L`, the
    /// walk failed or was replaced) stops asking for them.
    pub(super) fn settle_walks(&mut self, app: &App) {
        let mut all = lock(&self.walks);
        for (tab, w) in all.iter_mut() {
            if w.room == 0 {
                continue;
            }
            let room = with_tab!(ref app, *tab, |t| ahead_room(
                t.wants_whole(w.generation),
                t.asks_ahead(w.generation)
            ));
            if room < w.room {
                w.room = room;
                if room == 0 {
                    w.paused = None;
                }
            }
        }
    }
}

/// How many pages a walk may ask for ahead: [`AHEAD_PAGES`] when it wants the whole list, one
/// when it wants the next page whatever this one brings, else none.
pub(super) fn ahead_room(whole: bool, next: bool) -> usize {
    match (whole, next) {
        (true, _) => AHEAD_PAGES,
        (false, true) => 1,
        (false, false) => 0,
    }
}

/// Lets a request just asked for ahead reach the socket before its walk turns to decoding (work
/// that does not yield): a task spawned from a worker waits in that worker's LIFO slot, which
/// no other worker steals, until the spawning task yields (as `convo list` does).
pub(super) async fn let_it_leave() {
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
}

pub(super) fn lock(walks: &Walks) -> std::sync::MutexGuard<'_, HashMap<Resource, Walk>> {
    walks.lock().unwrap_or_else(|p| p.into_inner())
}
