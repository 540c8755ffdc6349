//! `convo doctor`, `convo config init`, completions and the man page, via the real binary.

use crate::common;

use common::{Demo, convo_cmd, demo_and_home};
use convo::demo::Faults;

/// `convo ARGS` in the clean home `home` with `env` set.
fn convo(home: &std::path::Path, env: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    let mut c = convo_cmd(home);
    c.envs(env.iter().copied());
    c.args(args).output().expect("runs")
}

/// [`convo`], which must exit with `code`: what it printed on stdout and on stderr.
fn exits(
    code: i32,
    home: &std::path::Path,
    env: &[(&str, &str)],
    args: &[&str],
) -> (String, String) {
    let o = convo(home, env, args);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(code), "{args:?}: {out}{err}");
    (out, err)
}

/// Writes `text` to `dir/name` readable by its owner only (a config that may hold a key).
fn private_file(dir: &std::path::Path, name: &str, text: String) -> std::path::PathBuf {
    let path = common::file(dir, name, text);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn doctor_passes_against_a_working_service() {
    let (d, tmp) = demo_and_home(20, 10);
    let o = convo(
        tmp.path(),
        &[("CONVO_API_KEY", &d.key())],
        &["--base-url", &d.url(), "doctor"],
    );
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}");
    common::assert_has(&out, "ok    GET /v1/conversations answered in");
    common::assert_has(&out, "ok    GET /v1/visitors answered in");
    common::assert_has(&out, "clock within");
    assert!(
        out.contains("sk_…") && !out.contains(&d.key()),
        "key masked: {out}"
    );
    assert!(out.contains("all checks passed"));
}

#[test]
fn doctor_fails_with_a_fix_when_the_key_is_refused() {
    let (d, tmp) = demo_and_home(20, 10);
    let (out, _) = exits(
        1,
        tmp.path(),
        &[("CONVO_API_KEY", "sk_demo_wrongkey00000000")],
        &["--base-url", &d.url(), "doctor"],
    );
    common::assert_has(&out, "FAIL  GET /v1/conversations");
    common::assert_has(&out, "fix: check the key");
    assert!(!out.contains("wrongkey0000"), "{out}");
}

#[test]
fn doctor_reports_a_broken_config() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = common::file(tmp.path(), "c.toml", "base_url = 3\n");
    let o = convo(
        tmp.path(),
        &[],
        &["--config", cfg.to_str().unwrap(), "doctor"],
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1));
    common::assert_has_all(&out, &["FAIL  config", "line 1"]);
}

/// `convo doctor` against the demo server with this config text (after `base_url`); asserts
/// that it exits with `code`, and gives what it printed.
fn doctor_with(d: &Demo, tmp: &std::path::Path, extra: &str, code: i32) -> String {
    let cfg = private_file(tmp, "c.toml", format!("base_url = {:?}\n{extra}", d.url()));
    let key = d.key();
    let doctor = ["--config", cfg.to_str().unwrap(), "doctor"];
    exits(code, tmp, &[("CONVO_API_KEY", &key)], &doctor).0
}

