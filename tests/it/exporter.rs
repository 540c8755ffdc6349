//! `convo exporter` as a team runs it: the real binary against a demo server on a random port,
//! scraped over HTTP. What it serves is compared with `convo summary --views` on the same data.

use crate::common;

use std::time::{Duration, Instant};

use common::exporter::{Exporter, sample};
use common::{Demo, assert_has, convo_cmd};
use convo::demo::{DemoOptions, Faults, LimitHeaders, RequestBudget};

const NOW: &str = "2026-11-22T12:30:00Z";

/// Targets that make the demo's live queue imminent and breaching at [`NOW`], and three saved
/// views (one on the visitors tab).
const CONFIG: &str = "[sla]\nfirst_response = \"40m\"\nresolution = \"60d\"\nwarn_at = 0.5\n\n\
[[views]]\nname = \"Pending\"\nquery = \"status:pending\"\n\n\
[[views]]\nname = \"Old open\"\nquery = \"status:open age:>1d\"\n\n\
[[views]]\nname = \"Visitors\"\ntab = \"visitors\"\n";

/// The five views of [`CONFIG`]: two built-in, three saved.
const VIEWS: usize = 5;

fn config(home: &tempfile::TempDir, text: &str) -> String {
    common::exporter::config_file(home.path(), text)
}

fn demo(conversations: usize) -> Demo {
    Demo::start(conversations, 40, Faults::default())
}

/// The series of the views (not the exporter's own, not the times) from exposition text.
fn view_series(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| {
            !l.starts_with("convo_view_last_complete_walk")
                && !l.starts_with("convo_view_walk_duration")
                && !l.starts_with("convo_view_figures_age")
                && !l.starts_with("convo_exporter_")
                && !l.starts_with("convo_api_")
                && !l.starts_with("convo_build_info")
                && !l.starts_with("convo_sla_target")
        })
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

#[test]
fn metrics_serve_every_view_as_summary_views_counts_it() {
    let d = demo(600);
    let home = tempfile::tempdir().unwrap();
    let cfg = config(&home, CONFIG);
    let once = convo_cmd(home.path())
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_NOW", NOW)
        .args(["--config", &cfg, "--base-url", &d.url()])
        .args(["summary", "--views", "--format", "prometheus"])
        .output()
        .unwrap();
    assert!(
        once.status.success(),
        "{}",
        String::from_utf8_lossy(&once.stderr)
    );
    let once = String::from_utf8(once.stdout).unwrap();
    let e = exporter_with_now(&d, &home, &cfg, &["--interval", "1h"]);
    let text = e.metrics_when_read(VIEWS);
    assert_eq!(
        view_series(&text),
        view_series(&once),
        "exporter:\n{text}\nsummary --views:\n{once}"
    );
    // Every view, its counts by status, its waiting, oldest wait, imminent and breaching.
    for view in [
        "Unassigned open",
        "Breaching",
        "Pending",
        "Old open",
        "Visitors",
    ] {
        assert_eq!(
            sample(&text, "convo_view_up", &format!("view=\"{view}\"")),
            Some(1.0),
            "{view}:\n{text}"
        );
    }
    let breaching = sample(
        &text,
        "convo_conversations_breaching",
        "status=\"open\",view=\"Breaching\"",
    )
    .unwrap();
    assert!(breaching > 0.0, "the demo's queue breaches at NOW:\n{text}");
    assert!(
        sample(
            &text,
            "convo_conversations",
            "status=\"pending\",view=\"Pending\""
        )
        .unwrap()
            > 0.0
    );
    assert_eq!(
        sample(
            &text,
            "convo_sla_target_seconds",
            "target=\"first_response\""
        ),
        Some(2400.0)
    );
    assert!(
        sample(
            &text,
            "convo_api_requests_total",
            "endpoint=\"conversations\",status=\"200\""
        )
        .unwrap()
            > 0.0
    );
    assert!(
        sample(
            &text,
            "convo_api_requests_total",
            "endpoint=\"visitors\",status=\"200\""
        )
        .unwrap()
            > 0.0
    );
    assert_eq!(sample(&text, "convo_api_rate_limited_total", ""), Some(0.0));
    assert_eq!(
        sample(&text, "convo_exporter_interval_seconds", ""),
        Some(3600.0)
    );
    // A visitors view has a count and no conversation gauges.
    assert_eq!(
        sample(&text, "convo_view_matches", "view=\"Visitors\""),
        Some(40.0)
    );
    assert!(
        !text.contains("status=\"open\",view=\"Visitors\""),
        "{text}"
    );
    if common::have(&common::PROMTOOL)
        && let Some(lint) = promtool_check_metrics(&text)
    {
        assert!(lint.is_empty(), "promtool check metrics:\n{lint}");
    }
}

