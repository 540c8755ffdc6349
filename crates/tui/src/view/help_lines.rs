//! The help overlay's lines and how they fit a screen, from the key map and the last error
//! alone (no `App`), so `update` can scroll the overlay by what it shows without joining the
//! view's imports. Drawn by [`super::help`].

use jiff::tz::TimeZone;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use crate::keys::{Action, Group, Key, KeyMap};
use crate::marks::Mark;
use crate::message::LastError;
use crate::view::marks::{GONE, MARKED};

/// What the help shows: the keys in effect and the last error.
pub struct Source<'a> {
    pub keymap: &'a KeyMap,
    pub last_error: Option<&'a LastError>,
    /// The last message (the status line may have cut it).
    pub last_message: Option<&'a LastError>,
    pub tz: &'a TimeZone,
    /// The user's `[[commands]]` and their keys.
    pub commands: &'a crate::commands::Commands,
}

/// Two columns of groups from this width on; one scrollable column below it.
pub const WIDE: u16 = 100;

pub fn group_lines(src: &Source, groups: &[Group]) -> Vec<Line<'static>> {
    let mut v = Vec::new();
    for g in groups {
        if !v.is_empty() {
            v.push(Line::default());
        }
        v.push(Line::from(Span::styled(
            g.title().to_string(),
            Style::new().fg(Color::Cyan).bold(),
        )));
        for b in src.keymap.bindings.iter().filter(|b| b.group == *g) {
            let keys = b.keys.iter().map(Key::label).collect::<Vec<_>>().join(" ");
            v.push(Line::from(vec![
                Span::styled(format!(" {keys:<14}"), Style::new().bold()),
                Span::raw(b.help),
            ]));
        }
    }
    v
}

/// The user's `[[commands]]`: key (or `!` menu only), name, tabs, and a blank line; shown
/// first (they are the user's own); none without commands.
pub fn command_lines(src: &Source) -> Vec<Line<'static>> {
    let c = src.commands;
    if c.list.is_empty() {
        return Vec::new();
    }
    let mut v = vec![Line::from(Span::styled(
        "Your commands",
        Style::new().fg(Color::Cyan).bold(),
    ))];
    for (i, cmd) in c.list.iter().enumerate() {
        let key = match c.key_label(i) {
            k if k.is_empty() => format!("{} menu", src.keymap.key_of(Action::Commands)),
            k => k,
        };
        let tabs = match (cmd.conversations, cmd.visitors) {
            (true, false) => " (conversations)",
            (false, true) => " (visitors)",
            _ => "",
        };
        v.push(Line::from(vec![
            Span::styled(format!(" {key:<14}"), Style::new().bold()),
            Span::raw(format!("{}{tabs}", convo_text::one_line(&cmd.name, 40))),
        ]));
    }
    v.push(Line::default());
    v
}

/// What the marks in the table's first column mean.
pub fn mark_lines() -> Vec<Line<'static>> {
    let mark = |symbol: &str, what: &'static str| {
        Line::from(vec![
            Span::styled(format!(" {symbol:<14}"), Style::new().bold()),
            Span::raw(what),
        ])
    };
    vec![
        Line::default(),
        Line::from(Span::styled("Marks", Style::new().fg(Color::Cyan).bold())),
        mark(Mark::New.symbol(), "new since the last fetch"),
        mark(Mark::Changed.symbol(), "status or assignee changed"),
        mark(GONE, "left; greyed until next refresh"),
        mark(MARKED, "marked (bold): commands run on these"),
    ]
}

/// The last error the status line showed, whole (the line cuts it at the terminal's edge),
/// then the last message when it is another, each wrapped to `width` cells with a blank line
/// under it; none without either.
pub fn last_error_lines(src: &Source, width: usize) -> Vec<Line<'static>> {
    let mut v = Vec::new();
    let mut said = |title: &str, e: &LastError, style: Style| {
        let when = e.at.to_zoned(src.tz.clone()).strftime("%H:%M:%S");
        v.push(Line::from(Span::styled(format!("{title} ({when})"), style)));
        v.extend(
            convo_text::wrap(&e.text, width.saturating_sub(1).max(10))
                .into_iter()
                .map(|l| Line::from(format!(" {l}"))),
        );
        v.push(Line::default());
    };
    if let Some(e) = src.last_error {
        said("Last error", e, Style::new().fg(Color::Red).bold());
    }
    if let Some(m) = src
        .last_message
        .filter(|m| src.last_error.is_none_or(|e| e.text != m.text))
    {
        said("Last message", m, Style::new().fg(Color::Cyan).bold());
    }
    v
}

/// The one column of a narrow screen: the last error, the groups, the marks.
pub fn narrow_lines(src: &Source, full: Rect) -> Vec<Line<'static>> {
    let width = full.width.min(60).saturating_sub(2) as usize;
    let mut lines = last_error_lines(src, width);
    lines.extend(command_lines(src));
    lines.extend(group_lines(src, &Group::ALL));
    lines.extend(mark_lines());
    lines
}

/// How the overlay fits a `full`-sized screen.
pub struct Geometry {
    /// The overlay's width and height, borders included (centred by the view).
    pub size: (u16, u16),
    /// Lines of the scrolled part (the groups; on a wide screen the last error stays on top).
    pub lines: usize,
    /// How many of them the box shows at once.
    pub visible: usize,
}

impl Geometry {
    /// How far the overlay can scroll: past it, only blank lines.
    pub fn max_scroll(&self) -> usize {
        self.lines.saturating_sub(self.visible)
    }

    /// How many lines a page key scrolls by.
    pub fn page(&self) -> usize {
        self.visible.saturating_sub(1).max(1)
    }
}

pub fn geometry(src: &Source, full: Rect) -> Geometry {
    let (w, lines, fixed) = if full.width >= WIDE {
        let left = group_lines(src, &Group::ALL[..4]).len() + command_lines(src).len();
        let right = group_lines(src, &Group::ALL[4..]).len() + mark_lines().len();
        (WIDE, left.max(right), last_error_lines(src, 98).len())
    } else {
        (60, narrow_lines(src, full).len(), 0)
    };
    let h = ((lines + fixed) as u16 + 2).min(full.height);
    Geometry {
        size: (w.min(full.width), h),
        lines,
        visible: (h as usize).saturating_sub(2 + fixed),
    }
}
