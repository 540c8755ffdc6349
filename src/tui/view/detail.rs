//! The detail pane: every field of the selected row (from [`crate::tui::detail`]), scrollable;
//! follows the selection.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::api::Resource;
use crate::api::model::short_id;
use crate::tui::app::App;
use crate::tui::detail::{hint, lines};

/// Draws the pane.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let title = match app.active {
        Resource::Conversations => app
            .conversations
            .selected_row()
            .map(|c| format!(" Conversation {} ", short_id(&c.id))),
        Resource::Visitors => app
            .visitors
            .selected_row()
            .map(|v| format!(" Visitor {} ", short_id(&v.id))),
    }
    .unwrap_or_else(|| " Detail ".into());
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(title);
    let mut body = lines(app);
    if body.is_empty() {
        body.push(hint("no row selected"));
    }
    let scroll = app.detail.unwrap_or(0).min(u16::MAX as usize) as u16;
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(body).block(block).scroll((scroll, 0)), area);
}
