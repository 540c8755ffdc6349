//! Issue 39 §9: "mine" as a first-class view, on the real loop against the demo server with
//! `agent_id` set to one of its agents: the built-in "My open" view, `me` in the ASSIGNEE
//! column, the chips and the filter pane, and its bell for conversations just assigned to me.

use crate::common;

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;

use common::runtime::{Harness, demo};
use convo::config::builtin_views::{MY_OPEN_VIEW, builtin_views};
use convo::demo::{Churn, DemoOptions, Faults};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_open_is_a_view_of_its_own_written_me_and_it_rings() {
    let server = demo(DemoOptions {
        seed: 9,
        conversations: 400,
        visitors: 80,
        faults: Faults {
            churn: Churn {
                scripted: true,
                ..Churn::default()
            },
            ..Faults::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let me = server.data().agents[0];
    for (w, h) in [(80u16, 24u16), (120, 35)] {
        let mut h = Harness::on(&server, (w, h), 50);
        let q = convo::config::QuerySettings {
            agent_id: Some(me),
            ..h.app.settings().query_settings()
        };
        h.app.settings_mut().use_query_settings(q);
        h.app.settings_mut().use_views(builtin_views(Some(me)));
        h.until(vec![], "loaded").await;
        // v: the picker lists "My open" with its query as written
        let picker = h.press(vec![KeyCode::Char('v')], MY_OPEN_VIEW).await;
        assert!(picker.contains("assignee:me"), "{picker}");
        let at = h
            .app
            .settings()
            .views()
            .iter()
            .position(|v| v.name == MY_OPEN_VIEW)
            .expect("listed");
        let mut keys = vec![KeyCode::Down; at];
        keys.push(KeyCode::Enter);
        h.until(keys, "assignee:me").await;
        let screen = h
            .wait_app("My open loaded", move |app| {
                let rows = app.conversations.rows();
                !rows.is_empty()
                    && rows.iter().all(|c| c.assignee_id == Some(me))
                    && !app.conversations.walk().is_loading()
            })
            .await;
        // the ASSIGNEE column says me, not the id
        let short = me.to_string()[..8].to_string();
        assert!(!screen.contains(&short), "{screen}");
        if w >= 120 {
            assert!(screen.contains(" me "), "{screen}");
        }
        // the filter pane's agent field says me, and takes it
        let pane = h.until(vec![KeyCode::Char('/')], "agent id").await;
        assert!(pane.contains("agent id       me"), "{pane}");
        h.press(vec![KeyCode::Esc], "assignee:me").await;
        // x clears, Backspace brings the view back written as it was
        h.press(vec![KeyCode::Char('x')], "no filters").await;
        let back = h.press(vec![KeyCode::Backspace], "assignee:me").await;
        assert!(!back.contains(&me.to_string()[..13]), "{back}");

        // a colleague assigns a conversation to me: the next refresh rings the bell
        let theirs = server
            .conversations_now()
            .into_iter()
            .find(|c| c.status == "open" && c.assignee_id.is_some_and(|a| a != me))
            .expect("an open conversation of another agent");
        assert!(server.assign(theirs.id, Some(me)));
        h.out.clear();
        h.app.refresh_every(Some(1));
        h.app.refresh_clock_mut().restart(jiff::Timestamp::now());
        let deadline = Instant::now() + Duration::from_secs(20);
        // A message at a time (a tick, the refresh's answer) until the bell was written.
        while !String::from_utf8_lossy(&h.out).contains("\u{7}") {
            let screen = h.step().await;
            assert!(Instant::now() < deadline, "no bell:\n{screen}");
        }
        h.app.refresh_clock_mut().switch(false);
        assert!(
            h.app.conversations.rows().iter().any(|c| c.id == theirs.id),
            "the conversation is in My open"
        );
        let out = String::from_utf8_lossy(&h.out).to_string();
        assert!(out.contains("1 new conversation in the view"), "{out:?}");
    }
    server.shutdown().await;
}
