//! What the detail pane says: every field of the selected row, full ids, absolute times (UTC
//! and local), attributes pretty-printed. `view::detail` draws it; `update` scrolls it (its
//! line count), so it lives outside the view.

use crate::keys::Action;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::format::absolute;
use crate::tab::Held;
use convo_api::model::short_id;
use convo_api::{Conversation, Resource, Visitor};
use convo_text as text;

pub use crate::detail_pane::DetailPane;

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

/// An id with its alias (if any) on the line before it.
fn id_lines(app: &App, label: &str, id: &uuid::Uuid) -> Vec<Line<'static>> {
    match app.settings().aliases().name(id) {
        Some(a) => vec![field(label, a.to_string()), field("", id.to_string())],
        None => vec![field(label, id.to_string())],
    }
}

/// A timestamp: UTC with the relative time, then local time.
fn time_lines(app: &App, label: &str, t: &convo_api::Timestamp) -> Vec<Line<'static>> {
    let (utc, local) = absolute(app.now(), app.settings().tz(), t);
    let mut v = vec![field(label, utc)];
    v.extend(local.map(|l| field("", l)));
    v
}

pub fn hint(s: &str) -> Line<'static> {
    Line::from(Span::styled(s.to_string(), Style::new().dim()))
}

/// Key hints, each whole, as many on a line as the pane's inside holds (joined by " · "):
/// a hint is never cut at the pane's edge.
fn hint_lines(app: &App, items: &[String]) -> Vec<Line<'static>> {
    let room = app
        .areas()
        .detail
        .map_or(MAX_LINE, |r| r.width.saturating_sub(2) as usize)
        .max(1);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for item in items {
        if !cur.is_empty() && text::width(&cur) + 3 + text::width(item) > room {
            lines.push(hint(&std::mem::take(&mut cur)));
        }
        if !cur.is_empty() {
            cur.push_str(" · ");
        }
        cur.push_str(item);
    }
    if !cur.is_empty() {
        lines.push(hint(&cur));
    }
    lines
}

fn conversation_lines(app: &App, c: &Conversation) -> Vec<Line<'static>> {
    let mut v = vec![
        field("id", c.id.to_string()),
        field("status", c.status.as_str().to_string()),
        field("visitor", c.visitor_id.to_string()),
    ];
    // What the local store knows of the visitor (V lists their conversations).
    if let Some(l) = app.names().get(&c.visitor_id) {
        for (label, value) in [
            ("  name", &l.name),
            ("  email", &l.email),
            ("  external", &l.external_id),
        ] {
            if let Some(s) = value.as_deref().filter(|s| !s.trim().is_empty()) {
                v.push(field(label, s.to_string()));
            }
        }
    }
    if let Some(attributes) = app.detail().attributes_of(c.visitor_id)
        && !attributes.is_null()
    {
        v.push(Line::from(Span::styled(
            "  attributes",
            Style::new().fg(Color::Cyan),
        )));
        v.extend(attribute_lines(attributes, "    "));
    }
    v.extend(id_lines(app, "site", &c.site_id));
    match &c.assignee_id {
        Some(id) => v.extend(id_lines(app, "assignee", id)),
        None => v.push(Line::from(vec![
            Span::styled(format!("{:<11} ", "assignee"), Style::new().fg(Color::Cyan)),
            Span::styled("unassigned", Style::new().fg(Color::Yellow).italic()),
        ])),
    }
    v.extend(time_lines(app, "created", &c.created_at));
    v.extend(time_lines(app, "updated", &c.updated_at));
    // Sites and agents show as id prefixes until the config names them: said where the
    // whole ids are, once per pane.
    let unnamed = std::iter::once(&c.site_id)
        .chain(c.assignee_id.as_ref())
        .any(|id| app.settings().aliases().name(id).is_none());
    if unnamed {
        v.push(hint("[aliases] in the config names sites and agents"));
    }
    v.push(Line::default());
    let k = |a| app.settings().keymap().key_of(a);
    v.extend(pane_hints(
        app,
        vec![
            format!("conversations of {} visitor", k(Action::DrillVisitor)),
            format!("{} site", k(Action::DrillSite)),
            format!("{} assignee", k(Action::DrillAssignee)),
        ],
    ));
    v
}

/// The pane's key hints: the row's own, then copy, scroll and close, which every row has.
fn pane_hints(app: &App, mut hints: Vec<String>) -> Vec<Line<'static>> {
    let k = |a| app.settings().keymap().key_of(a);
    hints.extend([
        format!("{} copy id", k(Action::Copy)),
        format!(
            "{}/{} PgUp/PgDn scroll",
            k(Action::DetailDown),
            k(Action::DetailUp)
        ),
        "Esc close".to_string(),
    ]);
    hint_lines(app, &hints)
}

