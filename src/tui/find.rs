//! Quick search and display-only sort of a tab's loaded rows.
//!
//! Both work on indices into the pager's rows, so the selection stays "the row at
//! `TabState::selected`" and the reselect-by-id logic of reloads is untouched. The sort is a
//! permutation computed once when the rows, the generation or the sort change (never per
//! frame); a new walk (reload, filters) clears it (decisions.md: rows are shown in the
//! server's order; a local sort is display-only and marked).

use super::columns::{Cells, Column};
use crate::api::Row;
use crate::config::Aliases;

/// The display sort: a column and a direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub col: Column,
    pub desc: bool,
}

/// Search and sort of one tab.
#[derive(Debug, Clone, Default)]
pub struct Find {
    /// The search text; empty means no search.
    pub query: String,
    /// Indices of the rows that match, ascending.
    pub matches: Vec<usize>,
    pub sort: Option<Sort>,
    /// Display position → row index; empty when not sorted.
    pub perm: Vec<usize>,
    /// Row index → display position; empty when not sorted.
    pub inv: Vec<usize>,
    /// The first display position on screen while sorted.
    pub offset: usize,
    /// (generation, rows) the matches and permutation were computed for.
    basis: Option<(u64, usize)>,
}

impl Find {
    /// True when a sort is in effect.
    pub fn sorted(&self) -> bool {
        self.sort.is_some() && !self.perm.is_empty()
    }

    /// The display position of row `i`.
    pub fn pos(&self, i: usize) -> usize {
        if self.sorted() {
            self.inv.get(i).copied().unwrap_or(i)
        } else {
            i
        }
    }

    /// The row index at display position `p`.
    pub fn row_at(&self, p: usize) -> usize {
        if self.sorted() {
            self.perm.get(p).copied().unwrap_or(p)
        } else {
            p
        }
    }

    /// True if row `i` matches the search.
    pub fn is_match(&self, i: usize) -> bool {
        !self.query.is_empty() && self.matches.binary_search(&i).is_ok()
    }

    /// Recomputes matches and the permutation if the rows changed (or `force`). A new
    /// generation (reload, filters) clears the sort.
    pub fn refresh<T: Row + Cells>(
        &mut self,
        rows: &[T],
        generation: u64,
        columns: &[Column],
        now: jiff::Timestamp,
        aliases: &Aliases,
        force: bool,
    ) {
        let basis = Some((generation, rows.len()));
        if !force && basis == self.basis {
            return;
        }
        if self.basis.is_some_and(|(g, _)| g != generation) {
            self.sort = None;
            self.offset = 0;
        }
        self.basis = basis;
        self.matches = if self.query.is_empty() {
            Vec::new()
        } else {
            let q = self.query.to_lowercase();
            rows.iter()
                .enumerate()
                .filter(|(_, r)| {
                    columns.iter().any(|c| {
                        r.text(*c, now, aliases)
                            .is_some_and(|t| t.to_lowercase().contains(&q))
                    })
                })
                .map(|(i, _)| i)
                .collect()
        };
        match self.sort {
            Some(s) => {
                let mut perm: Vec<usize> = (0..rows.len()).collect();
                // Stable: equal keys keep the server's order.
                perm.sort_by(|&a, &b| {
                    let o = rows[a].compare(&rows[b], s.col, aliases);
                    if s.desc { o.reverse() } else { o }
                });
                let mut inv = vec![0; perm.len()];
                for (p, &i) in perm.iter().enumerate() {
                    inv[i] = p;
                }
                self.perm = perm;
                self.inv = inv;
            }
            None => {
                self.perm.clear();
                self.inv.clear();
            }
        }
    }

    /// Keeps the selected row's display position on screen (sorted view only).
    pub fn scroll_to(&mut self, selected: usize, n: usize, body: usize) {
        let body = body.max(1);
        let pos = self.pos(selected);
        if pos < self.offset {
            self.offset = pos;
        } else if pos >= self.offset + body {
            self.offset = pos + 1 - body;
        }
        self.offset = self.offset.min(n.saturating_sub(body));
    }

    /// Matches as (display position, row index), in display order.
    fn by_pos(&self) -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = self.matches.iter().map(|&i| (self.pos(i), i)).collect();
        v.sort_unstable();
        v
    }

    /// The next (or previous) match after display position `from`, wrapping around: the row
    /// index and its number among the matches (1-based).
    pub fn next_match(&self, from: usize, back: bool) -> Option<(usize, usize)> {
        let v = self.by_pos();
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
    pub fn first_match_from(&self, from: usize) -> Option<(usize, usize)> {
        let v = self.by_pos();
        let k = v.iter().position(|(p, _)| *p >= from).unwrap_or(0);
        v.get(k).map(|(_, i)| (*i, k + 1))
    }
}
