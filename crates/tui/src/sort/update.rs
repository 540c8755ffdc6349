//! How `>`, `<`, `=` and the moves while sorted change the app.

use super::Sort;
use crate::app::App;
use crate::columns::Column;
use crate::keys::Action;
use convo_api::Resource;

/// `=`: descending → ascending → the server's order again.
pub fn reverse(app: &mut App) {
    let active = app.active();
    let f = app.sort_mut().get_mut(active);
    f.sort = match f.sort {
        Some(s) if s.desc => Some(Sort { desc: false, ..s }),
        Some(_) => None,
        None => {
            return app.say(format!(
                "no sort: {} / {} choose a column",
                app.settings().keymap().key_of(Action::SortNext),
                app.settings().keymap().key_of(Action::SortPrev)
            ));
        }
    };
    resorted(app);
}

/// Before every message: where the selected row is in the display order, for a refresh
/// that takes it away (see [`super::Sorting::held_at`]).
pub fn before(app: &mut App) {
    for tab in [Resource::Conversations, Resource::Visitors] {
        let s = app.sort().get(tab);
        let held_at = with_tab!(ref app, tab, |t| (s.sorted() && t.held().is_none())
            .then(|| s.pos(t.selected())));
        app.sort_mut().get_mut(tab).held_at = held_at;
    }
}

/// The sort changed: the active tab's order is recomputed now (`force`), the other tab's
/// when its rows change.
pub fn refresh(app: &mut App, force: bool) {
    for tab in [Resource::Conversations, Resource::Visitors] {
        let force = force && tab == app.active();
        refresh_tab(app, tab, force);
    }
}

/// `tab`'s rows (or its selection, or the names a column sorts by) changed: its order is
/// recomputed when they differ from those last sorted (or `force`), and the sorted
/// selection kept on screen. A selected row that left at this message is held where it was
/// in the display order: the row after it there is the one that took its place.
pub fn refresh_tab(app: &mut App, tab: Resource, force: bool) {
    let body = app.body_height();
    let aliases = app.settings().aliases().clone();
    // Taken out while the tab's rows and the names are read, then put back.
    let mut sorting = std::mem::take(app.sort_mut().get_mut(tab));
    let s = &mut sorting;
    let top = with_tab!(ref app, tab, |t| {
        s.refresh(
            t.rows(),
            (t.generation(), t.marks().revision()),
            (&aliases, app.names()),
            force,
            // `L` still loading (it stays on after the walk ends)
            t.load_all() && t.walk().has_more() && t.error().is_none(),
        );
        let held_at = s.held_at.take().filter(|_| t.held().is_some());
        if let Some(p) = held_at.filter(|_| s.sorted() && !s.follow_top) {
            let n = t.rows().len();
            let i = s.row_at(p.min(n.saturating_sub(1)));
            s.scroll_to(i, n, body);
            Some(i)
        } else if s.sorted() && s.follow_top && !t.rows().is_empty() {
            s.offset = 0;
            Some(s.row_at(0))
        } else {
            if s.sorted() {
                s.scroll_to(t.selected(), t.rows().len(), body);
            }
            None
        }
    });
    *app.sort_mut().get_mut(tab) = sorting;
    if let Some(i) = top {
        with_tab!(app, tab, |t| t.select_in_sort(i));
    }
}

/// The user moved the selection (or chose a sort): it no longer follows the first row.
pub fn stop_following(app: &mut App, tab: Resource) {
    app.sort_mut().get_mut(tab).follow_top = false;
}

/// The selected row (an index into the loaded rows) of the active tab.
pub fn selected(app: &App) -> usize {
    with_tab!(ref app, app.active(), |t| t.selected())
}

fn rows_len(app: &App) -> usize {
    with_tab!(ref app, app.active(), |t| t.rows().len())
}

/// Selects row `i` (an index into the loaded rows) and keeps it on screen.
pub fn select_row(app: &mut App, i: usize) {
    let body = app.body_height();
    with_tab!(app, app.active(), |t| t.select(i, body));
    let (sel, n) = (selected(app), rows_len(app));
    let active = app.active();
    let f = app.sort_mut().get_mut(active);
    if f.sorted() {
        f.scroll_to(sel, n, body);
    }
    app.detail_mut().row_changed();
}

/// Moves the selection by `delta` display positions (while sorted).
pub fn move_sorted(app: &mut App, delta: isize) {
    let n = rows_len(app);
    if n == 0 {
        return;
    }
    // From a row held under the cursor (it left at a refresh; shown just above the row that
    // took its place in the display order), a step down lands on that row first.
    let held = with_tab!(ref app, app.active(), |t| t.held().is_some());
    let delta = if held && delta > 0 { delta - 1 } else { delta };
    let f = app.sort().get(app.active());
    let pos = f.pos(selected(app)) as isize;
    let target = pos.saturating_add(delta).clamp(0, n as isize - 1) as usize;
    let i = f.row_at(target);
    select_row(app, i);
}

/// `>` / `<`: sorts by the next or previous shown column.
pub fn cycle_sort(app: &mut App, back: bool) {
    let cols: Vec<Column> = app.settings().columns().of(app.active()).to_vec();
    if cols.is_empty() {
        return;
    }
    let active = app.active();
    let f = app.sort_mut().get_mut(active);
    let cur = f.sort.and_then(|s| cols.iter().position(|c| *c == s.col));
    let next = match (cur, back) {
        (None, false) => 0,
        (None, true) => cols.len() - 1,
        (Some(i), false) => (i + 1) % cols.len(),
        (Some(i), true) => (i + cols.len() - 1) % cols.len(),
    };
    let desc = f.sort.is_none_or(|s| s.desc);
    f.sort = Some(Sort {
        col: cols[next],
        desc,
    });
    resorted(app);
}

/// The sort changed: recompute it, keep the selected row selected and on screen.
fn resorted(app: &mut App) {
    stop_following(app, app.active());
    refresh(app, true);
    let sel = selected(app);
    select_row(app, sel);
    app.status_line_mut().clear();
}
