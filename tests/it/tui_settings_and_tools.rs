//! The TUI's settings and table tools: `[keys]` remapping and help's bindings, theme and
//! NO_COLOR, configured columns, profile switching (and the mouse a profile turns on); search,
//! display sort, export and `o`. `update` fed with messages, plus snapshots.

use std::collections::BTreeMap;

use crossterm::event::KeyCode;
use ratatui::style::Color;

use convo::api::{Limit, Resource};
use convo::config::ui::{ColumnsConfig, ThemeConfig, ThemePreset, UiConfig};
use convo::tui::app::App;
use convo::tui::columns::Column;
use convo::tui::command::{Command, ExportKind};
use convo::tui::keys::{Action, KeyMap};
use convo::tui::msg::Msg;
use convo::tui::prompt::Prompt;
use convo::tui::session::Session;
use convo::tui::testing::{self, FakeServer, ch, key};
use convo::tui::update::update;

use crate::common;

fn loaded(w: u16, h: u16, conversations: usize) -> (App, FakeServer) {
    common::app::loaded((w, h), conversations, 30)
}

fn keys(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    pairs
        .iter()
        .map(|(a, k)| (a.to_string(), k.iter().map(|s| s.to_string()).collect()))
        .collect()
}

use crate::common::app::type_text;

/// `e`, the path prompt cleared (Ctrl-U) and `path` typed, Enter: the export's commands.
fn export_to(app: &mut App, path: &std::path::Path) -> Vec<Command> {
    update(app, ch('e'));
    update(app, common::app::ctrl('u'));
    type_text(app, path.to_str().unwrap());
    convo::tui::testing::update_checked(app, key(KeyCode::Enter))
}

/// The parts of rows an export's commands hand to the writer, in order.
fn export_parts(cmds: &[Command]) -> Vec<&convo::tui::export::ExportPart> {
    cmds.iter()
        .filter_map(|c| match c {
            Command::ExportRows { part, .. } => Some(part),
            _ => None,
        })
        .collect()
}

/// The header of a conversation export: `convo list`'s columns, then the names the screen
/// shows.
const CONVERSATION_HEADER: &str = "id,siteId,visitorId,status,assigneeId,createdAt,updatedAt,\
                                   visitorName,visitorEmail,siteName,assigneeName";

// ---- keys ----

#[test]
fn keys_remap_an_action_and_unbind_another() {
    let km = KeyMap::with_config(&keys(&[("reload", &["F5", "Ctrl-r"]), ("copy", &[])])).unwrap();
    assert_eq!(km.keys_of(Action::Reload), "F5 Ctrl-r");
    assert_eq!(km.keys_of(Action::Copy), "");
    let mut app = testing::app(120, 40, 50);
    app.settings_mut().use_keymap(km);
    let server = FakeServer::new(100, 10);
    server.settle(&mut app, Msg::Resize(120, 40));
    let gen_before = app.conversations.generation();
    // r no longer reloads; F5 does
    update(&mut app, ch('r'));
    assert_eq!(app.conversations.generation(), gen_before);
    server.settle(&mut app, key(KeyCode::F(5)));
    assert!(app.conversations.generation() > gen_before);
    // y is unbound: no copy command
    let cmds = update(&mut app, ch('y'));
    assert!(
        !cmds
            .iter()
            .any(|c| matches!(c, Command::CopyToClipboard(_))),
        "{cmds:?}"
    );
}

#[test]
fn a_key_on_two_actions_is_an_error_naming_both() {
    let e = KeyMap::with_config(&keys(&[("quit", &["r"])])).unwrap_err();
    assert_eq!(e.key, "keys");
    assert!(
        e.message.contains("\"r\"") && e.message.contains("reload") && e.message.contains("quit"),
        "{e:?}"
    );
    // unbinding the other resolves it
    let km = KeyMap::with_config(&keys(&[("quit", &["r"]), ("reload", &["F5"])])).unwrap();
    assert_eq!(km.keys_of(Action::Quit), "r");
    let e = KeyMap::with_config(&keys(&[("reloda", &["r"])])).unwrap_err();
    assert!(
        e.key == "keys.reloda" && e.message.contains("no action"),
        "{e:?}"
    );
    let e = KeyMap::with_config(&keys(&[("reload", &["Hyper-r"])])).unwrap_err();
    assert!(
        e.key == "keys.reload" && e.message.contains("not a key"),
        "{e:?}"
    );
}

#[test]
fn help_shows_the_effective_bindings() {
    let mut app = testing::app(120, 40, 50);
    app.settings_mut()
        .use_keymap(KeyMap::with_config(&keys(&[("reload", &["F5"])])).unwrap());
    update(&mut app, ch('?'));
    let screen = testing::render(&app);
    assert!(
        screen.contains("F5") && screen.contains("reload"),
        "{screen}"
    );
}

// ---- theme ----

