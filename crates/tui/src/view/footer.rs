//! The footer: rows loaded, more or all, the walk's warnings, request state, refresh.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::tab::{Replacing, TabFilter, TabState};
use convo_api::Resource;
use convo_engine::pager::Warnings;

/// What the footer says about one tab's walk, as plain spans.
fn walk_spans<T: convo_api::Row + Clone + PartialEq, F: TabFilter>(
    app: &App,
    t: &TabState<T, F>,
) -> (Vec<Span<'static>>, Warnings) {
    let n = t.walk().loaded();
    let mut spans = Vec::new();
    // The row's place on the screen: in a display sort (an oldest-first view), its place in
    // that order, not in the service's.
    let position = if t.held().is_some() {
        // The row under the cursor left the view: it has no place in the list.
        " × left the view · ".to_string()
    } else if n > 0 {
        format!(" row {} · ", app.sort().get(t.tab()).pos(t.selected()) + 1)
    } else {
        " ".to_string()
    };
    spans.push(Span::raw(position));
    if t.walk().is_done() && n == 0 {
        spans.push(Span::raw("no rows"));
    } else if t.walk().is_done() {
        spans.push(Span::styled(
            format!("all {} loaded", convo_text::thousands(n as u64)),
            Style::new().fg(Color::Green),
        ));
    } else if t.walk().pages() == 0 && !t.load_all() {
        // No page has come back yet: no count, and no "more available" to promise.
        let what = if t.walk().is_loading() {
            "loading the first page…"
        } else {
            "nothing loaded yet"
        };
        spans.push(Span::raw(what));
    } else if t.load_all() {
        spans.push(Span::styled(
            format!(
                "loading all… {} loaded · Esc stops",
                convo_text::thousands(n as u64)
            ),
            Style::new().fg(Color::Cyan),
        ));
    } else {
        spans.push(Span::raw(format!(
            "{} loaded · more available",
            convo_text::thousands(n as u64)
        )));
    }
    if let Some(r) = &t.retry() {
        let secs = r
            .until
            .as_second()
            .saturating_sub(app.now().as_second())
            .max(0);
        let text = if r.budget {
            format!(" · waiting on the request budget: {secs}s")
        } else if r.rate_limited {
            format!(" · rate limited: retry in {secs}s")
        } else {
            format!(" · retrying: retry in {secs}s")
        };
        spans.push(Span::styled(text, Style::new().fg(Color::Yellow)));
    } else if let Some(n) = &t.next() {
        // A walk read behind the rows shown: how far it got, or that it failed.
        let text = match (n.walk.error(), &n.why) {
            (Some(_), Replacing::Reload) => " · reload failed".to_string(),
            (Some(_), Replacing::Profile(_)) => " · profile not loaded".to_string(),
            (None, Replacing::Profile(name)) => {
                format!(" · loading profile {}…", convo_text::one_line(name, 40))
            }
            (None, Replacing::Reload) if n.depth == usize::MAX => {
                format!(" · reloading: {} rows read again…", n.walk.rows().len())
            }
            (None, Replacing::Reload) => format!(
                " · reloading: {} of {} rows read again…",
                n.walk.rows().len(),
                n.depth
            ),
        };
        let style = if n.walk.error().is_some() {
            Style::new().fg(Color::Red)
        } else {
            Style::new().fg(Color::Cyan)
        };
        spans.push(Span::styled(text, style));
    } else if t.walk().is_loading() && t.walk().pages() > 0 {
        spans.push(Span::styled(" · loading…", Style::new().dim()));
    } else if t.error().is_some() {
        spans.push(Span::styled(" · error", Style::new().fg(Color::Red)));
    }
    if let Some(u) = t.union().filter(|u| !u.checks.is_empty()) {
        // A query's checks done in convo: how much was read for how little.
        // Rows loaded matched too: the count of matches is never below them (a refresh's
        // scan starts its count again). Matches found but not yet in the table are said so.
        let matched = u.matched().max(n);
        let mut text = format!(
            " · scanned {} · {} match",
            convo_text::thousands(u.scanned() as u64),
            convo_text::thousands(matched as u64)
        );
        if matched > n && !t.walk().is_done() {
            text.push_str(&format!(
                " ({} not shown yet)",
                convo_text::thousands((matched - n) as u64)
            ));
        }
        if u.paused() && t.walk().has_more() {
            text.push_str(&format!(
                " · {} goes on",
                app.settings().keymap().key_of(crate::keys::Action::LoadAll)
            ));
        }
        spans.push(Span::styled(text, Style::new().fg(Color::Cyan)));
    }
    spans.extend(super::marks::footer_spans(t));
    if let Some((_, name)) = app.commands().running.first() {
        let more = match app.commands().running.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        spans.push(Span::styled(
            format!(" · running {}{more}", convo_text::one_line(name, 30)),
            Style::new().fg(Color::Cyan),
        ));
    }
    let marked = app.commands().marked.get(t.tab()).len();
    if marked > 0 {
        spans.push(Span::styled(
            format!(
                " · {} {} marked ({} clears)",
                super::marks::MARKED,
                convo_text::thousands(marked as u64),
                app.settings()
                    .keymap()
                    .key_of(crate::keys::Action::ClearMarks)
            ),
            Style::new().bold(),
        ));
    }
    if t.refresh_error().is_some() {
        spans.push(Span::styled(
            " · refresh failed",
            Style::new().fg(Color::Yellow),
        ));
    }
    (spans, t.walk().warnings().clone())
}

