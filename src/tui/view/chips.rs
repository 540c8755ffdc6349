//! The active filters of the tab as chips above the table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::api::model::short_id;
use crate::api::{Assignee, ConversationFilter, Resource, VisitorFilter};
use crate::config::Aliases;
use crate::text;
use crate::tui::app::App;
use crate::tui::format::id_label;

/// The chips of a conversations filter, e.g. `status: open`, `site: Web shop`.
pub fn conversation_chips(f: &ConversationFilter, aliases: &Aliases) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(s) = &f.status {
        v.push(format!("status: {}", text::sanitize(s.as_str())));
    }
    match f.assignee {
        Assignee::Any => {}
        Assignee::Unassigned => v.push("unassigned".into()),
        Assignee::Anyone => v.push("assigned to anyone".into()),
        Assignee::Agent(id) => v.push(format!("assignee: {}", id_label(aliases, &id))),
    }
    if let Some(id) = f.site_id {
        v.push(format!("site: {}", id_label(aliases, &id)));
    }
    if let Some(id) = f.visitor_id {
        v.push(format!("visitor: {}", short_id(&id)));
    }
    v
}

/// The chips of a visitors filter.
pub fn visitor_chips(f: &VisitorFilter) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(e) = f.email.as_deref().filter(|e| !e.trim().is_empty()) {
        v.push(format!("email: {}", text::one_line(e.trim(), 40)));
    }
    if let Some(x) = f.external_id.as_deref().filter(|e| !e.trim().is_empty()) {
        v.push(format!("external id: {}", text::one_line(x.trim(), 40)));
    }
    v
}

/// Draws the chips line.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let chips = match app.active {
        Resource::Conversations => conversation_chips(&app.conversations.filter, &app.aliases),
        Resource::Visitors => visitor_chips(&app.visitors.filter),
    };
    let line = if chips.is_empty() {
        Line::from(Span::styled(
            " no filters · / filter · v views",
            Style::new().dim(),
        ))
    } else {
        let mut spans = vec![Span::raw(" ")];
        for c in chips {
            spans.push(Span::styled(
                format!(" {c} "),
                Style::new().fg(Color::Black).bg(Color::LightBlue),
            ));
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(
            "x clears · Backspace back",
            Style::new().dim(),
        ));
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}