fn themed(preset: ThemePreset, no_color: bool) -> App {
    let (mut app, _s) = loaded(120, 30, 120);
    let cfg = UiConfig {
        theme: ThemeConfig {
            preset,
            roles: BTreeMap::new(),
        },
        ..UiConfig::default()
    };
    app.settings_mut().apply_ui(&cfg, no_color);
    app
}

#[test]
fn no_color_leaves_no_colour_in_the_buffer_and_the_meaning_in_text() {
    let mut app = themed(ThemePreset::Dark, true);
    update(&mut app, key(KeyCode::Down));
    let buf = testing::render_buffer(&app);
    for cell in buf.content.iter() {
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
    }
    let screen = testing::render(&app);
    // the selected row keeps its marker, unassigned and statuses their words
    common::assert_has(&screen, ">");
    assert!(
        screen.contains("unassigned") && screen.contains("open"),
        "{screen}"
    );
    insta::assert_snapshot!("no_color_conversations", screen);
}

#[test]
fn the_default_theme_keeps_colours_and_presets_change_them() {
    let dark = testing::render_buffer(&themed(ThemePreset::Dark, false));
    assert!(dark.content.iter().any(|c| c.fg == Color::Cyan));
    let light = testing::render_buffer(&themed(ThemePreset::Light, false));
    assert!(!light.content.iter().any(|c| c.fg == Color::Cyan));
    assert!(light.content.iter().any(|c| c.fg == Color::Blue));
    let hc = testing::render_buffer(&themed(ThemePreset::HighContrast, false));
    assert!(
        !hc.content
            .iter()
            .any(|c| c.modifier.contains(ratatui::style::Modifier::DIM))
    );
}

#[test]
fn a_role_override_wins() {
    let (mut app, _s) = loaded(120, 30, 10);
    let mut roles = BTreeMap::new();
    roles.insert("accent".to_string(), "#ff8800".to_string());
    let cfg = UiConfig {
        theme: ThemeConfig {
            preset: ThemePreset::Dark,
            roles,
        },
        ..UiConfig::default()
    };
    app.settings_mut().apply_ui(&cfg, false);
    let buf = testing::render_buffer(&app);
    assert!(
        buf.content
            .iter()
            .any(|c| c.fg == Color::Rgb(0xff, 0x88, 0))
    );
    assert!(!buf.content.iter().any(|c| c.fg == Color::Cyan));
}

// ---- search ----

#[test]
fn search_selects_matches_and_n_n_step_through_them() {
    let (mut app, _s) = loaded(120, 30, 120);
    update(&mut app, ch('\\'));
    assert!(matches!(app.prompt(), Some(Prompt::Search(_))));
    // "ana" matches the aliased agent "Ana (EU desk)" and visitors named Ana (the VISITOR
    // column's names), case-insensitively
    type_text(&mut app, "ANA");
    let first = app.conversations.selected();
    let matches = app.search().conversations.matches.clone();
    assert!(!matches.is_empty());
    assert_eq!(matches[0], first);
    let named_ana = |c: &convo::api::Conversation| {
        app.names().get(&c.visitor_id).is_some_and(|l| {
            [&l.name, &l.email].iter().any(|v| {
                v.as_deref()
                    .is_some_and(|t| t.to_lowercase().contains("ana"))
            })
        })
    };
    let want: Vec<usize> = app
        .conversations
        .rows()
        .iter()
        .enumerate()
        .filter(|(_, c)| c.assignee_id == Some(testing::AGENT_A) || named_ana(c))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(matches, want);
    assert!(
        want.iter()
            .any(|&i| app.conversations.rows()[i].assignee_id == Some(testing::AGENT_A))
    );
    update(&mut app, key(KeyCode::Enter));
    assert!(app.prompt().is_none());
    update(&mut app, ch('n'));
    assert_eq!(app.conversations.selected(), matches[1]);
    assert!(
        app.status_line()
            .shown()
            .unwrap()
            .text
            .contains("match 2 of")
    );
    update(&mut app, ch('N'));
    assert_eq!(app.conversations.selected(), matches[0]);
    // wrap backwards to the last match
    update(&mut app, ch('N'));
    assert_eq!(app.conversations.selected(), *matches.last().unwrap());
    // highlighted on screen (underlined), snapshot of the text
    let buf = testing::render_buffer(&app);
    assert!(
        buf.content
            .iter()
            .any(|c| c.modifier.contains(ratatui::style::Modifier::UNDERLINED))
    );
    // Esc in the prompt clears the search
    update(&mut app, ch('\\'));
    update(&mut app, key(KeyCode::Esc));
    assert!(app.search().conversations.query.is_empty());
    assert!(app.search().conversations.matches.is_empty());
}

#[test]
fn search_keys_do_not_fire_while_typing() {
    let (mut app, _s) = loaded(120, 30, 60);
    update(&mut app, ch('\\'));
    let cmds = type_text(&mut app, "qrx");
    assert!(!cmds.iter().any(|c| matches!(c, Command::Quit)), "{cmds:?}");
    assert_eq!(*app.prompt(), Some(Prompt::Search("qrx".into())));
}

