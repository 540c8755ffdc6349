//! Issue 22 §4: in `convo --demo`, `me` is one of the demo's agents with open conversations
//! (the config's `agent_id`), so `assignee:me` works in `convo --demo list -q`, in
//! `convo --demo --query` and on the query line, whose plan (`?`) says who `me` is.

use crate::common;

use std::time::Duration;

use common::pty::Pty;

/// The demo's agent `me` stands for, and its name, from the data `--demo` serves (seed 42).
fn me() -> (uuid::Uuid, String) {
    let d = convo::demo::dataset(42, 5000, 1500);
    let id = convo::demo::me(&d).expect("an agent");
    let name = convo::demo::aliases(&d)
        .into_iter()
        .find(|(a, _)| *a == id)
        .map(|(_, n)| n)
        .expect("named");
    (id, name)
}

#[test]
fn assignee_me_lists_the_demo_agents_conversations() {
    let (id, _) = me();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_convo"))
        .env_clear()
        .env("HOME", tmp.path())
        .env("CONVO_LOG_FILE", tmp.path().join("convo.log"))
        .args([
            "--demo",
            "list",
            "conversations",
            "-q",
            "assignee:me status:open",
        ])
        .args(["--format", "jsonl", "--max", "40"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("convo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON row"))
        .collect();
    assert!(!rows.is_empty(), "me has open conversations: {stderr}");
    let want = id.to_string();
    for r in &rows {
        assert_eq!(r["assigneeId"].as_str(), Some(want.as_str()), "{r}");
        assert_eq!(r["status"].as_str(), Some("open"), "{r}");
    }
}

#[test]
fn the_browser_opens_on_assignee_me_and_the_plan_names_me() {
    let (id, name) = me();
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().to_string_lossy().to_string();
    let log = tmp.path().join("convo.log").to_string_lossy().to_string();
    let mut t = Pty::spawn(
        &["--demo", "--query", "assignee:me"],
        &[("HOME", &home), ("NO_COLOR", "1"), ("CONVO_LOG_FILE", &log)],
        160,
        40,
    );
    let screen = t.wait_until(Duration::from_secs(30), |s| {
        s.contains(" loaded") && s.contains(" assignee:me ")
    });
    // Every row is me's: `me` in the ASSIGNEE column (the agent's own rows say so), no
    // unassigned row.
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| {
            let w = l.trim_start_matches([' ', '>']);
            ["open ", "pending ", "closed "]
                .iter()
                .any(|s| w.starts_with(s))
        })
        .collect();
    assert!(rows.len() > 5, "{screen}");
    assert!(
        rows.iter()
            .all(|l| l.split_whitespace().any(|w| w == "me") && !l.contains("unassigned")),
        "{screen}"
    );
    // `:` then `?`: the plan says who me is.
    t.send(":");
    t.wait_for("assignee:me");
    t.send("?");
    let plan = t.wait_for(&format!("me: {name} = agent {id}"));
    assert!(
        plan.contains("(the demo's agent with the most open conversations)"),
        "{plan}"
    );
}

/// `--explain` under `--demo` says that `me` is the demo's agent, by name, not the config's.
#[test]
fn explain_says_me_is_the_demos_agent() {
    let (id, name) = me();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_convo"))
        .env_clear()
        .env("HOME", tmp.path())
        .env("CONVO_LOG_FILE", tmp.path().join("convo.log"))
        .args(["--demo", "list", "conversations", "-q", "assignee:me"])
        .arg("--explain")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("convo runs");
    let plan = String::from_utf8_lossy(&out.stdout);
    assert!(
        plan.contains(&format!(
            "me is {name} = agent {id} (the demo's agent with the most open conversations)"
        )),
        "{plan}"
    );
    assert!(!plan.contains("(config)"), "{plan}");
}