#[test]
fn doctor_reports_what_the_tui_would_refuse_in_keys_with_the_fix() {
    let (d, tmp) = demo_and_home(20, 10);
    // accepted remaps: an ok line, the rest of the checks still run
    let out = doctor_with(&d, tmp.path(), "[keys]\nreload = [\"F5\"]\ncopy = []\n", 0);
    common::assert_has(
        &out,
        "ok    [keys] (2 actions rebound), [theme], [columns] and web_url",
    );
    // a key on two actions: named, with the fix, and the exit code says it failed
    let out = doctor_with(&d, tmp.path(), "[keys]\nquit = \"r\"\n", 1);
    common::assert_has_all(&out, &["FAIL", "\"r\" is bound to both reload and quit"]);
    common::assert_has(&out, "the TUI would refuse to start");
    common::assert_has(&out, "fix: give one of the two actions another key");
    common::assert_has(&out, "ok    GET /v1/conversations");
    // an unknown action and a bad key: each reported on its own
    let out = doctor_with(
        &d,
        tmp.path(),
        "[keys]\nreloda = \"F5\"\ncopy = \"Hyper-c\"\n",
        1,
    );
    // each with its line (base_url is line 1, [keys] line 2)
    common::assert_has(&out, "c.toml, line 3: keys.reloda");
    common::assert_has(&out, "c.toml, line 4: keys.copy");
    assert!(
        out.contains("keys.reloda: no action named \"reloda\"")
            && out.contains("fix: rename keys.reloda to one of the actions listed"),
        "{out}"
    );
    common::assert_has_all(
        &out,
        &[
            "keys.copy: \"Hyper-c\" is not a key",
            "fix: write keys.copy",
        ],
    );
    assert_eq!(out.matches("FAIL").count(), 2, "{out}");
}

#[test]
fn doctor_reports_a_bad_theme_or_columns_by_key() {
    let (d, tmp) = demo_and_home(20, 10);
    // Each config (after base_url) and the key doctor names.
    let bad = [
        ("[theme]\npreset = \"neon\"\n", "theme.preset"),
        ("[theme]\naccent = \"blurple\"\n", "theme.accent"),
        (
            "[columns]\nconversations = [\"status\", \"colour\"]\n",
            "columns.conversations",
        ),
    ];
    for (extra, key) in bad {
        let out = doctor_with(&d, tmp.path(), extra, 1);
        common::assert_has_all(&out, &["FAIL  config", key]);
        common::assert_has(&out, "fix: ");
    }
}

