//! The documents stay true to the repository and the code: every document a file cites is in the
//! repository, and the tables the docs print are the code's own tables.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The files git tracks, or `None` (said on stderr) outside a git checkout.
fn tracked_files() -> Option<Vec<String>> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(ROOT)
        .output();
    match out {
        Ok(o) if o.status.success() => Some(
            String::from_utf8_lossy(&o.stdout)
                .split('\0')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        ),
        _ => {
            eprintln!("skipped: not a git checkout (or no git), so no list of tracked files");
            None
        }
    }
}

/// Every document a text names: the run of path characters that ends in `.md`, with no name
/// character after it.
fn cited_documents(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let path_char = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/');
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(".md") {
        let end = from + i + 3;
        from = end;
        if end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
            continue;
        }
        let mut start = end - 3;
        while start > 0 && path_char(bytes[start - 1]) {
            start -= 1;
        }
        if start > 0 && bytes[start - 1] == b':' {
            continue; // a URL: not a file of the repository
        }
        let cited = text[start..end].to_owned();
        if cited.len() > 3 && !cited.starts_with(".md") {
            out.push(cited);
        }
    }
    out
}

/// Whether `cited`, named in the tracked file `from`, is a document of the repository: a path
/// from the file's folder or from the root, or, for a bare name or an install path such as
/// `/usr/share/doc/convo/README.md`, a tracked file of that name.
fn resolves(cited: &str, from: &str, tracked: &[String]) -> bool {
    let root = Path::new(ROOT);
    let dir = Path::new(from).parent().unwrap_or(Path::new(""));
    let inside = |p: PathBuf| -> bool {
        let Ok(real) = root.join(&p).canonicalize() else {
            return false;
        };
        let Ok(root) = root.canonicalize() else {
            return false;
        };
        real.starts_with(&root) && real.is_file()
    };
    let by_name = || {
        let base = cited.rsplit('/').next().unwrap_or(cited);
        tracked.iter().any(|t| t.rsplit('/').next() == Some(base))
    };
    if !cited.contains('/') {
        return inside(dir.join(cited)) || by_name();
    }
    if cited.contains("share/doc/convo/") {
        return by_name(); // where the Debian package installs a document of the repository
    }
    inside(dir.join(cited)) || inside(PathBuf::from(cited.trim_start_matches('/')))
}

#[test]
fn every_cited_document_is_in_the_repository() {
    let Some(tracked) = tracked_files() else {
        return;
    };
    let mut missing = Vec::new();
    for file in &tracked {
        let Ok(text) = std::fs::read_to_string(Path::new(ROOT).join(file)) else {
            continue; // binary, or removed from the work tree
        };
        for cited in cited_documents(&text) {
            let line = format!("{file} cites {cited}");
            if !resolves(&cited, file, &tracked) && !missing.contains(&line) {
                missing.push(line);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "documents cited but not in the repository:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn the_citation_finder_finds_paths_and_names() {
    // Built from parts, so that this file cites none of them itself.
    let md = ".md";
    let text = format!(
        "see docs/design{md} \"Data\", [x](../README{md}), `decisions{md}`; not foo{md}x \
         nor {md} alone; https://example.com/a/b{md}"
    );
    assert_eq!(
        cited_documents(&text),
        [
            format!("docs/design{md}"),
            format!("../README{md}"),
            format!("decisions{md}")
        ]
    );
}

/// The text between `<!-- NAME:start -->` and `<!-- NAME:end -->` in `text`, with its range.
fn block<'a>(text: &'a str, name: &str) -> Option<(usize, usize, &'a str)> {
    let start_tag = format!("<!-- {name}:start -->");
    let end_tag = format!("<!-- {name}:end -->");
    let s = text.find(&start_tag)? + start_tag.len();
    let e = text[s..].find(&end_tag)? + s;
    Some((s, e, &text[s..e]))
}

/// Checks that each named block of the file `path` (from the root) is `want`; with
/// `UPDATE_DOCS` set, rewrites the blocks that differ instead.
fn assert_blocks(path: &str, blocks: &[(&str, String)]) {
    let file = Path::new(ROOT).join(path);
    let mut text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{path}: {e}"));
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    for (name, want) in blocks {
        let (s, e, have) = block(&text, name).unwrap_or_else(|| panic!("{path} lacks {name}"));
        if have != want {
            assert!(
                update,
                "{path}: block {name} differs from the code's table; run UPDATE_DOCS=1 cargo \
                 test --test docs\nwanted:{want}\nfound:{have}"
            );
            text.replace_range(s..e, want);
        }
    }
    if update {
        std::fs::write(&file, text).unwrap();
    }
}

fn cell(s: &str) -> String {
    if s.is_empty() {
        "".into()
    } else {
        s.replace('|', "\\|")
    }
}

/// docs/configuration.md's table of keys, from `convo::config::settings::SETTINGS`.
fn settings_table() -> String {
    let mut t = String::from(
        "\n| key | default | environment | flag | what it does |\n|---|---|---|---|---|\n",
    );
    for s in convo::config::settings::SETTINGS {
        let env = s
            .env
            .split(", ")
            .filter(|e| !e.is_empty())
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let flag = if s.flag.starts_with('-') {
            format!("`{}`", s.flag)
        } else {
            s.flag.to_string()
        };
        t.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            s.key,
            cell(&code_default(s.default)),
            cell(&env),
            cell(&flag),
            cell(s.what)
        ));
    }
    t
}

