//! The help overlay, generated from the key map.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::help_lines::{
    Source, WIDE, command_lines, geometry, group_lines, last_error_lines, mark_lines, narrow_lines,
};
use crate::app::App;
use crate::keys::Group;

/// The help's source in `app`.
fn source(app: &App) -> Source<'_> {
    Source {
        keymap: app.settings().keymap(),
        last_error: app.status_line().last_error(),
        last_message: app.status_line().last_message(),
        tz: app.settings().tz(),
        commands: app.commands(),
    }
}

/// Draws the overlay: the last error, whole, on top; then two columns of groups on wide
/// terminals, one scrollable column on narrow ones. When it does not fit, the bottom border
/// says there is more below.
pub fn draw(app: &App, scroll: usize, frame: &mut Frame) {
    let full = frame.area();
    let src = source(app);
    let g = geometry(&src, full);
    let max = g.max_scroll();
    let scroll = scroll.min(max);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan));
    if max == 0 {
        block = block.title(" Keys · Esc closes ");
    } else {
        block = block.title(" Keys · ↑↓ PgUp PgDn g G scroll · Esc closes ");
        let below = g.lines - g.visible - scroll;
        if below > 0 {
            block = block.title_bottom(Line::from(format!(" ↓ {below} more ")).right_aligned());
        }
    }
    let scroll = scroll.min(u16::MAX as usize) as u16;
    let area = super::centered(full, g.size.0, g.size.1);
    frame.render_widget(Clear, area);
    if full.width >= WIDE {
        let mut left = command_lines(&src);
        left.extend(group_lines(&src, &Group::ALL[..4]));
        let mut right = group_lines(&src, &Group::ALL[4..]);
        right.extend(mark_lines());
        let error = last_error_lines(&src, 98);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let [top, inner] =
            Layout::vertical([Constraint::Length(error.len() as u16), Constraint::Min(0)])
                .areas(inner);
        frame.render_widget(Paragraph::new(error), top);
        let [l, r] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(inner);
        frame.render_widget(Paragraph::new(left).scroll((scroll, 0)), l);
        frame.render_widget(Paragraph::new(right).scroll((scroll, 0)), r);
    } else {
        let lines = narrow_lines(&src, full);
        frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
    }
}