/// A paste into the search prompt costs one scan of the rows; typing the same text, one per
/// character. Line breaks in it do not submit; the filter pane takes a paste in its field.
#[test]
fn a_paste_is_one_search_scan_and_goes_into_the_focused_field() {
    let (mut app, _s) = loaded(120, 30, 300);
    update(&mut app, ch('\\'));
    let scans = app.search().conversations.scans();
    update(&mut app, Msg::Paste("pending\r\n".into()));
    assert_eq!(app.search().conversations.scans(), scans + 1);
    assert_eq!(app.search().conversations.query, "pending");
    assert!(matches!(app.prompt(), Some(Prompt::Search(t)) if t == "pending"));
    let n = app.search().conversations.matches.len();
    let pending = app
        .conversations
        .rows()
        .iter()
        .filter(|c| c.status.as_str() == "pending")
        .count();
    assert!(pending > 0);
    assert_eq!(n, pending);
    // typed: a scan per character
    update(&mut app, key(KeyCode::Esc));
    update(&mut app, ch('\\'));
    let scans = app.search().conversations.scans();
    type_text(&mut app, "pending");
    assert_eq!(app.search().conversations.scans(), scans + 7);
    update(&mut app, key(KeyCode::Esc));
    // the filter pane: into the focused field (site id), then applied
    update(&mut app, ch('/'));
    update(&mut app, Msg::Paste(format!("{}\n", testing::SITE_A)));
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(!cmds.is_empty());
    assert_eq!(app.conversations.filter().site_id, Some(testing::SITE_A));
    // nowhere to paste: nothing happens
    let before = app.conversations.filter().clone();
    assert!(update(&mut app, Msg::Paste("q".into())).is_empty());
    assert_eq!(*app.conversations.filter(), before);
    assert!(app.prompt().is_none());
}

// ---- sort ----

#[test]
fn sort_is_marked_keeps_the_selected_row_and_resets_on_reload() {
    let (mut app, s) = loaded(120, 30, 300);
    for _ in 0..5 {
        update(&mut app, key(KeyCode::Down));
    }
    let id = app.selected_id();
    // > chooses the first column (status), descending
    update(&mut app, ch('>'));
    let sort = app.sort().conversations.sort.unwrap();
    assert_eq!(sort.col, Column::Status);
    assert!(sort.desc);
    assert_eq!(app.selected_id(), id, "the selected row stays selected");
    let screen = testing::render(&app);
    common::assert_has(&screen, "sorted by status ↓ (display only)");
    // display order: statuses descending (pending, open, closed)
    let f = &app.sort().conversations;
    let rows = app.conversations.rows();
    let statuses: Vec<String> = f
        .perm
        .iter()
        .map(|&i| rows[i].status.as_str().to_string())
        .collect();
    let mut want = statuses.clone();
    want.sort();
    want.reverse();
    assert_eq!(statuses, want);
    // moving follows the display order
    let pos = f.pos(app.conversations.selected());
    update(&mut app, key(KeyCode::Down));
    assert_eq!(
        app.sort().conversations.pos(app.conversations.selected()),
        pos + 1
    );
    // = reverses, then clears
    update(&mut app, ch('='));
    assert!(!app.sort().conversations.sort.unwrap().desc);
    update(&mut app, ch('>'));
    assert_eq!(app.sort().conversations.sort.unwrap().col, Column::Visitor);
    // a new page keeps the sort and sorts it in
    let loaded_before = app.conversations.rows().len();
    s.settle(&mut app, key(KeyCode::End));
    assert!(app.conversations.rows().len() > loaded_before);
    assert_eq!(
        app.sort().conversations.perm.len(),
        app.conversations.rows().len()
    );
    // reload: server order again, the selected id kept
    let id = app.selected_id();
    s.settle(&mut app, ch('r'));
    assert!(app.sort().conversations.sort.is_none());
    assert!(!testing::render(&app).contains("display only"));
    assert_eq!(app.selected_id(), id);
}

/// CREATED is the 5th column: `>` five times picks it, `=` sorts by it ascending (oldest
/// first).
fn sort_by_created_ascending(app: &mut App) {
    for _ in 0..5 {
        update(app, ch('>'));
    }
    update(app, ch('='));
}

