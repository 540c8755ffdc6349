//! A union read through checks (the browser's union tabs): the streams merged in the service's
//! order ([`Streams`]), each row judged by the driver's checks as it comes, the rows that pass
//! handed out in batches as the reader wants them, a budget of stream pages after which the
//! scan waits (a query few rows pass does not read without end), and its refresh: the same
//! streams read again from the top until they stand for the rows loaded. Pure: the driver
//! sends the requests it asks for and hands back the answers; the checks are the driver's
//! (`pass`), as is what it does with the rows.

use std::collections::{HashSet, VecDeque};

use convo_api::{Page, Row};
use uuid::Uuid;

use crate::merge::{Step, Timed};
use crate::union::Streams;

/// What the driver's checks say of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
    /// Not yet known (what it needs is being read): the scan waits at this row, in order,
    /// until it is asked again.
    Wait,
}

impl From<bool> for Verdict {
    fn from(b: bool) -> Verdict {
        if b { Verdict::Pass } else { Verdict::Fail }
    }
}

/// What the scan gives next ([`Scan::next_batch`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Next<T> {
    /// Rows that passed, in order, to append (`more`: the union goes on; after the last
    /// batch, `false`, possibly with no row).
    Rows { rows: Vec<T>, more: bool },
    /// The next pages of these streams are needed: (stream, cursor) of each request to send
    /// (none when they are in flight already).
    Ask(Vec<(usize, Option<String>)>),
    /// A row waits for its verdict; nothing after it comes before it.
    Wait,
    /// The page budget is spent: the scan waits for [`Scan::go_on`].
    Paused,
}

/// What the refresh under way needs next ([`Scan::refresh_step`]).
#[derive(Debug, Clone)]
pub enum RefreshNext<T, F> {
    /// The requests to send ((stream, cursor)), none when they are in flight.
    Ask(Vec<(usize, Option<String>)>),
    /// A row waits for its verdict.
    Wait,
    /// It has read enough (or the list, or its budget, ended): merge it.
    Ready(Box<Refreshed<T, F>>),
}

/// A refresh that has read what it could ([`RefreshNext::Ready`]).
#[derive(Debug, Clone)]
pub struct Refreshed<T, F> {
    /// The rows it read that pass, in order.
    pub rows: Vec<T>,
    /// Rows it read that the checks no longer pass (what a loaded row that leaves is now).
    pub failed: Vec<T>,
    /// It read to the end of the union.
    pub complete: bool,
    /// The loaded rows it was begun to stand for.
    pub window: usize,
    scan: Scan<T, F>,
}

impl<T: Row, F> Refreshed<T, F> {
    /// The loaded rows it stands for: all it was begun for when it read to the end; else up
    /// to the last of them it met again (every row before that one that still passes was
    /// read; a row past it was not read again, and is never taken for gone).
    pub fn stands_for(&self, loaded: &[T]) -> usize {
        if self.complete {
            return self.window;
        }
        let met: HashSet<Uuid> = self.rows.iter().map(Row::id).collect();
        loaded[..self.window.min(loaded.len())]
            .iter()
            .rposition(|x| met.contains(&x.id()))
            .map_or(0, |p| p + 1)
    }
}

/// A refresh under way: a scan of its own, from the top.
#[derive(Debug, Clone)]
struct Rescan<T, F> {
    scan: Scan<T, F>,
    rows: Vec<T>,
    window: usize,
    /// Stream pages it may read.
    budget: usize,
    failed: Vec<T>,
}

/// A union read through checks (see the module).
#[derive(Debug, Clone)]
pub struct Scan<T, F> {
    streams: Streams<T, F>,
    /// Rows the merge gave (each id once) and how many of them passed.
    scanned: usize,
    matched: usize,
    /// Stream pages read when the budget last started.
    budget_from: usize,
    /// Stopped (its page budget, or Esc) until [`Scan::go_on`].
    paused: bool,
    /// Rows a refresh read beyond the rows it stood for: the next ones given.
    carry: VecDeque<T>,
    /// What the merge noticed (the order given up), taken by the driver.
    notices: Vec<String>,
    refresh: Option<Box<Rescan<T, F>>>,
    /// The row a check could not yet judge, with whether it was carried.
    held: Option<(T, bool)>,
}

impl<T: Row, F> Scan<T, F> {
    /// A scan of these streams, `limit` rows a page, none asked yet.
    pub fn new(filters: Vec<F>, limit: usize) -> Scan<T, F> {
        Scan {
            streams: Streams::new(filters, limit),
            scanned: 0,
            matched: 0,
            budget_from: 0,
            paused: false,
            carry: VecDeque::new(),
            notices: Vec::new(),
            refresh: None,
            held: None,
        }
    }

