//! A [`Summary`] as text for scripts (JSON and CSV), and the legend the table (`super::table`)
//! prints under it. Pure: each
//! function returns the whole output as a string (it is a few lines per bucket).
//!
//! Every string from the server (unknown statuses) and from the config (aliases) is sanitised
//! in the table and in CSV bound for a terminal; JSON escapes what a terminal could act on.

use serde_json::{Value, json};

use super::{Bucket, By, Key, Summary};
use convo_api::{ConversationFilter, ListFilter};
use convo_config::Aliases;
use convo_engine::sla::Target;
use convo_query::output::{CsvStyle, csv::push_record, json_terminal_safe};

/// What a report needs besides the summary.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The grouping to show.
    pub by: By,
    /// Names for site and agent UUIDs.
    pub aliases: &'a Aliases,
    /// The filters the walk used; each bucket's filter narrows them.
    pub base: &'a ConversationFilter,
    /// `-q`: the query the walk ran (its filters are then not one request's, and each bucket
    /// carries the query that lists it instead).
    pub query: Option<&'a convo_query::query::Query>,
}

/// An age for people: `2d 4h`, `3h 12m`, `47m`, `30s` (two units at most, rounded down).
pub fn age(secs: i64) -> String {
    let s = secs.max(0);
    let (d, h, m) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60);
    match (d, h, m) {
        (0, 0, 0) => format!("{s}s"),
        (0, 0, m) => format!("{m}m"),
        (0, h, 0) => format!("{h}h"),
        (0, h, m) => format!("{h}h {m}m"),
        (d, 0, _) => format!("{d}d"),
        (d, h, _) => format!("{d}d {h}h"),
    }
}

/// The filters as `status=open, unassigned=true`, empty when none.
fn filters_text(f: &ConversationFilter) -> String {
    f.query_pairs()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The legend under the table: coverage, filters, `now`, and what stale and waiting mean.
pub(super) fn legend(s: &Summary, cx: &Context<'_>) -> Vec<String> {
    let mut lines = vec![s.coverage().to_string()];
    let f = filters_text(cx.base);
    if let Some(q) = cx.query {
        lines.push(format!("query: {}", convo_text::sanitize(&q.to_string())));
    } else if !f.is_empty() {
        lines.push(format!("filters: {f}"));
    }
    lines.push(format!(
        "ages at {}; stale: not closed and no update for {}; waiting: open and unassigned",
        s.now().strftime("%Y-%m-%d %H:%M:%S UTC"),
        age(s.stale_after_secs())
    ));
    if let Some(sla) = s.sla() {
        lines.push(format!(
            "targets: {}{} (approximations from list data: waiting = open and unassigned since createdAt)",
            sla.base.describe(),
            match sla.sites.len() {
                0 => String::new(),
                n => format!("; {n} site override(s)"),
            }
        ));
    }
    let t = s.total();
    if t.unreadable_created > 0 || t.unreadable_updated > 0 {
        lines.push(format!(
            "unreadable times: {} createdAt (counted, not aged), {} updatedAt (never stale)",
            t.unreadable_created, t.unreadable_updated
        ));
    }
    lines
}

/// Which targets the summary counts against: (first response, resolution).
pub(super) fn tracked(s: &Summary) -> (bool, bool) {
    s.sla().map_or((false, false), |t| {
        (
            t.is_tracked(Target::FirstResponse),
            t.is_tracked(Target::Resolution),
        )
    })
}

fn bucket_json(
    b: &Bucket,
    sla: (bool, bool),
    labels: &[String; 6],
) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("count".into(), json!(b.count));
    m.insert("share_pct".into(), json!(b.share * 100.0));
    m.insert("oldest_age_secs".into(), json!(b.oldest_age));
    m.insert("median_age_secs".into(), json!(b.median_age));
    m.insert("stale".into(), json!(b.stale));
    m.insert("waiting".into(), json!(b.waiting));
    m.insert(
        "oldest_waiting_age_secs".into(),
        json!(b.oldest_waiting_age),
    );
    m.insert("unreadable_created_at".into(), json!(b.unreadable_created));
    m.insert("unreadable_updated_at".into(), json!(b.unreadable_updated));
    if sla.0 {
        m.insert("imminent".into(), json!(b.sla.imminent));
        m.insert("breaching".into(), json!(b.sla.breaching));
        m.insert("longest_overdue_secs".into(), json!(b.sla.longest_overdue));
    }
    if sla.1 {
        m.insert(
            "resolution_imminent".into(),
            json!(b.sla.resolution_imminent),
        );
        m.insert(
            "resolution_breaching".into(),
            json!(b.sla.resolution_breaching),
        );
    }
    if sla.0 || sla.1 {
        let waits: serde_json::Map<String, Value> = labels
            .iter()
            .zip(b.sla.waits)
            .map(|(l, n)| (l.clone(), json!(n)))
            .collect();
        m.insert("waits".into(), Value::Object(waits));
    }
    m
}

