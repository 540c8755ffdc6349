//! `convo list … -q QUERY` (issue 22): the union executor against the demo server in every
//! `--order`, each matching row once and in order, requests counted; exit codes.

use crate::common;

use std::collections::HashSet;

use common::{Demo, convo_cmd};
use convo::demo::{DemoConversation, Faults, ServeOrder};
use serde_json::Value;
use uuid::Uuid;

/// Runs `convo ARGS` against `d`, with `agent_id` set to `me` in a config file.
fn convo(d: &Demo, me: Uuid, args: &[&str]) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("config.toml");
    std::fs::write(&cfg, format!("agent_id = \"{me}\"\nstore = false\n")).unwrap();
    convo_cmd(tmp.path())
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_CONFIG", &cfg)
        .arg("--base-url")
        .arg(d.url())
        .args(args)
        .output()
        .expect("runs")
}

/// `convo list ARGS` (see [`convo`]).
fn run(d: &Demo, me: Uuid, args: &[&str]) -> std::process::Output {
    convo(d, me, &[&["list"][..], args].concat())
}

/// `convo list conversations -q QUERY FLAGS` (FLAGS: words split at spaces).
fn list_q(d: &Demo, me: Uuid, query: &str, flags: &str) -> std::process::Output {
    run(
        d,
        me,
        &[&["conversations", "-q", query][..], &common::words(flags)].concat(),
    )
}

fn ids(o: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            v["id"].as_str().expect("id").to_string()
        })
        .collect()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A demo of `conversations` and `visitors`, and its first agent (`me` in the config).
fn demo(conversations: usize, visitors: usize) -> (Demo, Uuid) {
    let d = Demo::start(conversations, visitors, Faults::default());
    let me = d.s().data().agents[0];
    (d, me)
}

/// Four streams: open and pending, each unassigned and mine.
const FOUR: &str = "status:open,pending assignee:none,me";

/// Asserts that `o` exited 0.
fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}", err(o));
}

/// Asserts that what `o` said (stderr) holds `text`.
fn says(o: &std::process::Output, text: &str) {
    assert!(err(o).contains(text), "no {text:?} in {}", err(o));
}

fn served(d: &Demo) -> Vec<DemoConversation> {
    d.s().data().conversations.clone()
}

fn pages(n: usize, limit: usize) -> u64 {
    n.div_ceil(limit).max(1) as u64
}

/// `status:open,pending assignee:none,me`: four streams, every matching row once, in the
/// order the server serves, and one request per page of each stream.
#[test]
fn a_union_gives_every_matching_row_once_in_the_served_order() {
    for order in [ServeOrder::Newest, ServeOrder::Oldest, ServeOrder::Updated] {
        let d = Demo::faulty(700, 60, |f| f.order = order);
        let rows = served(&d);
        let me = d.s().data().agents[0];
        let wanted = |c: &DemoConversation| {
            ["open", "pending"].contains(&c.status)
                && (c.assignee_id.is_none() || c.assignee_id == Some(me))
        };
        let want: Vec<String> = rows
            .iter()
            .filter(|c| wanted(c))
            .map(|c| c.id.to_string())
            .collect();
        // Requests: each stream walked alone, page by page.
        let mut requests = 0;
        for status in ["open", "pending"] {
            for mine in [false, true] {
                let n = rows
                    .iter()
                    .filter(|c| {
                        c.status == status
                            && if mine {
                                c.assignee_id == Some(me)
                            } else {
                                c.assignee_id.is_none()
                            }
                    })
                    .count();
                requests += pages(n, 9);
            }
        }
        assert!(want.len() > 40, "enough rows to span pages: {}", want.len());
        let before = d.requests();
        let o = list_q(&d, me, FOUR, "--all --limit 9 --format jsonl");
        assert!(o.status.success(), "{order:?}: {}", err(&o));
        let got = ids(&o);
        assert_eq!(got.len(), want.len(), "{order:?}: every matching row once");
        assert_eq!(got, want, "{order:?}: in the served order");
        assert_eq!(
            d.requests() - before,
            requests,
            "{order:?}: one request a page"
        );
        assert!(!err(&o).contains("order:"), "{order:?}: {}", err(&o));
    }
}

/// Rows of the same second in two streams come in the service's own order: its keyset is
/// (createdAt, id), so oldest first puts them in ascending id order and newest first in
/// descending id order (coarse times: every createdAt cut to its hour, so many rows share a
/// second with another).
#[test]
fn a_union_keeps_the_service_order_of_rows_of_the_same_second() {
    for order in [ServeOrder::Oldest, ServeOrder::Newest] {
        let d = Demo::faulty(700, 60, |f| {
            f.order = order;
            f.coarse_times = true;
        });
        let me = d.s().data().agents[0];
        // In API order: the server keeps its list in the order it serves.
        let rows = served(&d);
        let want: Vec<String> = rows
            .iter()
            .filter(|c| {
                ["open", "pending"].contains(&c.status)
                    && (c.assignee_id.is_none() || c.assignee_id == Some(me))
            })
            .map(|c| c.id.to_string())
            .collect();
        let ties = rows
            .windows(2)
            .filter(|w| w[0].created_at == w[1].created_at)
            .count();
        assert!(
            ties > 50,
            "{order:?}: the data has rows of the same second: {ties}"
        );
        let o = list_q(&d, me, FOUR, "--all --limit 9 --format jsonl");
        assert!(o.status.success(), "{order:?}: {}", err(&o));
        assert_eq!(
            ids(&o),
            want,
            "{order:?}: in the served order, ties included"
        );
    }
}

