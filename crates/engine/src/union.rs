//! A walk of several streams merged into one list: pure, no I/O, no clock.
//!
//! Each stream is one cursor walk ([`Pager`]) with at most one request in flight; the merge
//! ([`Merger`]) learns the order from the rows and gives each id once. [`Streams::step`] says
//! which streams it needs a page of before it can give the next row; the driver (the async
//! executor of `convo list -q` and `summary -q`, or the browser's union tab, which sends its
//! requests as commands) asks [`Streams::request`] for each one's cursor, sends the request
//! its own way, and hands the answer back with [`Streams::page`] or [`Streams::fail`]. The
//! page and request counts that budgets are kept by are counted here, once, for every driver.
//!
//! A stream that fails keeps the rows it gave; the merge goes on with the others.

use convo_api::{BadRow, Page, Row};

use crate::merge::{Merge, Merger, Step, Timed};
use crate::pager::{Pager, Warnings};

/// One stream: its filter (what the driver sends) and its cursor walk.
#[derive(Debug, Clone)]
struct Stream<T, F> {
    filter: F,
    pager: Pager<T>,
    /// Why its walk failed (one line): its rows so far stay, the others go on.
    failed: Option<String>,
}

/// The streams of a union and their merge (see the module).
#[derive(Debug, Clone)]
pub struct Streams<T, F> {
    streams: Vec<Stream<T, F>>,
    merger: Merger<T>,
    limit: usize,
    /// Pages taken, over every stream.
    pages: usize,
    /// Requests handed out, over every stream (retries, which the client makes, not counted).
    requests: u64,
}

impl<T: Row, F> Streams<T, F> {
    /// A walk of these streams, `limit` rows a page, none asked yet.
    pub fn new(filters: Vec<F>, limit: usize) -> Streams<T, F> {
        Streams {
            merger: Merger::new(filters.len()),
            streams: filters
                .into_iter()
                .map(|filter| Stream {
                    filter,
                    pager: Pager::new(limit),
                    failed: None,
                })
                .collect(),
            limit,
            pages: 0,
            requests: 0,
        }
    }

    /// How many streams.
    pub fn len(&self) -> usize {
        self.streams.len()
    }

    /// Whether it has no stream at all.
    pub fn is_empty(&self) -> bool {
        self.streams.is_empty()
    }

    /// Rows a page.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Stream `i`'s filter.
    pub fn filter(&self, i: usize) -> Option<&F> {
        self.streams.get(i).map(|s| &s.filter)
    }

    /// Every stream's filter, in order.
    pub fn filters(&self) -> impl Iterator<Item = &F> {
        self.streams.iter().map(|s| &s.filter)
    }

    /// Pages stream `i` has taken.
    pub fn pages_of(&self, i: usize) -> usize {
        self.streams.get(i).map_or(0, |s| s.pager.pages())
    }

    /// Pages taken so far, over every stream.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// Requests handed out so far, over every stream.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// The streams that failed: (number from 0, why).
    pub fn failures(&self) -> Vec<(usize, &str)> {
        self.streams
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.failed.as_deref().map(|w| (i, w)))
            .collect()
    }
}

impl<T: Row, F> Streams<T, F> {
    /// Whether a stream's request is in flight.
    pub fn loading(&self) -> bool {
        self.streams.iter().any(|s| s.pager.is_loading())
    }

    /// Whether stream `i` has a request in flight.
    pub fn in_flight(&self, i: usize) -> bool {
        self.streams.get(i).is_some_and(|s| s.pager.is_loading())
    }

    /// The cursor of stream `i`'s next request (`Some(None)`: its first page), counted as sent;
    /// `None` when it has one in flight, failed, or its walk ended.
    pub fn request(&mut self, i: usize) -> Option<Option<String>> {
        let s = self.streams.get_mut(i)?;
        if s.failed.is_some() {
            return None;
        }
        let cursor = s.pager.next_request()?;
        self.requests += 1;
        Some(cursor)
    }

    /// Stream `i`'s walk ended before its list did (a failure, or the service misbehaved).
    pub fn incomplete(&self) -> bool {
        self.streams
            .iter()
            .any(|s| s.failed.is_some() || s.pager.warnings().ended_early())
    }

    /// Each stream's pager warnings (duplicates, a cursor loop, …), with its number.
    pub fn warnings(&self) -> impl Iterator<Item = (usize, &Warnings)> {
        self.streams
            .iter()
            .enumerate()
            .map(|(i, s)| (i, s.pager.warnings()))
    }
}

impl<T: Timed + Clone, F> Streams<T, F> {
    /// The next row of the union (each id once), or the streams it needs a page of first, or
    /// the end.
    pub fn step(&mut self) -> Step<T> {
        self.merger.step()
    }

    /// How rows are merged, once the first pages are in.
    pub fn merge(&self) -> Option<Merge> {
        self.merger.merge()
    }

