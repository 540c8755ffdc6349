//! The menu of the user's commands (`!`), the menu of a row's fields to copy (`Y`) and a
//! `pane` command's output.

use ratatui::Frame;
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::App;
use crate::commands::OutputPane;
use convo_config::commands::ForMarked;
use convo_text::{fit, one_line};

fn boxed(frame: &mut Frame, lines: Vec<Line<'static>>, title: String, w: u16) {
    let area = super::centered(frame.area(), w, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(title.bold());
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn chosen(text: String, on: bool) -> Line<'static> {
    let style = if on {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new()
    };
    Line::from(Span::styled(
        format!("{} {text}", if on { ">" } else { " " }),
        style,
    ))
}

/// `!`: the commands of this tab, with their keys and where their output goes.
pub fn menu(app: &App, selected: usize, frame: &mut Frame) {
    let width = frame.area().width.saturating_sub(4).min(90);
    let inner = width.saturating_sub(4) as usize;
    let marked = app.commands().marked.get(app.active()).len();
    let mut lines: Vec<Line> = app
        .commands()
        .on(app.active())
        .into_iter()
        .enumerate()
        .map(|(n, i)| {
            let c = &app.commands().list[i];
            let all = match c.for_marked {
                ForMarked::All => ", marked rows at once",
                ForMarked::Each => "",
            };
            let text = format!(
                "{:<6} {}  ({}{}{})",
                app.commands().key_label(i),
                one_line(&c.name, 40),
                c.output.name(),
                all,
                if c.confirm { ", asks first" } else { "" }
            );
            chosen(fit(&text, inner).into_owned(), n == selected)
        })
        .collect();
    lines.push(Line::default());
    let on = match marked {
        0 => "runs on the selected row".to_string(),
        n => format!("runs on the {n} marked rows"),
    };
    lines.push(Line::from(Span::styled(
        fit(
            &format!("{on} · ↑↓ choose · Enter runs · Esc closes"),
            inner,
        )
        .into_owned(),
        Style::new().dim(),
    )));
    boxed(frame, lines, " Commands ".into(), width);
}

/// `Y`: the row's fields, numbered.
pub fn copy_menu(selected: usize, fields: &[(&'static str, String)], frame: &mut Frame) {
    let width = frame.area().width.saturating_sub(4).min(80);
    let inner = width.saturating_sub(4) as usize;
    let mut lines: Vec<Line> = fields
        .iter()
        .enumerate()
        .map(|(i, (what, value))| {
            let text = format!("{} {what:<12} {}", i + 1, one_line(value, 200));
            chosen(fit(&text, inner).into_owned(), i == selected)
        })
        .collect();
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        fit("Enter or 1-9 copies · Esc closes", inner).into_owned(),
        Style::new().dim(),
    )));
    boxed(frame, lines, " Copy ".into(), width);
}

/// A `pane` command's output, scrolled; over the table and footer.
pub fn pane(p: &OutputPane, frame: &mut Frame) {
    let full = frame.area();
    let area = ratatui::layout::Rect::new(
        full.x,
        full.y + 1,
        full.width,
        full.height.saturating_sub(2),
    );
    let h = area.height.saturating_sub(2) as usize;
    let w = area.width.saturating_sub(2) as usize;
    let lines: Vec<Line> = p
        .lines
        .iter()
        .skip(p.scroll)
        .take(h)
        .map(|l| Line::from(fit(l, w).into_owned()))
        .collect();
    let more = if p.lines.len() > h {
        format!(
            " {}-{} of {} · ↑↓ PgUp PgDn scroll",
            p.scroll + 1,
            (p.scroll + h).min(p.lines.len()),
            p.lines.len()
        )
    } else {
        String::new()
    };
    let title = format!(" {}{more} · Esc closes ", one_line(&p.title, 60));
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(fit(&title, w).into_owned().bold());
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
