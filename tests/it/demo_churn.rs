//! Issue 33 §7: the demo's churn created conversations in the future (`CREATED in 6s`): the
//! changes caught up on a request after a quiet spell were each created a second after the
//! head. The real loop against an anchored demo server with churn.

use std::time::Duration;

use crossterm::event::KeyCode;

use convo::api::Timestamp;
use convo::demo::{Churn, DemoOptions, Faults};

use crate::common;
use common::runtime::{Harness, demo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn churn_never_creates_a_conversation_in_the_future() {
    let server = demo(DemoOptions {
        conversations: 300,
        visitors: 50,
        anchor: Some(jiff::Timestamp::now()),
        faults: Faults {
            churn: Churn {
                per_minute: 600,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    h.settled().await;
    // a quiet spell: about 20 changes are due when the next request comes (the sleep is the
    // behaviour, time passing; the assertion holds however long it took)
    tokio::time::sleep(Duration::from_secs(2)).await;
    let screen = h.keys(vec![KeyCode::Char('r')]).await;
    let now = jiff::Timestamp::now();
    let future: Vec<String> = h
        .app
        .conversations
        .rows()
        .iter()
        .filter_map(|c| match c.created_at {
            Timestamp::Parsed(t) if t > now => Some(format!("{} {t}", c.id)),
            _ => None,
        })
        .collect();
    assert!(
        future.is_empty(),
        "created after {now}: {future:?}\n{screen}"
    );
    assert!(!screen.contains(" in "), "{screen}");
    server.shutdown().await;
}

/// Issue 40, item 4: `convo demo-server --live`, one documented flag, gives a queue that
/// breaches the demo's first-response target (written for `convo --config`, as `--demo` has
/// it), and keeps changing; `--churn` and `--live` are demo options, not test faults.
#[test]
fn demo_server_live_breaches_its_targets_and_says_how_to_use_them() {
    use std::io::BufRead;
    let tmp = tempfile::tempdir().unwrap();
    let targets = tmp.path().join("targets.toml");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_convo"))
        .args([
            "demo-server",
            "--live",
            "--addr",
            "127.0.0.1:0",
            "--targets-out",
        ])
        .arg(&targets)
        .stdout(std::process::Stdio::piped())
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut head = String::new();
    while !head.contains("OpenAPI:") {
        let mut line = String::new();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        head.push_str(&line);
    }
    let url = head
        .split("listening on ")
        .nth(1)
        .and_then(|r| r.lines().next())
        .unwrap_or_else(|| panic!("{head}"))
        .to_string();
    let key = head
        .split("API key: ")
        .nth(1)
        .and_then(|r| r.lines().next())
        .unwrap()
        .to_string();
    assert!(
        head.contains(&format!("Targets: {}", targets.display())),
        "{head}"
    );
    assert!(head.contains("exporter"), "{head}");
    let o = common::convo_cmd(tmp.path())
        .env("CONVO_API_KEY", &key)
        .arg("--config")
        .arg(&targets)
        .args(["--base-url", &url, "summary", "--views", "--format", "json"])
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let breaching = v["views"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["view"] == "Breaching")
        .and_then(|r| r["matches"].as_u64())
        .unwrap_or_else(|| panic!("a Breaching view: {v}"));
    assert!(breaching >= 20, "the backlog breaches: {v}");

    // The help lists the live queue's options apart from the test faults.
    let help = common::convo_cmd(tmp.path())
        .args(["demo-server", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).to_string();
    let faults = help.find("Faults (for testing)").unwrap_or(help.len());
    for flag in ["--live", "--churn <N>", "--churn-new-visitors <P>"] {
        let at = help.find(flag).unwrap_or_else(|| panic!("{flag}: {help}"));
        assert!(at < faults, "{flag} is among the test faults:\n{help}");
    }
    assert!(help.contains("Live queue:"), "{help}");
}
