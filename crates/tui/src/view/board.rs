//! The board (`B`): one row per view with its counts, its trend and when it was read. Columns
//! are dropped, least needed first, when the terminal is narrow; nothing wraps.

use ratatui::Frame;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::App;
use crate::board::{Board, BoardRow};
use convo_api::Resource;
use convo_text::{fit, thousands, width};

/// The board's columns, in the order they are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Name,
    Matched,
    Waiting,
    Oldest,
    Imminent,
    Breaching,
    Trend,
    Read,
    /// What the view asks (wide terminals).
    Query,
}

impl Col {
    const DRAWN: [Col; 9] = [
        Col::Name,
        Col::Matched,
        Col::Waiting,
        Col::Oldest,
        Col::Imminent,
        Col::Breaching,
        Col::Trend,
        Col::Read,
        Col::Query,
    ];

    /// Kept first when the width runs out: what a supervisor looks at first.
    const KEPT_FIRST: [Col; 9] = [
        Col::Name,
        Col::Matched,
        Col::Breaching,
        Col::Waiting,
        Col::Read,
        Col::Oldest,
        Col::Trend,
        Col::Imminent,
        Col::Query,
    ];

    fn title(self, w: usize) -> &'static str {
        match self {
            Col::Trend if w < 18 => "TREND",
            Col::Name => "VIEW",
            Col::Matched => "MATCH",
            Col::Waiting => "WAITING",
            Col::Oldest => "OLDEST",
            Col::Imminent => "IMMINENT",
            Col::Breaching => "BREACHING",
            Col::Trend => "WAITING, LAST 24 H",
            Col::Read => "READ",
            Col::Query => "WHAT IT ASKS",
        }
    }

    /// The least cells it needs (the name and the trend then take what is left).
    fn min(self) -> usize {
        match self {
            Col::Name => 14,
            Col::Matched => 8,
            Col::Waiting => 7,
            Col::Oldest => 6,
            Col::Imminent => 8,
            Col::Breaching => 9,
            Col::Trend => 10,
            Col::Read => 7,
            Col::Query => 24,
        }
    }

    fn right_aligned(self) -> bool {
        !matches!(self, Col::Name | Col::Trend | Col::Read | Col::Query)
    }
}

/// The widest a name gets before the trend takes the rest.
const NAME_MAX: usize = 32;
/// The most time slots a trend draws (one a quarter of an hour over a day).
const TREND_MAX: usize = 96;
/// Cells after a trend's line for its range ("0–1,234").
const TREND_LABEL: usize = 14;

/// The columns that fit `w` cells and their widths, in drawing order.
fn columns(w: usize, board: &Board) -> Vec<(Col, usize)> {
    // One space before each column.
    let mut left = w;
    let mut kept = Vec::new();
    for c in Col::KEPT_FIRST {
        // What the view asks comes only when the trend has had a day's width (below).
        if c == Col::Query {
            continue;
        }
        // In order: a column less needed never takes the place of one more needed.
        if left <= c.min() {
            break;
        }
        left -= c.min() + 1;
        kept.push(c);
    }
    let mut widths: Vec<(Col, usize)> = Col::DRAWN
        .iter()
        .filter(|c| kept.contains(c))
        .map(|c| (*c, c.min()))
        .collect();
    let longest = board.rows.iter().map(|r| width(&r.name)).max().unwrap_or(0);
    for (c, cw) in widths.iter_mut() {
        let more = match c {
            Col::Name => longest.clamp(Col::Name.min(), NAME_MAX) - Col::Name.min(),
            _ => 0,
        };
        let more = more.min(left);
        *cw += more;
        left -= more;
    }
    // The trend up to a full day's slots and its range, then what the view asks.
    for (c, cw) in widths.iter_mut() {
        if *c == Col::Trend {
            let more = left.min((TREND_MAX + TREND_LABEL).saturating_sub(*cw));
            *cw += more;
            left -= more;
        }
    }
    if left > Col::Query.min() {
        widths.push((Col::Query, left - 1));
    }
    widths
}

