//! Issue 39 §8, the real binary in a pseudo-terminal against the demo server, with
//! `agent_id` set and a local store in its own home: a restart reopens the view, its sort
//! and tab where the last session quit; `--fresh` starts clean; "since you last looked" is
//! kept per view, so a conversation assigned to me while convo was closed is marked `•` in
//! "My open" at the next start.

use crate::common;

use std::time::Duration;

use common::Demo;
use common::pty::{self, Pty};
use convo::demo::{Churn, DemoOptions, Faults};

fn start(d: &Demo, home: &std::path::Path, args: &[&str], (w, h): (u16, u16)) -> Pty {
    let mut cmd = pty::command(home);
    cmd.env("CONVO_API_KEY", d.key());
    cmd.env("CONVO_CONFIG", home.join("config.toml"));
    cmd.args(["--base-url", &d.url()]);
    cmd.args(args);
    Pty::run(cmd, w, h)
}

#[test]
fn a_restart_reopens_my_open_sorted_and_marks_what_was_assigned_meanwhile() {
    let d = Demo::with(DemoOptions {
        seed: 9,
        conversations: 400,
        visitors: 80,
        latency: Duration::ZERO,
        faults: Faults {
            churn: Churn {
                scripted: true,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    });
    let me = d.data().agents[0];
    for size in [(80u16, 24u16), (120, 35)] {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.toml"),
            format!("agent_id = \"{me}\"\n"),
        )
        .unwrap();
        // First session: "My open" from the views (v), sorted by updated (> until it says so)
        let mut p = start(&d, home.path(), &[], size);
        p.wait_for("loaded");
        p.send("v");
        p.wait_for("My open");
        // the picker lists the built-in views first: Unassigned open, My open (Breaching needs a
        // first-response target, none here)
        common::assert_has(&p.screen(), "assignee:me");
        p.send("j\r");
        p.wait_for("assignee:me");
        p.press_until(">", "sorted by updated");
        p.wait_for("sorted by updated ↓");
        p.quit_with_0();

        // Meanwhile a colleague assigns an open conversation to me.
        let theirs = d
            .conversations_now()
            .into_iter()
            .find(|c| c.status == "open" && c.assignee_id.is_some_and(|a| a != me))
            .expect("an open conversation of another agent");
        assert!(d.assign(theirs.id, Some(me)));

        // Second session: the same view, sorted, and the new one marked
        let mut p = start(&d, home.path(), &[], size);
        // (the status line said `reopened "My open" as you left it`, perhaps only briefly)
        p.wait_for("assignee:me");
        let s = p.wait_for("sorted by updated ↓");
        let s = if s.contains("1 new") {
            s
        } else {
            p.wait_for("1 new")
        };
        common::assert_has(&s, "•");
        p.quit_with_0();

        // Another assigned meanwhile; a session that starts elsewhere and then visits "My
        // open" sees it marked too (each view keeps its own last look)
        let other = d
            .conversations_now()
            .into_iter()
            .find(|c| c.status == "open" && c.assignee_id.is_some_and(|a| a != me))
            .expect("another open conversation of another agent");
        assert!(d.assign(other.id, Some(me)));
        let mut p = start(&d, home.path(), &["--view", "Unassigned open"], size);
        p.wait_for("assignee:none");
        p.send("v");
        p.wait_for("My open");
        p.send("j\r");
        let s = p.wait_for("assignee:me");
        let s = if s.contains("1 new") {
            s
        } else {
            p.wait_for("1 new")
        };
        common::assert_has(&s, "•");
        p.quit_with_0();

        // --fresh: the unfiltered list, nothing reopened
        let mut p = start(&d, home.path(), &["--fresh"], size);
        let s = p.wait_for("no filters");
        assert!(!s.contains("reopened") && !s.contains("sorted by"), "{s}");
        p.quit_with_0();
        // and the place kept is the fresh one now
        let mut p = start(&d, home.path(), &[], size);
        let s = p.wait_for("no filters");
        assert!(!s.contains("assignee:me"), "{s}");
        p.quit_with_0();
    }
}

/// The table's rows on `screen` (between the header and the status line), as text.
fn table_rows(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.contains("NAME") && l.contains("EMAIL"))
        .expect("the visitors table's header");
    lines[head + 1..]
        .iter()
        .take_while(|l| !l.trim_start().starts_with("row "))
        // the rows without the cursor's mark and the scrollbar
        .map(|l| {
            let l: String = l.chars().skip(1).collect();
            l.trim_end()
                .trim_end_matches(['│', '█'])
                .trim_end()
                .to_string()
        })
        .collect()
}

