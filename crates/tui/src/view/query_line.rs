//! The query line (`:`) over the top of the table: the text, the completion candidates (the
//! one in the line highlighted), a note, or the error with its caret; and `?`'s plan.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::app::App;
use crate::query_line::QueryLine;
use convo_text::{one_line, width};

/// Draws the open query line (and its plan, when `?` opened it).
pub fn draw(app: &App, line: &QueryLine, frame: &mut Frame) {
    let areas = app.areas();
    let full = frame.area();
    let w = full.width;
    let inner = w.saturating_sub(2) as usize;
    let mut lines = vec![input(&line.text, inner)];
    if let Some(c) = &line.completion {
        lines.push(candidates(
            c.candidates.iter().map(|c| c.label.as_str()),
            c.index,
            inner,
        ));
    }
    if let Some(note) = &line.note {
        lines.push(Line::from(Span::styled(
            format!(" {}", one_line(note, 400)),
            Style::new().fg(Color::Yellow),
        )));
    }
    if let Some((e, text)) = &line.error {
        let red = Style::new().fg(Color::Red);
        let rendered = e.render(text);
        let mut rendered = rendered.lines();
        // The query and the caret under it as they are (cut at the edge, as the line above
        // is); the message wrapped, so that its hint is read whole.
        for l in rendered.by_ref().take(2) {
            lines.push(Line::from(Span::styled(l.to_string(), red)));
        }
        for l in rendered {
            for part in wrap(l, inner.saturating_sub(2)) {
                lines.push(Line::from(Span::styled(part, red)));
            }
        }
        lines.push(Line::from(Span::styled(
            format!("  at character {} of the query", e.char_pos(text) + 1),
            red,
        )));
    }
    let h = (lines.len() as u16 + 2).min(full.height.saturating_sub(areas.table.y));
    let area = Rect::new(full.x, areas.table.y, w, h);
    frame.render_widget(Clear, area);
    let title = format!(" query · {} ", line.tab.name());
    let hint = " Tab completes · ↑↓ earlier · ? plan · Enter runs · Esc ";
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(title);
    if width(hint) + 4 <= w as usize {
        block = block.title_bottom(Line::from(hint).right_aligned());
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
    if let Some((text, scroll)) = &line.explain {
        plan(text, *scroll, frame);
    }
}

/// `s` cut at spaces into pieces of at most `room` cells, each indented by two.
fn wrap(s: &str, room: usize) -> Vec<String> {
    let room = room.max(8);
    let mut out = Vec::new();
    let mut cur = "  ".to_string();
    for word in s.trim_start().split(' ') {
        let piece = if cur.trim().is_empty() {
            word.to_string()
        } else {
            format!(" {word}")
        };
        if !cur.trim().is_empty() && width(&cur) + width(&piece) > room {
            out.push(std::mem::take(&mut cur));
            cur = format!("  {word}");
        } else {
            cur.push_str(&piece);
        }
    }
    out.push(cur);
    out
}

/// Rows `lines` take when wrapped at `room` cells (about: by width).
fn wrapped_rows<'a>(lines: impl Iterator<Item = &'a str>, room: usize) -> usize {
    let room = room.max(1);
    lines.map(|l| width(l).div_ceil(room).max(1)).sum()
}

/// `: ` and the end of the text that fits, then the cursor.
fn input(text: &str, room: usize) -> Line<'static> {
    let shown = one_line(text, 400);
    let room = room.saturating_sub(3);
    let tail = if width(&shown) > room {
        let mut s = String::new();
        for c in shown.chars().rev() {
            if width(&s) + 2 > room {
                break;
            }
            s.insert(0, c);
        }
        format!("…{s}")
    } else {
        shown
    };
    Line::from(vec![
        Span::styled(":", Style::new().fg(Color::Cyan).bold()),
        Span::raw(" "),
        Span::raw(tail),
        Span::styled(" ", Style::new().add_modifier(Modifier::REVERSED)),
    ])
}

/// The candidates on one line from one that keeps the selected one in view.
fn candidates<'a>(
    all: impl Iterator<Item = &'a str>,
    selected: usize,
    room: usize,
) -> Line<'static> {
    let labels: Vec<String> = all.map(|l| one_line(l, 60)).collect();
    let n = labels.len();
    // The first shown: as far left as keeps the selected one in view.
    let mut first = 0;
    while first < selected {
        let used: usize = labels[first..=selected].iter().map(|l| width(l) + 2).sum();
        if used + 12 <= room {
            break;
        }
        first += 1;
    }
    let mut spans = vec![Span::raw(if first > 0 { " …" } else { " " })];
    let mut used = 2;
    for (i, l) in labels.iter().enumerate().skip(first) {
        if used + width(l) + 2 > room.saturating_sub(10) && i > selected {
            spans.push(Span::styled(
                format!(" … {} more", n - i),
                Style::new().fg(Color::DarkGray),
            ));
            break;
        }
        used += width(l) + 2;
        let style = if i == selected {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new().fg(Color::Cyan)
        };
        spans.push(Span::styled(l.clone(), style));
        spans.push(Span::raw("  "));
    }
    Line::from(spans)
}

/// `?`: the plan, centred over the screen.
fn plan(text: &str, scroll: usize, frame: &mut Frame) {
    let full = frame.area();
    let w = (full.width.saturating_sub(4)).min(110);
    let lines: Vec<Line> = text.lines().map(|l| Line::from(l.to_string())).collect();
    let rows = wrapped_rows(text.lines(), w.saturating_sub(2) as usize);
    let h = (rows as u16 + 2).min(full.height.saturating_sub(2));
    let area = super::centered(full, w, h.max(3));
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll.min(u16::MAX as usize) as u16, 0))
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(Style::new().fg(Color::Cyan))
                    .title(" plan of the query · ↑↓ scroll · Esc back to the line "),
            ),
        area,
    );
}
