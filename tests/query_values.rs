//! What a query's values mean before any request (issue 32): a typo of a value convo knows
//! is an error with "did you mean", names fold accents, a site is not an agent, the store's
//! knowledge is said, and the help says what is true. The real binary against the demo.

mod common;

use common::{Demo, assert_has, convo_cmd};
use convo::demo::Faults;

/// Runs `convo ARGS` against `d` with a config of `config` (and `store = false` unless it
/// sets `store`), in a home of its own.
fn convo_with(d: &Demo, config: &str, args: &[&str]) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("config.toml");
    std::fs::write(&cfg, config).unwrap();
    convo_cmd(tmp.path())
        .env("CONVO_API_KEY", d.key())
        .env("CONVO_CONFIG", &cfg)
        .arg("--base-url")
        .arg(d.url())
        .args(args)
        .output()
        .expect("runs")
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn out(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `convo --help` and the example config no longer say that a query must be one request.
#[test]
fn the_help_says_any_query_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let o = convo_cmd(tmp.path()).arg("--help").output().unwrap();
    let help = out(&o);
    assert_has(&help, "--query <QUERY>");
    assert!(!help.contains("for now"), "{help}");
    let example = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml"),
    )
    .unwrap();
    assert!(!example.contains("for now"), "config.example.toml");
}

/// A bad `--query` is said as the flag, not as the view it would have become.
#[test]
fn a_bad_query_flag_is_named_as_the_flag() {
    let d = Demo::start(20, 5, Faults::default());
    let o = convo_with(&d, "store = false\n", &["--query", "stauts:open"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let e = err(&o);
    assert_has(&e, "--query: bad query");
    assert_has(&e, "  stauts:open\n  ^^^^^^^");
    assert!(!e.contains("view \""), "{e}");
}
