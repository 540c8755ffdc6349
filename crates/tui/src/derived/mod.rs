//! What the screen computes from the tabs' rows: the search's matches, the display order,
//! the summary pane's counts, the board's counts of the views the tabs show and the "since
//! you last looked" line. Each is recomputed when what it is computed from changes (a tab's
//! walk, its rows, their marks, whether it is loaded whole, its selection, the names shown,
//! the rows on screen, the tab on screen, the minute for the pane), not after every message:
//! [`Derived`] keeps what they were last computed from.

use convo_api::Resource;

use crate::tab::PerTab;

pub mod update;

/// What a tab's rows are: its walk, how many, its marks' revision.
type RowsKey = (u64, usize, u64);

/// What a tab's derived state was last computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Basis {
    generation: u64,
    rows: usize,
    /// The marks' revision: a refresh merged in place (rows replaced, not added) moves it.
    revision: u64,
    done: bool,
    /// `L` still loading (the order sorts appended rows in place meanwhile).
    loading: bool,
    selected: usize,
    held: bool,
    /// The names shown (a column sorts by them; the search looks in them).
    names: u64,
    /// Rows on screen (the sorted selection is kept on screen).
    body: usize,
    active: bool,
}

/// The bases the derived state of each tab, and the summary pane's minute, were last
/// computed from.
#[derive(Debug, Clone, Default)]
pub struct Derived {
    of: PerTab<Option<Basis>>,
    minute: Option<i64>,
    /// Each tab's rows (walk, count, marks' revision) and since when they are what they are:
    /// what the board's count of the tab's view is as of, counted when the board is shown.
    rows_at: PerTab<Option<(RowsKey, jiff::Timestamp)>>,
}

impl Derived {
    /// Since when `tab`'s rows are what they are now (its walk's last page or refresh).
    pub fn rows_at(&self, tab: Resource) -> Option<jiff::Timestamp> {
        self.rows_at.get(tab).map(|(_, at)| at)
    }
}
