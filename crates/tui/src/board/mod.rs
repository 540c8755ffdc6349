//! The board (`B`): every view, built-in and saved, as one row of counts (how many match,
//! waiting, oldest waiting, imminent, breaching), its trend from the local store's samples,
//! when it was last read and its error if that read failed.
//!
//! The board reads the views one after another (one request in flight, the page budget of a
//! refresh per view), as background work: the runtime lets the user's own fetches go first.
//! A round starts when the board is shown and then every `refresh_secs` ([`Board::every_secs`],
//! [`DEFAULT_EVERY_SECS`] when the lists never refresh); each answer
//! carries the round's generation and the row it was asked for, so an answer of an older
//! round is dropped. A view that fails keeps the counts of its last good read and shows why;
//! the other rows stay.
//!
//! One count per view: a tab whose walk has loaded the whole view it shows ("all N loaded")
//! has counted it too ([`TabCount`]); that count, at the time the tab's rows last changed,
//! and the board's own read of the view are one figure: the newer one is the board's row
//! (with its age), a round does not read again a view its tab counted less than a round's
//! interval ago (`r` does), and a view opened from the board whose read came after the tab's
//! rows and counted otherwise is refreshed at once ([`update::opened`]).
//!
//! How keys and answers change it: [`update`]; drawing: `tui::view::board`; the walk itself:
//! [`read`] (runtime side).

pub mod read;
pub mod update;

use convo_api::Resource;
use convo_config::View;
use convo_store::Sample;

/// A new round of reads starts this long after the last one ended (while the board is shown),
/// when the lists have no refresh period to follow.
pub const DEFAULT_EVERY_SECS: u64 = 60;

/// What one read of a view found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// Rows that match, among those read.
    pub matched: u64,
    /// Every page was read: `matched` is exact; else it is a lower bound ("≥ N") because the
    /// read stopped at its page budget.
    pub complete: bool,
    /// Open and unassigned (conversations views only; 0 for visitors).
    pub waiting: u64,
    /// Seconds the oldest waiting conversation has waited.
    pub oldest_waiting: Option<i64>,
    /// Past `warn_at` of the first-response target, not yet past it.
    pub imminent: u64,
    /// Past the first-response target.
    pub breaching: u64,
}

impl Counts {
    /// The same figures (the oldest wait aside: it grows with the time it was counted at).
    pub fn same_figures(&self, other: &Counts) -> bool {
        (
            self.matched,
            self.complete,
            self.waiting,
            self.imminent,
            self.breaching,
        ) == (
            other.matched,
            other.complete,
            other.waiting,
            other.imminent,
            other.breaching,
        )
    }
}

/// A tab's own count of the view it shows, made once its walk has loaded the whole view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabCount {
    /// The view's key (`tab::marks::look_key`, the board row's [`BoardRow::key`]).
    pub key: String,
    /// The rows it was made from: the walk, how many rows, the refreshes merged.
    pub basis: (u64, usize, u64),
    pub counts: Counts,
    /// When the tab's rows last changed (the count is as of then).
    pub at: jiff::Timestamp,
}

/// One view's row.
#[derive(Debug, Clone)]
pub struct BoardRow {
    /// The view's name (not sanitised: the view fits it).
    pub name: String,
    pub tab: Resource,
    /// The key its samples are kept under in the local store (the one the tab uses when the
    /// view is on screen, so the board and `S` share one history).
    pub key: String,
    /// The last good read's counts (kept when a later read fails).
    pub counts: Option<Counts>,
    /// When `counts` were read.
    pub read_at: Option<jiff::Timestamp>,
    /// `counts` are the tab's own count of the view ([`TabCount`]), not a read of the board's.
    pub by_tab: bool,
    /// Why the last read failed (sanitised, the key redacted by the client); `None` after a
    /// good read.
    pub error: Option<String>,
    /// The key's samples of the last 24 hours from the local store, oldest first.
    pub trend: Vec<Sample>,
}

