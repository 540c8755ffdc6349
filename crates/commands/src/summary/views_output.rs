//! Every view's counts ([`super::views`]) written for scripts: an aligned table, JSON, CSV,
//! and the Prometheus text `convo exporter` serves. Pure: returns strings.
//!
//! Prometheus: the gauges of `summary --format prometheus` ([`super::prometheus::gauges`])
//! with a `view` label on every sample, then one sample per view of
//! - `convo_view_matches`: rows that match (a lower bound when `convo_view_complete` is 0),
//! - `convo_view_complete`: 1 when the walk read the whole view, 0 when it stopped at its
//!   page budget ("≥ N"),
//! - `convo_view_up`: 1 when the last walk of the view succeeded, 0 when it failed (the
//!   figures then are those of the last complete walk, if any),
//! - `convo_view_last_complete_walk_timestamp_seconds`: when the figures were read (Unix),
//! - `convo_view_walk_duration_seconds`: how long that walk took.

use std::time::Duration;

use super::prometheus::{Part, escape, gauges};
use super::report::age;
use super::views::{ViewCounts, ViewReport};
use super::{By, thousands};
use convo_config::Aliases;
use convo_query::output::csv::push_record;
use convo_query::output::{CsvStyle, TableCol, write_table_cols};

/// What Prometheus is told of one view: its last complete walk (if any) and whether the
/// latest walk succeeded.
pub struct ViewState<'a> {
    pub name: &'a str,
    /// The counts of the last complete walk, when it was read and how long it took.
    pub last: Option<(&'a ViewCounts, jiff::Timestamp, Duration)>,
    /// The latest walk succeeded.
    pub up: bool,
}

