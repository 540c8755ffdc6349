//! `convo list` as a user runs it: the real binary against a demo server on a random port.

use crate::common;

use std::collections::HashSet;

use common::{Demo, convo_cmd};
use convo::demo::{Faults, dataset};
use serde_json::Value;

fn run(d: &Demo, tmp: &tempfile::TempDir, args: &[&str]) -> std::process::Output {
    convo_cmd(tmp.path())
        .env("CONVO_API_KEY", d.key())
        .arg("--base-url")
        .arg(d.url())
        .arg("list")
        .args(args)
        .output()
        .expect("runs")
}

/// `convo list LINE` (its words) in a home of its own.
fn list(d: &Demo, line: &str) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    run(d, &tmp, &common::words(line))
}

/// [`list`], which must succeed.
fn list_ok(d: &Demo, line: &str) -> std::process::Output {
    let o = list(d, line);
    assert!(o.status.success(), "{line}: {}", stderr(&o));
    o
}

/// [`list`] with `key` in CONVO_API_KEY instead of the demo's.
fn list_with_key(d: &Demo, key: &str, line: &str) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    convo_cmd(tmp.path())
        .env("CONVO_API_KEY", key)
        .args(["--base-url", &d.url(), "list"])
        .args(common::words(line))
        .output()
        .unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn want_ids(n: usize) -> Vec<String> {
    dataset(7, n, 40)
        .conversations
        .iter()
        .map(|c| {
            serde_json::to_value(c).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn jsonl_all_walks_every_page_in_order() {
    let d = Demo::start(230, 40, Faults::default());
    let o = list_ok(&d, "conversations --all --limit 50 --format jsonl");
    let ids = common::jsonl_ids(&stdout(&o));
    assert_eq!(ids, want_ids(230));
    assert_eq!(d.requests(), 5);
}

#[test]
fn default_is_one_page_table_with_a_hint() {
    let d = Demo::start(230, 40, Faults::default());
    let o = list_ok(&d, "conversations");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("ID"), "{out}");
    assert!(lines[0].contains("STATUS") && lines[0].contains("ASSIGNEE"));
    assert_eq!(lines.len(), 51, "header + one page of 50");
    assert!(stderr(&o).contains("more exist"), "{}", stderr(&o));
    assert_eq!(d.requests(), 1);
}

#[test]
fn json_max_is_one_array_of_n() {
    let d = Demo::start(230, 40, Faults::default());
    let o = list_ok(&d, "conversations --max 7 --format json --status open");
    let v: Vec<Value> = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v.len(), 7);
    assert!(v.iter().all(|c| c["status"] == "open"));
}

#[test]
fn csv_all_visitors_has_header_and_every_row() {
    let d = Demo::start(10, 130, Faults::default());
    let o = list_ok(&d, "visitors --all --format csv");
    let out = stdout(&o);
    assert!(out.starts_with("id,externalId,email,name,attributes,createdAt\n"));
    let ids: HashSet<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.get(..36))
        .filter(|s| uuid::Uuid::parse_str(s).is_ok())
        .collect();
    assert_eq!(ids.len(), 130);
}

#[test]
fn invalid_filter_exits_2_without_a_request() {
    let d = Demo::start(10, 10, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&d, &tmp, &["conversations", "--site-id", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("site_id"), "{}", stderr(&o));
    let o = run(&d, &tmp, &["conversations", "--limit", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("limit"), "{}", stderr(&o));
    let o = run(
        &d,
        &tmp,
        &common::words(
            "conversations --unassigned true --assignee-id 3f2b8c1e-0a4d-4e5f-9b6a-1c2d3e4f5a6b",
        ),
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(d.requests(), 0);
}

#[test]
fn spec_assignee_params_are_accepted() {
    let d = Demo::start(120, 20, Faults::default());
    let o = list_ok(&d, "conversations --unassigned true --all --format jsonl");
    let rows: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r["assigneeId"].is_null()));
}

#[test]
fn wrong_key_exits_3() {
    let d = Demo::start(10, 10, Faults::default());
    let o = list_with_key(&d, "sk_demo_notthekey123456", "visitors");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(!stderr(&o).contains("notthekey"));
}

#[test]
fn wrong_key_prefix_refused_locally_exits_2() {
    let d = Demo::start(10, 10, Faults::default());
    let o = list_with_key(&d, "pk_live_publishable123", "visitors");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("sk_"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("publishable123"));
    assert_eq!(d.requests(), 0, "a wrong credential is never sent");
}

#[test]
fn server_failure_exits_4_after_retries() {
    let d = Demo::faulty(10, 10, |f| f.fail_always = true);
    let o = list(&d, "visitors");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("HTTP 500"), "{}", stderr(&o));
    assert!(stderr(&o).contains("retrying"), "{}", stderr(&o));
    assert_eq!(d.requests(), 4);
}