/// A default as the page shows it: a value in code type, a remark as it is.
fn code_default(d: &str) -> String {
    if d.starts_with('(') {
        d.to_string()
    } else {
        format!("`{d}`")
    }
}

#[test]
fn the_configuration_page_is_the_code_table_of_keys() {
    assert_blocks("docs/configuration.md", &[("settings", settings_table())]);
}

/// The defaults the table states are the ones the config resolves to when a file sets only
/// the base URL and the key.
#[test]
fn the_table_defaults_are_what_an_empty_config_resolves_to() {
    use convo::config::{Config, Overrides};
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("config.toml");
    std::fs::write(
        &path,
        "base_url = \"https://api.example.com\"\napi_key = \"sk_test_0123456789\"\n",
    )
    .unwrap();
    let c = Config::load(&Overrides {
        config_path: Some(path),
        ..Overrides::default()
    })
    .expect("a file with a URL and a key loads");
    let secs = |d: std::time::Duration| d.as_secs().to_string();
    let resolved: Vec<(&str, String)> = vec![
        ("auth_header", format!("{:?}", c.auth_header)),
        ("auth_scheme", format!("{:?}", c.auth_scheme)),
        ("page_size", c.page_size.get().to_string()),
        ("request_timeout_secs", secs(c.request_timeout)),
        ("connect_timeout_secs", secs(c.connect_timeout)),
        ("max_parallel", c.max_parallel.to_string()),
        ("allow_insecure_http", c.allow_insecure_http.to_string()),
        (
            "refresh_max_pages",
            c.ui.refresh_max_pages
                .unwrap_or(convo::tui::app::DEFAULT_REFRESH_MAX_PAGES)
                .to_string(),
        ),
        (
            "exporter_interval",
            format!(
                "\"{}s\"",
                c.exporter_interval_secs
                    .unwrap_or(convo::exporter::DEFAULT_INTERVAL_SECS)
            ),
        ),
        ("store", c.store.enabled.to_string()),
        ("visitor_sync", c.store.visitor_sync.to_string()),
        ("visitor_sync_rps", c.store.visitor_sync_rps.to_string()),
        (
            "visitor_rewalk",
            format!("\"{}d\"", c.store.visitor_rewalk_secs / 86_400),
        ),
        (
            "stale_after",
            format!(
                "\"{}h\"",
                c.ui.stale_after_secs
                    .unwrap_or(convo::config::ui::DEFAULT_STALE_AFTER_SECS)
                    / 3600
            ),
        ),
        ("mouse", c.ui.mouse.to_string()),
        ("max_streams", c.query.max_streams.to_string()),
        ("scan_max_pages", c.query.scan_max_pages.to_string()),
        ("sla.warn_at", convo::sla::DEFAULT_WARN_AT.to_string()),
    ];
    for (key, value) in resolved {
        let s = convo::config::settings::SETTINGS
            .iter()
            .find(|s| s.key == key)
            .unwrap_or_else(|| panic!("{key} is not in the table"));
        assert_eq!(s.default, value, "the default of {key}");
    }
}

