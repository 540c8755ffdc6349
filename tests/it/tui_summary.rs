//! Issue 7, the summary pane (`S`): its arithmetic against an independent count over the demo
//! dataset, the bucket → filter round trip, and snapshots narrow and wide.

use std::collections::HashMap;

use crossterm::event::KeyCode;
use uuid::Uuid;

use convo::api::{Assignee, Conversation, Resource, Status};
use convo::demo::dataset;
use convo::summary::{By, Key};
use convo::tui::app::App;
use convo::tui::command::{Command, RequestFilter};
use convo::tui::msg::Msg;
use convo::tui::overlay::Overlay;
use convo::tui::summary_pane::SummaryPane;
use convo::tui::testing::{self, FakeServer, ch, key, render};

use crate::common;

/// The demo dataset's conversations as the client parses them.
fn demo_rows(n: usize) -> Vec<Conversation> {
    dataset(42, n, 100)
        .conversations
        .iter()
        .map(|c| serde_json::from_value(serde_json::to_value(c).expect("json")).expect("row"))
        .collect()
}

fn pane(app: &App) -> &SummaryPane {
    match app.overlay() {
        Overlay::Summary(p) => p,
        other => panic!("no summary pane: {other:?}"),
    }
}

/// An app of `w`x`h` with `n` demo conversations; `all`: walked to the end.
fn app_with(w: u16, h: u16, n: usize, all: bool) -> (App, FakeServer) {
    let mut app = testing::app(w, h, 100);
    let mut server = FakeServer::new(0, 5);
    server.conversations = demo_rows(n);
    server.settle(&mut app, Msg::Resize(w, h));
    if all {
        server.settle(&mut app, ch('L'));
    }
    (app, server)
}

#[test]
fn counts_match_an_independent_count_over_the_demo_dataset() {
    let (mut app, server) = app_with(120, 40, 1200, true);
    assert!(app.conversations.walk().is_done());
    server.settle(&mut app, ch('S'));
    let ds = dataset(42, 1200, 100);
    let now = testing::now();
    for by in By::ALL {
        let mut want: HashMap<String, u64> = HashMap::new();
        for c in &ds.conversations {
            let k = match by {
                By::Status => c.status.to_string(),
                By::Site => c.site_id.to_string(),
                By::Assignee => c.assignee_id.map_or("none".into(), |a| a.to_string()),
            };
            *want.entry(k).or_default() += 1;
        }
        let p = pane(&app);
        assert_eq!(p.by, by);
        assert_eq!(p.total(), 1200);
        let got: HashMap<String, u64> = p
            .buckets
            .iter()
            .map(|(b, _)| {
                let k = match &b.key {
                    Key::Status(s) => s.as_str().to_string(),
                    Key::Site(id) => id.to_string(),
                    Key::Assignee(a) => a.map_or("none".into(), |a| a.to_string()),
                    Key::Overflow => panic!("no overflow with a few sites and agents"),
                };
                (k, b.count)
            })
            .collect();
        assert_eq!(got, want, "{by:?}");
        assert!(p.buckets.windows(2).all(|w| w[0].0.count >= w[1].0.count));
        if by == By::Status {
            // oldest and stale of the open bucket, counted here by hand
            let open: Vec<_> = ds
                .conversations
                .iter()
                .filter(|c| c.status == "open")
                .collect();
            let oldest = open.iter().map(|c| c.created_at).min();
            let cutoff = now.as_second() - 7200;
            let stale = open
                .iter()
                .filter(|c| c.updated_at.as_second() < cutoff)
                .count();
            let waiting: Vec<_> = open.iter().filter(|c| c.assignee_id.is_none()).collect();
            let oldest_waiting = waiting.iter().map(|c| c.created_at).min();
            let age = |t: Option<jiff::Timestamp>| t.map(|t| now.as_second() - t.as_second());
            let (b, _) = p
                .buckets
                .iter()
                .find(|(b, _)| b.key == Key::Status(Status::Open))
                .expect("open bucket");
            assert_eq!(b.oldest_age, age(oldest));
            assert_eq!(b.stale, stale as u64);
            assert_eq!(b.waiting, waiting.len() as u64);
            assert_eq!(b.oldest_waiting_age, age(oldest_waiting));
            assert_eq!(p.all().waiting, waiting.len() as u64, "only open rows wait");
        }
        server.settle(&mut app, key(KeyCode::Tab));
    }
    let screen = render(&app);
    assert!(screen.contains("all 1,200 loaded"), "{screen}");
}