/// Draws the board over the whole screen; its last line is the status line's message when
/// there is one, else the board's keys.
pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    frame.render_widget(Clear, area);
    let w = area.width as usize;
    let board = &app.board();
    let cols = columns(w.saturating_sub(1), board);
    let mut lines = vec![title(app, w), header(&cols)];
    // Title, header, a blank, the selected row's line and the last line: the rest is rows.
    let room = (area.height as usize).saturating_sub(5).max(1);
    let first = board.selected.saturating_sub(room.saturating_sub(1));
    for (i, r) in board.rows.iter().enumerate().skip(first).take(room) {
        lines.push(row(app, i, r, &cols));
    }
    // A tall terminal: the selected view's day in more detail below the rows.
    let panel = panel(app, w);
    if area.height >= 30 && lines.len() + panel.len() + 3 <= area.height as usize {
        lines.push(Line::default());
        lines.extend(panel);
    }
    while lines.len() < area.height.saturating_sub(2) as usize {
        lines.push(Line::default());
    }
    lines.push(about(app, w));
    lines.push(last_line(app, w));
    lines.truncate(area.height as usize);
    frame.render_widget(Paragraph::new(lines), area);
}

/// The status line's message (an error in red), else the board's keys.
fn last_line(app: &App, w: usize) -> Line<'static> {
    match app.status_line().shown() {
        Some(m) => Line::from(Span::styled(
            convo_text::fit_words(&format!(" {}", convo_text::one_line(&m.text, 400)), w)
                .into_owned(),
            if m.error {
                Style::new().fg(Color::Red)
            } else {
                Style::new()
            },
        )),
        None => {
            // As many whole hints as the width holds, the most needed first.
            let mut text = String::new();
            for h in [
                "↑↓ choose",
                "Enter open (Backspace: back here)",
                "Esc/q close",
                "r read now",
                "Q quit",
            ] {
                if width(&text) + 3 + width(h) <= w {
                    text = if text.is_empty() {
                        format!(" {h}")
                    } else {
                        format!("{text} · {h}")
                    };
                }
            }
            Line::from(Span::styled(text, Style::new().dim()))
        }
    }
}

/// "Board · 5 views · reading 2 of 5: Breaching" or when the last round ended, then what
/// a read may cost, as far as the width allows.
fn title(app: &App, w: usize) -> Line<'static> {
    let b = &app.board();
    let n = b.rows.len();
    let mut parts = vec![format!(
        " Board · {n} view{}",
        if n == 1 { "" } else { "s" }
    )];
    match (b.progress(), b.round_ended) {
        (Some((i, n)), _) => {
            let name = b.rows.get(i).map(|r| r.name.as_str()).unwrap_or("");
            parts.push(format!(
                "reading {} of {n}: {}",
                i + 1,
                convo_text::one_line(name, 40)
            ));
        }
        (None, Some(at)) => {
            let next = at.as_second() + b.every_secs as i64 - app.now().as_second();
            parts.push(format!(
                "read {} ago, again in {}",
                convo_engine::sla::short(app.now().as_second() - at.as_second()),
                convo_engine::sla::short(next.max(0))
            ));
        }
        (None, None) => parts.push("not read yet".into()),
    }
    parts.push(format!(
        "≤ {} pages a view",
        app.settings().refresh_max_pages()
    ));
    parts.push("after your own requests".into());
    let mut text = String::new();
    for p in parts {
        let more = if text.is_empty() {
            p
        } else {
            format!("{text} · {p}")
        };
        if width(&more) > w && !text.is_empty() {
            break;
        }
        text = more;
    }
    Line::from(Span::styled(
        fit(&text, w).into_owned(),
        Style::new().bold().fg(Color::Cyan),
    ))
}

fn header(cols: &[(Col, usize)]) -> Line<'static> {
    let mut spans = vec![Span::raw(" ")];
    for (i, (c, w)) in cols.iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(
            cell(c.title(*w), *w, c.right_aligned()),
            Style::new().bold().underlined(),
        ));
    }
    Line::from(spans)
}