/// Free-form attributes as indented JSON lines, each made terminal-safe and cut.
fn attribute_lines(attributes: &serde_json::Value, indent: &str) -> Vec<Line<'static>> {
    serde_json::to_string_pretty(attributes)
        .unwrap_or_default()
        .lines()
        .map(|l| Line::raw(format!("{indent}{}", text::one_line(l, MAX_LINE))))
        .collect()
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
    ];
    match &r.created_at {
        Some(t) => v.extend(time_lines(app, "created", t)),
        None => v.push(missing("created")),
    }
    if r.attributes.is_null() {
        v.push(missing("attributes"));
    } else {
        v.push(Line::from(Span::styled(
            "attributes",
            Style::new().fg(Color::Cyan),
        )));
        v.extend(attribute_lines(&r.attributes, "  "));
    }
    v.push(Line::default());
    let k = |a| app.settings().keymap().key_of(a);
    v.extend(pane_hints(
        app,
        vec![format!("{} their conversations", k(Action::DrillVisitor))],
    ));
    v
}

/// What the held conversation (the selected row that left the view) is now, in a few words:
/// "now assigned to Ana, open" when a refresh read it, else that the service no longer lists
/// it in this view ("no longer listed here").
pub fn left_words(app: &App, held: &Held<Conversation>) -> String {
    match &held.now {
        Some(c) => {
            let who = match &c.assignee_id {
                Some(id) => format!(
                    "assigned to {}",
                    app.settings()
                        .aliases()
                        .name(id)
                        .map_or_else(|| short_id(id), |a| text::one_line(a, 40))
                ),
                None => "unassigned".to_string(),
            };
            format!("now {who}, {}", text::one_line(c.status.as_str(), 20))
        }
        None => "no longer listed here".into(),
    }
}

/// The first line of the pane on a row that left the view: what happened, in one line of the
/// pane's width, in the longest wording that fits whole (never cut mid-word, never wrapped
/// over the row's fields). `known`: the fields below are what a refresh read of it now, else
/// they are as it was last seen.
fn left_lines(app: &App, words: &str, known: bool) -> Vec<Line<'static>> {
    let room = app
        .areas()
        .detail
        .map_or(MAX_LINE, |r| r.width.saturating_sub(2) as usize);
    let k = |a| app.settings().keymap().key_of(a);
    let moves = format!("{}/{} moves on", k(Action::Down), k(Action::Up));
    let seen = if known { "" } else { "; as last seen" };
    let words = text::one_line(words, 80);
    let line = [
        format!("× left this view at the last refresh: {words}{seen} · {moves}"),
        format!("× left this view: {words}{seen} · {moves}"),
        format!("× left this view: {words}{seen}"),
        format!("× left: {words}{seen}"),
        format!("× left: {words}"),
        "× left this view".to_string(),
    ]
    .into_iter()
    .find(|l| text::width(l) <= room)
    .unwrap_or_else(|| "× left".to_string());
    vec![Line::from(Span::styled(
        line,
        Style::new().fg(Color::Yellow).bold(),
    ))]
}

/// The pane's lines for the selected row (empty when nothing is selected). A held row (it
/// left the view) shows what it is now when a refresh read it, else as it was last seen.
pub fn lines(app: &App) -> Vec<Line<'static>> {
    match app.active() {
        Resource::Conversations => {
            let t = &app.conversations;
            let held = t.held();
            let mut v = held
                .map(|h| left_lines(app, &left_words(app, h), h.now.is_some()))
                .unwrap_or_default();
            v.extend(
                held.and_then(|h| h.now.as_ref())
                    .or(t.selected_row())
                    .map(|c| conversation_lines(app, c))
                    .unwrap_or_default(),
            );
            v
        }
        Resource::Visitors => {
            let t = &app.visitors;
            let held = t.held();
            let mut v = held
                .map(|h| left_lines(app, "no longer listed here", h.now.is_some()))
                .unwrap_or_default();
            v.extend(
                held.and_then(|h| h.now.as_ref())
                    .or(t.selected_row())
                    .map(|r| visitor_lines(app, r))
                    .unwrap_or_default(),
            );
            v
        }
    }
}

/// How many lines the pane holds (for scrolling limits).
pub fn line_count(app: &App) -> usize {
    lines(app).len()
}