/// `[columns]` names are the TUI's column table's; every command refuses an unknown one as
/// the config's own checks refuse a value: file, line, key, and the names the tab has.
#[test]
fn every_command_refuses_an_unknown_column_with_the_file_line_and_key() {
    let (d, tmp) = demo_and_home(20, 10);
    let config = format!(
        "base_url = {:?}\n[columns]\nvisitors = [\"name\", \"site\"]\n",
        d.url()
    );
    let cfg = private_file(tmp.path(), "c.toml", config);
    for args in [
        &["list", "conversations"][..],
        &["summary", "conversations"][..],
    ] {
        let o = convo_cmd(tmp.path())
            .env("CONVO_API_KEY", d.key())
            .args(["--config", cfg.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "config error in {}, line 3: columns.visitors: unknown column \"site\"; \
                 known: name, email, external_id, created, attributes, id",
                cfg.display()
            )),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn config_init_checks_writes_0600_and_never_overwrites_silently() {
    let (d, tmp) = demo_and_home(20, 10);
    let cfg = tmp.path().join("sub").join("config.toml");
    let init = |force: bool, key: &str| {
        let mut c = convo_cmd(tmp.path());
        c.env("CONVO_API_KEY", key)
            .args(["--config", cfg.to_str().unwrap(), "--base-url", &d.url()])
            .args(["config", "init"]);
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    let o = init(false, "sk_demo_wrongkey00000000");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("nothing was written"),
        "{}",
        text(&o.stderr)
    );
    assert!(!cfg.exists());

    let o = init(false, &d.key());
    assert!(o.status.success(), "{}", text(&o.stderr));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&cfg).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let written = std::fs::read_to_string(&cfg).unwrap();
    assert!(written.contains(&d.url()));

    std::fs::write(&cfg, "# mine\n").unwrap();
    let o = init(false, &d.key());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read_to_string(&cfg).unwrap(), "# mine\n");
    let o = init(true, &d.key());
    assert!(o.status.success());
    assert!(std::fs::read_to_string(&cfg).unwrap().contains("base_url"));

    // The written file works as a config.
    let o = convo(
        tmp.path(),
        &[],
        &[
            "--config",
            cfg.to_str().unwrap(),
            "list",
            "visitors",
            "--limit",
            "3",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn completions_and_man_page_come_from_the_cli_definitions() {
    let tmp = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let o = convo(tmp.path(), &[], &["completions", shell]);
        assert!(o.status.success());
        let s = text(&o.stdout);
        assert!(
            s.contains("demo-server") && s.contains("visitors"),
            "{shell}"
        );
    }
    let o = convo_cmd(tmp.path()).arg("man").output().unwrap();
    let s = text(&o.stdout);
    assert!(s.contains(".TH convo 1") && s.contains("list"), "{s}");
}

#[test]
fn doctor_checks_the_response_time_targets() {
    let (d, tmp) = demo_and_home(20, 10);
    let out = doctor_with(&d, tmp.path(), "", 0);
    common::assert_has(&out, "ok    [sla]: no response-time targets");
    let out = doctor_with(
        &d,
        tmp.path(),
        "[sla]\nfirst_response = \"5m\"\nbusiness_hours = \"Mon-Fri 09:00-18:00\"\ntimezone = \"Europe/Lisbon\"\n",
        0,
    );
    common::assert_has(
        &out,
        "ok    [sla]: first response 5m, resolution not tracked, imminent at 80 %, business hours Mon-Fri 09:00-18:00 (Europe/Lisbon)",
    );
    let out = doctor_with(&d, tmp.path(), "[sla]\nfirst_response = \"5 parsecs\"\n", 1);
    common::assert_has_all(&out, &["FAIL  config", "line 3: sla.first_response"]);
}

#[test]
fn with_no_config_the_error_suggests_config_init_and_the_example() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nowhere").join("config.toml");
    let o = convo_cmd(tmp.path())
        .env_remove("CONVO_BASE_URL")
        .env_remove("CONVO_API_KEY")
        .args([
            "--config",
            missing.to_str().unwrap(),
            "list",
            "conversations",
        ])
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    common::assert_has(&err, "run `convo config init`");
    common::assert_has(&err, "config.example.toml");
    common::assert_has(&err, "convo --demo");
}

/// `convo config init` with standard input (not a terminal) answering its prompts, one
/// line each; asserts that it exits with `code`, and gives what it said (stderr).
fn init_with_stdin(
    tmp: &std::path::Path,
    cfg: &std::path::Path,
    lines: &[&str],
    code: i32,
) -> String {
    let o = convo_cmd(tmp)
        .args(["--config", cfg.to_str().unwrap(), "config", "init"])
        .write_stdin(lines.iter().map(|l| format!("{l}\n")).collect::<String>())
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "{lines:?}: {err}");
    err
}

#[test]
fn config_init_names_the_key_it_was_given_and_asks_again_keeping_the_url() {
    let (d, tmp) = demo_and_home(20, 10);
    let cfg = tmp.path().join("config.toml");
    let wrong = "sk_demo_wrongkey00000000";
    // two refused keys, then the right one: the URL was typed once
    let (url, key) = (d.url(), d.key());
    let err = init_with_stdin(
        tmp.path(),
        &cfg,
        &[&url, wrong, "not-a-secret-key", &key],
        0,
    );
    assert_eq!(err.matches("Base URL of the service").count(), 1, "{err}");
    assert_eq!(err.matches("API key (sk_…)").count(), 3, "{err}");
    common::assert_has(&err, "did not accept the key from standard input");
    common::assert_has(
        &err,
        "the API key from standard input does not start with \"sk_\"",
    );
    assert!(!err.contains("CONVO_API_KEY environment variable"), "{err}");
    // there is no config to set key_prefix in yet
    assert!(!err.contains("key_prefix"), "{err}");
    assert!(
        err.contains("Try again (2 of 3") && err.contains("Try again (3 of 3"),
        "{err}"
    );
    assert!(!err.contains("wrongkey0000"), "{err}");
    assert!(std::fs::read_to_string(&cfg).unwrap().contains(&d.url()));

    // three refused keys: nothing written, and the last error names the source
    std::fs::remove_file(&cfg).unwrap();
    let err = init_with_stdin(tmp.path(), &cfg, &[&url, wrong, wrong, wrong, &key], 2);
    assert_eq!(err.matches("API key (sk_…)").count(), 3, "{err}");
    assert!(
        err.contains("nothing was written") && err.contains("from standard input"),
        "{err}"
    );
    assert!(!cfg.exists());

    // input that ends: said, not asked forever
    let err = init_with_stdin(tmp.path(), &cfg, &[&url, wrong], 2);
    common::assert_has(&err, "standard input ended");
}

