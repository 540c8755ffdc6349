//! `[[commands]]`: the user's own commands on a row (issue 41; docs/commands.md).
//!
//! Each command is a program and its arguments as a list, never a shell string: the program is
//! exec'd with an argv, and a placeholder (`{email}`, `{attr.plan}`, …) is replaced by the
//! row's value inside the one argument that holds it, as text. So a value from the service
//! (a name holding `$(touch x)`, quotes, `;` or a line break) reaches the program as the text
//! of one argument, and can never become code. The same values go in environment variables
//! (`CONVO_ID`, `CONVO_EMAIL`, …).
//!
//! Parsed and checked here (names, placeholders, `tabs`, `output`, `for_marked`); the key is
//! checked by the TUI against its key map (`tui::keys::KeyMap::command_keys`), as `[keys]` is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use convo_api::Resource;

/// One `[[commands]]` entry as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileCommand {
    name: String,
    key: Option<String>,
    tabs: Option<TabsValue>,
    program: String,
    #[serde(default)]
    args: Vec<String>,
    output: Option<String>,
    confirm: Option<bool>,
    for_marked: Option<String>,
}

/// `tabs = "conversations"`, `"visitors"`, `"both"` or a list of tab names.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum TabsValue {
    One(String),
    Many(Vec<String>),
}

/// Where a command's output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// `terminal`: convo gives the program the terminal (as Ctrl-Z does) and takes it back
    /// when it ends.
    Terminal,
    /// `pane`: stdout and stderr are read (sanitised) into a scrollable pane in convo.
    Pane,
    /// `none` (the default): the program runs on its own; the message line says its exit status.
    #[default]
    None,
}

impl Output {
    pub fn name(self) -> &'static str {
        match self {
            Output::Terminal => "terminal",
            Output::Pane => "pane",
            Output::None => "none",
        }
    }
}

/// How a command runs on marked rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ForMarked {
    /// `each` (the default): once per marked row, one after the other.
    #[default]
    Each,
    /// `all`: once for all marked rows; an argument holding a row placeholder is repeated
    /// per row, in the order the rows were marked.
    All,
}

/// A field of a row that a placeholder names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    /// The row's UUID (a conversation's or a visitor's).
    Id,
    /// `conversations` or `visitors`.
    Tab,
    Status,
    /// The site's UUID.
    Site,
    /// The assignee's UUID (empty when unassigned).
    Assignee,
    VisitorId,
    Email,
    Name,
    ExternalId,
    /// `{attr.KEY}`: one of the visitor's attributes (text as is; other JSON as JSON).
    Attr(String),
    /// The tab's query, as the chips show it.
    Query,
}

/// Every placeholder name, for errors and docs (`attr.KEY` besides).
pub const PLACEHOLDERS: &[&str] = &[
    "id",
    "tab",
    "status",
    "site",
    "assignee",
    "visitor_id",
    "email",
    "name",
    "external_id",
    "query",
];

impl Field {
    fn parse(name: &str) -> Option<Field> {
        Some(match name {
            "id" => Field::Id,
            "tab" => Field::Tab,
            "status" => Field::Status,
            "site" => Field::Site,
            "assignee" => Field::Assignee,
            "visitor_id" => Field::VisitorId,
            "email" => Field::Email,
            "name" => Field::Name,
            "external_id" => Field::ExternalId,
            "query" => Field::Query,
            a => Field::Attr(
                a.strip_prefix("attr.")
                    .filter(|k| !k.is_empty())?
                    .to_string(),
            ),
        })
    }

    /// Whether the value differs from row to row (`tab` and `query` do not).
    fn of_row(&self) -> bool {
        !matches!(self, Field::Tab | Field::Query)
    }
}

/// One piece of an argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Field(Field),
}

/// An argument as written: text and placeholders (`{{` and `}}` are literal braces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(pub Vec<Piece>);

