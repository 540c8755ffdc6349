//! Test-only data churn: the demo server's conversations change between requests, so the
//! browser's "what changed" marks and periodic refresh can be tried and tested.
//!
//! New conversations get the newest `createdAt` (one second after the head), so they land at
//! the newest end of the API order (the head; the tail with `--order oldest`) and keyset
//! cursors handed out earlier stay valid; a share of them (`new_visitors`) is by a visitor
//! created with it, at the newest end of the visitors list. A reassignment
//! or a pick-up changes the assignee (and `updatedAt`) of a row in place; its position does
//! not move. The indexes are rebuilt after each change (positions shift by one per insert).
//!
//! By the wall clock (`--churn N`, `convo --demo`) arrivals and pick-ups alternate, so the
//! live queue of [`super::queue`] keeps its length, and agents mostly take the longest waiting:
//! the queue keeps conversations in each state through a session. Every other pick-up, the
//! agent also closes an open conversation they had taken earlier. Each change happens at the
//! time it was due (the k-th at `started + k × 60 s / N`), never later than now: changes
//! caught up on a request after a quiet spell keep their own times, so no conversation is
//! created in the future.

use std::sync::{PoisonError, RwLock, RwLockReadGuard};
use std::time::Instant;

use jiff::{SignedDuration, Timestamp};

use super::data::{Dataset, DemoConversation, Indexes, REFERENCE_TIME, Rng};

/// How the conversations change. All zero (the default): never.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Churn {
    /// About N changes a minute by the wall clock, alternately a new conversation and a
    /// pick-up of a waiting one by an agent (`--churn N`).
    pub per_minute: u32,
    /// Deterministic: every first-page conversations request (no cursor) after the first adds
    /// this many new, open, unassigned conversations at the head.
    pub new_per_head: u32,
    /// Deterministic: … and first reassigns this many distinct rows among the first ten.
    pub reassign_per_head: u32,
    /// Changes come only from the test through [`crate::DemoServer::assign`] (the
    /// data is kept in a changeable copy; nothing changes by itself).
    pub scripted: bool,
    /// Percent of new conversations started by a new visitor, who joins the visitors list at
    /// its newest end (`--churn-new-visitors P`; 0: new conversations are by known visitors).
    pub new_visitors: u32,
}

/// Whether new conversations are created "now" by the wall clock (an anchored dataset, as
/// `--demo` serves: the queue's ages then grow in real time) or one second after the head
/// (fixed times, for tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Clock {
    Wall,
    AfterHead,
}

impl Churn {
    /// Whether any churn is on.
    pub fn is_on(&self) -> bool {
        self.per_minute > 0 || self.new_per_head > 0 || self.reassign_per_head > 0 || self.scripted
    }
}

/// How many of the first rows a reassignment picks from (they are on the first page).
const REASSIGN_WINDOW: usize = 10;

/// How many of the first rows a pick-up looks for waiting conversations in (the live queue is
/// at the head; nobody older waits).
const PICK_UP_WINDOW: usize = 1000;

/// The changing copy of the data and what has been done to it.
#[derive(Debug)]
pub(crate) struct Live {
    pub data: Dataset,
    pub ix: Indexes,
    rng: Rng,
    /// Wall-clock changes done so far.
    timed: u64,
    /// First-page requests seen so far.
    heads: u64,
    started: Instant,
    /// The wall clock when the churn started (the time of change k is reckoned from it).
    started_at: Timestamp,
    clock: Clock,
    /// `--order oldest`: the newest rows are at the end of each list.
    oldest_first: bool,
}

/// The churn state shared by the handlers: a lock around [`Live`]. Only built when churn is
/// on, so the normal path takes no lock.
#[derive(Debug)]
pub(crate) struct Churning {
    pub churn: Churn,
    live: RwLock<Live>,
}

impl Churning {
    /// A churning copy of `data`, seeded from `seed`.
    pub fn new(
        churn: Churn,
        data: &Dataset,
        seed: u64,
        clock: Clock,
        oldest_first: bool,
    ) -> Churning {
        Churning {
            churn,
            live: RwLock::new(Live {
                data: data.clone(),
                ix: Indexes::build(data),
                rng: Rng::new(seed ^ 0x6368_7572_6e21),
                timed: 0,
                heads: 0,
                started: Instant::now(),
                started_at: Timestamp::now(),
                clock,
                oldest_first,
            }),
        }
    }

