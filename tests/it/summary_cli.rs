//! `convo summary conversations` as a user runs it: the real binary against a demo server on a
//! random port, its arithmetic compared with an independent count over the server's dataset.

use crate::common;

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

/// `convo summary conversations LINE` (its words).
fn summarize(d: &Demo, tmp: &tempfile::TempDir, line: &str) -> std::process::Output {
    let words = format!("summary conversations {line}");
    run(d, tmp, &common::words(&words))
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
    let o = summarize(&d, &tmp, "--max 120 --format json");
    assert!(o.status.success(), "{}", err(&o));
    let v: Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["loaded"], 120);
    assert_eq!(v["complete"], false);
    assert_eq!(v["coverage"], "120 of ≥120 loaded; more available");
    common::assert_has(&err(&o), "partial");
    // a table says it too
    let o = summarize(&d, &tmp, "--max 120");
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
    let o = summarize(&d, &tmp, "--by status");
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
    let o = summarize(&d, &tmp, "--by status --format csv");
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
    let cfg = common::file(tmp.path(), "convo.toml", "stale_after = \"30m\"\n");
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
    let o = summarize(&d, &tmp, "--stale-after soon");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    common::assert_has(&err(&o), "not a duration");
}

#[test]
fn a_service_dying_mid_walk_prints_what_was_counted_and_fails() {
    let d = Demo::faulty(N, 40, |f| f.fail_after = Some(3));
    let tmp = tempfile::tempdir().unwrap();
    let o = summarize(&d, &tmp, "--limit 100 --format json");
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    let v: Value = serde_json::from_str(&out(&o)).expect("the partial summary");
    assert_eq!(v["complete"], false);
    assert_eq!(v["loaded"], 300, "three pages, then the failure");
    common::assert_has(&err(&o), "partial (the walk failed)");
}