impl Template {
    /// Reads `{field}` placeholders; `Err` names what is wrong.
    pub fn parse(s: &str) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    text.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    text.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => name.push(c),
                            None => {
                                return Err(format!(
                                    "{:?} opens a placeholder with {{ and never closes it (write {{{{ for a brace)",
                                    convo_text::one_line(s, 60)
                                ));
                            }
                        }
                    }
                    let field = Field::parse(name.trim()).ok_or_else(|| {
                        format!(
                            "{{{}}} is not a placeholder; placeholders: {}, attr.KEY",
                            convo_text::one_line(&name, 40),
                            PLACEHOLDERS
                                .iter()
                                .map(|p| format!("{{{p}}}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })?;
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Field(field));
                }
                '}' => {
                    return Err(format!(
                        "{:?} has a lone }} (write }}}} for a brace)",
                        convo_text::one_line(s, 60)
                    ));
                }
                c => text.push(c),
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Ok(Template(pieces))
    }

    /// Whether the argument holds a field that differs from row to row.
    pub fn of_row(&self) -> bool {
        self.0
            .iter()
            .any(|p| matches!(p, Piece::Field(f) if f.of_row()))
    }

    /// The argument for `row`: each placeholder replaced by its value as text, in place. The
    /// result is one argument whatever the values hold.
    pub fn expand(&self, row: &RowFields) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Field(f) => out.push_str(&row.get(f)),
            }
        }
        out
    }
}

/// A checked `[[commands]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserCommand {
    /// Shown in `?`, the menu of commands, the confirmation and the messages.
    pub name: String,
    /// The key as written (`None`: only in the menu); checked against the key map by the TUI.
    pub key: Option<String>,
    /// The tabs it runs on.
    pub conversations: bool,
    pub visitors: bool,
    /// The program: a name looked up on PATH, or a path (`~` expanded).
    pub program: String,
    pub args: Vec<Template>,
    pub output: Output,
    /// Ask y/n first, naming the command and the row count.
    pub confirm: bool,
    pub for_marked: ForMarked,
}

impl UserCommand {
    /// Whether the command runs on `tab`.
    pub fn on(&self, tab: Resource) -> bool {
        match tab {
            Resource::Conversations => self.conversations,
            Resource::Visitors => self.visitors,
        }
    }

    /// What to run for `rows` (at least one): one invocation per row, or one for all of them
    /// with `for_marked = "all"` (an argument holding a row placeholder once per row).
    pub fn invocations(&self, rows: &[RowFields]) -> Vec<Invocation> {
        match self.for_marked {
            ForMarked::All if rows.len() > 1 => {
                let mut args = Vec::new();
                for a in &self.args {
                    if a.of_row() {
                        args.extend(rows.iter().map(|r| clean(a.expand(r))));
                    } else {
                        args.push(clean(a.expand(&rows[0])));
                    }
                }
                let mut env = vec![
                    ("CONVO_TAB".to_string(), rows[0].tab.clone()),
                    ("CONVO_QUERY".to_string(), clean(rows[0].query.clone())),
                    ("CONVO_COUNT".to_string(), rows.len().to_string()),
                ];
                env.push((
                    "CONVO_IDS".to_string(),
                    rows.iter()
                        .map(|r| r.id.clone())
                        .collect::<Vec<_>>()
                        .join("\n"),
                ));
                vec![Invocation {
                    program: self.program.clone(),
                    args,
                    env,
                }]
            }
            _ => rows
                .iter()
                .map(|r| Invocation {
                    program: self.program.clone(),
                    args: self.args.iter().map(|a| clean(a.expand(r))).collect(),
                    env: r.env(),
                })
                .collect(),
        }
    }
}

/// A NUL cannot be in an argument or a variable (exec would refuse the whole command): it
/// becomes U+FFFD, the rest stays as it was.
fn clean(s: String) -> String {
    if s.contains('\0') {
        s.replace('\0', "\u{FFFD}")
    } else {
        s
    }
}

/// One run of a program: its argv (after the program) and the variables added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// A row's fields as the placeholders and variables see them (empty when not known).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowFields {
    pub id: String,
    pub tab: String,
    pub status: String,
    pub site: String,
    pub assignee: String,
    pub visitor_id: String,
    pub email: String,
    pub name: String,
    pub external_id: String,
    /// The visitor's attributes (a JSON object, or `Null` when not known).
    pub attributes: serde_json::Value,
    pub query: String,
}

impl RowFields {
    /// The value of `f` as text.
    pub fn get(&self, f: &Field) -> String {
        match f {
            Field::Id => self.id.clone(),
            Field::Tab => self.tab.clone(),
            Field::Status => self.status.clone(),
            Field::Site => self.site.clone(),
            Field::Assignee => self.assignee.clone(),
            Field::VisitorId => self.visitor_id.clone(),
            Field::Email => self.email.clone(),
            Field::Name => self.name.clone(),
            Field::ExternalId => self.external_id.clone(),
            Field::Query => self.query.clone(),
            Field::Attr(k) => match self.attributes.get(k) {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
            },
        }
    }