impl BoardRow {
    fn of(v: &View) -> BoardRow {
        BoardRow {
            name: v.name.clone(),
            tab: v.tab,
            key: sample_key(v),
            counts: None,
            read_at: None,
            by_tab: false,
            error: None,
            trend: Vec::new(),
        }
    }
}

/// The key a view's samples are kept under: the tab's own (`tab::marks::look_key_of`) once
/// the view is on screen: its query's text when one request's filters cannot answer it (the
/// browser then runs it as a union and leaves the filters empty), else the filters' query
/// string.
pub fn sample_key(v: &View) -> String {
    use convo_api::ListFilter;
    let plain = match v.tab {
        Resource::Conversations => v.conversations == convo_api::ConversationFilter::default(),
        Resource::Visitors => v.visitors == convo_api::VisitorFilter::default(),
    };
    match (
        v.tab,
        v.query
            .as_deref()
            .map(|t| convo_query::query::parse(t, v.tab)),
    ) {
        (Resource::Conversations, Some(Ok(q))) if plain => format!("query:{q}"),
        (Resource::Conversations, _) => convo_store::samples::filter_key(&v.conversations),
        (Resource::Visitors, Some(Ok(q))) if plain => format!("visitors query:{q}"),
        (Resource::Visitors, _) => {
            let q: Vec<String> = v
                .visitors
                .query_pairs()
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!("visitors?{}", q.join("&"))
        }
    }
}

/// What an answer did to the round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Of an older round, or not the row being read: dropped, nothing changed.
    Stale,
    /// Taken; this row is read next.
    Next(usize),
    /// Taken; the round is over.
    Done,
}

/// The board's state. It lives while the app does (the rows keep their counts when the board
/// is left and shown again); `Overlay::Board` says whether it is on screen.
#[derive(Debug, Clone)]
pub struct Board {
    pub rows: Vec<BoardRow>,
    pub selected: usize,
    /// The round of reads; answers of another round are dropped.
    pub generation: u64,
    /// The row being read now (one at a time).
    pub reading: Option<usize>,
    /// When the last round ended (the next starts [`Board::every_secs`] later).
    pub round_ended: Option<jiff::Timestamp>,
    /// Seconds between rounds.
    pub every_secs: u64,
    /// Back returns to the board while the history is this long (the length it had once the
    /// view opened from the board had been pushed).
    pub back_at: Option<usize>,
    /// Each tab's own count of the view it shows, when its walk has loaded all of it.
    pub tabs: crate::tab::PerTab<Option<TabCount>>,
    /// The round under way leaves out the views their tab counted after this.
    fresh_since: Option<jiff::Timestamp>,
}

impl Default for Board {
    fn default() -> Board {
        Board {
            rows: Vec::new(),
            selected: 0,
            generation: 0,
            reading: None,
            round_ended: None,
            every_secs: DEFAULT_EVERY_SECS,
            back_at: None,
            tabs: Default::default(),
            fresh_since: None,
        }
    }
}

impl Board {
    /// The rows for these views, in their order; a view already on the board (same name and
    /// key) keeps its counts, error and trend. A round under way restarts when the rows
    /// change.
    pub fn set_views(&mut self, views: &[View]) {
        let rows: Vec<BoardRow> = views
            .iter()
            .map(|v| {
                let fresh = BoardRow::of(v);
                match self
                    .rows
                    .iter()
                    .find(|r| r.name == fresh.name && r.key == fresh.key && r.tab == fresh.tab)
                {
                    Some(old) => old.clone(),
                    None => fresh,
                }
            })
            .collect();
        let same = rows.len() == self.rows.len()
            && rows
                .iter()
                .zip(&self.rows)
                .all(|(a, b)| a.name == b.name && a.key == b.key);
        self.rows = rows;
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
        if !same && self.reading.is_some() {
            self.reading = None;
            self.generation += 1;
        }
    }

