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

use crate::api::model::short_id;
use crate::api::{Conversation, Resource, Status, Visitor};
use crate::text::fit;
use crate::tui::app::App;
use crate::tui::format::{attributes_summary, id_label, relative_ts};
use crate::tui::tab::{TabFilter, TabState};

/// One column: its title, the narrowest and the widest it is useful at, and when it is
/// dropped on a narrow terminal (higher goes first; 0 never).
#[derive(Debug, Clone, Copy)]
pub struct Col {
    pub title: &'static str,
    pub min: u16,
    pub pref: u16,
    pub drop: u8,
}

const fn col(title: &'static str, min: u16, pref: u16, drop: u8) -> Col {
    Col {
        title,
        min,
        pref,
        drop,
    }
}

/// Conversations: status, visitor, site, assignee, created, updated, id.
pub const CONVERSATION_COLS: [Col; 7] = [
    col("STATUS", 7, 8, 0),
    col("VISITOR", 8, 8, 3),
    col("SITE", 8, 18, 2),
    col("ASSIGNEE", 10, 18, 1),
    col("CREATED", 8, 8, 5),
    col("UPDATED", 8, 8, 1),
    col("ID", 8, 36, 4),
];

/// Visitors: name, email, external id, created, attributes.
pub const VISITOR_COLS: [Col; 5] = [
    col("NAME", 10, 24, 0),
    col("EMAIL", 12, 28, 1),
    col("EXTERNAL ID", 8, 16, 3),
    col("CREATED", 8, 8, 2),
    col("ATTRIBUTES", 10, 200, 4),
];

/// Column widths for `width` cells (spacing of 1 between columns); `None` for a dropped
/// column. Columns shrink to their minimum before any is dropped.
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
    let mut spare = width.saturating_sub(need(&keep));
    let mut order: Vec<usize> = (0..cols.len()).filter(|i| keep[*i]).collect();
    order.sort_by_key(|i| cols[*i].drop);
    for i in order {
        if let Some(cur) = w[i].as_mut() {
            let grow = (cols[i].pref - *cur).min(spare);
            *cur += grow;
            spare -= grow;
        }
    }
    w
}

fn dash() -> Cell<'static> {
    Cell::from(Span::styled("—", Style::new().dim()))
}

fn status_style(s: &Status) -> Style {
    match s {
        Status::Open => Style::new().fg(Color::Green).bold(),
        Status::Pending => Style::new().fg(Color::Yellow),
        Status::Closed => Style::new().fg(Color::DarkGray),
        Status::Other(_) => Style::new().fg(Color::Magenta).italic(),
    }
}

fn conversation_cells(app: &App, c: &Conversation, w: &[Option<u16>]) -> Vec<Cell<'static>> {
    let mut cells = Vec::with_capacity(7);
    let fitw = |i: usize| w[i].unwrap_or(0) as usize;
    for (i, width) in w.iter().enumerate() {
        if width.is_none() {
            continue;
        }
        let n = fitw(i);
        let cell = match i {
            0 => Cell::from(Span::styled(
                fit(c.status.as_str(), n).into_owned(),
                status_style(&c.status),
            )),
            1 => Cell::from(short_id(&c.visitor_id)),
            2 => Cell::from(fit(&id_label(&app.aliases, &c.site_id), n).into_owned()),
            3 => match &c.assignee_id {
                Some(id) => Cell::from(fit(&id_label(&app.aliases, id), n).into_owned()),
                None => Cell::from(Span::styled(
                    fit("unassigned", n).into_owned(),
                    Style::new().fg(Color::Yellow).italic(),
                )),
            },
            4 => Cell::from(fit(&relative_ts(app.now, &c.created_at), n).into_owned()),
            5 => Cell::from(fit(&relative_ts(app.now, &c.updated_at), n).into_owned()),
            _ if n >= 36 => Cell::from(c.id.to_string()),
            _ => Cell::from(short_id(&c.id)),
        };
        cells.push(cell);
    }
    cells
}

fn text_cell(v: Option<&str>, n: usize) -> Cell<'static> {
    match v.filter(|s| !s.is_empty()) {
        Some(s) => Cell::from(fit(s, n).into_owned()),
        None => dash(),
    }
}

