//! Turning row values into short display text. Pure; every server string is sanitised here
//! or by `text::fit` in the view.

use std::fmt::Write as _;

use jiff::tz::TimeZone;
use uuid::Uuid;

use convo_api::Timestamp;
use convo_api::model::short_id;
use convo_config::Aliases;
use convo_text as text;

/// "now", "42s ago", "3m ago", "2h ago", "5d ago", "4mo ago", "2y ago"; "in 3m" for the future.
pub fn relative(now: jiff::Timestamp, t: jiff::Timestamp) -> String {
    let secs = now.as_second() - t.as_second();
    let (future, s) = (secs < 0, secs.unsigned_abs());
    let amount = match s {
        0..=4 => return "now".into(),
        5..=59 => format!("{s}s"),
        60..=3599 => format!("{}m", s / 60),
        3600..=86_399 => format!("{}h", s / 3600),
        86_400..=2_591_999 => format!("{}d", s / 86_400),
        2_592_000..=31_535_999 => format!("{}mo", s / 2_592_000),
        _ => format!("{}y", s / 31_536_000),
    };
    if future {
        format!("in {amount}")
    } else {
        format!("{amount} ago")
    }
}

/// A timestamp as a relative time, or its raw (sanitised) text when it did not parse.
pub fn relative_ts(now: jiff::Timestamp, t: &Timestamp) -> String {
    match t {
        Timestamp::Parsed(p) => relative(now, *p),
        Timestamp::Raw(r) => text::sanitize(r).into_owned(),
    }
}

/// For the detail pane: `2026-11-22 11:57:00 UTC (3m ago)` and, when the time parsed and
/// local time is not UTC, `2026-11-22 12:57:00 CET local`.
pub fn absolute(now: jiff::Timestamp, tz: &TimeZone, t: &Timestamp) -> (String, Option<String>) {
    match t {
        Timestamp::Parsed(p) => {
            let utc = p.strftime("%Y-%m-%d %H:%M:%S UTC");
            // Where local time is UTC (servers, containers, `TZ=UTC`) a second line would
            // only repeat the first.
            let local = (tz.to_offset(*p) != jiff::tz::Offset::UTC).then(|| {
                let local = p.to_zoned(tz.clone());
                format!("{} local", local.strftime("%Y-%m-%d %H:%M:%S %Z"))
            });
            (format!("{utc} ({})", relative(now, *p)), local)
        }
        Timestamp::Raw(r) => (
            format!("{} (not a valid timestamp)", text::sanitize(r)),
            None,
        ),
    }
}

/// A site or agent id as its alias (from the config) or its short id.
pub fn id_label(aliases: &Aliases, id: &Uuid) -> String {
    match aliases.name(id) {
        Some(name) => text::sanitize(name).into_owned(),
        None => short_id(id),
    }
}

/// A one-line summary of visitor attributes, e.g. `plan=pro seats=5 +3`, at most `max` cells
/// (sanitised). `None` for null or an empty object.
pub fn attributes_summary(v: &serde_json::Value, max: usize) -> Option<String> {
    attributes_summary_first(v, max, &[])
}

/// [`attributes_summary`] with the keys in `first` (those a query names) before the others.
pub fn attributes_summary_first(
    v: &serde_json::Value,
    max: usize,
    first: &[String],
) -> Option<String> {
    use serde_json::Value;
    let value = |v: &Value| match v {
        Value::String(s) => text::one_line(s, 24),
        Value::Array(a) => format!("[{}]", a.len()),
        Value::Object(_) => "{…}".into(),
        other => other.to_string(),
    };
    match v {
        Value::Null => None,
        Value::Object(m) if m.is_empty() => None,
        Value::Object(m) => {
            let mut out = String::new();
            let mut shown = 0;
            let named = first.iter().filter_map(|k| m.get_key_value(k));
            let rest = m.iter().filter(|(k, _)| !first.contains(k));
            for (k, val) in named.chain(rest) {
                let item = format!("{}={}", text::one_line(k, 24), value(val));
                let rest = m.len() - shown - 1;
                let reserve = if rest > 0 { 4 } else { 0 };
                let sep = usize::from(!out.is_empty());
                if text::width(&out) + sep + text::width(&item) + reserve > max && shown > 0 {
                    break;
                }
                if sep == 1 {
                    out.push(' ');
                }
                out.push_str(&item);
                shown += 1;
            }
            if shown < m.len() {
                let _ = write!(out, " +{}", m.len() - shown);
            }
            Some(text::one_line(&out, max))
        }
        other => Some(text::one_line(&other.to_string(), max)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> jiff::Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn relative_buckets() {
        let now = ts("2026-11-22T12:00:00Z");
        assert_eq!(relative(now, ts("2026-11-22T11:57:00Z")), "3m ago");
        assert_eq!(relative(now, ts("2026-11-22T10:00:00Z")), "2h ago");
        assert_eq!(relative(now, ts("2026-11-17T12:00:00Z")), "5d ago");
        assert_eq!(relative(now, ts("2026-11-22T12:00:02Z")), "now");
        assert_eq!(relative(now, ts("2026-11-22T12:10:00Z")), "in 10m");
    }

    #[test]
    fn attribute_summary_counts_the_rest() {
        let v = serde_json::json!({"plan": "pro", "seats": 5, "a": 1, "b": 2, "c": 3});
        let s = attributes_summary(&v, 22).unwrap();
        assert!(s.ends_with("+3") || s.contains('+'), "{s}");
        assert!(text::width(&s) <= 22, "{s}");
        assert_eq!(attributes_summary(&serde_json::Value::Null, 20), None);
    }

    #[test]
    fn the_local_line_is_left_out_where_local_time_is_utc() {
        let now = ts("2026-11-22T12:00:00Z");
        let t = Timestamp::Parsed(ts("2026-11-22T11:57:00Z"));
        let (utc, local) = absolute(now, &TimeZone::UTC, &t);
        assert_eq!(utc, "2026-11-22 11:57:00 UTC (3m ago)");
        assert_eq!(local, None);
        let plus_one = TimeZone::fixed(jiff::tz::offset(1));
        let (_, local) = absolute(now, &plus_one, &t);
        let local = local.expect("a zone an hour east of UTC gets its line");
        assert!(local.starts_with("2026-11-22 12:57:00"), "{local}");
        assert!(local.ends_with(" local"), "{local}");
    }
}
