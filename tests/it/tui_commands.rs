//! `[[commands]]` (issue 41, docs/commands.md): the user's commands on a row, the marks, the
//! menus, where the output goes, the config's errors, doctor's check; and above all that a
//! value from the service never becomes code (the demo's hostile data, a name holding
//! `$(touch x)`, reaches the program as the text of one argument).
//!
//! The real loop on a `TestBackend` against the demo server, and the real binary in a pty for
//! `output = "terminal"`.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crossterm::event::KeyCode;

use common::runtime::{Harness, demo};
use convo::config::{Config, Overrides};
use convo::demo::{DemoOptions, Faults};

/// A config with `commands` (TOML) read as the app reads it.
fn config(commands: &str) -> Result<Config, String> {
    let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
    Config::from_toml_str(
        &format!("base_url = \"http://127.0.0.1:1\"\n{commands}"),
        Path::new("/t/c.toml"),
        &Overrides::default(),
        &env,
    )
    .map_err(|e| e.to_string())
}

/// Gives the harness's app the commands of `toml`, as `app_from_config` does.
fn with_commands(h: &mut Harness, toml: &str) {
    let cfg = config(toml).expect("config reads");
    let keys = h
        .app
        .settings()
        .keymap()
        .command_keys(&cfg.ui.commands)
        .expect("keys free");
    h.app.commands_mut().configure(cfg.ui.commands, keys);
}

/// An executable script in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    p
}

/// A script that appends its arguments (after the first, the file it writes to), each ended
/// by a NUL, then a record separator, to that file: one record per run.
fn argv_writer(dir: &Path) -> PathBuf {
    script(
        dir,
        "argv.sh",
        "out=\"$1\"; shift\n{ for a in \"$@\"; do printf '%s\\0' \"$a\"; done; \
         printf 'ENV=%s\\0' \"$CONVO_NAME\"; printf '\\036\\0'; } >> \"$out\"\n",
    )
}

/// The records [`argv_writer`] wrote: each run's arguments.
fn records(file: &Path) -> Vec<Vec<String>> {
    let bytes = std::fs::read(file).unwrap_or_default();
    let mut parts: Vec<&[u8]> = bytes.split(|b| *b == 0).collect();
    parts.pop(); // what follows the last NUL: nothing
    let (mut out, mut run) = (Vec::new(), Vec::new());
    for part in parts {
        if part == b"\x1e" {
            out.push(std::mem::take(&mut run));
        } else {
            run.push(String::from_utf8_lossy(part).into_owned());
        }
    }
    out
}

