//! The README stays true: its key table is the default key map, and its screens are the
//! snapshot tests' screens. `UPDATE_README=1 cargo test --test readme` rewrites both blocks.

use convo::tui::keys::{Group, KeyMap};

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
    let mut readme = std::fs::read_to_string(README).unwrap();
    let wanted = [
        ("keys", key_table()),
        (
            "screen-conversations",
            screen("tui_snapshots__conversations_tab"),
        ),
        ("screen-visitors", screen("tui_snapshots__visitors_tab")),
        (
            "screen-sla",
            screen("tui_summary__summary_pane_with_a_first_response_target"),
        ),
    ];
    let update = std::env::var_os("UPDATE_README").is_some();
    for (name, want) in &wanted {
        let (s, e, have) = block(&readme, name).unwrap_or_else(|| panic!("README lacks {name}"));
        if have != want {
            if update {
                readme.replace_range(s..e, want);
            } else {
                panic!(
                    "README block {name} is out of date; run UPDATE_README=1 cargo test --test readme\n{want}"
                );
            }
        }
    }
    if update {
        std::fs::write(README, readme).unwrap();
    }
}
