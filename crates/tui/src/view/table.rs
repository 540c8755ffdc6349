//! The table of the active tab. Only the rows on screen are built: the cost of a frame does
//! not grow with the number of rows loaded.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Cell, HighlightSpacing, Paragraph, Row, Scrollbar, ScrollbarOrientation, ScrollbarState, Table,
    TableState,
};

use crate::app::App;
use crate::columns::{CellCx, Cells, Column, Look};
use crate::search::Search;
use crate::sort::Sorting;
use crate::tab::{ScreenLine, TabFilter, TabState};
use crate::view::marks;
use convo_api::Resource;
use convo_engine::sla::State;

use crate::columns::Col;

/// Column widths for `width` cells (spacing of 1 between columns); `None` for a dropped
/// column. Columns shrink to their minimum before any is dropped. Every cell is given out
/// but the one before the scrollbar: past every column's stretch, to the free-text columns.
pub fn widths(cols: &[Col], width: u16) -> Vec<Option<u16>> {
    let mut keep: Vec<bool> = vec![true; cols.len()];
    let need = |keep: &[bool]| {
        let n = keep.iter().filter(|k| **k).count() as u16;
        cols.iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| c.min)
            .sum::<u16>()
            + n.saturating_sub(1)
    };
    while need(&keep) > width {
        let victim = cols
            .iter()
            .enumerate()
            .filter(|(i, c)| keep[*i] && c.drop > 0)
            .max_by_key(|(i, c)| (c.drop, *i));
        match victim {
            Some((i, _)) => keep[i] = false,
            None => break,
        }
    }
    let mut w: Vec<Option<u16>> = cols
        .iter()
        .zip(&keep)
        .map(|(c, k)| k.then_some(c.min))
        .collect();
    // One cell stays free before the scrollbar, unless it is all that keeps a column.
    let mut spare = width.saturating_sub(need(&keep)).saturating_sub(1);
    // Up to `pref` in the same turns as the stretch below (a visitor's name before an agent's),
    // then the columns dropped last first.
    let mut order: Vec<usize> = (0..cols.len()).filter(|i| keep[*i]).collect();
    order.sort_by_key(|i| (cols[*i].turn, cols[*i].drop));
    for i in order {
        if let Some(cur) = w[i].as_mut() {
            let grow = (cols[i].pref - *cur).min(spare);
            *cur += grow;
            spare -= grow;
        }
    }
    // Room to spare once every column has its `pref`: columns stretch turn by turn, left first
    // within a turn.
    let mut order: Vec<usize> = (0..cols.len()).collect();
    order.sort_by_key(|i| cols[*i].turn);
    for i in order {
        let c = &cols[i];
        if let Some(cur) = w[i].as_mut() {
            let want = c.stretch.saturating_sub(*cur);
            let grow = if c.whole && want > spare {
                0
            } else {
                want.min(spare)
            };
            *cur += grow;
            spare -= grow;
        }
    }
    // Room still to spare once every column has stretched (a wide terminal): shared by the
    // free-text columns (names, sites, agents, attributes: those that stretch past their
    // `pref` and have no short form), so that long values show whole rather than the room
    // lying blank; left first within a turn for what does not divide evenly.
    let mut text: Vec<usize> = (0..cols.len())
        .filter(|i| w[*i].is_some() && cols[*i].stretch > cols[*i].pref && !cols[*i].whole)
        .collect();
    text.sort_by_key(|i| cols[*i].turn);
    if let Some(n) = u16::try_from(text.len()).ok().filter(|n| *n > 0) {
        let (each, rest) = (spare / n, spare % n);
        for (k, i) in text.into_iter().enumerate() {
            if let Some(cur) = w[i].as_mut() {
                *cur += each + u16::from((k as u16) < rest);
            }
        }
    }
    w
}

/// The style of a cell that looks `look` (the column table chooses the look; colours are
/// the view's).
fn style(look: Look) -> Style {
    match look {
        Look::Plain => Style::new(),
        Look::Empty => Style::new().dim(),
        Look::Open => Style::new().fg(Color::Green).bold(),
        Look::Pending => Style::new().fg(Color::Yellow),
        Look::Closed => Style::new().fg(Color::DarkGray),
        Look::OtherStatus => Style::new().fg(Color::Magenta).italic(),
        Look::Due(State::Ok) => Style::new().fg(Color::Green),
        Look::Due(State::Imminent) => Style::new().fg(Color::Yellow).bold(),
        Look::Due(State::Breaching) => Style::new().fg(Color::Red).bold(),
        Look::Unassigned => Style::new().fg(Color::Yellow).italic(),
    }
}

