//! `convo summary --views`: every view one row, in each format, against a demo server; each
//! view's count compared with `convo summary conversations -q` of its query on the same data.

use crate::common;

use common::{Demo, assert_has, assert_has_all, convo_cmd, parse_csv};
use convo::demo::Faults;
use serde_json::Value;

const NOW: &str = "2026-11-22T12:30:00Z";

const CONFIG: &str = "[sla]\nfirst_response = \"40m\"\nwarn_at = 0.5\n\n\
[[views]]\nname = \"Pending\"\nquery = \"status:pending\"\n\n\
[[views]]\nname = \"Old open\"\nstatus = \"open\"\n\n\
[[views]]\nname = \"Mine\"\nquery = \"assignee:me\"\n\n\
[[views]]\nname = \"Visitors\"\ntab = \"visitors\"\n";

fn run(d: &Demo, home: &tempfile::TempDir, args: &[&str]) -> std::process::Output {
    let cfg = common::file(home.path(), "convo.toml", CONFIG);
    convo_cmd(home.path())
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_NOW", NOW)
        .args(["--config", cfg.to_str().unwrap(), "--base-url", &d.url()])
        .args(args)
        .output()
        .unwrap()
}

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn views_json(d: &Demo, home: &tempfile::TempDir, extra: &[&str]) -> (Vec<Value>, Option<i32>) {
    let mut args = vec!["summary", "--views", "--format", "json"];
    args.extend_from_slice(extra);
    let o = run(d, home, &args);
    let v: Value = serde_json::from_str(&out(&o)).unwrap_or_else(|e| panic!("{e}: {}", err(&o)));
    (v["views"].as_array().unwrap().clone(), o.status.code())
}

#[test]
fn every_view_is_a_row_counted_as_summary_q_counts_its_query() {
    let d = Demo::start(600, 30, Faults::default());
    let home = tempfile::tempdir().unwrap();
    let (views, code) = views_json(&d, &home, &[]);
    let names: Vec<&str> = views.iter().map(|v| v["view"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "Unassigned open",
            "Breaching",
            "Pending",
            "Old open",
            "Mine",
            "Visitors"
        ]
    );
    for v in &views[..4] {
        let q = v["query"].as_str().unwrap();
        let o = run(
            &d,
            &home,
            &[
                "summary",
                "conversations",
                "-q",
                q,
                "--sla",
                "--format",
                "json",
            ],
        );
        assert!(o.status.success(), "{q}: {}", err(&o));
        let s: Value = serde_json::from_str(&out(&o)).unwrap();
        let total = &s["total"];
        assert_eq!(v["matches"], total["count"], "{}: {v}\n{s}", v["view"]);
        assert_eq!(v["waiting"], total["waiting"], "{}", v["view"]);
        assert_eq!(v["imminent"], total["imminent"], "{}", v["view"]);
        assert_eq!(v["breaching"], total["breaching"], "{}", v["view"]);
        assert_eq!(v["complete"], Value::Bool(true));
        assert_eq!(v["error"], Value::Null);
    }
    assert!(views[1]["breaching"].as_u64().unwrap() > 0, "{}", views[1]);
    // `me` is not set in this config: that view fails, the others are there; exit 5.
    assert_has(views[4]["error"].as_str().unwrap(), "me");
    assert!(views[4].get("matches").is_none(), "{}", views[4]);
    assert_eq!(views[5]["matches"], 30);
    assert_eq!(views[5]["waiting"], Value::Null);
    assert_eq!(code, Some(5));
}

#[test]
fn table_and_csv_hold_the_same_rows_and_the_failure() {
    let d = Demo::start(300, 10, Faults::default());
    let home = tempfile::tempdir().unwrap();
    let o = run(&d, &home, &["summary", "--views"]);
    assert_eq!(o.status.code(), Some(5), "{}", err(&o));
    let table = out(&o);
    let lines: Vec<&str> = table.lines().collect();
    assert_has_all(
        lines[0],
        &[
            "VIEW",
            "MATCHES",
            "WAITING",
            "OLDEST WAITING",
            "IMMINENT",
            "BREACHING",
            "READ",
            "ERROR",
        ],
    );
    assert_eq!(lines.len(), 7, "{table}");
    assert_has(lines[5], "Mine");
    assert_has(lines[5], "bad query");
    assert_has(&err(&o), "1 of 6 views could not be read (\"Mine\")");
    let o = run(&d, &home, &["summary", "--views", "--format", "csv"]);
    let rows = parse_csv(&out(&o));
    assert_eq!(
        rows[0],
        [
            "view",
            "matches",
            "waiting",
            "oldest_waiting_secs",
            "imminent",
            "breaching",
            "read_at",
            "error"
        ]
    );
    assert_eq!(rows.len(), 7);
    let (json, _) = views_json(&d, &home, &[]);
    for (row, v) in rows[1..].iter().zip(&json) {
        assert_eq!(row[0], v["view"].as_str().unwrap());
        let n = |x: &Value| x.as_u64().map(|n| n.to_string()).unwrap_or_default();
        assert_eq!(row[1], n(&v["matches"]), "{row:?}");
        assert_eq!(row[2], n(&v["waiting"]), "{row:?}");
        assert_eq!(row[5], n(&v["breaching"]), "{row:?}");
        assert_eq!(row[6], NOW);
    }
    assert!(rows[5][7].contains("bad query"), "{:?}", rows[5]);
}

#[test]
fn past_the_page_budget_a_count_is_at_least_n() {
    let d = Demo::start(300, 40, Faults::default());
    let home = tempfile::tempdir().unwrap();
    let budget = ["--max-pages", "1", "--limit", "10"];
    let (views, _) = views_json(&d, &home, &budget);
    let pending = &views[2];
    assert_eq!(pending["matches"], 10, "{pending}");
    assert_eq!(pending["complete"], Value::Bool(false));
    let mut args = vec!["summary", "--views"];
    args.extend_from_slice(&budget);
    let table = out(&run(&d, &home, &args));
    let row = table.lines().find(|l| l.starts_with("Pending")).unwrap();
    assert_has(row, "≥ 10");
    args.extend_from_slice(&["--format", "csv"]);
    let csv = parse_csv(&out(&run(&d, &home, &args)));
    assert_eq!(csv[3][1], ">=10");
    args.truncate(args.len() - 2);
    args.extend_from_slice(&["--format", "prometheus"]);
    let prom = out(&run(&d, &home, &args));
    assert_has(&prom, "convo_view_complete{view=\"Pending\"} 0");
    assert_has(&prom, "convo_view_matches{view=\"Pending\"} 10");
}

#[test]
fn prometheus_puts_a_view_label_on_every_sample() {
    let d = Demo::start(300, 10, Faults::default());
    let home = tempfile::tempdir().unwrap();
    let o = run(
        &d,
        &home,
        &[
            "summary",
            "--views",
            "--format",
            "prometheus",
            "--by",
            "site",
        ],
    );
    let text = out(&o);
    let samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(samples.len() > 20, "{text}");
    for s in &samples {
        assert_has(s, "view=\"");
    }
    assert_has(&text, "convo_view_up{view=\"Mine\"} 0");
    assert_has(&text, "convo_view_up{view=\"Pending\"} 1");
    assert_has(&text, "convo_conversations_waiting{site=\"");
    // The failed view has no figures (it never had any), only its up 0.
    assert!(
        !text.contains("convo_view_matches{view=\"Mine\"}"),
        "{text}"
    );
}
