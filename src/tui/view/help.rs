//! The help overlay, generated from the key map.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::keys::{Group, Key};
use crate::tui::marks::Mark;
use crate::tui::view::marks::GONE;

fn group_lines(app: &App, groups: &[Group]) -> Vec<Line<'static>> {
    let mut v = Vec::new();
    for g in groups {
        if !v.is_empty() {
            v.push(Line::default());
        }
        v.push(Line::from(Span::styled(
            g.title().to_string(),
            Style::new().fg(Color::Cyan).bold(),
        )));
        for b in app.keymap.bindings.iter().filter(|b| b.group == *g) {
            let keys = b.keys.iter().map(Key::label).collect::<Vec<_>>().join(" ");
            v.push(Line::from(vec![
                Span::styled(format!(" {keys:<14}"), Style::new().bold()),
                Span::raw(b.help),
            ]));
        }
    }
    v
}

/// What the marks in the table's first column mean.
fn mark_lines() -> Vec<Line<'static>> {
    let mark = |symbol: &str, what: &'static str| {
        Line::from(vec![
            Span::styled(format!(" {symbol:<14}"), Style::new().bold()),
            Span::raw(what),
        ])
    };
    vec![
        Line::default(),
        Line::from(Span::styled("Marks", Style::new().fg(Color::Cyan).bold())),
        mark(Mark::New.symbol(), "new since the last fetch"),
        mark(Mark::Changed.symbol(), "status or assignee changed"),
        mark(GONE, "left; greyed until next refresh"),
    ]
}

/// The last error the status line showed, whole (the line cuts it at the terminal's edge),
/// wrapped to `width` cells, with a blank line under it; none without an error.
fn last_error_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let Some(e) = &app.last_error else {
        return Vec::new();
    };
    let when = e.at.to_zoned(app.tz.clone()).strftime("%H:%M:%S");
    let mut v = vec![Line::from(Span::styled(
        format!("Last error ({when})"),
        Style::new().fg(Color::Red).bold(),
    ))];
    v.extend(
        crate::text::wrap(&e.text, width.saturating_sub(1).max(10))
            .into_iter()
            .map(|l| Line::from(format!(" {l}"))),
    );
    v.push(Line::default());
    v
}

/// Where the overlay sits on a `full`-sized screen and how its lines scroll.
struct Geometry {
    /// The overlay's box, borders included.
    area: Rect,
    /// Lines of the scrolled part (the groups; the last error stays on top).
    lines: usize,
    /// How many of them the box shows at once.
    visible: usize,
}

/// Two columns of groups from this width on; one scrollable column below it.
const WIDE: u16 = 100;

fn geometry(app: &App, full: Rect) -> Geometry {
    if full.width >= WIDE {
        let left = group_lines(app, &Group::ALL[..4]).len();
        let right = group_lines(app, &Group::ALL[4..]).len() + mark_lines().len();
        let error = last_error_lines(app, 98).len();
        let lines = left.max(right);
        let area = super::centered(full, WIDE, (lines + error) as u16 + 2);
        let visible = (area.height as usize).saturating_sub(2 + error);
        Geometry {
            area,
            lines,
            visible,
        }
    } else {
        let lines = narrow_lines(app, full).len();
        let area = super::centered(full, 60, lines as u16 + 2);
        let visible = (area.height as usize).saturating_sub(2);
        Geometry {
            area,
            lines,
            visible,
        }
    }
}

/// The one column of a narrow screen: the last error, the groups, the marks.
fn narrow_lines(app: &App, full: Rect) -> Vec<Line<'static>> {
    let width = full.width.min(60).saturating_sub(2) as usize;
    let mut lines = last_error_lines(app, width);
    lines.extend(group_lines(app, &Group::ALL));
    lines.extend(mark_lines());
    lines
}

/// How far the overlay can scroll on the app's screen: past it, only blank lines.
pub fn max_scroll(app: &App) -> usize {
    let g = geometry(app, Rect::new(0, 0, app.size.0, app.size.1));
    g.lines.saturating_sub(g.visible)
}

/// How many lines a page key scrolls the overlay by.
pub fn page(app: &App) -> usize {
    let g = geometry(app, Rect::new(0, 0, app.size.0, app.size.1));
    g.visible.saturating_sub(1).max(1)
}

/// Draws the overlay: the last error, whole, on top; then two columns of groups on wide
/// terminals, one scrollable column on narrow ones. When it does not fit, the bottom border
/// says there is more below.
pub fn draw(app: &App, scroll: usize, frame: &mut Frame) {
    let full = frame.area();
    let g = geometry(app, full);
    let max = g.lines.saturating_sub(g.visible);
    let scroll = scroll.min(max);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan));
    if max == 0 {
        block = block.title(" Keys · Esc closes ");
    } else {
        block = block.title(" Keys · ↑↓ PgUp PgDn g G scroll · Esc closes ");
        let below = g.lines - g.visible - scroll;
        if below > 0 {
            block = block.title_bottom(Line::from(format!(" ↓ {below} more ")).right_aligned());
        }
    }
    let scroll = scroll.min(u16::MAX as usize) as u16;
    let area = g.area;
    frame.render_widget(Clear, area);
    if full.width >= WIDE {
        let left = group_lines(app, &Group::ALL[..4]);
        let mut right = group_lines(app, &Group::ALL[4..]);
        right.extend(mark_lines());
        let error = last_error_lines(app, 98);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let [top, inner] =
            Layout::vertical([Constraint::Length(error.len() as u16), Constraint::Min(0)])
                .areas(inner);
        frame.render_widget(Paragraph::new(error), top);
        let [l, r] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(inner);
        frame.render_widget(Paragraph::new(left).scroll((scroll, 0)), l);
        frame.render_widget(Paragraph::new(right).scroll((scroll, 0)), r);
    } else {
        let lines = narrow_lines(app, full);
        frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
    }
}