/// Draws the active tab's table with its scrollbar.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let cols = app.settings().columns().of(app.active());
    let find = (app.search().get(app.active()), app.sort().get(app.active()));
    match app.active() {
        Resource::Conversations => draw_tab(app, &app.conversations, cols, find, frame, area),
        Resource::Visitors => draw_tab(app, &app.visitors, cols, find, frame, area),
    }
}

/// Before the selected row (ASCII: one cell wide on every terminal).
const SELECTED: &str = ">";

/// At the start of the held row's first cell (see [`marks::gutter`]).
const GONE_MARK: &str = "×";

/// A matching cell of the search (underlined and bold: visible without colour too).
fn match_style() -> Style {
    Style::new()
        .fg(Color::Magenta)
        .add_modifier(Modifier::UNDERLINED | Modifier::BOLD)
}

fn draw_tab<T: convo_api::Row + Cells + Clone + PartialEq, F: TabFilter>(
    app: &App,
    tab: &TabState<T, F>,
    columns: &[Column],
    (search, order): (&Search, &Sorting),
    frame: &mut Frame,
    area: Rect,
) {
    let cols: Vec<Col> = columns.iter().map(|c| c.spec()).collect();
    let sort = order.sort.filter(|_| order.sorted());
    if area.height < 2 || area.width < 4 {
        return;
    }
    let inner_w = area.width - 1; // the scrollbar's column
    // The selection is marked with a symbol too, for terminals without colours.
    let w = widths(&cols, inner_w - SELECTED.len() as u16);
    let header = Row::new(
        columns
            .iter()
            .zip(&cols)
            .zip(&w)
            .filter_map(|((id, c), w)| {
                w.map(|_| match sort {
                    Some(s) if s.col == *id => {
                        Cell::from(format!("{}{}", c.title, if s.desc { "↓" } else { "↑" }))
                    }
                    _ => Cell::from(c.title),
                })
            }),
    )
    .style(Style::new().bold().fg(Color::Cyan));
    let body = (area.height - 1) as usize;
    let rows = tab.rows();
    let n = rows.len();
    // In server order, rows that left at the last refresh show where they were; a display
    // sort shows the loaded rows only.
    let lines: Vec<ScreenLine> = if sort.is_some() {
        let start = order.offset.min(n);
        let mut lines: Vec<ScreenLine> = (start..(start + body).min(n))
            .map(|p| ScreenLine::Row(order.row_at(p)))
            .collect();
        // The selected row that left is held where it was in the display order: just above
        // the row that took its place there.
        if let Some(h) = tab.held() {
            let at = lines
                .iter()
                .position(|l| *l == ScreenLine::Row(tab.selected()));
            if let Some(at) = at.or((n == 0).then_some(0)) {
                lines.insert(at, ScreenLine::Gone(h.row.id()));
                lines.truncate(body);
            }
        }
        lines
    } else {
        tab.screen_lines(body, true)
    };
    // Cells are marked as the search matched them: without regard to case or accents.
    let needle = crate::search::fold::Needle::new(&search.query);
    let scratch = std::cell::RefCell::new(String::new());
    // The attribute keys the tab's query names go first in ATTRIBUTES.
    let first_attributes: Vec<String> = app
        .query_of(tab.tab())
        .terms
        .iter()
        .filter_map(|t| match &t.pred {
            convo_query::query::Pred::Attr(k, _) => Some(k.clone()),
            _ => None,
        })
        .collect();
    let cx = CellCx {
        first_attributes: &first_attributes,
        now: app.now(),
        aliases: app.settings().aliases(),
        names: app.names(),
        sla: app.settings().sla(),
        no_color: app.settings().theme().no_color,
        me: app.settings().query_settings().agent_id,
    };
    // The row held under the cursor (it left the view) keeps the selection's `>` in the
    // first column and says `×` at the start of its first cell: both show without colour.
    let cells = |r: &T, hit: bool, held: bool| {
        columns
            .iter()
            .zip(&w)
            .filter_map(|(c, w)| w.map(|n| (c, n)))
            .enumerate()
            .map(|(i, (c, n))| {
                let mark = if held && i == 0 { GONE_MARK } else { "" };
                let room = (n as usize).saturating_sub(convo_text::width(mark));
                let content = r.cell(*c, &cx, room);
                let text = format!("{mark}{}", content.text);
                let cl = Cell::from(Span::styled(text, style(content.look)));
                let matched = hit
                    && r.text(*c, app.now(), app.settings().aliases())
                        .is_some_and(|t| needle.is_in(&t, &mut scratch.borrow_mut()));
                if matched { cl.style(match_style()) } else { cl }
            })
            .collect::<Vec<_>>()
    };
    // Rows the user marked for a command: bold, and `*` in the first column (below).
    let marked = app.commands().marked.get(tab.tab());
    let is_marked = |line: &ScreenLine| match *line {
        ScreenLine::Row(i) => rows.get(i).is_some_and(|r| marked.contains(&r.id())),
        ScreenLine::Gone(_) => false,
    };
    let table_rows: Vec<Row> = lines
        .iter()
        .filter_map(|line| match *line {
            ScreenLine::Row(i) if is_marked(line) => Some(
                Row::new(cells(&rows[i], search.is_match(i), false)).style(Style::new().bold()),
            ),
            ScreenLine::Row(i) => Some(Row::new(cells(&rows[i], search.is_match(i), false))),
            ScreenLine::Gone(id) => {
                let held = tab.held().is_some_and(|h| h.row.id() == id);
                tab.gone_row(id).map(|r| Row::new(cells(r, false, held)))
            }
        })
        .collect();
    let constraints: Vec<Constraint> = w.iter().flatten().map(|w| Constraint::Length(*w)).collect();
    // The widths are [`widths`]'s exactly: none grows past it (ratatui's default gives the
    // rest of the line to the last column, a wide ID column of blanks).
    let table = Table::new(table_rows, constraints)
        .flex(ratatui::layout::Flex::Start)
        .header(header)
        .column_spacing(1)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol(SELECTED)
        .highlight_spacing(HighlightSpacing::Always);
    let mut state = TableState::default();
    state.select(lines.iter().position(|l| *l == tab.cursor_line()));
    let table_area = Rect::new(area.x, area.y, inner_w, area.height);
    frame.render_stateful_widget(table, table_area, &mut state);
    // The marks in the first column (server order only: a display sort hides them rather than
    // misplace them), and a row that left greyed and struck through.
    if sort.is_none() {
        let buf = frame.buffer_mut();
        for (y, line) in (area.y + 1..).zip(&lines) {
            if let Some((symbol, style)) = marks::gutter(tab, *line)
                && let Some(c) = buf.cell_mut((area.x, y))
            {
                c.set_symbol(symbol).set_style(style);
            }
            if matches!(line, ScreenLine::Gone(_)) {
                buf.set_style(
                    Rect::new(area.x + 1, y, inner_w - 1, 1),
                    Style::new()
                        .fg(Color::DarkGray)
                        .add_modifier(Modifier::CROSSED_OUT)
                        .remove_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                );
            }
        }
    }

    if !marked.is_empty() {
        let buf = frame.buffer_mut();
        let cursor = (sort.is_none()).then(|| tab.cursor_line());
        for (y, line) in (area.y + 1..).zip(&lines) {
            let selected = match cursor {
                Some(c) => *line == c,
                None => *line == ScreenLine::Row(tab.selected()),
            };
            if is_marked(line)
                && !selected
                && let Some(c) = buf.cell_mut((area.x, y))
            {
                c.set_symbol(marks::MARKED).set_style(Style::new().bold());
            }
        }
    }

    if lines.len() < body
        && let Some(line) = end_line(tab)
    {
        let y = area.y + 1 + lines.len() as u16;
        frame.render_widget(Paragraph::new(line), Rect::new(area.x, y, inner_w, 1));
    }
    if n == 0 && !tab.walk().is_loading() && tab.error().is_none() && tab.walk().is_done() {
        let what = tab.tab().name();
        let msg = format!("no {what} match these filters · x clears them · Backspace goes back");
        let below = (lines.len() as u16 + 2).min(area.height - 1);
        let y = area.y + below;
        let r = Rect::new(area.x + 1, y, area.width.saturating_sub(2), 1);
        frame.render_widget(Paragraph::new(Span::styled(msg, Style::new().dim())), r);
    }
    if n > body {
        let mut sb = ScrollbarState::new(n)
            .position(order.pos(tab.selected()))
            .viewport_content_length(body);
        let sb_area = Rect::new(area.x + area.width - 1, area.y + 1, 1, area.height - 1);
        frame.render_stateful_widget(
            Scrollbar::new(ScrollbarOrientation::VerticalRight)
                .symbols(ratatui::symbols::scrollbar::VERTICAL)
                .begin_symbol(None)
                .end_symbol(None),
            sb_area,
            &mut sb,
        );
    }
}