/// A union's streams share the client's `max_parallel` and nothing else caps them: six
/// streams with `max_parallel = 6` have more than four first pages in flight at once (the
/// union held a cap of 4 of its own; the client sends a service's first request before the
/// others, to open the connection they share, so five or six), and `max_parallel = 2` holds.
#[test]
fn a_union_honours_max_parallel() {
    for (max_parallel, want) in [(6, 5..=6), (2, 2..=2)] {
        let d = Demo::with(convo::demo::DemoOptions {
            seed: 7,
            conversations: 300,
            visitors: 30,
            latency: std::time::Duration::from_millis(150),
            ..convo::demo::DemoOptions::default()
        });
        let me = d.s().data().agents[0];
        let tmp = tempfile::tempdir().unwrap();
        let cfg = tmp.path().join("config.toml");
        std::fs::write(
            &cfg,
            format!("agent_id = \"{me}\"\nstore = false\nmax_parallel = {max_parallel}\n"),
        )
        .unwrap();
        let o = convo_cmd(tmp.path())
            .env("CONVO_API_KEY", d.key())
            .env("CONVO_CONFIG", &cfg)
            .args(["--base-url", &d.url(), "list", "conversations", "-q"])
            .arg("status:open,pending,closed assignee:none,me")
            .args(["--all", "--limit", "100", "--format", "jsonl"])
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", err(&o));
        let peak = d.s().peak_concurrency();
        assert!(
            want.contains(&peak),
            "max_parallel = {max_parallel}: {peak} of six streams' first pages at once"
        );
    }
}

/// Flags are terms of the same query; a negation walks wider and drops rows in convo, keeping
/// statuses convo does not know.
#[test]
fn flags_mix_with_a_query_and_a_negation_keeps_unknown_statuses() {
    let d = Demo::faulty(300, 40, |f| f.unknown_status = true);
    let rows = served(&d);
    let me = d.s().data().agents[0];
    let o = list_q(
        &d,
        me,
        "-status:closed",
        "--unassigned true --all --format jsonl",
    );
    ok(&o);
    let want: Vec<String> = rows
        .iter()
        .filter(|c| c.status != "closed" && c.assignee_id.is_none())
        .map(|c| c.id.to_string())
        .collect();
    assert!(
        rows.iter()
            .any(|c| c.status == "snoozed" && c.assignee_id.is_none())
    );
    assert_eq!(ids(&o), want);
}

/// `--max N` counts rows that pass convo's checks, and a screenful of a four-stream union
/// costs one request a stream.
#[test]
fn max_counts_passing_rows_and_a_screenful_is_one_request_a_stream() {
    let (d, me) = demo(400, 40);
    let before = d.requests();
    let o = list_q(&d, me, FOUR, "--max 5 --format jsonl");
    ok(&o);
    assert_eq!(ids(&o).len(), 5);
    assert_eq!(d.requests() - before, 4, "four first pages, nothing more");
    // A check in convo: --max counts what passes, however many pages that takes.
    let rows = served(&d);
    let want: Vec<String> = rows
        .iter()
        .filter(|c| c.status != "open")
        .take(30)
        .map(|c| c.id.to_string())
        .collect();
    let o = list_q(&d, me, "-status:open", "--max 30 --limit 7 --format jsonl");
    ok(&o);
    assert_eq!(ids(&o), want);
}