    /// The same streams scanned again from the top.
    pub fn fresh(&self) -> Scan<T, F>
    where
        F: Clone,
    {
        Scan::new(
            self.streams.filters().cloned().collect(),
            self.streams.limit(),
        )
    }

    /// Rows the merge gave (each id once).
    pub fn scanned(&self) -> usize {
        self.scanned
    }

    /// Rows that passed.
    pub fn matched(&self) -> usize {
        self.matched
    }

    /// Stopped until [`Scan::go_on`].
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// The scan goes on past its page budget (`L`, `G`).
    pub fn go_on(&mut self) {
        self.paused = false;
        self.budget_from = self.streams.pages();
    }

    /// Esc: the scan stops where it is.
    pub fn stop(&mut self) {
        self.paused = true;
    }

    /// A stream's request is in flight.
    pub fn loading(&self) -> bool {
        self.streams.loading()
    }

    /// A row waits for its verdict.
    pub fn waiting(&self) -> bool {
        self.held.is_some()
    }

    /// Stream pages read, over every stream.
    pub fn pages(&self) -> usize {
        self.streams.pages()
    }

    /// How many streams.
    pub fn streams(&self) -> usize {
        self.streams.len()
    }

    /// Stream `i`'s filter.
    pub fn filter(&self, i: usize) -> Option<&F> {
        self.streams.filter(i)
    }

    /// The streams that failed: (number from 0, why).
    pub fn failures(&self) -> Vec<(usize, &str)> {
        self.streams.failures()
    }

    /// A refresh is under way.
    pub fn refreshing(&self) -> bool {
        self.refresh.is_some()
    }

    /// Gives up the refresh under way.
    pub fn drop_refresh(&mut self) {
        self.refresh = None;
    }

    /// What the merge noticed since asked last, taken.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// The requests for the next page of streams `parts` that have none in flight.
    fn asks(&mut self, parts: Vec<usize>) -> Vec<(usize, Option<String>)> {
        parts
            .into_iter()
            .filter_map(|i| self.streams.request(i).map(|c| (i, c)))
            .collect()
    }
}

impl<T: Timed + Clone, F> Scan<T, F> {
    /// The answer (a page, or why it failed) to stream `i`'s request, of the scan (`head`:
    /// of its refresh). `Ok(false)`: none was in flight (a stale answer, dropped); `Err(why)`:
    /// the stream failed (a failure of the refresh ends it; the rows stay as loaded).
    pub fn take(
        &mut self,
        i: usize,
        head: bool,
        answer: Result<Page<T>, String>,
    ) -> Result<bool, String> {
        if head {
            let Some(r) = self.refresh.as_mut() else {
                return Ok(false);
            };
            let taken = r.scan.take(i, false, answer);
            if taken.is_err() {
                self.refresh = None;
            }
            return taken;
        }
        if !self.streams.in_flight(i) {
            return Ok(false);
        }
        match answer {
            Ok(page) => {
                self.streams.page(i, page);
                self.notices.extend(self.streams.take_notices());
                Ok(true)
            }
            Err(why) => {
                self.streams.fail(i, why.clone());
                Err(why)
            }
        }
    }

    /// The merge's next row: a held one first, then a carried one.
    fn next_row(&mut self) -> (Step<T>, bool) {
        if let Some((r, carried)) = self.held.take() {
            return (Step::Row(r), carried);
        }
        match self.carry.pop_front() {
            Some(r) => (Step::Row(r), true),
            None => (self.streams.step(), false),
        }
    }

    /// The next rows that pass, at most `page` (a page of the reader's), or what is needed
    /// first. With `eager` (`L`) the page budget does not stop it; else after `max_pages`
    /// stream pages since it last started, it pauses.
    pub fn next_batch(
        &mut self,
        page: usize,
        eager: bool,
        max_pages: usize,
        pass: &dyn Fn(&T) -> Verdict,
    ) -> Next<T> {
        let mut rows = Vec::new();
        loop {
            if rows.len() >= page.max(1) {
                return Next::Rows { rows, more: true };
            }
            let (step, carried) = self.next_row();
            match step {
                Step::Row(r) => {
                    let verdict = pass(&r);
                    if verdict == Verdict::Wait {
                        // In order: nothing after it shows before it is judged.
                        self.held = Some((r, carried));
                        return match rows.is_empty() {
                            true => Next::Wait,
                            false => Next::Rows { rows, more: true },
                        };
                    }
                    if !carried {
                        self.scanned += 1;
                    }
                    if verdict == Verdict::Pass {
                        if !carried {
                            self.matched += 1;
                        }
                        rows.push(r);
                    }
                }
                Step::Need(parts) => {
                    if !rows.is_empty() {
                        // What passed so far shows before the streams are asked again.
                        return Next::Rows { rows, more: true };
                    }
                    let spent = self.streams.pages().saturating_sub(self.budget_from);
                    if !eager && spent >= max_pages.max(1) {
                        self.paused = true;
                    }
                    if self.paused && !eager {
                        return Next::Paused;
                    }
                    return Next::Ask(self.asks(parts));
                }
                Step::End => return Next::Rows { rows, more: false },
            }
        }
    }

