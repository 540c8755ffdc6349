//! The summary as an aligned table for people, fitted to a terminal when it is on one: as the
//! TUI does, columns are shortened (the bar, the label) or left out, least useful first, so a
//! line never wraps; `--watch` also fits the height, cutting bucket rows with a "… N more"
//! line so the header stays on screen. Not on a terminal, nothing is cut. Pure.

use super::report::{Context, age, legend, tracked};
use super::{Bucket, Summary};
use convo_api::short_id;
use convo_text as text;

/// Widest label on a terminal, in cells.
const LABEL_MAX: usize = 32;
/// Narrowest label a terminal table cuts it to before it leaves out more useful columns.
const LABEL_MIN: usize = 12;
/// Cells of the bar of the largest bucket.
const BAR_MAX: usize = 20;
/// Narrowest bar worth drawing.
const BAR_MIN: usize = 5;
/// Spaces between columns.
const GAP: usize = 2;

/// The room the table has: the terminal's width (and for `--watch` its height, in lines);
/// `None`: not a terminal, never cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fit {
    pub width: Option<usize>,
    pub height: Option<usize>,
}

/// The table's columns, in the order they are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Label,
    Count,
    Share,
    Bar,
    Oldest,
    Median,
    Stale,
    Waiting,
    OldestWaiting,
    Imminent,
    Breaching,
    Overdue,
    ResImminent,
    ResBreaching,
}

/// What a narrow terminal gives up, first to last (the label is cut, never left out).
const LEAVE_OUT: [Col; 13] = [
    Col::Bar,
    Col::Median,
    Col::Share,
    Col::ResImminent,
    Col::Stale,
    Col::Oldest,
    Col::Overdue,
    Col::ResBreaching,
    Col::Imminent,
    Col::OldestWaiting,
    Col::Breaching,
    Col::Waiting,
    Col::Count,
];

impl Col {
    fn header(self, cx: &Context<'_>) -> String {
        match self {
            Col::Label => cx.by.name().to_uppercase(),
            Col::Count => "COUNT".into(),
            Col::Share => "SHARE".into(),
            Col::Bar => String::new(),
            Col::Oldest => "OLDEST".into(),
            Col::Median => "MEDIAN".into(),
            Col::Stale => "STALE".into(),
            Col::Waiting => "WAITING".into(),
            Col::OldestWaiting => "OLDEST WAITING".into(),
            Col::Imminent => "IMMINENT".into(),
            Col::Breaching => "BREACHING".into(),
            Col::Overdue => "LONGEST OVERDUE".into(),
            Col::ResImminent => "RES IMMINENT".into(),
            Col::ResBreaching => "RES BREACHING".into(),
        }
    }

    /// The cell of a bucket (the label and the bar are drawn by the caller).
    fn cell(self, b: &Bucket) -> String {
        let n = super::thousands;
        let opt = |a: Option<i64>| a.map(age).unwrap_or_else(|| "—".into());
        match self {
            Col::Label | Col::Bar => String::new(),
            Col::Count => n(b.count),
            Col::Share => pct(b.share),
            Col::Oldest => opt(b.oldest_age),
            Col::Median => opt(b.median_age),
            Col::Stale => n(b.stale),
            Col::Waiting => n(b.waiting),
            Col::OldestWaiting => opt(b.oldest_waiting_age),
            Col::Imminent => n(b.sla.imminent),
            Col::Breaching => n(b.sla.breaching),
            Col::Overdue => opt(b.sla.longest_overdue),
            Col::ResImminent => n(b.sla.resolution_imminent),
            Col::ResBreaching => n(b.sla.resolution_breaching),
        }
    }

    /// Numbers and ages are right-aligned; the label and the bar left-aligned.
    fn right(self) -> bool {
        !matches!(self, Col::Label | Col::Bar)
    }
}

fn pct(share: f64) -> String {
    let p = share * 100.0;
    if p == 100.0 || p == 0.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

fn bar(count: u64, widest: u64, cells: usize) -> String {
    if count == 0 || widest == 0 || cells == 0 {
        return String::new();
    }
    let n = ((count as f64 / widest as f64) * cells as f64).round() as usize;
    "█".repeat(n.max(1))
}

/// The table before it is laid out: which columns, the buckets and how wide the bar and the
/// label may be.
struct Grid<'a> {
    cols: Vec<Col>,
    buckets: Vec<&'a Bucket>,
    total: &'a Bucket,
    labels: Vec<String>,
    widest: u64,
    bar: usize,
    /// `None`: the label is never cut (not a terminal).
    label_max: Option<usize>,
}

