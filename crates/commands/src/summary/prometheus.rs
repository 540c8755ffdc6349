//! A [`Summary`] in the Prometheus text exposition format (version 0.0.4), as node_exporter's
//! textfile collector reads it: `# HELP` and `# TYPE` before each metric's samples, one sample
//! per bucket labelled by the grouping (`status`, `site` or `assignee`; `unassigned` is its own
//! value), and no unlabelled total beside them (Prometheus sums). A walk cut short adds
//! `convo_summary_complete 0`. Pure: returns the text.
//!
//! By site or assignee, a bucket whose UUID has a name in `[aliases]` (or the demo's names)
//! also carries it as `site_name` / `assignee_name`: a label of the same series (the name
//! follows from the UUID, so there are no more series than buckets), for legends and
//! `sum by (site_name)`. A bucket with no name has no such label (an empty label is the same
//! as none to Prometheus).

use super::{Bucket, By, Key, Summary};
use convo_config::Aliases;
use convo_engine::sla::Target;

/// One gauge: name, help, and its value for a bucket (`None`: no sample).
struct Gauge {
    name: &'static str,
    help: &'static str,
    value: fn(&Bucket) -> Option<i64>,
}

const COUNT: Gauge = Gauge {
    name: "convo_conversations",
    help: "Conversations counted in the walk.",
    value: |b| Some(b.count as i64),
};
const WAITING: Gauge = Gauge {
    name: "convo_conversations_waiting",
    help: "Conversations open and unassigned.",
    value: |b| Some(b.waiting as i64),
};
const IMMINENT: Gauge = Gauge {
    name: "convo_conversations_imminent",
    help: "Waiting conversations past warn_at of the first-response target, not past it.",
    value: |b| Some(b.sla.imminent as i64),
};
const BREACHING: Gauge = Gauge {
    name: "convo_conversations_breaching",
    help: "Waiting conversations past the first-response target.",
    value: |b| Some(b.sla.breaching as i64),
};
const RES_IMMINENT: Gauge = Gauge {
    name: "convo_resolution_imminent",
    help: "Conversations not closed past warn_at of the resolution target, not past it.",
    value: |b| Some(b.sla.resolution_imminent as i64),
};
const RES_BREACHING: Gauge = Gauge {
    name: "convo_resolution_breaching",
    help: "Conversations not closed past the resolution target.",
    value: |b| Some(b.sla.resolution_breaching as i64),
};
const OLDEST_WAITING: Gauge = Gauge {
    name: "convo_oldest_waiting_seconds",
    help: "Seconds since createdAt of the oldest waiting conversation (0 when none waits).",
    value: |b| Some(b.oldest_waiting_age.unwrap_or(0).max(0)),
};

/// A label value: the status as sent, the full UUID, `unassigned`, or `other` for the bucket
/// of values beyond the bucket limit.
fn label_value(k: &Key) -> String {
    match k {
        Key::Status(s) => s.as_str().to_string(),
        Key::Site(id) | Key::Assignee(Some(id)) => id.to_string(),
        Key::Assignee(None) => "unassigned".into(),
        Key::Overflow => "other".into(),
    }
}

/// The `NAME_name="…"` label of a bucket whose UUID has an alias.
fn name_label(by: By, k: &Key, aliases: &Aliases) -> Option<String> {
    let name = match k {
        Key::Site(id) | Key::Assignee(Some(id)) => aliases.name(id)?,
        _ => return None,
    };
    Some(format!("{}_name=\"{}\"", by.name(), escape(name)))
}

/// Escapes a label value: backslash, double quote and line feed, as the format asks.
pub fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// The summary as exposition text; `aliases` name sites and agents; with a query (`-q`),
/// every sample carries it as a `query` label, so that files of several queries do not
/// collide.
pub fn text(s: &Summary, by: By, aliases: &Aliases, query: Option<&str>) -> String {
    let extra = query
        .map(|q| format!(",query=\"{}\"", escape(q)))
        .unwrap_or_default();
    let mut out = gauges(&[Part { summary: s, extra }], by, aliases);
    if !s.coverage().complete {
        out.push_str(
            "# HELP convo_summary_complete 0 when the walk was cut short (--max, an error): the \
             figures above are partial.\n# TYPE convo_summary_complete gauge\n",
        );
        match query {
            Some(q) => out.push_str(&format!(
                "convo_summary_complete{{query=\"{}\"}} 0\n",
                escape(q)
            )),
            None => out.push_str("convo_summary_complete 0\n"),
        }
    }
    out
}

/// One summary among those [`gauges`] writes, and the labels its samples carry after the
/// grouping's (each `,name="value"`, escaped).
pub struct Part<'a> {
    pub summary: &'a Summary,
    pub extra: String,
}

/// The gauges of several summaries, each metric's `# HELP` and `# TYPE` once and then every
/// part's samples (a metric's samples stay together, as the format asks). A target's gauges
/// are written when some part tracks it, for the parts that do.
pub fn gauges(parts: &[Part<'_>], by: By, aliases: &Aliases) -> String {
    let tracks = |p: &Part<'_>, t: Target| p.summary.sla().is_some_and(|s| s.is_tracked(t));
    let mut list: Vec<(Gauge, Option<Target>)> = vec![(COUNT, None), (WAITING, None)];
    list.extend([
        (IMMINENT, Some(Target::FirstResponse)),
        (BREACHING, Some(Target::FirstResponse)),
        (RES_IMMINENT, Some(Target::Resolution)),
        (RES_BREACHING, Some(Target::Resolution)),
    ]);
    list.push((OLDEST_WAITING, None));
    let buckets: Vec<Vec<Bucket>> = parts.iter().map(|p| p.summary.buckets(by)).collect();
    let mut out = String::new();
    for (g, target) in &list {
        let wanted = |p: &Part<'_>| target.is_none_or(|t| tracks(p, t));
        if !parts.iter().any(wanted) {
            continue;
        }
        out.push_str(&format!(
            "# HELP {} {}\n# TYPE {} gauge\n",
            g.name, g.help, g.name
        ));
        for (p, buckets) in parts.iter().zip(&buckets) {
            if !wanted(p) {
                continue;
            }
            for b in buckets {
                if let Some(v) = (g.value)(b) {
                    let name = name_label(by, &b.key, aliases)
                        .map(|l| format!(",{l}"))
                        .unwrap_or_default();
                    out.push_str(&format!(
                        "{}{{{}=\"{}\"{name}{}}} {v}\n",
                        g.name,
                        by.name(),
                        escape(&label_value(&b.key)),
                        p.extra
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
        assert_eq!(escape("ok"), "ok");
    }
}
