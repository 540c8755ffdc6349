//! `convo summary conversations` as a user runs it: the real binary against a demo server on a
//! random port, its arithmetic compared with an independent count over the server's dataset.

mod common;

use std::collections::HashMap;

use common::{Demo, convo_cmd};
use convo::demo::{DemoConversation, Faults, dataset};
use serde_json::Value;

const N: usize = 1500;
const NOW: &str = "2026-11-22T12:30:00Z";

fn run(d: &Demo, tmp: &tempfile::TempDir, args: &[&str]) -> std::process::Output {
    convo_cmd(tmp.path())
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_NOW", NOW)
        .arg("--base-url")
        .arg(d.url())
        .args(args)
        .output()
        .expect("runs")
}

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn summary_json(d: &Demo, tmp: &tempfile::TempDir, extra: &[&str]) -> Value {
    let mut args = vec!["summary", "conversations", "--format", "json"];
    args.extend_from_slice(extra);
    let o = run(d, tmp, &args);
    assert!(o.status.success(), "{}", err(&o));
    serde_json::from_str(&out(&o)).expect("one JSON object")
}

fn now_secs() -> i64 {
    NOW.parse::<jiff::Timestamp>().unwrap().as_second()
}

/// The grouping key of a dataset row as the JSON names it (`null` for unassigned).
fn key_of(c: &DemoConversation, by: &str) -> Value {
    match by {
        "status" => Value::String(c.status.to_string()),
        "site" => Value::String(c.site_id.to_string()),
        _ => c
            .assignee_id
            .map_or(Value::Null, |a| Value::String(a.to_string())),
    }
}