#[test]
fn config_init_at_a_terminal_asks_for_the_key_again_after_a_refusal() {
    let (d, tmp) = demo_and_home(20, 10);
    let cfg = tmp.path().join("config.toml");
    let home = tmp.path().to_str().unwrap().to_string();
    let log = tmp.path().join("convo.log");
    let mut p = common::pty::Pty::spawn(
        &["--config", cfg.to_str().unwrap(), "config", "init"],
        &[("HOME", &home), ("CONVO_LOG_FILE", log.to_str().unwrap())],
        100,
        30,
    );
    let wait = std::time::Duration::from_secs(20);
    p.wait_until(wait, |s| s.contains("Base URL of the service"));
    p.send(format!("{}\r", d.url()).as_bytes());
    p.wait_until(wait, |s| s.contains("not shown"));
    p.send(b"sk_demo_wrongkey00000000\r");
    let s = p.wait_until(wait, |s| s.contains("Try again (2 of 3"));
    common::assert_has(&s, "did not accept the key from the prompt");
    assert!(
        !s.contains("CONVO_API_KEY") && !s.contains("wrongkey"),
        "{s}"
    );
    p.wait_until(wait, |s| s.matches("not shown").count() == 2);
    p.send(format!("{}\r", d.key()).as_bytes());
    assert_eq!(p.wait_exit(wait), Some(0), "{}", p.screen());
    assert!(std::fs::read_to_string(&cfg).unwrap().contains(&d.url()));
}

#[test]
fn an_unknown_view_or_a_bad_keys_table_exits_2_as_a_config_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, err) = exits(2, tmp.path(), &[], &["--demo", "--view", "nope"]);
    common::assert_has(&err, "no saved view named \"nope\"");
    let cfg = common::file(tmp.path(), "c.toml", "[keys]\nquit = \"r\"\n");
    let (_, err) = exits(
        2,
        tmp.path(),
        &[],
        &["--config", cfg.to_str().unwrap(), "--demo"],
    );
    common::assert_has(&err, "bound to both");
    // the demo read [keys] from the file: it names the file and the line
    common::assert_has(&err, "c.toml, line 1: keys");
    // Not the demo (which reads only parts of the file): the file and the line of [keys].
    std::fs::write(
        &cfg,
        "base_url = \"http://127.0.0.1:9\"\n[keys]\nquit = \"r\"\n",
    )
    .unwrap();
    let (_, err) = exits(
        2,
        tmp.path(),
        &[("CONVO_API_KEY", "sk_test_0123456789")],
        &["--config", cfg.to_str().unwrap()],
    );
    assert!(
        err.contains("c.toml, line 2: keys"),
        "the line of [keys]: {err}"
    );
}