/// `config.example.toml` shows every top-level key of the table (set, or commented out) and
/// every table, and sets no key the table lacks.
#[test]
fn the_example_config_shows_every_key_of_the_table() {
    let example = std::fs::read_to_string(Path::new(ROOT).join("config.example.toml")).unwrap();
    let settings = convo::config::settings::SETTINGS;
    for s in settings {
        let (top, rest) = match s.key.split_once(['.', '[']) {
            Some((t, r)) => (t, Some(r)),
            None => (s.key, None),
        };
        let shown = match rest {
            None if top != "profiles" && top != "aliases" && top != "keys" => example
                .lines()
                .any(|l| l.trim_start_matches("# ").starts_with(&format!("{top} = "))),
            _ => example.contains(&format!("[{top}")) || example.contains(&format!("[[{top}")),
        };
        assert!(shown, "config.example.toml does not show {}", s.key);
    }
    let mut table = "";
    for line in example.lines() {
        if line.starts_with('[') {
            table = line;
        }
        let line = line.trim_start_matches("# ");
        let Some((key, _)) = line.split_once(" = ") else {
            continue;
        };
        if table == "[keys]" {
            continue; // action names: see the_example_config_names_every_action
        }
        let known = settings
            .iter()
            .any(|s| s.key.rsplit(['.', ']']).next() == Some(key));
        let quoted = key.starts_with('"');
        assert!(
            known || quoted || key.contains(' ') || key.starts_with('#'),
            "config.example.toml sets {key}, which the table does not name"
        );
    }
}