/// The query parameters of a bucket's filter, as an object; `null` when there is none.
fn filter_json(key: &Key, base: &ConversationFilter) -> Value {
    match key.filter(base) {
        None => Value::Null,
        Some(f) => Value::Object(
            f.query_pairs()
                .into_iter()
                .map(|(k, v)| (k.to_string(), Value::String(v)))
                .collect(),
        ),
    }
}

/// One JSON object: `by`, `loaded`, `complete`, `coverage`, `now`, `stale_after_secs`,
/// `filters`, `buckets` (each with `key`, `label`, `count`, `share_pct`, ages in seconds,
/// `stale`, `waiting`, and `filter`: the query that lists exactly that bucket, or `null`) and
/// `total`.
pub fn json(s: &Summary, cx: &Context<'_>) -> String {
    let pretty = serde_json::to_string_pretty(&json_value(s, cx)).unwrap_or_default();
    // Pretty, and made terminal-safe line by line (the escaper treats a newline as unsafe;
    // here newlines only separate tokens: inside strings serde_json has escaped them).
    let mut out = String::with_capacity(pretty.len() + 1);
    for line in pretty.lines() {
        out.push_str(&json_terminal_safe(line.to_string()));
        out.push('\n');
    }
    out
}

/// [`json`] on one line (for `--watch` samples), terminal-safe.
pub fn json_line(s: &Summary, cx: &Context<'_>) -> String {
    let mut line =
        json_terminal_safe(serde_json::to_string(&json_value(s, cx)).unwrap_or_default());
    line.push('\n');
    line
}

/// The value behind [`json`] and [`json_line`].
fn json_value(s: &Summary, cx: &Context<'_>) -> Value {
    let cov = s.coverage();
    let sla = tracked(s);
    let labels = convo_engine::sla::wait_labels(&s.wait_edges());
    let buckets: Vec<Value> = s
        .buckets(cx.by)
        .iter()
        .map(|b| {
            let mut m = serde_json::Map::new();
            m.insert("key".into(), json!(b.key.id()));
            m.insert(
                "label".into(),
                json!(b.key.label(cx.aliases, |u| u.to_string())),
            );
            m.extend(bucket_json(b, sla, &labels));
            match cx.query {
                None => {
                    m.insert("filter".into(), filter_json(&b.key, cx.base));
                }
                Some(q) => {
                    m.insert("filter".into(), Value::Null);
                    m.insert(
                        "query".into(),
                        b.key.query(q).map_or(Value::Null, |q| json!(q.to_string())),
                    );
                }
            }
            Value::Object(m)
        })
        .collect();
    let base: serde_json::Map<String, Value> = cx
        .base
        .query_pairs()
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect();
    let mut v = json!({
        "by": cx.by.name(),
        "loaded": cov.loaded,
        "complete": cov.complete,
        "unreadable_rows": cov.unreadable_rows,
        "coverage": cov.to_string(),
        "now": s.now().to_string(),
        "stale_after_secs": s.stale_after_secs(),
        "filters": base,
        "buckets": buckets,
        "total": bucket_json(&s.total(), sla, &labels),
    });
    if let (Some(q), Some(m)) = (cx.query, v.as_object_mut()) {
        m.insert("query".into(), json!(q.to_string()));
    }
    if let (Some(t), Some(m)) = (s.sla(), v.as_object_mut()) {
        m.insert(
            "targets".into(),
            json!({
                "first_response_secs": t.base.first_response,
                "resolution_secs": t.base.resolution,
                "warn_at": t.base.warn_at,
                "business_hours": t.base.hours.as_ref().map(|h| h.describe()),
                "site_overrides": t.sites.len(),
            }),
        );
    }
    v
}