#[test]
fn doctor_gives_the_line_of_a_config_error_and_the_fix_that_fits_its_cause() {
    let (d, tmp) = demo_and_home(20, 10);
    // a value refused after parsing: its line, as for parse errors
    let out = doctor_with(
        &d,
        tmp.path(),
        "page_size = 10\n\n[theme]\npreset = \"neon\"\n",
        1,
    );
    common::assert_has(&out, "line 5: theme.preset");
    // no file: the fix is `convo config init`, not "fix the file"
    let (out, _) = exits(
        1,
        tmp.path(),
        &[],
        &[
            "--config",
            tmp.path().join("none.toml").to_str().unwrap(),
            "doctor",
        ],
    );
    common::assert_has(&out, "fix: run `convo config init`");
    assert_eq!(
        out.matches("convo config init").count(),
        1,
        "said once: {out}"
    );
    assert!(!out.contains("fix the file"), "{out}");
    // a bad CONVO_API_KEY beside a good file: the variable is named, not the file
    let cfg = common::file(tmp.path(), "c.toml", format!("base_url = {:?}\n", d.url()));
    let (out, _) = exits(
        1,
        tmp.path(),
        &[("CONVO_API_KEY", "pk_live_0123456789")],
        &["--config", cfg.to_str().unwrap(), "doctor"],
    );
    common::assert_has(
        &out,
        "FAIL  the API key from the CONVO_API_KEY environment variable",
    );
    assert!(!out.contains("config error in"), "{out}");
    common::assert_has(&out, "fix: fix CONVO_API_KEY, or unset it");
    // and the same for `convo list` (exit 2, a usage error)
    let (_, err) = exits(
        2,
        tmp.path(),
        &[("CONVO_API_KEY", "pk_live_0123456789")],
        &["--config", cfg.to_str().unwrap(), "list", "visitors"],
    );
    assert!(
        err.starts_with("convo: error: the API key from the CONVO_API_KEY environment variable"),
        "{err}"
    );
}

