//! Drawing only: every function takes `&App` and a `Frame` (or an area of it) and changes
//! nothing. One file per widget.

pub mod board;
pub mod chips;
pub mod commands;
pub mod detail;
pub mod filter_pane;
pub mod footer;
pub mod header;
pub mod help;
pub mod help_lines;
pub mod marks;
pub mod picker;
pub mod prompt;
pub mod query_line;
pub mod status;
pub mod summary;
pub mod table;

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};

use super::app::App;
use super::overlay::Overlay;

/// Draws the whole screen.
pub fn draw(app: &App, frame: &mut Frame) {
    let full = frame.area();
    if super::layout::too_small((full.width, full.height)) {
        too_small(frame, full);
        app.settings().theme().apply(frame.buffer_mut());
        return;
    }
    let areas = app.areas();
    header::draw(app, frame, areas.header);
    chips::draw(app, frame, areas.chips);
    table::draw(app, frame, areas.table);
    if let Some(d) = areas.detail {
        detail::draw(app, frame, d);
    }
    footer::draw(app, frame, areas.footer);
    status::draw(app, frame, areas.status);
    draw_overlay(app, app.overlay(), frame);
    prompt::draw(app, frame);
    mend_wide(frame.buffer_mut());
    app.settings().theme().apply(frame.buffer_mut());
}

/// An overlay, over what it was opened over (the help over the summary pane).
fn draw_overlay(app: &App, overlay: &Overlay, frame: &mut Frame) {
    match overlay {
        Overlay::None => {}
        Overlay::Help { scroll, under } => {
            if let Some(under) = under {
                draw_overlay(app, under, frame);
            }
            help::draw(app, *scroll, frame)
        }
        Overlay::Views { selected } => picker::draw(app, *selected, frame),
        Overlay::Filter(form) => filter_pane::draw(app, form, frame),
        Overlay::Summary(pane) => summary::draw(app, pane, frame),
        Overlay::Board => board::draw(app, frame),
        Overlay::Commands { selected } => commands::menu(app, *selected, frame),
        Overlay::CopyField { selected, fields } => commands::copy_menu(*selected, fields, frame),
        Overlay::Output(pane) => commands::pane(pane, frame),
    }
}

/// A two-cell character (CJK, emoji) whose second cell something else was drawn over (an
/// overlay's left border over a name in the table) gives way to a space: a terminal gives the
/// second cell to the character, so what was drawn there would never show (ratatui's diff
/// assumes no wide character is followed by a non-blank cell).
fn mend_wide(buf: &mut ratatui::buffer::Buffer) {
    use unicode_width::UnicodeWidthStr;
    let area = buf.area;
    for y in area.y..area.bottom() {
        let mut x = area.x;
        while x < area.right() {
            let symbol = buf[(x, y)].symbol();
            // ASCII (most cells) is one cell: no width to look up.
            let w = if symbol.len() == 1 {
                1
            } else {
                symbol.width().max(1) as u16
            };
            let covered = (1..w)
                .filter(|dx| x + dx < area.right())
                .any(|dx| buf[(x + dx, y)].symbol() != " ");
            if covered {
                buf[(x, y)].set_symbol(" ");
                x += 1;
            } else {
                x += w;
            }
        }
    }
}

/// One line instead of the screen when the terminal is below the minimum: its size and the
/// size needed, cut to the width (nothing at all in a terminal of no cells).
fn too_small(frame: &mut Frame, full: Rect) {
    if full.width == 0 || full.height == 0 {
        return;
    }
    let (w, h) = super::layout::MIN_SIZE;
    let text = format!("too small: {}x{}, need {w}x{h}", full.width, full.height);
    let line = Rect::new(full.x, full.y, full.width, 1);
    frame.render_widget(ratatui::text::Line::raw(text), line);
}

/// A centred rectangle of at most `w` x `h` cells inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let [row] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [cell] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(row);
    cell
}