/// A bad query exits 2 with the query, a caret and the message, before any request.
#[test]
fn a_bad_query_exits_2_before_any_request() {
    let (d, me) = demo(50, 10);
    for (q, caret) in [
        ("status:open status:pending", "              ^^^^^^^^^^^^^^"),
        ("site:Nowhere", "       ^^^^^^^"),
        ("stauts:open", "  ^^^^^^^"),
    ] {
        let before = d.requests();
        let o = run(&d, me, &["conversations", "-q", q]);
        assert_eq!(o.status.code(), Some(2), "{q}: {}", err(&o));
        let e = err(&o);
        assert!(e.contains(&format!("  {q}\n{caret}\n")), "{q}: {e}");
        assert_eq!(d.requests(), before, "{q}: no request");
    }
    let o = run(
        &d,
        me,
        &["conversations", "-q", "status:open status:pending"],
    );
    says(&o, "use status:open,pending");
    // `me` without agent_id names the key.
    let tmp = tempfile::tempdir().unwrap();
    let o = convo_cmd(tmp.path())
        .env("CONVO_API_KEY", d.key())
        .args([
            "--base-url",
            &d.url(),
            "list",
            "conversations",
            "-q",
            "assignee:me",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    says(&o, "agent_id");
}

/// A stream that fails does not hide the others: their rows are printed, the failed one is
/// named, and the exit code is 5.
#[test]
fn a_failed_stream_is_named_and_the_others_rows_shown() {
    let d = Demo::faulty(300, 40, |f| {
        f.fail_first = 1;
        f.fail_status = 403;
    });
    let me = d.s().data().agents[0];
    let o = list_q(&d, me, "status:open,pending,closed", "--all --format jsonl");
    assert_eq!(o.status.code(), Some(5), "{}", err(&o));
    let e = err(&o);
    assert!(e.contains("of 3 (GET /v1/conversations?status="), "{e}");
    assert!(e.contains("failed"), "{e}");
    let got: HashSet<String> = ids(&o).into_iter().collect();
    let rows = served(&d);
    // Exactly the rows of the two streams that answered.
    let statuses: HashSet<&str> = rows
        .iter()
        .filter(|c| got.contains(&c.id.to_string()))
        .map(|c| c.status)
        .collect();
    assert_eq!(statuses.len(), 2, "{statuses:?}");
    let want = rows.iter().filter(|c| statuses.contains(c.status)).count();
    assert_eq!(got.len(), want);
}

/// `--explain` prints the plan and sends no list request.
#[test]
fn explain_prints_each_stream_and_the_checks() {
    let (d, me) = demo(50, 10);
    let before = d.requests();
    let o = list_q(
        &d,
        me,
        "status:open,pending assignee:none,me age:>10m",
        "--explain",
    );
    ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("streams: 4"), "{out}");
    assert!(
        out.contains(&format!(
            "GET /v1/conversations?status=pending&assignee_id={me}"
        )),
        "{out}"
    );
    assert!(out.contains("age:>10m"), "{out}");
    assert_eq!(d.requests(), before);
}

/// Visitors: e-mails are streams, attributes are checked in convo.
#[test]
fn visitors_query() {
    let (d, me) = demo(50, 80);
    let vs = &d.s().data().visitors;
    let emails: Vec<String> = vs.iter().filter_map(|v| v.email.clone()).take(3).collect();
    let q = format!("email:{}", emails.join(","));
    let o = run(
        &d,
        me,
        &["visitors", "-q", &q, "--all", "--format", "jsonl"],
    );
    ok(&o);
    let want: Vec<String> = vs
        .iter()
        .filter(|v| v.email.as_ref().is_some_and(|e| emails.contains(e)))
        .map(|v| v.id.to_string())
        .collect();
    assert_eq!(ids(&o), want);
}

/// `convo summary conversations ARGS` (see [`convo`]).
fn summary(d: &Demo, me: Uuid, args: &[&str]) -> std::process::Output {
    convo(d, me, &[&["summary", "conversations"][..], args].concat())
}

/// `summary -q` counts exactly the rows the query lists; its JSON carries the query and each
/// bucket the query that lists it; Prometheus labels every sample with the query.
#[test]
fn summary_counts_a_query_and_carries_it() {
    let (d, me) = demo(500, 40);
    let rows = served(&d);
    let q = "status:open,pending assignee:none,me -site:00000000-0000-0000-0000-000000000000";
    let o = summary(&d, me, &["-q", q, "--by", "status", "--format", "json"]);
    ok(&o);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["query"], q);
    let count = |st: &str| {
        rows.iter()
            .filter(|c| c.status == st && (c.assignee_id.is_none() || c.assignee_id == Some(me)))
            .count() as u64
    };
    assert_eq!(v["loaded"], count("open") + count("pending"));
    assert_eq!(v["complete"], true);
    for b in v["buckets"].as_array().unwrap() {
        let st = b["key"].as_str().unwrap();
        assert_eq!(b["count"], count(st), "{st}");
        // The bucket's query lists exactly its rows.
        let bq = b["query"].as_str().unwrap();
        assert_eq!(
            bq,
            format!("assignee:none,me -site:00000000-0000-0000-0000-000000000000 status:{st}")
        );
        let l = list_q(&d, me, bq, "--all --format jsonl");
        assert_eq!(ids(&l).len() as u64, count(st), "{bq}");
    }
    let o = summary(
        &d,
        me,
        &["-q", "status:open,pending", "--format", "prometheus"],
    );
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!(
            "convo_conversations{{status=\"open\",query=\"status:open,pending\"}} {}\n",
            rows.iter().filter(|c| c.status == "open").count()
        )),
        "{text}"
    );
    // A bad query: exit 2 before any request.
    let before = d.requests();
    let o = summary(&d, me, &["-q", "is:busy"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(&o, "  is:busy\n     ^^^^\n");
    assert_eq!(d.requests(), before);
}

/// Streams that disagree on the order (`--order mixed`: pending oldest first, open newest
/// first): each stream's rows in turn, every row once, and stderr says so.
#[test]
fn streams_that_disagree_are_given_in_turn() {
    let d = Demo::faulty(400, 40, |f| f.order = ServeOrder::Mixed);
    let me = d.s().data().agents[0];
    let rows = served(&d);
    let open: Vec<String> = rows
        .iter()
        .filter(|c| c.status == "open")
        .map(|c| c.id.to_string())
        .collect();
    let pending: Vec<String> = rows
        .iter()
        .rev()
        .filter(|c| c.status == "pending")
        .map(|c| c.id.to_string())
        .collect();
    let o = list_q(
        &d,
        me,
        "status:open,pending",
        "--all --limit 20 --format jsonl",
    );
    ok(&o);
    assert_eq!(ids(&o), [open, pending].concat());
    says(&o, "order: as the service sends each part");
}

/// A row that two streams return (it moved from one to the other mid-walk) is given once.
#[test]
fn a_row_two_streams_return_is_given_once() {
    use convo::api::{Assignee, Conversation, ConversationFilter, Limit};
    use convo::demo::Churn;
    use convo::query::exec::Union;
    let d = Demo::faulty(1000, 40, |f| {
        f.churn = Churn {
            scripted: true,
            ..Churn::default()
        }
    });
    let me = d.s().data().agents[0];
    let rows = d.s().conversations_now();
    let unassigned: Vec<&DemoConversation> =
        rows.iter().filter(|c| c.assignee_id.is_none()).collect();
    let mine: Vec<&DemoConversation> = rows.iter().filter(|c| c.assignee_id == Some(me)).collect();
    // The last of my first page is older than the unassigned stream's first page: once it is
    // unassigned, the unassigned stream's later pages hold it too.
    let x = mine[9];
    assert!(
        unassigned[9].created_at > x.created_at,
        "precondition of the data"
    );
    let streams = vec![
        ConversationFilter {
            assignee: Assignee::Unassigned,
            ..ConversationFilter::default()
        },
        ConversationFilter {
            assignee: Assignee::Agent(me),
            ..ConversationFilter::default()
        },
    ];
    let client = d.client();
    let (seen, dups) = d.block_on(async {
        let mut u: Union<ConversationFilter, Conversation> =
            Union::new(client, streams, Limit::new(10).unwrap(), false);
        let mut seen = vec![u.next().await.expect("a row").id];
        // Both first pages are in; now the colleague unassigns x.
        assert!(d.s().assign(x.id, None));
        while let Some(r) = u.next().await {
            seen.push(r.id);
        }
        (seen, u.duplicates())
    });
    assert_eq!(seen.iter().filter(|id| **id == x.id).count(), 1);
    assert_eq!(dups, 1, "the second copy was dropped");
    let unique: HashSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len());
}

