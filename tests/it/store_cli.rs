//! The local store as a user meets it: the real binary against a demo server on a random port,
//! with a real SQLite file under a temporary XDG_DATA_HOME.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Demo, convo_cmd};
use convo::demo::Faults;
use serde_json::Value;

/// `convo list visitors --all --format jsonl`.
const ALL_VISITORS: [&str; 5] = ["list", "visitors", "--all", "--format", "jsonl"];

fn cmd(d: &Demo, tmp: &Path) -> assert_cmd::Command {
    let mut c = convo_cmd(tmp);
    c.env("CONVO_API_KEY", d.key())
        .arg("--base-url")
        .arg(d.url());
    c
}

fn run(d: &Demo, tmp: &Path, args: &[&str]) -> std::process::Output {
    cmd(d, tmp).args(args).output().expect("runs")
}

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn store_path(d: &Demo, tmp: &Path) -> PathBuf {
    let o = run(d, tmp, &["store", "path"]);
    assert!(o.status.success(), "{}", err(&o));
    PathBuf::from(out(&o).trim())
}

fn visitor_count(d: &Demo, tmp: &Path) -> u64 {
    let o = run(d, tmp, &["store", "stats"]);
    assert!(o.status.success(), "{}", err(&o));
    let text = out(&o);
    let line = text
        .lines()
        .find(|l| l.starts_with("visitors:"))
        .unwrap_or_else(|| panic!("{text}"));
    line["visitors:".len()..]
        .trim()
        .replace(',', "")
        .parse()
        .unwrap()
}

/// `convo list WHAT ARGS --all --format jsonl`, which must succeed: the ids it printed.
fn listed_ids(d: &Demo, tmp: &Path, what: &str, args: &[&str]) -> Vec<String> {
    let head = ["list", what];
    let all = head
        .iter()
        .chain(args)
        .chain(&["--all", "--format", "jsonl"]);
    let o = cmd(d, tmp).args(all).output().expect("runs");
    assert!(o.status.success(), "{what} {args:?}: {}", err(&o));
    common::jsonl_ids(&out(&o))
}