#[test]
fn a_restart_reopens_the_visitors_tab_with_its_own_query_and_sort() {
    let d = Demo::start(40, 90, Faults::default());
    for size in [(80u16, 24u16), (120, 35)] {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), "").unwrap();
        // First session: a query on the Conversations tab, then the Visitors tab with a
        // query and a sort of its own
        let mut p = start(&d, home.path(), &[], size);
        p.wait_for("loaded");
        p.send(":");
        p.wait_for("query");
        p.send("status:open\r");
        p.wait_for("status:open");
        p.send("\t");
        p.wait_for("EMAIL");
        p.send(":");
        p.wait_for("query");
        p.send("name:a\r");
        p.wait_for("name:a");
        p.press_until(">", "sorted by email");
        p.wait_for("sorted by email ↓");
        let before = p.wait_for("all ");
        let rows = table_rows(&before);
        assert!(rows.len() > 3, "{before}");
        p.quit_with_0();

        // Second session: the Visitors tab as it was left, its rows in the same order
        let mut p = start(&d, home.path(), &[], size);
        p.wait_for("name:a");
        p.wait_for("sorted by email ↓");
        let after = p.wait_for("all ");
        // on the first row of the order shown (a fresh start)
        common::assert_has(&after, " row 1 · ");
        assert_eq!(
            table_rows(&after),
            rows,
            "before:\n{before}\nafter:\n{after}"
        );
        // and the Conversations tab kept its own query
        p.send("\t");
        p.wait_for("status:open");
        p.quit_with_0();
    }
}

/// Asks the demo for the first page of conversations, as another client would (with
/// `new_per_head` churn, every such request after the first adds conversations, and with
/// `new_visitors`, their new visitors).
fn a_first_page_elsewhere(d: &Demo) {
    let c = d.client();
    d.block_on(async {
        let _: convo::api::Page<convo::api::Conversation> = c
            .list(
                &convo::api::ConversationFilter::default(),
                convo::api::Limit::new(10).unwrap(),
                None,
                &|_| {},
            )
            .await
            .expect("a first page");
    });
}

#[test]
fn the_visitors_tab_keeps_its_own_since_you_last_looked() {
    let d = Demo::with(DemoOptions {
        seed: 5,
        conversations: 60,
        visitors: 70,
        latency: Duration::ZERO,
        faults: Faults {
            churn: Churn {
                new_per_head: 2,
                new_visitors: 100,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    });
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "").unwrap();
    // First session: the Visitors tab, all of it loaded
    let mut p = start(&d, home.path(), &[], (120, 35));
    p.wait_for("loaded");
    p.send("\t");
    p.wait_for("EMAIL");
    p.wait_for("all ");
    p.quit_with_0();

    // Meanwhile two conversations start, each by a new visitor (the first request's
    // own head is not churned: two of them)
    a_first_page_elsewhere(&d);
    a_first_page_elsewhere(&d);

    // Second session: the Visitors tab says what came since and marks it
    let mut p = start(&d, home.path(), &[], (120, 35));
    p.wait_for("EMAIL");
    let s = p.wait_for(" new, 0 changed since ");
    assert!(
        ["2 new", "4 new", "6 new"].iter().any(|n| s.contains(n)),
        "two new visitors at least: {s}"
    );
    common::assert_has(&s, "•");
    p.quit_with_0();
}

/// A closed window (SIGHUP) or `kill` (SIGTERM) keeps where the browser was, as `q` does.
#[test]
fn a_stop_signal_keeps_the_place_as_q_does() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let d = Demo::start(60, 20, Faults::default());
    for (signal, query) in [
        (Signal::SIGHUP, "status:pending"),
        (Signal::SIGTERM, "status:closed"),
    ] {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("config.toml"), "").unwrap();
        let mut p = start(&d, home.path(), &[], (80, 24));
        p.wait_for("loaded");
        p.send(":");
        p.wait_for("query");
        p.send(format!("{query}\r"));
        p.wait_for(&format!(" {query} "));
        p.wait_for("loaded");
        kill(Pid::from_raw(p.pid() as i32), signal).expect("kill");
        assert!(
            p.wait_exit(Duration::from_secs(20)).is_some(),
            "{signal} ends it"
        );
        let mut p = start(&d, home.path(), &[], (80, 24));
        p.wait_for(&format!(" {query} "));
        p.quit_with_0();
    }
}

/// Since you last looked on a view that is a union (its rows come from two streams): the
/// status line's count is the footer's (it said `0 new` while the footer had `• 2 new`: the
/// line was made when the look came, before the union's parts had arrived).
#[test]
fn since_you_last_looked_on_a_union_says_what_the_footer_counts() {
    let d = Demo::with(DemoOptions {
        seed: 6,
        conversations: 60,
        visitors: 30,
        latency: Duration::from_millis(40),
        faults: Faults {
            churn: Churn {
                new_per_head: 2,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    });
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "").unwrap();
    let mut p = start(&d, home.path(), &[], (80, 24));
    p.wait_for("loaded");
    p.send(":");
    p.wait_for("query");
    p.send("status:open,pending\r");
    p.wait_for("status:open,pending");
    p.wait_for("all ");
    p.quit_with_0();
    a_first_page_elsewhere(&d);
    a_first_page_elsewhere(&d);
    let p = start(&d, home.path(), &[], (80, 24));
    // The footer's `• N new` once every part is in, and the line saying the same N
    let footer_n = |s: &str| -> Option<String> {
        let n = s.split(" · • ").nth(1)?.split(" new").next()?;
        Some(n.to_string())
    };
    let s = p.wait_until(Duration::from_secs(20), |s| {
        s.contains("all ")
            && footer_n(s).is_some_and(|n| s.contains(&format!(" {n} new, 0 changed since ")))
    });
    let footer = footer_n(&s).unwrap_or_default();
    assert_ne!(footer, "0", "{s}");
}
