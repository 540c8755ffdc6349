//! The config loader through its public API, with real files in temp dirs and the environment
//! given as a closure (`Config::load_with`), so no test touches the process environment.
//!
//! The binary's view of the same rows (exit codes, no request sent) is in
//! tests/reliability_config.rs and tests/security.rs; the parser is fuzzed in
//! tests/fuzz_config.rs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use convo::api::{ApiKey, Assignee, KeySource, Resource, Status};
use convo::config::{Config, ConfigError, Overrides};
use uuid::Uuid;

const SECRET: &str = "sk_live_TOPSECRETvalue9876";
const SECRET_PART: &str = "TOPSECRETvalue";
const ENV_KEY: &str = "sk_env_ENVSECRETvalue1234";
const ENV_KEY_PART: &str = "ENVSECRETvalue";

/// An environment made of the given pairs only.
fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k: &str| map.get(k).cloned()
}

/// Writes `text` to `dir/name` with mode 0600 (so no permission warning unless a test wants one).
fn write(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write config");
    set_mode(&p, 0o600);
    p
}

#[cfg(unix)]
fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) {}

/// A config with the base URL `https://HOST` and [`SECRET`] as its key.
fn keyed(host: &str) -> String {
    format!("base_url = \"https://{host}\"\napi_key = \"{SECRET}\"\n")
}

fn with_path(p: &Path) -> Overrides {
    Overrides {
        config_path: Some(p.to_path_buf()),
        ..Overrides::default()
    }
}

/// Loads `text` from a real file with the given environment.
fn load_text(text: &str, env: &[(&str, &str)]) -> (tempfile::TempDir, Result<Config, ConfigError>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let p = write(tmp.path(), "config.toml", text);
    let r = Config::load_with(&with_path(&p), &env_of(env));
    (tmp, r)
}

/// The error message, checked for the promises every error keeps: it names the file and never
/// shows a key.
/// [`load_text`] of `base_url = "https://x.example"` then `rest`, with a key in the
/// environment.
fn load_at_x(rest: &str) -> (tempfile::TempDir, Result<Config, ConfigError>) {
    let text = format!("base_url = \"https://x.example\"\n{rest}");
    load_text(&text, &[("CONVO_API_KEY", ENV_KEY)])
}

/// The error of loading `text` with CONVO_BASE_URL = `url` (and a key) in the environment,
/// which must not blame the file.
fn env_url_refused(text: &str, url: &str) -> String {
    let (_tmp, r) = load_text(text, &[("CONVO_API_KEY", ENV_KEY), ("CONVO_BASE_URL", url)]);
    let e = r.unwrap_err().to_string();
    assert!(!e.contains("config.toml"), "the file is not at fault: {e}");
    e
}

/// The error of [`load_at_x`], which must name config.toml.
fn refused_at_x(rest: &str) -> String {
    let (_tmp, r) = load_at_x(rest);
    err(r, "config.toml")
}

fn err(r: Result<Config, ConfigError>, file: &str) -> String {
    let e = match r {
        Ok(c) => panic!("expected an error, got {c:?}"),
        Err(e) => e,
    };
    let msg = e.to_string();
    let dbg = format!("{e:?}");
    assert!(msg.contains(file), "the error names the file {file}: {msg}");
    for shown in [&msg, &dbg] {
        assert!(
            !shown.contains(SECRET_PART) && !shown.contains(ENV_KEY_PART),
            "the key shows: {shown}"
        );
    }
    msg
}

fn ok(r: Result<Config, ConfigError>) -> Config {
    let c = r.unwrap_or_else(|e| panic!("expected a config, got: {e}"));
    let dbg = format!("{c:?} {c:#?}");
    assert!(
        !dbg.contains(SECRET_PART) && !dbg.contains(ENV_KEY_PART),
        "Debug shows the key: {dbg}"
    );
    for w in &c.warnings {
        assert!(!w.contains(SECRET_PART) && !w.contains(ENV_KEY_PART), "{w}");
    }
    c
}

fn uuid(s: &str) -> Uuid {
    Uuid::parse_str(s).expect("uuid literal")
}

// ---- defaults and precedence ----