#[test]
fn coverage_never_claims_a_total_and_l_loads_the_rest_live() {
    let (mut app, server) = app_with(120, 40, 450, false);
    update_only(&mut app, ch('S'));
    let n = app.conversations.rows().len();
    assert!(n < 450 && !app.conversations.walk().is_done());
    let screen = render(&app);
    assert!(
        screen.contains(&format!("{n} of ≥{n} loaded; more available")),
        "{screen}"
    );
    assert_eq!(pane(&app).total(), n);
    // L in the pane: the rest is walked, and the pane follows
    let cmds = server.settle(&mut app, ch('L'));
    assert!(cmds.iter().any(|c| matches!(c, Command::Ahead { .. })));
    assert_eq!(pane(&app).total(), 450);
    assert!(render(&app).contains("all 450 loaded"));
}

#[test]
fn before_the_first_page_answers_the_pane_claims_no_count() {
    let mut app = testing::app(120, 40, 100);
    let cmds = update_only(&mut app, Msg::Resize(120, 40));
    assert!(cmds.iter().any(|c| matches!(c, Command::Fetch { .. })));
    update_only(&mut app, ch('S'));
    let screen = render(&app);
    assert!(
        screen.contains("the first page is still loading"),
        "{screen}"
    );
    assert!(!screen.contains("0 of ≥0"), "{screen}");
    assert!(!screen.contains("more available"), "{screen}");
}

fn update_only(app: &mut App, msg: Msg) -> Vec<Command> {
    convo::tui::update::update(app, msg)
}

#[test]
fn enter_on_a_bucket_filters_the_tab_server_side_and_back_returns() {
    let (mut app, server) = app_with(120, 40, 300, false);
    server.settle(&mut app, ch('u')); // a filter already set is kept
    server.settle(&mut app, ch('S'));
    server.settle(&mut app, key(KeyCode::Tab)); // by site
    server.settle(&mut app, key(KeyCode::Down));
    let p = pane(&app);
    assert_eq!(p.by, By::Site);
    let Key::Site(site) = p.buckets[1].0.key.clone() else {
        panic!("a site bucket")
    };
    let cmds = update_only(&mut app, key(KeyCode::Enter));
    assert!(matches!(app.overlay(), Overlay::None));
    let q = cmds
        .iter()
        .find_map(|c| match c {
            Command::Fetch {
                tab: Resource::Conversations,
                cursor: None,
                query: RequestFilter::Conversations(f),
                ..
            } => Some(f.clone()),
            _ => None,
        })
        .expect("a fetch of the first page");
    assert_eq!(q.site_id, Some(site));
    assert_eq!(q.assignee, Assignee::Unassigned);
    // Back: the filter before
    server.settle(&mut app, key(KeyCode::Backspace));
    assert_eq!(app.conversations.filter().site_id, None::<Uuid>);
    assert_eq!(app.conversations.filter().assignee, Assignee::Unassigned);
}

#[test]
fn the_visitors_tab_says_the_summary_is_for_conversations() {
    let (mut app, server) = app_with(120, 40, 50, false);
    server.settle(&mut app, ch('2'));
    server.settle(&mut app, ch('S'));
    assert!(matches!(app.overlay(), Overlay::None));
    assert!(render(&app).contains("the summary is for conversations"));
}

#[test]
fn summary_pane_wide_160x45() {
    let (mut app, server) = app_with(160, 45, 1200, false);
    server.settle(&mut app, ch('S'));
    server.settle(&mut app, key(KeyCode::Tab));
    server.settle(&mut app, key(KeyCode::Tab));
    server.settle(&mut app, key(KeyCode::Down));
    insta::assert_snapshot!(render(&app));
}

#[test]
fn summary_pane_narrow_60x15() {
    let (mut app, server) = app_with(60, 15, 1200, true);
    server.settle(&mut app, ch('S'));
    insta::assert_snapshot!(render(&app));
}

