//! The saved-view picker.

use ratatui::Frame;
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::App;
use convo_api::Resource;
use convo_text as text;

use convo_query::query::filters::{of_conversations, of_visitors};
use convo_query::query::named::with_aliases;

/// What a view shows, as the chips and the query line write it: "Conversations ·
/// status:open assignee:none", with "every page, oldest first" for such a view.
pub fn describe(
    v: &convo_config::View,
    aliases: &convo_config::Aliases,
    me: Option<uuid::Uuid>,
) -> String {
    let query = match &v.query {
        Some(q) => q.clone(),
        None => {
            let q = match v.tab {
                Resource::Conversations => of_conversations(&v.conversations),
                Resource::Visitors => of_visitors(&v.visitors),
            };
            with_aliases(&q, aliases, me).to_string()
        }
    };
    let mut desc = if query.is_empty() {
        format!("{} · no filters", v.tab.name())
    } else {
        format!("{} · {query}", v.tab.name())
    };
    if v.oldest_first {
        desc.push_str(" · every page, oldest first");
    }
    desc
}

/// Draws the picker with line `selected` highlighted.
pub fn draw(app: &App, selected: usize, frame: &mut Frame) {
    let h = app.settings().views().len() as u16 + 4;
    let area = super::centered(frame.area(), 90, h);
    let width = area.width.saturating_sub(4) as usize;
    // The names' column as wide as the longest (at most 30): the rest is for what they show.
    let names = app
        .settings()
        .views()
        .iter()
        .map(|v| text::width(&text::one_line(&v.name, 30)))
        .max()
        .unwrap_or(0);
    let mut lines = Vec::new();
    for (i, v) in app.settings().views().iter().enumerate() {
        let name = text::one_line(&v.name, 30);
        let pad = " ".repeat(names.saturating_sub(text::width(&name)));
        let room = width.saturating_sub(names + 2);
        // Too long: the short form of "every page, oldest first", then cut after a word.
        let mut desc = describe(
            v,
            app.settings().aliases(),
            app.settings().query_settings().agent_id,
        );
        if text::width(&desc) > room {
            desc = desc.replace(" · every page, oldest first", " · oldest first");
        }
        let desc = text::fit_words(&desc, room);
        let row = format!("{name}{pad}  {desc}");
        let style = if i == selected {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        lines.push(Line::from(Span::styled(text::one_line(&row, width), style)));
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        "↑↓ choose · Enter apply · Esc/q close",
        Style::new().dim(),
    )));
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(" Saved views ".bold());
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