    /// Whether a round should start now: none under way and the last ended long enough ago
    /// (or never ran).
    pub fn due(&self, now: jiff::Timestamp) -> bool {
        self.reading.is_none()
            && !self.rows.is_empty()
            && self.round_ended.is_none_or(|at| {
                now.as_second() >= at.as_second().saturating_add(self.every_secs as i64)
            })
    }

    /// Starts a new round at `now` (an older one's answers will be dropped): the first row to
    /// read. Unless `all` (`r`), a view its tab counted less than a round's interval ago is
    /// not read again (its count is as new as a read's: the board shows what the view just
    /// said, and spends no request on it); `None` when every row is that fresh (the round is
    /// over at once).
    pub fn start_round(&mut self, now: jiff::Timestamp, all: bool) -> Option<usize> {
        if self.rows.is_empty() {
            return None;
        }
        self.generation += 1;
        self.fresh_since = (!all).then(|| {
            now.checked_sub(jiff::SignedDuration::from_secs(self.every_secs as i64))
                .unwrap_or(now)
        });
        self.reading = self.next_to_read(0);
        if self.reading.is_none() {
            self.round_ended = Some(now);
        }
        self.reading
    }

    /// Takes the answer for row `index` of round `generation`.
    pub fn answer(
        &mut self,
        generation: u64,
        index: usize,
        result: Result<Counts, String>,
        now: jiff::Timestamp,
    ) -> Answer {
        if generation != self.generation || self.reading != Some(index) {
            return Answer::Stale;
        }
        let Some(row) = self.rows.get_mut(index) else {
            return Answer::Stale;
        };
        let key = row.key.clone();
        // Views that ask the same (two names for one query) are read once a round: the
        // answer is theirs too.
        for r in self.rows[index..].iter_mut().filter(|r| r.key == key) {
            match &result {
                Ok(c) => {
                    r.counts = Some(c.clone());
                    r.read_at = Some(now);
                    r.by_tab = false;
                    r.error = None;
                }
                Err(e) => r.error = Some(e.clone()),
            }
        }
        match self.next_to_read(index + 1) {
            Some(next) => {
                self.reading = Some(next);
                Answer::Next(next)
            }
            None => {
                self.reading = None;
                self.round_ended = Some(now);
                Answer::Done
            }
        }
    }

    /// The first row from `from` on whose key no earlier row has (those were read with it),
    /// and that its tab has not counted since the round's `fresh_since`.
    fn next_to_read(&self, from: usize) -> Option<usize> {
        (from..self.rows.len()).find(|&j| {
            let r = &self.rows[j];
            let fresh = r.by_tab
                && self
                    .fresh_since
                    .is_some_and(|since| r.read_at.is_some_and(|t| t > since));
            !fresh && !self.rows[..j].iter().any(|o| o.key == r.key)
        })
    }

    /// Stops the round under way (the board was left); its answer in flight will be dropped.
    /// The next time the board is shown a round starts at once when one is due.
    pub fn stop(&mut self) {
        if self.reading.take().is_some() {
            self.generation += 1;
        }
    }

    /// Rows read in the round under way (for "reading 3 of 5").
    pub fn progress(&self) -> Option<(usize, usize)> {
        self.reading.map(|i| (i, self.rows.len()))
    }

    /// A tab's count of the view of `key`, as of `at`: the rows of that key take it unless
    /// their own read is newer (one count per view: the newer one). True when a row took it.
    pub fn take_tab_count(&mut self, key: &str, counts: &Counts, at: jiff::Timestamp) -> bool {
        let mut took = false;
        for r in self
            .rows
            .iter_mut()
            .filter(|r| r.key == key && r.read_at.is_none_or(|t| t <= at))
        {
            r.counts = Some(counts.clone());
            r.read_at = Some(at);
            r.by_tab = true;
            r.error = None;
            took = true;
        }
        took
    }

