//! What a query's values mean before any request (issue 32): a typo of a value convo knows
//! is an error with "did you mean", names fold accents, a site is not an agent, the store's
//! knowledge is said, and the help says what is true. The real binary against the demo.

use crate::common;

use common::{Demo, assert_has, convo_cmd};
use convo::demo::Faults;

/// Runs `convo ARGS` against `d` with a config of `config`, in a home of its own.
fn convo_with(d: &Demo, config: &str, args: &[&str]) -> std::process::Output {
    convo_in(tempfile::tempdir().unwrap().path(), d, config, args)
}

/// Runs `convo ARGS` against `d` with a config of `config`, in `home` (its store kept).
fn convo_in(home: &std::path::Path, d: &Demo, config: &str, args: &[&str]) -> std::process::Output {
    let cfg = home.join("config.toml");
    std::fs::write(&cfg, config).unwrap();
    convo_cmd(home)
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

/// A demo of 200 conversations and 40 visitors.
fn demo() -> Demo {
    Demo::start(200, 40, Faults::default())
}

/// `list conversations -q QUERY --all` with `config`; asserts the exit code and, for 2, that
/// no request was made.
fn list_q(d: &Demo, config: &str, q: &str, code: i32) -> String {
    let before = d.requests();
    let o = convo_with(d, config, &["list", "conversations", "-q", q, "--all"]);
    assert_eq!(o.status.code(), Some(code), "{q}: {}", err(&o));
    if code == 2 {
        assert_eq!(d.requests(), before, "{q}: no request");
    }
    err(&o)
}

/// A value close to one convo knows is an error with "did you mean", before any request;
/// bounds nothing fits between too; a status far from every known one runs, said once.
#[test]
fn typos_of_known_values_exit_2_before_any_request() {
    let d = demo();
    let cfg = "store = false\n";
    for (q, says) in [
        ("status:opne", "did you mean open?"),
        ("assignee:nnoe", "did you mean none?"),
        ("due:breachng", "did you mean breaching?"),
        ("is:wating", "did you mean waiting?"),
        ("breaching", "did you mean due:breaching?"),
        (
            "age:>10 m",
            "no space between the number and its unit: age:>10m",
        ),
        ("age:>1d age:<1h", "nothing can match"),
        ("re: order", "quote it: \"re: order\""),
    ] {
        assert_has(&list_q(&d, cfg, q, 2), says);
    }
    let e = list_q(&d, cfg, "status:snoozed", 0);
    assert_eq!(
        e.matches("status \"snoozed\" is not one convo knows")
            .count(),
        1,
        "{e}"
    );
}

/// A site's name is not an agent's: the error names its kind (the config's
/// `[aliases.sites]`).
#[test]
fn a_site_named_as_an_assignee_is_refused_by_kind() {
    let d = demo();
    let site = d.s().data().sites[0];
    let agent = d.s().data().agents[0];
    let cfg = format!(
        "store = false\n[aliases.sites]\n\"{site}\" = \"Web shop\"\n\
         [aliases.agents]\n\"{agent}\" = \"Goran\"\n"
    );
    let e = list_q(&d, &cfg, "assignee:\"Web shop\"", 2);
    assert_has(
        &e,
        "\"Web shop\" is a site: expected an agent's UUID or name",
    );
    assert_has(&e, "site:\"Web shop\" lists its conversations");
    assert_has(&list_q(&d, &cfg, "site:Goran", 2), "\"Goran\" is an agent");
    list_q(&d, &cfg, "assignee:goran site:\"web shop\"", 0);
}

/// `visitor.*` with a store that has no visitors yet says so and how to fill it (exit 2,
/// no request); once filled, a key's typo is refused and a key no visitor has is said.
#[test]
fn visitor_fields_need_the_store_and_its_keys() {
    let d = demo();
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| convo_in(home.path(), &d, "", args);
    let q = |text: &str| run(&["list", "conversations", "-q", text, "--all"]);
    let before = d.requests();
    let o = q("visitor.plan:pro");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_has(&err(&o), "the local store has no visitors yet");
    assert_has(&err(&o), "convo store sync");
    assert_eq!(d.requests(), before, "no request");
    // `summary -q` says the same.
    let o = run(&["summary", "conversations", "-q", "visitor.plan:pro"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_has(&err(&o), "the local store has no visitors yet");
    let o = run(&["store", "sync"]);
    assert!(o.status.success(), "{}", err(&o));
    let o = q("visitor.pln:pro");
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_has(&err(&o), "did you mean visitor.plan:?");
    assert_has(&err(&o), "  visitor.pln:pro\n          ^^^");
    let o = q("visitor.plan:pro");
    assert!(o.status.success(), "{}", err(&o));
    assert!(!out(&o).is_empty(), "rows once the store is filled");
    let o = q("visitor.zzzzzz:1");
    assert!(o.status.success(), "{}", err(&o));
    assert_has(
        &err(&o),
        "no visitor in the local store has the attribute \"zzzzzz\"",
    );
    let o = run(&["list", "visitors", "-q", "attr.pln:pro"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_has(&err(&o), "did you mean attr.plan:?");
}

/// Names and free text fold case and accents as quick search does: `name:bjorn`, a bare
/// `bjorn` and (from the store) `visitor.name:bjorn` find "Björn"; e-mails stay exact.
#[test]
fn names_and_text_are_accent_blind() {
    let d = Demo::start(300, 120, Faults::default());
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = convo_in(home.path(), &d, "", args);
        assert!(o.status.success(), "{args:?}: {}", err(&o));
        out(&o).lines().count()
    };
    let visitors = |q: &str| run(&["list", "visitors", "-q", q, "--all", "--format", "jsonl"]);
    let named = visitors("name:björn");
    assert!(named > 0, "the demo has a Björn");
    assert_eq!(visitors("name:BJORN"), named);
    assert_eq!(visitors("bjorn"), named);
    assert!(visitors("-name:bjorn") > 0);
    run(&["store", "sync"]);
    let conv = |q: &str| {
        run(&[
            "list",
            "conversations",
            "-q",
            q,
            "--all",
            "--format",
            "jsonl",
        ])
    };
    let theirs = conv("visitor.name:björn");
    assert!(theirs > 0, "Björn has conversations");
    assert_eq!(conv("visitor.name:bjorn"), theirs);
    assert!(conv("bjorn") >= theirs);
}

/// `-q visitor:E-MAIL` nobody has exits 2, as `--visitor-email` does (docs/queries.md says they
/// are the same term); with an e-mail someone has beside it, it runs.
#[test]
fn a_visitor_e_mail_nobody_has_exits_2_in_a_query_too() {
    let d = demo();
    let cfg = "store = false\n";
    // (The e-mail is looked up first: one request, then no list request.)
    let o = convo_with(
        &d,
        cfg,
        &[
            "list",
            "conversations",
            "-q",
            "visitor:nobody@example.invalid",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_has(&err(&o), "nobody@example.invalid");
    let flag = convo_with(
        &d,
        cfg,
        &[
            "list",
            "conversations",
            "--visitor-email",
            "nobody@example.invalid",
        ],
    );
    assert_eq!(flag.status.code(), Some(2));
    let someone = d
        .s()
        .data()
        .visitors
        .iter()
        .find_map(|v| v.email.clone())
        .expect("an e-mail");
    list_q(
        &d,
        cfg,
        &format!("visitor:nobody@example.invalid,{someone}"),
        0,
    );
    list_q(&d, cfg, "-visitor:nobody@example.invalid", 0);
}

mod query_line {
    use convo::config::AliasKind;
    use convo::tui::app::App;
    use convo::tui::prompt::Prompt;
    use convo::tui::query_line::QueryLine;
    use convo::tui::testing::{FakeServer, ch, key};
    use convo::tui::update::update;
    use crossterm::event::KeyCode;
    use uuid::Uuid;

    const CAREERS: Uuid = Uuid::from_u128(0x52);
    const LIAM: Uuid = Uuid::from_u128(0xa9);

    /// Loaded rows, and two more aliases: a site no row has, a name of no known kind.
    fn loaded() -> (App, FakeServer) {
        let (mut app, server) = crate::common::app::loaded((120, 30), 300, 40);
        let mut aliases = (**app.settings().aliases()).clone();
        aliases.insert_as(CAREERS, "Careers".into(), AliasKind::Site);
        aliases.insert(LIAM, "Liam".into());
        app.settings_mut().use_aliases(aliases);
        (app, server)
    }

    fn line(app: &App) -> &QueryLine {
        match app.prompt() {
            Some(Prompt::Query(l)) => l,
            other => panic!("no query line: {other:?}"),
        }
    }

    fn typed(app: &mut App, s: &str) {
        update(app, ch(':'));
        for c in s.chars() {
            update(app, ch(c));
        }
    }

    /// Tab on `assignee:` offers agents (and names of no known kind), never a site.
    #[test]
    fn tab_on_assignee_offers_no_site() {
        let (mut app, _s) = loaded();
        typed(&mut app, "assignee:");
        update(&mut app, key(KeyCode::Tab));
        let labels: Vec<String> = line(&app)
            .completion
            .as_ref()
            .map(|c| c.candidates.iter().map(|c| c.label.clone()).collect())
            .unwrap_or_default();
        assert!(labels.contains(&"Liam".to_string()), "{labels:?}");
        assert!(!labels.contains(&"Careers".to_string()), "{labels:?}");
        update(&mut app, key(KeyCode::Esc));
        typed(&mut app, "site:");
        update(&mut app, key(KeyCode::Tab));
        let c = line(&app).completion.clone().expect("candidates");
        assert!(c.candidates.iter().any(|c| c.label == "Careers"), "{c:?}");
    }

    /// The errors `list -q` gives are the line's, with their caret; the rows stay.
    #[test]
    fn typos_are_errors_on_the_line_with_the_caret() {
        for (q, found, caret) in [
            ("status:opne", "unknown status \"opne\"", 7),
            ("assignee:Careers", "\"Careers\" is a site", 9),
            ("assignee:nnoe", "no agent named \"nnoe\"", 9),
            ("age:>1d age:<1h", "nothing can match", 8),
            ("breaching", "the word \"breaching\" alone", 0),
            // A name of no known kind is the kind the loaded rows show.
            ("assignee:\"Web shop\"", "\"Web shop\" is a site", 9),
        ] {
            let (mut app, _s) = loaded();
            typed(&mut app, q);
            update(&mut app, key(KeyCode::Enter));
            let (e, text) = line(&app).error.clone().unwrap_or_else(|| panic!("{q}"));
            assert!(e.found.contains(found), "{q}: {e}");
            assert_eq!(e.char_pos(&text), caret, "{q}");
        }
    }
}