#[test]
fn a_minimal_file_gets_every_default() {
    let (tmp, r) = load_text(&keyed("chat.example.com"), &[]);
    let c = ok(r);
    assert_eq!(
        c.path.as_deref(),
        Some(tmp.path().join("config.toml").as_path())
    );
    assert_eq!(c.base_url, "https://chat.example.com");
    assert_eq!(c.key.expose(), SECRET);
    assert!(matches!(c.key.source, KeySource::File(_)));
    assert_eq!(c.auth_header, "Authorization");
    assert_eq!(c.auth_scheme, "Bearer");
    assert_eq!(c.page_size.get(), 50);
    assert_eq!(c.request_timeout, Duration::from_secs(15));
    assert_eq!(c.connect_timeout, Duration::from_secs(5));
    assert!(!c.allow_insecure_http);
    assert_eq!(c.refresh_secs, None);
    assert!(c.views.is_empty() && c.aliases.is_empty() && c.warnings.is_empty());
}

#[test]
fn every_top_level_key_is_read() {
    let (_tmp, r) = load_text(
        "base_url = \"http://10.0.0.5:8080\"\napi_key = \"rk_live_0123456789\"\nkey_prefix = \"rk_\"\n\
         auth_header = \"X-Api-Key\"\nauth_scheme = \"\"\npage_size = 100\nrequest_timeout_secs = 30\n\
         connect_timeout_secs = 2\nallow_insecure_http = true\nrefresh_secs = 20\n",
        &[],
    );
    let c = ok(r);
    assert_eq!(c.key.expose(), "rk_live_0123456789");
    assert_eq!(c.auth_header, "X-Api-Key");
    assert_eq!(c.auth_scheme, "");
    assert_eq!(c.page_size.get(), 100);
    assert_eq!(c.request_timeout, Duration::from_secs(30));
    assert_eq!(c.connect_timeout, Duration::from_secs(2));
    assert!(c.allow_insecure_http);
    assert_eq!(c.refresh_secs, Some(20));
}

#[test]
fn refresh_zero_means_never() {
    let (_tmp, r) = load_text(
        &format!("base_url = \"https://x.example\"\napi_key = \"{SECRET}\"\nrefresh_secs = 0\n"),
        &[],
    );
    assert_eq!(ok(r).refresh_secs, None);
}

#[test]
fn base_url_flag_beats_env_beats_file() {
    let tmp = tempfile::tempdir().unwrap();
    let p = write(tmp.path(), "c.toml", keyed("file.example"));
    let env = env_of(&[("CONVO_BASE_URL", "https://env.example")]);
    let c = ok(Config::load_with(&with_path(&p), &env_of(&[])));
    assert_eq!(c.base_url, "https://file.example");
    let c = ok(Config::load_with(&with_path(&p), &env));
    assert_eq!(c.base_url, "https://env.example");
    let ov = Overrides {
        base_url: Some("https://flag.example".into()),
        ..with_path(&p)
    };
    let c = ok(Config::load_with(&ov, &env));
    assert_eq!(c.base_url, "https://flag.example");
}

#[test]
fn key_env_beats_command_beats_file() {
    let tmp = tempfile::tempdir().unwrap();
    let cmd_key = "sk_cmd_0123456789abcd";
    let both = write(
        tmp.path(),
        "both.toml",
        format!(
            "base_url = \"https://x.example\"\napi_key = \"{SECRET}\"\napi_key_command = \"printf '  {cmd_key}\\\\n'\"\n"
        ),
    );
    let env = env_of(&[("CONVO_API_KEY", ENV_KEY)]);
    let c = ok(Config::load_with(&with_path(&both), &env));
    assert_eq!(c.key.expose(), ENV_KEY);
    assert_eq!(c.key.source, KeySource::Env);
    let c = ok(Config::load_with(&with_path(&both), &env_of(&[])));
    assert_eq!(c.key.expose(), cmd_key, "the command's output, trimmed");
    assert!(matches!(c.key.source, KeySource::Command(_)));
    let file_only = write(tmp.path(), "file.toml", keyed("x.example"));
    let c = ok(Config::load_with(&with_path(&file_only), &env_of(&[])));
    assert_eq!(c.key.expose(), SECRET);
    assert!(matches!(c.key.source, KeySource::File(ref f) if f.contains("file.toml")));
}

#[test]
fn the_config_path_comes_from_the_flag_then_convo_config() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.toml", keyed("a.example"));
    let b = write(tmp.path(), "b.toml", keyed("b.example"));
    let b_str = b.to_str().unwrap();
    let env = env_of(&[("CONVO_CONFIG", b_str)]);
    let c = ok(Config::load_with(&Overrides::default(), &env));
    assert_eq!(
        (c.base_url.as_str(), c.path.as_deref()),
        ("https://b.example", Some(b.as_path()))
    );
    let c = ok(Config::load_with(&with_path(&a), &env));
    assert_eq!(c.base_url, "https://a.example");
}

