//! The top line: brand, tab titles (clickable), endpoint and a help hint.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::App;
use crate::tui::keys::Action;
use crate::tui::layout::{BRAND, tab_titles};

/// Draws the header line.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let mut spans = vec![
        Span::styled(BRAND, Style::new().fg(Color::Black).bg(Color::Cyan).bold()),
        Span::raw(" "),
    ];
    for t in tab_titles() {
        let style = if t.tab == app.active {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            Style::new().fg(Color::Gray)
        };
        spans.push(Span::styled(t.label, style));
        spans.push(Span::raw(" "));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let mut right = String::new();
    if let Some(mark) = app.sort.get(app.active).mark() {
        right.push_str(&mark);
        right.push_str(" · ");
    }
    if let Some(p) = &app.profiles.current {
        right.push_str(&format!("profile {} · ", crate::text::one_line(p, 30)));
    }
    if app.demo {
        right.push_str("demo · ");
    }
    right.push_str(&app.endpoint);
    right.push_str(&format!("  {} help ", app.keymap.key_of(Action::Help)));
    let room = (area.width as usize).saturating_sub(used + 1);
    let right = crate::text::fit(&right, room);
    let pad = room.saturating_sub(crate::text::width(&right)) + 1;
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(right.into_owned(), Style::new().dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