fn toml_str(p: &Path) -> String {
    format!("{:?}", p.display().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_values_reach_the_program_as_one_argument_each_and_never_run() {
    // The test's working directory is where a shell would create `x`.
    let x = Path::new("x");
    assert!(
        !x.exists(),
        "a file x is already in {:?}",
        std::env::current_dir()
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("argv.bin");
    let prog = argv_writer(dir.path());
    let server = demo(DemoOptions {
        conversations: 10,
        visitors: 24,
        faults: Faults {
            hostile: true,
            ..Default::default()
        },
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 40), 50);
    with_commands(
        &mut h,
        &format!(
            "[[commands]]\nname = \"argv\"\nkey = \"X\"\nprogram = {}\n\
             args = [{}, \"{{name}}\", \"--email={{email}}\", \"{{attr.note}}\", \"{{external_id}}\"]\n",
            toml_str(&prog),
            toml_str(&out)
        ),
    );
    h.wait(vec![KeyCode::Char('2')], "the screen", |s| {
        s.contains("all 24 loaded")
    })
    .await;
    // Every visitor marked (m marks and moves on), then the command on all of them.
    let mut keys = vec![KeyCode::Char('m'); 24];
    keys.push(KeyCode::Char('X'));
    // However it ended (a shell line would fail some runs), nothing it was given ran.
    let screen = h.wait(keys, "the screen", |s| s.contains("argv: ")).await;
    let created: Vec<_> = ["x", "x@example.com"]
        .into_iter()
        .filter(|f| Path::new(f).exists())
        .collect();
    assert!(
        created.is_empty(),
        "a value from the service was run: {created:?} created"
    );
    common::assert_has_all(&screen, &["argv: 24 runs, each exit 0", "24 marked"]);
    let runs = records(&out);
    assert_eq!(runs.len(), 24, "one run per marked row: {runs:?}");
    let rows = h.app.visitors.rows().to_vec();
    let mut saw_shell = false;
    for v in &rows {
        let name = v.name.clone().unwrap_or_default();
        let want = vec![
            name.clone(),
            format!("--email={}", v.email.clone().unwrap_or_default()),
            v.attributes
                .get("note")
                .and_then(|n| n.as_str())
                .unwrap_or_default()
                .to_string(),
            v.external_id.clone().unwrap_or_default(),
            format!("ENV={name}"),
        ];
        assert!(
            runs.contains(&want),
            "visitor {:?}: no run had exactly these arguments {want:?}",
            v.id
        );
        saw_shell |= name.contains("$(touch x)") && name.contains('`') && name.contains('\n');
    }
    assert!(
        saw_shell,
        "the demo's hostile data holds a shell line in a name"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_count_in_the_footer_and_clear() {
    let server = demo(DemoOptions {
        conversations: 30,
        visitors: 5,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    h.wait(vec![], "the screen", |s| s.contains("all 30 loaded"))
        .await;
    let screen = h
        .wait(
            vec![KeyCode::Char(' '), KeyCode::Char('m'), KeyCode::Char('m')],
            "the screen",
            |s| s.contains("3 marked"),
        )
        .await;
    // The marked rows show `*` (no colour needed); the selected row keeps its `>`.
    let lines: Vec<&str> = screen.lines().collect();
    let starred = lines.iter().filter(|l| l.starts_with("\"*")).count();
    assert_eq!(starred, 3, "three rows marked with *:\n{screen}");
    // Unmark the row above by going back to it.
    let screen = h
        .wait(
            vec![KeyCode::Char('k'), KeyCode::Char('m')],
            "the screen",
            |s| s.contains("2 marked"),
        )
        .await;
    assert!(!screen.contains("3 marked"));
    let screen = h
        .wait(vec![KeyCode::Char('M')], "the screen", |s| {
            s.contains("2 marks cleared")
        })
        .await;
    assert!(!screen.contains("marked ("), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pane_command_shows_its_output_and_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let prog = script(
        dir.path(),
        "say.sh",
        "echo \"status is $CONVO_STATUS for $1\"\necho 'to stderr' >&2\nprintf '\\033[2Jcleared?\\n'\nexit 3\n",
    );
    let server = demo(DemoOptions {
        conversations: 10,
        visitors: 5,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    with_commands(
        &mut h,
        &format!(
            "[[commands]]\nname = \"Say\"\nkey = \"Z\"\ntabs = \"conversations\"\nprogram = {}\n\
             args = [\"{{id}}\"]\noutput = \"pane\"\n",
            toml_str(&prog)
        ),
    );
    h.wait(vec![], "the screen", |s| s.contains("all 10 loaded"))
        .await;
    let id = h.app.conversations.rows()[0].id.to_string();
    let status = h.app.conversations.rows()[0].status.as_str().to_string();
    let screen = h
        .wait(vec![KeyCode::Char('Z')], "the screen", |s| {
            s.contains("Say · exit 3")
        })
        .await;
    common::assert_has(&screen, &format!("status is {status} for {id}"));
    common::assert_has(&screen, "to stderr");
    // The escape the program wrote is not passed to the terminal.
    common::assert_has(&screen, "cleared?");
    assert!(!h.out.contains(&0x1b), "nothing raw written besides frames");
    // The message line says how it ended; Esc closes the pane.
    let screen = h
        .wait(vec![KeyCode::Esc], "the screen", |s| {
            !s.contains("Say · exit 3 ·")
        })
        .await;
    common::assert_has(&screen, "Say: exit 3");
    // On the Visitors tab the command does not run.
    let screen = h
        .wait(
            vec![KeyCode::Char('2'), KeyCode::Char('Z')],
            "the screen",
            |s| s.contains("Visitors"),
        )
        .await;
    assert!(!screen.contains("running Say"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_menu_lists_the_commands_and_runs_one_after_confirmation() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("argv.bin");
    let prog = argv_writer(dir.path());
    let server = demo(DemoOptions {
        conversations: 10,
        visitors: 5,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    with_commands(
        &mut h,
        &format!(
            "[[commands]]\nname = \"First\"\nprogram = \"true\"\n\n\
             [[commands]]\nname = \"Ids at once\"\nprogram = {}\nargs = [{}, \"{{id}}\"]\n\
             confirm = true\nfor_marked = \"all\"\n",
            toml_str(&prog),
            toml_str(&out)
        ),
    );
    h.wait(vec![], "the screen", |s| s.contains("all 10 loaded"))
        .await;
    let ids: Vec<String> = h.app.conversations.rows()[..2]
        .iter()
        .map(|c| c.id.to_string())
        .collect();
    let screen = h
        .wait(
            vec![KeyCode::Char('m'), KeyCode::Char('m'), KeyCode::Char('!')],
            "the screen",
            |s| s.contains(" Commands "),
        )
        .await;
    common::assert_has_all(
        &screen,
        &[
            "First",
            "Ids at once",
            "marked rows at once",
            "asks first",
            "2 marked rows",
        ],
    );
    // The second line, Enter: the question names the command and the rows.
    let screen = h
        .wait(vec![KeyCode::Down, KeyCode::Enter], "the screen", |s| {
            s.contains("run Ids at once on 2 marked rows (once, with all of them)?")
        })
        .await;
    assert!(!screen.contains(" Commands "));
    // n does not run it.
    h.wait(vec![KeyCode::Char('n')], "the screen", |s| {
        s.contains("Ids at once not run")
    })
    .await;
    assert!(!out.exists());
    // y does, once, with both ids in the order they were marked.
    h.wait(
        vec![
            KeyCode::Char('!'),
            KeyCode::Down,
            KeyCode::Enter,
            KeyCode::Char('y'),
        ],
        "the screen",
        |s| s.contains("Ids at once: exit 0"),
    )
    .await;
    let runs = records(&out);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0][..2], ids[..]);
    // `?` lists the user's commands.
    let screen = h
        .wait(vec![KeyCode::Char('?')], "the screen", |s| {
            s.contains("Your commands")
        })
        .await;
    common::assert_has_all(&screen, &["! menu", "Ids at once"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_none_command_that_fails_says_its_status_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let prog = script(
        dir.path(),
        "fail.sh",
        "echo 'no such customer' >&2\nexit 7\n",
    );
    let server = demo(DemoOptions {
        conversations: 10,
        visitors: 5,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    with_commands(
        &mut h,
        &format!(
            "[[commands]]\nname = \"CRM\"\nkey = \"C\"\nprogram = {}\n\n\
             [[commands]]\nname = \"Gone\"\nkey = \"D\"\nprogram = \"/nonexistent/prog\"\n",
            toml_str(&prog)
        ),
    );
    h.wait(vec![], "the screen", |s| s.contains("all 10 loaded"))
        .await;
    h.wait(vec![KeyCode::Char('C')], "the screen", |s| {
        s.contains("CRM: exit 7: no such customer")
    })
    .await;
    h.wait(vec![KeyCode::Char('D')], "the screen", |s| {
        s.contains("Gone: cannot run /nonexistent/prog: not found")
    })
    .await;
    // A command that takes its time: the footer says it runs, convo goes on meanwhile.
    let go = dir.path().join("go");
    let slow = script(
        dir.path(),
        "slow.sh",
        "while [ ! -e \"$1\" ]; do sleep 0.05; done\n",
    );
    with_commands(
        &mut h,
        &format!(
            "[[commands]]\nname = \"Slow\"\nkey = \"H\"\nprogram = {}\nargs = [{}]\n",
            toml_str(&slow),
            toml_str(&go)
        ),
    );
    h.wait(vec![KeyCode::Char('H')], "the screen", |s| {
        s.contains("· running Slow")
    })
    .await;
    h.wait(vec![KeyCode::Char('j')], "the screen", |s| {
        s.contains("row 2")
    })
    .await;
    std::fs::write(&go, "").unwrap();
    let screen = h
        .wait(vec![], "the screen", |s| s.contains("Slow: exit 0"))
        .await;
    assert!(!screen.contains("running Slow"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn y_menu_copies_any_field_and_i_opens_the_visitor() {
    let server = demo(DemoOptions {
        conversations: 20,
        visitors: 5,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 50);
    // Both tabs loaded: the visitor's row is there for `i`.
    h.wait(vec![KeyCode::Char('2')], "the screen", |s| {
        s.contains("all 5 loaded")
    })
    .await;
    h.wait(vec![KeyCode::Char('1')], "the screen", |s| {
        s.contains("all 20 loaded")
    })
    .await;
    // The first conversation whose visitor has an e-mail.
    let (i, c, v) = h
        .app
        .conversations
        .rows()
        .iter()
        .enumerate()
        .find_map(|(i, c)| {
            let v = h
                .app
                .visitors
                .rows()
                .iter()
                .find(|v| v.id == c.visitor_id)?;
            v.email.as_ref().map(|_| (i, c.clone(), v.clone()))
        })
        .expect("a conversation whose visitor is loaded and has an e-mail");
    let mut keys = vec![KeyCode::Char('j'); i];
    keys.push(KeyCode::Char('Y'));
    let screen = h.wait(keys, "the screen", |s| s.contains(" Copy ")).await;
    common::assert_has_all(&screen, &["id", "visitor id", "site", &c.id.to_string()]);
    {
        let email = v.email.as_ref().expect("chosen with one");
        common::assert_has(&screen, email);
        // The e-mail's line, by number: OSC 52 (no clipboard program in tests) carries it.
        let n = screen
            .lines()
            .find(|l| l.contains("e-mail"))
            .and_then(|l| l.split_whitespace().find_map(|w| w.parse::<usize>().ok()))
            .expect("numbered line");
        let digit = char::from_digit(n as u32, 10).unwrap();
        h.wait(vec![KeyCode::Char(digit)], "the screen", |s| {
            s.contains("OSC 52")
        })
        .await;
        let osc = String::from_utf8_lossy(&h.out).to_string();
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(email);
        assert!(osc.contains(&b64), "the e-mail went by OSC 52: {osc:?}");
    }
    // `i`: the Visitors tab on that visitor, the detail pane open; Back returns.
    let screen = h
        .wait(vec![KeyCode::Char('i')], "the screen", |s| {
            s.contains(&v.id.to_string())
        })
        .await;
    assert_eq!(h.app.active(), convo::api::Resource::Visitors);
    assert_eq!(h.app.visitors.selected_row().map(|r| r.id), Some(v.id));
    assert!(h.app.detail().is_open(), "{screen}");
    h.wait(vec![KeyCode::Esc, KeyCode::Backspace], "the screen", |_| {
        true
    })
    .await;
    assert_eq!(h.app.active(), convo::api::Resource::Conversations);
}

#[test]
fn config_errors_name_the_command_and_the_key() {
    let cases: &[(&str, &[&str])] = &[
        (
            "[[commands]]\nname = \"CRM\"\nprogram = \"xdg-open\"\noutput = \"screen\"\n",
            &[
                "line 5",
                "commands[\"CRM\"].output",
                "\"terminal\", \"pane\" or \"none\"",
            ],
        ),
        (
            "[[commands]]\nname = \"CRM\"\nprogram = \"xdg-open\"\nargs = [\"{mail}\"]\n",
            &[
                "line 5",
                "commands[\"CRM\"].args",
                "{mail} is not a placeholder",
                "{email}",
            ],
        ),
        (
            "[[commands]]\nname = \"CRM\"\nprogram = \"open {email}\"\n",
            &["commands[\"CRM\"].program", "placeholder"],
        ),
        (
            "[[commands]]\nname = \"CRM\"\nprogram = \"sh -c\"\n",
            &["commands[\"CRM\"].program", "never a shell line", "args"],
        ),
        (
            "[[commands]]\nname = \"CRM\"\nprogram = \"x\"\ntabs = \"tickets\"\n",
            &["line 5", "commands[\"CRM\"].tabs", "\"tickets\""],
        ),
        (
            "[[commands]]\nname = \"CRM\"\nprogram = \"x\"\nfor_marked = \"some\"\n",
            &["commands[\"CRM\"].for_marked", "\"each\"", "\"all\""],
        ),
        (
            "[[commands]]\nname = \"A\"\nprogram = \"x\"\n[[commands]]\nname = \"A\"\nprogram = \"y\"\n",
            &["commands[\"A\"].name", "two commands"],
        ),
        (
            "[[commands]]\nname = \"\"\nprogram = \"x\"\n",
            &["commands[0].name", "needs a name"],
        ),
        (
            "[[commands]]\nname = \"A\"\nprogram = \"x\"\nshell = true\n",
            &["line 5", "unknown field `shell`", "commands"],
        ),
    ];
    for (toml, want) in cases {
        let e = config(toml).expect_err(toml);
        for w in *want {
            assert!(e.contains(w), "case {toml:?}: {e:?} lacks {w:?}");
        }
    }
}

#[test]
fn a_command_key_that_is_taken_names_both() {
    let cfg = config(
        "[[commands]]\nname = \"Copy mail\"\nkey = \"y\"\nprogram = \"x\"\n\
         [[commands]]\nname = \"B\"\nkey = \"Ctrl-k\"\nprogram = \"x\"\n\
         [[commands]]\nname = \"C\"\nkey = \"ctrl+K\"\nprogram = \"x\"\n",
    )
    .unwrap();
    let problems = convo::tui::ui_problems(&cfg.ui);
    assert_eq!(problems.len(), 1, "{problems:?}");
    let (key, message) = &problems[0];
    assert_eq!(key, "commands[\"Copy mail\"].key");
    assert!(
        message.contains("copy") && message.contains("copy = []"),
        "{message}"
    );
    // With y unbound, the next problem: two commands on one key.
    let cfg = config(
        "[keys]\ncopy = []\n[[commands]]\nname = \"Copy mail\"\nkey = \"y\"\nprogram = \"x\"\n\
         [[commands]]\nname = \"B\"\nkey = \"Ctrl-k\"\nprogram = \"x\"\n\
         [[commands]]\nname = \"C\"\nkey = \"ctrl+K\"\nprogram = \"x\"\n",
    )
    .unwrap();
    let problems = convo::tui::ui_problems(&cfg.ui);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].0, "commands[\"C\"].key");
    assert!(problems[0].1.contains("\"B\""), "{problems:?}");
}

#[test]
fn doctor_says_which_program_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    script(dir.path(), "crm-open", "exit 0\n");
    let local = script(dir.path(), "local.sh", "exit 0\n");
    let cfg = config(&format!(
        "[[commands]]\nname = \"CRM\"\nprogram = \"crm-open\"\n\
         [[commands]]\nname = \"Local\"\nprogram = {}\n\
         [[commands]]\nname = \"Notes\"\nprogram = \"no-such-notes-tool\"\n\
         [[commands]]\nname = \"Abs\"\nprogram = \"/nonexistent/tool\"\n",
        toml_str(&local)
    ))
    .unwrap();
    let path = dir.path().as_os_str();
    let checks = convo::setup::command_checks(&cfg, Some(path));
    let text = format!("{checks:?}");
    assert_eq!(checks.len(), 2, "{text}");
    common::assert_has_all(
        &text,
        &[
            "\\\"Notes\\\"",
            "no-such-notes-tool",
            "not on PATH",
            "\\\"Abs\\\"",
            "not there",
        ],
    );
    assert!(!text.contains("CRM") && !text.contains("Local"), "{text}");
    // All found: one line that says so.
    let cfg = config("[[commands]]\nname = \"CRM\"\nprogram = \"crm-open\"\n").unwrap();
    let checks = convo::setup::command_checks(&cfg, Some(path));
    assert_eq!(
        checks,
        vec![convo::setup::Check::Ok(
            "[[commands]]: 1 command, each program found".into()
        )]
    );
}

#[test]
fn a_terminal_command_gets_the_keys_and_convo_comes_back() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("typed.txt");
    let prog = script(
        home.path(),
        "ask.sh",
        "printf 'type for %s: ' \"$CONVO_TAB\"\nread line\nprintf '%s' \"$line\" > \"$1\"\n",
    );
    let cfg_path = common::file(
        home.path(),
        "config.toml",
        format!(
            "[[commands]]\nname = \"Ask\"\nkey = \"T\"\nprogram = {}\nargs = [{}]\noutput = \"terminal\"\n",
            toml_str(&prog),
            toml_str(&out)
        ),
    );
    let mut cmd = common::pty::command(home.path());
    cmd.args(["--config", &cfg_path.display().to_string(), "--demo"]);
    let mut p = common::pty::Pty::run(cmd, 100, 30);
    p.wait_until(Duration::from_secs(20), |s| {
        s.contains("more available") || s.contains("all ")
    });
    p.send("T");
    p.wait_for_in("type for conversations:", Duration::from_secs(10));
    p.send("hello from the keys\r");
    // convo's screen again, with the exit status on its message line.
    p.wait_for_in("Ask: exit 0", Duration::from_secs(10));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap_or_default(),
        "hello from the keys",
        "the program read what was typed (convo's key reader let go of the terminal)"
    );
    // convo takes keys again.
    p.send("?");
    p.wait_for("Your commands");
    p.send("\u{1b}");
    // The help closed before `q`: an Esc and a `q` read together are Alt-q.
    p.wait_until(Duration::from_secs(10), |s| !s.contains("Your commands"));
    p.quit_with_0();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn i_finds_a_visitor_not_loaded_by_their_external_id() {
    let server = demo(DemoOptions {
        conversations: 40,
        visitors: 300,
        ..DemoOptions::default()
    })
    .await;
    let mut h = Harness::on(&server, (120, 30), 10);
    h.wait(vec![], "the screen", |s| {
        s.contains(" loaded · more available")
    })
    .await;
    // A conversation whose visitor is not among the Visitors tab's loaded rows.
    let loaded: Vec<_> = h.app.visitors.rows().iter().map(|v| v.id).collect();
    let (i, c) = h
        .app
        .conversations
        .rows()
        .iter()
        .enumerate()
        .find(|(_, c)| !loaded.contains(&c.visitor_id))
        .map(|(i, c)| (i, c.clone()))
        .expect("a conversation of a visitor not loaded");
    let v = server
        .data()
        .visitors
        .iter()
        .find(|v| v.id == c.visitor_id)
        .expect("the server's visitor");
    let mut keys = vec![KeyCode::Char('j'); i];
    // Without a name, e-mail or external id known, `i` says why it cannot.
    keys.push(KeyCode::Char('i'));
    h.wait(keys, "the screen", |s| {
        s.contains("convo knows no external id")
    })
    .await;
    // The names the store and the sync send (Msg::VisitorNames) give it the external id.
    let label = convo::tui::names::VisitorLabel::from_fields(
        v.name.as_deref(),
        v.email.as_deref(),
        v.external_id.as_deref(),
    );
    h.rt.sender()
        .send(convo::tui::msg::Msg::VisitorNames(vec![(v.id, label)]))
        .unwrap();
    h.wait(vec![KeyCode::Char('i')], "the screen", |s| {
        s.contains("all 1 loaded")
    })
    .await;
    assert_eq!(h.app.active(), convo::api::Resource::Visitors);
    assert_eq!(h.app.visitors.selected_row().map(|r| r.id), Some(v.id));
    assert!(h.app.detail().is_open());
    assert_eq!(h.app.visitors.filter().external_id, v.external_id);
}

#[test]
fn a_profile_adds_its_own_commands_after_the_shared_ones() {
    let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
    let text = "base_url = \"http://127.0.0.1:1\"\n\
                [[commands]]\nname = \"Shared\"\nprogram = \"true\"\n\
                [profiles.staging]\nbase_url = \"http://127.0.0.1:2\"\n\
                [[profiles.staging.commands]]\nname = \"Staging only\"\nprogram = \"true\"\n";
    let names = |profile: Option<&str>| {
        let ov = Overrides {
            profile: profile.map(String::from),
            ..Default::default()
        };
        Config::from_toml_str(text, Path::new("/t/c.toml"), &ov, &env)
            .unwrap()
            .ui
            .commands
            .into_iter()
            .map(|c| c.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names(None), ["Shared"]);
    assert_eq!(names(Some("staging")), ["Shared", "Staging only"]);
}