// ---- the key command ----

#[cfg(unix)]
#[test]
fn a_key_command_that_fails_names_its_status_and_first_stderr_line_only() {
    let (_tmp, r) = load_text(
        &format!(
            "base_url = \"https://x.example\"\napi_key_command = \"echo {SECRET}; echo vault is sealed >&2; echo second line >&2; exit 3\"\n"
        ),
        &[],
    );
    let e = err(r, "config.toml");
    assert!(
        e.contains("api_key_command") && e.contains('3') && e.contains("vault is sealed"),
        "{e}"
    );
    assert!(!e.contains("second line"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_key_command_that_prints_nothing_is_an_error() {
    for cmd in ["true", "printf '  \\\\n\\\\n'"] {
        let (_tmp, r) = load_text(
            &format!("base_url = \"https://x.example\"\napi_key_command = \"{cmd}\"\n"),
            &[],
        );
        let e = err(r, "config.toml");
        assert!(
            e.contains("api_key_command") && e.contains("printed nothing"),
            "{cmd}: {e}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_key_command_gets_no_stdin_and_its_key_is_prefix_checked() {
    // `cat` would wait forever on a terminal; with stdin null it prints nothing at once.
    let (_tmp, r) = load_text(
        "base_url = \"https://x.example\"\napi_key_command = \"cat\"\n",
        &[],
    );
    assert!(err(r, "config.toml").contains("printed nothing"));
    let (_tmp, r) = load_text(
        "base_url = \"https://x.example\"\napi_key_command = \"echo pk_PUBLISHABLE_999\"\n",
        &[],
    );
    let e = err(r, "config.toml");
    assert!(
        e.contains("api_key_command") && e.contains("\"sk_\""),
        "{e}"
    );
    assert!(!e.contains("PUBLISHABLE"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_key_command_that_leaves_its_output_open_does_not_hang() {
    // The shell exits at once but a background child keeps stdout open for a minute and
    // writes `ended` as it closes it: the loader must not wait for it. The event: the loader
    // returned before `ended` was written.
    let dir = tempfile::tempdir().unwrap();
    let (ended, pid_file) = (dir.path().join("ended"), dir.path().join("pid"));
    let (_tmp, r) = load_text(
        &format!(
            "base_url = \"https://x.example\"\napi_key_command = \"echo {SECRET}; \
             (sleep 60; echo > '{}') & echo $! > '{}'\"\n",
            ended.display(),
            pid_file.display()
        ),
        &[],
    );
    let returned_first = !ended.exists();
    if let Ok(pid) = std::fs::read_to_string(&pid_file) {
        let _ = std::process::Command::new("kill").arg(pid.trim()).status();
    }
    assert!(
        returned_first,
        "the loader waited for the child that kept its output open"
    );
    match r {
        Ok(c) => assert_eq!(c.key.expose(), SECRET),
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.contains("api_key_command") && !e.contains(SECRET_PART),
                "{e}"
            );
        }
    }
}

// ---- a missing file ----

#[test]
fn a_missing_file_says_where_it_looked_and_how_to_start() {
    let tmp = tempfile::tempdir().unwrap();
    let nowhere = tmp.path().join("nowhere.toml");
    let shown = nowhere.display().to_string();
    let e = err(
        Config::load_with(&with_path(&nowhere), &env_of(&[])),
        &shown,
    );
    for part in [
        "(from --config)",
        "CONVO_BASE_URL",
        "CONVO_API_KEY",
        "config.example.toml",
        "convo --demo",
    ] {
        assert!(e.contains(part), "missing {part:?}: {e}");
    }
    let env = env_of(&[("CONVO_CONFIG", &shown)]);
    let e = err(Config::load_with(&Overrides::default(), &env), &shown);
    assert!(e.contains("(from CONVO_CONFIG)"), "{e}");
    // Only the key is missing: the message says so.
    let env = env_of(&[("CONVO_BASE_URL", "https://x.example")]);
    let e = err(Config::load_with(&with_path(&nowhere), &env), &shown);
    assert!(e.contains("API key") && e.contains("CONVO_API_KEY"), "{e}");
}

#[test]
fn a_missing_default_file_names_the_default_path() {
    let Some(default) = convo::config::default_path() else {
        return;
    };
    if default.exists() {
        return; // a real config on this machine; nothing to learn here
    }
    let shown = default.display().to_string();
    assert!(shown.ends_with("config.toml"), "{shown}");
    let e = err(
        Config::load_with(&Overrides::default(), &env_of(&[])),
        &shown,
    );
    assert!(
        e.contains("config.example.toml") && e.contains("--demo"),
        "{e}"
    );
}

#[test]
fn no_file_is_needed_when_env_and_flags_give_url_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let nowhere = tmp.path().join("missing").join("config.toml");
    let ov = Overrides {
        base_url: Some("https://flag.example".into()),
        ..with_path(&nowhere)
    };
    let c = ok(Config::load_with(
        &ov,
        &env_of(&[("CONVO_API_KEY", ENV_KEY)]),
    ));
    assert_eq!(c.path, None);
    assert_eq!(c.base_url, "https://flag.example");
    assert_eq!(c.key.source, KeySource::Env);
    assert_eq!(c.page_size.get(), 50);
    // A key from env that is not a secret key is still refused.
    let e = Config::load_with(&ov, &env_of(&[("CONVO_API_KEY", "pk_live_0123456789")]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("CONVO_API_KEY") && e.contains("\"sk_\""), "{e}");
}

// ---- parse errors ----

#[test]
fn an_unknown_key_names_file_line_and_key() {
    let e = refused_at_x("\npagesize = 3\n");
    assert!(
        e.contains("line 3, column 1") && e.contains("`pagesize`"),
        "{e}"
    );
    assert!(e.contains("page_size"), "lists what is allowed: {e}");
    // Misspelt keys, at the top and in a table, are refused by name.
    for key in [
        "web_ur = \"https://x/{id}\"",
        "page_sise = 5",
        "[themes]",
        "[key]",
    ] {
        let e = refused_at_x(&format!("{key}\n"));
        assert!(
            e.contains("line 2") && e.contains("unknown field"),
            "{key}: {e}"
        );
    }
}

#[test]
fn a_wrong_type_names_line_and_key() {
    for (key, value) in [
        ("page_size", "\"ten\""),
        ("request_timeout_secs", "-3"),
        ("allow_insecure_http", "\"yes\""),
        ("auth_header", "42"),
        ("refresh_secs", "1.5"),
    ] {
        let e = refused_at_x(&format!("\n{key} = {value}\n"));
        assert!(e.contains("line 3"), "{key}: {e}");
        assert!(e.contains(&format!("`{key}`")), "names the key {key}: {e}");
    }
    let e = refused_at_x("[[views]]\nname = \"a\"\nstatus = 3\n");
    assert!(e.contains("line 4") && e.contains("status"), "{e}");
}

#[test]
fn a_value_pasted_in_the_wrong_place_is_not_echoed() {
    let (_tmp, r) = load_text(
        &format!("base_url = \"https://x.example\"\npage_size = \"{SECRET}\"\n"),
        &[],
    );
    let e = err(r, "config.toml");
    assert!(e.contains("page_size"), "{e}");
    let (_tmp, r) = load_text(
        &format!("base_url = \"https://x.example\"\n[aliases]\n\"{SECRET}\" = 5\n"),
        &[],
    );
    err(r, "config.toml");
    let (_tmp, r) = load_text(
        &format!("base_url = \"https://x.example\"\n{SECRET} = 1\n"),
        &[],
    );
    err(r, "config.toml");
}

#[test]
fn text_that_is_not_toml_names_the_line() {
    for (text, line) in [
        ("{\"base_url\": \"https://x\"}\n", 1),
        ("# ok\nbase_url = \"https://x\"\n[main\n", 3),
        ("base_url = \"https://x\n", 1),
        ("base_url = \"https://x\"\nbase_url = \"https://y\"\n", 2),
        ("é = = é\n", 1),
    ] {
        let (_tmp, r) = load_text(text, &[("CONVO_API_KEY", ENV_KEY)]);
        let e = err(r, "config.toml");
        assert!(e.contains(&format!("line {line}")), "{text:?}: {e}");
    }
}

#[test]
fn an_empty_file_says_what_is_missing() {
    let (_tmp, r) = load_text("", &[("CONVO_API_KEY", ENV_KEY)]);
    let e = err(r, "config.toml");
    assert!(e.contains("base_url") && e.contains("not set"), "{e}");
    let (_tmp, r) = load_text(
        "# only comments\n\n",
        &[("CONVO_BASE_URL", "https://x.example")],
    );
    let e = err(r, "config.toml");
    assert!(e.contains("api_key") && e.contains("CONVO_API_KEY"), "{e}");
}

#[test]
fn binary_garbage_is_refused_without_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env_of(&[("CONVO_API_KEY", ENV_KEY)]);
    let p = write(
        tmp.path(),
        "bin.toml",
        b"\xff\xfe\x00b\x00\x89PNG\r\n\x1a\n",
    );
    let e = err(Config::load_with(&with_path(&p), &env), "bin.toml");
    assert!(e.contains("not UTF-8"), "{e}");
    let p = write(tmp.path(), "nul.toml", b"\x00\x01\x02garbage\x7f\x1b[2J");
    let e = err(Config::load_with(&with_path(&p), &env), "nul.toml");
    assert!(e.contains("line 1"), "{e}");
    assert!(
        !e.contains('\u{1b}') && !e.contains('\0'),
        "sanitised: {e:?}"
    );
    // A directory where the file should be.
    let e = err(
        Config::load_with(&with_path(tmp.path()), &env),
        &tmp.path().display().to_string(),
    );
    assert!(e.contains("cannot read config"), "{e}");
}

// ---- values ----

#[test]
fn a_key_with_the_wrong_prefix_is_refused_unless_the_check_is_off() {
    let (_tmp, r) = load_text(
        "base_url = \"https://x.example\"\napi_key = \"pk_live_PUBLISHABLE_999\"\n",
        &[],
    );
    let e = err(r, "config.toml");
    assert!(
        e.contains("api_key in") && e.contains("\"sk_\"") && e.contains("key_prefix"),
        "{e}"
    );
    assert!(
        e.contains("config.toml, line 2: "),
        "the line of api_key: {e}"
    );
    assert!(!e.contains("PUBLISHABLE"), "{e}");
    let (_tmp, r) = load_text(
        "base_url = \"https://x.example\"\napi_key = \"pk_live_PUBLISHABLE_999\"\nkey_prefix = \"\"\n",
        &[],
    );
    assert_eq!(ok(r).key.expose(), "pk_live_PUBLISHABLE_999");
    let (_tmp, r) = load_text(
        &format!(
            "base_url = \"https://x.example\"\napi_key = \"{SECRET}\"\nkey_prefix = \"rk_\"\n"
        ),
        &[],
    );
    assert!(err(r, "config.toml").contains("\"rk_\""));
}

#[test]
fn page_size_must_be_1_to_100() {
    for (n, fine) in [
        (0, false),
        (1, true),
        (50, true),
        (100, true),
        (101, false),
        (-1, false),
    ] {
        let (_tmp, r) = load_at_x(&format!("page_size = {n}\n"));
        if fine {
            assert_eq!(ok(r).page_size.get(), n as usize);
        } else {
            let e = err(r, "config.toml");
            assert!(e.contains("page_size") && e.contains("1..=100"), "{n}: {e}");
        }
    }
}

#[test]
fn timeouts_of_zero_are_refused() {
    for key in ["request_timeout_secs", "connect_timeout_secs"] {
        assert!(refused_at_x(&format!("{key} = 0\n")).contains(key));
    }
}

#[test]
fn base_url_needs_a_scheme_and_a_host() {
    for url in [
        "",
        "   ",
        "chat.example.com",
        "ftp://chat.example.com",
        "https://",
        "https://exa mple.com",
    ] {
        let (_tmp, r) = load_text(
            &format!("base_url = \"{url}\"\n"),
            &[("CONVO_API_KEY", ENV_KEY)],
        );
        let e = err(r, "config.toml");
        assert!(e.contains("base_url"), "{url:?}: {e}");
    }
    // The same rule for a URL from the environment, which the message names (and not the
    // file, which is not at fault).
    let e = env_url_refused("", "chat.example.com");
    assert!(e.contains("CONVO_BASE_URL"), "{e}");
    // http to a non-loopback host parses here; the client applies the transport rule.
    let (_tmp, r) = load_text(
        "base_url = \"http://chat.example.com/\"\n",
        &[("CONVO_API_KEY", ENV_KEY)],
    );
    ok(r);
}

#[test]
fn auth_header_and_scheme_must_fit_in_a_header() {
    for line in [
        "auth_header = \"\"",
        "auth_header = \"X Api Key\"",
        "auth_header = \"X-Key:\"",
        "auth_scheme = \"Bear er\"",
        "auth_scheme = \"Bé\"",
    ] {
        let e = refused_at_x(&format!("{line}\n"));
        assert!(e.contains(line.split(' ').next().unwrap()), "{line}: {e}");
    }
}

// ---- aliases and views ----

#[test]
fn aliases_map_uuids_to_names() {
    let (_tmp, r) = load_at_x(
        "[aliases]\n\"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90\" = \"Web shop\"\n\"5D2E8F17-3C4B-4A69-8E0D-1B2C3D4E5F60\" = \"Ana\"\n",
    );
    let c = ok(r);
    assert_eq!(
        c.aliases
            .name(&uuid("0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90")),
        Some("Web shop")
    );
    assert_eq!(
        c.aliases
            .name(&uuid("5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60")),
        Some("Ana")
    );
    assert_eq!(c.aliases.name(&Uuid::nil()), None);
}

#[test]
fn an_alias_with_a_bad_uuid_is_named() {
    let e = refused_at_x("[aliases]\n\"shop-1\" = \"Web shop\"\n");
    assert!(
        e.contains("aliases") && e.contains("shop-1") && e.contains("UUID"),
        "{e}"
    );
}

#[test]
fn views_parse_into_filters() {
    let site = "0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90";
    let agent = "5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60";
    let (_tmp, r) = load_text(
        &format!(
            "base_url = \"https://x.example\"\n\
             [[views]]\nname = \"Mine\"\nstatus = \"open\"\nassignee = \"{agent}\"\n\
             [[views]]\nname = \"Pending here\"\ntab = \"conversations\"\nstatus = \"pending\"\nsite_id = \"{site}\"\nassignee = \"none\"\n\
             [[views]]\nname = \"Anyone's\"\nassignee = \"anyone\"\nvisitor_id = \"{agent}\"\n\
             [[views]]\nname = \"Ana\"\ntab = \"visitors\"\nemail = \"ana@example.com\"\nexternal_id = \"c-42\"\n"
        ),
        &[("CONVO_API_KEY", ENV_KEY)],
    );
    let c = ok(r);
    let names: Vec<&str> = c.views.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["Mine", "Pending here", "Anyone's", "Ana"]);
    let v = &c.views[0];
    assert_eq!(v.tab, Resource::Conversations);
    assert_eq!(v.conversations.status, Some(Status::Open));
    assert_eq!(v.conversations.assignee, Assignee::Agent(uuid(agent)));
    let v = &c.views[1];
    assert_eq!(v.conversations.status, Some(Status::Pending));
    assert_eq!(v.conversations.site_id, Some(uuid(site)));
    assert_eq!(v.conversations.assignee, Assignee::Unassigned);
    let v = &c.views[2];
    assert_eq!(v.conversations.assignee, Assignee::Anyone);
    assert_eq!(v.conversations.visitor_id, Some(uuid(agent)));
    let v = &c.views[3];
    assert_eq!(v.tab, Resource::Visitors);
    assert_eq!(v.visitors.email.as_deref(), Some("ana@example.com"));
    assert_eq!(v.visitors.external_id.as_deref(), Some("c-42"));
}

#[test]
fn bad_views_name_the_view_and_the_key() {
    for (body, names) in [
        (
            "name = \"a\"\nstatus = \"snoozed\"",
            &["views[\"a\"].status", "snoozed"][..],
        ),
        (
            "name = \"a\"\nassignee = \"bob\"",
            &["views[\"a\"].assignee"],
        ),
        ("name = \"a\"\nsite_id = \"123\"", &["views[\"a\"].site_id"]),
        (
            "name = \"a\"\nvisitor_id = \"zz\"",
            &["views[\"a\"].visitor_id"],
        ),
        (
            "name = \"a\"\ntab = \"agents\"",
            &["views[\"a\"].tab", "agents"],
        ),
        (
            "name = \"a\"\nemail = \"a@b\"",
            &["views[\"a\"]", "email", "tab = \"visitors\""],
        ),
        (
            "name = \"a\"\ntab = \"visitors\"\nstatus = \"open\"",
            &["views[\"a\"]", "status"],
        ),
        ("name = \"\"", &["name"]),
        ("status = \"open\"", &["line 2", "name"]),
        (
            "name = \"a\"\nstatuss = \"open\"",
            &["line 4", "statuss", "(in `views`)"],
        ),
    ] {
        let e = refused_at_x(&format!("[[views]]\n{body}\n"));
        for n in names {
            assert!(e.contains(n), "{body:?} should name {n:?}: {e}");
        }
    }
    let e = refused_at_x("[[views]]\nname = \"a\"\n[[views]]\nname = \"a\"\n");
    assert!(e.contains("views[\"a\"]") && e.contains("two views"), "{e}");
}

// ---- stale_after ----

#[test]
fn stale_after_takes_text_or_seconds_and_a_profile_may_change_it() {
    for (given, secs) in [
        ("\"90m\"", 5400),
        ("\"1h30m\"", 5400),
        ("600", 600),
        ("\"1d\"", 86_400),
    ] {
        let (_tmp, r) = load_at_x(&format!("stale_after = {given}\n"));
        assert_eq!(ok(r).ui.stale_after_secs, Some(secs), "{given}");
    }
    let (_tmp, r) = load_at_x("");
    assert_eq!(
        ok(r).ui.stale_after_secs,
        None,
        "unset: the default applies"
    );
    let (_tmp, r) = load_text(
        "base_url = \"https://x.example\"\nstale_after = \"2h\"\n[profiles.night]\nstale_after = \"30m\"\n",
        &[("CONVO_API_KEY", ENV_KEY), ("CONVO_PROFILE", "night")],
    );
    assert_eq!(ok(r).ui.stale_after_secs, Some(1800), "the profile's wins");
    for bad in ["\"2 fortnights\"", "-5", "0", "\"\"", "true", "\"400d\""] {
        let e = refused_at_x(&format!("stale_after = {bad}\n"));
        assert!(e.contains("stale_after"), "{bad}: {e}");
    }
}

// ---- the example file ----

#[test]
fn the_example_config_parses_with_all_its_views() {
    let example = include_str!("../../config.example.toml");
    let c = ok(Config::from_toml_str(
        example,
        Path::new("/x/config.example.toml"),
        &Overrides::default(),
        &env_of(&[("CONVO_API_KEY", ENV_KEY)]),
    ));
    assert!(c.views.len() >= 3, "{:?}", c.views);
    assert_eq!(c.ui.stale_after_secs, Some(7200));
    assert!(c.views.iter().any(|v| v.tab == Resource::Visitors));
    assert!(
        c.views
            .iter()
            .any(|v| matches!(v.conversations.assignee, Assignee::Agent(_)))
    );
    assert!(
        c.aliases
            .name(&uuid("0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90"))
            .is_some()
    );
    // Every key of the file format is documented in it, and the ways to keep the key.
    let keys = "base_url api_key api_key_command key_prefix auth_header auth_scheme page_size \
                request_timeout_secs connect_timeout_secs allow_insecure_http refresh_secs \
                stale_after [aliases] [[views]]";
    let phrases = [
        "pass show",
        "security find-generic-password",
        "travels in clear",
    ];
    for key in keys.split_whitespace().chain(phrases) {
        assert!(
            example.contains(key),
            "config.example.toml does not mention {key}"
        );
    }
    // Copied as the user would, and loaded from disk: no key in it, so no warning.
    let tmp = tempfile::tempdir().unwrap();
    let p = write(tmp.path(), "config.toml", example);
    set_mode(&p, 0o644);
    let c = ok(Config::load_with(
        &with_path(&p),
        &env_of(&[("CONVO_API_KEY", ENV_KEY)]),
    ));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    // Without a key anywhere, it says where to put one.
    let e = err(
        Config::load_with(&with_path(&p), &env_of(&[])),
        "config.toml",
    );
    assert!(e.contains("api_key") && e.contains("CONVO_API_KEY"), "{e}");
}

// ---- the permission warning ----

#[cfg(unix)]
#[test]
fn a_key_in_a_file_readable_by_others_warns() {
    let tmp = tempfile::tempdir().unwrap();
    let with_key = write(tmp.path(), "with-key.toml", keyed("x.example"));
    let with_cmd = write(
        tmp.path(),
        "with-cmd.toml",
        format!("base_url = \"https://x.example\"\napi_key_command = \"echo {SECRET}\"\n"),
    );
    let shown = with_key.display().to_string();
    for (file, mode, env, warns) in [
        (&with_key, 0o644, &[][..], true),
        (&with_key, 0o640, &[], true),
        (&with_key, 0o604, &[], true),
        (&with_key, 0o600, &[], false),
        (&with_key, 0o400, &[], false),
        // The key in the file is not used, but it is still readable.
        (&with_key, 0o644, &[("CONVO_API_KEY", ENV_KEY)], true),
        (&with_cmd, 0o644, &[], false),
    ] {
        set_mode(file, mode);
        let c = ok(Config::load_with(&with_path(file), &env_of(env)));
        assert_eq!(
            c.warnings.len(),
            usize::from(warns),
            "mode {mode:o}: {:?}",
            c.warnings
        );
        if warns {
            let w = &c.warnings[0];
            assert_eq!(
                w,
                &format!(
                    "{shown} holds an API key and is readable by others (mode {mode:04o}); run: chmod 600 {shown}"
                )
            );
        }
    }
}

// ---- --demo ----

#[test]
fn demo_keeps_views_and_aliases_from_a_valid_file() {
    let tmp = tempfile::tempdir().unwrap();
    let key = ApiKey::new("sk_demo_0123456789abcdef", KeySource::Demo, "sk_").unwrap();
    // No file at all is fine.
    let c = ok(Config::for_demo(
        "http://127.0.0.1:9".into(),
        key.clone(),
        Default::default(),
        &with_path(&tmp.path().join("none.toml")),
    ));
    assert_eq!(c.path, None);
    assert_eq!(c.base_url, "http://127.0.0.1:9");
    assert_eq!(c.key.source, KeySource::Demo);
    assert!(c.views.is_empty() && c.warnings.is_empty());
    // A file without base_url or key: its views, aliases, page size and refresh are used,
    // its base URL and key are not needed.
    let p = write(
        tmp.path(),
        "c.toml",
        "page_size = 7\nrefresh_secs = 9\n[aliases]\n\"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90\" = \"Shop\"\n[[views]]\nname = \"Open\"\nstatus = \"open\"\n",
    );
    let c = ok(Config::for_demo(
        "http://127.0.0.1:9".into(),
        key.clone(),
        Default::default(),
        &with_path(&p),
    ));
    assert_eq!(c.page_size.get(), 7);
    assert_eq!(c.refresh_secs, Some(9));
    assert_eq!(c.views.len(), 1);
    assert!(!c.aliases.is_empty());
    assert_eq!(c.key.expose(), "sk_demo_0123456789abcdef");
    // A broken file is ignored with a warning that names it.
    let p = write(tmp.path(), "broken.toml", "page_size = 700\n");
    let c = ok(Config::for_demo(
        "http://127.0.0.1:9".into(),
        key,
        Default::default(),
        &with_path(&p),
    ));
    assert!(c.views.is_empty());
    assert!(
        c.warnings.len() == 1 && c.warnings[0].contains("broken.toml"),
        "{:?}",
        c.warnings
    );
}

#[test]
fn a_value_refused_after_parsing_names_its_line_in_the_file_or_the_profile() {
    let text = "base_url = \"https://x.example\"\n\n[theme]\npreset = \"neon\"\n";
    let (_tmp, r) = load_text(text, &[("CONVO_API_KEY", ENV_KEY)]);
    let e = err(r, "config.toml");
    assert!(e.contains("line 4: theme.preset"), "{e}");
    let text = "base_url = \"https://x.example\"\n\n[[views]]\nname = \"mine\"\ntab = \"visitors\"\nstatus = \"open\"\n";
    let (_tmp, r) = load_text(text, &[("CONVO_API_KEY", ENV_KEY)]);
    let e = err(r, "config.toml");
    assert!(e.contains("line 5: views[\"mine\"].tab"), "{e}");
    // the profile's value is the one refused: its line, not the top level's
    let text =
        "base_url = \"https://x.example\"\npage_size = 10\n\n[profiles.big]\npage_size = 500\n";
    let (_tmp, r) = load_text(
        text,
        &[("CONVO_API_KEY", ENV_KEY), ("CONVO_PROFILE", "big")],
    );
    let e = err(r, "config.toml");
    assert!(e.contains("line 5: page_size"), "{e}");
}

#[test]
fn a_bad_key_or_url_from_the_environment_is_not_called_a_file_error() {
    let text = "base_url = \"https://x.example\"\n";
    let (_tmp, r) = load_text(text, &[("CONVO_API_KEY", "pk_live_0123456789")]);
    let e = r.unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(
            e,
            ConfigError::Setting {
                from: "CONVO_API_KEY",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        !msg.contains("config error") && !msg.contains("config.toml"),
        "{msg}"
    );
    assert!(
        msg.contains("the API key from the CONVO_API_KEY environment variable"),
        "{msg}"
    );
    let msg = env_url_refused(text, "ftp://x");
    assert!(
        msg.starts_with("CONVO_BASE_URL must start with https://"),
        "{msg}"
    );
    // the same key in the file is the file's error
    let (_tmp, r) = load_text(
        "base_url = \"https://x.example\"\napi_key = \"pk_live_0123456789\"\n",
        &[],
    );
    assert!(err(r, "config.toml").contains("config error in"));
}