/// `L` with a sort on: the rows are not sorted again on every page (rows that arrive are
/// shown after the sorted ones until they are a quarter more), and once loading ends every
/// row is in order.
#[test]
fn l_does_not_sort_on_every_page_and_ends_fully_sorted() {
    let (mut app, s) = loaded(120, 30, 3000);
    // CREATED ascending: the server sends newest first, so every page changes the order
    sort_by_created_ascending(&mut app);
    assert_eq!(
        app.sort().conversations.sort.map(|s| (s.col, s.desc)),
        Some((Column::Created, false))
    );
    let before = app.sort().conversations.sorts();
    s.settle(&mut app, ch('L'));
    let t = &app.conversations;
    assert_eq!(t.rows().len(), 3000);
    let pages = 3000 / 50;
    let sorts = app.sort().conversations.sorts() - before;
    assert!(
        sorts < pages as u64 / 3,
        "{sorts} full sorts for {pages} pages"
    );
    assert!(sorts >= 1);
    // all in order now, the selection kept
    let f = &app.sort().conversations;
    assert_eq!(f.perm.len(), 3000);
    let created: Vec<_> = f
        .perm
        .iter()
        .map(|&i| t.rows()[i].created_at.clone())
        .collect();
    let mut want = created.clone();
    want.sort_by_key(|c| match c {
        convo::api::Timestamp::Parsed(p) => p.as_nanosecond(),
        convo::api::Timestamp::Raw(_) => i128::MAX,
    });
    assert!(created == want, "not in created order after L");
}

#[test]
fn sorted_screen_snapshot() {
    let (mut app, _s) = loaded(120, 20, 60);
    sort_by_created_ascending(&mut app);
    insta::assert_snapshot!("sorted_by_created", testing::render(&app));
}

// ---- export ----

#[test]
fn export_asks_for_a_path_and_emits_the_rows() {
    let (mut app, _s) = loaded(120, 30, 120);
    update(&mut app, ch('e'));
    let Some(Prompt::Export(default)) = app.prompt().clone() else {
        panic!("no export prompt");
    };
    assert_eq!(default, "./convo-conversations-2026-11-22.csv");
    // replace with our own path
    for _ in 0..default.chars().count() {
        update(&mut app, key(KeyCode::Backspace));
    }
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.csv").to_str().unwrap().to_string();
    type_text(&mut app, &x);
    // Enter: the runtime is asked whether the path is free, nothing else yet
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert_eq!(cmds, vec![Command::CheckExportPath(x.clone())]);
    // it is; more pages exist: loaded rows or the whole walk; l takes the loaded rows
    update(&mut app, convo::tui::export::write::check_path(x.clone()));
    assert_eq!(*app.prompt(), Some(Prompt::ExportScope(x.clone())));
    let cmds = update(&mut app, ch('l'));
    let Some(Command::Export {
        path,
        rows,
        kind: ExportKind::Loaded,
        format: convo::tui::export::Format::Csv,
        ..
    }) = cmds.iter().find(|c| matches!(c, Command::Export { .. }))
    else {
        panic!("{cmds:?}");
    };
    assert_eq!(path.to_str(), Some(x.as_str()));
    assert_eq!(*rows, app.conversations.rows().len());
    // the rows go to the writer in parts, none formatted here: one part (fewer rows than a
    // part holds), then the end
    let parts = export_parts(&cmds);
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].len(), *rows);
    assert!(
        cmds.iter()
            .any(|c| matches!(c, Command::ExportEnd { abandon: None, .. }))
    );
    let (contents, _) = parts[0].format(false, true);
    let mut lines = contents.lines();
    assert_eq!(lines.next(), Some(CONVERSATION_HEADER));
    assert_eq!(lines.count(), *rows);
    // the export is written: the next one may start
    update(
        &mut app,
        Msg::ExportEnded {
            id: 1,
            text: "exported".into(),
            error: false,
        },
    );
    // .jsonl: one JSON object per line
    update(&mut app, ch('e'));
    for _ in 0..default.chars().count() {
        update(&mut app, key(KeyCode::Backspace));
    }
    type_text(&mut app, "out.jsonl");
    convo::tui::testing::update_checked(&mut app, key(KeyCode::Enter));
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(
        cmds.iter().any(|c| matches!(
            c,
            Command::Export {
                format: convo::tui::export::Format::Jsonl,
                ..
            }
        )),
        "{cmds:?}"
    );
    let Some(Command::ExportRows { part, .. }) = cmds
        .iter()
        .find(|c| matches!(c, Command::ExportRows { .. }))
    else {
        panic!("{cmds:?}");
    };
    let (contents, _) = part.format(true, true);
    let first: serde_json::Value = serde_json::from_str(contents.lines().next().unwrap()).unwrap();
    assert!(first.get("id").is_some());
}

