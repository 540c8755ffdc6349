//! The help overlay, generated from the key map.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
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

/// Draws the overlay: the last error, whole, on top; then two columns of groups on wide
/// terminals, one scrollable column on narrow ones.
pub fn draw(app: &App, scroll: usize, frame: &mut Frame) {
    let full = frame.area();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(" Keys · ↑↓ scroll · Esc closes ");
    let scroll = scroll.min(u16::MAX as usize) as u16;
    if full.width >= 100 {
        let left = group_lines(app, &Group::ALL[..4]);
        let mut right = group_lines(app, &Group::ALL[4..]);
        right.extend(mark_lines());
        let error = last_error_lines(app, 98);
        let h = (left.len().max(right.len()) + error.len()) as u16 + 2;
        let area = super::centered(full, 100, h);
        frame.render_widget(Clear, area);
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
        let width = full.width.min(60).saturating_sub(2) as usize;
        let mut lines = last_error_lines(app, width);
        lines.extend(group_lines(app, &Group::ALL));
        lines.extend(mark_lines());
        let area = super::centered(full, 60, lines.len() as u16 + 2);
        frame.render_widget(Clear, area);
        frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
    }
}