/// A query nothing can match sends no list request and says why.
#[test]
fn a_query_nothing_can_match_says_why() {
    let (d, me) = demo(50, 10);
    let before = d.requests();
    let o = list_q(&d, me, "visitor:nobody@nowhere.example", "--all");
    // As --visitor-email, the same term: exit 2 (issue 32).
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(&o, "no visitor has the e-mail \"nobody@nowhere.example\"");
    // One request: the e-mail's lookup; no list request.
    assert_eq!(d.requests() - before, 1);
    let o = list_q(&d, me, "is:waiting status:closed", "--all");
    says(&o, "no combination of values can match");
}

/// `[[views]] query = "…"`: the browser opens on the view with the query's filter, or runs a
/// query one request cannot answer itself.
#[test]
fn a_saved_view_written_as_a_query() {
    let (d, me) = demo(50, 10);
    let site = d.s().data().sites[0];
    let tmp = tempfile::tempdir().unwrap();
    let cfg_path = tmp.path().join("config.toml");
    let text = format!(
        "agent_id = \"{me}\"\nstore = false\n[aliases]\n\"{site}\" = \"Web shop\"\n\
         [[views]]\nname = \"Mine\"\nquery = \"assignee:me status:open site:'x'\"\n"
    )
    .replace("site:'x'", "site:\\\"web shop\\\"");
    std::fs::write(&cfg_path, &text).unwrap();
    // The config as the binary would load it, against the demo.
    let load = |text: &str| {
        convo::config::Config::from_toml_str(
            text,
            &cfg_path,
            &convo::config::Overrides {
                base_url: Some(d.url()),
                ..Default::default()
            },
            &|k| (k == "CONVO_API_KEY").then(|| d.key()),
        )
        .unwrap()
    };
    // The browser's state as it opens on `view`.
    let open_on = |cfg: &convo::config::Config, view: &str| {
        convo::tui::app_from_config(
            cfg,
            &d.client(),
            &convo::tui::TuiOptions {
                initial_view: Some(view.into()),
                demo: false,
                fresh: false,
            },
        )
        .unwrap()
    };
    let cfg = load(&text);
    let app = open_on(&cfg, "Mine");
    let v = app
        .settings()
        .views()
        .iter()
        .find(|v| v.name == "Mine")
        .unwrap();
    assert_eq!(v.conversations.assignee, convo::api::Assignee::Agent(me));
    assert_eq!(v.conversations.site_id, Some(site));
    assert_eq!(v.conversations.status, Some(convo::api::Status::Open));
    assert_eq!(
        v.query.as_deref(),
        Some("assignee:me status:open site:\"web shop\"")
    );
    // The binary refuses a config it cannot run with exit 2 and a message naming what.
    let refused = |config: &str, args: &[&str], says: &str| {
        std::fs::write(&cfg_path, config).unwrap();
        let o = convo_cmd(tmp.path())
            .env("CONVO_API_KEY", d.key())
            .env("CONVO_CONFIG", &cfg_path)
            .args(["--base-url", &d.url()])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{config}: {}", err(&o));
        assert!(err(&o).contains(says), "{config}: {}", err(&o));
    };
    // A view query one request cannot answer: the browser runs it (its filters stay empty,
    // its query as written opens the view).
    let text = format!(
        "agent_id = \"{me}\"\n[[views]]\nname = \"Queue\"\nquery = \"status:open,pending -site:\\\"web shop\\\"\"\n\
         [aliases]\n\"{site}\" = \"Web shop\"\n"
    );
    let cfg = load(&text);
    let views = convo::tui::views_of(&cfg).expect("a union view is accepted");
    let q = views.iter().find(|v| v.name == "Queue").unwrap();
    assert_eq!(q.conversations, Default::default());
    assert_eq!(
        q.query.as_deref(),
        Some("status:open,pending -site:\"web shop\"")
    );
    // Opened at start, it is on its tab before the browser starts: "since you last looked"
    // and the trend are asked for under its query.
    let app = open_on(&cfg, "Queue");
    assert!(app.conversations.union().is_some());
    assert_eq!(
        convo::tui::tab::marks::look_key_of(&app.conversations),
        "query:status:open,pending -site:\"web shop\""
    );
    // Both a query and filter keys: a config error.
    refused(
        "[[views]]\nname = \"Both\"\nquery = \"status:open\"\nstatus = \"open\"\n",
        &["list", "conversations"],
        "either query or the filter keys",
    );
}