#[tokio::test]
async fn the_runtime_writes_a_new_file_and_refuses_to_overwrite() {
    let dir = std::env::temp_dir().join(format!("convo-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.csv");
    let _ = std::fs::remove_file(&path);
    let (mut app, _s) = loaded(120, 30, 3);
    assert_eq!(app.conversations.rows().len(), 3);
    let start = |app: &mut App| export_to(app, &path);
    let cmds = start(&mut app);
    let (text, error, parts) = convo::tui::testing::run_export(&mut app, &cmds).await;
    assert!(!error && text.contains("all 3 rows"), "{text}");
    assert_eq!(parts, 1);
    let first = std::fs::read_to_string(&path).unwrap();
    assert_eq!(first.lines().count(), 4);
    // The same name again: said at once (the prompt, with the free name beside it to
    // write or edit), nothing written.
    let cmds = start(&mut app);
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(
        *app.prompt(),
        Some(Prompt::ExportExists(
            dir.join("out-2.csv").to_str().unwrap().into()
        ))
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), first);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Names are read from the store as pages arrive: an export of rows whose names the store
/// has not answered yet waits for the answer, then carries them.
#[tokio::test]
async fn a_conversation_export_waits_for_the_names_the_store_is_reading() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = testing::app(120, 30, 50);
    // No visitor rows (whose names would be known at once): only the store names them.
    let server = FakeServer::new(8, 0);
    let mut asked = Vec::new();
    let mut queue = vec![Msg::Resize(120, 30)];
    while let Some(m) = queue.pop() {
        for c in update(&mut app, m) {
            match &c {
                Command::LoadNames(ids) => asked.extend(ids.iter().map(|(id, _)| *id)),
                other => queue.extend(server.answer(other)),
            }
        }
    }
    assert_eq!(app.conversations.rows().len(), 8);
    assert!(
        !asked.is_empty(),
        "the page's visitors were asked of the store"
    );
    let begun = export_to(&mut app, &dir.path().join("waits.csv"));
    assert!(
        export_parts(&begun).is_empty(),
        "the rows wait for their names"
    );
    let label = convo::tui::names::VisitorLabel {
        name: Some("Zoë Quinn".into()),
        email: None,
        external_id: None,
    };
    let cmds = update(
        &mut app,
        Msg::NamesLoaded {
            asked: asked.clone(),
            found: vec![(asked[0], Some(label))],
        },
    );
    assert_eq!(export_parts(&cmds).len(), 1, "handed on with the answer");
    let all: Vec<Command> = begun.into_iter().chain(cmds).collect();
    let (text, error, _) = convo::tui::testing::run_export(&mut app, &all).await;
    assert!(!error, "{text}");
    let csv = std::fs::read_to_string(dir.path().join("waits.csv")).unwrap();
    common::assert_has(&csv, ",Zoë Quinn,");
}

