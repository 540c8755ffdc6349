//! The top line: brand, tab titles (clickable), endpoint and a help hint.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::keys::Action;
use crate::layout::{BRAND, tab_titles};

/// Draws the header line.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let mut spans = vec![
        Span::styled(BRAND, Style::new().fg(Color::Black).bg(Color::Cyan).bold()),
        Span::raw(" "),
    ];
    for t in tab_titles() {
        let style = if t.tab == app.active() {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            Style::new().fg(Color::Gray)
        };
        spans.push(Span::styled(t.label, style));
        spans.push(Span::raw(" "));
    }
    let used: usize = spans.iter().map(|s| s.width()).sum();
    // What the right side says, most important first: the sort, the profile, the host, then
    // "demo" and the masked key. Pieces that do not fit are left out whole, the least
    // important first ("sk_…d…" helped nobody); only the last one standing is ever cut.
    let mut pieces: Vec<(u8, String)> = Vec::new();
    if let Some(mark) = app.sort().get(app.active()).mark() {
        pieces.push((0, mark));
    }
    if let Some(p) = &app.profiles().current {
        pieces.push((1, format!("profile {}", convo_text::one_line(p, 30))));
    }
    if app.settings().demo() {
        pieces.push((3, "demo".to_string()));
    }
    // The endpoint reads "host · sk_…abcd": the host matters more than the key's tail.
    for (i, part) in app.settings().endpoint().split(" · ").enumerate() {
        pieces.push((if i == 0 { 2 } else { 4 }, part.to_string()));
    }
    // The help hint stays whole at the right edge: "? he…" helped nobody.
    let help = format!("  {} help ", app.settings().keymap().key_of(Action::Help));
    let room = (area.width as usize).saturating_sub(used + 1);
    let hint_w = convo_text::width(&help);
    let joined = |pieces: &[(u8, String)]| {
        pieces
            .iter()
            .map(|(_, s)| s.as_str())
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let (right, help) = if room >= hint_w + 4 {
        let room = room - hint_w;
        while pieces.len() > 1 && convo_text::width(&joined(&pieces)) > room {
            let least = (0..pieces.len())
                .max_by_key(|i| (pieces[*i].0, *i))
                .unwrap_or(0);
            pieces.remove(least);
        }
        // The sort's mark alone, too wide: its short form ("sorted by created ↑").
        if convo_text::width(&joined(&pieces)) > room
            && let [(0, mark)] = pieces.as_mut_slice()
            && let Some(short) = app.sort().get(app.active()).short_mark()
        {
            *mark = short;
        }
        (
            convo_text::fit_words(&joined(&pieces), room).into_owned(),
            help,
        )
    } else {
        // Too narrow for both: the hint alone, short.
        let short = format!("{} help ", app.settings().keymap().key_of(Action::Help));
        (String::new(), convo_text::fit(&short, room).into_owned())
    };
    let pad = room.saturating_sub(convo_text::width(&right) + convo_text::width(&help)) + 1;
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(right, Style::new().dim()));
    spans.push(Span::styled(help, Style::new().dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