impl Grid<'_> {
    /// Every line's cells: the header, the buckets, then the total (when there are buckets).
    fn lines(&self, cx: &Context<'_>) -> Vec<Vec<String>> {
        let label = |l: &str| match self.label_max {
            Some(max) => text::fit(l, max).into_owned(),
            None => text::sanitize(l).into_owned(),
        };
        let row = |lab: &str, b: &Bucket, total: bool| -> Vec<String> {
            self.cols
                .iter()
                .map(|c| match c {
                    Col::Label => label(lab),
                    Col::Bar if total => String::new(),
                    Col::Bar => bar(b.count, self.widest, self.bar),
                    c => c.cell(b),
                })
                .collect()
        };
        let mut out = vec![self.cols.iter().map(|c| c.header(cx)).collect()];
        for (b, l) in self.buckets.iter().zip(&self.labels) {
            out.push(row(l, b, false));
        }
        if !self.buckets.is_empty() {
            out.push(row("total", self.total, true));
        }
        out
    }

    fn widths(lines: &[Vec<String>]) -> Vec<usize> {
        let n = lines.first().map_or(0, Vec::len);
        (0..n)
            .map(|i| lines.iter().map(|r| text::width(&r[i])).max().unwrap_or(0))
            .collect()
    }

    fn line_width(widths: &[usize]) -> usize {
        widths.iter().sum::<usize>() + GAP * widths.len().saturating_sub(1)
    }
}