#[test]
fn version_and_doctor_name_the_commit_and_the_build_date() {
    let tmp = tempfile::tempdir().unwrap();
    let o = convo_cmd(tmp.path()).arg("--version").output().unwrap();
    assert!(o.status.success());
    let line = text(&o.stdout);
    let line = line.trim();
    // `convo 0.1.0 (5bb154b 2026-11-25)`: tests run from a git checkout, so a commit is known.
    let (name, build) = line.split_once(" (").expect("a build in parentheses");
    assert_eq!(name, concat!("convo ", env!("CARGO_PKG_VERSION")), "{line}");
    let build = build.strip_suffix(')').expect("closed");
    let (commit, date) = build.split_once(' ').expect("commit and date");
    assert!(
        commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{line}"
    );
    let head = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(text(&head.stdout).starts_with(commit), "{line} is not HEAD");
    date.parse::<jiff::civil::Date>()
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    let o = convo_cmd(tmp.path()).arg("doctor").output().unwrap();
    assert!(
        text(&o.stdout).starts_with(&format!("ok    {line}\n")),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn doctor_says_which_way_convo_asks_for_pages_and_why() {
    let tmp = tempfile::tempdir().unwrap();
    // A service whose compression takes 20 ms a page, on loopback: plain is faster.
    let slow = Faults {
        slow_compression: Some(std::time::Duration::from_millis(20)),
        ..Faults::default()
    };
    let d = Demo::start(300, 50, slow);
    let out = doctor_with(&d, tmp.path(), "", 0);
    let line = out
        .lines()
        .find(|l| l.contains("convo asks this service"))
        .unwrap_or_else(|| panic!("no choice line: {out}"));
    assert!(
        line.starts_with("ok    convo asks this service for plain answers: a page of 100"),
        "{line}"
    );
    common::assert_has_all(
        line,
        &[" ms plain against ", " ms compressed", "every 60 s"],
    );
}

#[test]
fn doctor_says_whether_the_service_compresses_and_how_much_a_page_shrinks() {
    let tmp = tempfile::tempdir().unwrap();
    let d = Demo::start(300, 50, Faults::default());
    let out = doctor_with(&d, tmp.path(), "", 0);
    let line = out
        .lines()
        .find(|l| l.contains("compress"))
        .unwrap_or_else(|| panic!("no compression line: {out}"));
    assert!(
        line.starts_with("ok    the service compresses (zstd)"),
        "{line}"
    );
    common::assert_has(line, "% smaller");
    // The same service, plain: said, and not a failure.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let plain = rt
        .block_on(convo::demo::DemoServer::start(convo::demo::DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            conversations: 300,
            visitors: 50,
            compress: false,
            ..Default::default()
        }))
        .unwrap();
    let d = common::Demo {
        server: Some(plain),
        rt,
    };
    let out = doctor_with(&d, tmp.path(), "", 0);
    common::assert_has(&out, "the service does not compress its answers");
}

/// `convo doctor` says the request budget the service's headers tell (and that it is not known
/// when they tell nothing).
#[test]
fn doctor_shows_the_request_budget_it_sees() {
    use convo::demo::{DemoOptions, LimitHeaders, RequestBudget};
    let tmp = tempfile::tempdir().unwrap();
    for (headers, want) in [
        (
            LimitHeaders::Ietf,
            "ok    request budget: 120 requests per 60 s (RateLimit headers); 118 left, resets in 60 s; background work",
        ),
        (
            // The window is the longest reset heard: 59 or 60 s, as the second turns.
            LimitHeaders::X,
            "s (X-RateLimit headers); 118 left, resets in",
        ),
        (
            LimitHeaders::None,
            "ok    request budget: not known yet: the service sent no RateLimit or X-RateLimit headers and no 429; convo learns it from the first 429",
        ),
    ] {
        let d = Demo::with(DemoOptions {
            conversations: 20,
            visitors: 10,
            budget: Some(RequestBudget {
                limit: 120,
                window: std::time::Duration::from_secs(60),
                headers,
            }),
            ..DemoOptions::default()
        });
        let (out, _) = exits(
            0,
            tmp.path(),
            &[("CONVO_API_KEY", &d.key())],
            &["--base-url", &d.url(), "doctor"],
        );
        common::assert_has(&out, want);
        common::assert_has(&out, "ok    request budget: ");
    }
}

#[test]
fn doctor_checks_each_command_program_and_command_keys() {
    let (d, tmp) = demo_and_home(20, 10);
    let extra = "[[commands]]\nname = \"CRM\"\nkey = \"O\"\nprogram = \"/bin/sh\"\n\
                 [[commands]]\nname = \"Notes\"\nprogram = \"no-such-notes-tool-41\"\n";
    let out = doctor_with(&d, tmp.path(), extra, 1);
    common::assert_has_all(
        &out,
        &[
            "FAIL  [[commands]] \"Notes\": its program \"no-such-notes-tool-41\" is not on PATH",
            "fix: install it, or give its full path in program",
        ],
    );
    assert!(!out.contains("\"CRM\""), "{out}");
    // A command on a key an action has: what the TUI would refuse, with the command's name.
    let extra = "[[commands]]\nname = \"CRM\"\nkey = \"o\"\nprogram = \"/bin/sh\"\n";
    let out = doctor_with(&d, tmp.path(), extra, 1);
    common::assert_has_all(
        &out,
        &[
            "commands[\"CRM\"].key: \"o\" is the key of open",
            "the TUI would refuse to start",
            "fix: give the command another key",
        ],
    );
    let out = doctor_with(
        &d,
        tmp.path(),
        "[[commands]]\nname = \"CRM\"\nprogram = \"/bin/sh\"\n",
        0,
    );
    common::assert_has(&out, "ok    [[commands]]: 1 command, each program found");
}

#[test]
fn commands_in_a_config_others_can_write_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("c.toml");
    std::fs::write(
        &cfg,
        "base_url = \"https://x.example\"\n[[commands]]\nname = \"A\"\nprogram = \"/bin/true\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o666)).unwrap();
    }
    let ov = convo::config::Overrides {
        config_path: Some(cfg.clone()),
        ..Default::default()
    };
    let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
    let e = convo::config::Config::load_with(&ov, &env)
        .expect_err("refused")
        .to_string();
    common::assert_has_all(&e, &["[[commands]]", "refused", "chmod go-w"]);
}
