//! The documents stay true to the repository and the code: every document a file cites is in the
//! repository, and the tables the docs print are the code's own tables.

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
            if !resolves(&cited, file, &tracked) {
                missing.push(format!("{file} cites {cited}"));
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
