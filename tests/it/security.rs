//! Security (issue 4, docs/reliability.md): the key never appears in the log file, in the
//! output of a failing run, in `Debug` output, nor in a request to another origin; plain http
//! to a non-loopback host is refused before any I/O; a readable config holding a key warns.
//!
//! Only loopback is ever contacted: the transport rule is checked at `Client::new`, which does
//! no I/O.

use crate::common;

use std::path::Path;

use common::{Demo, convo_cmd};
use convo::api::{ApiError, ApiKey, Client, ClientSettings, KeySource};
use convo::config::{Config, Overrides};
use convo::demo::Faults;

/// A secret that is not the demo's key: anything of it in an output is a leak.
const SECRET: &str = "sk_live_TOPSECRET0123456789abcdefXYZ";
/// Distinctive inner parts of the secrets, so that a partial leak is caught too (the masked
/// form `sk_…wxyz` shows the last four characters on purpose, nothing more).
const SECRET_PART: &str = "TOPSECRET0123456789";

struct Out {
    code: Option<i32>,
    out: String,
    err: String,
}

fn run(tmp: &Path, envs: &[(&str, &str)], args: &[&str]) -> Out {
    let mut c = convo_cmd(tmp);
    for (k, v) in envs {
        c.env(k, v);
    }
    let o = c.args(args).output().unwrap();
    Out {
        code: o.status.code(),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// The inner part of a demo key (`sk_demo_<24 hex>`): what must never show.
fn key_part(key: &str) -> &str {
    &key[8..key.len() - 4]
}

fn assert_no_leak(what: &str, text: &str, secrets: &[&str]) {
    for s in secrets {
        assert!(
            !text.contains(s),
            "{what} holds the key part {s:?}:\n{text}"
        );
    }
}

/// A demo server that answers every request with `status` and an error body quoting the
/// Authorization header it received.
fn echo(status: u16) -> Demo {
    Demo::faulty(10, 10, |f| f.echo_key = Some(status))
}

#[test]
fn the_key_never_reaches_the_log_file_even_at_trace_level() {
    let d = Demo::start(30, 10, Faults::default());
    let (e500, e401) = (echo(500), echo(401));
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("convo.log");
    let trace = [("CONVO_LOG", "trace")];
    let mut errs = Vec::new();
    for (url, key, args) in [
        (d.url(), d.key(), &["list", "conversations", "--all"][..]),
        // Servers that echo the key they received in their error body.
        (e500.url(), e500.key(), &["list", "visitors"][..]),
        (e401.url(), SECRET.to_string(), &["list", "visitors"][..]),
    ] {
        let mut envs = trace.to_vec();
        envs.push(("CONVO_API_KEY", &key));
        let o = run(
            tmp.path(),
            &envs,
            &[&["--base-url", &url][..], args].concat(),
        );
        assert!(o.code.is_some(), "{}", o.err);
        errs.push(o.err);
    }
    let text = std::fs::read_to_string(&log).expect("the log file was written");
    // Not vacuous: the log holds the requests at trace level, the masked key, and the errors
    // with the servers' text.
    assert!(text.lines().count() > 20, "{text}");
    assert!(text.contains("sk_…"), "the masked key is logged: {text}");
    assert!(text.contains(" TRACE ") && text.contains("connecting to 127.0.0.1"));
    let (dk, ek) = (d.key(), e500.key());
    let secrets = [key_part(&dk), key_part(&ek), SECRET_PART];
    assert_no_leak("the log", &text, &secrets);
    for e in &errs {
        assert_no_leak("stderr", e, &secrets);
    }
    assert!(text.contains("Bearer [redacted API key] is not"), "{text}");
}

/// `convo doctor`'s probes (each list's request, the compression check, the encoding check)
/// against servers that quote the key in their errors: each line that shows the server's text
/// shows it with the key taken out. Seen red with `Client::once`'s redaction removed.
#[test]
fn the_doctor_s_probes_never_show_an_echoed_key() {
    let tmp = tempfile::tempdir().unwrap();
    for status in [401, 404] {
        let d = echo(status);
        let o = run(
            tmp.path(),
            &[("CONVO_API_KEY", &d.key())],
            &["--base-url", &d.url(), "doctor"],
        );
        let what = format!("doctor, HTTP {status}");
        assert_eq!(o.code, Some(1), "{what}: {}{}", o.out, o.err);
        assert_no_leak(&what, &o.out, &[key_part(&d.key())]);
        assert_no_leak(&what, &o.err, &[key_part(&d.key())]);
        // Not vacuous: the probes' lines quote the server, the key taken out.
        for line in [
            "GET /v1/conversations: ",
            "GET /v1/visitors: ",
            "compression not checked: ",
        ] {
            let shown = o
                .out
                .lines()
                .find(|l| l.contains(line))
                .unwrap_or_else(|| panic!("{what}: no line {line:?}: {}", o.out));
            assert!(
                shown.contains("Bearer [redacted API key] is not accepted"),
                "{what}: {shown}"
            );
        }
    }
}

#[test]
fn the_key_never_appears_in_the_output_of_a_failing_run() {
    let tmp = tempfile::tempdir().unwrap();
    let ok = Demo::start(10, 10, Faults::default());
    // Each server quotes the Authorization header it received in its error body: the key
    // reaches convo's error text unless the client takes it out.
    let servers: Vec<(u16, Demo, Option<i32>)> = [(401, 3), (403, 3), (400, 2), (404, 4), (500, 4)]
        .into_iter()
        .map(|(st, code)| (st, echo(st), Some(code)))
        .collect();
    for (status, d, code) in &servers {
        for key in [SECRET.to_string(), d.key()] {
            let o = run(
                tmp.path(),
                &[("CONVO_API_KEY", &key)],
                &["--base-url", &d.url(), "list", "visitors"],
            );
            let what = format!("HTTP {status}");
            assert_eq!(o.code, *code, "{what}: {}", o.err);
            assert!(o.err.contains("convo: error:"), "{what}: {}", o.err);
            assert_no_leak(&what, &o.err, &[SECRET_PART, key_part(&d.key())]);
            assert_no_leak(&what, &o.out, &[SECRET_PART, key_part(&d.key())]);
            // Not vacuous: the server's text is shown, with the key taken out.
            assert!(
                o.err.contains("Bearer [redacted API key] is not accepted"),
                "{what}: {}",
                o.err
            );
        }
    }
    // Keys refused before any request: their errors never quote them.
    let wrong_prefix = SECRET.replacen("sk_", "pk_", 1);
    let spaced = format!("{SECRET} with spaces");
    for (what, key) in [("wrong prefix", wrong_prefix), ("not header-safe", spaced)] {
        let o = run(
            tmp.path(),
            &[("CONVO_API_KEY", &key)],
            &["--base-url", &ok.url(), "list", "visitors"],
        );
        assert_eq!(o.code, Some(2), "{what}: {}", o.err);
        assert_no_leak(what, &o.err, &[SECRET_PART]);
        assert_no_leak(what, &o.out, &[SECRET_PART]);
    }
}

#[test]
fn the_key_never_appears_in_config_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let d = Demo::start(10, 10, Faults::default());
    let url = d.url();
    let files = [
        // The key's own line is broken.
        format!("base_url = \"{url}\"\napi_key = \"{SECRET}\n"),
        format!("base_url = \"{url}\"\napi_key = {SECRET}\n"),
        // A typo in the key's name: an unknown key that holds the secret.
        format!("base_url = \"{url}\"\napikey = \"{SECRET}\"\n"),
        // The key is fine, something else is wrong.
        format!("base_url = \"{url}\"\napi_key = \"{SECRET}\"\npage_size = \"many\"\n"),
        format!("base_url = \"{url}\"\napi_key = \"{SECRET}\"\nkey_prefix = \"rk_\"\n"),
        format!("base_url = \"{url}\"\napi_key = [\"{SECRET}\"]\n"),
        format!("base_url = \"{url}\"\napi_key_command = \"printf pk_{SECRET}\"\n"),
    ];
    for (i, text) in files.iter().enumerate() {
        let p = tmp.path().join(format!("c{i}.toml"));
        std::fs::write(&p, text).unwrap();
        let o = run(
            tmp.path(),
            &[],
            &["--config", p.to_str().unwrap(), "list", "visitors"],
        );
        assert_eq!(o.code, Some(2), "{text}: {}", o.err);
        assert!(
            o.err.contains(&format!("c{i}.toml")),
            "names the file: {}",
            o.err
        );
        assert_no_leak(text, &o.err, &[SECRET_PART]);
        assert_eq!(d.requests(), 0, "{text}: a request was sent");
    }
}

/// `text` as the file /etc/convo.toml, with no flags and no environment.
fn parse_etc(text: &str) -> Result<Config, convo::config::ConfigError> {
    Config::from_toml_str(
        text,
        Path::new("/etc/convo.toml"),
        &Overrides::default(),
        &|_| None,
    )
}

#[test]
fn debug_output_never_shows_the_key() {
    let text = format!("base_url = \"https://chat.example.com\"\napi_key = \"{SECRET}\"\n");
    let cfg = parse_etc(&text).unwrap();
    assert_eq!(cfg.key.expose(), SECRET, "the key was read");
    let key = cfg.key.clone();
    let settings = ClientSettings::new(cfg.base_url.clone(), key.clone());
    let client = Client::new(settings.clone()).unwrap();
    for (what, dbg) in [
        ("Config", format!("{cfg:?}")),
        ("Config {:#?}", format!("{cfg:#?}")),
        ("ApiKey", format!("{key:?}")),
        ("ClientSettings", format!("{settings:?}")),
        ("Client", format!("{client:?}")),
        ("masked", client.masked_key()),
    ] {
        assert_no_leak(what, &dbg, &[SECRET_PART]);
    }
    assert_eq!(client.masked_key(), "sk_…fXYZ");
    assert!(format!("{client:?}").contains("sk_…fXYZ"));
    // Errors that carry the key's origin name the place, not the key.
    let e = ApiError::Unauthorized {
        status: 401,
        detail: String::new(),
        origin: key.source.clone(),
    };
    assert!(e.to_string().contains("/etc/convo.toml"), "{e}");
    assert_no_leak("ApiError", &format!("{e} {e:?}"), &[SECRET_PART]);
}

#[test]
fn a_redirect_to_another_origin_never_carries_the_key() {
    let other = Demo::start(10, 10, Faults::default());
    let d = Demo::faulty(10, 10, |f| f.redirect_to = Some(other.url()));
    let tmp = tempfile::tempdir().unwrap();
    // reqwest forwards custom headers across origins by itself; a custom key header is the
    // dangerous case, so it is tested as well as the default Authorization.
    let custom = common::file(
        tmp.path(),
        "custom.toml",
        "auth_header = \"X-Api-Key\"\nauth_scheme = \"\"\n",
    );
    let url = d.url();
    for cfg in [None, Some(&custom)] {
        let mut args = vec!["--base-url", url.as_str()];
        let p;
        if let Some(c) = cfg {
            p = c.to_str().unwrap().to_string();
            args.extend(["--config", &p]);
        }
        args.extend(["list", "visitors"]);
        let o = run(tmp.path(), &[("CONVO_API_KEY", &d.key())], &args);
        assert_eq!(o.code, Some(4), "{}", o.err);
        assert!(
            o.err.contains("redirected to another origin") && o.err.contains(&other.url()),
            "{}",
            o.err
        );
        assert_no_leak("redirect", &o.err, &[key_part(&d.key())]);
    }
    assert_eq!(d.requests(), 2, "each run asked the configured host once");
    assert_eq!(other.requests(), 0, "the other origin was never contacted");
}

#[test]
fn plain_http_to_a_non_loopback_host_is_refused_before_any_io() {
    let key = ApiKey::new(SECRET, KeySource::Env, "sk_").unwrap();
    // Client::new does no I/O; these hosts are never contacted, whatever the outcome.
    for url in [
        "http://chat.example.com",
        "HTTP://CHAT.EXAMPLE.COM/v",
        "http://10.0.0.1:8080",
        "http://192.168.1.20",
        "http://0.0.0.0:8787",
        "http://[::]:8787",
        "http://[2001:db8::1]",
        "http://localhost.example.com",
        "http://127.0.0.1.example.com",
    ] {
        let e = Client::new(ClientSettings::new(url, key.clone())).unwrap_err();
        assert!(
            matches!(e, ApiError::InsecureTransport { .. }),
            "{url}: {e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("allow_insecure_http") && msg.contains("clear text"),
            "{url}: the message names the switch and its risk: {msg}"
        );
        // The documented escape hatch, with its risk accepted, lets it through.
        let mut s = ClientSettings::new(url, key.clone());
        s.allow_insecure_http = true;
        assert!(Client::new(s).is_ok(), "{url}");
    }
    for url in [
        "http://127.0.0.1:9",
        "http://127.1.2.3",
        "http://[::1]:9",
        "http://localhost:9",
        "https://chat.example.com",
    ] {
        assert!(
            Client::new(ClientSettings::new(url, key.clone())).is_ok(),
            "{url}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_config_holding_a_key_readable_by_others_warns() {
    use std::os::unix::fs::PermissionsExt;
    let d = Demo::start(5, 5, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let with_key = common::file(
        tmp.path(),
        "with-key.toml",
        format!("base_url = \"{}\"\napi_key = \"{}\"\n", d.url(), d.key()),
    );
    let without_key = common::file(
        tmp.path(),
        "without-key.toml",
        format!("base_url = \"{}\"\n", d.url()),
    );
    let key = d.key();
    for (file, mode, env_key, warns) in [
        (&with_key, 0o644, None, true),
        (&with_key, 0o640, None, true),
        (&with_key, 0o600, None, false),
        (&without_key, 0o644, Some(key.as_str()), false),
    ] {
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(mode)).unwrap();
        let envs: Vec<(&str, &str)> = env_key.map(|k| ("CONVO_API_KEY", k)).into_iter().collect();
        let o = run(
            tmp.path(),
            &envs,
            &["--config", file.to_str().unwrap(), "list", "visitors"],
        );
        assert_eq!(o.code, Some(0), "{}", o.err);
        let warned = o.err.contains("readable by others") && o.err.contains("chmod 600");
        assert_eq!(warned, warns, "mode {mode:o}: {}", o.err);
        assert_no_leak("permission warning", &o.err, &[key_part(&key)]);
    }
}

/// As ssh refuses a config file others can write: whoever can change the file could choose
/// the command convo runs (and read the key it prints). Refused before anything runs, in the
/// chosen profile too; a file others can only read is fine (it holds no secret).
#[cfg(unix)]
#[test]
fn api_key_command_in_a_file_others_can_write_is_refused_and_never_run() {
    use std::os::unix::fs::PermissionsExt;
    let d = Demo::start(5, 5, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("the-command-ran");
    let command = format!("touch {}; echo {}", marker.display(), d.key());
    let top = common::file(
        tmp.path(),
        "top.toml",
        format!(
            "base_url = \"{}\"\napi_key_command = \"{command}\"\n",
            d.url()
        ),
    );
    let profile = common::file(
        tmp.path(),
        "profile.toml",
        format!(
            "base_url = \"{}\"\n[profiles.work]\napi_key_command = \"{command}\"\n",
            d.url()
        ),
    );
    for (file, args, mode, refused) in [
        (&top, &[][..], 0o664, true),
        (&top, &[][..], 0o646, true),
        (&top, &[][..], 0o620, true),
        (&profile, &["--profile", "work"][..], 0o664, true),
        (&top, &[][..], 0o644, false),
        (&top, &[][..], 0o600, false),
    ] {
        let _ = std::fs::remove_file(&marker);
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(mode)).unwrap();
        let mut argv = vec!["--config", file.to_str().unwrap()];
        argv.extend_from_slice(args);
        argv.extend_from_slice(&["list", "visitors"]);
        let o = run(tmp.path(), &[], &argv);
        let what = format!("{} mode {mode:o}", file.display());
        if refused {
            assert_eq!(o.code, Some(2), "{what}: {}", o.err);
            assert!(
                o.err.contains("api_key_command")
                    && o.err.contains("refused")
                    && o.err.contains(&format!("mode {mode:04o}"))
                    && o.err.contains("chmod go-w"),
                "{what}: {}",
                o.err
            );
            assert!(!marker.exists(), "{what}: the command ran");
        } else {
            assert_eq!(o.code, Some(0), "{what}: {}", o.err);
            assert!(marker.exists(), "{what}: the command did not run");
        }
        assert_no_leak("refusal", &o.err, &[key_part(&d.key())]);
    }
}

#[test]
fn the_key_cannot_be_given_on_the_command_line() {
    // Process arguments are visible to every user of the machine (ps): there is no flag.
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["--api-key", SECRET, "list", "visitors"][..],
        &["list", "visitors", "--api-key", SECRET],
        &["list", "visitors", "--key", SECRET],
    ] {
        let o = run(tmp.path(), &[], args);
        assert_eq!(o.code, Some(2), "{:?}: {}", args, o.err);
        assert!(o.err.contains("unexpected argument"), "{}", o.err);
    }
    let help = run(tmp.path(), &[], &["--help"]).out;
    assert!(!help.contains("--api-key"), "{help}");
}

#[test]
fn a_key_pasted_into_the_wrong_field_is_not_echoed() {
    // A key pasted on the wrong line is still the key: type errors must not quote string
    // values, and a key pasted as api_key_command must not come back in the shell's
    // "not found" line.
    for line in [
        format!("page_size = \"{SECRET}\""),
        format!("refresh_secs = \"{SECRET}\""),
        format!("allow_insecure_http = \"{SECRET}\""),
        format!("api_key_command = \"{SECRET}\""),
    ] {
        let text = format!("base_url = \"https://chat.example.com\"\n{line}\n");
        let e = parse_etc(&text).unwrap_err();
        assert_no_leak(&line, &e.to_string(), &[SECRET_PART]);
    }
}

/// Issue 40, item 7: convo's log file is created owner-only (0600, as the store), and one an
/// older convo left readable by others is made owner-only at the next start.
#[cfg(unix)]
#[test]
fn the_log_file_is_created_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let d = Demo::start(30, 10, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("convo.log");
    let key = d.key();
    let list = |tmp: &Path| {
        let o = run(
            tmp,
            &[("CONVO_API_KEY", &key)],
            &["--base-url", &d.url(), "list", "conversations"],
        );
        assert_eq!(o.code, Some(0), "{}", o.err);
    };
    list(tmp.path());
    let mode = |p: &Path| std::fs::metadata(p).expect("the log").permissions().mode() & 0o777;
    assert_eq!(mode(&log), 0o600, "created");
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o644)).unwrap();
    list(tmp.path());
    assert_eq!(mode(&log), 0o600, "made owner-only");
}