    /// The variables of one row: `CONVO_ID`, `CONVO_TAB`, `CONVO_STATUS`, `CONVO_SITE`,
    /// `CONVO_ASSIGNEE`, `CONVO_VISITOR_ID`, `CONVO_EMAIL`, `CONVO_NAME`,
    /// `CONVO_EXTERNAL_ID`, `CONVO_QUERY`, `CONVO_ATTRIBUTES` (JSON) and `CONVO_ATTR_KEY` for
    /// each attribute whose key is letters, digits and `_` (upper-cased).
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = [
            ("CONVO_ID", &self.id),
            ("CONVO_TAB", &self.tab),
            ("CONVO_STATUS", &self.status),
            ("CONVO_SITE", &self.site),
            ("CONVO_ASSIGNEE", &self.assignee),
            ("CONVO_VISITOR_ID", &self.visitor_id),
            ("CONVO_EMAIL", &self.email),
            ("CONVO_NAME", &self.name),
            ("CONVO_EXTERNAL_ID", &self.external_id),
            ("CONVO_QUERY", &self.query),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), clean(v.clone())))
        .collect();
        if let serde_json::Value::Object(m) = &self.attributes {
            env.push((
                "CONVO_ATTRIBUTES".into(),
                clean(self.attributes.to_string()),
            ));
            for k in m.keys() {
                if !k.is_empty()
                    && k.len() <= 64
                    && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    env.push((
                        format!("CONVO_ATTR_{}", k.to_ascii_uppercase()),
                        clean(self.get(&Field::Attr(k.clone()))),
                    ));
                }
            }
        }
        env
    }
}

/// Checks the `[[commands]]` entries; `Err((key, message))` names the command and the key
/// (`commands["CRM"].args`, or `commands[2].name` for one without a name).
pub(crate) fn check(file: Vec<FileCommand>) -> Result<Vec<UserCommand>, (String, String)> {
    let mut out: Vec<UserCommand> = Vec::new();
    for (i, c) in file.into_iter().enumerate() {
        let name = c.name.trim().to_string();
        if name.is_empty() || !convo_text::is_clean(&name) || name.chars().count() > 60 {
            return Err((
                format!("commands[{i}].name"),
                "a command needs a name of up to 60 characters, with no control characters \
                 (it is shown in ? and the menu of commands)"
                    .into(),
            ));
        }
        let at = |k: &str| format!("commands[{name:?}].{k}");
        if out.iter().any(|o| o.name == name) {
            return Err((at("name"), "two commands have this name".into()));
        }
        let (conversations, visitors) = match c.tabs {
            None => (true, true),
            Some(t) => {
                let names = match t {
                    TabsValue::One(s) => vec![s],
                    TabsValue::Many(v) => v,
                };
                let mut tabs = (false, false);
                for n in &names {
                    match n.trim() {
                        "conversations" => tabs.0 = true,
                        "visitors" => tabs.1 = true,
                        "both" => tabs = (true, true),
                        other => {
                            return Err((
                                at("tabs"),
                                format!(
                                    "{:?} is not \"conversations\", \"visitors\" or \"both\"",
                                    convo_text::one_line(other, 40)
                                ),
                            ));
                        }
                    }
                }
                if tabs == (false, false) {
                    return Err((at("tabs"), "names no tab".into()));
                }
                tabs
            }
        };
        let program = c.program.trim().to_string();
        if program.is_empty() || program.contains('\0') {
            return Err((
                at("program"),
                "needs a program: a name on PATH or a path".into(),
            ));
        }
        if program.contains(['{', '}']) {
            return Err((
                at("program"),
                "the program cannot hold a placeholder: put the row's fields in args".into(),
            ));
        }
        if program.chars().any(char::is_whitespace) && !Path::new(&program).is_absolute() {
            return Err((
                at("program"),
                format!(
                    "{:?} holds spaces: the program is one name or path, never a shell line; \
                     put its arguments in args = [\"…\", \"…\"]",
                    convo_text::one_line(&program, 60)
                ),
            ));
        }
        let mut args = Vec::new();
        for a in &c.args {
            args.push(Template::parse(a).map_err(|m| (at("args"), m))?);
        }
        let output = match c.output.as_deref().map(str::trim) {
            None | Some("none") => Output::None,
            Some("terminal") => Output::Terminal,
            Some("pane") => Output::Pane,
            Some(other) => {
                return Err((
                    at("output"),
                    format!(
                        "{:?} is not \"terminal\", \"pane\" or \"none\"",
                        convo_text::one_line(other, 40)
                    ),
                ));
            }
        };
        let for_marked = match c.for_marked.as_deref().map(str::trim) {
            None | Some("each") => ForMarked::Each,
            Some("all") => ForMarked::All,
            Some(other) => {
                return Err((
                    at("for_marked"),
                    format!(
                        "{:?} is not \"each\" (once per marked row) or \"all\" (once with all of them)",
                        convo_text::one_line(other, 40)
                    ),
                ));
            }
        };
        out.push(UserCommand {
            name,
            key: c.key.map(|k| k.trim().to_string()),
            conversations,
            visitors,
            program,
            args,
            output,
            confirm: c.confirm.unwrap_or(false),
            for_marked,
        });
    }
    Ok(out)
}

