//! What the screen computes from the tabs' rows: the search's matches, the display order,
//! the summary pane's counts, the board's counts of the views the tabs show and the "since
//! you last looked" line. Each is recomputed when what it is computed from changes (a tab's
//! walk, its rows, their marks, whether it is loaded whole, its selection, the names shown,
//! the rows on screen, the tab on screen, the minute for the pane), not after every message:
//! [`Derived`] keeps what they were last computed from.

use crate::app::App;
use crate::tab::PerTab;
use crate::{board, search, sort, summary_pane};
use convo_api::Resource;

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
}

fn basis(app: &App, tab: Resource) -> Basis {
    let (names, body, active) = (
        app.names().revision(),
        app.body_height(),
        app.active() == tab,
    );
    with_tab!(ref app, tab, |t| Basis {
        generation: t.generation(),
        rows: t.rows().len(),
        revision: t.marks().revision(),
        done: t.walk().is_done(),
        loading: t.load_all() && t.walk().has_more() && t.error().is_none(),
        selected: t.selected(),
        held: t.held().is_some(),
        names,
        body,
        active,
    })
}

/// Brings the derived state of each tab whose basis changed up to date: the board's count
/// of its view, its search's matches, its display order, the summary pane (the
/// Conversations tab's, also when the minute turns) and the "since you last looked" line.
pub(super) fn recompute(app: &mut App) {
    let minute = app.now().as_second().div_euclid(60);
    let new_minute = app.derived().minute != Some(minute);
    app.derived_mut().minute = Some(minute);
    for tab in [Resource::Conversations, Resource::Visitors] {
        let now = basis(app, tab);
        let changed = *app.derived().of.get(tab) != Some(now);
        if changed {
            board::update::from_tab(app, tab);
            search::update::refresh_tab(app, tab, false);
            sort::update::refresh_tab(app, tab, false);
            super::since_look::say(app, tab);
        }
        if tab == Resource::Conversations && (changed || new_minute) {
            summary_pane::update::refresh(app);
        }
        // The order may select another row (the top one, followed): its basis is after.
        *app.derived_mut().of.get_mut(tab) = Some(basis(app, tab));
    }
}
