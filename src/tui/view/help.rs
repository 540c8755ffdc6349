//! The help overlay, generated from the key map.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::keys::{Group, Key};

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
                Span::styled(format!("  {keys:<16}"), Style::new().bold()),
                Span::raw(b.help),
            ]));
        }
    }
    v
}

/// Draws the overlay: two columns of groups.
pub fn draw(app: &App, frame: &mut Frame) {
    let left = group_lines(app, &Group::ALL[..3]);
    let right = group_lines(app, &Group::ALL[3..]);
    let h = left.len().max(right.len()) as u16 + 2;
    let area = super::centered(frame.area(), 100, h);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(" Keys · Esc closes ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [l, r] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(inner);
    frame.render_widget(Paragraph::new(left), l);
    frame.render_widget(Paragraph::new(right), r);
}