/// What the live list does, the footer's last piece (kept whole, at the end): a reader (moved,
/// or a pane open) is held still while rows arrive above the screen, counted since they
/// arrived ("↑ 4 arrived above, view held"; the • count is the last refresh's); a watcher (row
/// 1, nothing open) follows the top; else the refresh period.
fn live_span<T: convo_api::Row + Clone + PartialEq, F: TabFilter>(
    app: &App,
    t: &TabState<T, F>,
    short: bool,
) -> Option<Span<'static>> {
    let period = app
        .refresh_clock()
        .is_on()
        .then(|| app.refresh_period())
        .flatten();
    // A display sort places the rows that arrive by its own order: nothing is "above".
    let sorted = app.sort().get(t.tab()).sorted();
    if t.new_above() > 0 && !sorted {
        return Some(Span::styled(
            format!(
                " · ↑ {} arrived above, view held",
                convo_text::thousands(t.new_above() as u64)
            ),
            Style::new().fg(Color::Cyan).bold(),
        ));
    }
    let s = period?;
    // (`watching` is set as each message begins: the sort just chosen is not in it yet.)
    let text = if t.follows_top() && !sorted && t.walk().pages() > 0 && !short {
        format!(" · refresh {s}s, following the top")
    } else {
        format!(" · auto refresh {s}s")
    };
    Some(Span::styled(text, Style::new().dim()))
}

/// Draws the footer line.
pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let w = area.width as usize;
    // The long form of the last piece while the first two pieces fit beside it.
    let pick = |(spans, warnings): (Vec<Span<'static>>, Warnings),
                ends: [Option<Span<'static>>; 2]| {
        let [long, short] = ends;
        let head: usize = spans.iter().take(2).map(Span::width).sum();
        let end = if head + long.as_ref().map_or(0, Span::width) <= w {
            long
        } else {
            short
        };
        ((spans, warnings), end)
    };
    let ((mut spans, warnings), end) = match app.active() {
        Resource::Conversations => pick(
            walk_spans(app, &app.conversations),
            [
                live_span(app, &app.conversations, false),
                live_span(app, &app.conversations, true),
            ],
        ),
        Resource::Visitors => pick(
            walk_spans(app, &app.visitors),
            [
                live_span(app, &app.visitors, false),
                live_span(app, &app.visitors, true),
            ],
        ),
    };
    // An e-mail that finds no visitor: say why a part of one finds nothing.
    let v = &app.visitors;
    if app.active() == Resource::Visitors
        && v.filter().email.is_some()
        && v.walk().is_done()
        && v.walk().loaded() == 0
    {
        spans.push(Span::styled(
            " (the service matches whole e-mail addresses)",
            Style::new().fg(Color::Yellow),
        ));
    }
    for w in warnings.messages() {
        spans.push(Span::styled(
            format!(" · ⚠ {w}"),
            Style::new().fg(Color::Yellow),
        ));
    }
    // What the live list does keeps its place at the end: what does not fit before it is
    // left out, each piece whole.
    let room = (area.width as usize).saturating_sub(end.as_ref().map_or(0, |e| e.width()));
    let mut spans = cut_spans(spans, room);
    spans.extend(end);
    frame.render_widget(
        Paragraph::new(Line::from(spans)).style(Style::new().bg(Color::Black).fg(Color::Gray)),
        area,
    );
}

/// `spans` that fit in `max` cells, in order, each whole: one that does not fit is left out
/// (a later, shorter one may still fit), so that nothing ends mid-word in `…`. Only the
/// first (the row's place and the count), when it alone is wider, is cut.
fn cut_spans(spans: Vec<Span<'static>>, max: usize) -> Vec<Span<'static>> {
    let total: usize = spans.iter().map(Span::width).sum();
    if total <= max {
        return spans;
    }
    let mut out = Vec::new();
    let mut used = 0;
    for (i, s) in spans.into_iter().enumerate() {
        let w = s.width();
        if used + w <= max {
            used += w;
            out.push(s);
        } else if i <= 1 {
            let text = convo_text::fit_words(&s.content, max - used).into_owned();
            used = max;
            out.push(Span::styled(text, s.style));
        }
    }
    out
}