fn visitor_cells(app: &App, v: &Visitor, w: &[Option<u16>]) -> Vec<Cell<'static>> {
    let mut cells = Vec::with_capacity(5);
    for (i, width) in w.iter().enumerate() {
        let Some(n) = width.map(usize::from) else {
            continue;
        };
        let cell = match i {
            0 => text_cell(v.name.as_deref(), n),
            1 => text_cell(v.email.as_deref(), n),
            2 => text_cell(v.external_id.as_deref(), n),
            3 => match &v.created_at {
                Some(t) => Cell::from(fit(&relative_ts(app.now, t), n).into_owned()),
                None => dash(),
            },
            _ => match attributes_summary(&v.attributes, n) {
                Some(s) => Cell::from(s),
                None => dash(),
            },
        };
        cells.push(cell);
    }
    cells
}

/// Draws the active tab's table with its scrollbar.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    match app.active {
        Resource::Conversations => draw_tab(
            app,
            &app.conversations,
            &CONVERSATION_COLS,
            conversation_cells,
            frame,
            area,
        ),
        Resource::Visitors => draw_tab(
            app,
            &app.visitors,
            &VISITOR_COLS,
            visitor_cells,
            frame,
            area,
        ),
    }
}

/// Before the selected row (ASCII: one cell wide on every terminal).
const SELECTED: &str = ">";

type CellsFn<T> = fn(&App, &T, &[Option<u16>]) -> Vec<Cell<'static>>;

fn draw_tab<T: crate::api::Row + Clone + PartialEq, F: TabFilter>(
    app: &App,
    tab: &TabState<T, F>,
    cols: &[Col],
    cells: CellsFn<T>,
    frame: &mut Frame,
    area: Rect,
) {
    if area.height < 2 || area.width < 4 {
        return;
    }
    let inner_w = area.width - 1; // the scrollbar's column
    // The selection is marked with a symbol too, for terminals without colours.
    let w = widths(cols, inner_w - SELECTED.len() as u16);
    let header = Row::new(
        cols.iter()
            .zip(&w)
            .filter_map(|(c, w)| w.map(|_| Cell::from(c.title))),
    )
    .style(Style::new().bold().fg(Color::Cyan));
    let body = (area.height - 1) as usize;
    let rows = tab.rows();
    let n = rows.len();
    let start = tab.offset.min(n);
    let end = (start + body).min(n);
    let table_rows: Vec<Row> = rows[start..end]
        .iter()
        .map(|r| Row::new(cells(app, r, &w)))
        .collect();
    let constraints: Vec<Constraint> = w.iter().flatten().map(|w| Constraint::Length(*w)).collect();
    let table = Table::new(table_rows, constraints)
        .header(header)
        .column_spacing(1)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol(SELECTED)
        .highlight_spacing(HighlightSpacing::Always);
    let mut state = TableState::default();
    if n > 0 {
        state.select(Some(tab.selected.saturating_sub(start)));
    }
    let table_area = Rect::new(area.x, area.y, inner_w, area.height);
    frame.render_stateful_widget(table, table_area, &mut state);

    if end - start < body
        && let Some(line) = end_line(tab)
    {
        let y = area.y + 1 + (end - start) as u16;
        frame.render_widget(Paragraph::new(line), Rect::new(area.x, y, inner_w, 1));
    }
    if n == 0 && !tab.pager.is_loading() && tab.error.is_none() && tab.pager.is_done() {
        let what = tab.tab.name();
        let msg = format!("no {what} match these filters · x clears them · Backspace goes back");
        let y = area.y + 2.min(area.height - 1);
        let r = Rect::new(area.x + 1, y, area.width.saturating_sub(2), 1);
        frame.render_widget(Paragraph::new(Span::styled(msg, Style::new().dim())), r);
    }
    if n > body {
        let mut sb = ScrollbarState::new(n)
            .position(tab.selected)
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
fn end_line<T: crate::api::Row + Clone + PartialEq, F: TabFilter>(
    tab: &TabState<T, F>,
) -> Option<Line<'static>> {
    if tab.pager.is_loading() {
        Some(Line::from(Span::styled(
            " loading…",
            Style::new().dim().italic(),
        )))
    } else if tab.error.is_some() {
        Some(Line::from(Span::styled(
            " ⚠ next page not loaded: r retries",
            Style::new().fg(Color::Red),
        )))
    } else {
        None
    }
}
