//! The marks of new and changed rows (see [`crate::marks`]) and of rows that left at the
//! last refresh: a symbol in the table's selection column (the selected row keeps its `>`)
//! and a count for the footer.

use ratatui::style::{Color, Style};
use ratatui::text::Span;

use crate::marks::Mark;
use crate::tab::{ScreenLine, TabFilter, TabState};
use convo_api::Row;

/// Before a row that left at the last refresh (one cell wide).
pub const GONE: &str = "×";

/// Before a row the user marked for a command (one cell wide, ASCII; the row is bold too):
/// shown without colour, and over a change mark (the user's mark matters more).
pub const MARKED: &str = "*";

fn style(m: Mark) -> Style {
    match m {
        Mark::New => Style::new().fg(Color::Cyan).bold(),
        Mark::Changed => Style::new().fg(Color::Yellow).bold(),
    }
}

/// The symbol and style in the table's first column for one of its lines: the mark of a new
/// or changed row, [`GONE`] for a row that left; none for the selected row (it keeps its `>`,
/// a held one too: its `×` is in its first cell, so that without colour both show) and
/// unmarked rows.
pub fn gutter<T: Row + Clone + PartialEq, F: TabFilter>(
    t: &TabState<T, F>,
    line: ScreenLine,
) -> Option<(&'static str, Style)> {
    match line {
        line if line == t.cursor_line() => None,
        ScreenLine::Row(i) => t
            .rows()
            .get(i)
            .and_then(|r| t.marks().mark(t.generation(), &r.id()))
            .map(|m| (m.symbol(), style(m))),
        ScreenLine::Gone(_) => Some((GONE, Style::new().fg(Color::DarkGray))),
    }
}

/// "· 3 new · 1 changed" for the footer, empty when nothing is marked.
pub fn footer_spans<T: Row + Clone + PartialEq, F: TabFilter>(
    t: &TabState<T, F>,
) -> Vec<Span<'static>> {
    let (new, changed) = t.marks().counts(t.generation());
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
