//! The filter pane: one line per field, the error under an invalid one, and the keys.

use ratatui::Frame;
use ratatui::layout::Position;
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::App;
use crate::filter_form::FilterForm;
use convo_text as text;

/// The labels' column: the longest label ("visitor email") and a gap before the value.
const LABEL: usize = 15;

/// Draws the pane over the table.
pub fn draw(_app: &App, form: &FilterForm, frame: &mut Frame) {
    let fields = form.fields();
    let errors = fields.iter().filter(|f| form.error(**f).is_some()).count() as u16;
    let note = form.query_note.as_deref().map(|q| {
        format!(
            "The tab runs the query {} — more than these fields hold. Enter replaces it with \
             the fields; Esc keeps it; : edits it.",
            text::one_line(q, 200)
        )
    });
    let note_lines: Vec<String> = note.as_deref().map(|n| wrap(n, 72)).unwrap_or_default();
    let h = fields.len() as u16 + errors + 5 + note_lines.len() as u16 + u16::from(note.is_some());
    let area = super::centered(frame.area(), 76, h);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(format!(" Filter {} ", form.tab.name()).bold());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let value_w = (inner.width as usize).saturating_sub(LABEL + 3);
    let mut lines = Vec::new();
    for l in &note_lines {
        lines.push(Line::from(Span::styled(
            l.clone(),
            Style::new().fg(Color::Yellow),
        )));
    }
    if !note_lines.is_empty() {
        lines.push(Line::default());
    }
    let mut cursor = None;
    for f in &fields {
        let focused = *f == form.focus;
        let error = form.error(*f);
        let marker = if focused { "▸ " } else { "  " };
        let label_style = match (focused, error.is_some()) {
            (_, true) => Style::new().fg(Color::Red).bold(),
            (true, false) => Style::new().fg(Color::Cyan).bold(),
            _ => Style::new(),
        };
        let mut spans = vec![
            Span::raw(marker),
            Span::styled(format!("{:<LABEL$}", f.label()), label_style),
        ];
        let value_style = if focused {
            Style::new().add_modifier(Modifier::UNDERLINED)
        } else {
            Style::new()
        };
        if f.is_choice() {
            spans.push(Span::styled(
                format!("‹ {} ›", form.choice(*f)),
                value_style,
            ));
        } else if let Some(input) = form.input(*f) {
            let scroll = input.visual_scroll(value_w.max(1));
            let shown: String = input.value().chars().skip(scroll).collect();
            let shown = text::fit(&shown, value_w).into_owned();
            let padded = format!("{shown:<value_w$}");
            let style = if error.is_some() {
                value_style.fg(Color::Red)
            } else {
                value_style
            };
            spans.push(Span::styled(padded, style));
            if focused {
                let x = inner.x as usize + 2 + LABEL + input.visual_cursor().saturating_sub(scroll);
                cursor = Some(Position::new(
                    x.min(u16::MAX as usize) as u16,
                    inner.y + lines.len() as u16,
                ));
            }
        }
        lines.push(Line::from(spans));
        if let Some(e) = error {
            lines.push(Line::from(Span::styled(
                format!(
                    "{:width$}✗ {}",
                    "",
                    text::one_line(&e, value_w + LABEL),
                    width = 2
                ),
                Style::new().fg(Color::Red),
            )));
        }
    }
    lines.push(Line::default());
    if form.refused {
        lines.push(Line::from(Span::styled(
            "fix the field marked in red: nothing is sent until it is valid",
            Style::new().fg(Color::Red),
        )));
    } else {
        lines.push(Line::default());
    }
    lines.push(Line::from(Span::styled(
        "Tab/Shift-Tab field · Space/←→ change · Enter apply · Esc cancel",
        Style::new().dim(),
    )));
    frame.render_widget(Paragraph::new(lines), inner);
    if let Some(p) = cursor
        && p.x < inner.x + inner.width
    {
        frame.set_cursor_position(p);
    }
}

/// `s` cut at spaces into lines of at most `w` cells.
fn wrap(s: &str, w: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in s.split(' ') {
        if !cur.is_empty() && text::width(&cur) + 1 + text::width(word) > w {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