/// CSV with a header line, one line per bucket (no total: scripts can sum; with targets, a last
/// line with an empty key and the label `total` holds the state counts of all rows). Empty
/// cells for ages that are unknown. Coverage is not in the CSV; the command says it on stderr.
pub fn csv(s: &Summary, cx: &Context<'_>, to_terminal: bool) -> String {
    let mut out = String::from(
        "key,label,count,share_pct,oldest_age_secs,median_age_secs,stale,waiting,\
         oldest_waiting_age_secs,unreadable_created_at,unreadable_updated_at",
    );
    let (first, resolution) = tracked(s);
    if first {
        out.push_str(",imminent,breaching,longest_overdue_secs");
    }
    if resolution {
        out.push_str(",resolution_imminent,resolution_breaching");
    }
    out.push('\n');
    let n = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut rows: Vec<(Option<String>, String, Bucket)> = s
        .buckets(cx.by)
        .into_iter()
        .map(|b| (b.key.id(), b.key.label(cx.aliases, |u| u.to_string()), b))
        .collect();
    // With targets, a total line too (empty key, label `total`): the state counts of the whole.
    if first || resolution {
        rows.push((None, "total".into(), s.total()));
    }
    for (key, label, b) in rows {
        let mut fields = vec![
            key.unwrap_or_default(),
            label,
            b.count.to_string(),
            format!("{:.4}", b.share * 100.0),
            n(b.oldest_age),
            n(b.median_age),
            b.stale.to_string(),
            b.waiting.to_string(),
            n(b.oldest_waiting_age),
            b.unreadable_created.to_string(),
            b.unreadable_updated.to_string(),
        ];
        if first {
            fields.push(b.sla.imminent.to_string());
            fields.push(b.sla.breaching.to_string());
            fields.push(n(b.sla.longest_overdue));
        }
        if resolution {
            fields.push(b.sla.resolution_imminent.to_string());
            fields.push(b.sla.resolution_breaching.to_string());
        }
        push_record(&mut out, &fields, CsvStyle::stdout(to_terminal, false));
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use convo_api::{Conversation, Status, Timestamp};
    use uuid::Uuid;

    /// Three conversations, one with an unknown status full of control characters (shared
    /// with the table's tests).
    pub(in crate::summary) fn summary() -> Summary {
        let now: jiff::Timestamp = "2026-11-22T12:00:00Z".parse().unwrap();
        let mut s = Summary::new(now, 7200);
        for (i, (st, mins)) in [("open", 47), ("open", 3000), ("x\u{1b}[2J,y", 5)]
            .into_iter()
            .enumerate()
        {
            s.add(&Conversation {
                id: Uuid::from_u128(i as u128 + 1),
                site_id: Uuid::from_u128(9),
                visitor_id: Uuid::from_u128(8),
                status: Status::from_wire(st),
                assignee_id: None,
                created_at: Timestamp::Parsed(now - jiff::SignedDuration::from_mins(mins)),
                updated_at: Timestamp::Parsed(now - jiff::SignedDuration::from_mins(mins)),
            });
        }
        s
    }

    #[test]
    fn ages_read_well() {
        assert_eq!(age(-3), "0s");
        assert_eq!(age(59), "59s");
        assert_eq!(age(47 * 60 + 5), "47m");
        assert_eq!(age(7200), "2h");
        assert_eq!(age(3 * 3600 + 12 * 60), "3h 12m");
        assert_eq!(age(2 * 86_400 + 4 * 3600 + 59), "2d 4h");
        assert_eq!(age(86_400 * 3), "3d");
    }

    #[test]
    fn json_and_csv_are_machine_readable() {
        let mut s = summary();
        s.set_more_available(false);
        let al = Aliases::default();
        let base = ConversationFilter::default();
        let cx = Context {
            by: By::Status,
            aliases: &al,
            base: &base,
            query: None,
        };
        let j = json(&s, &cx);
        assert!(!j.contains('\u{1b}'));
        let v: Value = serde_json::from_str(&j).unwrap_or_else(|e| panic!("{e}: {j}"));
        assert_eq!(v["complete"], true);
        assert_eq!(v["buckets"][0]["filter"], json!({"status": "open"}));
        assert_eq!(v["buckets"][1]["filter"], Value::Null);
        assert_eq!(v["buckets"][1]["label"], "x\u{1b}[2J,y");
        assert_eq!(v["buckets"][0]["oldest_age_secs"], 3000 * 60);
        let c = csv(&s, &cx, true);
        assert!(
            c.lines()
                .nth(2)
                .unwrap()
                .starts_with("\"x␛[2J,y\",\"x␛[2J,y\",1,"),
            "{c}"
        );
        // a file or a pipe: the ESC shown, not kept (`cat` replays nothing)
        assert!(csv(&s, &cx, false).contains("\"x␛[2J,y\""));
    }
}