fn jsonl(o: &std::process::Output) -> Vec<Value> {
    out(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn list_visitors_fills_the_store_and_stats_path_clear_tell_about_it() {
    let d = Demo::start(60, 230, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let path = store_path(&d, tmp.path());
    assert!(
        path.starts_with(tmp.path().join("data").join("convo").join("stores")),
        "{}",
        path.display()
    );
    let o = run(&d, tmp.path(), &ALL_VISITORS);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(jsonl(&o).len(), 230);
    assert_eq!(visitor_count(&d, tmp.path()), 230);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let m = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(m & 0o777, 0o600, "{m:o}");
    }
    let o = run(&d, tmp.path(), &["store", "clear"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("emptied"), "{}", out(&o));
    assert_eq!(visitor_count(&d, tmp.path()), 0);
}

#[test]
fn with_visitor_adds_the_stored_fields_and_says_which_rows_had_none() {
    let d = Demo::start(120, 40, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let want: HashMap<String, Value> = d
        .s()
        .data()
        .visitors
        .iter()
        .map(|v| {
            let j = serde_json::to_value(v).unwrap();
            (j["id"].as_str().unwrap().to_string(), j)
        })
        .collect();
    // Before any visitor is known: every row says null, stderr counts them.
    let args = [
        "list",
        "conversations",
        "--all",
        "--with-visitor",
        "--format",
        "jsonl",
    ];
    let o = run(&d, tmp.path(), &args);
    assert!(o.status.success(), "{}", err(&o));
    let rows = jsonl(&o);
    assert_eq!(rows.len(), 120);
    assert!(rows.iter().all(|r| r["visitor"].is_null()));
    assert!(
        err(&o).contains("120 of 120 rows had no visitor known"),
        "{}",
        err(&o)
    );
    // After a sync, every row carries its visitor's fields as the service has them.
    let o = run(&d, tmp.path(), &["store", "sync"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("names: all 40 visitors"), "{}", err(&o));
    let o = run(&d, tmp.path(), &args);
    assert!(o.status.success(), "{}", err(&o));
    assert!(!err(&o).contains("no visitor known"), "{}", err(&o));
    for r in jsonl(&o) {
        let v = &r["visitor"];
        let id = r["visitorId"].as_str().unwrap();
        assert_eq!(v["id"], id);
        let w = &want[id];
        assert_eq!(v["name"], w["name"], "{id}");
        assert_eq!(v["email"], w["email"], "{id}");
        assert_eq!(v["externalId"], w["externalId"], "{id}");
        let wa = &w["attributes"];
        let empty = wa.is_null() || wa.as_object().is_some_and(|m| m.is_empty());
        if !empty {
            assert_eq!(&v["attributes"], wa, "{id}");
        }
    }
    // CSV: the visitor columns, visitorKnown true.
    let o = run(
        &d,
        tmp.path(),
        &common::words("list conversations --max 5 --with-visitor --format csv"),
    );
    assert!(o.status.success(), "{}", err(&o));
    let recs = common::parse_csv(&out(&o));
    assert_eq!(recs.len(), 6);
    let known = recs[0].iter().position(|h| h == "visitorKnown").unwrap();
    assert!(recs[1..].iter().all(|r| r[known] == "true"));
}

#[test]
fn visitor_email_walks_each_visitor_and_merges_newest_first() {
    let d = Demo::start(400, 60, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    // An e-mail shared by several visitors.
    let mut by_email: HashMap<String, Vec<String>> = HashMap::new();
    for v in &d.s().data().visitors {
        let j = serde_json::to_value(v).unwrap();
        if let Some(e) = j["email"].as_str() {
            by_email
                .entry(e.to_string())
                .or_default()
                .push(j["id"].as_str().unwrap().to_string());
        }
    }
    let (email, ids) = by_email
        .iter()
        .max_by_key(|(e, ids)| (ids.len(), (*e).clone()))
        .unwrap();
    assert!(ids.len() >= 2, "the demo shares some e-mails");
    let ids: HashSet<&String> = ids.iter().collect();
    let mut want: Vec<(String, String)> = d
        .s()
        .data()
        .conversations
        .iter()
        .map(|c| serde_json::to_value(c).unwrap())
        .filter(|c| ids.contains(&c["visitorId"].as_str().unwrap().to_string()))
        .map(|c| {
            (
                c["createdAt"].as_str().unwrap().to_string(),
                c["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    want.sort_by(|a, b| b.cmp(a));
    let by_email = ["--visitor-email", email, "--limit", "3"];
    let got = listed_ids(&d, tmp.path(), "conversations", &by_email);
    let want_ids: Vec<String> = want.into_iter().map(|(_, id)| id).collect();
    assert!(!want_ids.is_empty());
    assert_eq!(got, want_ids);
    // The lookup kept those visitors in the store.
    assert!(visitor_count(&d, tmp.path()) >= ids.len() as u64);
    // A typo: exit 2 and the message, nothing on stdout.
    let o = run(
        &d,
        tmp.path(),
        &common::words("list conversations --visitor-email nobody-here@example.invalid"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("no visitor has the e-mail"), "{}", err(&o));
    assert!(out(&o).is_empty());
}

#[test]
fn store_false_keeps_nothing_on_disk() {
    let d = Demo::start(30, 30, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let text = format!("base_url = \"{}\"\nstore = false\n", d.url());
    let cfg = common::file(tmp.path(), "c.toml", text);
    let run_cfg = |args: &[&str]| {
        convo_cmd(tmp.path())
            .env("CONVO_API_KEY", d.key())
            .env("CONVO_CONFIG", &cfg)
            .args(args)
            .output()
            .unwrap()
    };
    let o = run_cfg(&ALL_VISITORS);
    assert!(o.status.success(), "{}", err(&o));
    let o = run_cfg(&common::words(
        "list conversations --with-visitor --format jsonl",
    ));
    assert!(o.status.success(), "{}", err(&o));
    assert!(jsonl(&o).iter().all(|r| r["visitor"].is_null()));
    let o = run_cfg(&["store", "path"]);
    assert!(err(&o).contains("store = false"), "{}", err(&o));
    assert!(
        !tmp.path()
            .join("data")
            .join("convo")
            .join("stores")
            .exists(),
        "nothing on disk"
    );
}

#[test]
fn two_processes_fill_one_store_at_once() {
    let d = Demo::start(10, 900, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let spawn = || {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("convo"));
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", tmp.path())
            .env("XDG_CONFIG_HOME", tmp.path().join("config"))
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .env("CONVO_LOG_FILE", tmp.path().join("convo.log"))
            .env("CONVO_CONFIG", tmp.path().join("none.toml"))
            .env("CONVO_API_KEY", d.key())
            .args(["--base-url", &d.url(), "list", "visitors", "--all"])
            .args(["--limit", "10", "--format", "jsonl"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        c.spawn().unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for p in [a, b] {
        let o = p.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", err(&o));
        assert!(!err(&o).contains("warning"), "{}", err(&o));
    }
    assert_eq!(visitor_count(&d, tmp.path()), 900);
}

#[test]
fn a_corrupt_store_is_moved_aside_and_the_command_goes_on() {
    let d = Demo::start(10, 20, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let path = store_path(&d, tmp.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"not sqlite at all".repeat(100)).unwrap();
    let o = run(&d, tmp.path(), &ALL_VISITORS);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(jsonl(&o).len(), 20);
    assert_eq!(
        err(&o).matches("damaged").count(),
        1,
        "said once: {}",
        err(&o)
    );
    assert_eq!(visitor_count(&d, tmp.path()), 20);
}

#[test]
fn a_sync_stopped_by_the_service_resumes_where_it_stopped() {
    // 350 visitors = 4 pages of 100; the service dies after 2 requests.
    let faults = Faults {
        fail_after: Some(2),
        ..Faults::default()
    };
    let d = Demo::start(5, 350, faults);
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&d, tmp.path(), &["store", "sync", "--unpaced"]);
    assert_eq!(o.status.code(), Some(4), "{}", err(&o));
    assert!(err(&o).contains("resumes there"), "{}", err(&o));
    assert_eq!(visitor_count(&d, tmp.path()), 200);
    // Same store, a healthy service with the same data: only the two pages left are asked.
    let d2 = Demo::start(5, 350, Faults::default());
    let path = store_path(&d, tmp.path());
    let path2 = store_path(&d2, tmp.path());
    std::fs::create_dir_all(path2.parent().unwrap()).unwrap();
    for ext in ["", "-wal", "-shm"] {
        let (mut a, mut b) = (
            path.clone().into_os_string(),
            path2.clone().into_os_string(),
        );
        a.push(ext);
        b.push(ext);
        if Path::new(&a).exists() {
            std::fs::copy(&a, &b).unwrap();
        }
    }
    let before = d2.requests();
    let o = run(&d2, tmp.path(), &["store", "sync", "--unpaced"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("names: all 350 visitors"), "{}", err(&o));
    assert_eq!(d2.requests() - before, 2, "only the two pages left");
    assert_eq!(visitor_count(&d2, tmp.path()), 350);
}

/// `convo store sync --rps 4` walks the five pages and says so; `--unpaced` too. The pace
/// itself is asserted in `the_sync_command_keeps_its_pace` on a clock of the test's.
#[test]
fn the_sync_command_walks_paced_or_unpaced() {
    let d = Demo::start(5, 450, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&d, tmp.path(), &["store", "sync", "--rps", "4"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("5 requests"), "{}", err(&o));
    // `--unpaced` on a store of its own (the store above has a walk just ended, which a
    // second sync follows rather than repeats): the same five pages, unpaced (how fast is the
    // machine's, measured by `cargo bench --bench links`, not asserted).
    let fresh = tempfile::tempdir().unwrap();
    let o = run(&d, fresh.path(), &["store", "sync", "--unpaced"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("5 requests"), "{}", err(&o));
}

/// `convo store sync`'s own code (`store_command::run`, as `main` calls it) with a client on a
/// `ManualClock`: at 4 requests a second the five pages start 250 ms and a millisecond apart
/// of the clock, exactly; `--unpaced` sends them at once.
#[test]
fn the_sync_command_keeps_its_pace() {
    use convo::store_command::{Action, run as store};
    let d = Demo::start(5, 450, Faults::default());
    let sync = |rps: Option<u32>, unpaced: bool| {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("config.toml");
        let mut cfg = convo::config::Config::from_toml_str(
            "",
            &path,
            &convo::config::Overrides {
                base_url: Some(d.url()),
                ..Default::default()
            },
            &|k| (k == "CONVO_API_KEY").then(|| d.key()),
        )
        .expect("config");
        cfg.store.dir = Some(tmp.path().join("stores"));
        let (client, clock) = common::client_on_clock(&d);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut o = convo::output::Output {
            out: &mut out,
            err: &mut err,
            out_is_terminal: false,
            err_is_terminal: false,
            aliases: Default::default(),
        };
        let (code, times) = common::on_clock(
            &d,
            &clock,
            store(Action::Sync { rps, unpaced }, &cfg, &client, &mut o),
        );
        let err = String::from_utf8_lossy(&err).into_owned();
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("5 requests"), "{err}");
        times
    };
    let ms = |v: &[u64]| {
        v.iter()
            .map(|n| Duration::from_millis(*n))
            .collect::<Vec<_>>()
    };
    assert_eq!(sync(Some(4), false), ms(&[0, 251, 502, 753, 1004]));
    assert_eq!(sync(None, true), ms(&[0, 0, 0, 0, 0]));
}

/// Queries and the store: `list visitors -q` keeps every visitor it receives (not only those
/// that pass), and `visitor.name:` checks conversations against the names kept.
#[test]
fn queries_keep_visitors_and_check_visitor_fields_from_the_store() {
    let d = Demo::start(300, 50, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let none = listed_ids(&d, tmp.path(), "visitors", &["-q", "name:\"no such name\""]);
    assert_eq!(none.len(), 0);
    assert_eq!(visitor_count(&d, tmp.path()), 50);
    let data = d.s().data();
    let v = data
        .visitors
        .iter()
        .find(|v| {
            v.name
                .as_deref()
                .is_some_and(|n| n.is_ascii() && n.len() > 4)
        })
        .expect("a plain name");
    let name = v.name.clone().unwrap();
    let named: Vec<uuid::Uuid> = data
        .visitors
        .iter()
        .filter(|x| {
            x.name
                .as_deref()
                .is_some_and(|n| n.to_lowercase().contains(&name.to_lowercase()))
        })
        .map(|x| x.id)
        .collect();
    let want: Vec<String> = data
        .conversations
        .iter()
        .filter(|c| named.contains(&c.visitor_id))
        .map(|c| c.id.to_string())
        .collect();
    assert!(!want.is_empty());
    let q = format!("visitor.name:\"{name}\"");
    let got = listed_ids(&d, tmp.path(), "conversations", &["-q", &q]);
    assert_eq!(got, want);
}

/// `convo store stats` and `convo doctor` say the visitors list's order as the sync learned
/// it from the rows: not yet before any walk, then newest first or oldest first as served.
#[test]
fn stats_and_doctor_say_the_order_the_sync_learned() {
    for (order, words) in [
        (
            convo::demo::ServeOrder::Newest,
            "newest first (learned from its rows)",
        ),
        (
            convo::demo::ServeOrder::Oldest,
            "oldest first (learned from its rows)",
        ),
    ] {
        let d = Demo::faulty(20, 230, |f| f.order = order);
        let tmp = tempfile::tempdir().unwrap();
        let stats = |tmp: &Path| {
            let o = run(&d, tmp, &["store", "stats"]);
            assert!(o.status.success(), "{}", err(&o));
            out(&o)
        };
        let before = stats(tmp.path());
        common::assert_has(&before, "order:     in an order not learned yet");
        common::assert_has(
            &before,
            "unknown:   no loaded row has a visitor the store does not know",
        );
        let o = run(&d, tmp.path(), &["store", "sync", "--unpaced"]);
        assert!(o.status.success(), "{}", err(&o));
        let after = stats(tmp.path());
        common::assert_has(&after, &format!("order:     {words}"));
        common::assert_has(&after, "(230 visitors)");
        let o = run(&d, tmp.path(), &["doctor"]);
        assert!(o.status.success(), "{}", out(&o));
        common::assert_has(
            &out(&o),
            &format!("ok    visitor names: the visitors list is {words}"),
        );
    }
}
