//! Every series `convo exporter` serves, in one table: the exporter's `--help` lists it and
//! docs/exporter.md holds [`markdown`] of it; tests/prometheus_assets.rs fails when the table
//! and what `/metrics` serves differ (names and types), or when the docs' table is not this
//! one.

/// One series.
pub struct Series {
    pub name: &'static str,
    /// `gauge` or `counter`.
    pub kind: &'static str,
    /// Its labels (`by` is the grouping of `--by`: `status`, `site` or `assignee`, with
    /// `site_name` / `assignee_name` when `[aliases]` names the UUID).
    pub labels: &'static str,
    pub meaning: &'static str,
}

const fn s(
    name: &'static str,
    kind: &'static str,
    labels: &'static str,
    meaning: &'static str,
) -> Series {
    Series {
        name,
        kind,
        labels,
        meaning,
    }
}

/// The series, in the order `/metrics` serves them.
pub const SERIES: &[Series] = &[
    s(
        "convo_conversations",
        "gauge",
        "by, view",
        "Conversations counted in the view's walk.",
    ),
    s(
        "convo_conversations_waiting",
        "gauge",
        "by, view",
        "Conversations open and unassigned.",
    ),
    s(
        "convo_conversations_imminent",
        "gauge",
        "by, view",
        "Waiting conversations past warn_at of the first-response target, not past it (with [sla] first_response).",
    ),
    s(
        "convo_conversations_breaching",
        "gauge",
        "by, view",
        "Waiting conversations past the first-response target (with [sla] first_response).",
    ),
    s(
        "convo_resolution_imminent",
        "gauge",
        "by, view",
        "Conversations not closed past warn_at of the resolution target (with [sla] resolution).",
    ),
    s(
        "convo_resolution_breaching",
        "gauge",
        "by, view",
        "Conversations not closed past the resolution target (with [sla] resolution).",
    ),
    s(
        "convo_oldest_waiting_seconds",
        "gauge",
        "by, view",
        "Seconds since createdAt of the oldest waiting conversation, at the walk (0 when none waits).",
    ),
    s(
        "convo_view_matches",
        "gauge",
        "view",
        "Rows that match the view (a lower bound when convo_view_complete is 0).",
    ),
    s(
        "convo_view_complete",
        "gauge",
        "view",
        "1 when the walk read the whole view, 0 when it stopped at its page budget (--max-pages).",
    ),
    s(
        "convo_view_up",
        "gauge",
        "view",
        "1 when the view's last walk succeeded, 0 when it failed (its figures are then the last complete walk's).",
    ),
    s(
        "convo_view_last_complete_walk_timestamp_seconds",
        "gauge",
        "view",
        "When the view's figures were read (Unix time; CONVO_NOW in tests).",
    ),
    s(
        "convo_view_walk_duration_seconds",
        "gauge",
        "view",
        "How long the walk behind the view's figures took.",
    ),
    s(
        "convo_view_figures_age_seconds",
        "gauge",
        "view",
        "Seconds since the view's figures were read, at the scrape: grows while its walks fail or hang.",
    ),
    s(
        "convo_exporter_walks_total",
        "counter",
        "view, result (ok, error)",
        "Walks of each view that ended, by result.",
    ),
    s(
        "convo_api_requests_total",
        "counter",
        "endpoint, status (HTTP status; error: no answer)",
        "Requests sent to the service.",
    ),
    s(
        "convo_api_rate_limited_total",
        "counter",
        "",
        "Answers that were 429 (rate limited).",
    ),
    s(
        "convo_api_budget_remaining",
        "gauge",
        "",
        "Requests left in the service's rate-limit window (once its headers or a 429 told it).",
    ),
    s(
        "convo_api_budget_limit",
        "gauge",
        "",
        "Requests the service allows per window (once known).",
    ),
    s(
        "convo_exporter_rounds_total",
        "counter",
        "",
        "Rounds over every view that ended.",
    ),
    s(
        "convo_exporter_round_duration_seconds",
        "gauge",
        "",
        "How long the last round over every view took.",
    ),
    s(
        "convo_exporter_last_round_timestamp_seconds",
        "gauge",
        "",
        "When the last round over every view ended (Unix time).",
    ),
    s(
        "convo_exporter_round_requests",
        "gauge",
        "",
        "Requests the last round over every view sent (its cost: times 60 / interval a minute).",
    ),
    s(
        "convo_sla_target_seconds",
        "gauge",
        "target (first_response, resolution)",
        "The config's response-time targets ([sla], sites without an override).",
    ),
    s(
        "convo_exporter_interval_seconds",
        "gauge",
        "",
        "How often every view is walked (--interval).",
    ),
    s(
        "convo_build_info",
        "gauge",
        "version",
        "convo's version (always 1).",
    ),
];

/// The table as Markdown (docs/exporter.md holds it verbatim).
pub fn markdown() -> String {
    let mut out = String::from("| Series | Type | Labels | Meaning |\n|---|---|---|---|\n");
    for x in SERIES {
        let labels = if x.labels.is_empty() { "—" } else { x.labels };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            x.name, x.kind, labels, x.meaning
        ));
    }
    out
}

/// The list `convo exporter --help` ends with.
pub fn help() -> String {
    let mut out = String::from(
        "Series served on /metrics (docs/exporter.md explains them; \"by\" is the --by \
         label):\n",
    );
    for x in SERIES {
        let labels = if x.labels.is_empty() {
            String::new()
        } else {
            format!(" {{{}}}", x.labels)
        };
        out.push_str(&format!("  {} ({}){labels}\n", x.name, x.kind));
    }
    out
}
