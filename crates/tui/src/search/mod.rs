//! Quick search of a tab's loaded rows (`\`, then `n` / `N`): the rows whose shown text
//! contains the query, without regard to case or accents ([`fold`]). Works on indices into the pager's rows and follows
//! the display order of [`super::sort`]. How keys change it: [`update`].

pub use convo_text::fold;
pub mod update;

use super::columns::{Cells, Column};
use super::sort::Sorting;
use convo_api::Row;
use convo_config::Aliases;

/// Most queries the search prompt remembers.
const HISTORY_MAX: usize = 100;

/// Earlier queries (both tabs'), newest last, for ↑ and ↓ in the search prompt, as in
/// shells, less and vim; and where ↑/↓ stand while the prompt is open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    entries: Vec<String>,
    /// The entry shown by ↑/↓ (`None`: the text being typed).
    at: Option<usize>,
    /// The text being typed before ↑ was first pressed, given back by ↓ past the newest.
    draft: String,
}

impl History {
    /// Remembers a submitted query (once: a repeat moves to the newest place).
    pub fn push(&mut self, query: &str) {
        let q = query.trim();
        if q.is_empty() {
            return;
        }
        self.entries.retain(|e| e != q);
        self.entries.push(q.to_string());
        if self.entries.len() > HISTORY_MAX {
            self.entries.remove(0);
        }
    }

    /// A prompt opens: ↑ starts from the newest entry again.
    pub fn start(&mut self) {
        self.at = None;
        self.draft.clear();
    }

    /// ↑ (`back`) or ↓ from the prompt's `text`: the text to show, or `None` at either end.
    pub fn step(&mut self, text: &str, back: bool) -> Option<String> {
        let n = self.entries.len();
        let next = match (self.at, back) {
            (None, true) if n > 0 => {
                self.draft = text.to_string();
                // The newest entry is the text on the line already (the query line opens on
                // the tab's query): ↑ shows the one before it.
                match n.checked_sub(1 + usize::from(self.entries[n - 1] == text.trim())) {
                    Some(i) => Some(i),
                    None => return None,
                }
            }
            (Some(i), true) if i > 0 => Some(i - 1),
            (Some(i), false) if i + 1 < n => Some(i + 1),
            (Some(_), false) => {
                self.at = None;
                return Some(std::mem::take(&mut self.draft));
            }
            _ => return None,
        };
        self.at = next;
        next.and_then(|i| self.entries.get(i).cloned())
    }

    /// A history of these entries (oldest first), e.g. as the local store keeps them.
    pub fn with_entries(entries: Vec<String>) -> History {
        History {
            entries,
            ..History::default()
        }
    }

    /// The remembered queries, oldest first.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }
}

/// The search of one tab.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// The search text; empty means no search.
    pub query: String,
    /// Indices of the rows that match, ascending.
    pub matches: Vec<usize>,
    /// The tab's query (its filters) the search was typed over: another query ends it.
    pub over: String,
    /// The row selected when the prompt opened: while nothing matches, the selection is
    /// back there (not where a partial match took it).
    pub origin: Option<usize>,
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
        self.matches.clear();
        let needle = fold::Needle::new(&self.query);
        if needle.is_empty() {
            return;
        }
        // One scratch buffer for the whole scan: no allocation per row for the folding.
        let mut buf = String::new();
        for (i, r) in rows.iter().enumerate() {
            let mut has = |t: &str| needle.is_in(t, &mut buf);
            let hit = columns
                .iter()
                .any(|c| r.text(*c, now, aliases).is_some_and(|t| has(&t)))
                // The visitor's name and e-mail, as the VISITOR column may show them.
                || r.visitor().and_then(|v| names.get(&v)).is_some_and(|l| {
                    l.name.as_deref().is_some_and(&mut has)
                        || l.email.as_deref().is_some_and(&mut has)
                });
            if hit {
                self.matches.push(i);
            }
        }
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

    /// The number (1-based, in display order) of row `i` among the matches, if it is one.
    pub fn rank(&self, order: &Sorting, i: usize) -> Option<usize> {
        if !self.is_match(i) {
            return None;
        }
        let p = order.pos(i);
        Some(1 + self.matches.iter().filter(|&&j| order.pos(j) < p).count())
    }

    /// The first match at or after display position `from`, wrapping (search as you type).
    pub fn first_match_from(&self, order: &Sorting, from: usize) -> Option<(usize, usize)> {
        let v = self.by_pos(order);
        let k = v.iter().position(|(p, _)| *p >= from).unwrap_or(0);
        v.get(k).map(|(_, i)| (*i, k + 1))
    }
}