/// The exporter with `CONVO_NOW` set, so its ages are measured to [`NOW`].
fn exporter_with_now(d: &Demo, home: &tempfile::TempDir, cfg: &str, args: &[&str]) -> Exporter {
    Exporter::start_env(d, home.path(), Some(cfg), args, &[("CONVO_NOW", NOW)])
}

/// What `promtool check metrics` says of the text (empty: nothing), or `None` without it.
fn promtool_check_metrics(text: &str) -> Option<String> {
    use std::io::Write;
    let mut child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    Some(format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    ))
}

#[test]
fn scrapes_never_walk_one_walk_per_view_per_interval() {
    let d = demo(200);
    let home = tempfile::tempdir().unwrap();
    let e = Exporter::start(&d, home.path(), None, &["--interval", "1h"]);
    let first = e.metrics_when_read(1);
    // No first-response target in the config: no "Breaching" view (`due:breaching` needs one).
    assert!(!first.contains("view=\"Breaching\""), "{first}");
    let served = d.requests();
    for _ in 0..10 {
        let (status, _) = e.get("/metrics");
        assert_eq!(status, 200);
    }
    let later = e.get("/metrics").1;
    assert_eq!(
        d.requests(),
        served,
        "a scrape sent a request to the service"
    );
    let sent = |t: &str| {
        sample(
            t,
            "convo_api_requests_total",
            "endpoint=\"conversations\",status=\"200\"",
        )
    };
    assert_eq!(sent(&later), sent(&first));
    assert_eq!(sample(&later, "convo_exporter_rounds_total", ""), Some(1.0));
}

