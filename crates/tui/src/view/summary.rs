//! The summary pane: a frequency table of the loaded conversations (count, share, a bar,
//! oldest and median age, stale count), what it covers, and its keys.

use ratatui::Frame;
use ratatui::layout::Constraint;
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Clear, HighlightSpacing, Paragraph, Row, Table};

use crate::app::App;
use crate::summary_pane::{By, SummaryPane};
use convo_commands::summary::report::age;
use convo_text::fit;
use convo_text::thousands;

/// "2h", "90m", "45s": a duration for the stale column's title.
fn short_duration(secs: i64) -> String {
    match secs {
        s if s >= 86_400 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s >= 3600 && s % 3600 == 0 => format!("{}h", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// A bar of `value / max` of `width` cells, in eighths.
fn bar(value: u64, max: u64, width: usize) -> String {
    if max == 0 || width == 0 {
        return String::new();
    }
    let eighths = (value as usize * width * 8).div_ceil(max as usize);
    let mut s = "█".repeat(eighths / 8);
    let part = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8];
    s.push_str(part);
    s
}

/// What part of the walk the counts cover; never a total the walk has not seen.
fn coverage(app: &App) -> Span<'static> {
    let t = &app.conversations;
    let n = thousands(t.rows().len() as u64);
    if t.walk().is_done() {
        Span::styled(format!("all {n} loaded"), Style::new().fg(Color::Green))
    } else if t.walk().pages() == 0 && !t.load_all() {
        // No page has answered yet: nothing to count, no "more available" to promise.
        if t.error().is_some() {
            Span::styled(
                "the first page failed · r tries again",
                Style::new().fg(Color::Yellow),
            )
        } else {
            Span::raw("the first page is still loading · L loads every page")
        }
    } else if t.load_all() {
        Span::styled(
            format!("loading all… {n} of ≥{n} loaded · Esc stops"),
            Style::new().fg(Color::Cyan),
        )
    } else if t.error().is_some() {
        Span::styled(
            format!("{n} of ≥{n} loaded; the next page failed · L tries again"),
            Style::new().fg(Color::Yellow),
        )
    } else {
        Span::raw(format!(
            "{n} of ≥{n} loaded; more available · L loads the rest"
        ))
    }
}

/// The columns: label, count, share, bar, oldest, median, stale, waiting, oldest waiting,
/// imminent and breaching (these two with a first-response target).
const COLS: usize = 11;

/// Column widths for `w` cells (0: left out). Narrow screens lose the median, then the oldest
/// age, then the oldest waiting, then the stale count; the bar only takes spare room.
/// `widest`: the cells of the largest count shown (`449,652` is 7): the count columns are
/// never narrower, so a count is never cut (a million loaded rows made `449,65` of it).
fn columns(w: u16, sla: bool, widest: u16) -> [u16; COLS] {
    // IMMINENT and BREACHING only with a first-response target (none at all without one).
    let (imminent, breaching) = if sla { (8, 9) } else { (0, 0) };
    let mut cols = [12u16, 6, 6, 0, 7, 7, 8, 7, 7, imminent, breaching];
    for c in [1, 6, 7, 9, 10] {
        if cols[c] > 0 {
            cols[c] = cols[c].max(widest);
        }
    }
    let need = |c: &[u16; COLS]| {
        let n = c.iter().filter(|x| **x > 0).count() as u16;
        c.iter().sum::<u16>() + n.saturating_sub(1)
    };
    for drop in [5, 4, 8, 6, 9] {
        if need(&cols) > w {
            cols[drop] = 0;
        }
    }
    let mut spare = w.saturating_sub(need(&cols));
    if spare >= 5 {
        let b = (spare - 1).min(24);
        cols[3] = b;
        spare -= b + 1;
    }
    cols[0] += spare.min(24);
    cols
}

/// The headline: how many wait (open, unassigned), the oldest of them, how many are stale; in
/// a short form when `width` is too narrow for the long one.
fn headline(app: &App, pane: &SummaryPane, width: usize) -> Line<'static> {
    let all = pane.all();
    let hot = if all.waiting > 0 {
        Style::new().fg(Color::Yellow).bold()
    } else {
        Style::new()
    };
    let waiting = thousands(all.waiting);
    let oldest = all.oldest_waiting_age.map(age);
    let stale = thousands(all.stale);
    let long = format!(
        "waiting (open, unassigned): {waiting}{} · stale (not closed, no update for {}): {stale}",
        oldest
            .as_ref()
            .map(|a| format!(", the oldest for {a}"))
            .unwrap_or_default(),
        age(app.settings().stale_after_secs()),
    );
    let dot = || Span::styled(" · ", Style::new().dim());
    if long.chars().count() <= width {
        let mut spans = vec![
            Span::raw("waiting (open, unassigned): "),
            Span::styled(waiting, hot),
        ];
        if let Some(a) = oldest {
            spans.push(Span::raw(", the oldest for "));
            spans.push(Span::styled(a, hot));
        }
        spans.push(dot());
        spans.push(Span::raw(format!(
            "stale (not closed, no update for {}): {stale}",
            age(app.settings().stale_after_secs())
        )));
        return Line::from(spans);
    }
    let mut spans = vec![Span::raw("waiting "), Span::styled(waiting, hot)];
    if let Some(a) = oldest {
        spans.push(Span::raw(", oldest "));
        spans.push(Span::styled(a, hot));
    }
    spans.push(dot());
    spans.push(Span::raw(format!("stale {stale}")));
    Line::from(spans)
}