/// The line under the last loaded row: loading, or the error with what to do.
fn end_line<T: convo_api::Row + Clone + PartialEq, F: TabFilter>(
    tab: &TabState<T, F>,
) -> Option<Line<'static>> {
    if tab.walk().is_loading() {
        Some(Line::from(Span::styled(
            " loading…",
            Style::new().dim().italic(),
        )))
    } else if tab.error().is_some() {
        Some(Line::from(Span::styled(
            " ⚠ next page not loaded: r retries",
            Style::new().fg(Color::Red),
        )))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::Columns;

    fn conversation_cols() -> Vec<Col> {
        Columns::default()
            .conversations
            .iter()
            .map(|c| c.spec())
            .collect()
    }

    /// The width `w` gives the column titled `title` of `cols`.
    fn width_of(cols: &[Col], title: &str, w: &[Option<u16>]) -> Option<u16> {
        let i = cols.iter().position(|c| c.title == title).expect(title);
        w[i]
    }

    fn total(w: &[Option<u16>]) -> u16 {
        let kept: Vec<u16> = w.iter().flatten().copied().collect();
        kept.iter().sum::<u16>() + kept.len().saturating_sub(1) as u16
    }

    #[test]
    fn spare_room_goes_to_the_visitor_column_first_then_the_whole_id_and_a_cell_stays_free() {
        let cols = conversation_cols();
        let at = |title: &str, w: &[Option<u16>]| width_of(&cols, title, w);
        // 160 columns: every column stretches, the ID shows whole.
        let wide = widths(&cols, 158);
        assert_eq!(at("ID", &wide), Some(36));
        // Its 32, and a share of what is left once every column has stretched.
        assert!(at("VISITOR", &wide).is_some_and(|w| w >= 32), "{wide:?}");
        assert!(total(&wide) < 158, "a cell before the scrollbar");
        // 120 columns: names before the whole id, and the id keeps its short form rather than
        // a wide column of blanks.
        let mid = widths(&cols, 118);
        assert_eq!(at("VISITOR", &mid), Some(32));
        assert_eq!(at("ID", &mid), Some(8), "{mid:?}");
        assert!(total(&mid) < 118);
        // 80 columns: down towards the minimums; nothing wider than asked.
        let narrow = widths(&cols, 78);
        assert!(total(&narrow) <= 78, "{narrow:?}");
        assert!(at("VISITOR", &narrow).is_none_or(|w| w <= 15));
    }

    #[test]
    fn on_a_wide_terminal_the_room_left_goes_to_the_free_text_columns_not_blanks() {
        let cols = conversation_cols();
        let at = |title: &str, w: &[Option<u16>]| width_of(&cols, title, w);
        // 200x50: 197 cells. Every column had stretched with 50 cells still to spare, which
        // were left to the end of the line (drawn as blanks after the ID).
        let w = widths(&cols, 197);
        assert_eq!(
            total(&w),
            196,
            "all but the cell before the scrollbar: {w:?}"
        );
        assert_eq!(at("ID", &w), Some(36), "{w:?}");
        assert_eq!(at("STATUS", &w), Some(8), "{w:?}");
        assert_eq!(at("CREATED", &w), Some(8), "{w:?}");
        for (title, stretch) in [("VISITOR", 32), ("SITE", 24), ("ASSIGNEE", 24)] {
            assert!(at(title, &w).is_some_and(|n| n > stretch), "{title}: {w:?}");
        }
        // Between the whole id and a wider screen, the same: the id keeps its short form and
        // the room goes to names, never to blanks.
        for width in 118..=400 {
            let w = widths(&cols, width);
            assert_eq!(total(&w), width - 1, "at {width}: {w:?}");
            assert!(
                matches!(at("ID", &w), Some(8) | Some(36)),
                "at {width}: {w:?}"
            );
        }
    }

    /// The default conversation columns with DUE and RESOLVE after STATUS, as with targets.
    fn with_targets() -> Vec<Col> {
        let mut cols = vec![Column::Status, Column::Due, Column::Resolution];
        cols.extend(
            Columns::default()
                .conversations
                .iter()
                .filter(|c| **c != Column::Status),
        );
        cols.iter().map(|c| c.spec()).collect()
    }

    #[test]
    fn with_targets_a_140_column_table_gives_names_their_room_and_the_id_its_short_form() {
        let cols = with_targets();
        let at = |title: &str, w: &[Option<u16>]| width_of(&cols, title, w);
        // It used to give the id 35 cells that showed 8 and left 27 blank, while names were
        // cut at 15 ("José Łukasiewi…").
        let w = widths(&cols, 138);
        assert_eq!(at("VISITOR", &w), Some(32), "{w:?}");
        assert_eq!(at("ID", &w), Some(8), "{w:?}");
        assert!(total(&w) < 138);
        // Beside the detail pane (82 cells): the visitor's name grew after the agent's and the
        // targets' ("José Łu…" beside "unassigned     "), and the id ran into the scrollbar.
        let w = widths(&cols, 82);
        assert!(at("VISITOR", &w) > at("ASSIGNEE", &w), "{w:?}");
        assert!(total(&w) < 82, "a cell before the scrollbar: {w:?}");
    }

    #[test]
    fn an_identifying_column_outlives_the_target_columns_at_every_width() {
        let specs = with_targets();
        let at = |title: &str, w: &[Option<u16>]| width_of(&specs, title, w);
        // 50 columns (48 cells for the table): VISITOR, SITE and ID were dropped while DUE
        // and RESOLVE stayed, and rows could no longer be told apart.
        let w = widths(&specs, 48);
        assert!(at("VISITOR", &w).is_some(), "{w:?}");
        assert!(at("ID", &w).is_some(), "{w:?}");
        assert!(total(&w) <= 48, "{w:?}");
        for width in 16..=160 {
            let w = widths(&specs, width);
            assert!(at("VISITOR", &w).is_some(), "at {width}: {w:?}");
            if at("RESOLVE", &w).is_some() {
                assert!(at("ID", &w).is_some(), "at {width}: {w:?}");
            }
            if at("ID", &w).is_none() || at("DUE", &w).is_none() {
                // Down to who and what state, then the time against the target.
                let kept: Vec<&str> = specs
                    .iter()
                    .zip(&w)
                    .filter(|(_, w)| w.is_some())
                    .map(|(c, _)| c.title)
                    .collect();
                assert!(kept.len() <= 3, "at {width}: {kept:?}");
            }
        }
    }

    #[test]
    fn names_and_emails_share_a_narrow_visitor_table_before_either_stretches() {
        let cols: Vec<Col> = Columns::default()
            .visitors
            .iter()
            .map(|c| c.spec())
            .collect();
        let at = |title: &str, w: &[Option<u16>]| width_of(&cols, title, w);
        // Beside the detail pane (66 cells): NAME no longer takes all the room while EMAIL
        // stays at its minimum ("visitor0@ex…").
        let narrow = widths(&cols, 66);
        assert_eq!(at("NAME", &narrow), Some(16));
        assert_eq!(at("EMAIL", &narrow), Some(19), "{narrow:?}");
        // 120 columns: both stretch, attributes keep their share.
        let wide = widths(&cols, 118);
        assert_eq!(at("NAME", &wide), Some(24));
        assert!(at("EMAIL", &wide).is_some_and(|w| w >= 28), "{wide:?}");
        assert_eq!(at("ATTRIBUTES", &wide), Some(36));
        assert!(total(&wide) < 118, "a cell before the scrollbar");
    }
}