#[test]
fn malformed_page_exits_5() {
    let d = Demo::faulty(10, 10, |f| f.malformed_page = Some(1));
    let o = list(&d, "visitors --format jsonl");
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
}

#[test]
fn bad_row_reported_good_rows_kept_exit_5() {
    let d = Demo::faulty(30, 10, |f| f.bad_row = true);
    let o = list(&d, "conversations --format jsonl --limit 10");
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 10, "the good rows are printed");
    assert!(stderr(&o).contains("could not be read"), "{}", stderr(&o));
}

#[test]
fn no_config_says_where_it_looked_and_how_to_start() {
    let tmp = tempfile::tempdir().unwrap();
    let o = convo_cmd(tmp.path())
        .args(["list", "visitors"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("no-config.toml"), "{e}");
    assert!(
        e.contains("config.example.toml") && e.contains("--demo"),
        "{e}"
    );
}

#[test]
fn hostile_text_in_table_never_reaches_the_terminal_raw() {
    let d = Demo::faulty(10, 60, |f| f.hostile = true);
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&d, &tmp, &["visitors", "--limit", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{9b}') && !out.contains('\u{202e}'));
    assert!(out.contains('␛'), "escape shown as a visible stand-in");
    let o = run(
        &d,
        &tmp,
        &["visitors", "--limit", "100", "--format", "jsonl"],
    );
    let out = stdout(&o);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{9b}') && !out.contains('\u{202e}'));
    for l in out.lines() {
        serde_json::from_str::<Value>(l).expect("still valid JSON");
    }
}

#[test]
fn a_service_dying_mid_walk_keeps_the_printed_rows_and_exits_4() {
    let d = Demo::faulty(100, 40, |f| f.fail_after = Some(2));
    let o = list(&d, "conversations --all --limit 10 --format jsonl");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let ids = common::jsonl_ids(&stdout(&o));
    assert_eq!(
        ids,
        want_ids(100)[..20].to_vec(),
        "the two good pages, in order"
    );
    assert!(stderr(&o).contains("HTTP 500"), "{}", stderr(&o));
}

/// What a spreadsheet would run as a formula (the cell's first character), the oracle for the
/// CSV tests: the hostile data holds no plain numbers in its text fields.
fn formula_like(s: &str) -> bool {
    s.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

#[test]
fn csv_cells_a_spreadsheet_would_run_get_a_quote_unless_csv_raw() {
    let d = Demo::faulty(40, 60, |f| f.hostile = true);
    let tmp = tempfile::tempdir().unwrap();
    let exact: Vec<Value> = stdout(&run(&d, &tmp, &["visitors", "--all", "--format", "jsonl"]))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(exact.len(), 60);
    let o = run(&d, &tmp, &["visitors", "--all", "--format", "csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let guarded = common::parse_csv(&stdout(&o));
    let o = run(
        &d,
        &tmp,
        &["visitors", "--all", "--format", "csv", "--csv-raw"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let raw = common::parse_csv(&stdout(&o));
    assert_eq!(
        guarded[0],
        [
            "id",
            "externalId",
            "email",
            "name",
            "attributes",
            "createdAt"
        ]
    );
    assert_eq!((guarded.len(), raw.len()), (61, 61));
    let mut firsts = HashSet::new();
    for (i, v) in exact.iter().enumerate() {
        for (col, key) in [(1, "externalId"), (2, "email"), (3, "name")] {
            let want = v[key].as_str().unwrap_or("");
            assert_eq!(raw[i + 1][col], want, "--csv-raw keeps the bytes");
            let cell = &guarded[i + 1][col];
            assert!(!formula_like(cell), "row {i} {key}: {cell:?}");
            // terminal controls shown (issue 39 §11), newlines and tabs kept
            let shown = convo::text::sanitize_keeping_lines(want);
            assert!(!cell.contains(['\u{1b}', '\r']), "row {i} {key}: {cell:?}");
            if formula_like(want) {
                firsts.insert(want.chars().next().unwrap());
                assert_eq!(*cell, format!("'{shown}"), "row {i} {key}");
            } else {
                assert_eq!(*cell, shown, "row {i} {key}");
            }
        }
    }
    assert_eq!(firsts.len(), 6, "every formula start was met: {firsts:?}");

    // A conversation's status is the server's text too.
    let o = run(&d, &tmp, &["conversations", "--all", "--format", "csv"]);
    let rows = common::parse_csv(&stdout(&o));
    let statuses: Vec<&str> = rows[1..].iter().map(|r| r[3].as_str()).collect();
    assert_eq!(statuses.len(), 40);
    let formula = convo::demo::data::HOSTILE_STATUS;
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == format!("'{formula}"))
            .count(),
        3
    );
    assert!(!statuses.iter().any(|s| formula_like(s)));
}

/// `convo list conversations` with `[sla]` targets and a fixed "now".
fn run_sla(d: &Demo, tmp: &tempfile::TempDir, args: &[&str]) -> std::process::Output {
    let cfg = common::file(
        tmp.path(),
        "sla.toml",
        "[sla]\nfirst_response = \"40m\"\nwarn_at = 0.5\n",
    );
    let mut all = vec!["--config", cfg.to_str().unwrap(), "list", "conversations"];
    all.extend_from_slice(args);
    convo_cmd(tmp.path())
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_NOW", "2026-11-22T12:30:00Z")
        .arg("--base-url")
        .arg(d.url())
        .args(&all)
        .output()
        .unwrap()
}

#[test]
fn breaching_and_imminent_keep_the_waiting_rows_in_that_state_with_due_secs() {
    let d = Demo::start(600, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let now = "2026-11-22T12:30:00Z"
        .parse::<jiff::Timestamp>()
        .unwrap()
        .as_second();
    // The demo data's live queue waits 30 to 50 minutes at that "now".
    let target = 40 * 60;
    // Counted here from the dataset the server serves, in its order (newest first).
    let waiting: Vec<(String, i64)> = dataset(7, 600, 40)
        .conversations
        .iter()
        .filter(|c| c.status == "open" && c.assignee_id.is_none())
        .map(|c| (c.id.to_string(), now - c.created_at.as_second()))
        .collect();
    for (flag, keep) in [
        (
            "--breaching",
            (|age: i64| age >= 40 * 60) as fn(i64) -> bool,
        ),
        ("--imminent", |age: i64| (20 * 60..40 * 60).contains(&age)),
    ] {
        let o = run_sla(&d, &tmp, &[flag, "--format", "jsonl", "--limit", "25"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let got: Vec<(String, i64)> = stdout(&o)
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                assert_eq!(v["status"], "open");
                assert!(v["assigneeId"].is_null());
                (
                    v["id"].as_str().unwrap().to_string(),
                    v["due_secs"].as_i64().unwrap(),
                )
            })
            .collect();
        let want: Vec<(String, i64)> = waiting
            .iter()
            .filter(|(_, age)| keep(*age))
            .map(|(id, age)| (id.clone(), target - age))
            .collect();
        assert!(!want.is_empty());
        assert_eq!(got, want, "{flag}");
    }
    // Both flags: the union; --max counts printed rows.
    let o = run_sla(
        &d,
        &tmp,
        &["--breaching", "--imminent", "--format", "csv", "--max", "3"],
    );
    let c = stdout(&o);
    assert!(c.lines().next().unwrap().ends_with(",due_secs"), "{c}");
    assert_eq!(c.lines().count(), 4, "{c}");
    let o = run_sla(&d, &tmp, &["--breaching", "--format", "json"]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .all(|r| r["due_secs"].as_i64().unwrap() <= 0)
    );
    let o = run_sla(&d, &tmp, &["--breaching", "--max", "2"]);
    let t = stdout(&o);
    assert!(t.lines().next().unwrap().ends_with("DUE"), "{t}");
    assert!(t.lines().nth(1).unwrap().contains("over "), "{t}");
    // What cannot be waiting is refused before any request.
    let o = run_sla(&d, &tmp, &["--breaching", "--status", "closed"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("waiting conversations"),
        "{}",
        stderr(&o)
    );
    let o = run(&d, &tmp, &["conversations", "--imminent"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("first_response"), "{}", stderr(&o));
}

#[test]
fn a_401_or_403_mid_walk_keeps_the_printed_rows_and_says_which() {
    for (status, says, not) in [
        (401, "the key was rejected (HTTP 401", "not allowed"),
        (
            403,
            "the key is not allowed to list this (HTTP 403",
            "was rejected",
        ),
    ] {
        let d = Demo::faulty(100, 40, |f| {
            f.fail_after = Some(2);
            f.fail_after_status = status;
        });
        let tmp = tempfile::tempdir().unwrap();
        let o = run(
            &d,
            &tmp,
            &common::words("conversations --all --limit 10 --format jsonl"),
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{status}: {err}");
        assert_eq!(stdout(&o).lines().count(), 20, "the two good pages: {err}");
        assert!(err.contains(says), "{status}: {err}");
        assert!(!err.contains(not), "{status}: {err}");
        assert!(
            err.contains("CONVO_API_KEY"),
            "where the key came from: {err}"
        );
        assert_eq!(d.requests(), 3, "not retried");
    }
}

#[test]
fn a_table_that_is_not_on_a_terminal_is_never_cut_and_shows_seconds() {
    let d = Demo::start_at(30, 10, "2026-11-25T12:36:19.123Z".parse().unwrap());
    let tmp = tempfile::tempdir().unwrap();
    let json = run(
        &d,
        &tmp,
        &["conversations", "--limit", "5", "--format", "jsonl"],
    );
    let created: Vec<String> = stdout(&json)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["createdAt"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(created.len(), 5);
    // Longer than the 20 cells the table cut them to before.
    assert!(created.iter().all(|c| c.len() > 20), "{created:?}");
    let o = convo_cmd(tmp.path())
        .env("CONVO_API_KEY", d.key())
        .env("COLUMNS", "40")
        .args([
            "--base-url",
            &d.url(),
            "list",
            "conversations",
            "--limit",
            "5",
        ])
        .args(["--format", "table"])
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!out.contains('…'), "{out}");
    // A human table shows the second (`…T12:36:19Z`); JSON keeps the exact string.
    assert!(created.iter().any(|c| c.contains('.')), "{created:?}");
    for (line, c) in out.lines().skip(1).zip(&created) {
        let seconds = format!("{}Z", &c[..19]);
        assert!(line.contains(&seconds), "{seconds} in {line}");
        assert!(!line.contains(c.as_str()), "no fraction in {line}");
    }
    assert!(!stderr(&o).contains("left out"), "{}", stderr(&o));
}

/// `convo --base-url URL ARGS` in an 80 x 24 terminal (a table fitted to it), once it said
/// what it left out and exited with 0: everything it wrote.
fn in_80_columns(d: &Demo, args: &[&str]) -> String {
    let mut p = common::pty::Pty::against(d, args, 80, 24);
    let wait = std::time::Duration::from_secs(20);
    p.wait_until(wait, |s| s.contains("columns (a wider"));
    assert_eq!(p.wait_exit(wait), Some(0));
    String::from_utf8_lossy(&p.raw()).into_owned()
}

#[test]
fn a_table_on_a_terminal_fits_its_width_and_says_what_it_left_out() {
    let d = Demo::start(30, 10, Faults::default());
    let raw = in_80_columns(
        &d,
        &common::words("list conversations --limit 5 --format table"),
    );
    let lines: Vec<&str> = raw.split("\r\n").filter(|l| !l.is_empty()).collect();
    let table: Vec<&&str> = lines.iter().filter(|l| !l.starts_with("convo:")).collect();
    assert_eq!(table.len(), 6, "{raw}");
    for l in &table {
        assert!(convo::text::width(l) <= 80, "wider than 80: {l:?}");
    }
    assert!(
        table[0].starts_with("ID") && table[0].contains("ASSIGNEE"),
        "{raw}"
    );
    // As the browser: the ID gives up room first (its short form), then CREATED goes.
    assert!(
        raw.contains("convo: CREATED left out to fit 80 columns"),
        "{raw}"
    );
    assert!(table[0].contains("UPDATED"), "{raw}");
    for l in &table[1..] {
        let id = l.split_whitespace().next().unwrap_or_default();
        assert_eq!(id.len(), 8, "the short id: {l:?}");
    }
}

/// The table of `list` leaves columns out in the browser's order: each column's rank is the
/// browser's column of the same title.
#[test]
fn the_table_drops_columns_in_the_browsers_order() {
    use convo::output::Printable;
    use convo::tui::columns::Column;
    let tables = [convo::api::Conversation::TABLE, convo::api::Visitor::TABLE];
    for col in tables.iter().flat_map(|t| t.iter()) {
        let tui = Column::ALL
            .iter()
            .map(|c| c.spec())
            .find(|s| s.title == col.header)
            .unwrap_or_else(|| panic!("the browser has a {} column", col.header));
        assert_eq!(col.drop, tui.drop, "{}", col.header);
    }
}

/// `--format table` names sites and agents as the browser does (`[aliases]`, here the
/// demo's names), and says "unassigned".
#[test]
fn a_table_names_sites_and_agents_by_their_aliases() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = common::pty::command(home.path());
    cmd.args(common::words(
        "--demo list conversations --max 30 --format table",
    ));
    let mut p = common::pty::Pty::run(cmd, 120, 40);
    let wait = std::time::Duration::from_secs(30);
    assert_eq!(p.wait_exit(wait), Some(0));
    let raw = String::from_utf8_lossy(&p.raw()).into_owned();
    let sites = [
        "Web shop",
        "Help center",
        "Mobile app",
        "Partner portal",
        "Careers",
    ];
    assert!(sites.iter().any(|s| raw.contains(s)), "{raw}");
    assert!(
        raw.contains("Ana (EU desk)") || raw.contains("Ben (US desk)") || raw.contains("Goran"),
        "{raw}"
    );
}

#[test]
fn an_e_mail_that_matches_nothing_says_the_service_matches_whole_addresses() {
    let d = Demo::start(30, 10, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let said = "no visitor has the e-mail \"fatima\" (the service matches whole addresses";
    let o = run(&d, &tmp, &["visitors", "--email", "fatima"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(said), "{}", stderr(&o));
    let o = run(&d, &tmp, &["conversations", "--visitor-email", "fatima"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(said), "{}", stderr(&o));
    // an address that is there: no such word
    let email = dataset(7, 30, 10)
        .visitors
        .iter()
        .find_map(|v| v.email.clone())
        .expect("a visitor with an e-mail");
    let o = run(&d, &tmp, &["visitors", "--email", &email]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(&email), "{}", stdout(&o));
    assert!(!stderr(&o).contains("whole addresses"), "{}", stderr(&o));
}

#[test]
fn the_breaching_table_on_a_narrow_terminal_keeps_its_due_column() {
    let d = Demo::start(60, 10, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let cfg = common::file(tmp.path(), "c.toml", "[sla]\nfirst_response = \"1m\"\n");
    let cfg = cfg.to_str().unwrap();
    let raw = in_80_columns(
        &d,
        &["--config", cfg, "list", "conversations", "--breaching"],
    );
    let lines: Vec<&str> = raw
        .split("\r\n")
        .map(|l| l.rsplit('\r').next().unwrap_or(l))
        .map(|l| l.trim_start_matches("\x1b[K"))
        .filter(|l| !l.is_empty())
        .collect();
    let header = lines
        .iter()
        .find(|l| l.starts_with("ID"))
        .expect("a header");
    assert!(header.ends_with("DUE"), "{raw}");
    // The table's lines (the notes on stderr are prose).
    for l in lines.iter().filter(|l| !l.starts_with("convo:")) {
        assert!(convo::text::width(l) <= 80, "wider than 80: {l:?}");
    }
}
