//! The detail pane: every field of the selected row, full ids, absolute times (UTC and local),
//! attributes pretty-printed; scrollable; follows the selection.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::api::model::short_id;
use crate::api::{Conversation, Resource, Visitor};
use crate::text;
use crate::tui::app::App;
use crate::tui::format::absolute;

/// Longest line kept (cells); a 2 MB attribute must not cost a 2 MB line per frame.
const MAX_LINE: usize = 400;

fn field(label: &str, value: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<11} "), Style::new().fg(Color::Cyan)),
        Span::raw(text::one_line(&value, MAX_LINE)),
    ])
}

fn missing(label: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<11} "), Style::new().fg(Color::Cyan)),
        Span::styled("—", Style::new().dim()),
    ])
}

fn with_alias(app: &App, id: &uuid::Uuid) -> String {
    match app.aliases.name(id) {
        Some(a) => format!("{id} ({})", text::sanitize(a)),
        None => id.to_string(),
    }
}

fn hint(s: &str) -> Line<'static> {
    Line::from(Span::styled(s.to_string(), Style::new().dim()))
}

fn conversation_lines(app: &App, c: &Conversation) -> Vec<Line<'static>> {
    let mut v = vec![
        field("id", c.id.to_string()),
        field("status", c.status.as_str().to_string()),
        field("visitor", c.visitor_id.to_string()),
        field("site", with_alias(app, &c.site_id)),
    ];
    v.push(match &c.assignee_id {
        Some(id) => field("assignee", with_alias(app, id)),
        None => Line::from(vec![
            Span::styled(format!("{:<11} ", "assignee"), Style::new().fg(Color::Cyan)),
            Span::styled("unassigned", Style::new().fg(Color::Yellow).italic()),
        ]),
    });
    v.push(field("created", absolute(app.now, &app.tz, &c.created_at)));
    v.push(field("updated", absolute(app.now, &app.tz, &c.updated_at)));
    v.push(Line::default());
    v.push(hint("V visitor's · S site's · A assignee's conversations"));
    v.push(hint("y copy id · J/K PgUp/PgDn scroll · Esc close"));
    v
}

fn visitor_lines(app: &App, r: &Visitor) -> Vec<Line<'static>> {
    let opt = |label: &str, s: &Option<String>| match s {
        Some(s) => field(label, s.clone()),
        None => missing(label),
    };
    let mut v = vec![
        field("id", r.id.to_string()),
        opt("name", &r.name),
        opt("email", &r.email),
        opt("external id", &r.external_id),
        match &r.created_at {
            Some(t) => field("created", absolute(app.now, &app.tz, t)),
            None => missing("created"),
        },
    ];
    if r.attributes.is_null() {
        v.push(missing("attributes"));
    } else {
        v.push(Line::from(Span::styled(
            "attributes",
            Style::new().fg(Color::Cyan),
        )));
        let pretty = serde_json::to_string_pretty(&r.attributes).unwrap_or_default();
        for l in pretty.lines() {
            v.push(Line::raw(format!("  {}", text::one_line(l, MAX_LINE))));
        }
    }
    v.push(Line::default());
    v.push(hint(
        "V their conversations · y copy id · J/K scroll · Esc close",
    ));
    v
}

/// The pane's lines for the selected row (empty when nothing is selected).
pub fn lines(app: &App) -> Vec<Line<'static>> {
    match app.active {
        Resource::Conversations => app
            .conversations
            .selected_row()
            .map(|c| conversation_lines(app, c))
            .unwrap_or_default(),
        Resource::Visitors => app
            .visitors
            .selected_row()
            .map(|r| visitor_lines(app, r))
            .unwrap_or_default(),
    }
}

/// How many lines the pane holds (for scrolling limits).
pub fn line_count(app: &App) -> usize {
    lines(app).len()
}

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