#[test]
fn bad_filters_are_refused_before_any_request() {
    let d = Demo::start(10, 5, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let before = d.requests();
    let o = summarize(&d, &tmp, "--site-id not-a-uuid");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    common::assert_has(&err(&o), "site");
    assert_eq!(d.requests(), before);
}

#[test]
fn csv_bucket_named_by_the_server_with_a_formula_gets_a_quote() {
    let d = Demo::faulty(300, 40, |f| f.hostile = true);
    let tmp = tempfile::tempdir().unwrap();
    let o = summarize(&d, &tmp, "--by status --format csv");
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

// ---------------------------------------------------------------------------------------------
// Response-time targets (issue 13): --sla, --format prometheus, --watch
// ---------------------------------------------------------------------------------------------

/// Targets measured against the demo data at [`NOW`], so that every state occurs: its live
/// queue waits 30 to 50 minutes by then (imminent from 20m, breaching from 40m), and its 90
/// days of history are not closed for up to 90 days (resolution).
const SLA: &str = "[sla]\nfirst_response = \"40m\"\nresolution = \"60d\"\nwarn_at = 0.5\n";

/// A config file with `text`; returns its path.
fn config_file(tmp: &tempfile::TempDir, text: &str) -> String {
    let cfg = common::file(tmp.path(), "sla.toml", text);
    cfg.to_str().unwrap().to_string()
}

fn run_with(d: &Demo, tmp: &tempfile::TempDir, cfg: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec!["--config", cfg, "summary", "conversations"];
    all.extend_from_slice(args);
    run(d, tmp, &all)
}

/// The state of an age against a target, counted here without convo's code.
fn state(age: i64, target: i64, warn_at: f64) -> &'static str {
    if age >= target {
        "breaching"
    } else if age as f64 >= warn_at * target as f64 {
        "imminent"
    } else {
        "ok"
    }
}

#[test]
fn sla_counts_match_an_independent_count_per_bucket_with_a_site_override() {
    let d = Demo::start(N, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let data = dataset(7, N, 40);
    let special = data.sites[0];
    let cfg = config_file(
        &tmp,
        &format!("{SLA}[sla.sites.\"{special}\"]\nfirst_response = \"80m\"\n"),
    );
    let o = run_with(
        &d,
        &tmp,
        &cfg,
        &["--by", "site", "--sla", "--format", "json"],
    );
    assert!(o.status.success(), "{}", err(&o));
    let v: Value = serde_json::from_str(&out(&o)).unwrap();
    let now = now_secs();
    let day = 86_400;
    #[derive(Default, Debug, PartialEq)]
    struct Want {
        imminent: u64,
        breaching: u64,
        longest_overdue: Option<i64>,
        res_imminent: u64,
        res_breaching: u64,
    }
    let mut want: HashMap<String, Want> = HashMap::new();
    let mut total = Want::default();
    for c in &data.conversations {
        let age = now - c.created_at.as_second();
        let first = if c.site_id == special {
            80 * 60
        } else {
            40 * 60
        };
        let add = |w: &mut Want| {
            if c.status == "open" && c.assignee_id.is_none() {
                match state(age, first, 0.5) {
                    "imminent" => w.imminent += 1,
                    "breaching" => {
                        w.breaching += 1;
                        w.longest_overdue = w.longest_overdue.max(Some(age - first));
                    }
                    _ => {}
                }
            }
            if c.status != "closed" {
                match state(age, 60 * day, 0.5) {
                    "imminent" => w.res_imminent += 1,
                    "breaching" => w.res_breaching += 1,
                    _ => {}
                }
            }
        };
        add(want.entry(c.site_id.to_string()).or_default());
        add(&mut total);
    }
    let got = |b: &Value| Want {
        imminent: b["imminent"].as_u64().unwrap(),
        breaching: b["breaching"].as_u64().unwrap(),
        longest_overdue: b["longest_overdue_secs"].as_i64(),
        res_imminent: b["resolution_imminent"].as_u64().unwrap(),
        res_breaching: b["resolution_breaching"].as_u64().unwrap(),
    };
    let buckets = v["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), want.len());
    for b in buckets {
        let key = b["key"].as_str().unwrap();
        assert_eq!(got(b), want[key], "site {key}");
    }
    assert_eq!(got(&v["total"]), total);
    assert!(total.imminent > 0 && total.breaching > 0 && total.res_imminent > 0);
    assert_eq!(v["targets"]["first_response_secs"], 40 * 60);
    // The wait-time bars hold every waiting row once.
    let waits: u64 = v["total"]["waits"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(waits, v["total"]["waiting"].as_u64().unwrap());

    // The table and CSV carry the same counts.
    let o = run_with(&d, &tmp, &cfg, &["--by", "site", "--sla"]);
    let t = out(&o);
    assert!(
        t.lines()
            .next()
            .unwrap()
            .contains("IMMINENT  BREACHING  LONGEST OVERDUE  RES IMMINENT  RES BREACHING"),
        "{t}"
    );
    common::assert_has(
        &t,
        "targets: first response 40m, resolution 60d, imminent at 50 %",
    );
    let o = run_with(
        &d,
        &tmp,
        &cfg,
        &["--by", "site", "--sla", "--format", "csv"],
    );
    let c = out(&o);
    let header: Vec<&str> = c.lines().next().unwrap().split(',').collect();
    assert!(
        header.ends_with(&[
            "imminent",
            "breaching",
            "longest_overdue_secs",
            "resolution_imminent",
            "resolution_breaching"
        ]),
        "{c}"
    );
    let last: Vec<&str> = c.lines().last().unwrap().split(',').collect();
    assert_eq!(last[..2], ["", "total"], "{c}");
    assert_eq!(last[last.len() - 4], total.breaching.to_string(), "{c}");

    // Without targets in the config, --sla is refused with what to do.
    let none = config_file(&tmp, "");
    let o = run_with(&d, &tmp, &none, &["--sla"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("add first_response or resolution"),
        "{}",
        err(&o)
    );
}

/// Parses exposition text with the Prometheus Python client's parser (installed by .ci/run):
/// `[(family, type, [(sample name, labels, value)])]` as JSON.
fn prometheus_parse(text: &str) -> Value {
    use std::io::Write;
    let script = "import sys, json\n\
from prometheus_client.parser import text_string_to_metric_families\n\
fams = [{'name': f.name, 'type': f.type, 'help': f.documentation,\n\
         'samples': [{'name': s.name, 'labels': s.labels, 'value': s.value} for s in f.samples]}\n\
        for f in text_string_to_metric_families(sys.stdin.read())]\n\
print(json.dumps(fams))\n";
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 (with prometheus_client: pip install prometheus_client, as .ci/run does)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "the Prometheus parser refused the text (or is missing: pip install prometheus_client):\n{}\n{text}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn prometheus_output_passes_the_prometheus_parser_and_matches_the_json() {
    if !common::have(&common::PROMETHEUS_CLIENT) {
        return;
    }
    let d = Demo::start(N, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config_file(&tmp, SLA);
    for by in ["assignee", "status", "site"] {
        let o = run_with(&d, &tmp, &cfg, &["--by", by, "--format", "prometheus"]);
        assert!(o.status.success(), "{}", err(&o));
        let text = out(&o);
        let fams = prometheus_parse(&text);
        let names: Vec<&str> = fams
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "convo_conversations",
                "convo_conversations_waiting",
                "convo_conversations_imminent",
                "convo_conversations_breaching",
                "convo_resolution_imminent",
                "convo_resolution_breaching",
                "convo_oldest_waiting_seconds"
            ],
            "{text}"
        );
        let v = summary_json(&d, &tmp, &["--config", &cfg, "--by", by, "--sla"]);
        let field = |metric: &str| match metric {
            "convo_conversations" => "count",
            "convo_conversations_waiting" => "waiting",
            "convo_conversations_imminent" => "imminent",
            "convo_conversations_breaching" => "breaching",
            "convo_resolution_imminent" => "resolution_imminent",
            "convo_resolution_breaching" => "resolution_breaching",
            _ => "oldest_waiting_age_secs",
        };
        for f in fams.as_array().unwrap() {
            assert_eq!(f["type"], "gauge");
            assert!(!f["help"].as_str().unwrap().is_empty());
            let samples = f["samples"].as_array().unwrap();
            assert_eq!(
                samples.len(),
                v["buckets"].as_array().unwrap().len(),
                "one sample per bucket, no total"
            );
            for (s, b) in samples.iter().zip(v["buckets"].as_array().unwrap()) {
                let labels = s["labels"].as_object().unwrap();
                assert_eq!(labels.len(), 1, "{s}");
                let label = labels[by].as_str().unwrap();
                let want_label = b["key"].as_str().unwrap_or("unassigned");
                assert_eq!(label, want_label);
                let want = b[field(f["name"].as_str().unwrap())]
                    .as_f64()
                    .unwrap_or(0.0);
                assert_eq!(s["value"].as_f64().unwrap(), want, "{} {label}", f["name"]);
            }
        }
        if by == "assignee" {
            common::assert_has(&text, "{assignee=\"unassigned\"}");
        }
        assert!(!text.contains("convo_summary_complete"), "{text}");
    }
    // Cut short: still valid, and says so.
    let o = run_with(&d, &tmp, &cfg, &["--format", "prometheus", "--max", "10"]);
    let fams = prometheus_parse(&out(&o));
    let last = fams.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["name"], "convo_summary_complete");
    assert_eq!(last["samples"][0]["value"], 0.0);
    // Without targets: the counts only.
    let none = config_file(&tmp, "");
    let o = run_with(&d, &tmp, &none, &["--format", "prometheus"]);
    let fams = prometheus_parse(&out(&o));
    assert_eq!(fams.as_array().unwrap().len(), 3, "{}", out(&o));
}

#[test]
fn watch_prints_one_json_line_per_sample_when_stdout_is_not_a_terminal() {
    use std::io::{BufRead, BufReader};
    let d = Demo::start(300, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config_file(&tmp, SLA);
    let bin = assert_cmd::cargo::cargo_bin("convo");
    let mut child = std::process::Command::new(bin)
        .env_clear()
        .env("HOME", tmp.path())
        .env("CONVO_LOG_FILE", tmp.path().join("convo.log"))
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_NOW", NOW)
        .args([
            "--base-url",
            &d.url(),
            "--config",
            &cfg,
            "summary",
            "conversations",
            "--sla",
            "--watch",
            "1s",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for _ in 0..2 {
        let line = lines.next().expect("a sample").unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(v["loaded"], 300);
        assert!(v["total"]["breaching"].is_u64(), "{line}");
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_walk_the_service_cuts_short_prints_what_it_counted_as_partial_and_exits_5() {
    let d = Demo::faulty(300, 40, |f| f.cursor_loop = true);
    let tmp = tempfile::tempdir().unwrap();
    let o = summarize(&d, &tmp, "--limit 50 --format json");
    common::assert_has(&err(&o), "partial");
    let v: Value = serde_json::from_str(&out(&o)).expect("the summary is printed");
    assert_eq!(v["loaded"], 100, "two pages counted");
    assert_eq!(v["complete"], false);
    let e = err(&o);
    common::assert_has(&e, "repeated a cursor");
    common::assert_has(&e, "partial (the service ended the walk early)");
    common::assert_has(&e, "the list is incomplete");
}

/// Every `convo summary` run keeps a sample of its counts in the local store, under the key the
/// TUI's trend reads for the same filter (one per run; the TUI draws the last 24 hours).
#[test]
fn each_summary_keeps_a_sample_for_the_trend() {
    let d = Demo::start(N, 10, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let path = {
        let o = run(&d, &tmp, &["store", "path"]);
        assert!(o.status.success(), "{}", err(&o));
        std::path::PathBuf::from(out(&o).trim())
    };
    let j = summary_json(&d, &tmp, &["--status", "open", "--unassigned", "true"]);
    let o = summarize(&d, &tmp, "--status open --unassigned true");
    assert!(o.status.success(), "{}", err(&o));
    let store = convo::store::Store::open(&path).expect("the store");
    let key = convo::store::samples::filter_key(&convo::api::ConversationFilter {
        status: Some(convo::api::Status::Open),
        assignee: convo::api::Assignee::Unassigned,
        ..Default::default()
    });
    let samples = store.samples_since(&key, 0).expect("samples");
    // Both runs had the same clock (CONVO_NOW): one sample a second, the second replaced it.
    assert_eq!(samples.len(), 1, "{samples:?}");
    let s = &samples[0];
    assert_eq!(s.at, now_secs());
    assert!(s.complete);
    assert_eq!(s.loaded, j["loaded"].as_u64().unwrap_or(u64::MAX), "{j}");
    assert_eq!(s.waiting, s.loaded, "open and unassigned: every row waits");
    // Another filter has its own key.
    let o = run(&d, &tmp, &["summary", "conversations"]);
    assert!(o.status.success(), "{}", err(&o));
    let all = convo::store::samples::filter_key(&Default::default());
    assert_eq!(store.samples_since(&all, 0).unwrap().len(), 1);
    // A walk cut short (--max) counted only as far as it got: no point of a trend.
    let o = run(
        &d,
        &tmp,
        &[
            "summary",
            "conversations",
            "--status",
            "closed",
            "--max",
            "5",
        ],
    );
    common::assert_has(&err(&o), "partial");
    let closed = convo::store::samples::filter_key(&convo::api::ConversationFilter {
        status: Some(convo::api::Status::Closed),
        ..Default::default()
    });
    assert!(store.samples_since(&closed, 0).unwrap().is_empty());
}

/// `--watch` on a terminal is a wallboard: each sample clears the screen and draws the table
/// from the top (never scrolls), with its interval and how to stop; Ctrl-C ends it with 0.
#[test]
fn watch_on_a_terminal_redraws_the_table_in_place() {
    let d = Demo::start(N, 10, Faults::default());
    let mut t =
        common::pty::Pty::against(&d, &["summary", "conversations", "--watch", "1s"], 120, 40);
    let screen = watched(&t, 3);
    // One table on the screen, from the first line: redrawn, not scrolled.
    assert_eq!(screen.matches("Ctrl-C to stop").count(), 1, "{screen}");
    assert!(
        screen.lines().next().unwrap_or_default().contains("STATUS"),
        "{screen}"
    );
    common::assert_has(&screen, "every 1s");
    t.send(b"\x03");
    assert_eq!(t.wait_exit(std::time::Duration::from_secs(10)), Some(0));
}

/// `--since-last`: the walk is compared with the filter's last look in the local store (as
/// the browser keeps it): rows new since (only those before rows the look had) and rows whose
/// status or assignee changed; a line under the table, `since_last` in JSON; no look: said.
#[test]
fn since_last_counts_what_is_new_or_changed_since_the_last_look() {
    let d = Demo::start(N, 10, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let args = [
        "summary",
        "conversations",
        "--status",
        "open",
        "--since-last",
    ];
    // No look yet: said, and the summary still comes.
    let o = run(&d, &tmp, &args);
    assert!(o.status.success(), "{}", err(&o));
    common::assert_has(&err(&o), "no earlier look");
    assert!(!out(&o).contains("since the last look"));
    // A look of the open conversations as the browser would keep it, minus the 3 newest
    // (they are new since) and with 2 rows' assignee different (they changed since).
    let path = {
        let o = run(&d, &tmp, &["store", "path"]);
        std::path::PathBuf::from(out(&o).trim())
    };
    let open: Vec<convo::api::Conversation> = d
        .s()
        .data()
        .conversations
        .iter()
        .filter(|c| c.status == "open")
        .map(|c| serde_json::from_value(serde_json::to_value(c).unwrap()).unwrap())
        .collect();
    assert!(open.len() > 60);
    let rows: Vec<convo::store::LookRow> = open[3..60]
        .iter()
        .enumerate()
        .map(|(i, c)| convo::store::LookRow {
            id: c.id,
            watched: if i == 10 || i == 20 {
                1
            } else {
                convo::store::looks::conversation_fingerprint(c)
            },
        })
        .collect();
    let key = convo::store::samples::filter_key(&convo::api::ConversationFilter {
        status: Some(convo::api::Status::Open),
        ..Default::default()
    });
    let taken = now_secs() - 3600;
    {
        let store = convo::store::Store::open(&path).expect("store");
        store.save_look(&key, &rows, taken).expect("look");
    }
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let j: Value = serde_json::from_str(&out(&run(&d, &tmp, &json_args))).expect("json");
    assert_eq!(j["since_last"]["new"], 3, "{j}");
    assert_eq!(j["since_last"]["changed"], 2, "{j}");
    assert_eq!(
        j["since_last"]["taken_at"],
        jiff::Timestamp::from_second(taken).unwrap().to_string()
    );
    let o = run(&d, &tmp, &args);
    assert!(
        out(&o).contains("since the last look (2026-11-22 11:30 UTC): 3 new, 2 changed"),
        "{}",
        out(&o)
    );
    // Not with --watch.
    let o = summarize(&d, &tmp, "--since-last --watch 5s");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
}

/// The summary in a `cols` x `rows` pty with response-time targets (every column there).
/// Waits (at most 20 s) until `--watch` has drawn `samples` samples (each clears the screen
/// first), then until its footer shows; the screen then.
fn watched(t: &common::pty::Pty, samples: usize) -> String {
    let clear = b"\x1b[H\x1b[2J";
    let drawn = |raw: &[u8]| raw.windows(clear.len()).filter(|w| *w == clear).count();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while drawn(&t.raw()) < samples {
        assert!(std::time::Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    t.wait_until(std::time::Duration::from_secs(5), |s| {
        s.contains("Ctrl-C to stop")
    })
}

fn summary_in_pty(
    d: &Demo,
    tmp: &std::path::Path,
    extra: &[&str],
    cols: u16,
    rows: u16,
) -> common::pty::Pty {
    let cfg = common::file(
        tmp,
        "c.toml",
        "[sla]\nfirst_response = \"5m\"\nresolution = \"4h\"\n",
    );
    let home = tmp.display().to_string();
    let log = tmp.join("convo.log").display().to_string();
    let (url, key) = (d.url(), d.key());
    let mut args = vec![
        "--base-url",
        &url,
        "--config",
        cfg.to_str().unwrap(),
        "summary",
        "conversations",
        "--sla",
    ];
    args.extend_from_slice(extra);
    common::pty::Pty::spawn(
        &args,
        &[
            ("CONVO_API_KEY", &key),
            ("HOME", &home),
            ("CONVO_LOG_FILE", &log),
        ],
        cols,
        rows,
    )
}

#[test]
fn the_table_on_a_terminal_fits_its_width_and_never_wraps() {
    let d = Demo::start(N, 10, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let mut t = summary_in_pty(&d, tmp.path(), &["--by", "assignee"], 120, 35);
    assert_eq!(t.wait_exit(std::time::Duration::from_secs(20)), Some(0));
    let screen = t.wait_until(std::time::Duration::from_secs(5), |s| {
        s.contains("targets:")
    });
    let raw = String::from_utf8_lossy(&t.raw()).into_owned();
    // What stays on a line: after the last carriage return (the progress line rewrites itself).
    for line in raw
        .split("\r\n")
        .map(|l| l.rsplit('\r').next().unwrap_or(l))
    {
        assert!(
            convo::text::width(line) <= 120,
            "a line wider than the terminal: {line:?}\n{screen}"
        );
    }
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.starts_with("ASSIGNEE"), "{screen}");
    assert!(
        header.contains("WAITING")
            && header.contains("BREACHING")
            && header.contains("LONGEST OVERDUE"),
        "{screen}"
    );
    common::assert_has(&screen, "left out to fit 120 columns:");
}

#[test]
fn watch_on_a_small_terminal_keeps_its_header_and_counts_the_rows_it_cut() {
    let d = Demo::start(N, 10, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let mut t = summary_in_pty(
        &d,
        tmp.path(),
        &["--by", "assignee", "--watch", "1s"],
        80,
        12,
    );
    let screen = watched(&t, 2);
    let lines: Vec<&str> = screen.lines().collect();
    assert!(
        lines[0].starts_with("ASSIGNEE"),
        "the header scrolled away:\n{screen}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("… ") && l.ends_with("more, counted in the total")),
        "{screen}"
    );
    assert!(lines.iter().any(|l| l.starts_with("total")), "{screen}");
    assert!(
        lines.last().unwrap_or(&"").contains("Ctrl-C to stop"),
        "{screen}"
    );
    t.send(b"\x03");
    assert_eq!(t.wait_exit(std::time::Duration::from_secs(10)), Some(0));
    // The last line had no newline (nothing scrolls); Ctrl-C ends it for the shell's prompt.
    let raw = t.raw();
    assert!(
        raw.ends_with(b"\r\n"),
        "{:?}",
        String::from_utf8_lossy(&raw[raw.len().saturating_sub(40)..])
    );
}

#[test]
fn prometheus_series_carry_the_aliases_as_name_labels() {
    if !common::have(&common::PROMETHEUS_CLIENT) {
        return;
    }
    let d = Demo::start(N, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let data = dataset(7, N, 40);
    let site = data.conversations[0].site_id.to_string();
    let agent = data
        .conversations
        .iter()
        .find_map(|c| c.assignee_id)
        .expect("an assigned conversation")
        .to_string();
    // A quote, a backslash and a non-ASCII letter: escaped as the format asks.
    let shop = r#"Shop "EU" \ Björn"#;
    let cfg = config_file(
        &tmp,
        &format!(
            "{SLA}\n[aliases]\n\"{site}\" = {}\n\"{agent}\" = \"Ana\"\n",
            toml_string(shop)
        ),
    );
    for (by, id, name) in [("site", &site, shop), ("assignee", &agent, "Ana")] {
        let o = run_with(&d, &tmp, &cfg, &["--by", by, "--format", "prometheus"]);
        assert!(o.status.success(), "{}", err(&o));
        let text = out(&o);
        let fams = prometheus_parse(&text);
        let buckets = summary_json(&d, &tmp, &["--config", &cfg, "--by", by])["buckets"]
            .as_array()
            .unwrap()
            .len();
        let key = format!("{by}_name");
        for f in fams.as_array().unwrap() {
            let samples = f["samples"].as_array().unwrap();
            assert_eq!(
                samples.len(),
                buckets,
                "no more series than buckets: {text}"
            );
            let mut named = 0;
            for s in samples {
                let labels = s["labels"].as_object().unwrap();
                if labels[by] == id.as_str() {
                    assert_eq!(labels[&key], name, "{text}");
                    named += 1;
                } else {
                    assert!(!labels.contains_key(&key), "no alias, no name label: {s}");
                }
            }
            assert_eq!(named, 1, "{}: {text}", f["name"]);
        }
    }
    // By status there is nothing to name.
    let o = run_with(
        &d,
        &tmp,
        &cfg,
        &["--by", "status", "--format", "prometheus"],
    );
    assert!(!out(&o).contains("_name="), "{}", out(&o));
}

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}
