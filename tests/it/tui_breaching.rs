//! The built-in "Breaching" view (issue 25, section 2): it opens on its first (oldest) row, the
//! footer's row number is the row's place on the screen, `--view Breaching` gives the same
//! view as `v`, and its refresh keeps the rows it shows first live.

use crossterm::event::KeyCode;

use convo::api::{Conversation, Resource, Status};
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::testing::{self, FakeServer, ch, key};

use crate::common;
use common::app::{assign, first_response, footer};

/// The open unassigned conversations of `server` past the first-response target (25 minutes
/// at `testing::now()`), oldest first: the rows of "Breaching" (`due:breaching`).
fn queue_oldest_first(server: &FakeServer) -> Vec<uuid::Uuid> {
    let sla = first_response(25);
    let mut q: Vec<&Conversation> = server
        .conversations
        .iter()
        .filter(|c| c.status == Status::Open && c.assignee_id.is_none())
        .filter(|c| {
            sla.first_response(c, testing::now())
                .is_some_and(|d| d.state == convo::sla::State::Breaching)
        })
        .collect();
    q.sort_by_key(|c| c.created_at.parsed());
    q.iter().map(|c| c.id).collect()
}

fn selected_id(app: &App) -> Option<uuid::Uuid> {
    app.conversations.selected_row().map(|c| c.id)
}

fn app_on(server: &FakeServer) -> App {
    let mut app = testing::app(120, 24, 50);
    app.settings_mut().set_sla(first_response(25), false);
    server.settle(&mut app, Msg::Resize(120, 24));
    app
}

#[test]
fn v_breaching_opens_on_the_oldest_row_and_the_row_number_is_the_screens() {
    let server = FakeServer::new(1000, 10);
    let want = queue_oldest_first(&server);
    assert!(want.len() > 100, "more than two pages: {}", want.len());
    let mut app = app_on(&server);
    server.settle(&mut app, ch('v'));
    server.settle(&mut app, key(KeyCode::Down));
    server.settle(&mut app, key(KeyCode::Enter));
    assert_eq!(app.conversations.rows().len(), want.len(), "every page");
    assert_eq!(selected_id(&app), Some(want[0]), "on the oldest row");
    let f = footer(&app);
    assert!(f.contains(" row 1 · "), "{f}");
    // The oldest row is on the table's first line, selected.
    let short = want[0].simple().to_string()[..8].to_string();
    let screen = testing::render(&app);
    let first_row = screen.lines().nth(3).unwrap_or_default();
    assert!(first_row.contains(&short), "{screen}");

    // End: the newest row, the last line of the order, and the footer counts to it.
    server.settle(&mut app, key(KeyCode::End));
    assert_eq!(selected_id(&app), want.last().copied());
    let f = footer(&app);
    assert!(f.contains(&format!(" row {} · ", want.len())), "{f}");
    server.settle(&mut app, key(KeyCode::Home));
    assert_eq!(selected_id(&app), Some(want[0]));
    assert!(footer(&app).contains(" row 1 · "));

    // Once the user moved, a reload keeps their row.
    server.settle(&mut app, key(KeyCode::Down));
    server.settle(&mut app, key(KeyCode::Down));
    assert_eq!(selected_id(&app), Some(want[2]));
    server.settle(&mut app, ch('r'));
    assert_eq!(selected_id(&app), Some(want[2]), "r keeps the row");
    assert!(footer(&app).contains(" row 3 · "), "{}", footer(&app));
}

/// `convo --view Breaching` (through the same function `convo` calls with the config) gives
/// what `v` gives: the title, the oldest-first order, every page, the first row selected.
#[test]
fn view_flag_gives_the_same_breaching_view_as_v() {
    use convo::api::{ApiKey, Client, ClientSettings, KeySource};
    use convo::config::{Config, Overrides};
    let server = FakeServer::new(1000, 10);
    let want = queue_oldest_first(&server);
    let tmp = tempfile::tempdir().expect("tmp");
    let path = common::file(
        tmp.path(),
        "config.toml",
        "base_url = \"http://127.0.0.1:9\"\npage_size = 50\nstore = false\n\
         [sla]\nfirst_response = \"25m\"\n",
    );
    let cfg = Config::load_with(
        &Overrides {
            config_path: Some(path),
            ..Overrides::default()
        },
        &|k| (k == "CONVO_API_KEY").then(|| "sk_test_0123456789".to_string()),
    )
    .expect("config loads");
    let key = ApiKey::new("sk_test_0123456789", KeySource::Env, "sk_").expect("key");
    let client = Client::new(ClientSettings::new(cfg.base_url.clone(), key)).expect("client");
    let mut app = convo::tui::app_from_config(
        &cfg,
        &client,
        &convo::tui::TuiOptions {
            initial_view: Some("breaching".into()),
            demo: false,
            fresh: false,
        },
    )
    .expect("app");
    app.resize(120, 24);
    app.settings_mut().use_tz(jiff::tz::TimeZone::UTC);
    app.set_clock(testing::now());
    server.settle(&mut app, Msg::Resize(120, 24));
    assert_eq!(app.conversations.rows().len(), want.len(), "every page");
    let order = app.sort().get(Resource::Conversations);
    let rows = app.conversations.rows();
    let shown: Vec<uuid::Uuid> = (0..rows.len()).map(|p| rows[order.row_at(p)].id).collect();
    assert_eq!(shown, want, "oldest first");
    assert_eq!(selected_id(&app), Some(want[0]), "on the oldest row");
    let screen = testing::render(&app);
    assert!(screen.contains("Breaching "), "{screen}");
    assert!(screen.contains("oldest first"), "{screen}");
}

