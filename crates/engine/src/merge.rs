//! The merge of a union's streams (pure: no I/O, no clocks). [`crate::union::Streams`] feeds
//! it the pages its drivers fetch and takes rows out of it; it says which streams it needs a
//! page of before it can give the next row.
//!
//! The spec promises no order, so the merge learns it from the rows (docs/design.md "Data"):
//! once every stream's first page is in, the first of createdAt descending, createdAt
//! ascending, updatedAt descending that every stream follows is the order the rows are merged
//! by. If no common order fits (or a stream leaves it later), each stream's rows are given in
//! turn, and a notice says so. A row two streams return is given once.

use std::collections::{HashSet, VecDeque};

use uuid::Uuid;

pub use convo_api::order::{Order, Timed, common_order, orders_followed};

/// How the union gives its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Merged by the order every stream follows.
    Ordered(Order),
    /// Each stream's rows in turn, as the service sends them (no common known order).
    InTurn,
}

/// The notice given when the streams are given in turn.
pub const IN_TURN: &str = "order: as the service sends each part";

/// What the merge can give next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step<T> {
    /// The next row of the union (each id once).
    Row(T),
    /// It needs the next page of these streams (by number, from 0) first.
    Need(Vec<usize>),
    /// Every stream is done and every row given.
    End,
}

/// One stream's rows received and not yet given.
#[derive(Debug, Clone)]
struct Part<T> {
    buf: VecDeque<T>,
    /// Orders its rows so far are consistent with.
    fits: [bool; 3],
    /// Its last row received (for checking the order across pages).
    last: Option<T>,
    pages: usize,
    /// No page will come any more (its walk ended, or failed).
    done: bool,
    failed: bool,
}

/// The merge of a union's streams: pages in ([`Merger::push`]), rows out ([`Merger::step`]).
#[derive(Debug, Clone)]
pub struct Merger<T> {
    parts: Vec<Part<T>>,
    merge: Option<Merge>,
    seen: HashSet<Uuid>,
    duplicates: usize,
    notices: Vec<String>,
}

impl<T> Merger<T> {
    /// The merge of `streams` streams, none of which has answered yet.
    pub fn new(streams: usize) -> Merger<T> {
        Merger {
            parts: (0..streams)
                .map(|_| Part {
                    buf: VecDeque::new(),
                    fits: [true; 3],
                    last: None,
                    pages: 0,
                    done: false,
                    failed: false,
                })
                .collect(),
            merge: None,
            seen: HashSet::new(),
            duplicates: 0,
            notices: Vec::new(),
        }
    }
}

impl<T: Timed + Clone> Merger<T> {
    /// How many streams it merges.
    pub fn streams(&self) -> usize {
        self.parts.len()
    }

    /// How rows are merged, once every stream's first page is in.
    pub fn merge(&self) -> Option<Merge> {
        self.merge
    }

    /// Rows dropped because another stream (or the same one) had given them already.
    pub fn duplicates(&self) -> usize {
        self.duplicates
    }

    /// What it noticed (the order given up), each once, taken.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// Whether stream `i` will take no more pages.
    pub fn done(&self, i: usize) -> bool {
        self.parts.get(i).is_none_or(|p| p.done)
    }

    /// Whether any row may still come out.
    pub fn has_more(&self) -> bool {
        self.parts.iter().any(|p| !p.buf.is_empty() || !p.done)
    }

    /// Takes a page of stream `i`; `more`: its walk goes on after it.
    pub fn push(&mut self, i: usize, rows: Vec<T>, more: bool) {
        let Some(p) = self.parts.get_mut(i) else {
            return;
        };
        p.pages += 1;
        p.done = !more;
        let fits = orders_followed(p.last.as_ref(), &rows);
        for (have, now) in p.fits.iter_mut().zip(fits) {
            *have = *have && now;
        }
        if let Some(r) = rows.last() {
            p.last = Some(r.clone());
        }
        p.buf.extend(rows);
        // The order chosen must still hold for this stream.
        if let Some(Merge::Ordered(o)) = self.merge
            && !self.parts[i].fits[o.index()]
        {
            self.merge = Some(Merge::InTurn);
            self.notices
                .push(format!("{IN_TURN} (stream {} left {})", i + 1, o.label()));
        }
    }