/// `text` fitted into `w` cells, padded, on the right or the left.
fn cell(text: &str, w: usize, right: bool) -> String {
    let t = fit(text, w);
    let pad = " ".repeat(w.saturating_sub(width(&t)));
    if right {
        format!("{pad}{t}")
    } else {
        format!("{t}{pad}")
    }
}

fn row(app: &App, i: usize, r: &BoardRow, cols: &[(Col, usize)]) -> Line<'static> {
    let b = &app.board();
    let selected = i == b.selected;
    let conv = r.tab == Resource::Conversations;
    let tracked = app
        .settings()
        .sla()
        .is_tracked(convo_engine::sla::Target::FirstResponse);
    let dim = Style::new().dim();
    let none = |s: &str| (s.to_string(), dim);
    let c = r.counts.as_ref();
    let mut spans = vec![Span::raw(" ")];
    for (k, (col, w)) in cols.iter().enumerate() {
        let (text, style) = match col {
            Col::Query => (
                app.settings()
                    .views()
                    .get(i)
                    .map(|v| {
                        super::picker::describe(
                            v,
                            app.settings().aliases(),
                            app.settings().query_settings().agent_id,
                        )
                    })
                    .unwrap_or_default(),
                dim,
            ),
            Col::Name => {
                let mark = if r.error.is_some() { "! " } else { "" };
                let style = if r.error.is_some() {
                    Style::new().fg(Color::Red)
                } else {
                    Style::new()
                };
                (
                    format!("{mark}{}", convo_text::one_line(&r.name, NAME_MAX)),
                    style,
                )
            }
            Col::Matched => match c {
                None => none("—"),
                Some(c) if c.complete => (thousands(c.matched), Style::new()),
                Some(c) => (format!("≥ {}", thousands(c.matched)), Style::new()),
            },
            _ if !conv && !matches!(col, Col::Trend | Col::Read) => none("·"),
            Col::Waiting => match c {
                None => none("—"),
                Some(c) => (thousands(c.waiting), Style::new()),
            },
            Col::Oldest => match c.and_then(|c| c.oldest_waiting) {
                None if c.is_some() => none("·"),
                None => none("—"),
                Some(s) => (convo_engine::sla::short(s), Style::new()),
            },
            Col::Imminent | Col::Breaching if !tracked => none("—"),
            Col::Imminent => match c {
                None => none("—"),
                Some(c) if c.imminent > 0 => {
                    (thousands(c.imminent), Style::new().fg(Color::Yellow))
                }
                Some(c) => (thousands(c.imminent), Style::new()),
            },
            Col::Breaching => match c {
                None => none("—"),
                Some(c) if c.breaching > 0 => (
                    thousands(c.breaching),
                    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                ),
                Some(c) => (thousands(c.breaching), Style::new()),
            },
            Col::Trend => match &r.error {
                Some(e) => (
                    format!("✗ {}", convo_text::one_line(e, 300)),
                    Style::new().fg(Color::Red),
                ),
                None if !conv => none("visitors: counts only"),
                None => trend(app, r, *w),
            },
            Col::Read => match (b.reading == Some(i), r.read_at) {
                (true, _) => ("reading".to_string(), Style::new().fg(Color::Yellow)),
                (false, None) => none("—"),
                (false, Some(at)) => (
                    format!(
                        "{} ago",
                        convo_engine::sla::short(app.now().as_second() - at.as_second())
                    ),
                    if r.error.is_some() {
                        Style::new().fg(Color::Red)
                    } else {
                        Style::new()
                    },
                ),
            },
        };
        if k > 0 {
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(cell(&text, *w, col.right_aligned()), style));
    }
    if selected {
        for s in spans.iter_mut() {
            s.style = s.style.add_modifier(Modifier::REVERSED);
        }
    }
    Line::from(spans)
}

