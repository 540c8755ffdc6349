//! Saving a view from the browser (`w`): a `[[views]]` table (`name`, `tab`, `query`) written
//! into the config file in use with `toml_edit`, so that everything else in the file stays as
//! it was, byte for byte: comments, order, blank lines, other tables. With a profile in use
//! the view goes into that profile (`[[profiles.NAME.views]]`), whose names and `agent_id` it
//! was made with. A file that does not exist is created (0600: config files hold keys).
//!
//! Never a half-written file: the new text is checked to be a config convo reads, written
//! next to the file and renamed over it (a symlink's target is what is replaced); a broken or
//! read-only file is an error that says so and changes nothing.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, value};

use convo_api::Resource;

/// The view to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewView {
    pub name: String,
    pub tab: Resource,
    /// The query's canonical text.
    pub query: String,
}

/// Why the view was not written. The file is then as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    /// A view of that name is there already and replacing it was not asked for.
    #[error("a view named {0:?} is in the file already")]
    Exists(String),
    /// The file is not TOML convo can read (no key values are quoted).
    #[error(
        "{path} is not valid TOML (line {line}, column {column}: {message}); fix it first, nothing was written"
    )]
    Broken {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// `views` (or the profile) is written in a form this cannot add a table to.
    #[error("{path}: {what}; add the view by hand, nothing was written")]
    Shape { path: String, what: String },
    /// Reading or writing failed (read-only file or directory, full disk…).
    #[error("cannot write {path}: {reason}; nothing was written")]
    Io { path: String, reason: String },
}

/// What [`save`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    /// The file written (a symlink's target).
    pub path: PathBuf,
    /// It did not exist before.
    pub created: bool,
    /// An existing view of that name was replaced.
    pub replaced: bool,
}

/// The first line of a file created to hold a view.
const CREATED_HEADER: &str = "# convo's config file, created to keep a view saved in the browser.\n# Your service's settings (base_url, the key) go here too: see config.example.toml;\n# `convo doctor` checks the file.\n";

/// Whether `text` (a config file) has a view named `name` (case aside) where [`add`] would
/// write (`profile`'s views, or the top level's).
pub fn has_view(text: &str, name: &str, profile: Option<&str>) -> bool {
    let Ok(doc) = text.parse::<DocumentMut>() else {
        return false;
    };
    views_of(doc.as_table(), profile)
        .and_then(Item::as_array_of_tables)
        .is_some_and(|a| a.iter().any(|t| same_name(t, name)))
}

fn views_of<'a>(root: &'a Table, profile: Option<&str>) -> Option<&'a Item> {
    match profile {
        None => root.get("views"),
        Some(p) => root
            .get("profiles")?
            .as_table()?
            .get(p)?
            .as_table()?
            .get("views"),
    }
}

fn same_name(t: &Table, name: &str) -> bool {
    t.get("name")
        .and_then(Item::as_str)
        .is_some_and(|n| n.trim().eq_ignore_ascii_case(name.trim()))
}

/// The keys a view's filters are written with: a replaced view's are dropped (its query says
/// it all); the others (`notify`, comments) are kept.
const FILTER_KEYS: &[&str] = &[
    "tab",
    "status",
    "assignee",
    "site_id",
    "visitor_id",
    "email",
    "external_id",
    "query",
];

/// `text` with the view added (or, with `replace`, put in place of the one of that name).
/// `path` only names the file in errors.
pub fn add(
    text: &str,
    view: &NewView,
    profile: Option<&str>,
    replace: bool,
    path: &str,
) -> Result<String, SaveError> {
    let mut doc = text.parse::<DocumentMut>().map_err(|e| {
        let (line, column) = e
            .span()
            .map_or((1, 1), |s| super::text::line_col(text, s.start));
        SaveError::Broken {
            path: path.to_string(),
            line,
            column,
            message: e.message().trim().to_string(),
        }
    })?;
    let shape = |what: String| SaveError::Shape {
        path: path.to_string(),
        what,
    };
    let root = doc.as_table_mut();
    let parent: &mut Table = match profile {
        None => root,
        Some(p) => {
            let profiles = root
                .entry("profiles")
                .or_insert_with(|| {
                    let mut t = Table::new();
                    t.set_implicit(true);
                    Item::Table(t)
                })
                .as_table_mut()
                .ok_or_else(|| shape("profiles is not a table".into()))?;
            profiles
                .entry(p)
                .or_insert_with(|| Item::Table(Table::new()))
                .as_table_mut()
                .ok_or_else(|| shape(format!("profiles.{p} is not a table")))?
        }
    };
    let views = parent
        .entry("views")
        .or_insert_with(|| Item::ArrayOfTables(Default::default()))
        .as_array_of_tables_mut()
        .ok_or_else(|| shape("views is not written as [[views]] tables".into()))?;
    let tab = match view.tab {
        Resource::Conversations => "conversations",
        Resource::Visitors => "visitors",
    };
    if let Some(old) = views.iter_mut().find(|t| same_name(t, &view.name)) {
        if !replace {
            return Err(SaveError::Exists(view.name.clone()));
        }
        for k in FILTER_KEYS {
            old.remove(k);
        }
        old.insert("tab", value(tab));
        old.insert("query", value(view.query.as_str()));
    } else {
        let mut t = Table::new();
        t.insert("name", value(view.name.as_str()));
        t.insert("tab", value(tab));
        t.insert("query", value(view.query.as_str()));
        // A blank line before it, unless it opens an empty file.
        if !text.trim().is_empty() {
            t.decor_mut().set_prefix("\n");
        }
        views.push(t);
    }
    let mut out = doc.to_string();
    // The file's last line ended, the new table follows it on a line of its own.
    if !text.is_empty() && !text.ends_with('\n') && out.starts_with(text) {
        out.insert(text.len(), '\n');
    }
    Ok(out)
}