#[test]
fn summary_pane_with_a_first_response_target() {
    let mut app = testing::app(120, 40, 50);
    let server = FakeServer::new(40, 5);
    server.settle(&mut app, Msg::Resize(120, 40));
    app.settings_mut()
        .set_sla(common::app::first_response(25), false);
    server.settle(&mut app, ch('S'));
    let p = pane(&app);
    let all = p.all();
    // Independent count over the test rows: waiting = open (i % 3 == 0) and unassigned
    // (i % 4 is 0 or 3), i * 7 + 1 minutes old; imminent from 20 minutes, breaching from 25.
    let ages: Vec<i64> = (0..40)
        .filter(|i| i % 3 == 0 && (i % 4 == 0 || i % 4 == 3))
        .map(|i| i as i64 * 7 + 1)
        .collect();
    let imminent = ages.iter().filter(|a| (20..25).contains(*a)).count() as u64;
    let breaching = ages.iter().filter(|a| **a >= 25).count() as u64;
    assert_eq!((all.sla.imminent, all.sla.breaching), (imminent, breaching));
    assert_eq!(all.sla.waits.iter().sum::<u64>(), ages.len() as u64);
    let screen = render(&app);
    assert!(
        screen.contains(&format!(
            "first response: {imminent} imminent · {breaching} breaching"
        )),
        "{screen}"
    );
    assert!(
        screen.contains("IMMINENT") && screen.contains("BREACHING"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

fn samples_cmds(cmds: &[Command]) -> Vec<(String, Option<convo::store::Sample>)> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::Samples { key, sample } => Some((key.clone(), sample.clone())),
            _ => None,
        })
        .collect()
}