/// The row's waiting count over the last 24 hours (since the first sample when younger).
fn trend(app: &App, r: &BoardRow, w: usize) -> (String, Style) {
    let end = app.now().as_second();
    let day = end - convo_store::samples::DAY_SECS;
    let (samples, _, _) =
        super::summary::same_scope(r.trend.iter().filter(|s| s.at >= day).collect());
    let Some(first) = samples.first().map(|s| s.at) else {
        return ("no samples yet".into(), Style::new().dim());
    };
    let start = if first > day && first < end {
        first
    } else {
        day
    };
    let points: Vec<(i64, u64)> = samples.iter().map(|s| (s.at, s.waiting)).collect();
    // The line, then its range when there is room for it.
    let label_room = TREND_LABEL;
    let slots = if w > 8 + label_room {
        w - label_room
    } else {
        w
    };
    let (line, min, max) = super::summary::sparkline(&points, start, end, slots.min(TREND_MAX));
    let text = if slots < w {
        format!("{line} {}–{}", thousands(min), thousands(max))
    } else {
        line
    };
    (text, Style::new().fg(Color::Cyan))
}

/// The selected view's last 24 hours, a line per series (waiting, imminent, breaching), as
/// the summary pane draws its trend.
fn panel(app: &App, w: usize) -> Vec<Line<'static>> {
    let b = &app.board();
    let Some(r) = b
        .rows
        .get(b.selected)
        .filter(|r| r.tab == Resource::Conversations)
    else {
        return Vec::new();
    };
    let end = app.now().as_second();
    let day = end - convo_store::samples::DAY_SECS;
    let (samples, whole, top) =
        super::summary::same_scope(r.trend.iter().filter(|s| s.at >= day).collect());
    let Some(first) = samples.first().map(|s| s.at) else {
        return Vec::new();
    };
    let start = if first > day && first < end {
        first
    } else {
        day
    };
    let scope = if whole {
        "the whole view".to_string()
    } else {
        format!("its first {} rows", thousands(top))
    };
    let heading = format!(
        " {}: last 24 h, {scope}, {} sample{}",
        convo_text::one_line(&r.name, 40),
        samples.len(),
        if samples.len() == 1 { "" } else { "s" }
    );
    let mut lines = vec![Line::from(Span::styled(
        fit(&heading, w).into_owned(),
        Style::new().dim(),
    ))];
    let slots = w.saturating_sub(40).clamp(8, TREND_MAX);
    type Series = (&'static str, fn(&convo_store::Sample) -> u64, Color);
    let mut series: Vec<Series> = vec![("waiting", |s| s.waiting, Color::Cyan)];
    if app
        .settings()
        .sla()
        .is_tracked(convo_engine::sla::Target::FirstResponse)
    {
        series.push(("imminent", |s| s.imminent, Color::Yellow));
        series.push(("breaching", |s| s.breaching, Color::Red));
    }
    for (name, value, colour) in series {
        let points: Vec<(i64, u64)> = samples.iter().map(|s| (s.at, value(s))).collect();
        let (line, min, max) = super::summary::sparkline(&points, start, end, slots);
        lines.push(Line::from(vec![
            Span::raw(format!("   {name:<10} ")),
            Span::styled(line, Style::new().fg(colour)),
            Span::raw(format!(" min {} max {}", thousands(min), thousands(max))),
        ]));
    }
    lines
}

/// The selected row's line: its error in full, or what the view asks.
fn about(app: &App, w: usize) -> Line<'static> {
    let b = &app.board();
    let Some(r) = b.rows.get(b.selected) else {
        return Line::default();
    };
    if let Some(e) = &r.error {
        let kept = if r.counts.is_some() {
            " (the counts are the last good read's)"
        } else {
            ""
        };
        return Line::from(Span::styled(
            fit(
                &format!(
                    " {}: the last read failed{kept}: {}",
                    convo_text::one_line(&r.name, 40),
                    convo_text::one_line(e, 400)
                ),
                w,
            )
            .into_owned(),
            Style::new().fg(Color::Red),
        ));
    }
    let what = app
        .settings()
        .views()
        .get(b.selected)
        .map(|v| {
            super::picker::describe(
                v,
                app.settings().aliases(),
                app.settings().query_settings().agent_id,
            )
        })
        .unwrap_or_default();
    Line::from(Span::styled(
        fit(
            &format!(" {}: {what}", convo_text::one_line(&r.name, 40)),
            w,
        )
        .into_owned(),
        Style::new().dim(),
    ))
}
