//! The status line: retry countdowns, errors with what to do, messages, else key hints.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::keys::Action;
use crate::tab::{Replacing, Retry, TabFilter, TabState};
use convo_api::Resource;
use convo_text::fit;

/// A walk read behind the rows on screen that failed: what failed, why, and that the rows
/// stay (`None` while there is no such failure).
fn next_failed<T: convo_api::Row + Clone + PartialEq, F: TabFilter>(
    app: &App,
    t: &TabState<T, F>,
) -> Option<String> {
    let n = t.next()?;
    let e = n.walk.error()?;
    let again = app.settings().keymap().key_of(Action::Reload);
    Some(match &n.why {
        // What to do and what stays first: the cause may be cut at the edge.
        Replacing::Reload => format!(
            " reload failed ({again} tries again; the {} rows shown are kept): {e}",
            t.rows().len()
        ),
        Replacing::Profile(name) => format!(
            " profile {} not loaded ({again} tries again; the rows shown are the previous \
             profile's): {e}",
            convo_text::one_line(name, 40)
        ),
    })
}

/// Draws the status line.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let (retry, error, refresh_error, next) = match app.active() {
        Resource::Conversations => {
            let t = &app.conversations;
            (
                &t.retry(),
                &t.error(),
                &t.refresh_error(),
                next_failed(app, t),
            )
        }
        Resource::Visitors => {
            let t = &app.visitors;
            (
                &t.retry(),
                &t.error(),
                &t.refresh_error(),
                next_failed(app, t),
            )
        }
    };
    let width = area.width as usize;
    let reload = app.settings().keymap().key_of(Action::Reload);
    let line = if let Some(r) = retry {
        Line::from(Span::styled(
            fit_whole_elsewhere(app, &retry_text(app, r), width),
            Style::new().fg(Color::Yellow),
        ))
    } else if let Some(mut text) = next {
        // As with an error below: a refusal said meanwhile goes first, not under it.
        if let Some(m) = app.status_line().shown().filter(|m| m.error) {
            text = format!(" {} ·{text}", m.text);
        }
        Line::from(Span::styled(
            fit_whole_elsewhere(app, &text, width),
            Style::new().fg(Color::Red),
        ))
    } else if let Some(e) = error {
        // The cause first: at the terminal's edge it is the hint that is cut, not the fix.
        let mut text = format!(" error: {e} · {reload} retries; loaded rows stay");
        // An error message (e.g. why an export was not written) goes first, not under it.
        if let Some(m) = app.status_line().shown().filter(|m| m.error) {
            text = format!(" {} ·{text}", m.text);
        }
        Line::from(Span::styled(
            fit_whole_elsewhere(app, &text, width),
            Style::new().fg(Color::Red),
        ))
    } else if let Some(p) =
        crate::export::walk::progress(app).or_else(|| crate::export::update::progress(app))
    {
        Line::from(Span::styled(
            fit(&p, width).into_owned(),
            Style::new().fg(Color::Cyan),
        ))
    } else if let Some(m) = app.status_line().shown() {
        let text = format!(" {}", m.text);
        // Cut at the edge, it says where to read it whole (the help shows the last one).
        let style = if m.error {
            Style::new().fg(Color::Red)
        } else {
            Style::new()
        };
        let text = fit_whole_elsewhere(app, &text, width);
        Line::from(Span::styled(text, style))
    } else if let Some(e) = refresh_error {
        let text = format!(" refresh failed: {e} · rows shown are kept");
        Line::from(Span::styled(
            fit_whole_elsewhere(app, &text, width),
            Style::new().fg(Color::Yellow),
        ))
    } else {
        let k = |a| app.settings().keymap().key_of(a);
        let sync = app
            .names()
            .sync_line
            .as_deref()
            .map(|l| format!(" {l} ·"))
            .unwrap_or_default();
        // Whole hints only (none cut mid-word): those that fit, most needed first (help and
        // quit, then filter, views, detail, reload, copy), shown in their usual order.
        let hints = [
            (2, format!("{} filter", k(Action::Filter))),
            (3, format!("{} views", k(Action::Views))),
            (4, format!("{} detail", k(Action::Detail))),
            (6, format!("{} copy id", k(Action::Copy))),
            (5, format!("{} reload", k(Action::Reload))),
            (0, format!("{} help", k(Action::Help))),
            (1, format!("{} quit", k(Action::Quit))),
        ];
        let sync = fit(&sync, width).into_owned();
        let mut room = width.saturating_sub(convo_text::width(&sync));
        let mut kept = [false; 7];
        let mut by_need: Vec<usize> = (0..hints.len()).collect();
        by_need.sort_by_key(|&i| hints[i].0);
        for i in by_need {
            // " " before the first, " · " before the others.
            let w = convo_text::width(&hints[i].1) + 3;
            if w <= room {
                room -= w;
                kept[i] = true;
            }
        }
        let shown: Vec<&str> = hints
            .iter()
            .zip(kept)
            .filter(|(_, k)| *k)
            .map(|(h, _)| h.1.as_str())
            .collect();
        Line::from(Span::styled(
            format!("{sync} {}", shown.join(" · ")),
            Style::new().dim(),
        ))
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// e.g. ` rate limited (HTTP 429): retrying in 3s (attempt 2)`, or ` waiting on the request
/// budget: the next request goes in 12s`.
pub fn retry_text(app: &App, r: &Retry) -> String {
    let secs = r
        .until
        .as_second()
        .saturating_sub(app.now().as_second())
        .max(0);
    if r.budget {
        // No request failed: the service's budget has no slot left until then.
        return format!(
            " waiting on the request budget: the next request goes in {secs}s · rows shown are kept"
        );
    }
    format!(
        " {}: retrying in {secs}s (attempt {}) · rows shown are kept",
        r.reason, r.attempt
    )
}

/// A message's line, fitted to `width`: cut at the edge (after a whole word), it ends with
/// where to read it whole (the help overlay's last error and last message).
fn fit_whole_elsewhere(app: &App, text: &str, width: usize) -> String {
    if convo_text::width(&convo_text::sanitize(text)) <= width {
        return fit(text, width).into_owned();
    }
    let hint = format!(
        " ({} shows all)",
        app.settings().keymap().key_of(Action::Help)
    );
    match width.checked_sub(convo_text::width(&hint)) {
        Some(room) if room >= 20 => format!("{}{hint}", convo_text::fit_words(text, room)),
        _ => convo_text::fit_words(text, width).into_owned(),
    }
}