impl<'a> ViewState<'a> {
    /// A report as it stands: its counts when it has some.
    pub fn of(r: &'a ViewReport) -> ViewState<'a> {
        ViewState {
            name: &r.name,
            last: r.outcome.as_ref().ok().map(|c| (c, r.read_at, r.took)),
            up: r.outcome.is_ok(),
        }
    }
}

/// The views as Prometheus text (see the module's comment); `by` groups the summary gauges.
pub fn prometheus(views: &[ViewState<'_>], by: By, aliases: &Aliases) -> String {
    let label = |v: &ViewState<'_>| format!("view=\"{}\"", escape(v.name));
    let parts: Vec<Part<'_>> = views
        .iter()
        .filter_map(|v| {
            let summary = v.last?.0.summary.as_ref()?;
            Some(Part {
                summary,
                extra: format!(",{}", label(v)),
            })
        })
        .collect();
    let mut out = gauges(&parts, by, aliases);
    type Value = fn(&ViewState<'_>) -> Option<f64>;
    let per_view: [(&str, &str, Value); 5] = [
        (
            "convo_view_matches",
            "Rows that match the view (a lower bound when convo_view_complete is 0).",
            |v| v.last.map(|(c, _, _)| c.matched as f64),
        ),
        (
            "convo_view_complete",
            "1 when the walk read the whole view, 0 when it stopped at its page budget.",
            |v| v.last.map(|(c, _, _)| if c.complete { 1.0 } else { 0.0 }),
        ),
        (
            "convo_view_up",
            "1 when the last walk of the view succeeded, 0 when it failed (the figures are \
             then the last complete walk's).",
            |v| Some(if v.up { 1.0 } else { 0.0 }),
        ),
        (
            "convo_view_last_complete_walk_timestamp_seconds",
            "When the view's figures were read (Unix time).",
            |v| v.last.map(|(_, at, _)| at.as_second() as f64),
        ),
        (
            "convo_view_walk_duration_seconds",
            "How long the walk behind the view's figures took.",
            |v| v.last.map(|(_, _, took)| took.as_secs_f64()),
        ),
    ];
    for (name, help, value) in per_view {
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} gauge\n"));
        for v in views {
            if let Some(x) = value(v) {
                out.push_str(&format!("{name}{{{}}} {x}\n", label(v)));
            }
        }
    }
    out
}

/// The columns of the table, in order (the board shows the same ones).
pub const COLUMNS: [&str; 8] = [
    "VIEW",
    "MATCHES",
    "WAITING",
    "OLDEST WAITING",
    "IMMINENT",
    "BREACHING",
    "READ",
    "ERROR",
];

/// One report's cells, as the table and CSV show them (`-` where a figure does not apply:
/// a visitors view, no first-response target, a failed walk). `secs`: ages as seconds (CSV)
/// or as `1h 5m` (the table).
fn cells(r: &ViewReport, secs: bool, tz: &jiff::tz::TimeZone) -> Vec<String> {
    let dash = || "-".to_string();
    let n = |x: Option<u64>| {
        x.map(|n| if secs { n.to_string() } else { thousands(n) })
            .unwrap_or_else(dash)
    };
    let read = if secs {
        r.read_at.to_string()
    } else {
        r.read_at
            .to_zoned(tz.clone())
            .strftime("%H:%M:%S")
            .to_string()
    };
    match &r.outcome {
        Ok(c) => vec![
            r.name.clone(),
            if secs {
                let m = c.matched.to_string();
                if c.complete { m } else { format!(">={m}") }
            } else {
                c.matched_text()
            },
            n(c.waiting()),
            c.oldest_waiting_secs()
                .map(|s| if secs { s.to_string() } else { age(s) })
                .unwrap_or_else(dash),
            n(c.imminent()),
            n(c.breaching()),
            read,
            String::new(),
        ],
        Err(e) => vec![
            r.name.clone(),
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
            read,
            convo_text::one_line(e, 300),
        ],
    }
}

/// The table's columns (the least useful are left out first on a narrow terminal: READ,
/// then IMMINENT and OLDEST WAITING).
pub fn table_cols() -> [TableCol; 8] {
    [
        TableCol::new(COLUMNS[0], 40, 16).kept(),
        TableCol::new(COLUMNS[1], 12, 5).kept(),
        TableCol::new(COLUMNS[2], 9, 4).kept(),
        TableCol::new(COLUMNS[3], 14, 6),
        TableCol::new(COLUMNS[4], 9, 4),
        TableCol::new(COLUMNS[5], 9, 4).kept(),
        TableCol::new(COLUMNS[6], 8, 8),
        TableCol::new(COLUMNS[7], 200, 12).kept(),
    ]
}

/// One report as the table's cells ([`COLUMNS`]): counts as `1,234` (`≥ 1,234` past the page
/// budget), ages as `1h 5m`, the read time as `HH:MM:SS` in `tz`, `-` where a figure does
/// not apply. Not sanitised (view names and errors are text): the writer does that.
pub fn table_row(r: &ViewReport, tz: &jiff::tz::TimeZone) -> Vec<String> {
    cells(r, false, tz)
}

/// The aligned table: one row per view, fitted to `width` when stdout is a terminal; with the
/// headers it left out.
pub fn table(
    reports: &[ViewReport],
    width: Option<usize>,
    tz: &jiff::tz::TimeZone,
) -> (String, Vec<&'static str>) {
    let rows: Vec<Vec<String>> = reports.iter().map(|r| table_row(r, tz)).collect();
    let mut out = Vec::new();
    let hidden = write_table_cols(&mut out, &table_cols(), &rows, width).unwrap_or_default();
    (String::from_utf8_lossy(&out).into_owned(), hidden)
}

/// RFC 4180 CSV with a header line; ages in seconds, the read time in RFC 3339, a count past
/// the page budget as `>=N`.
pub fn csv(reports: &[ViewReport], style: CsvStyle) -> String {
    let mut out = String::new();
    push_record(
        &mut out,
        &[
            "view",
            "matches",
            "waiting",
            "oldest_waiting_secs",
            "imminent",
            "breaching",
            "read_at",
            "error",
        ],
        style,
    );
    let utc = jiff::tz::TimeZone::UTC;
    for r in reports {
        let mut c = cells(r, true, &utc);
        for x in c.iter_mut().skip(1).take(5) {
            if x == "-" {
                x.clear();
            }
        }
        push_record(&mut out, &c, style);
    }
    out
}

/// One JSON object: `views`, an array with one object per view (`null` where a figure does
/// not apply; `complete: false` when `matches` is a lower bound; `error` when it failed).
pub fn json(reports: &[ViewReport]) -> String {
    let views: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            let mut v = serde_json::json!({
                "view": r.name,
                "tab": r.tab.name(),
                "query": r.query,
                "read_at": r.read_at.to_string(),
                "took_secs": r.took.as_secs_f64(),
            });
            let m = v.as_object_mut().expect("an object");
            match &r.outcome {
                Ok(c) => {
                    m.insert("matches".into(), c.matched.into());
                    m.insert("complete".into(), c.complete.into());
                    m.insert("waiting".into(), c.waiting().into());
                    m.insert("oldest_waiting_secs".into(), c.oldest_waiting_secs().into());
                    m.insert("imminent".into(), c.imminent().into());
                    m.insert("breaching".into(), c.breaching().into());
                    m.insert("error".into(), serde_json::Value::Null);
                }
                Err(e) => {
                    m.insert("error".into(), e.as_str().into());
                }
            }
            v
        })
        .collect();
    let text = serde_json::json!({ "views": views }).to_string();
    format!("{}\n", convo_query::output::json_terminal_safe(text))
}
