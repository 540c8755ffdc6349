//! Display-only sort of a tab's loaded rows (`>` `<` choose the column, `=` reverses).
//!
//! The sort works on indices into the pager's rows, so the selection stays "the row at
//! `TabState::selected`" and the reselect-by-id logic of reloads is untouched. It is a
//! permutation computed once when the rows, the generation or the sort change (never per
//! frame); a new walk (reload, filters) clears it (docs/design.md "Data": rows are shown in the
//! server's order; a local sort is display-only and marked). How keys change it:
//! [`update`].

pub mod update;

use super::columns::{Cells, Column, SortKey};
use crate::names::VisitorNames;
use convo_api::Row;
use convo_config::Aliases;

/// The display sort: a column and a direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub col: Column,
    pub desc: bool,
}

/// The sort of one tab and the order it gives.
#[derive(Debug, Clone, Default)]
pub struct Sorting {
    pub sort: Option<Sort>,
    /// Display position → row index; empty when not sorted.
    pub perm: Vec<usize>,
    /// Row index → display position; empty when not sorted.
    pub inv: Vec<usize>,
    /// The first display position on screen while sorted.
    pub offset: usize,
    /// The selection stays on the first row of the display order (an oldest-first view just
    /// opened: its oldest row) while pages arrive and the order changes, until the user moves
    /// it or chooses another sort.
    pub follow_top: bool,
    /// The display position of the selected row as a message began (set by
    /// [`update::before`]): when a refresh takes the row away, it is held at this place of
    /// the display order (the row now there is the one after it).
    pub held_at: Option<usize>,
    /// The walk, rows, revision (rows changed in place by a refresh) and names (the visitors'
    /// names known, for a column that sorts by them) it was computed for.
    basis: Option<(u64, usize, u64, u64)>,
    /// Rows the last full sort covered (rows after them arrived during `L`).
    sorted_len: usize,
    /// Full sorts so far.
    sorts: u64,
}

impl Sorting {
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

    /// Sets `sort` for the walk of `generation` (a view's order): kept by the next
    /// [`Sorting::refresh`] of that walk, which computes the order.
    pub fn preset(&mut self, sort: Sort, generation: u64) {
        self.sort = Some(sort);
        self.offset = 0;
        self.basis = Some((generation, usize::MAX, u64::MAX, u64::MAX));
    }

    /// Recomputes the permutation if the rows changed (or `force`). A new generation (reload,
    /// filters) clears the sort. While `loading` (`L`), rows that only arrived are shown
    /// after the sorted ones, in the server's order, until they are a quarter more than those:
    /// sorting again on every page would cost O(n log n) a page. Once loading stops, all rows
    /// are sorted.
    pub fn refresh<T: Row + Cells>(
        &mut self,
        rows: &[T],
        (generation, revision): (u64, u64),
        (aliases, names): (&Aliases, &VisitorNames),
        force: bool,
        loading: bool,
    ) {
        // Names arriving from the store reorder only a column that sorts by them.
        let named = match self.sort {
            Some(s) if s.col.sorts_by_name() => names.revision(),
            _ => 0,
        };
        let basis = Some((generation, rows.len(), revision, named));
        let whole = self.sorted_len == rows.len();
        if !force && basis == self.basis && (whole || loading) {
            return;
        }
        let appended = self.basis.is_some_and(|(g, n, r, m)| {
            g == generation
                && r == revision
                && m == named
                && n <= rows.len()
                && self.perm.len() == n
        });
        if self.basis.is_some_and(|(g, _, _, _)| g != generation) {
            self.sort = None;
            self.offset = 0;
        }
        self.basis = basis;
        if self.sort.is_none() {
            self.perm.clear();
            self.inv.clear();
            self.sorted_len = 0;
            return;
        }
        if !force && loading && appended && rows.len() < self.sorted_len + self.sorted_len / 4 + 1 {
            for i in self.perm.len()..rows.len() {
                self.inv.push(self.perm.len());
                self.perm.push(i);
            }
            return;
        }
        self.sort_all(rows, aliases, names);
    }

    /// Sorts every row by keys computed once each (stable: equal keys keep the server's
    /// order).
    fn sort_all<T: Row + Cells>(&mut self, rows: &[T], aliases: &Aliases, names: &VisitorNames) {
        let Some(s) = self.sort else {
            return;
        };
        self.sorts += 1;
        let keys: Vec<SortKey> = rows
            .iter()
            .map(|r| r.sort_key(s.col, aliases, names))
            .collect();
        let mut perm: Vec<usize> = (0..rows.len()).collect();
        perm.sort_by(|&a, &b| keys[a].cmp_in(&keys[b], s.desc));
        let mut inv = vec![0; perm.len()];
        for (p, &i) in perm.iter().enumerate() {
            inv[i] = p;
        }
        self.perm = perm;
        self.inv = inv;
        self.sorted_len = rows.len();
    }

    /// How many times every row was sorted (for tests and benches: `L` must not sort on
    /// every page).
    pub fn sorts(&self) -> u64 {
        self.sorts
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

    /// The header's sort mark where the full one does not fit: `sorted by created ↓`.
    pub fn short_mark(&self) -> Option<String> {
        let s = self.sort?;
        Some(format!(
            "sorted by {} {}",
            s.col.name(),
            if s.desc { "↓" } else { "↑" }
        ))
    }

    /// The header's sort mark, e.g. `sorted by created ↓ (display only)`.
    pub fn mark(&self) -> Option<String> {
        let s = self.sort?;
        Some(format!(
            "sorted by {} {} (display only)",
            s.col.name(),
            if s.desc { "↓" } else { "↑" }
        ))
    }
}