    /// Starts a refresh standing for the first `window` loaded rows: the same streams read
    /// again from the top, at most `max_pages` pages a stream. False when one is under way.
    pub fn begin_refresh(&mut self, window: usize, max_pages: usize) -> bool
    where
        F: Clone,
    {
        if self.refresh.is_some() {
            return false;
        }
        let budget = max_pages.max(1).saturating_mul(self.streams.len().max(1));
        self.refresh = Some(Box::new(Rescan {
            scan: self.fresh(),
            rows: Vec::new(),
            window,
            budget,
            failed: Vec::new(),
        }));
        true
    }

    /// Goes on with the refresh under way: until its rows that pass are a page (`page` rows)
    /// more than it stands for, the union ends, or its page budget is spent. `None` when none
    /// is under way.
    pub fn refresh_step(
        &mut self,
        page: usize,
        pass: &dyn Fn(&T) -> Verdict,
    ) -> Option<RefreshNext<T, F>> {
        let r = self.refresh.as_mut()?;
        let complete = loop {
            // A page more than it stands for: a row new ones pushed down is still met.
            if r.rows.len() >= r.window.max(1) + page {
                break false;
            }
            match r.scan.next_row().0 {
                Step::Row(x) => match pass(&x) {
                    Verdict::Wait => {
                        r.scan.held = Some((x, false));
                        return Some(RefreshNext::Wait);
                    }
                    v => {
                        r.scan.scanned += 1;
                        if v == Verdict::Pass {
                            r.scan.matched += 1;
                            r.rows.push(x);
                        } else {
                            r.failed.push(x);
                        }
                    }
                },
                Step::Need(parts) => {
                    if r.scan.pages() >= r.budget {
                        break false;
                    }
                    return Some(RefreshNext::Ask(r.scan.asks(parts)));
                }
                Step::End => break true,
            }
        };
        let r = *self.refresh.take()?;
        Some(RefreshNext::Ready(Box::new(Refreshed {
            rows: r.rows,
            failed: r.failed,
            complete,
            window: r.window,
            scan: r.scan,
        })))
    }