#[test]
fn a_walk_under_way_is_never_served_only_the_last_complete_one() {
    // A view of some 15 pages at 10 rows a page, 100 ms a request: its walk takes about 1.5 s,
    // during which its figures must stay those of the walk before.
    let d = Demo::with(DemoOptions {
        seed: 7,
        conversations: 500,
        visitors: 10,
        latency: Duration::from_millis(100),
        ..DemoOptions::default()
    });
    let closed = common::count(&d, |c| c.status == "closed") as f64;
    assert!(closed > 100.0, "several pages: {closed}");
    let home = tempfile::tempdir().unwrap();
    let cfg = config(
        &home,
        "[[views]]\nname = \"Closed\"\nquery = \"status:closed\"\n",
    );
    let e = Exporter::start(
        &d,
        home.path(),
        Some(&cfg),
        &["--interval", "1s", "--limit", "10", "--max-pages", "1000"],
    );
    let view = "view=\"Closed\"";
    let t0 = Instant::now();
    let mut seen = Vec::new();
    let mut rounds = 0.0;
    while t0.elapsed() < Duration::from_secs(60) && rounds < 2.0 {
        let text = e.get("/metrics").1;
        rounds = sample(&text, "convo_exporter_rounds_total", "").unwrap_or(0.0);
        seen.push(sample(&text, "convo_view_matches", view));
        std::thread::sleep(Duration::from_millis(40));
    }
    assert!(rounds >= 2.0, "two rounds in 60 s");
    // Absent until the first walk ends, then the whole count, never a part of it.
    let first = seen.iter().position(Option::is_some).expect("read once");
    assert!(first > 0, "a scrape came before the first walk ended");
    assert!(
        seen[first..].iter().all(|v| *v == Some(closed)),
        "a half walk was served: {:?} (the view has {closed})",
        seen.iter()
            .flatten()
            .filter(|v| **v != closed)
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_failing_view_keeps_its_last_values_and_says_so() {
    // The service answers the first round's request (one view: no target, no "Breaching"),
    // then only 500s.
    let d = Demo::faulty(200, 10, |f| f.fail_after = Some(1));
    let home = tempfile::tempdir().unwrap();
    let e = Exporter::start(
        &d,
        home.path(),
        None,
        &["--interval", "1s", "--limit", "100"],
    );
    let good = e.metrics_when_read(1);
    let view = "view=\"Unassigned open\"";
    let matches = sample(&good, "convo_view_matches", view).expect("counted");
    let waiting = sample(
        &good,
        "convo_conversations_waiting",
        &format!("status=\"open\",{view}"),
    );
    let read_at = sample(
        &good,
        "convo_view_last_complete_walk_timestamp_seconds",
        view,
    );
    let t0 = Instant::now();
    let text = loop {
        let text = e.get("/metrics").1;
        if sample(&text, "convo_view_up", view) == Some(0.0) {
            break text;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "never failed:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(
        sample(&text, "convo_view_matches", view),
        Some(matches),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "convo_conversations_waiting",
            &format!("status=\"open\",{view}")
        ),
        waiting
    );
    assert_eq!(
        sample(
            &text,
            "convo_view_last_complete_walk_timestamp_seconds",
            view
        ),
        read_at,
        "the figures are still the first walk's"
    );
    assert!(
        sample(
            &text,
            "convo_exporter_walks_total",
            &format!("{view},result=\"error\"")
        )
        .unwrap()
            >= 1.0
    );
    assert!(
        sample(
            &text,
            "convo_api_requests_total",
            "endpoint=\"conversations\",status=\"500\""
        )
        .unwrap()
            >= 1.0
    );
    // Said once, not at every failed round.
    let errors = format!("{view},result=\"error\"");
    while sample(&e.get("/metrics").1, "convo_exporter_walks_total", &errors) < Some(2.0) {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no second failed walk"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let said = e.stderr.lock().unwrap().clone();
    assert_has(
        &said,
        "convo exporter: view \"Unassigned open\": the walk failed: ",
    );
    assert_eq!(
        said.matches("\"Unassigned open\": the walk failed").count(),
        1,
        "{said}"
    );
    let (_, page) = e.get("/");
    assert_has(&page, "Unassigned open: read at");
    assert_has(&page, "last walk failed: ");
    assert_has(&page, "500");
}

#[test]
fn healthz_and_unknown_paths() {
    let d = demo(50);
    let home = tempfile::tempdir().unwrap();
    let e = Exporter::start(&d, home.path(), None, &[]);
    assert_eq!(e.get("/healthz"), (200, "ok\n".to_string()));
    let (status, body) = e.get("/metrics/../secret");
    assert_eq!(status, 404, "{body}");
    assert_has(&body, "/metrics, /healthz");
    let (status, page) = e.get("/");
    assert_eq!(status, 200);
    assert_has(&page, "/metrics");
}

#[test]
fn sigterm_stops_it_cleanly() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let d = demo(50);
    let home = tempfile::tempdir().unwrap();
    let mut e = Exporter::start(&d, home.path(), None, &["--interval", "1s"]);
    e.metrics_when_read(1);
    kill(Pid::from_raw(e.child.id() as i32), Signal::SIGTERM).unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = e.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "still running 10 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    // Its stderr is read by a thread of ours: until that thread has read the last line.
    let t0 = Instant::now();
    while !e.stderr.lock().unwrap().contains("convo exporter: stopped")
        && t0.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_has(&e.stderr.lock().unwrap(), "convo exporter: stopped");
    assert!(
        std::net::TcpStream::connect(&e.addr).is_err(),
        "still listening"
    );
}

#[test]
fn the_key_is_never_in_an_answer() {
    // The service puts the key in every error body (and answers 500): the walks fail with
    // errors the client scrubbed; nothing served holds the key.
    let d = Demo::faulty(50, 10, |f| f.echo_key = Some(500));
    let home = tempfile::tempdir().unwrap();
    let key = d.key();
    let e = Exporter::start(&d, home.path(), None, &["--interval", "1s"]);
    let text = e.metrics_when_read(1);
    assert_eq!(
        sample(&text, "convo_view_up", "view=\"Unassigned open\""),
        Some(0.0),
        "{text}"
    );
    let secret = &key["sk_".len()..];
    for path in ["/metrics", "/", "/healthz", "/nope", "/metrics?key=1"] {
        let (_, body) = e.get(path);
        assert!(!body.contains(secret), "{path} holds the key:\n{body}");
    }
    let (_, page) = e.get("/");
    assert_has(&page, "last walk failed");
    assert!(!e.stderr.lock().unwrap().contains(secret));
}

#[test]
fn loopback_by_default_elsewhere_only_when_asked() {
    let home = tempfile::tempdir().unwrap();
    let help = convo_cmd(home.path())
        .args(["exporter", "--help"])
        .output()
        .unwrap();
    assert_has(
        &String::from_utf8_lossy(&help.stdout),
        "[default: 127.0.0.1:9464]",
    );
    let d = demo(20);
    let refused = convo_cmd(home.path())
        .env("CONVO_API_KEY", d.key())
        .args(["--base-url", &d.url(), "exporter", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_has(&err, "not a loopback address");
    assert_has(&err, "--allow-remote");
    let e = Exporter::start_at(
        &d.url(),
        &d.key(),
        home.path(),
        None,
        &["--listen", "0.0.0.0:0", "--allow-remote"],
        &[],
    );
    assert!(e.addr.starts_with("0.0.0.0:"), "{}", e.addr);
    let port = e.addr.rsplit(':').next().unwrap();
    assert_eq!(
        common::exporter::get(&format!("127.0.0.1:{port}"), "/healthz").0,
        200
    );
}

#[test]
fn the_interval_comes_from_the_config_and_the_flag_wins() {
    let d = demo(50);
    let home = tempfile::tempdir().unwrap();
    let cfg = config(&home, "exporter_interval = \"2m\"\n");
    let e = Exporter::start(&d, home.path(), Some(&cfg), &[]);
    let text = e.metrics_when_read(1);
    assert_eq!(
        sample(&text, "convo_exporter_interval_seconds", ""),
        Some(120.0)
    );
    let e = Exporter::start(&d, home.path(), Some(&cfg), &["--interval", "5s"]);
    let text = e.metrics_when_read(1);
    assert_eq!(
        sample(&text, "convo_exporter_interval_seconds", ""),
        Some(5.0)
    );
    let bad = config(&home, "exporter_interval = \"0s\"\n");
    let o = convo_cmd(home.path())
        .env("CONVO_API_KEY", d.key())
        .args(["--config", &bad, "--base-url", &d.url(), "exporter"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_has(&String::from_utf8_lossy(&o.stderr), "exporter_interval");
}

/// Behind a service that says its budget (the IETF headers), the exporter serves what is left
/// and the window's limit, and never the key with them.
#[test]
fn the_budget_the_service_says_is_served() {
    let d = Demo::with(DemoOptions {
        conversations: 200,
        visitors: 40,
        budget: Some(RequestBudget {
            limit: 500,
            window: Duration::from_secs(60),
            headers: LimitHeaders::Ietf,
        }),
        seed: 7,
        latency: Duration::ZERO,
        ..DemoOptions::default()
    });
    let home = tempfile::tempdir().unwrap();
    let cfg = config(&home, CONFIG);
    let e = exporter_with_now(&d, &home, &cfg, &["--interval", "1h"]);
    let text = e.metrics_when_read(VIEWS);
    assert_eq!(
        sample(&text, "convo_api_budget_limit", ""),
        Some(500.0),
        "{text}"
    );
    let left = sample(&text, "convo_api_budget_remaining", "").expect("budget left served");
    assert!(left > 0.0 && left < 500.0, "left {left}:\n{text}");
}

/// Issue 40, item 1: views left out of the exporter (`exporter = false` in a `[[views]]`
/// entry, `exporter_exclude` for any view, built-in ones too) are not walked nor served; a
/// name there that is no view is refused with the views' names.
#[test]
fn views_can_be_left_out_of_the_exporter() {
    let d = demo(200);
    let home = tempfile::tempdir().unwrap();
    let cfg = config(
        &home,
        "exporter_exclude = [\"unassigned open\"]\n[sla]\nfirst_response = \"40m\"\n\n\
         [[views]]\nname = \"Pending\"\nquery = \"status:pending\"\n\n\
         [[views]]\nname = \"Closed\"\nstatus = \"closed\"\nexporter = false\n",
    );
    let e = Exporter::start(&d, home.path(), Some(&cfg), &["--interval", "1h"]);
    let text = e.metrics_when_read(2);
    let walked: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("convo_view_up{view=\""))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert_eq!(walked, ["Breaching", "Pending"], "{text}");
    assert!(!text.contains("view=\"Closed\""), "{text}");
    assert!(!text.contains("view=\"Unassigned open\""), "{text}");

    let bad = config(&home, "exporter_exclude = [\"Breachin\"]\n");
    let o = convo_cmd(home.path())
        .env("CONVO_API_KEY", d.key())
        .args(["--config", &bad, "--base-url", &d.url(), "exporter"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_has(&err, "exporter_exclude");
    assert_has(&err, "\"Breachin\" is no view");
    assert_has(&err, "\"Unassigned open\", \"Breaching\"");
}

/// Issue 40, item 5: the exporter says what it costs (requests a round and a minute) at start
/// and on `/`, what its first round sent against the service's budget, and refuses (exit 2,
/// the shortest interval that fits) an interval whose rounds cannot fit that budget.
#[test]
fn the_cost_is_said_and_an_interval_the_budget_cannot_take_is_refused() {
    let d = Demo::with(DemoOptions {
        conversations: 200,
        visitors: 40,
        budget: Some(RequestBudget {
            limit: 30,
            window: Duration::from_secs(60),
            headers: LimitHeaders::Ietf,
        }),
        seed: 7,
        latency: Duration::ZERO,
        ..DemoOptions::default()
    });
    let home = tempfile::tempdir().unwrap();
    let cfg = config(&home, CONFIG);
    let e = exporter_with_now(&d, &home, &cfg, &["--interval", "1h"]);
    e.metrics_when_read(VIEWS);
    let t0 = Instant::now();
    let page = loop {
        let (_, page) = e.get("/");
        if page.contains("a round sent") {
            break page;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "{page}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_has(&page, &format!("cost: {VIEWS} views, "));
    assert_has(&page, "requests a round");
    assert_has(&page, "of the 30 the service allows per 60s");
    let err = e.stderr.lock().unwrap().clone();
    assert_has(&err, "a round sent");
    drop(e);

    // Every second, a round of several requests: far more than 30 a minute.
    let o = convo_cmd(home.path())
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_NOW", NOW)
        .args(["--config", &cfg, "--base-url", &d.url()])
        .args(["exporter", "--listen", "127.0.0.1:0", "--interval", "1s"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_has(&err, "cost: ");
    assert_has(&err, "--interval 1s cannot fit the service's budget");
    assert_has(&err, "the service allows 30 per 60s; walk every ");
}