/// With more pages than `refresh_max_pages`, the refresh of the Breaching view (a query:
/// `due:breaching`) re-reads every page of it, not the newest pages at the top: the oldest
/// rows, shown first, are live, and the newest too.
#[test]
fn its_refresh_keeps_the_oldest_rows_live() {
    let mut server = FakeServer::new(1000, 10);
    let want = queue_oldest_first(&server);
    let mut app = app_on(&server);
    app.refresh_every(Some(10));
    app.settings_mut().use_refresh_max_pages(2);
    server.settle(&mut app, ch('v'));
    server.settle(&mut app, key(KeyCode::Down));
    server.settle(&mut app, key(KeyCode::Enter));
    assert_eq!(app.conversations.rows().len(), want.len());
    assert!(want.len() > 3 * 50, "more pages than the budget");
    // The two oldest are picked up by colleagues, and the newest one too.
    let newest = *want.last().expect("rows");
    assign(&mut server, want[0]);
    assign(&mut server, want[1]);
    assign(&mut server, newest);
    let tick = Msg::Tick(
        testing::now()
            .checked_add(jiff::SignedDuration::from_secs(11))
            .expect("time"),
    );
    let cmds = server.settle(&mut app, tick);
    let heads = cmds
        .iter()
        .filter(|c| matches!(c, Command::FetchPart { head: true, .. }))
        .count();
    assert!(heads > 2, "every page, past the budget of two: {cmds:?}");
    let shown: Vec<uuid::Uuid> = app.conversations.rows().iter().map(|c| c.id).collect();
    assert!(
        !shown.contains(&want[0]) && !shown.contains(&want[1]),
        "the oldest left"
    );
    assert!(!shown.contains(&newest), "the newest left");
    let m = app.status_line().shown().expect("said").text.clone();
    // Three left: the selected one is named, and the two others too (issue 39, 10).
    let (one, two) = (
        convo::api::short_id(&want[1]),
        convo::api::short_id(&newest),
    );
    assert!(
        m.contains("(selected) left this view")
            && (m.contains(&format!("{one}, {two} left the list"))
                || m.contains(&format!("{two}, {one} left the list"))),
        "{m}"
    );
    // The selected (oldest) one left: it stays under the cursor, marked, until the user
    // moves; the row after it is then the oldest still waiting, the view's first row.
    assert_eq!(selected_id(&app), Some(want[0]));
    assert!(app.conversations.held().is_some());
    server.settle(&mut app, key(KeyCode::Down));
    assert_eq!(selected_id(&app), Some(want[2]));
    assert!(footer(&app).contains(" row 1 · "), "{}", footer(&app));
}

/// The chips line (the screen's second line).
fn title(app: &App) -> String {
    let screen = testing::render(app);
    screen.lines().nth(1).unwrap_or_default().to_string()
}

/// The title says "oldest first" only while the rows are shown so: another sort (`>`) or the
/// service's order (`=` past ascending) is not called oldest first, and `r` gives it back.
#[test]
fn the_title_says_oldest_first_only_while_it_is() {
    let server = FakeServer::new(300, 10);
    let mut app = app_on(&server);
    server.settle(&mut app, ch('v'));
    server.settle(&mut app, key(KeyCode::Down));
    server.settle(&mut app, key(KeyCode::Enter));
    assert!(title(&app).contains(" · oldest first "), "{}", title(&app));
    server.settle(&mut app, ch('>'));
    let t = title(&app);
    assert!(
        !t.contains(" · oldest first "),
        "sorted by another column: {t}"
    );
    assert!(t.contains(" · r for oldest first "), "{t}");
    // `=` on an ascending sort goes back to the service's order.
    server.settle(&mut app, ch('='));
    assert!(app.sort().get(Resource::Conversations).sort.is_none());
    let t = title(&app);
    assert!(
        t.contains(" · the service's order (r for oldest first) "),
        "{t}"
    );
    server.settle(&mut app, ch('r'));
    assert!(title(&app).contains(" · oldest first "), "{}", title(&app));
}

/// `convo --help` names both built-in views `--view` takes (it named "Unassigned open" only).
#[test]
fn the_help_of_view_names_the_built_in_breaching_view() {
    let out = assert_cmd::Command::cargo_bin("convo")
        .expect("binary built")
        .env_clear()
        .arg("--help")
        .output()
        .expect("runs");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let view = help
        .lines()
        .skip_while(|l| !l.contains("--view <NAME>"))
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(view.contains("\"Breaching\""), "{view}");
    assert!(view.contains("\"Unassigned open\""), "{view}");
}

