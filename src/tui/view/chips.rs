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
use crate::tui::names::VisitorNames;

/// The chips of a conversations filter, e.g. `status: open`, `site: Web shop`, `visitor: Ana
/// Souza` (a visitor's name as the screen knows it, else the short id).
pub fn conversation_chips(
    f: &ConversationFilter,
    aliases: &Aliases,
    names: &VisitorNames,
) -> Vec<String> {
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
    match &f.by_email {
        Some(b) if b.visitors.len() > 1 => v.push(format!(
            "visitor email: {} ({} visitors)",
            text::one_line(&b.email, 40),
            b.visitors.len()
        )),
        Some(b) => v.push(format!("visitor email: {}", text::one_line(&b.email, 40))),
        None => {
            if let Some(id) = f.visitor_id {
                // By name, as the table's VISITOR column shows it, with the short id to tell
                // namesakes apart.
                v.push(match names.shown(&id) {
                    Some(n) => format!("visitor: {} ({})", text::one_line(n, 40), short_id(&id)),
                    None => format!("visitor: {}", short_id(&id)),
                });
            }
        }
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
    let union = match app.active {
        Resource::Conversations => app.conversations.union.is_some(),
        Resource::Visitors => app.visitors.union.is_some(),
    };
    let chips = match app.active {
        // A query one request cannot answer: its text is the chip.
        _ if union => vec![format!(
            "query: {}",
            text::one_line(&app.query_of(app.active).to_string(), 200)
        )],
        Resource::Conversations => {
            conversation_chips(&app.conversations.filter, &app.aliases, &app.names)
        }
        Resource::Visitors => visitor_chips(&app.visitors.filter),
    };
    let line = if chips.is_empty() {
        Line::from(Span::styled(
            " no filters · / filter · v views",
            Style::new().dim(),
        ))
    } else {
        let mut spans = vec![Span::raw(" ")];
        if app.active == Resource::Conversations && app.oldest_first.is_some() {
            spans.extend(breaching_title(app));
        }
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

/// The title of the "Breaching" view: its name and how many loaded conversations breach or
/// are about to breach the first-response target (counted from the rows as they are now).
fn breaching_title(app: &App) -> Vec<Span<'static>> {
    use crate::sla::{State, Target};
    let name = Span::styled(
        format!("{} ", crate::tui::app::BREACHING_VIEW),
        Style::new().bold(),
    );
    if !app.sla.is_tracked(Target::FirstResponse) {
        return vec![
            name,
            Span::styled(
                "(no first_response target in [sla]) ",
                Style::new().fg(Color::Yellow),
            ),
        ];
    }
    let (mut breaching, mut imminent) = (0u64, 0u64);
    for c in app.conversations.rows() {
        match app.sla.first_response(c, app.now).map(|d| d.state) {
            Some(State::Breaching) => breaching += 1,
            Some(State::Imminent) => imminent += 1,
            _ => {}
        }
    }
    let hot = |n: u64, colour: Color| {
        if n > 0 {
            Style::new().fg(colour).bold()
        } else {
            Style::new().dim()
        }
    };
    vec![
        name,
        Span::styled(format!("{breaching} breaching"), hot(breaching, Color::Red)),
        Span::styled(" · ", Style::new().dim()),
        Span::styled(format!("{imminent} imminent"), hot(imminent, Color::Yellow)),
        Span::raw(order(app)),
    ]
}

/// The view's order as shown: oldest first, unless the user chose another sort (`>` `<` `=`)
/// since it opened; a reload (`r`) gives the oldest first again.
fn order(app: &App) -> String {
    use crate::tui::columns::Column;
    use crate::tui::keys::Action;
    use crate::tui::sort::Sort;
    let oldest = Sort {
        col: Column::Created,
        desc: false,
    };
    let reload = app.keymap.key_of(Action::Reload);
    match app.sort.get(Resource::Conversations).sort {
        Some(s) if s == oldest => " · oldest first  ".into(),
        Some(_) => format!(" · {reload} for oldest first  "),
        None => format!(" · the service's order ({reload} for oldest first)  "),
    }
}