/// Writes the view into the file at `path` (created when missing); see [`add`].
pub fn save(
    path: &Path,
    view: &NewView,
    profile: Option<&str>,
    replace: bool,
) -> Result<Saved, SaveError> {
    let io = |p: &Path, e: std::io::Error| SaveError::Io {
        path: p.display().to_string(),
        reason: e.to_string(),
    };
    // A symlink (dotfiles kept elsewhere): its target is the file.
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let shown = target.display().to_string();
    let (text, created) = match std::fs::read(&target) {
        Ok(bytes) => (
            String::from_utf8(bytes).map_err(|_| SaveError::Broken {
                path: shown.clone(),
                line: 1,
                column: 1,
                message: "not UTF-8".into(),
            })?,
            false,
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (String::new(), true),
        Err(e) => return Err(io(&target, e)),
    };
    let replaced = replace && has_view(&text, &view.name, profile);
    let mut out = add(&text, view, profile, replace, &shown)?;
    if created {
        out = format!("{CREATED_HEADER}\n{out}");
    }
    // What convo could not read back is not written.
    super::file::parse_file(&out, &shown).map_err(|e| SaveError::Shape {
        path: shown.clone(),
        what: format!("the file would not be read back ({e})"),
    })?;
    let meta = std::fs::metadata(&target).ok();
    if meta.as_ref().is_some_and(|m| m.permissions().readonly()) {
        return Err(SaveError::Io {
            path: shown,
            reason: "the file is read-only".into(),
        });
    }
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if created {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir).map_err(|e| io(dir, e))?;
    }
    let name = target.file_name().map_or_else(
        || "config.toml".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let tmp = dir.join(format!(".{name}.convo-{}.tmp", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
        let mut f = o.open(&tmp)?;
        std::io::Write::write_all(&mut f, out.as_bytes())?;
        f.sync_all()?;
        if let Some(m) = &meta {
            std::fs::set_permissions(&tmp, m.permissions())?;
        }
        std::fs::rename(&tmp, &target)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(&target, e)
    })?;
    Ok(Saved {
        path: target,
        created,
        replaced,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"# my convo config
base_url = "https://api.example.com"   # the service
api_key = "sk_live_secret"

[aliases]
# sites
"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90" = "Web shop"

[[views]]
name = "Mine"   # my queue
query = "assignee:me -status:closed"

[sla]
first_response = "5m"
"#;

    fn view(name: &str, query: &str) -> NewView {
        NewView {
            name: name.into(),
            tab: Resource::Conversations,
            query: query.into(),
        }
    }

    /// The new table is the only change: everything before it byte for byte, the tables
    /// after the views (`[sla]`) too, and the file reads back with both views.
    #[test]
    fn a_new_view_keeps_the_rest_of_the_file_byte_for_byte() {
        let out = add(
            FILE,
            &view("Waiting", "is:waiting site:\"Web shop\""),
            None,
            false,
            "c.toml",
        )
        .unwrap();
        let added = "\n[[views]]\nname = \"Waiting\"\ntab = \"conversations\"\nquery = 'is:waiting site:\"Web shop\"'\n";
        let at = out
            .find(added)
            .unwrap_or_else(|| panic!("no new table in:\n{out}"));
        assert_eq!(format!("{}{}", &out[..at], &out[at + added.len()..]), FILE);
        let f = crate::file::parse_file(&out, "c.toml").unwrap();
        assert_eq!(f.views.len(), 2);
    }

    #[test]
    fn an_existing_name_is_refused_unless_replaced_and_replacing_keeps_its_comments() {
        assert_eq!(
            add(FILE, &view("mine", "status:open"), None, false, "c.toml"),
            Err(SaveError::Exists("mine".into()))
        );
        assert!(has_view(FILE, "MINE", None));
        let out = add(FILE, &view("mine", "status:open"), None, true, "c.toml").unwrap();
        assert!(out.contains("name = \"Mine\"   # my queue\n"), "{out}");
        assert!(out.contains("query = \"status:open\""), "{out}");
        assert!(!out.contains("assignee:me"), "{out}");
        assert!(out.starts_with(
            "# my convo config\nbase_url = \"https://api.example.com\"   # the service\n"
        ));
        assert!(out.ends_with("[sla]\nfirst_response = \"5m\"\n"), "{out}");
    }

    #[test]
    fn a_profile_gets_its_own_views_and_broken_files_are_refused() {
        let out = add(
            FILE,
            &view("EU", "status:open"),
            Some("eu"),
            false,
            "c.toml",
        )
        .unwrap();
        let f = crate::file::parse_file(&out, "c.toml").unwrap();
        assert_eq!(f.profiles["eu"].views.len(), 1);
        assert!(out.starts_with(FILE.trim_end()), "{out}");
        let broken = "base_url = \"https://x\"\napi_key = \"sk_live_secret\" = 3\n";
        match add(broken, &view("x", "status:open"), None, false, "c.toml") {
            Err(e @ SaveError::Broken { line: 2, .. }) => {
                assert!(!e.to_string().contains("sk_live_secret"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn save_creates_a_missing_file_and_leaves_a_read_only_one_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("convo").join("config.toml");
        let s = save(&p, &view("Open", "status:open"), None, false).unwrap();
        assert!(s.created);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("# convo's config file"), "{text}");
        assert!(has_view(&text, "open", None));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o600
            );
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o400)).unwrap();
            let e = save(&p, &view("Two", "status:closed"), None, false).unwrap_err();
            assert!(e.to_string().contains("read-only"), "{e}");
            assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
        }
    }
}