/// The first-response line and the wait-time bars of the waiting conversations (edges from
/// the target: one bar is the imminent ones, the bars from the target on the breaching ones).
fn wait_chart(pane: &SummaryPane, width: usize) -> Vec<Line<'static>> {
    let all = pane.all();
    let s = &all.sla;
    let mut head = vec![
        Span::styled("first response: ", Style::new().bold()),
        Span::styled(
            format!("{} imminent", thousands(s.imminent)),
            Style::new().fg(Color::Yellow).bold(),
        ),
        Span::styled(" · ", Style::new().dim()),
        Span::styled(
            format!("{} breaching", thousands(s.breaching)),
            Style::new().fg(Color::Red).bold(),
        ),
    ];
    if let Some(o) = s.longest_overdue {
        head.push(Span::raw(format!(", the longest over by {}", age(o))));
    }
    // The caveat only where it fits: cut at the pane's edge it read as a broken line.
    let note = Span::styled(" (approximate: from createdAt)", Style::new().dim());
    if Line::from(head.clone()).width() + note.width() <= width {
        head.push(note);
    }
    let mut lines = vec![Line::from(head)];
    let edges = pane.summary().wait_edges();
    let labels = convo_engine::sla::wait_labels(&edges);
    let target = pane.summary().sla().and_then(|t| t.base.first_response);
    let max = s.waits.iter().copied().max().unwrap_or(0);
    let bar_w = width.saturating_sub(22).min(50);
    for (i, (label, n)) in labels.iter().zip(s.waits).enumerate() {
        // Bars from the target on are breaching; the one before it imminent.
        let colour = match target {
            Some(t) if i >= 1 && edges[i - 1] >= t => Color::Red,
            Some(t) if i < 5 && edges[i] == t => Color::Yellow,
            _ => Color::Cyan,
        };
        lines.push(Line::from(vec![
            Span::raw(format!("  {label:>9} ")),
            Span::styled(bar(n, max, bar_w), Style::new().fg(colour)),
            Span::raw(format!(" {}", thousands(n))),
        ]));
    }
    lines.push(Line::default());
    lines
}

/// One character per time slot, the slot's highest value scaled to the window's highest (a
/// blank where no sample fell), and the window's lowest and highest sample.
pub fn sparkline(points: &[(i64, u64)], start: i64, end: i64, slots: usize) -> (String, u64, u64) {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let span = (end - start).max(1);
    let n = slots.max(1);
    let mut top: Vec<Option<u64>> = vec![None; n];
    for &(at, v) in points.iter().filter(|(at, _)| (start..=end).contains(at)) {
        let i = (((at - start) as i128 * n as i128) / (span as i128 + 1)) as usize;
        let slot = &mut top[i.min(n - 1)];
        *slot = Some(slot.map_or(v, |x| x.max(v)));
    }
    let values = points
        .iter()
        .filter(|(at, _)| (start..=end).contains(at))
        .map(|p| p.1);
    let (min, max) = (values.clone().min().unwrap_or(0), values.max().unwrap_or(0));
    let line = top
        .iter()
        .map(|v| match v {
            None => ' ',
            Some(_) if max == 0 => LEVELS[0],
            Some(v) => LEVELS[((*v as u128 * 7) / max as u128) as usize],
        })
        .collect();
    (line, min, max)
}