/// `convo --query QUERY` opens the browser on what the query lists (the real binary in a
/// terminal): its filters as chips and only its rows.
#[test]
fn the_browser_opens_on_a_query() {
    let d = Demo::start(300, 40, Faults::default());
    let mut t =
        common::pty::Pty::against(&d, &["--query", "status:pending assignee:none"], 120, 30);
    let screen = t.wait_until(std::time::Duration::from_secs(20), |s| {
        s.contains(" status:pending ") && s.contains(">pending")
    });
    assert!(screen.contains(" assignee:none "), "{screen}");
    let rows = screen
        .lines()
        .filter(|l| l.contains(" open ") || l.contains(" closed "))
        .count();
    assert_eq!(rows, 0, "{screen}");
    t.send(b"q");
    assert_eq!(t.wait_exit(std::time::Duration::from_secs(10)), Some(0));
}

/// `convo --query` with a query one request cannot answer (two streams): the browser runs it
/// and shows exactly the matching rows, in the served order, its text as the chip.
#[test]
fn the_browser_runs_a_union_query() {
    let d = Demo::start(600, 40, Faults::default());
    let short = |id: Uuid| id.simple().to_string()[..8].to_string();
    let want: Vec<String> = served(&d)
        .iter()
        .filter(|c| ["open", "pending"].contains(&c.status) && c.assignee_id.is_none())
        .map(|c| short(c.id))
        .collect();
    let others: Vec<String> = served(&d)
        .iter()
        .filter(|c| !(["open", "pending"].contains(&c.status) && c.assignee_id.is_none()))
        .map(|c| short(c.id))
        .collect();
    assert!(want.len() > 40, "{}", want.len());
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().display().to_string();
    let (url, key) = (d.url(), d.key());
    let mut t = common::pty::Pty::spawn(
        &[
            "--base-url",
            &url,
            "--query",
            "status:open,pending assignee:none",
        ],
        &[
            ("CONVO_API_KEY", &key),
            ("HOME", &home),
            ("CONVO_CONFIG", "/nonexistent/convo.toml"),
        ],
        120,
        30,
    );
    let screen = t.wait_until(std::time::Duration::from_secs(20), |s| {
        want[..10].iter().all(|id| s.contains(id.as_str()))
    });
    assert!(
        screen.contains(" status:open,pending   assignee:none "),
        "{screen}"
    );
    let at: Vec<usize> = want[..10]
        .iter()
        .map(|id| screen.find(id.as_str()).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "in order: {screen}");
    assert!(
        !others.iter().any(|id| screen.contains(id.as_str())),
        "no other row: {screen}"
    );
    t.send(b"q");
    assert_eq!(t.wait_exit(std::time::Duration::from_secs(10)), Some(0));
}

/// `convo ARGS` against `d` in the home `home`, with `agent_id = me`, a first-response target
/// and the clock at `now` (the same instant for every run, so `due:` compares), and `extra`
/// lines in the config.
fn convo_at(
    d: &Demo,
    me: Uuid,
    home: &std::path::Path,
    now: &str,
    extra: &str,
    args: &[&str],
) -> std::process::Output {
    let cfg = home.join("config.toml");
    std::fs::write(
        &cfg,
        format!("agent_id = \"{me}\"\n{extra}\n[sla]\nfirst_response = \"1m\"\nwarn_at = 0.5\n"),
    )
    .unwrap();
    convo_cmd(home)
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_CONFIG", &cfg)
        .env("CONVO_NOW", now)
        .arg("--base-url")
        .arg(d.url())
        .args(args)
        .output()
        .expect("runs")
}

