//! `convo exporter` as a team runs it: the real binary against a demo server on a random port,
//! scraped over HTTP. What it serves is compared with `convo summary --views` on the same data.

mod common;

use std::time::{Duration, Instant};

use common::exporter::{Exporter, sample};
use common::{Demo, assert_has, convo_cmd};
use convo::demo::{DemoOptions, Faults};

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
    common::file(home.path(), "convo.toml", text)
        .to_str()
        .unwrap()
        .to_string()
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
    if let Some(lint) = promtool_check_metrics(&text) {
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