/// The samples that count the same rows as the newest one (the whole filter, or the top
/// rows a refresh keeps live, as many as the newest had), so that a line follows what is
/// sampled now; with whether that is the whole filter, and how many rows the newest counted.
pub fn same_scope(samples: Vec<&convo_store::Sample>) -> (Vec<&convo_store::Sample>, bool, u64) {
    let whole = samples.last().is_some_and(|s| s.complete);
    let top = samples.last().map_or(0, |s| s.loaded);
    let samples = samples
        .into_iter()
        .filter(|s| {
            if whole {
                s.complete
            } else {
                !s.complete && s.loaded == top
            }
        })
        .collect();
    (samples, whole, top)
}

/// The filter's last 24 hours from the local store: waiting and, with a first-response
/// target, breaching, sampled at refreshes, one a minute at most (and by `convo summary`).
///
/// Only samples that count the same rows as the newest one are drawn together: the whole
/// filter, or the top rows a refresh keeps live (as many as the newest sample had). The first line says which,
/// and the window: the last 24 h, or since the first sample when the history is younger.
fn trend_lines(app: &App, width: usize, sla: bool) -> Vec<Line<'static>> {
    let key = crate::tab::marks::look_key_of(&app.conversations);
    let end = app.now().as_second();
    let day = end - convo_store::samples::DAY_SECS;
    let in_day = |s: &&convo_store::Sample| s.at >= day;
    let samples: Vec<&convo_store::Sample> = match app.watch().trend_of(&key) {
        Some(s) => s.iter().filter(in_day).collect(),
        None => Vec::new(),
    };
    let (samples, whole, top) = same_scope(samples);
    let Some(first) = samples.iter().map(|s| s.at).min() else {
        return vec![Line::from(Span::styled(
            "  last 24 h: no samples yet (L loads the whole list; refreshes add them)",
            Style::new().dim(),
        ))];
    };
    // A younger history (a new filter, a first run) spreads over the width from its first
    // sample instead of sitting in the last slot.
    let (start, since) = if first > day && first < end {
        (
            first,
            format!(", since {} ago", convo_engine::sla::short(end - first)),
        )
    } else {
        (day, String::new())
    };
    let scope = if whole {
        "the whole list".to_string()
    } else {
        format!("the top {} rows a refresh keeps live", thousands(top))
    };
    let heading = convo_text::fit(
        &format!(
            "  last 24 h{since}: {scope}, {} sample{}",
            samples.len(),
            if samples.len() == 1 { "" } else { "s" }
        ),
        width,
    )
    .into_owned();
    let slots = width.saturating_sub(40).clamp(8, 96);
    // (name, points, colour)
    type Series = (&'static str, Vec<(i64, u64)>, Color);
    let mut series: Vec<Series> = vec![(
        "waiting",
        samples.iter().map(|s| (s.at, s.waiting)).collect(),
        Color::Cyan,
    )];
    if sla {
        series.push((
            "breaching",
            samples.iter().map(|s| (s.at, s.breaching)).collect(),
            Color::Red,
        ));
    }
    let mut lines = vec![Line::from(Span::styled(heading, Style::new().dim()))];
    lines.extend(series.into_iter().map(|(name, points, colour)| {
        let (line, min, max) = sparkline(&points, start, end, slots);
        Line::from(vec![
            Span::raw(format!("  {name:<9} ")),
            Span::styled(line, Style::new().fg(colour)),
            Span::raw(format!(" min {} max {}", thousands(min), thousands(max))),
        ])
    }));
    lines
}