/// The trend: the end of a walk and every refresh record a sample of the Conversations tab's
/// counts (once per walk, not per page), `S` asks for the last 24 hours, and the pane draws
/// the samples as sparklines of waiting and breaching with each window's min and max.
#[test]
fn refreshes_sample_the_counts_and_the_pane_draws_the_last_24_hours() {
    let mut app = testing::app(120, 40, 50);
    app.refresh_every(Some(10));
    let server = FakeServer::new(120, 5);
    app.settings_mut()
        .set_sla(common::app::first_response(25), false);
    let key = convo::tui::names::look_key(app.conversations.filter());
    // The first page: the walk goes on, no sample yet.
    let cmds = server.settle(&mut app, Msg::Resize(120, 40));
    assert!(samples_cmds(&cmds).is_empty(), "{cmds:?}");
    // End: the walk completes, one sample with the counts of every loaded row.
    let cmds = server.settle(&mut app, ch('L'));
    let got = samples_cmds(&cmds);
    assert_eq!(got.len(), 1, "one sample a walk: {cmds:?}");
    let (k, s) = &got[0];
    assert_eq!(k, &key);
    let s = s.clone().expect("a sample to record");
    let rows = app.conversations.rows();
    let waiting = rows.iter().filter(|c| convo::sla::is_waiting(c)).count() as u64;
    let breaching = rows
        .iter()
        .filter(|c| {
            app.settings()
                .sla()
                .first_response(c, app.now())
                .map(|d| d.state)
                == Some(convo::sla::State::Breaching)
        })
        .count() as u64;
    assert_eq!(
        (s.loaded, s.complete, s.waiting, s.breaching, s.at),
        (120, true, waiting, breaching, app.now().as_second())
    );
    assert!(waiting > 0 && breaching > 0);
    // A periodic refresh a minute later: another sample.
    let at = app
        .now()
        .checked_add(jiff::SignedDuration::from_secs(61))
        .unwrap();
    let cmds = server.settle(&mut app, Msg::Tick(at));
    assert_eq!(samples_cmds(&cmds).len(), 1, "{cmds:?}");
    // S asks for the trend (no sample to record).
    let cmds = server.settle(&mut app, ch('S'));
    assert_eq!(samples_cmds(&cmds), vec![(key.clone(), None)]);
    assert!(render(&app).contains("last 24 h: no samples yet"));
    // The store answers: a day of samples, waiting rising, breaching one hour in.
    let now = app.now().as_second();
    let samples: Vec<convo::store::Sample> = (0..24)
        .map(|h| convo::store::Sample {
            at: now - 86_400 + 1_800 + h * 3_600,
            loaded: 120,
            complete: true,
            waiting: 2 + h as u64,
            imminent: 0,
            breaching: u64::from(h == 20) * 7,
        })
        .collect();
    convo::tui::update::update(
        &mut app,
        Msg::Samples {
            key: "another filter".into(),
            samples: samples.clone(),
        },
    );
    assert!(
        render(&app).contains("no samples yet"),
        "another key's answer is dropped"
    );
    convo::tui::update::update(&mut app, Msg::Samples { key, samples });
    let screen = render(&app);
    // The history began 23.5 h ago: the window starts at its first sample.
    assert!(
        screen.contains("last 24 h, since 23h ago: the whole list, 24 samples"),
        "{screen}"
    );
    assert!(screen.contains("  waiting   "), "{screen}");
    assert!(screen.contains("min 2 max 25"), "{screen}");
    assert!(screen.contains("  breaching "), "{screen}");
    assert!(screen.contains("min 0 max 7"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// A refresh of a list loaded only part of the way is no sample: its counts grew with the
/// pages loaded ("waiting min 100 max 686"), not with the queue. When the refresh stops at
/// its page budget, the top rows it keeps live are sampled, the same number each time.
#[test]
fn only_the_whole_list_or_the_rows_a_refresh_keeps_live_are_sampled() {
    let tick = |app: &App, secs: i64| {
        Msg::Tick(
            app.now()
                .checked_add(jiff::SignedDuration::from_secs(secs))
                .unwrap(),
        )
    };
    // 1,000 conversations, 100 loaded; a refresh re-reads them all (and a page more): the
    // list is not loaded to its end, so nothing is sampled.
    let mut app = testing::app(120, 40, 50);
    app.refresh_every(Some(10));
    let server = FakeServer::new(1000, 5);
    server.settle(&mut app, Msg::Resize(120, 40));
    assert!(!app.conversations.walk().is_done());
    let loaded = app.conversations.rows().len();
    let t = tick(&app, 11);
    let cmds = server.settle(&mut app, t);
    assert!(samples_cmds(&cmds).is_empty(), "{loaded} loaded: {cmds:?}");
    // More pages loaded than a refresh budget of 2 pages re-reads: the refresh keeps the top
    // rows live; those are the sample.
    app.settings_mut().use_refresh_max_pages(2);
    for _ in 0..3 {
        server.settle(&mut app, key(KeyCode::PageDown));
    }
    let loaded = app.conversations.rows().len();
    let t = tick(&app, 11);
    let cmds = server.settle(&mut app, t);
    let got = samples_cmds(&cmds);
    assert_eq!(got.len(), 1, "{cmds:?}");
    let first = got[0].1.clone().expect("a sample");
    assert!(!first.complete && first.loaded <= 100 && (first.loaded as usize) < loaded);
    let top_waiting = app.conversations.rows()[..first.loaded as usize]
        .iter()
        .filter(|c| convo::sla::is_waiting(c))
        .count() as u64;
    assert_eq!(first.waiting, top_waiting);
    // Further down: more rows loaded, the same rows sampled (a minute later).
    for _ in 0..3 {
        server.settle(&mut app, key(KeyCode::PageDown));
    }
    assert!(app.conversations.rows().len() > loaded);
    let t = tick(&app, 61);
    let cmds = server.settle(&mut app, t);
    let got = samples_cmds(&cmds);
    assert_eq!(got.len(), 1, "{cmds:?}");
    let s = got[0].1.clone().expect("a sample");
    assert_eq!(
        (s.loaded, s.complete),
        (first.loaded, false),
        "more pages, same scope"
    );
}

/// The long shift: refreshing every second, the counts are sampled (and the day's samples read
/// back from the store) once a minute, not at every refresh; the walk's end at once.
#[test]
fn a_refresh_every_second_samples_once_a_minute() {
    let mut app = testing::app(120, 40, 50);
    app.refresh_every(Some(1));
    let server = FakeServer::new(120, 5);
    app.settings_mut()
        .set_sla(common::app::first_response(25), false);
    server.settle(&mut app, Msg::Resize(120, 40));
    let cmds = server.settle(&mut app, ch('L'));
    assert_eq!(samples_cmds(&cmds).len(), 1, "the walk's end: {cmds:?}");
    let start = app.now();
    let (mut refreshes, mut samples) = (0, Vec::new());
    for s in 1..=150 {
        let at = start
            .checked_add(jiff::SignedDuration::from_secs(s))
            .unwrap();
        let before = app.refresh_clock().last();
        let cmds = server.settle(&mut app, Msg::Tick(at));
        refreshes += usize::from(app.refresh_clock().last() != before);
        for (_, sample) in samples_cmds(&cmds) {
            samples.push(sample.expect("a sample to record").at - start.as_second());
        }
    }
    assert!(refreshes >= 70, "{refreshes} refreshes");
    assert_eq!(samples, vec![60, 120], "{refreshes} refreshes");
}

/// The pane draws only samples that count the same rows as the newest one, and says which and
/// over what window; samples of other sizes (from before this rule, another budget, a
/// `convo summary` cut short) are left out.
#[test]
fn the_trend_draws_samples_of_one_scope_and_says_which() {
    let mut app = testing::app(120, 40, 50);
    let server = FakeServer::new(120, 5);
    server.settle(&mut app, Msg::Resize(120, 40));
    let key = convo::tui::names::look_key(app.conversations.filter());
    server.settle(&mut app, ch('S'));
    let now = app.now().as_second();
    let sample = |ago: i64, loaded: u64, complete: bool, waiting: u64| convo::store::Sample {
        at: now - ago,
        loaded,
        complete,
        waiting,
        imminent: 0,
        breaching: 0,
    };
    // Loading more pages made "waiting" jump from 100 to 686; the whole list had 5 to 7.
    let samples = vec![
        sample(3_000, 100, false, 100),
        sample(2_400, 120, true, 5),
        sample(1_800, 686, false, 686),
        sample(1_500, 500, false, 480),
        sample(1_200, 120, true, 7),
    ];
    convo::tui::update::update(
        &mut app,
        Msg::Samples {
            key: key.clone(),
            samples: samples.clone(),
        },
    );
    let screen = render(&app);
    assert!(
        screen.contains("last 24 h, since 40m ago: the whole list, 2 samples"),
        "{screen}"
    );
    assert!(screen.contains("min 5 max 7"), "{screen}");
    assert!(!screen.contains("686"), "{screen}");
    // The newest sample counts the top 500 rows: those, said as such.
    let partial: Vec<_> = samples.into_iter().filter(|s| !s.complete).collect();
    convo::tui::update::update(
        &mut app,
        Msg::Samples {
            key,
            samples: partial,
        },
    );
    let screen = render(&app);
    assert!(
        screen
            .contains("last 24 h, since 25m ago: the top 500 rows a refresh keeps live, 1 sample"),
        "{screen}"
    );
    assert!(screen.contains("min 480 max 480"), "{screen}");
}

/// The pane's ages and stale counts are measured to the clock: time passing with no row
/// changed (a tick into the next minutes) counts them again, as a new page would.
#[test]
fn the_pane_counts_again_when_the_minute_turns_with_no_new_rows() {
    let (mut app, server) = app_with(120, 40, 300, true);
    server.settle(&mut app, ch('S'));
    let open = |app: &App| {
        pane(app)
            .buckets
            .iter()
            .find(|(b, _)| b.key == Key::Status(Status::Open))
            .map(|(b, _)| (b.oldest_age, b.stale))
            .expect("open bucket")
    };
    let (age, _) = open(&app);
    let rows = app.conversations.rows().len();
    // Three hours on: every open row idle for an hour more is stale now.
    let later = 3 * 3600;
    server.settle(&mut app, common::app::at(later));
    assert_eq!(app.conversations.rows().len(), rows, "no row came");
    let cutoff = testing::now().as_second() + later - 7200;
    let stale = app
        .conversations
        .rows()
        .iter()
        .filter(|c| {
            c.status == Status::Open
                && c.updated_at
                    .parsed()
                    .is_some_and(|t| t.as_second() < cutoff)
        })
        .count() as u64;
    assert_eq!(open(&app), (age.map(|a| a + later), stale));
}