    /// After a refresh was merged: when it read past every loaded row (`kept`, the ids
    /// loaded now), the scan goes on from it (the rows it read past them come first; its
    /// counts never below the ones it replaces). Otherwise the scan goes on from where it was.
    pub fn adopt(&mut self, refreshed: Refreshed<T, F>, past_loaded: bool, kept: &HashSet<Uuid>) {
        if !past_loaded {
            return;
        }
        let mut next = refreshed.scan;
        next.carry = refreshed
            .rows
            .into_iter()
            .filter(|x| !kept.contains(&x.id()))
            .collect();
        next.scanned = next.scanned.max(self.scanned);
        *self = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq)]
    struct R(u128, i64);
    impl Row for R {
        fn id(&self) -> Uuid {
            Uuid::from_u128(self.0)
        }
    }
    impl Timed for R {
        fn created(&self) -> Option<jiff::Timestamp> {
            jiff::Timestamp::from_second(self.1).ok()
        }
        fn updated(&self) -> Option<jiff::Timestamp> {
            None
        }
    }

    /// Rows `ids` of one stream, newest first (the id is the age), `more` after them.
    fn page(ids: &[u128], more: Option<&str>) -> Page<R> {
        Page {
            items: ids.iter().map(|&i| R(i, 1_000_000 - i as i64)).collect(),
            has_more: more.is_some(),
            next_cursor: more.map(str::to_string),
            bad_rows: vec![],
        }
    }

    fn even(r: &R) -> Verdict {
        r.0.is_multiple_of(2).into()
    }

    #[test]
    fn rows_that_pass_come_in_batches_and_the_budget_pauses_the_scan_until_go_on() {
        let mut s: Scan<R, &str> = Scan::new(vec!["a"], 4);
        assert_eq!(s.next_batch(2, false, 1, &even), Next::Ask(vec![(0, None)]));
        assert_eq!(
            s.next_batch(2, false, 1, &even),
            Next::Ask(vec![]),
            "in flight"
        );
        assert_eq!(
            s.take(0, false, Ok(page(&[1, 2, 3, 4], Some("c1")))),
            Ok(true)
        );
        assert_eq!(
            s.next_batch(5, false, 1, &even),
            Next::Rows {
                rows: vec![R(2, 999_998), R(4, 999_996)],
                more: true
            }
        );
        assert_eq!(
            s.next_batch(5, false, 1, &even),
            Next::Paused,
            "one page a budget"
        );
        assert!(s.paused());
        assert_eq!((s.scanned(), s.matched()), (4, 2));
        s.go_on();
        assert_eq!(
            s.next_batch(5, false, 1, &even),
            Next::Ask(vec![(0, Some("c1".into()))])
        );
        assert_eq!(s.take(0, false, Ok(page(&[5, 6], None))), Ok(true));
        assert_eq!(
            s.next_batch(5, false, 1, &even),
            Next::Rows {
                rows: vec![R(6, 999_994)],
                more: false
            }
        );
        assert_eq!(
            s.take(0, false, Ok(page(&[7], None))),
            Ok(false),
            "stale: dropped"
        );
    }

    #[test]
    fn a_row_that_waits_holds_the_rows_after_it() {
        let mut s: Scan<R, &str> = Scan::new(vec!["a"], 4);
        let _ = s.next_batch(4, true, 1, &even);
        s.take(0, false, Ok(page(&[2, 4, 6], None))).unwrap();
        let wait_on_4 = |r: &R| {
            if r.0 == 4 {
                Verdict::Wait
            } else {
                Verdict::Pass
            }
        };
        assert_eq!(
            s.next_batch(4, true, 1, &wait_on_4),
            Next::Rows {
                rows: vec![R(2, 999_998)],
                more: true
            }
        );
        assert_eq!(s.next_batch(4, true, 1, &wait_on_4), Next::Wait);
        assert!(s.waiting());
        assert_eq!(
            s.next_batch(4, true, 1, &even),
            Next::Rows {
                rows: vec![R(4, 999_996), R(6, 999_994)],
                more: false
            }
        );
    }

    #[test]
    fn a_refresh_reads_a_page_past_what_it_stands_for_and_the_scan_goes_on_from_it() {
        let mut s: Scan<R, &str> = Scan::new(vec!["a"], 2);
        let _ = s.next_batch(2, false, 5, &even);
        s.take(0, false, Ok(page(&[2, 4], Some("c1")))).unwrap();
        let Next::Rows { rows: loaded, .. } = s.next_batch(2, false, 5, &even) else {
            panic!("rows");
        };
        assert!(s.begin_refresh(loaded.len(), 5));
        assert!(!s.begin_refresh(loaded.len(), 5), "one at a time");
        let Some(RefreshNext::Ask(ask)) = s.refresh_step(2, &even) else {
            panic!("asks");
        };
        assert_eq!(ask, vec![(0, None)]);
        // The top now: a new row 0, row 2 gone (3 is odd: it failed the checks), then 4, 6.
        s.take(0, true, Ok(page(&[0, 3, 4, 6, 8], None))).unwrap();
        let Some(RefreshNext::Ready(r)) = s.refresh_step(2, &even) else {
            panic!("ready");
        };
        assert_eq!(r.rows.iter().map(|x| x.0).collect::<Vec<_>>(), [0, 4, 6, 8]);
        assert!(
            !r.complete,
            "it stopped a page past the two rows it stands for"
        );
        assert_eq!(r.failed, vec![R(3, 999_997)]);
        assert_eq!(
            r.stands_for(&loaded),
            2,
            "up to row 4, the last loaded row it met"
        );
        let kept: HashSet<Uuid> = [0u128, 4].map(Uuid::from_u128).into();
        s.adopt(*r, true, &kept);
        assert_eq!(
            s.next_batch(5, false, 5, &even),
            Next::Rows {
                rows: vec![R(6, 999_994), R(8, 999_992)],
                more: false
            },
            "the rows read past the loaded ones come next, then the end it read"
        );
    }

    #[test]
    fn a_failed_page_of_the_refresh_ends_it_and_the_rows_stay() {
        let mut s: Scan<R, &str> = Scan::new(vec!["a"], 2);
        let _ = s.next_batch(2, false, 5, &even);
        s.take(0, false, Ok(page(&[2, 4], None))).unwrap();
        let _ = s.next_batch(2, false, 5, &even);
        assert!(s.begin_refresh(2, 5));
        let _ = s.refresh_step(2, &even);
        assert_eq!(s.take(0, true, Err("down".into())), Err("down".into()));
        assert!(!s.refreshing());
    }
}
