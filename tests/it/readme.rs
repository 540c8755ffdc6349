//! The README stays true: its key table is the default key map, its screens are the snapshot
//! tests' screens, and its picture (`assets/screenshot.svg`) is what the browser draws on the
//! demo. `UPDATE_README=1 cargo test --test it readme::` rewrites the blocks,
//! `CONVO_UPDATE_SCREENSHOT=1` the picture.

use crate::common;

use convo::api::{ApiKey, Conversation, KeySource, Resource, Visitor};
use convo::config::{AliasKind, Config, Overrides};
use convo::tui::command::{Command, RequestFilter};
use convo::tui::keys::{Group, KeyMap};
use convo::tui::msg::{Loaded, Msg};
use convo::tui::names::VisitorLabel;
use convo::tui::{TuiOptions, app_from_config, testing, update::update};

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");

fn key_table() -> String {
    let km = KeyMap::default();
    let mut s = String::new();
    for g in Group::ALL {
        let rows: Vec<_> = km.bindings.iter().filter(|b| b.group == g).collect();
        if rows.is_empty() {
            continue;
        }
        s.push_str(&format!(
            "\n**{}**\n\n| keys | action |\n|---|---|\n",
            g.title()
        ));
        for b in rows {
            let keys: Vec<String> = b
                .keys
                .iter()
                .map(|k| format!("`{}`", k.label().replace('|', "\\|")))
                .collect();
            s.push_str(&format!("| {} | {} |\n", keys.join(" "), b.help));
        }
    }
    s
}

/// The screen of a snapshot file, one line a row, trailing blanks trimmed.
fn screen(snapshot: &str) -> String {
    let path = format!(
        "{}/tests/it/snapshots/it__{snapshot}.snap",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("snapshot exists");
    let body = text.splitn(3, "---").nth(2).unwrap_or("");
    let mut out = String::from("\n```text\n");
    for line in body.lines().filter(|l| l.starts_with('"')) {
        // TestBackend notes cells hidden behind wide characters after the row: drop the note.
        let row = line
            .split("\" Hidden by multi-width")
            .next()
            .unwrap_or(line);
        let inner = row.strip_prefix('"').unwrap_or(row);
        let inner = inner.strip_suffix('"').unwrap_or(inner);
        out.push_str(inner.trim_end());
        out.push('\n');
    }
    out.push_str("```\n");
    out
}

fn block<'a>(readme: &'a str, name: &str) -> Option<(usize, usize, &'a str)> {
    let start_tag = format!("<!-- {name}:start -->");
    let end_tag = format!("<!-- {name}:end -->");
    let s = readme.find(&start_tag)? + start_tag.len();
    let e = readme[s..].find(&end_tag)? + s;
    Some((s, e, &readme[s..e]))
}

#[test]
fn readme_blocks_match_the_key_map_and_the_snapshots() {
    let files = [
        (README.to_string(), vec![("keys", key_table())]),
        (
            format!("{}/docs/browser.md", env!("CARGO_MANIFEST_DIR")),
            vec![
                (
                    "screen-conversations",
                    screen("tui_snapshots__conversations_tab"),
                ),
                ("screen-visitors", screen("tui_snapshots__visitors_tab")),
                (
                    "screen-sla",
                    screen("tui_summary__summary_pane_with_a_first_response_target"),
                ),
            ],
        ),
    ];
    let update = std::env::var_os("UPDATE_README").is_some();
    for (path, wanted) in files {
        let mut text = std::fs::read_to_string(&path).unwrap();
        for (name, want) in &wanted {
            let (s, e, have) = block(&text, name).unwrap_or_else(|| panic!("{path} lacks {name}"));
            if have != want {
                if update {
                    text.replace_range(s..e, want);
                } else {
                    panic!(
                        "{path}: block {name} is out of date; run UPDATE_README=1 cargo test --test it readme::\n{want}"
                    );
                }
            }
        }
        if update {
            std::fs::write(&path, text).unwrap();
        }
    }
}

/// A newcomer's README: the two commands first, short, and a link to every page in docs/.
#[test]
fn readme_starts_with_the_two_commands_and_links_every_page() {
    let readme = std::fs::read_to_string(README).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; keep it under 250"
    );
    let first_block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap_or("");
    let commands: Vec<&str> = first_block
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .collect();
    assert_eq!(
        commands,
        ["cargo run --release -- --demo", "cargo test"],
        "the README's first block is the two commands"
    );
    assert!(
        readme.find("```sh") < readme.find("\n## "),
        "the two commands come before the first section"
    );
    let docs = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/docs")).unwrap();
    for page in docs {
        let name = page.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            assert!(
                readme.contains(&format!("](docs/{name})")),
                "README.md does not link docs/{name}"
            );
        }
    }
    for other in ["CONTRIBUTING.md", "CHANGELOG.md"] {
        assert!(
            readme.contains(&format!("]({other})")),
            "README.md does not link {other}"
        );
    }
    assert!(
        readme.contains("](assets/screenshot.svg)"),
        "README.md shows the picture"
    );
}

const SCREENSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/screenshot.svg");

/// The browser as `convo --demo` opens it, at 120x35, on the demo's data with its newest row at
/// the tests' fixed clock (and that clock as "now"), its names known as after the visitor
/// sync; every page it asks for is fetched from a real demo server.
fn demo_screen() -> ratatui::buffer::Buffer {
    let (w, h) = (120, 35);
    let demo = common::Demo::with(convo::demo::DemoOptions {
        anchor: Some(testing::now()),
        ..convo::demo::DemoOptions::default()
    });
    let tmp = tempfile::tempdir().unwrap();
    let key = ApiKey::new(&demo.key(), KeySource::Demo, "sk_").unwrap();
    let overrides = Overrides {
        config_path: Some(tmp.path().join("none.toml")),
        ..Overrides::default()
    };
    let mut cfg =
        Config::for_demo(demo.url(), key, convo::demo::targets(), &overrides).expect("config");
    // As `convo --demo` names the demo's sites and agents.
    for (id, name) in convo::demo::aliases(demo.data()) {
        let kind = if demo.data().sites.contains(&id) {
            AliasKind::Site
        } else {
            AliasKind::Agent
        };
        cfg.aliases.insert_as(id, name, kind);
    }
    let client = demo.client();
    let opts = TuiOptions {
        demo: true,
        ..TuiOptions::default()
    };
    let mut app = app_from_config(&cfg, &client, &opts).expect("app");
    app.set_clock(testing::now());
    app.settings_mut().use_tz(jiff::tz::TimeZone::UTC);
    // The port is random; `--demo` shows whichever it got.
    app.settings_mut()
        .show_endpoint("127.0.0.1:8787 · sk_demo_…ab12".into(), true);
    // In colour whatever NO_COLOR says here (the look is applied again, then the targets'
    // columns, as at start).
    app.settings_mut().apply_ui(&cfg.ui, false);
    app.settings_mut()
        .set_sla(cfg.sla.clone(), cfg.ui.columns.conversations.is_some());
    let fetch = |query: &RequestFilter, cursor: Option<String>, limit| {
        let cursor = cursor.as_deref();
        let ignore = common::ignore_retry;
        demo.block_on(async {
            match query {
                RequestFilter::Conversations(f) => client
                    .list::<_, Conversation>(f, limit, cursor, &ignore)
                    .await
                    .map(Loaded::Conversations),
                RequestFilter::Visitors(f) => client
                    .list::<_, Visitor>(f, limit, cursor, &ignore)
                    .await
                    .map(Loaded::Visitors),
            }
        })
    };
    let mut queue = vec![Msg::Resize(w, h)];
    while let Some(msg) = queue.pop() {
        for command in update(&mut app, msg) {
            match command {
                Command::Fetch {
                    tab,
                    generation,
                    cursor,
                    query,
                    limit,
                } => queue.push(Msg::loaded(
                    false,
                    tab,
                    generation,
                    fetch(&query, cursor, limit),
                )),
                Command::LoadNames(ids) => {
                    let found = ids
                        .iter()
                        .filter_map(|(id, _)| {
                            let v = demo.data().visitors.iter().find(|v| v.id == *id)?;
                            let label = VisitorLabel {
                                name: v.name.as_deref().map(Into::into),
                                email: v.email.as_deref().map(Into::into),
                                external_id: v.external_id.as_deref().map(Into::into),
                            };
                            Some((*id, Some(label)))
                        })
                        .collect();
                    queue.push(Msg::NamesLoaded {
                        asked: ids.iter().map(|(id, _)| *id).collect(),
                        found,
                    });
                }
                _ => {}
            }
        }
    }
    assert_eq!(app.active(), Resource::Conversations);
    testing::render_buffer(&app)
}

#[test]
fn the_readme_picture_is_what_the_browser_draws_on_the_demo() {
    let svg = common::svg::render(&demo_screen());
    let have = std::fs::read_to_string(SCREENSHOT).unwrap_or_default();
    if have != svg {
        if std::env::var_os("CONVO_UPDATE_SCREENSHOT").is_some() {
            std::fs::write(SCREENSHOT, &svg).unwrap();
        } else {
            panic!(
                "assets/screenshot.svg is not what the browser draws on the demo; look at the \
                 new picture and rewrite it with CONVO_UPDATE_SCREENSHOT=1 cargo test --test \
                 it readme::"
            );
        }
    }
}