    /// Whether any row may still come out.
    pub fn has_more(&self) -> bool {
        self.merger.has_more()
    }

    /// Rows dropped because another stream (or the same one) had given them already.
    pub fn duplicates(&self) -> usize {
        self.merger.duplicates()
    }

    /// What the merge noticed (the order given up), each once, taken.
    pub fn take_notices(&mut self) -> Vec<String> {
        self.merger.take_notices()
    }

    /// A page of stream `i`, the answer to its request in flight: its rows go to the merge.
    /// `None` when no request of stream `i` was in flight (a stale answer, dropped); else its
    /// rows that could not be read.
    pub fn page(&mut self, i: usize, page: Page<T>) -> Option<Vec<BadRow>> {
        let s = self.streams.get_mut(i)?;
        if !s.pager.is_loading() {
            return None;
        }
        self.pages += 1;
        let applied = s.pager.apply(page);
        let rows: Vec<T> = s.pager.drain_rows().collect();
        self.merger.push(i, rows, s.pager.has_more());
        Some(applied.bad_rows)
    }

    /// Stream `i`'s request failed (`why`, one line): it asks no more, its rows stay. `false`
    /// when no request of it was in flight (a stale answer).
    pub fn fail(&mut self, i: usize, why: String) -> bool {
        let Some(s) = self.streams.get_mut(i) else {
            return false;
        };
        if !s.pager.is_loading() {
            return false;
        }
        s.pager.failed();
        s.failed = Some(why);
        self.merger.fail(i);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;
    use uuid::Uuid;

    #[derive(Debug, Clone, PartialEq)]
    struct R {
        id: Uuid,
        at: Timestamp,
    }

    impl Row for R {
        fn id(&self) -> Uuid {
            self.id
        }
    }

    impl Timed for R {
        fn created(&self) -> Option<Timestamp> {
            Some(self.at)
        }
        fn updated(&self) -> Option<Timestamp> {
            Some(self.at)
        }
    }

    fn r(n: u128, secs: i64) -> R {
        R {
            id: Uuid::from_u128(n),
            at: Timestamp::from_second(secs).unwrap(),
        }
    }

    fn page(items: Vec<R>, next: Option<&str>) -> Page<R> {
        Page {
            items,
            has_more: next.is_some(),
            next_cursor: next.map(str::to_string),
            bad_rows: Vec::new(),
        }
    }

    #[test]
    fn asks_every_stream_first_then_merges_newest_first_and_gives_each_id_once() {
        let mut s: Streams<R, &str> = Streams::new(vec!["a", "b"], 2);
        assert_eq!(s.step(), Step::Need(vec![0, 1]));
        assert_eq!(s.request(0), Some(None));
        assert_eq!(s.request(0), None, "one request in flight a stream");
        assert_eq!(s.request(1), Some(None));
        assert!(
            s.page(0, page(vec![r(1, 50), r(2, 30)], Some("a2")))
                .is_some()
        );
        assert!(s.page(1, page(vec![r(3, 40), r(2, 30)], None)).is_some());
        assert_eq!(s.step(), Step::Row(r(1, 50)));
        assert_eq!(s.step(), Step::Row(r(3, 40)));
        assert_eq!(s.step(), Step::Row(r(2, 30)));
        // Stream b is done; a's second page is needed before the duplicate is known.
        assert_eq!(s.step(), Step::Need(vec![0]));
        assert_eq!(s.request(0), Some(Some("a2".into())));
        s.page(0, page(vec![r(2, 30), r(4, 10)], None));
        assert_eq!(s.step(), Step::Row(r(4, 10)));
        assert_eq!(s.step(), Step::End);
        // Row 2 twice across streams (the merge's count), and again within stream a (its
        // pager's).
        assert_eq!((s.pages(), s.requests(), s.duplicates()), (3, 3, 1));
        let within: Vec<usize> = s.warnings().map(|(_, w)| w.duplicates).collect();
        assert_eq!(within, vec![1, 0]);
    }

    #[test]
    fn a_stale_answer_is_dropped_and_a_failed_stream_keeps_its_rows() {
        let mut s: Streams<R, &str> = Streams::new(vec!["a", "b"], 2);
        assert!(s.page(0, page(vec![r(1, 50)], None)).is_none(), "not asked");
        s.request(0);
        s.request(1);
        s.page(0, page(vec![r(1, 50)], Some("a2")));
        assert!(s.fail(1, "HTTP 500".into()));
        assert!(!s.fail(1, "again".into()), "nothing in flight any more");
        assert_eq!(s.request(1), None, "a failed stream asks no more");
        assert_eq!(s.failures(), vec![(1, "HTTP 500")]);
        assert!(s.incomplete());
        assert_eq!(s.step(), Step::Row(r(1, 50)));
    }
}