/// The aligned table (one line per bucket, a total, then the legend), fitted to `fit`.
pub fn table(s: &Summary, cx: &Context<'_>, fit: Fit) -> String {
    let buckets = s.buckets(cx.by);
    let (first, resolution) = tracked(s);
    let mut cols = vec![
        Col::Label,
        Col::Count,
        Col::Share,
        Col::Bar,
        Col::Oldest,
        Col::Median,
        Col::Stale,
        Col::Waiting,
        Col::OldestWaiting,
    ];
    if first {
        cols.extend([Col::Imminent, Col::Breaching, Col::Overdue]);
    }
    if resolution {
        cols.extend([Col::ResImminent, Col::ResBreaching]);
    }
    let total = s.total();
    let mut grid = Grid {
        cols,
        buckets: buckets.iter().collect(),
        total: &total,
        labels: buckets
            .iter()
            .map(|b| b.key.label(cx.aliases, short_id))
            .collect(),
        widest: buckets.iter().map(|b| b.count).max().unwrap_or(0),
        bar: BAR_MAX,
        label_max: fit.width.map(|_| LABEL_MAX),
    };
    let mut left_out = Vec::new();
    if let Some(width) = fit.width {
        left_out = narrow(&mut grid, cx, width);
    }
    let lines = grid.lines(cx);
    let widths = Grid::widths(&lines);
    let mut rows: Vec<String> = lines
        .iter()
        .map(|r| {
            let mut line = String::new();
            for (i, (c, col)) in r.iter().zip(&grid.cols).enumerate() {
                let pad = " ".repeat(widths[i].saturating_sub(text::width(c)));
                if i > 0 {
                    line.push_str(&" ".repeat(GAP));
                }
                if col.right() {
                    line.push_str(&pad);
                    line.push_str(c);
                } else {
                    line.push_str(c);
                    line.push_str(&pad);
                }
            }
            line.trim_end().to_string()
        })
        .collect();
    if buckets.is_empty() {
        rows.push("(no conversations)".into());
    }
    let mut notes = legend(s, cx);
    if !left_out.is_empty() {
        let names: Vec<String> = left_out
            .iter()
            .map(|c| match c {
                Col::Bar => "the bar".to_string(),
                c => c.header(cx),
            })
            .collect();
        notes.insert(
            1,
            format!(
                "left out to fit {} columns: {} (a wider terminal, or --format json, shows them)",
                fit.width.unwrap_or_default(),
                names.join(", ")
            ),
        );
    }
    let notes: Vec<String> = match fit.width {
        Some(w) => notes.iter().flat_map(|l| wrap(l, w)).collect(),
        None => notes,
    };
    let rows = match fit.height {
        Some(h) => cut_to_height(rows, notes, h),
        None => rows.into_iter().chain(notes).collect(),
    };
    let mut out = String::new();
    for l in rows {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// Makes the grid fit `width` cells: a narrower bar, then columns left out and the label cut,
/// least useful first. Returns the columns left out.
fn narrow(grid: &mut Grid<'_>, cx: &Context<'_>, width: usize) -> Vec<Col> {
    let over = |g: &Grid<'_>| Grid::line_width(&Grid::widths(&g.lines(cx))).saturating_sub(width);
    let mut left_out = Vec::new();
    let excess = over(grid);
    if excess == 0 {
        return left_out;
    }
    if excess <= BAR_MAX - BAR_MIN && grid.widest > 0 {
        grid.bar = BAR_MAX - excess;
        return left_out;
    }
    for col in LEAVE_OUT {
        if over(grid) == 0 {
            break;
        }
        // A cheaper cut first: the label down to LABEL_MIN, before anything but the bar,
        // the median and the share goes.
        if !matches!(col, Col::Bar | Col::Median | Col::Share) {
            let excess = over(grid);
            let label = Grid::widths(&grid.lines(cx))[0];
            if label > LABEL_MIN {
                grid.label_max = Some(label.saturating_sub(excess).max(LABEL_MIN));
                if over(grid) == 0 {
                    break;
                }
            }
        }
        if let Some(i) = grid.cols.iter().position(|c| *c == col) {
            grid.cols.remove(i);
            left_out.push(col);
        }
    }
    let widths = Grid::widths(&grid.lines(cx));
    let (label, line) = (widths[0], Grid::line_width(&widths));
    if line > width {
        // Only the label left and still too wide: cut it to the width.
        grid.label_max = Some(label.saturating_sub(line - width).max(1));
    } else if grid.label_max.is_some_and(|m| m < LABEL_MAX) {
        // Columns left out after the label was cut may have made room for more of it.
        grid.label_max = Some((label + width - line).min(LABEL_MAX));
    }
    left_out
}

/// Keeps `rows` (header, buckets, then the total or "(no conversations)") and `notes` within
/// `height` lines: notes go first (the first, the coverage, stays while a bucket row can), then
/// bucket rows, replaced by one "… N more" line; the header and the last row stay.
fn cut_to_height(rows: Vec<String>, mut notes: Vec<String>, height: usize) -> Vec<String> {
    if rows.len() + notes.len() <= height {
        return rows.into_iter().chain(notes).collect();
    }
    let fixed = 2; // the header, the total
    let buckets = rows.len().saturating_sub(fixed);
    // Notes beyond the coverage line give way to rows.
    while notes.len() > 1 && rows.len() + notes.len() > height {
        notes.pop();
    }
    if rows.len() + notes.len() <= height {
        return rows.into_iter().chain(notes).collect();
    }
    // Room for some bucket rows and the "… more" line; the coverage goes when none fits.
    if height.saturating_sub(fixed + notes.len() + 1) == 0 {
        notes.clear();
    }
    let room = height.saturating_sub(fixed + notes.len() + 1).min(buckets);
    let mut out: Vec<String> = rows.iter().take(1 + room).cloned().collect();
    out.push(format!(
        "… {} more, counted in the total",
        super::thousands((buckets - room) as u64)
    ));
    if let Some(t) = rows.last() {
        out.push(t.clone());
    }
    out.extend(notes);
    out.truncate(height.max(1));
    out
}

/// Breaks a line of prose at spaces so it fits `width` cells (a word wider than that is cut).
fn wrap(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in line.split(' ') {
        let w = text::width(word);
        if !cur.is_empty() && text::width(&cur) + 1 + w > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    out.push(cur);
    out.into_iter()
        .map(|l| text::fit(&l, width).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::By;
    use convo_api::{Conversation, ConversationFilter, Status, Timestamp};
    use convo_config::Aliases;
    use uuid::Uuid;

    fn now() -> jiff::Timestamp {
        "2026-11-22T12:00:00Z".parse().unwrap()
    }

    /// Three conversations, one with an unknown status full of control characters.
    fn three() -> Summary {
        crate::summary::report::tests::summary()
    }

    #[test]
    fn table_is_aligned_sanitised_and_says_its_coverage() {
        let s = three();
        let al = Aliases::default();
        let base = ConversationFilter::default();
        let cx = Context {
            by: By::Status,
            aliases: &al,
            base: &base,
            query: None,
        };
        let t = table(&s, &cx, Fit::default());
        assert!(!t.contains('\u{1b}'), "{t}");
        assert!(t.contains("x␛[2J,y"), "{t}");
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("STATUS"), "{t}");
        assert!(lines[1].starts_with("open "), "{t}");
        assert!(lines[1].contains(&"█".repeat(20)), "{t}");
        assert!(lines[2].contains(&"█".repeat(10)), "{t}");
        assert!(
            lines[1].contains("2d 2h") && lines[1].contains("66.7%"),
            "{t}"
        );
        assert!(
            lines[3].starts_with("total") && lines[3].contains("100%"),
            "{t}"
        );
        assert!(t.contains("3 of ≥3 loaded; more available"), "{t}");
        let col = |l: &str| text::width(&l[..l.find("COUNT").unwrap_or(0)]);
        assert_eq!(col(lines[0]), 9, "{t}");
    }

    /// `sites` sites with one long name among them, conversations open and unassigned, with
    /// response-time targets (so every column is there).
    fn summary(sites: u128) -> (Summary, Aliases) {
        let sla = convo_engine::sla::Sla {
            base: convo_engine::sla::Policy {
                first_response: Some(300),
                resolution: Some(4 * 3600),
                ..Default::default()
            },
            ..Default::default()
        };
        let mut s = Summary::new(now(), 7200).with_sla(std::sync::Arc::new(sla));
        let mut aliases = Aliases::default();
        aliases.insert(
            Uuid::from_u128(1),
            "The shop with a very long name indeed".into(),
        );
        for n in 0..sites * 3 {
            let ago = |m| Timestamp::Parsed(now() - jiff::SignedDuration::from_mins(m));
            s.add(&Conversation {
                id: Uuid::from_u128(1000 + n),
                site_id: Uuid::from_u128(1 + n % sites),
                visitor_id: Uuid::from_u128(5000 + n),
                status: Status::from_wire("open"),
                assignee_id: None,
                created_at: ago(10 + n as i64 * 7),
                updated_at: ago(5),
            });
        }
        s.set_more_available(false);
        (s, aliases)
    }

    fn render(sites: u128, fit: Fit) -> String {
        let (s, aliases) = summary(sites);
        let base = ConversationFilter::default();
        let cx = Context {
            by: By::Site,
            aliases: &aliases,
            base: &base,
            query: None,
        };
        table(&s, &cx, fit)
    }

    #[test]
    fn not_on_a_terminal_every_column_and_every_label_is_whole() {
        let t = render(3, Fit::default());
        let header = t.lines().next().unwrap();
        for h in [
            "SHARE",
            "MEDIAN",
            "LONGEST OVERDUE",
            "RES IMMINENT",
            "RES BREACHING",
        ] {
            assert!(header.contains(h), "{header}");
        }
        assert!(t.contains("The shop with a very long name indeed"), "{t}");
        assert!(!t.contains("left out"), "{t}");
    }

    #[test]
    fn on_a_terminal_no_line_is_wider_than_it_and_what_was_left_out_is_said() {
        for width in [200, 120, 100, 80, 60, 40, 20] {
            let t = render(
                3,
                Fit {
                    width: Some(width),
                    height: None,
                },
            );
            for l in t.lines() {
                assert!(text::width(l) <= width, "{width}: {l:?}\n{t}");
            }
            let header = t.lines().next().unwrap();
            assert!(header.starts_with("SITE"), "{width}: {t}");
            if (60..=120).contains(&width) {
                assert!(
                    t.contains(&format!("left out to fit {width} columns")),
                    "{t}"
                );
            }
            if width >= 60 {
                // The columns a supervisor acts on go last.
                assert!(
                    header.contains("WAITING") && header.contains("BREACHING"),
                    "{t}"
                );
            }
        }
        let wide = render(
            3,
            Fit {
                width: Some(200),
                height: None,
            },
        );
        assert!(wide.contains("The shop with a very long name …"), "{wide}");
        assert!(
            wide.lines().next().unwrap().contains("RES BREACHING"),
            "{wide}"
        );
    }

    #[test]
    fn a_short_screen_keeps_the_header_and_the_total_and_counts_the_rows_cut() {
        let t = render(
            40,
            Fit {
                width: Some(80),
                height: Some(23),
            },
        );
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines.len() <= 23, "{}\n{t}", lines.len());
        assert!(lines[0].starts_with("SITE"), "{t}");
        let more = lines
            .iter()
            .position(|l| l.starts_with("… "))
            .expect("a more line");
        let shown = more - 1;
        assert_eq!(
            lines[more],
            format!("… {} more, counted in the total", 40 - shown),
            "{t}"
        );
        assert!(lines[more + 1].starts_with("total"), "{t}");
        assert!(t.contains("all 120 conversations"), "{t}");
        // A tall enough screen shows every row and no "more" line.
        let t = render(
            5,
            Fit {
                width: Some(80),
                height: Some(40),
            },
        );
        assert!(!t.contains("more, counted"), "{t}");
    }
}
