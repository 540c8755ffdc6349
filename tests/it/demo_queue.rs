//! Issue 24, section 5: `convo --demo` opens on a queue that looks real. The real binary in a
//! pseudo-terminal, as a new user starts it: among the waiting conversations some are within
//! the first-response target, some imminent and some breaching (DUE), and the wait histogram
//! of `S` has several bars.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::pty::Pty;

/// The state each open row's DUE cell shows, counted. Under `NO_COLOR` the cell carries the
/// state as a mark: `in 40s` ok, `!  in 12s` imminent, `!! over 2m` breaching.
fn due_states(screen: &str) -> BTreeMap<&'static str, usize> {
    let mut n = BTreeMap::new();
    for line in screen.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(status) = words.first() else {
            continue;
        };
        if status.trim_start_matches(|c: char| !c.is_ascii_alphabetic()) != "open" {
            continue;
        }
        let state = match words.get(1..3) {
            Some(["in", _]) => "ok",
            Some(["!", "in"]) => "imminent",
            Some(["!!", "over"]) => "breaching",
            _ => continue,
        };
        *n.entry(state).or_default() += 1;
    }
    n
}

#[test]
fn the_demo_opens_on_a_queue_with_ok_imminent_and_breaching_conversations() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().to_string_lossy().to_string();
    let log = tmp.path().join("convo.log").to_string_lossy().to_string();
    let mut t = Pty::spawn(
        &["--demo"],
        &[("HOME", &home), ("NO_COLOR", "1"), ("CONVO_LOG_FILE", &log)],
        160,
        45,
    );
    // The first screen with rows: the queue as the demo starts.
    let first = t.wait_until(Duration::from_secs(30), |s| s.contains(" loaded"));
    let states = due_states(&first);
    for state in ["ok", "imminent", "breaching"] {
        assert!(
            states.get(state).is_some_and(|&n| n > 0),
            "no {state} conversation in {states:?}:\n{first}"
        );
    }
    // More within target or imminent than breaching: a queue under control, not a backlog.
    assert!(
        states["ok"] + states["imminent"] > states["breaching"],
        "{states:?}:\n{first}"
    );

    // `S`: the wait-time histogram has a bar for each of at least four of its six ranges.
    t.send(b"S");
    let edges = convo::sla::wait_edges(Some(convo::demo::QUEUE_TARGET_SECS), 0.5);
    let labels = convo::sla::wait_labels(&edges);
    let pane = t.wait_until(Duration::from_secs(10), |s| s.contains(&labels[5]));
    let bars: Vec<(&str, u64)> = labels
        .iter()
        .filter_map(|label| {
            let line = pane.lines().find(|l| l.contains(&format!(" {label} ")))?;
            let after = &line[line.find(label.as_str())? + label.len()..];
            let count = after
                .split_whitespace()
                .find_map(|w| w.parse::<u64>().ok())?;
            Some((label.as_str(), count))
        })
        .collect();
    assert_eq!(bars.len(), 6, "six bars: {bars:?}\n{pane}");
    assert!(
        bars.iter().filter(|(_, n)| *n > 0).count() >= 4,
        "{bars:?}\n{pane}"
    );
    t.send(b"\x1b");
    t.wait_until(Duration::from_secs(10), |s| !s.contains(&labels[5]));
    t.send(b"q");
    assert_eq!(t.wait_exit(Duration::from_secs(10)), Some(0));
}
