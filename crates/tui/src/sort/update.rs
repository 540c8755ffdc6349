//! How `>`, `<`, `=` and the moves while sorted change the app.

use super::Sort;
use crate::app::App;
use crate::columns::Column;
use crate::keys::Action;
use convo_api::Resource;

/// `=`: descending → ascending → the server's order again.
pub fn reverse(app: &mut App) {
    let f = app.sort.get_mut(app.active);
    f.sort = match f.sort {
        Some(s) if s.desc => Some(Sort { desc: false, ..s }),
        Some(_) => None,
        None => {
            return app.say(format!(
                "no sort: {} / {} choose a column",
                app.keymap.key_of(Action::SortNext),
                app.keymap.key_of(Action::SortPrev)
            ));
        }
    };
    resorted(app);
}

/// After every message: recomputes the order of both tabs when their rows changed (or of
/// the active tab when `force`), and keeps the sorted selection on screen.
pub fn refresh(app: &mut App, force: bool) {
    let body = app.body_height();
    for tab in [Resource::Conversations, Resource::Visitors] {
        let force = force && tab == app.active;
        let s = app.sort.get_mut(tab);
        let top = with_tab!(ref app, tab, |t| {
            s.refresh(
                t.rows(),
                (t.generation, t.marks.revision()),
                (&app.aliases, &app.names),
                force,
                // `L` still loading (it stays on after the walk ends)
                t.load_all && t.pager.has_more() && t.error.is_none(),
            );
            if s.sorted() && s.follow_top && !t.rows().is_empty() {
                s.offset = 0;
                Some(s.row_at(0))
            } else {
                if s.sorted() {
                    s.scroll_to(t.selected, t.rows().len(), body);
                }
                None
            }
        });
        if let Some(i) = top {
            with_tab!(app, tab, |t| t.selected = i);
        }
    }
}

/// The user moved the selection (or chose a sort): it no longer follows the first row.
pub fn stop_following(app: &mut App, tab: Resource) {
    app.sort.get_mut(tab).follow_top = false;
}

/// The selected row (an index into the loaded rows) of the active tab.
pub fn selected(app: &App) -> usize {
    with_tab!(ref app, app.active, |t| t.selected)
}

fn rows_len(app: &App) -> usize {
    with_tab!(ref app, app.active, |t| t.rows().len())
}

/// Selects row `i` (an index into the loaded rows) and keeps it on screen.
pub fn select_row(app: &mut App, i: usize) {
    let body = app.body_height();
    with_tab!(app, app.active, |t| t.select(i, body));
    let (sel, n) = (selected(app), rows_len(app));
    let f = app.sort.get_mut(app.active);
    if f.sorted() {
        f.scroll_to(sel, n, body);
    }
    if let Some(s) = app.detail.as_mut() {
        *s = 0;
    }
}

/// Moves the selection by `delta` display positions (while sorted).
pub fn move_sorted(app: &mut App, delta: isize) {
    let n = rows_len(app);
    if n == 0 {
        return;
    }
    // From a row held under the cursor (it left at a refresh; a display sort does not show
    // it), a step lands on the row that took its place first.
    let held = with_tab!(ref app, app.active, |t| t.held().is_some());
    let delta = if held { delta - delta.signum() } else { delta };
    let f = app.sort.get(app.active);
    let pos = f.pos(selected(app)) as isize;
    let target = pos.saturating_add(delta).clamp(0, n as isize - 1) as usize;
    let i = f.row_at(target);
    select_row(app, i);
}

/// `>` / `<`: sorts by the next or previous shown column.
pub fn cycle_sort(app: &mut App, back: bool) {
    let cols: Vec<Column> = app.columns.of(app.active).to_vec();
    if cols.is_empty() {
        return;
    }
    let f = app.sort.get_mut(app.active);
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
    stop_following(app, app.active);
    refresh(app, true);
    let sel = selected(app);
    select_row(app, sel);
    app.message = None;
}
