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
    assert_eq!(rule_exprs.len(), 6, "{rules}");
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