#[test]
fn every_grouping_matches_an_independent_count_of_the_dataset() {
    let d = Demo::start(N, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let rows = dataset(7, N, 40).conversations;
    let now = now_secs();
    let stale_cutoff = now - 2 * 3600;
    for by in ["status", "site", "assignee"] {
        let v = summary_json(&d, &tmp, &["--by", by, "--limit", "100"]);
        assert_eq!(v["by"], by);
        assert_eq!(v["loaded"], N as u64);
        assert_eq!(v["complete"], true);
        assert!(v["coverage"].as_str().unwrap().starts_with("all 1,500"));
        assert_eq!(v["stale_after_secs"], 7200);
        // counted here, from the dataset the server serves
        #[derive(Default, Debug, PartialEq)]
        struct Want {
            count: u64,
            oldest: Option<i64>,
            stale: u64,
            waiting: u64,
            oldest_waiting: Option<i64>,
        }
        let mut want: HashMap<String, Want> = HashMap::new();
        for c in &rows {
            let w = want.entry(key_of(c, by).to_string()).or_default();
            let age = now - c.created_at.as_second();
            w.count += 1;
            w.oldest = Some(w.oldest.map_or(age, |o| o.max(age)));
            if c.status != "closed" && c.updated_at.as_second() < stale_cutoff {
                w.stale += 1;
            }
            if c.status == "open" && c.assignee_id.is_none() {
                w.waiting += 1;
                w.oldest_waiting = Some(w.oldest_waiting.map_or(age, |o| o.max(age)));
            }
        }
        let buckets = v["buckets"].as_array().unwrap();
        let got: HashMap<String, Want> = buckets
            .iter()
            .map(|b| {
                (
                    b["key"].to_string(),
                    Want {
                        count: b["count"].as_u64().unwrap(),
                        oldest: b["oldest_age_secs"].as_i64(),
                        stale: b["stale"].as_u64().unwrap(),
                        waiting: b["waiting"].as_u64().unwrap(),
                        oldest_waiting: b["oldest_waiting_age_secs"].as_i64(),
                    },
                )
            })
            .collect();
        assert_eq!(got, want, "by {by}");
        let counts: Vec<u64> = buckets
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .collect();
        assert!(
            counts.windows(2).all(|w| w[0] >= w[1]),
            "sorted by count: {counts:?}"
        );
        let shares: f64 = buckets
            .iter()
            .map(|b| b["share_pct"].as_f64().unwrap())
            .sum();
        assert!((shares - 100.0).abs() < 1e-6, "{shares}");
        // the median lies between the youngest and the oldest age of the bucket
        for b in buckets {
            let m = b["median_age_secs"].as_i64().unwrap();
            assert!(m >= 0 && m <= b["oldest_age_secs"].as_i64().unwrap(), "{b}");
        }
        let waiting: u64 = want.values().map(|w| w.waiting).sum();
        assert_eq!(v["total"]["waiting"], waiting);
        assert_eq!(v["total"]["count"], N as u64);
    }
}

/// Each bucket's `filter`, given to `convo list`, lists exactly the rows of that bucket.
#[test]
fn a_bucket_filter_lists_exactly_its_bucket() {
    let d = Demo::start(N, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    for by in ["site", "assignee"] {
        let v = summary_json(&d, &tmp, &["--by", by, "--status", "open"]);
        assert_eq!(v["filters"]["status"], "open");
        for b in v["buckets"].as_array().unwrap() {
            let filter = b["filter"].as_object().expect("every bucket has a filter");
            assert_eq!(filter["status"], "open", "the walk's own filter is kept");
            let mut args = vec![
                "list".to_string(),
                "conversations".into(),
                "--all".into(),
                "--format".into(),
                "jsonl".into(),
            ];
            for (k, val) in filter {
                args.push(format!("--{}", k.replace('_', "-")));
                args.push(val.as_str().unwrap().to_string());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = run(&d, &tmp, &args);
            assert!(o.status.success(), "{args:?}: {}", err(&o));
            let listed = out(&o).lines().count() as u64;
            assert_eq!(listed, b["count"].as_u64().unwrap(), "{by} {filter:?}");
        }
    }
}

#[test]
fn max_makes_a_partial_summary_that_claims_no_total() {
    let d = Demo::start(N, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let o = run(
        &d,
        &tmp,
        &[
            "summary",
            "conversations",
            "--max",
            "120",
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let v: Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["loaded"], 120);
    assert_eq!(v["complete"], false);
    assert_eq!(v["coverage"], "120 of ≥120 loaded; more available");
    assert!(err(&o).contains("partial"), "{}", err(&o));
    // a table says it too
    let o = run(&d, &tmp, &["summary", "conversations", "--max", "120"]);
    assert!(
        out(&o).contains("120 of ≥120 loaded; more available"),
        "{}",
        out(&o)
    );
    assert!(!out(&o).contains("all 1"), "{}", out(&o));
}

#[test]
fn table_and_csv_formats() {
    let d = Demo::start(300, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&d, &tmp, &["summary", "conversations", "--by", "status"]);
    assert!(o.status.success(), "{}", err(&o));
    let t = out(&o);
    for word in [
        "open",
        "pending",
        "closed",
        "all 300 conversations",
        "waiting",
    ] {
        assert!(t.contains(word), "{word}: {t}");
    }
    let o = run(
        &d,
        &tmp,
        &[
            "summary",
            "conversations",
            "--by",
            "status",
            "--format",
            "csv",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let csv = out(&o);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("key,label,count,share_pct,"), "{csv}");
    assert_eq!(lines.len(), 4, "a header and three statuses: {csv}");
    let total: u64 = lines[1..]
        .iter()
        .map(|l| l.split(',').nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 300);
}

#[test]
fn stale_after_comes_from_the_config_and_the_flag_wins() {
    let d = Demo::start(300, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("convo.toml");
    std::fs::write(&cfg, "stale_after = \"30m\"\n").unwrap();
    let with_cfg = |extra: &[&str]| {
        let mut args = vec![
            "--config",
            cfg.to_str().unwrap(),
            "summary",
            "conversations",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let o = run(&d, &tmp, &args);
        assert!(o.status.success(), "{}", err(&o));
        serde_json::from_str::<Value>(&out(&o)).unwrap()
    };
    let v = with_cfg(&[]);
    assert_eq!(v["stale_after_secs"], 1800);
    let short = v["total"]["stale"].as_u64().unwrap();
    let v = with_cfg(&["--stale-after", "1d"]);
    assert_eq!(v["stale_after_secs"], 86_400);
    assert!(
        v["total"]["stale"].as_u64().unwrap() < short,
        "fewer are stale after a day"
    );
    let o = run(
        &d,
        &tmp,
        &["summary", "conversations", "--stale-after", "soon"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("not a duration"), "{}", err(&o));
}

#[test]
fn a_service_dying_mid_walk_prints_what_was_counted_and_fails() {
    let d = Demo::start(
        N,
        40,
        Faults {
            fail_after: Some(3),
            ..Faults::default()
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let o = run(
        &d,
        &tmp,
        &[
            "summary",
            "conversations",
            "--limit",
            "100",
            "--format",
            "json",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    let v: Value = serde_json::from_str(&out(&o)).expect("the partial summary");
    assert_eq!(v["complete"], false);
    assert_eq!(v["loaded"], 300, "three pages, then the failure");
    assert!(err(&o).contains("partial (the walk failed)"), "{}", err(&o));
}

#[test]
fn bad_filters_are_refused_before_any_request() {
    let d = Demo::start(10, 5, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let before = d.requests();
    let o = run(
        &d,
        &tmp,
        &["summary", "conversations", "--site-id", "not-a-uuid"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("site"), "{}", err(&o));
    assert_eq!(d.requests(), before);
}

#[test]
fn csv_bucket_named_by_the_server_with_a_formula_gets_a_quote() {
    let d = Demo::start(
        300,
        40,
        Faults {
            hostile: true,
            ..Faults::default()
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let o = run(
        &d,
        &tmp,
        &[
            "summary",
            "conversations",
            "--by",
            "status",
            "--format",
            "csv",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let rows = common::parse_csv(&out(&o));
    let formula = convo::demo::data::HOSTILE_STATUS;
    let bucket = rows
        .iter()
        .find(|r| r[0].contains(formula))
        .unwrap_or_else(|| panic!("a bucket for the hostile status: {rows:?}"));
    assert_eq!(bucket[0], format!("'{formula}"));
    assert!(bucket[1].starts_with('\''), "the label too: {bucket:?}");
    // 300 conversations, every 13th hostile: 23.
    assert_eq!(bucket[2], "23");
    for r in &rows {
        for cell in r {
            assert!(!cell.starts_with(['=', '+', '-', '@', '\t', '\r']), "{r:?}");
        }
    }
}
