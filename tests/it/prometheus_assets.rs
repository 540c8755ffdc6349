//! The Prometheus set-up in assets/prometheus/ against what `convo exporter` serves: every
//! query of the Grafana dashboard and every alert rule names a series the exporter serves (the
//! rules' own behaviour is `promtool test rules`, run by .ci/run; a real Prometheus runs them
//! in tests/prometheus_real.rs).

use crate::common;

use common::Demo;
use common::exporter::{Exporter, config_file};
use convo::demo::Faults;

/// Both targets set, so that every gauge is served.
const CONFIG: &str = "[sla]\nfirst_response = \"40m\"\nresolution = \"60d\"\n\n\
[[views]]\nname = \"Pending\"\nquery = \"status:pending\"\n";

/// The series names (`convo_…`) an expression names.
fn series_named(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(i) = rest.find("convo_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        out.push(tail[..end].to_string());
        rest = &tail[end..];
    }
    out
}

/// Every PromQL expression of the Grafana dashboard: panel targets and variable queries.
fn dashboard_exprs(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("expr" | "definition", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => dashboard_exprs(x, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| dashboard_exprs(x, out)),
        _ => {}
    }
}

#[test]
fn the_dashboard_and_the_rules_name_only_series_the_exporter_serves() {
    let d = Demo::start(300, 10, Faults::default());
    let home = tempfile::tempdir().unwrap();
    let cfg = config_file(home.path(), CONFIG);
    let e = Exporter::start(&d, home.path(), Some(&cfg), &["--interval", "1h"]);
    let text = e.metrics_when_read(3);
    let served: std::collections::HashSet<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let root = env!("CARGO_MANIFEST_DIR");
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/assets/prometheus/grafana-dashboard.json"))
            .unwrap(),
    )
    .unwrap();
    let mut exprs = Vec::new();
    dashboard_exprs(&dashboard, &mut exprs);
    assert!(exprs.len() >= 10, "{exprs:?}");
    let rules =
        std::fs::read_to_string(format!("{root}/assets/prometheus/convo-rules.yml")).unwrap();
    let rule_exprs: Vec<String> = rules
        .split("expr:")
        .skip(1)
        .map(|r| r.split("for:").next().unwrap().to_string())
        .collect();
    assert_eq!(rule_exprs.len(), 4, "{rules}");
    for expr in exprs.iter().chain(&rule_exprs) {
        let names = series_named(expr);
        assert!(
            !names.is_empty() || expr.contains("up{job=\"convo\"}"),
            "names no series of the exporter: {expr}"
        );
        for n in names {
            assert!(
                served.contains(n.as_str()),
                "{n} (in {expr}) is not served:\n{text}"
            );
        }
    }
}

/// Issue 40, item 6: the exporter's table of series (`convo::exporter::series`) is what
/// `/metrics` serves, name and type, every series served once everything is known (both
/// targets, the service's budget, a round ended); docs/exporter.md holds that table verbatim
/// and `convo exporter --help` lists every name.
#[test]
fn the_series_table_is_what_the_exporter_serves_and_what_the_docs_say() {
    use convo::demo::{DemoOptions, LimitHeaders, RequestBudget};
    use convo::exporter::series::{SERIES, markdown};
    let d = Demo::with(DemoOptions {
        conversations: 300,
        visitors: 10,
        seed: 7,
        budget: Some(RequestBudget {
            limit: 1000,
            window: std::time::Duration::from_secs(60),
            headers: LimitHeaders::Ietf,
        }),
        ..DemoOptions::default()
    });
    let home = tempfile::tempdir().unwrap();
    let cfg = config_file(home.path(), CONFIG);
    let e = Exporter::start(&d, home.path(), Some(&cfg), &["--interval", "1h"]);
    e.metrics_when_read(3);
    let t0 = std::time::Instant::now();
    let text = loop {
        let (_, text) = e.get("/metrics");
        if text.contains("\nconvo_exporter_round_requests ") {
            break text;
        }
        assert!(t0.elapsed() < std::time::Duration::from_secs(30), "{text}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let served: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap().to_string(), w.next().unwrap().to_string())
        })
        .collect();
    let table: Vec<(String, String)> = SERIES
        .iter()
        .map(|s| (s.name.to_string(), s.kind.to_string()))
        .collect();
    assert_eq!(
        served, table,
        "served (left) and the table (right) differ:\n{text}"
    );

    let root = env!("CARGO_MANIFEST_DIR");
    let docs = std::fs::read_to_string(format!("{root}/docs/exporter.md")).unwrap();
    assert!(
        docs.contains(&markdown()),
        "docs/exporter.md does not hold the series table as the code has it:\n{}",
        markdown()
    );
    let help = common::convo_cmd(home.path())
        .args(["exporter", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for s in SERIES {
        assert!(help.contains(s.name), "{} not in --help:\n{help}", s.name);
    }
}

/// Issue 40, item 6: the dashboard shows waits and ages as durations (not raw seconds), up and
/// complete as words, and its split of conversations keeps whatever label `--by` gives.
#[test]
fn the_dashboard_shows_durations_words_and_any_split() {
    let root = env!("CARGO_MANIFEST_DIR");
    let d: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/assets/prometheus/grafana-dashboard.json"))
            .unwrap(),
    )
    .unwrap();
    let panels = d["panels"].as_array().unwrap();
    let exprs = |p: &serde_json::Value| -> String {
        p["targets"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|x| x["expr"].as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    };
    for p in panels {
        let e = exprs(p);
        if p["type"] == "timeseries"
            && (e.contains("oldest_waiting_seconds") || e.contains("figures_age_seconds"))
        {
            assert_eq!(p["fieldConfig"]["defaults"]["unit"], "dtdurations", "{p}");
        }
        if e.contains("convo_conversations{") {
            assert!(
                !e.contains("by (view, status)"),
                "loses the --by split: {e}"
            );
        }
    }
    let table = panels.iter().find(|p| p["type"] == "table").unwrap();
    let overrides = table["fieldConfig"]["overrides"].to_string();
    for want in [
        "\"oldest waiting\"",
        "dtdurations",
        "\"failing\"",
        "\"complete\"",
    ] {
        assert!(overrides.contains(want), "{want} not in {overrides}");
    }
}
