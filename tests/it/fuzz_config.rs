//! Fuzz-style tests of the config parser (issue 4), on the stable toolchain with proptest:
//! arbitrary text and TOML-ish token soup go into `Config::from_toml_str`. It may refuse,
//! never panic; its errors name the file (and a line that exists); the key never shows in an
//! error or in `Debug`.
//!
//! No command is ever run: either `CONVO_API_KEY` is set (it wins over `api_key_command`), or
//! the input holds no `api_key_command`.

use std::path::Path;

use convo::config::{Config, ConfigError, Overrides};
use proptest::prelude::*;

const PATH: &str = "/fuzz/config.toml";
const SECRET_PART: &str = "FUZZSECRET42";

use crate::common::cases as config;

fn env_key(k: &str) -> Option<String> {
    (k == "CONVO_API_KEY").then(|| "sk_env_0123456789abcdef".to_string())
}

fn no_env(_: &str) -> Option<String> {
    None
}

/// Parses and checks what holds for every outcome.
fn parse(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
    let r = Config::from_toml_str(text, Path::new(PATH), &Overrides::default(), env);
    match &r {
        Ok(c) => {
            let dbg = format!("{c:?}");
            assert!(!dbg.contains(SECRET_PART), "Debug shows the key: {dbg}");
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.contains(PATH),
                "the error does not name the file: {msg}"
            );
            assert!(!msg.contains(SECRET_PART), "the error shows the key: {msg}");
            assert!(convo::text::is_clean(&msg), "unsanitised error: {msg:?}");
            if let ConfigError::Parse { line, column, .. } = e {
                let lines = text.split('\n').count();
                assert!(
                    (1..=lines).contains(line) && *column >= 1,
                    "line {line} of {lines}"
                );
            }
        }
    }
    r
}

fn tokens(with_command: bool) -> impl Strategy<Value = String> {
    let mut keys = vec![
        "base_url",
        "api_key",
        "key_prefix",
        "auth_header",
        "auth_scheme",
        "page_size",
        "request_timeout_secs",
        "connect_timeout_secs",
        "allow_insecure_http",
        "refresh_secs",
        "name",
        "tab",
        "status",
        "assignee",
        "site_id",
        "visitor_id",
        "email",
        "external_id",
        "unknown",
        "\"3f2b8c1e-0a4d-4e5f-9b6a-1c2d3e4f5a6b\"",
        "\"nope\"",
    ];
    if with_command {
        keys.push("api_key_command");
    }
    let values = prop::sample::select(vec![
        "\"https://chat.example.com\"",
        "\"http://127.0.0.1:8787\"",
        "\"sk_live_abcd\"",
        "\"pk_live_abcd\"",
        "\"\"",
        "0",
        "-1",
        "20",
        "101",
        "18446744073709551616",
        "1.5",
        "true",
        "\"open\"",
        "\"snoozed\"",
        "\"visitors\"",
        "\"none\"",
        "[1, \"a\"]",
        "{ a = 1 }",
        "1979-05-27T07:32:00Z",
        "\"\\u0000\"",
        "\"\\u001b[2J\"",
        "'''multi\nline'''",
        "\"unterminated",
    ]);
    // The secret only ever stands as the value of api_key (a key pasted into another field
    // is echoed by the config's type errors: tests/security.rs covers that case).
    let secret = prop::sample::select(vec![
        "api_key = \"sk_live_FUZZSECRET42abcd\"\n",
        "api_key = \"pk_FUZZSECRET42\"\n",
        "api_key = \"sk_FUZZSECRET42 x\"\n",
        "api_key = \"sk_FUZZSECRET42\n",
        "api_key = 'sk_FUZZSECRET42'\n",
        "api_key = \"\"\"sk_FUZZSECRET42\"\"\"\n",
    ])
    .prop_map(str::to_string);
    let piece = prop_oneof![
        2 => secret,
        6 => (prop::sample::select(keys), values).prop_map(|(k, v)| format!("{k} = {v}\n")),
        1 => Just("[aliases]\n".to_string()),
        1 => Just("[[views]]\n".to_string()),
        1 => Just("[views]\n".to_string()),
        1 => Just("[[aliases]]\n".to_string()),
        1 => "\\PC{0,6}",
        1 => prop::sample::select(vec!["=", "[", "]", "\"", "\n", "#", "\\", "\u{feff}", "\r\n"])
            .prop_map(str::to_string),
    ];
    prop::collection::vec(piece, 0..14).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = parse(&text, &env_key);
    }

    #[test]
    fn arbitrary_bytes_as_lossy_text_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse(&String::from_utf8_lossy(&bytes), &env_key);
    }

    #[test]
    fn toml_token_soup_never_panics(text in tokens(true)) {
        // CONVO_API_KEY is set, so api_key_command is never run.
        let _ = parse(&text, &env_key);
    }

    #[test]
    fn toml_token_soup_without_env_never_panics(text in tokens(false)) {
        prop_assume!(!text.contains("api_key_command"));
        let _ = parse(&text, &no_env);
    }

    /// A valid file with one more line appended: whatever the line, the result is either a
    /// config or an error, and the key in the file never shows.
    #[test]
    fn a_valid_file_plus_noise_never_shows_the_key(noise in tokens(false)) {
        prop_assume!(!noise.contains("api_key_command"));
        let text = format!(
            "base_url = \"https://chat.example.com\"\napi_key = \"sk_live_{SECRET_PART}wxyz\"\n{noise}"
        );
        let _ = parse(&text, &no_env);
    }
}

#[test]
fn the_checks_are_not_vacuous() {
    // The soup does reach a parsed config holding the secret, and errors of each kind.
    let text = format!("base_url = \"https://x.example\"\napi_key = \"sk_{SECRET_PART}\"\n");
    let c = parse(&text, &no_env).unwrap();
    assert!(c.key.expose().contains(SECRET_PART), "the key was read");
    let e = parse(&format!("{text}page_size = 101\n"), &no_env).unwrap_err();
    assert!(matches!(e, ConfigError::InvalidAt { line: 3, .. }), "{e:?}");
    let e = parse(&format!("{text}key_prefix = \"pk_\"\n"), &no_env).unwrap_err();
    assert!(matches!(e, ConfigError::Key { .. }), "{e:?}");
    let e = parse(&format!("{text}api_key = \"unterminated\n"), &no_env).unwrap_err();
    assert!(matches!(e, ConfigError::Parse { line: 3, .. }), "{e:?}");
}