/// Draws the pane over the table.
pub fn draw(app: &App, pane: &SummaryPane, frame: &mut Frame) {
    let full = frame.area();
    let sla = pane.tracks_first_response();
    let width = full.width.min(100).saturating_sub(2) as usize;
    let mut chart = if sla {
        wait_chart(pane, width)
    } else {
        Vec::new()
    };
    // The trend only when the pane has the room for it besides its table.
    let trend = trend_lines(app, width, sla);
    let room = full.height.saturating_sub(2);
    if full.height >= 24 && pane.buckets.len() + 8 + chart.len() + trend.len() < room as usize {
        chart.extend(trend);
        chart.push(Line::default());
    }
    let chart_h = chart.len() as u16;
    let want_h = pane.buckets.len() as u16 + 8 + chart_h;
    let area = super::centered(full, 100, want_h.max(9).min(full.height.saturating_sub(2)));
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Cyan))
        .title(" Summary of loaded conversations ".bold());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height < 4 || inner.width < 20 {
        return;
    }
    let line = |i: u16| ratatui::layout::Rect::new(inner.x, inner.y + i, inner.width, 1);

    let mut by = vec![Span::raw("by ")];
    for (i, b) in By::ALL.iter().enumerate() {
        if i > 0 {
            by.push(Span::styled(" · ", Style::new().dim()));
        }
        let style = if *b == pane.by {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            Style::new().dim()
        };
        by.push(Span::styled(format!(" {} ", b.name()), style));
    }
    frame.render_widget(Paragraph::new(Line::from(by)), line(0));
    frame.render_widget(Paragraph::new(Line::from(coverage(app))), line(1));
    if inner.height >= 6 {
        frame.render_widget(
            Paragraph::new(headline(app, pane, inner.width as usize)),
            line(2),
        );
    }
    let top = if inner.height >= 6 { 3 } else { 2 };

    // As many whole hints as the width holds, the closing one kept.
    let room = inner.width as usize;
    let close = "Esc/q close";
    let mut hint = String::new();
    for h in [
        "↑↓ choose",
        "Enter filters by it",
        "Tab/b grouping",
        "L load all",
    ] {
        let more = if hint.is_empty() {
            h.to_string()
        } else {
            format!("{hint} · {h}")
        };
        if convo_text::width(&more) + 3 + convo_text::width(close) <= room {
            hint = more;
        }
    }
    let hint = if hint.is_empty() {
        close.to_string()
    } else {
        format!("{hint} · {close}")
    };
    let hint_y = inner.height - 1;
    frame.render_widget(
        Paragraph::new(Span::styled(
            fit(&hint, room).into_owned(),
            Style::new().dim(),
        )),
        line(hint_y),
    );

    // The wait-time bars take the lines above the hint when there is room for them and a
    // few buckets.
    let chart_h = if inner.height >= top + 1 + chart_h + 3 {
        chart_h
    } else {
        0
    };
    let table_area = ratatui::layout::Rect::new(
        inner.x,
        inner.y + top,
        inner.width,
        inner.height.saturating_sub(top + 1 + chart_h),
    );
    if chart_h > 0 {
        let y0 = inner.height - 1 - chart_h;
        for (i, l) in chart.into_iter().enumerate() {
            frame.render_widget(Paragraph::new(l), line(y0 + i as u16));
        }
    }
    if pane.buckets.is_empty() {
        let msg = if app.conversations.walk().is_loading() {
            "loading…"
        } else {
            "no conversations loaded"
        };
        frame.render_widget(
            Paragraph::new(Span::styled(msg, Style::new().dim())),
            table_area,
        );
        return;
    }
    // Every count is at most the largest bucket's (its stale, waiting, imminent, breaching
    // are parts of it).
    let widest = pane
        .buckets
        .iter()
        .map(|(b, _)| thousands(b.count).len())
        .max()
        .unwrap_or(1) as u16;
    let cols = columns(inner.width.saturating_sub(1), sla, widest);
    let stale_title = format!(
        "STALE>{}",
        short_duration(app.settings().stale_after_secs())
    );
    let titles = [
        pane.by.name().to_uppercase(),
        "COUNT".into(),
        "SHARE".into(),
        String::new(),
        "OLDEST".into(),
        "MEDIAN".into(),
        stale_title,
        "WAITING".into(),
        "WAITED".into(),
        "IMMINENT".into(),
        "BREACHING".into(),
    ];
    let right = |s: String, w: u16| format!("{s:>w$}", w = w as usize);
    let header = Row::new(
        titles
            .iter()
            .zip(cols)
            .enumerate()
            .filter(|(_, (_, w))| *w > 0)
            .map(|(i, (t, w))| {
                Cell::from(if i == 0 || i == 3 {
                    t.clone()
                } else {
                    right(t.clone(), w)
                })
            }),
    )
    .style(Style::new().bold().fg(Color::Cyan));
    let max = pane.buckets.first().map_or(0, |(b, _)| b.count);
    let opt_age = |a: Option<i64>| a.map_or_else(|| "—".to_string(), age);
    let count_or_dot = |n: u64| if n == 0 { "·".into() } else { thousands(n) };
    let rows: Vec<Row> = pane
        .buckets
        .iter()
        .map(|(b, label)| {
            let values: [String; COLS] = [
                fit(label, cols[0] as usize).into_owned(),
                right(thousands(b.count), cols[1]),
                right(format!("{:.1}%", b.share * 100.0), cols[2]),
                bar(b.count, max, cols[3] as usize),
                right(opt_age(b.oldest_age), cols[4]),
                right(opt_age(b.median_age), cols[5]),
                right(count_or_dot(b.stale), cols[6]),
                right(count_or_dot(b.waiting), cols[7]),
                right(
                    b.oldest_waiting_age.map_or_else(|| "·".into(), age),
                    cols[8],
                ),
                right(count_or_dot(b.sla.imminent), cols[9]),
                right(count_or_dot(b.sla.breaching), cols[10]),
            ];
            Row::new(
                values
                    .into_iter()
                    .zip(cols)
                    .enumerate()
                    .filter(|(_, (_, w))| *w > 0)
                    .map(|(i, (v, _))| match i {
                        3 => Cell::from(Span::styled(v, Style::new().fg(Color::Cyan))),
                        6 if b.stale > 0 => {
                            Cell::from(Span::styled(v, Style::new().fg(Color::Yellow)))
                        }
                        7 | 8 if b.waiting > 0 => {
                            Cell::from(Span::styled(v, Style::new().fg(Color::Yellow)))
                        }
                        9 if b.sla.imminent > 0 => {
                            Cell::from(Span::styled(v, Style::new().fg(Color::Yellow).bold()))
                        }
                        10 if b.sla.breaching > 0 => {
                            Cell::from(Span::styled(v, Style::new().fg(Color::Red).bold()))
                        }
                        _ => Cell::from(v),
                    }),
            )
        })
        .collect();
    let widths: Vec<Constraint> = cols
        .iter()
        .filter(|w| **w > 0)
        .map(|w| Constraint::Length(*w))
        .collect();
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(1)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol(">")
        .highlight_spacing(HighlightSpacing::Always);
    let mut state = ratatui::widgets::TableState::default();
    state.select(Some(pane.selected));
    frame.render_stateful_widget(table, table_area, &mut state);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparkline_buckets_by_time_scales_to_the_window_and_leaves_gaps_blank() {
        // Four slots over 0..=400: samples at 0 (1), 150 and 160 (the slot's highest, 8), none
        // in the third slot, 390 (4); one outside the window is ignored.
        let points = [(0, 1), (150, 8), (160, 3), (390, 4), (-5, 100)];
        let (line, min, max) = sparkline(&points, 0, 400, 4);
        assert_eq!(line, "▁█ ▄");
        assert_eq!((min, max), (1, 8));
        let (line, min, max) = sparkline(&[(10, 0), (20, 0)], 0, 100, 3);
        assert_eq!((line.as_str(), min, max), ("▁  ", 0, 0));
        assert_eq!(sparkline(&[], 0, 100, 5), ("     ".to_string(), 0, 0));
    }

    #[test]
    fn numbers_bars_and_durations() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1200), "1,200");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(bar(10, 10, 4), "████");
        assert_eq!(bar(1, 16, 4), "▎");
        assert_eq!(short_duration(7200), "2h");
        assert_eq!(short_duration(5400), "90m");
        for w in [40, 57, 80, 98] {
            let c = columns(w, w > 60, 5);
            let shown = c.iter().filter(|x| **x > 0).count() as u16;
            assert!(c.iter().sum::<u16>() + shown - 1 <= w, "{w}: {c:?}");
            assert!(
                c[1] > 0 && c[7] > 0,
                "count and waiting always shown: {c:?}"
            );
        }
    }

    /// A million loaded rows: `449,652` was cut to `449,65` in a COUNT column of six cells.
    #[test]
    fn counts_of_a_million_rows_are_never_cut() {
        let widest = thousands(1_000_000).len() as u16;
        for (w, sla) in [(98, false), (98, true), (120, true), (200, true)] {
            let c = columns(w, sla, widest);
            for (i, name) in [(1, "count"), (6, "stale"), (7, "waiting")] {
                assert!(c[i] == 0 || c[i] >= widest, "{name} at {w}: {c:?}");
            }
            assert!(
                c[1] >= widest,
                "the count is always shown whole at {w}: {c:?}"
            );
            let shown = c.iter().filter(|x| **x > 0).count() as u16;
            assert!(c.iter().sum::<u16>() + shown - 1 <= w, "{w}: {c:?}");
        }
    }
}