/// `text` as `# ` comment lines of at most 99 columns.
fn comment(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::from("#");
    for word in text.split(' ') {
        if line.len() + 1 + word.len() > 99 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The comment paragraph of config.example.toml that starts with `first` is `want`; with
/// `UPDATE_DOCS` set, it is rewritten (the paragraph: `first`'s line up to the next line that
/// is not a comment, or one that starts another paragraph with `# ` and a capital after a
/// full stop).
fn assert_example_paragraph(first: &str, want: &str) {
    let path = Path::new(ROOT).join("config.example.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text
        .find(&format!("# {first}"))
        .unwrap_or_else(|| panic!("config.example.toml has no paragraph '# {first}'"));
    let len = text[start..]
        .split_inclusive('\n')
        .take_while(|l| l.starts_with('#'))
        .take(want.lines().count())
        .map(str::len)
        .sum::<usize>();
    let have = &text[start..start + len];
    if have != want {
        assert!(
            std::env::var_os("UPDATE_DOCS").is_some(),
            "config.example.toml disagrees with the code's table; run UPDATE_DOCS=1 cargo test \
             --test docs\nwanted:\n{want}found:\n{have}"
        );
        let mut text = text.clone();
        text.replace_range(start..start + len, want);
        std::fs::write(&path, text).unwrap();
    }
}

#[test]
fn the_example_config_names_every_action() {
    use convo::tui::keys::Action;
    let names: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
    assert_example_paragraph(
        "Actions:",
        &comment(&format!(
            "Actions: {}. `?` in the TUI shows the bindings in effect.",
            names.join(" ")
        )),
    );
}

#[test]
fn the_example_config_names_every_column() {
    use convo::api::Resource;
    use convo::tui::columns::{Column, Columns};
    let of = |tab: Resource| -> String {
        let shown = Columns::default();
        Column::ALL
            .iter()
            .filter(|c| Column::parse(tab, c.key()) == Some(**c))
            .map(|c| {
                if shown.of(tab).contains(c) {
                    c.key().to_string()
                } else {
                    format!("({})", c.key())
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_example_paragraph(
        "Columns",
        &comment(&format!(
            "Columns and their order per tab; in parentheses those not shown by default (due \
             and resolution show when their [sla] target is set). Conversations: {}. \
             Visitors: {}.",
            of(Resource::Conversations),
            of(Resource::Visitors)
        )),
    );
}

#[test]
fn the_example_config_names_every_built_in_view() {
    use convo::config::builtin_views::{MY_OPEN_VIEW, builtin_views, needs_missing_target};
    let none = convo::sla::Sla::default();
    let views: Vec<String> = builtin_views(Some(uuid::Uuid::nil()))
        .iter()
        .map(|v| {
            let when = if needs_missing_target(v, &none) {
                " (when [sla] first_response is set)"
            } else if v.name == MY_OPEN_VIEW {
                " (when agent_id is set)"
            } else {
                ""
            };
            format!("\"{}\"{when}", v.name)
        })
        .collect();
    assert_example_paragraph(
        "Built-in views",
        &comment(&format!(
            "Built-in views, before these: {}.",
            views.join(", ")
        )),
    );
}

/// `convo doctor` against the demo prints a line for every check of its table, and its help
/// names them all.
#[test]
fn the_doctor_runs_every_check_its_table_names() {
    let (demo, home) = common::demo_and_home(50, 20);
    let config = common::file(
        home.path(),
        "config.toml",
        format!(
            "base_url = \"{}\"\napi_key = \"{}\"\n",
            demo.url(),
            demo.key()
        ),
    );
    // Readable by others, so the permissions check speaks.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let out = common::convo_cmd(home.path())
        .args(["--config", config.to_str().unwrap(), "doctor"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for (name, shows, _) in convo::setup::CHECKS {
        if *name == "permissions" && !cfg!(unix) {
            continue;
        }
        assert!(
            text.contains(shows),
            "convo doctor printed no line for its check {name} (looked for {shows:?}):\n{text}"
        );
    }
    let help = common::convo_cmd(home.path())
        .args(["doctor", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for (name, _, _) in convo::setup::CHECKS {
        common::assert_has(&help, &name.replace('`', ""));
    }
}

/// docs/configuration.md's table of the doctor's checks.
#[test]
fn the_doctor_table_is_the_doctor_s_checks() {
    let mut t = String::from("\n| check | what it says, and what a failure means |\n|---|---|\n");
    for (name, _, what) in convo::setup::CHECKS {
        t.push_str(&format!("| {name} | {} |\n", cell(what)));
    }
    assert_blocks("docs/configuration.md", &[("doctor", t)]);
}

/// docs/scripting.md's sample of `convo summary --views` is a real run against the demo: the
/// built-in views, then the config's.
#[test]
fn the_summary_views_sample_is_a_real_run() {
    let demo = common::Demo::start_at(5000, 1500, convo::tui::testing::now());
    let home = tempfile::tempdir().unwrap();
    let me = convo::demo::me(demo.data()).expect("the demo has an agent with open conversations");
    let config = common::file(
        home.path(),
        "config.toml",
        format!(
            "base_url = \"{}\"\nagent_id = \"{me}\"\n[sla]\nfirst_response = \"5m\"\n\
             [[views]]\nname = \"Pending\"\nstatus = \"pending\"\n[[views]]\n\
             name = \"Mine or nobody's, open\"\nquery = \"assignee:me,none status:open\"\n",
            demo.url()
        ),
    );
    let out = common::convo_cmd(home.path())
        .env("CONVO_API_KEY", demo.key())
        .env("CONVO_NOW", convo::tui::testing::NOW)
        .env("TZ", "UTC")
        .args(["--config", config.to_str().unwrap(), "summary", "--views"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for view in convo::config::builtin_views::builtin_views(Some(uuid::Uuid::nil())) {
        common::assert_has(&text, &view.name);
    }
    let sample = format!("\n```text\n$ convo summary --views\n{text}```\n");
    assert_blocks("docs/scripting.md", &[("summary-views", sample)]);
}

/// The help texts that name the built-in views name every one of them.
#[test]
fn the_help_texts_name_every_built_in_view() {
    let home = tempfile::tempdir().unwrap();
    for args in [&["--help"][..], &["summary", "--help"][..]] {
        let out = common::convo_cmd(home.path()).args(args).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        for view in convo::config::builtin_views::builtin_views(Some(uuid::Uuid::nil())) {
            assert!(
                help.contains(&format!("\"{}\"", view.name)),
                "convo {} does not name the built-in view {:?}:\n{help}",
                args.join(" "),
                view.name
            );
        }
    }
}
