//! `visitor.plan:pro` in the real loop against the demo server, with a real local store in a
//! temporary directory: the browser shows exactly the rows `convo list conversations -q` prints
//! from the same store; without a store the status line says why no row shows.
//!
//! The store is in the test's temporary directory: the binary's through its environment
//! (`XDG_DATA_HOME`, see `common::convo_std_cmd`), the loop's through the config's `store.dir`.

use crate::common;

use common::convo_cmd;
use common::runtime::{Harness, demo};
use convo::api::Resource;
use convo::demo::DemoOptions;
use convo::query::parse;
use crossterm::event::KeyCode;

/// Runs the binary against `url` with the store under `tmp` and returns what it printed.
async fn cli(tmp: std::path::PathBuf, url: String, key: String, args: Vec<&'static str>) -> String {
    tokio::task::spawn_blocking(move || {
        let o = convo_cmd(&tmp)
            .env("CONVO_API_KEY", key)
            .args(["--base-url", &url])
            .args(&args)
            .output()
            .expect("runs");
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    })
    .await
    .expect("the binary ran")
}

fn row_ids(h: &Harness) -> Vec<String> {
    let rows = h.app.conversations.rows();
    rows.iter().map(|c| c.id.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn visitor_plan_pro_shows_exactly_the_rows_list_q_prints() {
    let tmp = tempfile::tempdir().unwrap();
    let server = demo(DemoOptions {
        seed: 7,
        conversations: 300,
        visitors: 60,
        ..DemoOptions::default()
    })
    .await;
    let (url, key) = (server.base_url(), server.api_key());
    let at = tmp.path().to_path_buf();
    // The store learns every visitor, then list -q checks their attributes from it.
    let all = vec!["list", "visitors", "--all", "--format", "jsonl"];
    cli(at.clone(), url.clone(), key.clone(), all).await;
    let q = vec![
        "list",
        "conversations",
        "-q",
        "visitor.plan:pro",
        "--all",
        "--format",
        "jsonl",
    ];
    let want = common::jsonl_ids(&cli(at, url.clone(), key.clone(), q).await);
    assert!(
        want.len() > 10 && want.len() < 250,
        "some rows, not all: {}",
        want.len()
    );

    let text = "visitor_sync = false\n";
    let cfg_path = tmp.path().join("config.toml");
    std::fs::write(&cfg_path, text).unwrap();
    let mut cfg = convo::config::Config::from_toml_str(
        text,
        &cfg_path,
        &convo::config::Overrides {
            base_url: Some(url),
            ..Default::default()
        },
        &|k| (k == "CONVO_API_KEY").then(|| key.clone()),
    )
    .unwrap();
    // Where the binary above kept it (its XDG_DATA_HOME is `<tmp>/data`).
    cfg.store.dir = Some(tmp.path().join("data/convo/stores"));
    let mut h = Harness::on(&server, (120, 30), 25);
    let look = convo::tui::tab::marks::look_key_of(&h.app.conversations);
    h.rt.start_store(&cfg, false, look);
    h.app.queue_query(Some(
        parse("visitor.plan:pro", Resource::Conversations).unwrap(),
    ));
    let done = format!("all {} loaded", want.len());
    let screen = h.until(vec![KeyCode::Char('L')], &done).await;
    assert!(!screen.contains("needs the local store"), "{screen}");
    assert_eq!(row_ids(&h), want, "the rows list -q printed, in its order");

    // Without a store: said on the status line, and no row passes.
    let mut h = Harness::on(&server, (120, 30), 25);
    h.app.queue_query(Some(
        parse("visitor.plan:pro", Resource::Conversations).unwrap(),
    ));
    let screen = h.until(vec![], "visitor.plan needs the local store").await;
    assert!(row_ids(&h).is_empty(), "{screen}");
}
