//! The marks of new and changed rows (see [`crate::tui::marks`]) and of rows that left at the
//! last refresh: a symbol in the table's selection column (the selected row keeps its `>`)
//! and a count for the footer.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Span;

use crate::api::{Resource, Row};
use crate::tui::app::App;
use crate::tui::marks::Mark;
use crate::tui::tab::{ScreenLine, TabFilter, TabState};

/// Before a row that left at the last refresh (one cell wide).
pub const GONE: &str = "×";

fn style(m: Mark) -> Style {
    match m {
        Mark::New => Style::new().fg(Color::Cyan).bold(),
        Mark::Changed => Style::new().fg(Color::Yellow).bold(),
    }
}

/// Draws the marks of the rows on screen into the table's first column (`area`: the table
/// with its column header, as [`super::table::draw`] got it).
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    match app.active {
        Resource::Conversations => draw_tab(&app.conversations, frame, area),
        Resource::Visitors => draw_tab(&app.visitors, frame, area),
    }
}

fn draw_tab<T: Row + Clone + PartialEq, F: TabFilter>(
    t: &TabState<T, F>,
    frame: &mut Frame,
    area: Rect,
) {
    let marked = t.marks.counts(t.generation) != (0, 0);
    if !(marked || t.pager.gone().next().is_some()) || area.height < 2 || area.width < 4 {
        return;
    }
    let body = (area.height - 1) as usize;
    let rows = t.rows();
    let buf = frame.buffer_mut();
    for (y, line) in (area.y + 1..).zip(t.screen_lines(body, true)) {
        let (symbol, style) = match line {
            ScreenLine::Row(i) if i == t.selected => continue,
            ScreenLine::Row(i) => match t.marks.mark(t.generation, &rows[i].id()) {
                Some(m) => (m.symbol(), style(m)),
                None => continue,
            },
            ScreenLine::Gone(_) => (GONE, Style::new().fg(Color::DarkGray)),
        };
        if let Some(cell) = buf.cell_mut((area.x, y)) {
            cell.set_symbol(symbol).set_style(style);
        }
    }
}

/// "· 3 new · 1 changed" for the footer, empty when nothing is marked.
pub fn footer_spans<T: Row + Clone + PartialEq, F: TabFilter>(
    t: &TabState<T, F>,
) -> Vec<Span<'static>> {
    let (new, changed) = t.marks.counts(t.generation);
    let mut spans = Vec::new();
    if new > 0 {
        spans.push(Span::styled(
            format!(" · {} {new} new", Mark::New.symbol()),
            style(Mark::New),
        ));
    }
    if changed > 0 {
        spans.push(Span::styled(
            format!(" · {} {changed} changed", Mark::Changed.symbol()),
            style(Mark::Changed),
        ));
    }
    spans
}