    /// Stream `i` failed: no more pages come from it (the rows it gave are still given).
    pub fn fail(&mut self, i: usize) {
        if let Some(p) = self.parts.get_mut(i) {
            p.done = true;
            p.failed = true;
        }
    }

    /// Learns the order from the first pages: the first every stream that answered fits.
    fn decide(&mut self) {
        if self.parts.len() <= 1 {
            self.merge = Some(Merge::InTurn);
            return;
        }
        let fits: Vec<[bool; 3]> = self
            .parts
            .iter()
            .filter(|p| !p.failed)
            .map(|p| p.fits)
            .collect();
        self.merge = Some(match common_order(&fits) {
            Some(o) => Merge::Ordered(o),
            None => {
                self.notices.push(IN_TURN.to_string());
                Merge::InTurn
            }
        });
    }

    /// The streams out of rows whose walk goes on.
    fn empty(&self) -> Vec<usize> {
        (0..self.parts.len())
            .filter(|&i| self.parts[i].buf.is_empty() && !self.parts[i].done)
            .collect()
    }

    /// The next row, or what it needs first, or the end.
    pub fn step(&mut self) -> Step<T> {
        loop {
            if self.merge.is_none() {
                let first: Vec<usize> = (0..self.parts.len())
                    .filter(|&i| self.parts[i].pages == 0 && !self.parts[i].done)
                    .collect();
                if !first.is_empty() {
                    return Step::Need(first);
                }
                self.decide();
            }
            let pick = match self.merge {
                Some(Merge::Ordered(o)) => {
                    let empty = self.empty();
                    if !empty.is_empty() {
                        return Step::Need(empty);
                    }
                    let mut best: Option<usize> = None;
                    for (i, p) in self.parts.iter().enumerate() {
                        let Some(head) = p.buf.front() else { continue };
                        best = match best {
                            Some(b) if !o.before(head, &self.parts[b].buf[0]) => Some(b),
                            _ => Some(i),
                        };
                    }
                    best
                }
                _ => {
                    let mut found = None;
                    for (i, p) in self.parts.iter().enumerate() {
                        if !p.buf.is_empty() {
                            found = Some(i);
                            break;
                        }
                        if !p.done {
                            return Step::Need(vec![i]);
                        }
                    }
                    found
                }
            };
            let Some(i) = pick else {
                return Step::End;
            };
            let Some(row) = self.parts[i].buf.pop_front() else {
                return Step::End;
            };
            if self.seen.insert(row.id()) {
                return Step::Row(row);
            }
            self.duplicates += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use convo_api::Conversation;
    use convo_api::{Status, Timestamp as Stamp};

    fn conv(n: u128, created: &str, updated: &str) -> Conversation {
        Conversation {
            id: Uuid::from_u128(n),
            site_id: Uuid::nil(),
            visitor_id: Uuid::nil(),
            status: Status::Open,
            assignee_id: None,
            created_at: Stamp::parse(created),
            updated_at: Stamp::parse(updated),
        }
    }

    fn at(n: u128, hour: u32) -> Conversation {
        let t = format!("2026-11-20T{hour:02}:00:00Z");
        conv(n, &t, &t)
    }

    fn drain(m: &mut Merger<Conversation>) -> (Vec<u128>, Step<Conversation>) {
        let mut out = Vec::new();
        loop {
            match m.step() {
                Step::Row(r) => out.push(r.id.as_u128()),
                other => return (out, other),
            }
        }
    }

    #[test]
    fn the_order_is_learned_from_the_rows() {
        let a = conv(1, "2026-11-20T10:00:00Z", "2026-11-20T11:00:00Z");
        let b = conv(2, "2026-11-20T09:00:00Z", "2026-11-20T12:00:00Z");
        let c = conv(3, "2026-11-20T08:00:00Z", "2026-11-20T10:30:00Z");
        let newest = orders_followed(None, &[a.clone(), b.clone(), c.clone()]);
        assert_eq!(newest, [true, false, false]);
        let oldest = orders_followed(None, &[c.clone(), b.clone(), a.clone()]);
        assert_eq!(oldest, [false, true, false]);
        let updated = orders_followed(None, &[b.clone(), a.clone(), c.clone()]);
        assert_eq!(updated, [false, false, true]);
        // Across pages: the row before the page counts.
        assert_eq!(
            orders_followed(Some(&c), std::slice::from_ref(&a)),
            [false, true, false]
        );
        // One row fits anything; an unreadable time fits nothing.
        assert_eq!(orders_followed(None, std::slice::from_ref(&a)), [true; 3]);
        let raw = conv(4, "yesterday", "yesterday");
        assert_eq!(orders_followed(Some(&a), &[raw]), [false; 3]);
        assert_eq!(common_order(&[newest, [true; 3]]), Some(Order::CreatedDesc));
        assert_eq!(
            common_order(&[updated, [true; 3]]),
            Some(Order::UpdatedDesc)
        );
        assert_eq!(
            common_order(&[newest, oldest]),
            None,
            "parts disagree: in turn"
        );
        assert_eq!(common_order(&[]), Some(Order::CreatedDesc));
    }

    #[test]
    fn streams_are_merged_by_the_order_they_share_and_a_row_given_once() {
        let mut m = Merger::new(2);
        assert_eq!(m.step(), Step::Need(vec![0, 1]), "every first page first");
        m.push(0, vec![at(1, 10), at(3, 8)], true);
        assert_eq!(m.step(), Step::Need(vec![1]));
        m.push(1, vec![at(2, 9), at(3, 8)], false);
        assert_eq!(m.step(), Step::Row(at(1, 10)));
        assert_eq!(m.merge(), Some(Merge::Ordered(Order::CreatedDesc)));
        let (rows, then) = drain(&mut m);
        assert_eq!(rows, [2, 3], "row 3 of both streams once");
        // Stream 0 is out of rows but goes on: its next page is needed, not stream 1's.
        assert_eq!(then, Step::Need(vec![0]));
        m.push(0, vec![at(4, 7)], false);
        let (rows, then) = drain(&mut m);
        assert_eq!((rows, then), (vec![4], Step::End));
        assert_eq!(m.duplicates(), 1);
        assert!(m.take_notices().is_empty());
    }

    #[test]
    fn streams_that_disagree_are_given_in_turn_and_a_failed_one_ends() {
        let mut m = Merger::new(3);
        m.push(0, vec![at(1, 10), at(2, 9)], true);
        m.push(1, vec![at(3, 8), at(4, 9)], false);
        m.fail(2);
        let (rows, then) = drain(&mut m);
        assert_eq!(m.merge(), Some(Merge::InTurn));
        assert_eq!(m.take_notices(), vec![IN_TURN.to_string()]);
        assert_eq!(rows, [1, 2], "stream 0 first, as it sends them");
        assert_eq!(then, Step::Need(vec![0]), "then stream 0 goes on, alone");
        m.push(0, vec![], false);
        let (rows, then) = drain(&mut m);
        assert_eq!((rows, then), (vec![3, 4], Step::End));
    }

    #[test]
    fn a_stream_that_leaves_the_order_later_turns_the_merge_in_turn() {
        let mut m = Merger::new(2);
        m.push(0, vec![at(1, 10)], true);
        m.push(1, vec![at(2, 9)], false);
        assert_eq!(m.step(), Step::Row(at(1, 10)));
        m.push(0, vec![at(5, 12)], false);
        assert_eq!(m.merge(), Some(Merge::InTurn));
        assert_eq!(
            m.take_notices(),
            vec![format!("{IN_TURN} (stream 1 left createdAt, newest first)")]
        );
        let (rows, then) = drain(&mut m);
        assert_eq!((rows, then), (vec![5, 2], Step::End));
    }
}
