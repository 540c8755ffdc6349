//! The selection moved (keys and the mouse wheel), the detail pane scrolled, and clicks on the
//! tabs and the table.

use crossterm::event::MouseEventKind;
use crossterm::event::{MouseButton, MouseEvent};

use crate::app::App;
use crate::keys::Action;
use crate::layout::tab_titles;
use crate::overlay::Overlay;
use crate::prompt::Prompt;
use crate::sort;
use crate::tab::ScreenLine;
use crate::tab::marks;

/// Rows the mouse wheel moves.
const WHEEL_ROWS: isize = 3;

/// The user moved the selection to another row: that row's mark goes, and the selection no
/// longer follows the first row of an oldest-first view.
pub(super) fn seen_selection(app: &mut App, before: Option<uuid::Uuid>) {
    if app.selected_id() != before {
        with_tab!(app, app.active(), |t| marks::selected(t));
        sort::update::stop_following(app, app.active());
    }
}

pub(super) fn move_by(app: &mut App, delta: isize) {
    let body = app.body_height();
    let moved = with_tab!(app, app.active(), |t| {
        let n = t.rows().len();
        if n == 0 {
            false
        } else {
            let target = t.move_target(delta);
            if delta > 0 && target == n - 1 && t.error().is_some() {
                t.clear_error(); // scrolling to the end retries
            }
            let before = (t.selected(), t.held().is_some());
            t.select(target, body);
            (t.selected(), false) != before
        }
    });
    if moved {
        app.detail_mut().row_changed();
    }
}

pub(super) fn scroll_detail(app: &mut App, delta: isize) {
    if !app.detail().is_open() {
        let open = app.settings().keymap().key_of(Action::Detail);
        return app.say(format!("no detail pane to scroll: {open} opens it"));
    }
    let lines = crate::detail::line_count(app);
    let height = app
        .areas()
        .detail
        .map_or(1, |r| r.height.saturating_sub(2) as usize);
    app.detail_mut()
        .scroll_by(delta, lines.saturating_sub(height));
}

pub(super) fn on_mouse(app: &mut App, m: MouseEvent) {
    // An overlay, or the query line over the table (and its save prompt), takes no clicks:
    // what is under it is not what the click would reach.
    if !matches!(app.overlay(), Overlay::None)
        || matches!(app.prompt(), Some(Prompt::Query(_) | Prompt::SaveView(_)))
    {
        return;
    }
    match m.kind {
        MouseEventKind::ScrollDown => move_by(app, WHEEL_ROWS),
        MouseEventKind::ScrollUp => move_by(app, -WHEEL_ROWS),
        MouseEventKind::Down(MouseButton::Left) => {
            let areas = app.areas();
            if m.row == areas.header.y {
                if let Some(t) = tab_titles()
                    .into_iter()
                    .find(|t| m.column >= t.x && m.column < t.x + t.width)
                {
                    app.show_tab(t.tab);
                }
            } else if m.row >= areas.body_top()
                && m.row < areas.table.y + areas.table.height
                && m.column < areas.table.x + areas.table.width
            {
                // The row on that line as drawn: in the display order when sorted; a row
                // that left (shown for one refresh) cannot be selected.
                let line = (m.row - areas.body_top()) as usize;
                let body = areas.body_height();
                let order = app.sort().get(app.active());
                let n = with_tab!(ref app, app.active(), |t| t.rows().len());
                let row = if order.sorted() {
                    let p = order.offset + line;
                    (p < n).then(|| order.row_at(p))
                } else {
                    with_tab!(ref app, app.active(), |t| {
                        match t.screen_lines(body, true).get(line) {
                            Some(ScreenLine::Row(i)) => Some(*i),
                            _ => None,
                        }
                    })
                };
                if let Some(i) = row {
                    sort::update::select_row(app, i);
                }
            }
        }
        _ => return,
    }
    app.mark_dirty();
}
