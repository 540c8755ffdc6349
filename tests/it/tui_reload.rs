//! A reload that cannot reach the service loses nothing (issue 25, section 1): the new walk is
//! read behind the rows on screen, which stay in place with the selection until it has
//! answered; when it fails they stay, the status line says why, and `r` (or the periodic
//! refresh) tries again. The same for a profile switch.

use crossterm::event::KeyCode;

use convo::api::{ApiError, Resource};
use convo::tui::app::App;
use convo::tui::command::Command;
use convo::tui::msg::Msg;
use convo::tui::testing::{self, FakeServer, ch, key, now};
use convo::tui::update::update;

use crate::common;
use common::app::{footer, retry_of, staging};

fn ids(app: &App) -> Vec<uuid::Uuid> {
    app.conversations.rows().iter().map(|c| c.id).collect()
}

fn selected_id(app: &App) -> Option<uuid::Uuid> {
    app.conversations.selected_row().map(|c| c.id)
}

/// The request of a page of the Conversations tab: a fetch, or a look-ahead chain's (a
/// reload read behind the screen asks ahead when it wants more than one more page).
fn conversation_fetch(cmds: &[Command]) -> Command {
    cmds.iter()
        .find(|c| {
            matches!(
                c,
                Command::Fetch {
                    tab: Resource::Conversations,
                    ..
                } | Command::Ahead {
                    tab: Resource::Conversations,
                    ..
                }
            )
        })
        .cloned()
        .unwrap_or_else(|| panic!("no conversations fetch in {cmds:?}"))
}

fn generation_of(c: &Command) -> u64 {
    match c {
        Command::Fetch { generation, .. } | Command::Ahead { generation, .. } => *generation,
        _ => panic!("not a fetch: {c:?}"),
    }
}

fn down(generation: u64) -> Msg {
    Msg::PageLoaded {
        tab: Resource::Conversations,
        generation,
        result: Err(ApiError::Network {
            detail: "cannot connect: connection refused".into(),
            attempts: 4,
        }),
    }
}