/// Every filter flag is the term it means: a flag mixed with `-q` lists exactly the rows of
/// the query that writes that term itself (ids compared, in order), and never an empty list.
#[test]
fn each_flag_mixed_with_a_query_lists_the_rows_of_the_pure_query() {
    let (d, me) = demo(600, 40);
    let rows = served(&d);
    let home = tempfile::tempdir().unwrap();
    // The demo's clock: its newest update (its live queue's ages are measured from there).
    let now = rows.iter().map(|c| c.updated_at).max().unwrap().to_string();
    let site = d.s().data().sites[0].to_string();
    // A visitor with an e-mail and conversations, and its id.
    let (email, visitor) = d
        .s()
        .data()
        .visitors
        .iter()
        .filter(|v| rows.iter().filter(|c| c.visitor_id == v.id).count() >= 2)
        .find_map(|v| Some((v.email.clone()?, v.id.to_string())))
        .expect("a visitor with an e-mail and conversations");
    // (-q, the flags, the query that writes the flags' terms itself)
    let cases = [
        (
            "assignee:none",
            "--status open",
            "assignee:none status:open".to_string(),
        ),
        (
            "status:open,pending",
            &format!("--site-id {site}"),
            format!("status:open,pending site:{site}"),
        ),
        (
            "status:open,pending",
            "--assignee none",
            "status:open,pending assignee:none".into(),
        ),
        (
            "status:open,pending",
            "--unassigned false",
            "status:open,pending assignee:anyone".into(),
        ),
        (
            "-status:closed",
            &format!("--assignee-id {me}"),
            format!("-status:closed assignee:{me}"),
        ),
        (
            "-status:closed",
            &format!("--visitor-id {visitor}"),
            format!("-status:closed visitor:{visitor}"),
        ),
        (
            "-status:closed",
            &format!("--visitor-email {email}"),
            format!("-status:closed visitor:{email}"),
        ),
        (
            "-status:pending",
            "--breaching",
            "-status:pending due:breaching".into(),
        ),
        (
            "-status:pending",
            "--imminent",
            "-status:pending due:imminent".into(),
        ),
        (
            "idle:>1m",
            "--breaching --imminent",
            "idle:>1m due:breaching,imminent".into(),
        ),
    ];
    let jsonl = ["--all", "--format", "jsonl"];
    for (q, flags, pure) in &cases {
        let flags = common::words(flags);
        let args = [&["list", "conversations", "-q", q][..], &flags, &jsonl].concat();
        let mixed = convo_at(&d, me, home.path(), &now, "store = false", &args);
        let case = format!("-q {q:?} {}", flags.join(" "));
        assert!(mixed.status.success(), "{case}: {}", err(&mixed));
        let args = [&["list", "conversations", "-q", pure][..], &jsonl].concat();
        let alone = convo_at(&d, me, home.path(), &now, "store = false", &args);
        assert!(alone.status.success(), "{pure}: {}", err(&alone));
        assert!(
            !ids(&alone).is_empty(),
            "{pure}: no row, the case proves nothing"
        );
        assert_eq!(ids(&mixed), ids(&alone), "{case} against -q {pure:?}");
        if pure.contains("due:") {
            // As without -q, each row says its due_secs (the plain walk's, for the same id).
            let due = |o: &std::process::Output| -> Vec<(String, i64)> {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                text.lines()
                    .map(|l| {
                        let v: Value = serde_json::from_str(l).unwrap();
                        let secs = v["due_secs"].as_i64();
                        (v["id"].as_str().unwrap().to_string(), secs.expect(l))
                    })
                    .collect()
            };
            let plain = [
                &["list", "conversations", "--breaching", "--imminent"][..],
                &jsonl,
            ];
            let plain = convo_at(&d, me, home.path(), &now, "store = false", &plain.concat());
            ok(&plain);
            let plain = due(&plain);
            for (id, secs) in due(&mixed) {
                assert!(plain.contains(&(id.clone(), secs)), "{case}: {id} {secs}");
            }
        }
    }
}