    /// Applies the changes due before a conversations request (`head`: it has no cursor).
    pub fn advance(&self, head: bool) {
        let mut live = self.live.write().unwrap_or_else(PoisonError::into_inner);
        let mut changed = false;
        if head {
            live.heads += 1;
            if live.heads > 1 {
                // Reassign first, distinct rows, so that each one is a change of an old row.
                let n = live.data.conversations.len().min(REASSIGN_WINDOW);
                let mut at: Vec<usize> = (0..n).map(|k| live.at_newest(k)).collect();
                for k in 0..n {
                    let j = k + live.rng.below((n - k) as u64) as usize;
                    at.swap(k, j);
                }
                for &i in at.iter().take(self.churn.reassign_per_head as usize) {
                    changed |= live.reassign_at(i);
                }
                for _ in 0..self.churn.new_per_head {
                    let wall = live.wall();
                    changed |= live.insert(wall, self.churn.new_visitors);
                }
            }
        }
        if self.churn.per_minute > 0 {
            let ms = live.started.elapsed().as_millis() as u64;
            let due = ms.saturating_mul(u64::from(self.churn.per_minute)) / 60_000;
            while live.timed < due {
                let wall = live.due_at(live.timed, self.churn.per_minute);
                changed |= live.timed_change(wall, self.churn.new_visitors);
            }
        }
        if changed {
            live.ix = Indexes::build(&live.data);
        }
    }

    /// Gives conversation `id` the assignee `agent` (`None`: unassigned), its `updatedAt` now
    /// at the head's time; false when no conversation has that id.
    pub fn assign(&self, id: uuid::Uuid, agent: Option<uuid::Uuid>) -> bool {
        let mut live = self.live.write().unwrap_or_else(PoisonError::into_inner);
        let head = live.newest().map(|c| c.created_at);
        let Some(c) = live.data.conversations.iter_mut().find(|c| c.id == id) else {
            return false;
        };
        c.assignee_id = agent;
        if let Some(h) = head {
            c.updated_at = c.updated_at.max(h);
        }
        live.ix = Indexes::build(&live.data);
        true
    }

