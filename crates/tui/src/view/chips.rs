//! The active filters of the tab as chips above the table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use convo_api::Resource;
use convo_text as text;

/// One chip of the line: a term of the tab's query as the query line (`:`) writes it, and
/// what the screen knows of it that the text does not say (a visitor's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chip {
    /// The term, sanitised (`status:open,pending`, `site:"Web shop"`, `-assignee:none`).
    pub text: String,
    /// Shown dim after the chip: `(Ana Souza)`, `(3 visitors)`.
    pub note: Option<String>,
}

/// The chips of `tab`: one per term of its query, agents and sites by their aliases where
/// they resolve back, the same text for a query set with `/`, a view, a drill-down or `:`.
pub fn query_chips(app: &App, tab: Resource) -> Vec<Chip> {
    use convo_query::query::{Pred, VisitorRef};
    let q = convo_query::query::named::with_aliases(
        app.query_of(tab),
        app.settings().aliases(),
        app.settings().query_settings().agent_id,
    );
    // One request's filters found the visitors of an e-mail: how many.
    let by_email = match tab {
        Resource::Conversations if app.conversations.union().is_none() => {
            app.conversations.filter().by_email.as_ref()
        }
        _ => None,
    };
    q.terms
        .iter()
        .map(|t| {
            let note = match &t.pred {
                Pred::Visitor(vs) => {
                    let names: Vec<String> = vs
                        .iter()
                        .filter_map(|v| match v {
                            VisitorRef::Id(id) => {
                                app.names().shown(id).map(|n| text::one_line(n, 40))
                            }
                            VisitorRef::Email(e) => by_email
                                .filter(|b| b.email == *e && b.visitors.len() > 1)
                                .map(|b| format!("{} visitors", b.visitors.len())),
                        })
                        .collect();
                    (!names.is_empty()).then(|| format!("({})", names.join(", ")))
                }
                _ => None,
            };
            Chip {
                text: text::one_line(&t.to_string(), 200),
                note,
            }
        })
        .collect()
}

/// What the line ends with while there are chips.
const HINT: &str = "x clears · Backspace back";

/// Draws the chips line: the query's terms as chips, fitted to the width (the last one that
/// does not fit cut with `…`, the rest left out, the hint kept), never wrapped.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let chips = query_chips(app, app.active());
    let line = if chips.is_empty() {
        // The first minute's map: where filters, queries, views, the board and the summary are,
        // as many whole hints as the width holds.
        use crate::keys::Action;
        let k = |a| app.settings().keymap().key_of(a);
        let mut hint = " no filters".to_string();
        for h in [
            format!("{} filter", k(Action::Filter)),
            format!("{} query", k(Action::Query)),
            format!("{} views", k(Action::Views)),
            format!("{} board", k(Action::Board)),
            format!("{} summary", k(Action::Summary)),
        ] {
            if text::width(&hint) + 3 + text::width(&h) <= usize::from(area.width) {
                hint = format!("{hint} · {h}");
            }
        }
        Line::from(Span::styled(hint, Style::new().dim()))
    } else {
        let mut spans = vec![Span::raw(" ")];
        if app.active() == Resource::Conversations && app.shows_oldest_first() {
            spans.extend(breaching_title(app));
        }
        let used: usize = spans.iter().map(|s| text::width(&s.content)).sum();
        let mut room = usize::from(area.width).saturating_sub(used + text::width(HINT));
        let chip = Style::new().fg(Color::Black).bg(Color::LightBlue);
        'chips: for c in chips {
            let parts = [
                (format!(" {} ", c.text), chip),
                (c.note.unwrap_or_default(), Style::new().dim()),
            ];
            for (s, style) in parts {
                if s.is_empty() {
                    continue;
                }
                // Each part is followed by a space.
                let w = text::width(&s) + 1;
                if w > room {
                    if room > 2 {
                        spans.push(Span::styled(text::one_line(&s, room - 1), style));
                        spans.push(Span::raw(" "));
                    }
                    break 'chips;
                }
                room -= w;
                spans.push(Span::styled(s, style));
                spans.push(Span::raw(" "));
            }
        }
        spans.push(Span::styled(HINT, Style::new().dim()));
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// The title of the "Breaching" view: its name and how many loaded conversations breach or
/// are about to breach the first-response target (counted from the rows as they are now).
fn breaching_title(app: &App) -> Vec<Span<'static>> {
    use convo_engine::sla::{State, Target};
    let name = Span::styled(
        format!("{} ", convo_config::builtin_views::BREACHING_VIEW),
        Style::new().bold(),
    );
    if !app.settings().sla().is_tracked(Target::FirstResponse) {
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
        match app
            .settings()
            .sla()
            .first_response(c, app.now())
            .map(|d| d.state)
        {
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
    use crate::columns::Column;
    use crate::keys::Action;
    use crate::sort::Sort;
    let oldest = Sort {
        col: Column::Created,
        desc: false,
    };
    let reload = app.settings().keymap().key_of(Action::Reload);
    match app.sort().get(Resource::Conversations).sort {
        Some(s) if s == oldest => " · oldest first  ".into(),
        Some(_) => format!(" · {reload} for oldest first  "),
        None => format!(" · the service's order ({reload} for oldest first)  "),
    }
}