/// Issue 39, item 1: the number of "Breaching" is the same on the board (`B`), in the view's
/// own title and footer, in `convo summary --views` and in the exporter, read at the same
/// moment against the demo server (churn on, scripted: the queue holds still while the four
/// are read) with a target that some of its queue is past, and is the number of conversations
/// past the target. Before the view was `due:breaching` its count was the whole queue.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn breaching_counts_the_same_on_the_board_the_view_summary_and_the_exporter() {
    use common::exporter::{Exporter, sample};
    use common::runtime::{Harness, demo, runtime};
    use convo::demo::{Churn, DemoOptions, Faults};

    let server = demo(DemoOptions {
        conversations: 400,
        visitors: 60,
        anchor: Some(jiff::Timestamp::now()),
        faults: Faults {
            churn: Churn {
                scripted: true,
                ..Churn::default()
            },
            // The newest 80 held conversations left waiting: most of them past 20 minutes.
            backlog: 80,
            ..Faults::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = common::exporter::config_file(home.path(), "[sla]\nfirst_response = \"20m\"\n");
    // The truth: open, unassigned and created more than 20 minutes ago, now.
    let truth = || {
        let cut = jiff::Timestamp::now() - jiff::SignedDuration::from_mins(20);
        server
            .conversations_now()
            .iter()
            .filter(|c| c.status == "open" && c.assignee_id.is_none() && c.created_at < cut)
            .count()
    };
    let waiting = common::count(&server, |c| c.status == "open" && c.assignee_id.is_none());

    // Every figure is read between two readings of the truth; a conversation that crossed the
    // target meanwhile (the queue's ages grow with the clock) makes it read again.
    for _ in 0..3 {
        let before = truth();
        assert!(
            before > 0 && before < waiting,
            "some of the queue breaches, not all: {before} of {waiting}"
        );
        // summary --views
        let o = common::convo_cmd(home.path())
            .env("CONVO_API_KEY", server.api_key())
            .args(["--config", &cfg, "--base-url", &server.base_url()])
            .args(["summary", "--views", "--format", "json"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let row = json["views"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["view"] == "Breaching")
            .cloned()
            .expect("a Breaching row");
        let summary = (row["matches"].as_u64(), row["breaching"].as_u64());
        // the exporter, one walk
        let e = Exporter::start_at(
            &server.base_url(),
            &server.api_key(),
            home.path(),
            Some(&cfg),
            &["--interval", "1h"],
            &[],
        );
        let text = tokio::task::block_in_place(|| e.metrics_when_read(2));
        drop(e);
        let exported = sample(&text, "convo_view_matches", "view=\"Breaching\"");
        // the board and the view, on the real loop
        let mut app = testing::app(120, 30, 50);
        app.settings_mut().set_sla(first_response(20), false);
        let mut h = Harness::new(runtime(&server, common::fast_settings), (120, 30), app);
        h.wait_for(" loaded").await;
        h.keys(vec![KeyCode::Char('B')]).await;
        let board = h.until(vec![], ", again in ").await;
        let line = board
            .lines()
            .find(|l| l.contains("Breaching"))
            .unwrap_or_default()
            .to_string();
        let cells: Vec<String> = line
            .split("  ")
            .map(|c| c.trim().trim_matches('│').trim().to_string())
            .filter(|c| !c.is_empty())
            .collect();
        let on_board = cells.get(1).and_then(|c| c.parse::<usize>().ok());
        h.keys(vec![KeyCode::Down, KeyCode::Enter]).await;
        // The view's walk at its end (the screen's " loaded" may still be the list before it).
        h.wait_app("the Breaching view loaded", |app| {
            app.conversations.query().to_string() == "due:breaching"
                && !app.conversations.refreshing()
                && !app.conversations.walk().is_loading()
                && !app.conversations.walk().has_more()
        })
        .await;
        let screen = h.wait_for(" loaded").await;
        let title = screen.lines().nth(1).unwrap_or_default().to_string();
        let in_title = title
            .split(" breaching")
            .next()
            .and_then(|t| t.rsplit(' ').next())
            .and_then(|n| n.parse::<usize>().ok());
        let rows = h.app.conversations.rows().len();
        let foot = footer(&h.app);
        let after = truth();
        if before != after {
            continue;
        }
        let n = before;
        assert_eq!(
            summary,
            (Some(n as u64), Some(n as u64)),
            "summary --views: {row}"
        );
        assert_eq!(exported, Some(n as f64), "the exporter:\n{text}");
        assert_eq!(on_board, Some(n), "the board's MATCH: {line:?}\n{board}");
        assert_eq!(in_title, Some(n), "the view's title: {title:?}");
        assert_eq!(rows, n, "the view's rows:\n{screen}");
        assert!(foot.contains(&format!("all {n} loaded")), "{foot}");
        return;
    }
    panic!("the queue crossed the target during every reading");
}