    /// The current data (read lock).
    pub fn read(&self) -> RwLockReadGuard<'_, Live> {
        self.live.read().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Live {
    /// The position of the `k`th newest conversation.
    fn at_newest(&self, k: usize) -> usize {
        if self.oldest_first {
            self.data.conversations.len().saturating_sub(1 + k)
        } else {
            k
        }
    }

    /// The newest conversation.
    fn newest(&self) -> Option<&DemoConversation> {
        self.data.conversations.get(self.at_newest(0))
    }

    /// A new visitor at the newest end of the visitors list, created no earlier than `at`:
    /// their id and when they were created.
    fn new_visitor(&mut self, at: Timestamp) -> (uuid::Uuid, Timestamp) {
        let newest = if self.oldest_first {
            self.data.visitors.last()
        } else {
            self.data.visitors.first()
        };
        let created_at = newest
            .and_then(|v| v.created_at.checked_add(SignedDuration::from_secs(1)).ok())
            .map_or(at, |t| t.max(at));
        let v = super::data::fresh_visitor(&mut self.rng, created_at);
        let id = v.id;
        if self.oldest_first {
            self.data.visitors.push(v);
        } else {
            self.data.visitors.insert(0, v);
        }
        (id, created_at)
    }

    /// The time now by the wall clock, when changes are made at it.
    fn wall(&self) -> Option<Timestamp> {
        (self.clock == Clock::Wall).then(Timestamp::now)
    }

    /// When timed change `k` was due by the wall clock (`per_minute` a minute from the
    /// start), never later than now; `None` when changes are not made at the wall clock.
    fn due_at(&self, k: u64, per_minute: u32) -> Option<Timestamp> {
        let now = self.wall()?;
        let ms = k.saturating_mul(60_000) / u64::from(per_minute.max(1));
        let at = self
            .started_at
            .checked_add(SignedDuration::from_millis(ms as i64))
            .unwrap_or(now);
        Some(at.min(now))
    }

    /// The next change by the clock: a new conversation, then a pick-up, and so on (every
    /// other pick-up, a conversation taken earlier is closed too). `wall`: the time the change
    /// was due (by the wall clock), which new conversations are created at.
    fn timed_change(&mut self, wall: Option<Timestamp>, new_visitors: u32) -> bool {
        let k = self.timed;
        self.timed += 1;
        if k.is_multiple_of(2) {
            self.insert(wall, new_visitors)
        } else {
            let picked = self.pick_up(wall);
            let closed = k % 4 == 3 && self.close(wall);
            picked || closed
        }
    }

    /// An agent closes an open conversation they took earlier (the one taken longest ago
    /// among the first rows): its `updatedAt` becomes `wall` (or the head's time).
    fn close(&mut self, wall: Option<Timestamp>) -> bool {
        let n = self.data.conversations.len().min(PICK_UP_WINDOW);
        let Some(i) = (0..n)
            .map(|k| self.at_newest(k))
            .filter(|&i| {
                let c = &self.data.conversations[i];
                c.status == "open" && c.assignee_id.is_some()
            })
            .min_by_key(|&i| self.data.conversations[i].updated_at)
        else {
            return false;
        };
        let Some(head) = self.newest().map(|c| c.created_at) else {
            return false;
        };
        let c = &mut self.data.conversations[i];
        c.status = "closed";
        c.updated_at = c.updated_at.max(wall.unwrap_or(head).max(head));
        true
    }

    /// Puts a new open, unassigned conversation at the head (at `wall` when given and later
    /// than the head).
    fn insert(&mut self, wall: Option<Timestamp>, new_visitors: u32) -> bool {
        let Some(&site_id) = self.data.sites.first() else {
            return false;
        };
        let site_id = *self
            .data
            .sites
            .get(self.rng.below(self.data.sites.len() as u64) as usize)
            .unwrap_or(&site_id);
        let by_new = new_visitors > 0 && self.rng.below(100) < u64::from(new_visitors);
        let known = match self.data.visitors.len() {
            0 => self.rng.uuid(),
            n => self.data.visitors[self.rng.below(n as u64) as usize].id,
        };
        // After the head: by a second on fixed times, by a millisecond on the wall clock (the
        // changes' own times then keep them apart; a second each would run ahead of the clock).
        let step = match wall {
            Some(_) => SignedDuration::from_millis(1),
            None => SignedDuration::from_secs(1),
        };
        let mut created_at = match self.newest() {
            Some(h) => h.created_at.checked_add(step).unwrap_or(h.created_at),
            None => REFERENCE_TIME.parse().unwrap_or(Timestamp::UNIX_EPOCH),
        };
        if let Some(now) = wall {
            // Still the newest (the head order holds), and its age grows from now on.
            created_at = created_at.max(now);
        }
        let visitor_id = if by_new {
            // Created at their first conversation: a newest visitor later than it moves both.
            let (id, at) = self.new_visitor(created_at);
            created_at = at;
            id
        } else {
            known
        };
        let c = DemoConversation {
            id: self.rng.uuid(),
            site_id,
            visitor_id,
            status: "open",
            assignee_id: None,
            created_at,
            updated_at: created_at,
        };
        if self.oldest_first {
            self.data.conversations.push(c);
        } else {
            self.data.conversations.insert(0, c);
        }
        true
    }

    /// An agent takes a waiting conversation (open, unassigned) among the first rows: the
    /// longest waiting three times in five, any other time; its `updatedAt` becomes `wall` (or
    /// the head's time). Nobody waiting: a reassignment instead.
    fn pick_up(&mut self, wall: Option<Timestamp>) -> bool {
        let n = self.data.conversations.len().min(PICK_UP_WINDOW);
        let waiting: Vec<usize> = (0..n)
            .map(|k| self.at_newest(k))
            .filter(|&i| self.data.conversations[i].waits())
            .collect();
        let Some(&oldest) = waiting.last() else {
            return self.reassign();
        };
        let i = if self.rng.chance(60) {
            oldest
        } else {
            *self.rng.pick(&waiting)
        };
        let Some(agent) = self.rng.pick_of(&self.data.agents) else {
            return false;
        };
        let Some(head) = self.newest().map(|c| c.created_at) else {
            return false;
        };
        let c = &mut self.data.conversations[i];
        c.assignee_id = Some(agent);
        c.updated_at = c.updated_at.max(wall.unwrap_or(head).max(head));
        true
    }

    /// Reassigns one of the first rows.
    fn reassign(&mut self) -> bool {
        let n = self.data.conversations.len().min(REASSIGN_WINDOW);
        let k = self.rng.below(n as u64) as usize;
        let i = self.at_newest(k);
        self.reassign_at(i)
    }

    /// Gives row `i` another assignee (an agent, or nobody for an assigned one a third of
    /// the time).
    fn reassign_at(&mut self, i: usize) -> bool {
        if i >= self.data.conversations.len() || self.data.agents.is_empty() {
            return false;
        }
        let agents = self.data.agents.clone();
        let Some(head) = self.newest().map(|c| c.created_at) else {
            return false;
        };
        let c = &mut self.data.conversations[i];
        let next = if c.assignee_id.is_some() && self.rng.chance(33) {
            None
        } else {
            let mut a = *self.rng.pick(&agents);
            if Some(a) == c.assignee_id {
                a = agents[(agents.iter().position(|x| *x == a).unwrap_or(0) + 1) % agents.len()];
            }
            Some(a)
        };
        c.assignee_id = next;
        c.updated_at = c.updated_at.max(head);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset;

    #[test]
    fn heads_after_the_first_insert_at_the_top_and_reassign() {
        let ds = dataset(7, 200, 50);
        let ch = Churning::new(
            Churn {
                new_per_head: 3,
                reassign_per_head: 2,
                ..Churn::default()
            },
            &ds,
            7,
            Clock::AfterHead,
            false,
        );
        ch.advance(true);
        assert_eq!(ch.read().data.conversations, ds.conversations, "first head");
        ch.advance(false);
        assert_eq!(ch.read().data.conversations.len(), 200, "a later page");
        ch.advance(true);
        let live = ch.read();
        let rows = &live.data.conversations;
        assert_eq!(rows.len(), 203);
        let key = |c: &DemoConversation| (c.created_at, c.id);
        assert!(
            rows.windows(2).all(|w| key(&w[0]) > key(&w[1])),
            "API order kept"
        );
        assert!(rows[..3].iter().all(|c| c.status == "open"));
        let reassigned = rows[3..]
            .iter()
            .zip(&ds.conversations)
            .filter(|(a, b)| a.assignee_id != b.assignee_id)
            .count();
        assert_eq!(reassigned, 2);
        assert_eq!(
            live.ix.by_visitor.values().map(Vec::len).sum::<usize>(),
            203
        );
    }

    /// `convo --demo`'s churn (12 a minute) for half an hour by a simulated clock: the live
    /// queue keeps its length and conversations in every state, and nobody waits for long.
    #[test]
    fn by_the_clock_arrivals_and_pick_ups_keep_the_queue_in_every_state() {
        use crate::QUEUE_TARGET_SECS;
        use convo_engine::sla::{State, state};
        let ds = dataset(42, 5000, 1500);
        let ch = Churning::new(
            Churn {
                per_minute: 12,
                ..Churn::default()
            },
            &ds,
            42,
            Clock::Wall,
            false,
        );
        let start: Timestamp = REFERENCE_TIME.parse().unwrap();
        let mut live = ch.live.write().unwrap();
        let (mut samples, mut every_state, mut longest) = (0, 0, 0);
        for step in 1..=360 {
            let now = start + SignedDuration::from_secs(5 * step);
            live.timed_change(Some(now), 0);
            if step % 6 != 0 {
                continue;
            }
            let waits: Vec<i64> = live
                .data
                .conversations
                .iter()
                .filter(|c| c.waits())
                .map(|c| c.created_at.duration_until(now).as_secs())
                .collect();
            assert!((6..=12).contains(&waits.len()), "at {now}: {waits:?}");
            let states: std::collections::HashSet<State> = waits
                .iter()
                .map(|&w| state(w, QUEUE_TARGET_SECS, 0.5))
                .collect();
            samples += 1;
            every_state += usize::from(states.len() == 3);
            if step > 120 {
                longest = longest.max(waits.iter().copied().max().unwrap_or(0));
            }
        }
        assert!(
            every_state * 10 >= samples * 9,
            "{every_state} of {samples}"
        );
        assert!(longest < 10 * QUEUE_TARGET_SECS, "waited {longest}s");
    }

    #[test]
    fn on_the_wall_clock_a_new_conversation_is_created_now_and_stays_the_head() {
        let ds = dataset(7, 200, 50);
        let ch = Churning::new(
            Churn {
                new_per_head: 1,
                ..Churn::default()
            },
            &ds,
            7,
            Clock::Wall,
            false,
        );
        let before = Timestamp::now();
        ch.advance(true);
        ch.advance(true);
        let live = ch.read();
        let head = &live.data.conversations[0];
        assert!(head.created_at >= before, "{}", head.created_at);
        assert!(head.created_at > live.data.conversations[1].created_at);
        assert_eq!((head.status, head.assignee_id), ("open", None));
    }

    /// Issue 33 §7: after a quiet spell, the changes caught up on one request were each
    /// created a second after the head, so the head ran ahead of the clock (`CREATED in
    /// 18m`). Each keeps the time it was due; some taken conversations are closed.
    #[test]
    fn changes_caught_up_after_a_quiet_spell_keep_their_times_and_close_some() {
        let ds = dataset(7, 300, 50);
        let ch = Churning::new(
            Churn {
                per_minute: 120,
                ..Churn::default()
            },
            &ds,
            7,
            Clock::Wall,
            false,
        );
        let quiet = std::time::Duration::from_secs(600);
        {
            let mut live = ch.live.write().unwrap();
            live.started = Instant::now().checked_sub(quiet).expect("an older instant");
            live.started_at = Timestamp::now() - SignedDuration::from_secs(600);
        }
        ch.advance(false);
        let now = Timestamp::now();
        let live = ch.read();
        let rows = &live.data.conversations;
        assert!(rows.len() >= 300 + 590, "{} rows", rows.len());
        let future: Vec<_> = rows.iter().filter(|c| c.created_at > now).collect();
        assert!(future.is_empty(), "{} created in the future", future.len());
        let head = rows[0].created_at;
        assert!(
            now.duration_since(head) < SignedDuration::from_secs(2),
            "the newest is about now: {head} at {now}"
        );
        let key = |c: &DemoConversation| (c.created_at, c.id);
        assert!(
            rows.windows(2).all(|w| key(&w[0]) > key(&w[1])),
            "API order kept"
        );
        let closed_now = rows
            .iter()
            .filter(|c| c.status == "closed" && c.updated_at > now - SignedDuration::from_secs(601))
            .count();
        assert!(closed_now >= 100, "{closed_now} closed by the churn");
    }

    #[test]
    fn new_visitors_join_the_newest_end_in_either_order() {
        for oldest in [false, true] {
            let mut ds = dataset(7, 50, 20);
            if oldest {
                ds.conversations.reverse();
                ds.visitors.reverse();
            }
            let ch = Churning::new(
                Churn {
                    new_per_head: 2,
                    new_visitors: 100,
                    ..Churn::default()
                },
                &ds,
                7,
                Clock::AfterHead,
                oldest,
            );
            ch.advance(true);
            ch.advance(true);
            let live = ch.read();
            let (cs, vs) = (&live.data.conversations, &live.data.visitors);
            assert_eq!((cs.len(), vs.len()), (52, 22), "oldest first: {oldest}");
            let newest_c = if oldest { &cs[51] } else { &cs[0] };
            let newest_v = if oldest { &vs[21] } else { &vs[0] };
            assert_eq!(newest_c.visitor_id, newest_v.id, "oldest first: {oldest}");
            let key = |v: &super::super::data::DemoVisitor| (v.created_at, v.id);
            let ordered = |a, b| if oldest { a < b } else { a > b };
            assert!(
                vs.windows(2).all(|w| ordered(key(&w[0]), key(&w[1]))),
                "the visitors' order is kept (oldest first: {oldest})"
            );
            assert!(
                cs.windows(2)
                    .all(|w| ordered((w[0].created_at, w[0].id), (w[1].created_at, w[1].id)))
            );
            assert_eq!(live.ix.by_visitor[&newest_v.id].len(), 1);
        }
    }
}
