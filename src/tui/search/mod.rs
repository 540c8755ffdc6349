//! Quick search of a tab's loaded rows (`\`, then `n` / `N`): the rows whose shown text
//! contains the query, case-insensitive. Works on indices into the pager's rows and follows
//! the display order of [`super::sort`]. How keys change it: [`update`].

pub mod update;

use super::columns::{Cells, Column};
use super::sort::Sorting;
use crate::api::Row;
use crate::config::Aliases;

/// The search of one tab.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The search text; empty means no search.
    pub query: String,
    /// Indices of the rows that match, ascending.
    pub matches: Vec<usize>,
    /// The walk, rows and revision (rows changed in place by a refresh) it was computed for.
    basis: Option<(u64, usize, u64)>,
    /// Scans of the rows so far (a paste must cost one, not one per character).
    scans: u64,
}

impl Search {
    /// How many times the rows were scanned for matches.
    pub fn scans(&self) -> u64 {
        self.scans
    }

    /// True if row `i` matches the search.
    pub fn is_match(&self, i: usize) -> bool {
        !self.query.is_empty() && self.matches.binary_search(&i).is_ok()
    }

    /// Recomputes the matches if the rows changed (or `force`).
    #[allow(clippy::too_many_arguments)]
    pub fn refresh<T: Row + Cells>(
        &mut self,
        rows: &[T],
        (generation, revision): (u64, u64),
        columns: &[Column],
        now: jiff::Timestamp,
        aliases: &Aliases,
        names: &super::names::VisitorNames,
        force: bool,
    ) {
        let basis = Some((generation, rows.len(), revision));
        if !force && basis == self.basis {
            return;
        }
        self.basis = basis;
        self.scans += 1;
        self.matches = if self.query.is_empty() {
            Vec::new()
        } else {
            let q = self.query.to_lowercase();
            let has = |t: &str| t.to_lowercase().contains(&q);
            rows.iter()
                .enumerate()
                .filter(|(_, r)| {
                    columns
                        .iter()
                        .any(|c| r.text(*c, now, aliases).is_some_and(|t| has(&t)))
                        // The visitor's name and e-mail, as the VISITOR column may show them.
                        || r.visitor().and_then(|v| names.get(&v)).is_some_and(|l| {
                            l.name.as_deref().is_some_and(has) || l.email.as_deref().is_some_and(has)
                        })
                })
                .map(|(i, _)| i)
                .collect()
        };
    }

    /// Matches as (display position, row index), in display order.
    fn by_pos(&self, order: &Sorting) -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = self.matches.iter().map(|&i| (order.pos(i), i)).collect();
        v.sort_unstable();
        v
    }

    /// The next (or previous) match after display position `from`, wrapping around: the row
    /// index and its number among the matches (1-based).
    pub fn next_match(&self, order: &Sorting, from: usize, back: bool) -> Option<(usize, usize)> {
        let v = self.by_pos(order);
        let k = if back {
            v.iter()
                .rposition(|(p, _)| *p < from)
                .or(v.len().checked_sub(1))?
        } else {
            v.iter().position(|(p, _)| *p > from).unwrap_or(0)
        };
        v.get(k).map(|(_, i)| (*i, k + 1))
    }

    /// The first match at or after display position `from`, wrapping (search as you type).
    pub fn first_match_from(&self, order: &Sorting, from: usize) -> Option<(usize, usize)> {
        let v = self.by_pos(order);
        let k = v.iter().position(|(p, _)| *p >= from).unwrap_or(0);
        v.get(k).map(|(_, i)| (*i, k + 1))
    }
}