fn status_line(app: &App) -> String {
    testing::render(app)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

/// 2,000 rows loaded with `L`, the selection on row 1,990.
fn all_loaded(server: &FakeServer) -> App {
    let mut app = testing::app(120, 30, 50);
    server.settle(&mut app, Msg::Resize(120, 30));
    server.settle(&mut app, ch('L'));
    assert_eq!(app.conversations.rows().len(), 2000);
    server.settle(&mut app, key(KeyCode::End));
    for _ in 0..9 {
        server.settle(&mut app, key(KeyCode::Up));
    }
    assert_eq!(app.conversations.selected(), 1990);
    app
}

#[test]
fn r_while_the_service_is_down_keeps_every_row_in_place_with_the_selection() {
    let server = FakeServer::new(2000, 5);
    let mut app = all_loaded(&server);
    let before = ids(&app);
    let (sel, offset) = (selected_id(&app), app.conversations.offset());

    let cmds = update(&mut app, ch('r'));
    assert!(cmds.contains(&Command::Cancel {
        tab: Resource::Conversations
    }));
    let fetch = conversation_fetch(&cmds);
    let g = generation_of(&fetch);
    // While the new walk is asked for, the rows stay, in place, selected as they were.
    assert_eq!(ids(&app), before);
    assert_eq!(selected_id(&app), sel);
    assert_eq!(app.conversations.offset(), offset);
    assert!(footer(&app).contains("reloading"), "{}", footer(&app));
    // The client retries: the countdown, over the rows.
    let wait = std::time::Duration::from_secs(1);
    update(&mut app, retry_of(g, 2, wait, "cannot connect", false));
    assert!(
        status_line(&app).contains("retrying in 1s"),
        "{}",
        status_line(&app)
    );
    assert_eq!(ids(&app), before);

    // It fails: every row stays, with the selection; the status line says why and what to do.
    update(&mut app, down(g));
    assert_eq!(ids(&app), before, "every loaded row kept");
    assert_eq!(selected_id(&app), sel, "the selection kept");
    assert_eq!(app.conversations.offset(), offset);
    let status = status_line(&app);
    common::assert_has(&status, "reload failed (r tries again");
    common::assert_has(&status, "2000 rows shown are kept");
    common::assert_has(&status, "cannot connect");
    assert!(footer(&app).contains("reload failed"), "{}", footer(&app));
    let screen = testing::render(&app);
    assert!(!screen.contains("nothing loaded yet"), "{screen}");
    assert!(!screen.contains("loading the first page"), "{screen}");
    // The rows stay selectable; nothing more is asked of the service meanwhile.
    let cmds = update(&mut app, key(KeyCode::Down));
    assert_eq!(app.conversations.selected(), 1991);
    assert!(
        !cmds
            .iter()
            .any(|c| matches!(c, Command::Fetch { .. } | Command::Ahead { .. }))
    );

    // r tries again; the service answers: the new walk takes the screen, the row stays.
    let sel = selected_id(&app);
    let cmds = update(&mut app, ch('r'));
    let again = conversation_fetch(&cmds);
    assert!(generation_of(&again) > g, "a new walk");
    let mut seen = Vec::new();
    let mut queue = vec![server.answer(&again).expect("answer")];
    while let Some(m) = queue.pop() {
        for c in update(&mut app, m) {
            if let Some(a) = server.answer(&c) {
                queue.push(a);
            }
            seen.push(c);
        }
        // Until it took the screen, the rows shown are the old ones, whole.
        if app.conversations.generation() != generation_of(&again) {
            assert_eq!(ids(&app), before);
        } else {
            // From the moment the new walk takes the screen, its row is selected: the walk
            // read down to it first (not 500 rows and a blank screen while it looks on).
            assert_eq!(selected_id(&app), sel, "the row from the first moment");
        }
    }
    assert_eq!(app.conversations.generation(), generation_of(&again));
    assert_eq!(selected_id(&app), sel, "the row kept after the reload");
    assert!(!status_line(&app).contains("reload failed"));
}

/// A reload that fails after some pages (the service went down mid-way) keeps every row too:
/// the rows are replaced only once the new walk has read as deep as they went.
#[test]
fn a_reload_that_fails_part_way_keeps_every_row() {
    let server = FakeServer::new(2000, 5);
    let mut app = all_loaded(&server);
    let (before, sel) = (ids(&app), selected_id(&app));
    let mut fetch = conversation_fetch(&update(&mut app, ch('r')));
    for _ in 0..3 {
        let cmds = update(&mut app, server.answer(&fetch).expect("answer"));
        assert_eq!(ids(&app), before, "not replaced by a part of the walk");
        fetch = conversation_fetch(&cmds);
    }
    update(&mut app, down(generation_of(&fetch)));
    assert_eq!(ids(&app), before);
    assert_eq!(selected_id(&app), sel);
    assert!(status_line(&app).contains("reload failed"));
}

/// With auto refresh on, a reload that failed is tried again at the next period, and the
/// refresh's own failures never touch the rows.
#[test]
fn the_periodic_refresh_tries_a_failed_reload_again() {
    let server = FakeServer::new(2000, 5);
    let mut app = all_loaded(&server);
    app.refresh_every(Some(10));
    app.refresh_clock_mut().restart(now());
    let before = ids(&app);
    let g = generation_of(&conversation_fetch(&update(&mut app, ch('r'))));
    update(&mut app, down(g));
    let at = |s| {
        Msg::Tick(
            now()
                .checked_add(jiff::SignedDuration::from_secs(s))
                .unwrap(),
        )
    };
    assert!(update(&mut app, at(5)).is_empty(), "not before the period");
    let cmds = update(&mut app, at(11));
    let fetch = conversation_fetch(&cmds);
    assert!(generation_of(&fetch) > g);
    update(&mut app, down(generation_of(&fetch)));
    assert_eq!(ids(&app), before, "a failed retry changes nothing");
    let fetch = conversation_fetch(&update(&mut app, at(22)));
    server.settle(&mut app, server.answer(&fetch).expect("answer"));
    assert_eq!(app.conversations.generation(), generation_of(&fetch));
}

/// Another profile whose service cannot be reached: the rows shown stay (said to be the
/// previous profile's) until its first page answers; `r` tries again, and then its rows come.
#[test]
fn a_profile_switch_to_a_service_that_is_down_keeps_the_rows_until_it_answers() {
    let server = FakeServer::new(2000, 5);
    let mut app = all_loaded(&server);
    let (before, sel) = (ids(&app), selected_id(&app));
    app.profiles_mut()
        .offer(vec!["prod".into(), "staging".into()], Some("prod".into()));
    let cmds = update(
        &mut app,
        Msg::ProfileLoaded {
            id: 0,
            result: Ok(Box::new(staging())),
        },
    );
    let fetch = conversation_fetch(&cmds);
    assert!(matches!(&fetch, Command::Fetch { limit, .. } if limit.get() == 20));
    assert_eq!(ids(&app), before);
    assert_eq!(selected_id(&app), sel);
    update(&mut app, down(generation_of(&fetch)));
    assert_eq!(ids(&app), before);
    let status = status_line(&app);
    common::assert_has(&status, "profile staging not loaded (r tries again");
    common::assert_has(&status, "previous profile's");
    // r: its walk again (unfiltered, pages of 20), whose first page replaces the rows.
    let fetch = conversation_fetch(&update(&mut app, ch('r')));
    update(&mut app, server.answer(&fetch).expect("answer"));
    assert_eq!(app.conversations.rows().len(), 20);
    assert_eq!(app.conversations.selected(), 0);
    assert!(app.history().is_empty());
}

/// While a failed reload waits behind the rows, `L` and a whole-walk export say why they do
/// not start, instead of claiming to load (the walk on screen waits for the reload).
#[test]
fn after_a_failed_reload_l_and_a_whole_walk_export_say_why_they_wait() {
    let server = FakeServer::new(2000, 5);
    let mut app = common::app::on_screen(&server, 120, 30);
    let loaded = app.conversations.rows().len();
    assert!(loaded < 2000);
    let g = generation_of(&conversation_fetch(&update(&mut app, ch('r'))));
    update(&mut app, down(g));
    update(&mut app, ch('L'));
    assert!(!app.conversations.load_all());
    let f = footer(&app);
    assert!(!f.contains("loading all"), "{f}");
    assert!(
        status_line(&app).contains("L waits for the reload"),
        "{}",
        status_line(&app)
    );
    // e, a path, w (the whole walk), y: not started, said so; the rows stay.
    update(&mut app, ch('e'));
    // Enter asks whether the path exists; the answer comes as the runtime gives it.
    testing::update_checked(&mut app, key(KeyCode::Enter));
    update(&mut app, ch('w'));
    let cmds = update(&mut app, ch('y'));
    assert!(!app.exports().walking(), "{cmds:?}");
    let m = app.status_line().shown().expect("said").text.clone();
    common::assert_has(&m, "whole-walk export not started");
    assert_eq!(app.conversations.rows().len(), loaded);
}

/// At 80 columns a failed reload's line ended "…: cannot connect to …" with no way to read the
/// cause: the help's "Last error" still held the retry before it ("cannot connect
/// (retrying)"). The line now says where to read it whole, and the help holds the failure.
#[test]
fn a_failed_reload_cut_at_80_columns_is_read_whole_in_the_help() {
    let server = FakeServer::new(300, 5);
    let mut app = common::app::on_screen(&server, 80, 24);
    let cmds = update(&mut app, ch('r'));
    let g = generation_of(&conversation_fetch(&cmds));
    let wait = std::time::Duration::from_secs(1);
    update(&mut app, retry_of(g, 2, wait, "cannot connect", false));
    update(&mut app, down(g));
    let status = status_line(&app);
    common::assert_has(&status, "reload failed (r tries again");
    common::assert_has(&status, "(? shows all)");
    update(&mut app, ch('?'));
    let help = testing::render(&app);
    common::assert_has(&help, " reload failed: the connection failed");
    assert!(
        help.contains("connection refused"),
        "the cause whole: {help}"
    );
    assert!(
        !help.contains("(retrying)"),
        "not the retry before it: {help}"
    );
}