/// Where `program` is: a path as written (`~/` expanded), or the first executable of that
/// name on `path` (PATH's value). `None`: it is not there (or not executable).
pub fn find_program(program: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let expanded = expand_home(program);
    if expanded.components().count() > 1 || expanded.is_absolute() {
        return is_executable(&expanded).then_some(expanded);
    }
    std::env::split_paths(path?)
        .map(|d| d.join(&expanded))
        .find(|p| is_executable(p))
}

/// `~/x` under the home directory.
pub fn expand_home(program: &str) -> PathBuf {
    if let Some(rest) = program.strip_prefix("~/")
        && let Some(home) = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf())
    {
        return home.join(rest);
    }
    PathBuf::from(program)
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The environment variables of a row, by name, for docs and tests.
pub fn env_names() -> BTreeMap<&'static str, &'static str> {
    BTreeMap::from([
        ("CONVO_ID", "id"),
        ("CONVO_TAB", "tab"),
        ("CONVO_STATUS", "status"),
        ("CONVO_SITE", "site"),
        ("CONVO_ASSIGNEE", "assignee"),
        ("CONVO_VISITOR_ID", "visitor_id"),
        ("CONVO_EMAIL", "email"),
        ("CONVO_NAME", "name"),
        ("CONVO_EXTERNAL_ID", "external_id"),
        ("CONVO_QUERY", "query"),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> RowFields {
        RowFields {
            id: "11111111-1111-1111-1111-111111111111".into(),
            tab: "visitors".into(),
            name: name.into(),
            email: "a@b.example".into(),
            attributes: serde_json::json!({"plan": "pro", "seats": 3, "odd key": "x"}),
            ..Default::default()
        }
    }

    #[test]
    fn a_placeholder_is_replaced_inside_its_one_argument() {
        let t = Template::parse("--name={name}!").unwrap();
        let hostile = "$(touch x); `id` 'q' \"d\"\nnext";
        assert_eq!(t.expand(&row(hostile)), format!("--name={hostile}!"));
        let t = Template::parse("{{{attr.plan}}}-{attr.seats}-{attr.none}").unwrap();
        assert_eq!(t.expand(&row("n")), "{pro}-3-");
    }

    #[test]
    fn bad_templates_say_why() {
        assert!(Template::parse("{nope}").unwrap_err().contains("{email}"));
        assert!(
            Template::parse("{email")
                .unwrap_err()
                .contains("never closes")
        );
        assert!(Template::parse("a}b").unwrap_err().contains("lone"));
        assert!(Template::parse("{attr.}").is_err());
    }

    #[test]
    fn all_repeats_row_arguments_and_each_runs_per_row() {
        let mut c = UserCommand {
            name: "t".into(),
            key: None,
            conversations: true,
            visitors: true,
            program: "p".into(),
            args: ["--tag", "{tab}", "{id}"]
                .iter()
                .map(|a| Template::parse(a).unwrap())
                .collect(),
            output: Output::None,
            confirm: false,
            for_marked: ForMarked::All,
        };
        let mut b = row("b");
        b.id = "2".into();
        let rows = [row("a"), b];
        let all = c.invocations(&rows);
        assert_eq!(all.len(), 1);
        assert_eq!(
            all[0].args,
            [
                "--tag",
                "visitors",
                "11111111-1111-1111-1111-111111111111",
                "2"
            ]
        );
        c.for_marked = ForMarked::Each;
        let each = c.invocations(&rows);
        assert_eq!(each.len(), 2);
        assert_eq!(each[1].args, ["--tag", "visitors", "2"]);
        assert!(
            each[0]
                .env
                .contains(&("CONVO_ATTR_PLAN".into(), "pro".into()))
        );
        assert!(!each[0].env.iter().any(|(k, _)| k.contains("ODD")));
    }

    #[test]
    fn a_nul_never_stops_a_command() {
        let t = Template::parse("{name}").unwrap();
        assert_eq!(clean(t.expand(&row("a\0b"))), "a\u{FFFD}b");
    }
}