    /// Takes a key's samples from the store (every row with that key).
    pub fn take_samples(&mut self, key: &str, samples: &[Sample]) -> bool {
        let mut took = false;
        for r in self.rows.iter_mut().filter(|r| r.key == key) {
            r.trend = samples.to_vec();
            took = true;
        }
        took
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use convo_api::{ConversationFilter, Status};
    use convo_config::builtin_views::builtin_views;

    fn counts(n: u64) -> Counts {
        Counts {
            matched: n,
            complete: true,
            waiting: n,
            oldest_waiting: Some(60),
            imminent: 0,
            breaching: 0,
        }
    }

    /// "Unassigned open" under two names (one key: read once) and a pending view.
    fn views() -> Vec<View> {
        let queue = builtin_views(None)[0].clone();
        let mut v = vec![
            queue.clone(),
            View {
                name: "The queue".into(),
                ..queue
            },
        ];
        v.push(View {
            name: "Pending".into(),
            conversations: ConversationFilter {
                status: Some(Status::Pending),
                ..Default::default()
            },
            oldest_first: false,
            ..builtin_views(None)[0].clone()
        });
        v
    }

    #[test]
    fn a_round_reads_the_rows_in_turn_once_a_key_and_drops_stale_answers() {
        let now = crate::testing::now();
        let mut b = Board::default();
        b.set_views(&views());
        assert!(b.due(now));
        assert_eq!(b.start_round(now, true), Some(0));
        let g = b.generation;
        assert_eq!(b.answer(g - 1, 0, Ok(counts(1)), now), Answer::Stale);
        assert_eq!(b.answer(g, 1, Ok(counts(1)), now), Answer::Stale);
        assert!(
            b.rows.iter().all(|r| r.counts.is_none()),
            "stale: nothing taken"
        );
        // "The queue" asks what "Unassigned open" asks: answered with it, not read again.
        assert_eq!(b.answer(g, 0, Ok(counts(3)), now), Answer::Next(2));
        assert_eq!(b.rows[1].counts, Some(counts(3)));
        assert_eq!(b.answer(g, 2, Err("boom".into()), now), Answer::Done);
        assert_eq!(b.rows[0].counts, Some(counts(3)));
        assert_eq!(b.rows[2].error.as_deref(), Some("boom"));
        assert!(!b.due(now), "a round just ended");
        let later = now
            .checked_add(jiff::SignedDuration::from_secs(DEFAULT_EVERY_SECS as i64))
            .unwrap_or(now);
        assert!(b.due(later));
    }

    #[test]
    fn a_failed_read_keeps_the_last_counts_and_stop_drops_the_answer_in_flight() {
        let now = crate::testing::now();
        let mut b = Board::default();
        b.set_views(&views()[..1]);
        b.start_round(now, true);
        let _ = b.answer(b.generation, 0, Ok(counts(5)), now);
        b.start_round(now, true);
        let _ = b.answer(b.generation, 0, Err("503".into()), now);
        assert_eq!(b.rows[0].counts, Some(counts(5)));
        assert_eq!(b.rows[0].error.as_deref(), Some("503"));
        b.start_round(now, true);
        let g = b.generation;
        b.stop();
        assert_eq!(b.answer(g, 0, Ok(counts(9)), now), Answer::Stale);
        assert_eq!(b.rows[0].counts, Some(counts(5)));
    }

    #[test]
    fn views_keep_their_rows_and_a_query_view_its_query_key() {
        let mut b = Board::default();
        b.set_views(&views());
        b.rows[2].counts = Some(counts(2));
        let mut v = views();
        v.insert(
            2,
            View {
                name: "VIP".into(),
                query: Some("visitor.plan:vip status:open".into()),
                conversations: Default::default(),
                ..builtin_views(None)[0].clone()
            },
        );
        b.set_views(&v);
        assert_eq!(b.rows.len(), 4);
        assert_eq!(b.rows[3].counts, Some(counts(2)), "Pending kept its counts");
        assert!(b.rows[2].key.starts_with("query:"), "{}", b.rows[2].key);
        assert_eq!(b.rows[0].key, "conversations?status=open&unassigned=true");
    }
}
