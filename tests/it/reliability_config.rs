//! The config rows of the fault matrix (issue 4, docs/reliability.md), as the user meets them:
//! the real binary with a broken config. Each must end with exit code 2, a message that names
//! the file and the problem, and no request at all (a demo server counts them).
//!
//! The parser itself is unit-tested in crates/config/src/lib.rs and fuzzed in tests/fuzz_config.rs.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Demo, convo_cmd, demo_and_home};

struct Out {
    code: Option<i32>,
    out: String,
    err: String,
}

fn with_config(tmp: &Path, cfg: &Path, env_key: Option<&str>) -> Out {
    let mut c = convo_cmd(tmp);
    if let Some(k) = env_key {
        c.env("CONVO_API_KEY", k);
    }
    let o = c
        .arg("--config")
        .arg(cfg)
        .args(["list", "visitors", "--format", "jsonl"])
        .output()
        .unwrap();
    Out {
        code: o.status.code(),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs with a broken config and checks the common promise; returns stderr.
fn refused(d: &Demo, tmp: &Path, cfg: &Path, env_key: Option<&str>) -> String {
    let o = with_config(tmp, cfg, env_key);
    assert_eq!(o.code, Some(2), "{}", o.err);
    assert!(o.out.is_empty(), "{}", o.out);
    let name = cfg.file_name().unwrap().to_str().unwrap();
    assert!(
        o.err.starts_with("convo: error:") && o.err.contains(name),
        "the message names the file: {}",
        o.err
    );
    assert!(o.err.lines().count() <= 2, "short and clear: {}", o.err);
    assert_eq!(d.requests(), 0, "nothing was sent: {}", o.err);
    o.err
}

/// [`refused`] with a config `name` holding the demo's base URL, then `rest`; with the demo's
/// key in CONVO_API_KEY if `env_key`.
fn refused_with(d: &Demo, tmp: &Path, name: &str, rest: &str, env_key: bool) -> String {
    let cfg = write(tmp, name, &format!("base_url = \"{}\"\n{rest}", d.url()));
    refused(d, tmp, &cfg, env_key.then(|| d.key()).as_deref())
}

#[test]
fn a_config_given_with_config_that_does_not_exist_says_where_it_looked() {
    let (d, tmp) = demo_and_home(5, 5);
    let e = refused(&d, tmp.path(), &tmp.path().join("nowhere.toml"), None);
    common::assert_has_all(&e, &["no config file at", "(from --config)"]);
    common::assert_has_all(&e, &["config.example.toml", "--demo"]);
}

#[test]
fn an_empty_config_says_what_is_missing() {
    let (d, tmp) = demo_and_home(5, 5);
    let cfg = write(tmp.path(), "empty.toml", "");
    let e = refused(&d, tmp.path(), &cfg, Some(&d.key()));
    common::assert_has_all(&e, &["base_url", "not set"]);
    // With a base URL but no key anywhere, the key is what is missing.
    let e = refused_with(&d, tmp.path(), "no-key.toml", "", false);
    common::assert_has_all(&e, &["api_key", "CONVO_API_KEY"]);
}

#[test]
fn a_config_that_is_not_toml_names_the_line() {
    let (d, tmp) = demo_and_home(5, 5);
    for (name, text, line) in [
        ("json.toml", "{\"base_url\": \"http://127.0.0.1:1\"}\n", 1),
        (
            "ini.toml",
            "# ok\nbase_url = \"http://127.0.0.1:1\"\n[main\n",
            3,
        ),
        ("unterminated.toml", "base_url = \"http://127.0.0.1:1\n", 1),
    ] {
        let cfg = write(tmp.path(), name, text);
        let e = refused(&d, tmp.path(), &cfg, Some(&d.key()));
        assert!(e.contains(&format!("line {line}")), "{name}: {e}");
    }
    let cfg = common::file(tmp.path(), "binary.toml", b"\xff\xfe\x00b\x00");
    let e = refused(&d, tmp.path(), &cfg, Some(&d.key()));
    assert!(e.contains("not UTF-8"), "{e}");
    let e = refused(&d, tmp.path(), tmp.path(), Some(&d.key()));
    assert!(e.contains("cannot read config"), "{e}");
}

/// Keys with a value of the wrong type.
const WRONG_TYPES: [(&str, &str); 4] = [
    ("page_size", "\"ten\""),
    ("request_timeout_secs", "-3"),
    ("allow_insecure_http", "\"yes\""),
    ("auth_header", "42"),
];

#[test]
fn wrong_types_name_the_line_and_the_key() {
    let (d, tmp) = demo_and_home(5, 5);
    for (key, value) in WRONG_TYPES {
        let (name, rest) = (format!("{key}.toml"), format!("\n{key} = {value}\n"));
        let e = refused_with(&d, tmp.path(), &name, &rest, true);
        assert!(e.contains("line 3"), "{key}: {e}");
        assert!(e.contains(key), "the message names the key {key}: {e}");
    }
    // In range but out of bounds: the value's rule is named.
    let e = refused_with(&d, tmp.path(), "limit.toml", "page_size = 500\n", true);
    common::assert_has_all(&e, &["page_size", "1..=100"]);
}

#[test]
fn unknown_keys_are_named() {
    let (d, tmp) = demo_and_home(5, 5);
    let e = refused_with(&d, tmp.path(), "typo.toml", "pagesize = 20\n", true);
    common::assert_has_all(&e, &["line 2", "pagesize"]);
    let view = "[[views]]\nname = \"mine\"\nstatuss = \"open\"\n";
    let e = refused_with(&d, tmp.path(), "view-typo.toml", view, true);
    assert!(e.contains("statuss"), "{e}");
}

#[test]
fn a_key_with_the_wrong_prefix_in_the_file_is_never_sent() {
    let (d, tmp) = demo_and_home(5, 5);
    let key = "api_key = \"pk_live_publishable9876\"\n";
    let e = refused_with(&d, tmp.path(), "pk.toml", key, false);
    assert!(
        e.contains("api_key in") && e.contains("\"sk_\"") && e.contains("key_prefix"),
        "says where the key came from, what was expected and how to turn the check off: {e}"
    );
    assert!(!e.contains("publishable9876"), "{e}");
}

#[test]
fn a_key_command_that_fails_or_prints_nothing_is_named() {
    let (d, tmp) = demo_and_home(5, 5);
    let url = d.url();
    for (name, cmd, says) in [
        (
            "fails.toml",
            "echo vault is sealed >&2; exit 3",
            "vault is sealed",
        ),
        ("silent.toml", "true", "printed nothing"),
        ("blank.toml", "printf '  \\n\\n'", "printed nothing"),
        ("missing.toml", "/nonexistent/convo-key-helper", "127"),
    ] {
        let command = format!("api_key_command = \"{cmd}\"\n");
        let e = refused_with(&d, tmp.path(), name, &command, false);
        assert!(
            e.contains("api_key_command") && e.contains("failed") && e.contains(says),
            "{name}: {e}"
        );
    }
    // Not vacuous: a command that prints the key works, and is preferred to api_key.
    let cfg = write(
        tmp.path(),
        "works.toml",
        &format!(
            "base_url = \"{url}\"\napi_key = \"sk_wrong_000000000000\"\napi_key_command = \"echo {}\"\n",
            d.key()
        ),
    );
    let o = with_config(tmp.path(), &cfg, None);
    assert_eq!(o.code, Some(0), "{}", o.err);
    assert_eq!(o.out.lines().count(), 5);
}