/// A field given by a flag and by `-q` is the error of a field given twice: exit 2 before any
/// request, the flag named, and what to write instead; on `summary` too.
#[test]
fn a_field_given_by_a_flag_and_the_query_names_the_flag() {
    let (d, me) = demo(60, 10);
    let home = tempfile::tempdir().unwrap();
    let now = "2026-11-25T12:00:00Z";
    let visitor = d.s().data().visitors[0].id.to_string();
    let cases = [
        (
            "list",
            "status:pending",
            "--status open",
            "use status:pending,open in -q instead of --status",
        ),
        (
            "list",
            "due:imminent",
            "--breaching",
            "use due:imminent,breaching in -q instead of --breaching",
        ),
        (
            "list",
            "visitor:a@example.com",
            &format!("--visitor-id {visitor}"),
            "instead of --visitor-id",
        ),
        (
            "list",
            "visitor:a@example.com",
            "--visitor-email b@example.com",
            "use visitor:a@example.com,b@example.com in -q instead of --visitor-email",
        ),
        (
            "list",
            "assignee:me",
            "--unassigned true",
            "use assignee:me,none in -q instead of --unassigned",
        ),
        (
            "summary",
            "status:pending",
            "--status open",
            "use status:pending,open in -q instead of --status",
        ),
    ];
    for (command, q, flags, hint) in cases {
        let before = d.requests();
        let args = [
            &[command, "conversations", "-q", q][..],
            &common::words(flags),
        ]
        .concat();
        let o = convo_at(&d, me, home.path(), now, "store = false", &args);
        let case = format!("{command} -q {q:?} {flags}");
        assert_eq!(o.status.code(), Some(2), "{case}: {}", err(&o));
        let e = err(&o);
        assert!(
            e.contains(&format!("{flags}: ")),
            "{case}: the flag is named: {e}"
        );
        assert!(e.contains("given twice"), "{case}: {e}");
        assert!(e.contains(hint), "{case}: {e}");
        assert!(!e.contains("cannot be used with"), "{case}: {e}");
        assert_eq!(d.requests(), before, "{case}: no request");
    }
    // Without -q too: two flags for one field are the same error, not clap's.
    let args = [
        "list",
        "conversations",
        "--visitor-id",
        &visitor,
        "--visitor-email",
        "b@example.com",
    ];
    let o = convo_at(&d, me, home.path(), now, "store = false", &args);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(&o, "--visitor-email b@example.com: visitor given twice");
    says(&o, "in -q instead of --visitor-id and --visitor-email)");
    // Two assignee flags: with -q the parser's error, without it the filter's, each naming
    // both flags and saying what to write; never clap's "cannot be used with".
    let with_q = [
        "list",
        "conversations",
        "-q",
        "status:open",
        "--assignee",
        "none",
        "--assignee-id",
        &visitor,
    ];
    let o = convo_at(&d, me, home.path(), now, "store = false", &with_q);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(&o, "in -q instead of --assignee and --assignee-id)");
    for command in ["list", "summary"] {
        let args = [
            command,
            "conversations",
            "--assignee",
            "none",
            "--unassigned",
            "true",
        ];
        let o = convo_at(&d, me, home.path(), now, "store = false", &args);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", err(&o));
        says(
            &o,
            "--assignee and --unassigned both set the assignee: give one",
        );
        says(&o, "-q 'assignee:none,UUID'");
    }
}

/// `--explain` shows the query the flags and `-q` make together.
#[test]
fn explain_shows_the_flags_in_the_query() {
    let (d, me) = demo(60, 10);
    let home = tempfile::tempdir().unwrap();
    let args = common::words(
        "list conversations -q -status:closed --breaching --unassigned true --explain",
    );
    let o = convo_at(
        &d,
        me,
        home.path(),
        "2026-11-25T12:00:00Z",
        "store = false",
        &args,
    );
    ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    common::assert_has(&out, "query: -status:closed assignee:none due:breaching\n");
    // due: measures waiting conversations: only those are asked for, as --breaching alone does.
    common::assert_has(&out, "GET /v1/conversations?status=open&unassigned=true\n");
    common::assert_has(
        &out,
        "from the flags: assignee:none (--unassigned true), due:breaching (--breaching)",
    );
}

/// `--with-visitor` is an output option: with `-q` (a union of two streams) each row carries
/// its visitor from the local store, and the rows are the query's.
#[test]
fn with_visitor_joins_the_rows_of_a_query() {
    let (d, me) = demo(200, 30);
    let home = tempfile::tempdir().unwrap();
    let now = "2026-11-25T12:00:00Z";
    // The store learns the visitors.
    let o = convo_at(&d, me, home.path(), now, "", &["list", "visitors", "--all"]);
    ok(&o);
    let q = "status:open,pending assignee:none,me";
    let jsonl = ["--all", "--format", "jsonl"];
    let alone = convo_at(
        &d,
        me,
        home.path(),
        now,
        "",
        &[&["list", "conversations", "-q", q][..], &jsonl].concat(),
    );
    ok(&alone);
    let args = [
        &["list", "conversations", "-q", q, "--with-visitor"][..],
        &jsonl,
    ]
    .concat();
    let joined = convo_at(&d, me, home.path(), now, "", &args);
    ok(&joined);
    assert!(!ids(&alone).is_empty());
    assert_eq!(ids(&joined), ids(&alone));
    let visitors = &d.s().data().visitors;
    for line in String::from_utf8_lossy(&joined.stdout).lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        let v = visitors
            .iter()
            .find(|v| row["visitorId"] == v.id.to_string())
            .expect("a visitor of the demo");
        assert_eq!(row["visitor"]["id"], v.id.to_string(), "{line}");
        assert_eq!(row["visitor"]["name"].as_str(), v.name.as_deref(), "{line}");
        assert_eq!(
            row["visitor"]["email"].as_str(),
            v.email.as_deref(),
            "{line}"
        );
    }
    // CSV: the visitor's columns after the row's.
    let args = [
        "list",
        "conversations",
        "-q",
        q,
        "--with-visitor",
        "--format",
        "csv",
        "--max",
        "3",
    ];
    let csv = convo_at(&d, me, home.path(), now, "", &args);
    ok(&csv);
    let header = String::from_utf8_lossy(&csv.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        header
            .ends_with("visitorKnown,visitorName,visitorEmail,visitorExternalId,visitorAttributes"),
        "{header}"
    );
    // --breaching with --with-visitor (no -q) goes through the query: the rows of
    // due:breaching, each with its visitor.
    let clock = served(&d)
        .iter()
        .map(|c| c.updated_at)
        .max()
        .unwrap()
        .to_string();
    let at_clock = |line: &str| {
        let args = [&common::words(line)[..], &jsonl].concat();
        let o = convo_at(&d, me, home.path(), &clock, "", &args);
        ok(&o);
        o
    };
    let flagged = at_clock("list conversations --breaching --with-visitor");
    let pure = at_clock("list conversations -q due:breaching");
    assert!(!ids(&pure).is_empty());
    assert_eq!(ids(&flagged), ids(&pure));
    for line in String::from_utf8_lossy(&flagged.stdout).lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        assert_eq!(row["visitor"]["id"], row["visitorId"], "{line}");
    }
}

