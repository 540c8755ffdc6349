//! The detail pane: every field of the selected row (from [`crate::detail`]), scrollable;
//! follows the selection.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::App;
use crate::detail::{hint, lines};
use crate::keys::Action;
use convo_api::Resource;
use convo_api::model::short_id;

/// Draws the pane.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let (title, left) = match app.active() {
        Resource::Conversations => (
            app.conversations
                .selected_row()
                .map(|c| format!(" Conversation {} ", short_id(&c.id))),
            app.conversations.held().is_some(),
        ),
        Resource::Visitors => (
            app.visitors
                .selected_row()
                .map(|v| format!(" Visitor {} ", short_id(&v.id))),
            app.visitors.held().is_some(),
        ),
    };
    let mut title = title.unwrap_or_else(|| " Detail ".into());
    if left {
        // The row under the cursor left the view: said in the border too.
        title.push_str("· left this view ");
    }
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(title);
    let mut body = lines(app);
    if body.is_empty() {
        body.push(hint("no row selected"));
    }
    let scroll = app.detail().scroll().unwrap_or(0).min(u16::MAX as usize) as u16;
    // A pane shorter than its lines says so in its border (as the help overlay does): how
    // many are below and the keys that reach them; at the end, how many are above.
    let inside = area.height.saturating_sub(2) as usize;
    let below = body.len().saturating_sub(scroll as usize + inside);
    let k = |a| app.settings().keymap().key_of(a);
    let more = if below > 0 {
        Some(format!(
            " ↓ {below} more · {}/{} scroll ",
            k(Action::DetailDown),
            k(Action::DetailUp)
        ))
    } else if scroll > 0 {
        Some(format!(
            " ↑ {scroll} above · {} scrolls up ",
            k(Action::DetailUp)
        ))
    } else {
        None
    };
    if let Some(more) = more {
        block = block.title_bottom(Line::from(more).right_aligned());
    }
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(body).block(block).scroll((scroll, 0)), area);
}
