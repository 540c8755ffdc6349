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
    // The help hint stays whole at the right edge; the endpoint (and what comes before it)
    // is what gets cut: "? he…" helped nobody.
    let help = format!("  {} help ", app.keymap.key_of(Action::Help));
    let room = (area.width as usize).saturating_sub(used + 1);
    let hint_w = crate::text::width(&help);
    let (right, help) = if room >= hint_w + 4 {
        (crate::text::fit(&right, room - hint_w).into_owned(), help)
    } else {
        // Too narrow for both: the hint alone, short.
        let short = format!("{} help ", app.keymap.key_of(Action::Help));
        (String::new(), crate::text::fit(&short, room).into_owned())
    };
    let pad = room.saturating_sub(crate::text::width(&right) + crate::text::width(&help)) + 1;
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(right, Style::new().dim()));
    spans.push(Span::styled(help, Style::new().dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