/// `summary -q` with a filter flag counts what the query with the flag's term counts, and
/// carries the query they make together.
#[test]
fn summary_flags_mix_with_a_query() {
    let (d, me) = demo(400, 40);
    let site = d.s().data().sites[0].to_string();
    let json = |args: &[&str]| -> Value {
        let o = summary(&d, me, &[args, &["--format", "json"][..]].concat());
        ok(&o);
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let mixed = json(&[
        "-q",
        "status:open,pending",
        "--site-id",
        &site,
        "--by",
        "assignee",
    ]);
    let pure = json(&[
        "-q",
        &format!("status:open,pending site:{site}"),
        "--by",
        "assignee",
    ]);
    assert_eq!(mixed["query"], pure["query"]);
    // Each bucket's count (their ages move with the clock between the two runs).
    let counts = |v: &Value| -> Vec<(Value, Value)> {
        let buckets = v["buckets"].as_array().unwrap();
        buckets
            .iter()
            .map(|b| (b["key"].clone(), b["count"].clone()))
            .collect()
    };
    assert_eq!(counts(&mixed), counts(&pure));
    let want = served(&d)
        .iter()
        .filter(|c| c.site_id.to_string() == site && c.status != "closed")
        .count();
    assert!(want > 0);
    assert_eq!(mixed["loaded"], want as u64);
}

/// `--visitor-email` with `-q` keeps its word: an e-mail no visitor has exits 2 and says so,
/// before any conversation is asked for.
#[test]
fn a_visitor_email_nobody_has_exits_2_with_a_query() {
    let (d, me) = demo(60, 10);
    let o = list_q(
        &d,
        me,
        "status:open",
        "--visitor-email nobody@nowhere.example",
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(&o, "no visitor has the e-mail \"nobody@nowhere.example\"");
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// `--explain` estimates the requests a query will send, per stream, from the page size and
/// the counts seen (a summary of the same filter), and says it is an estimate; it sends none.
#[test]
fn explain_estimates_the_requests_from_the_counts_seen() {
    let (d, _) = demo(300, 10);
    let home = tempfile::tempdir().unwrap();
    let cmd = |args: &[&str]| {
        let o = convo_cmd(home.path())
            .env("CONVO_API_KEY", d.key())
            .arg("--base-url")
            .arg(d.url())
            .args(args)
            .output()
            .expect("runs");
        ok(&o);
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let explain = [
        "list",
        "conversations",
        "-q",
        "status:open,pending",
        "--all",
    ];
    let before = d.requests();
    let out = cmd(&[&explain[..], &["--explain", "--limit", "20"]].concat());
    common::assert_has(
        &out,
        "requests (an estimate, from 20 rows a page and the counts seen):\n  \
         1. at least 1 request (one per 20 rows; no count seen",
    );
    common::assert_has(&out, "in all: at least 2");
    assert_eq!(d.requests(), before, "--explain sends nothing");

    // A summary of `status=open` counts its rows; the estimate uses the count.
    cmd(&["summary", "conversations", "--status", "open"]);
    let open = common::count(d.s(), |c| c.status == "open");
    assert!(open > 20, "{open}");
    let before = d.requests();
    let out = cmd(&[&explain[..], &["--explain", "--limit", "20"]].concat());
    common::assert_has(
        &out,
        &format!(
            "  1. {} requests ({open} rows when counted ",
            open.div_ceil(20)
        ),
    );
    common::assert_has(&out, "  2. at least 1 request");
    assert_eq!(d.requests(), before, "--explain sends nothing");
    // One page: one request a stream.
    let out = cmd(&["list", "conversations", "-q", "status:open", "--explain"]);
    common::assert_has(&out, "  1. 1 request (one page)\n  in all: about 1\n");
}