/// A conversation export reads like the screen: after `convo list`'s columns (first and
/// unchanged) the visitor's name and e-mail and the site's and assignee's aliases; blank where
/// the screen knows nothing better than the id; formulas guarded; JSONL gets the same keys.
#[tokio::test]
async fn a_conversation_export_carries_the_names_the_screen_shows() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _s) = loaded(120, 30, 8);
    let rows = app.conversations.rows().to_vec();
    // A name typed by a stranger that a spreadsheet would run.
    update(
        &mut app,
        common::app::visitor_named(
            rows[1].visitor_id,
            Some("=HYPERLINK(\"x\")"),
            Some("mal@example.org"),
            None,
        ),
    );
    let export = |app: &mut App, name: &str| export_to(app, &dir.path().join(name));
    let cmds = export(&mut app, "named.csv");
    let (text, error, _) = convo::tui::testing::run_export(&mut app, &cmds).await;
    assert!(!error, "{text}");
    let csv = std::fs::read_to_string(dir.path().join("named.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(CONVERSATION_HEADER));
    for (c, line) in rows.iter().zip(lines) {
        let ids = format!("{},{},{},", c.id, c.site_id, c.visitor_id);
        assert!(line.starts_with(&ids), "{line}");
        let site = if c.site_id == testing::SITE_A {
            "Web shop"
        } else {
            ""
        };
        let agent = if c.assignee_id == Some(testing::AGENT_A) {
            "Ana (EU desk)"
        } else {
            ""
        };
        let label = app.names().get(&c.visitor_id).cloned();
        let (name, email) = if c.visitor_id == rows[1].visitor_id {
            (
                "\"'=HYPERLINK(\"\"x\"\")\"".to_string(),
                "mal@example.org".to_string(),
            )
        } else {
            let l = label.expect("the screen knows this visitor");
            (
                l.name.as_deref().unwrap_or_default().to_string(),
                l.email.as_deref().unwrap_or_default().to_string(),
            )
        };
        assert!(
            line.ends_with(&format!(",{name},{email},{site},{agent}")),
            "{line}"
        );
    }
    // JSONL: the row as `convo list` writes it, the same four keys at its end.
    let cmds = export(&mut app, "named.jsonl");
    convo::tui::testing::run_export(&mut app, &cmds).await;
    let jsonl = std::fs::read_to_string(dir.path().join("named.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["id"], rows[0].id.to_string());
    assert_eq!(first["siteName"], "Web shop");
    assert_eq!(first["assigneeName"], serde_json::Value::Null);
    assert!(first["visitorName"].is_string(), "{first}");
}

// ---- open ----

#[test]
fn o_opens_the_web_url_of_the_selected_row_or_hints() {
    let (mut app, _s) = loaded(120, 30, 20);
    let cmds = update(&mut app, ch('o'));
    assert!(cmds.is_empty());
    assert!(app.status_line().shown().unwrap().text.contains("web_url"));
    app.settings_mut().apply_ui(
        &convo::config::ui::UiConfig {
            web_url: Some("https://app.example.com/{tab}/{id}".into()),
            ..Default::default()
        },
        false,
    );
    update(&mut app, key(KeyCode::Down));
    let id = app.selected_id().unwrap();
    let cmds = update(&mut app, ch('o'));
    assert!(
        cmds.contains(&Command::OpenUrl(format!(
            "https://app.example.com/conversations/{id}"
        ))),
        "{cmds:?}"
    );
}

// ---- profiles ----

#[test]
fn profile_switch_asks_the_runtime_and_resets_both_tabs() {
    let (mut app, s) = loaded(120, 30, 120);
    app.profiles_mut()
        .offer(vec!["prod".into(), "staging".into()], Some("prod".into()));
    update(&mut app, ch('P'));
    assert_eq!(
        *app.prompt(),
        Some(Prompt::Profiles(1)),
        "on the profile in use, after the top level"
    );
    update(&mut app, key(KeyCode::Down));
    let cmds = update(&mut app, key(KeyCode::Enter));
    assert!(
        cmds.contains(&Command::SwitchProfile {
            id: 1,
            name: Some("staging".into())
        }),
        "{cmds:?}"
    );
    let (gc, gv) = (app.conversations.generation(), app.visitors.generation());
    let sw = common::app::staging();
    let cmds = update(
        &mut app,
        Msg::ProfileLoaded {
            id: 1,
            result: Ok(Box::new(sw)),
        },
    );
    // The old rows stay on screen until the new service answers (tests/tui_reload.rs).
    let rows_before = app.conversations.rows().len();
    assert!(rows_before > 0);
    let fetch = cmds
        .iter()
        .find(|c| matches!(c, Command::Fetch { tab: Resource::Conversations, limit, .. } if limit.get() == 20))
        .cloned()
        .expect("a fetch of the new profile");
    assert!(cmds.iter().any(|c| matches!(
        c,
        Command::Fetch {
            tab: Resource::Visitors,
            ..
        }
    )));
    // an answer of the old walk is dropped
    let old = s.answer(&Command::Fetch {
        tab: Resource::Conversations,
        generation: gc,
        cursor: None,
        query: convo::tui::command::RequestFilter::Conversations(Default::default()),
        limit: Limit::new(20).unwrap(),
    });
    update(&mut app, old.unwrap());
    assert_eq!(app.conversations.rows().len(), rows_before);
    assert_eq!(app.conversations.generation(), gc);
    // the new walk's first page takes the screen
    update(&mut app, s.answer(&fetch).unwrap());
    assert!(app.conversations.generation() > gc && app.visitors.generation() == gv);
    assert_eq!(app.conversations.rows().len(), 20);
    let screen = testing::render(&app);
    common::assert_has(&screen, "profile staging");
    common::assert_has(&screen, "staging.example");
    // a failed load says why and changes nothing
    let id = app.profiles().request;
    update(
        &mut app,
        Msg::ProfileLoaded {
            id,
            result: Err("no profile named \"x\"".into()),
        },
    );
    assert!(app.status_line().shown().unwrap().error);
}

// ---- columns ----

#[test]
fn configured_columns_are_drawn_in_their_order() {
    let (mut app, _s) = loaded(120, 20, 30);
    app.settings_mut().apply_ui(
        &convo::config::ui::UiConfig {
            columns: ColumnsConfig {
                conversations: Some(vec!["id".into(), "status".into(), "assignee".into()]),
                visitors: None,
            },
            ..Default::default()
        },
        false,
    );
    let screen = testing::render(&app);
    let header = screen.lines().nth(2).unwrap_or_default().to_string();
    let (i, s, a) = (
        header.find("ID").unwrap(),
        header.find("STATUS").unwrap(),
        header.find("ASSIGNEE").unwrap(),
    );
    assert!(i < s && s < a, "{header}");
    assert!(!screen.contains("VISITOR"), "{screen}");
    insta::assert_snapshot!("configured_columns", screen);
}

#[test]
fn a_profile_that_changes_mouse_turns_capture_on_or_off_and_only_then() {
    let (mut app, _s) = loaded(120, 30, 20);
    assert!(
        !app.settings().mouse(),
        "off unless the config says mouse = true"
    );
    let switch = |mouse: bool| Session {
        name: "p".into(),
        page_size: Limit::new(20).unwrap(),
        views: Vec::new(),
        aliases: Default::default(),
        refresh_secs: None,
        endpoint: "p.example · sk_…wxyz".into(),
        ui: UiConfig {
            mouse,
            ..UiConfig::default()
        },
        profiles: vec!["p".into()],
        keymap: KeyMap::default(),
        command_keys: Vec::new(),
        sla: Default::default(),
        columns_configured: false,
        client: None,
        config: None,
    };
    let mouse_cmds = |cmds: &[Command]| {
        cmds.iter()
            .filter(|c| matches!(c, Command::SetMouse(_)))
            .cloned()
            .collect::<Vec<_>>()
    };
    // No switch was asked for: the app's request id is 0, as the answers say.
    let loaded_msg = |mouse| Msg::ProfileLoaded {
        id: 0,
        result: Ok(Box::new(switch(mouse))),
    };
    let cmds = update(&mut app, loaded_msg(true));
    assert_eq!(mouse_cmds(&cmds), vec![Command::SetMouse(true)]);
    assert!(app.settings().mouse());
    let cmds = update(&mut app, loaded_msg(true));
    assert!(mouse_cmds(&cmds).is_empty(), "no change, nothing sent");
    let cmds = update(&mut app, loaded_msg(false));
    assert_eq!(mouse_cmds(&cmds), vec![Command::SetMouse(false)]);
    assert!(!app.settings().mouse());
}

fn switch_to(name: &str, sla: convo::sla::Sla) -> Session {
    Session {
        name: name.into(),
        page_size: Limit::new(20).unwrap(),
        views: Vec::new(),
        aliases: Default::default(),
        refresh_secs: None,
        endpoint: format!("{name}.example · sk_…wxyz"),
        ui: UiConfig::default(),
        profiles: vec!["prod".into(), "staging".into()],
        keymap: KeyMap::default(),
        command_keys: Vec::new(),
        sla,
        columns_configured: false,
        client: None,
        config: None,
    }
}

/// `P` twice before the first answer: the older answer is dropped (nothing changes), the
/// newer one is taken; a refused one leaves the old profile whole, its rows and walk included;
/// the new profile's `[sla]` comes with it (DUE appears and goes), and the built-in views stay.
#[test]
fn profile_switches_are_all_or_nothing_and_land_in_order() {
    let (mut app, s) = loaded(120, 30, 120);
    app.profiles_mut()
        .offer(vec!["prod".into(), "staging".into()], Some("prod".into()));
    let pick = |app: &mut App, down: bool| {
        update(app, ch('P'));
        if down {
            update(app, key(KeyCode::Down));
        }
        update(app, key(KeyCode::Enter))
    };
    let first = pick(&mut app, true);
    let second = pick(&mut app, false);
    let id_of = |cmds: &[Command]| {
        cmds.iter()
            .find_map(|c| match c {
                Command::SwitchProfile { id, .. } => Some(*id),
                _ => None,
            })
            .expect("a switch")
    };
    let (a, b) = (id_of(&first), id_of(&second));
    assert!(b > a);
    let (rows, generation) = (
        app.conversations.rows().len(),
        app.conversations.generation(),
    );
    let endpoint = app.settings().endpoint().to_string();

    // The older answer comes last-but-one: dropped, the old profile untouched.
    let cmds = update(
        &mut app,
        Msg::ProfileLoaded {
            id: a,
            result: Ok(Box::new(switch_to("staging", Default::default()))),
        },
    );
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(app.profiles().current.as_deref(), Some("prod"));
    assert_eq!(app.profiles().accepted, None);
    assert_eq!(app.settings().endpoint(), endpoint);
    assert_eq!(
        (
            app.conversations.rows().len(),
            app.conversations.generation()
        ),
        (rows, generation)
    );

    // The newer one is refused: the old profile stays whole and keeps walking.
    update(
        &mut app,
        Msg::ProfileLoaded {
            id: b,
            result: Err("[keys] quit: unknown key \"Hyper-Q\"".into()),
        },
    );
    assert_eq!(app.profiles().current.as_deref(), Some("prod"));
    assert!(app.profiles().switching.is_none(), "P works again");
    assert_eq!(app.settings().endpoint(), endpoint);
    assert!(render_has(&app, "profile not switched"));
    s.settle(&mut app, key(KeyCode::End));
    assert!(
        app.conversations.rows().len() > rows,
        "the old walk goes on"
    );
    assert_eq!(app.conversations.generation(), generation);

    // A third switch, taken: the new targets come with it; the built-in views stay.
    let third = pick(&mut app, true);
    let c = id_of(&third);
    let sla = convo::sla::Sla {
        base: convo::sla::Policy {
            first_response: Some(300),
            ..Default::default()
        },
        ..Default::default()
    };
    assert!(!render_has(&app, " DUE "));
    update(
        &mut app,
        Msg::ProfileLoaded {
            id: c,
            result: Ok(Box::new(switch_to("staging", sla))),
        },
    );
    assert_eq!(app.profiles().current.as_deref(), Some("staging"));
    assert_eq!(app.profiles().accepted, Some(c));
    assert!(
        app.settings()
            .sla()
            .is_tracked(convo::sla::Target::FirstResponse)
    );
    assert!(render_has(&app, " DUE "));
    let names: Vec<&str> = app
        .settings()
        .views()
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, ["Unassigned open", "Breaching"]);
    // And back to a profile without targets: DUE goes.
    let fourth = pick(&mut app, false);
    let d = id_of(&fourth);
    update(
        &mut app,
        Msg::ProfileLoaded {
            id: d,
            result: Ok(Box::new(switch_to("prod", Default::default()))),
        },
    );
    assert!(
        !app.settings()
            .sla()
            .is_tracked(convo::sla::Target::FirstResponse)
    );
    assert!(!render_has(&app, " DUE "));
}

fn render_has(app: &App, text: &str) -> bool {
    testing::render(app).contains(text)
}

/// An export written part by part: a profile switch in the middle abandons it (the partial
/// file removed, said so); a filter change does too; no refresh starts while it is written.
#[tokio::test]
async fn an_export_in_parts_is_abandoned_by_a_profile_switch_or_new_filters_and_pauses_refresh() {
    use convo::tui::export::PART_ROWS;
    let n = PART_ROWS * 2 + 100;
    let mut app = testing::app(120, 30, 100);
    app.refresh_every(Some(10));
    let server = FakeServer::new(n, 5);
    server.settle(&mut app, Msg::Resize(120, 30));
    server.settle(&mut app, ch('L'));
    assert_eq!(app.conversations.rows().len(), n);
    app.profiles_mut()
        .offer(vec!["prod".into(), "staging".into()], Some("prod".into()));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    let start = |app: &mut App| export_to(app, &path);
    let parts = |cmds: &[Command]| {
        export_parts(cmds)
            .iter()
            .map(|p| p.len())
            .collect::<Vec<_>>()
    };

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut writer = testing::ExportWriter::default();
    let cmds = start(&mut app);
    assert_eq!(parts(&cmds), vec![PART_ROWS], "one part at a time");
    for c in cmds {
        writer.run(c, &tx);
    }
    let Some(Msg::ExportWritten { id, rows }) = rx.recv().await else {
        panic!("no part written")
    };
    assert_eq!(rows, PART_ROWS);
    let cmds = update(&mut app, Msg::ExportWritten { id, rows });
    assert_eq!(parts(&cmds), vec![PART_ROWS]);
    // progress on the status line
    let screen = testing::render(&app);
    common::assert_has(
        &screen,
        &format!(
            "exporting to {}: {PART_ROWS} of {n} rows written",
            path.display()
        ),
    );
    // no refresh starts while the rows are being read
    let due = testing::now()
        .checked_add(jiff::SignedDuration::from_secs(60))
        .unwrap();
    assert!(
        !update(&mut app, Msg::Tick(due))
            .iter()
            .any(|c| matches!(c, Command::FetchHead { .. }))
    );
    for c in cmds {
        writer.run(c, &tx);
    }
    let Some(Msg::ExportWritten { .. }) = rx.recv().await else {
        panic!()
    };
    assert!(path.exists(), "written as it goes");

    // a profile switch now: abandoned, the partial file removed, said so
    update(&mut app, ch('P'));
    update(&mut app, key(KeyCode::Down));
    let pick = update(&mut app, key(KeyCode::Enter));
    let Some(Command::SwitchProfile { id: req, .. }) = pick
        .iter()
        .find(|c| matches!(c, Command::SwitchProfile { .. }))
    else {
        panic!("{pick:?}")
    };
    let cmds = update(
        &mut app,
        Msg::ProfileLoaded {
            id: *req,
            result: Ok(Box::new(switch_to("staging", Default::default()))),
        },
    );
    assert!(
        cmds.iter().any(|c| matches!(
            c,
            Command::ExportEnd { abandon: Some(why), .. } if why.contains("profile switched to staging")
        )),
        "{cmds:?}"
    );
    let mut answers = Vec::new();
    for c in cmds {
        answers.extend(server.answer(&c));
        writer.run(c, &tx);
    }
    let Some(Msg::ExportEnded { id, text, error }) = rx.recv().await else {
        panic!()
    };
    assert!(error);
    assert!(
        text.contains("abandoned: profile switched to staging") && text.contains("removed"),
        "{text}"
    );
    assert!(!path.exists(), "no partial file left");
    update(&mut app, Msg::ExportEnded { id, text, error });
    assert!(!app.exports().writing());

    // new filters in the middle of an export abandon it too
    for a in answers {
        server.settle(&mut app, a);
    }
    server.settle(&mut app, ch('L'));
    let cmds = start(&mut app);
    let cmds: Vec<Command> = if matches!(app.prompt(), Some(Prompt::ExportScope(_))) {
        update(&mut app, ch('l'))
    } else {
        cmds
    };
    assert!(
        app.exports().writing(),
        "{cmds:?} {:?}",
        app.status_line().shown()
    );
    let cmds = update(&mut app, ch('u'));
    assert!(
        cmds.iter().any(|c| matches!(
            c,
            Command::ExportEnd { abandon: Some(why), .. } if why.contains("started over")
        )),
        "{cmds:?}"
    );
    assert!(!app.exports().writing());
}
