//! The user's own commands on a row (`[[commands]]`, docs/commands.md), the rows marked for
//! them (Space or `m`, as in file managers), the menu of commands (`!`), the menu of a row's
//! fields to copy (`Y`) and the pane a command's output is read in.
//!
//! The state is here; `update.rs` says what keys do to it and builds the runs; `run.rs` is
//! the runtime's side (the processes). A command is never a shell line: see
//! [`convo_config::commands`].

pub mod run;
pub mod update;

use std::collections::HashMap;

use uuid::Uuid;

use super::keys::Key;
use super::names::VisitorLabel;
use convo_api::{Conversation, Visitor};
use convo_config::commands::{Invocation, Output, RowFields, UserCommand};

/// The commands, their keys and the marked rows.
#[derive(Debug, Clone, Default)]
pub struct Commands {
    /// `[[commands]]`, in file order.
    pub list: Vec<UserCommand>,
    /// Each command's key (`None`: in the menu only), checked against the key map.
    pub keys: Vec<Option<Key>>,
    /// Each tab's marked rows.
    pub marked: MarkedTabs,
    /// The last run's id.
    pub last_id: u64,
    /// Runs started and not yet answered: (id, command name).
    pub running: Vec<(u64, String)>,
}

impl Commands {
    /// A config's `[[commands]]` and each one's key (checked against the key map, one per
    /// command).
    pub fn configure(&mut self, list: Vec<UserCommand>, keys: Vec<Option<Key>>) {
        debug_assert_eq!(list.len(), keys.len(), "a key (or none) per command");
        self.list = list;
        self.keys = keys;
    }

    /// The index of the command `key` runs on `tab`, if any.
    pub fn by_key(&self, key: &Key, tab: convo_api::Resource) -> Option<usize> {
        self.keys
            .iter()
            .zip(&self.list)
            .position(|(k, c)| k.as_ref() == Some(key) && c.on(tab))
    }

    /// The commands that run on `tab` (index into `list`), in file order.
    pub fn on(&self, tab: convo_api::Resource) -> Vec<usize> {
        (0..self.list.len())
            .filter(|&i| self.list[i].on(tab))
            .collect()
    }

    /// How help and the menu write command `i`'s key (empty without one).
    pub fn key_label(&self, i: usize) -> String {
        self.keys
            .get(i)
            .copied()
            .flatten()
            .map(|k| k.label())
            .unwrap_or_default()
    }
}

/// Each tab's marked rows (not `tab::PerTab`: `tab` sits above the commands it hands out).
#[derive(Debug, Clone, Default)]
pub struct MarkedTabs {
    pub conversations: Marked,
    pub visitors: Marked,
}

impl MarkedTabs {
    pub fn get(&self, tab: convo_api::Resource) -> &Marked {
        match tab {
            convo_api::Resource::Conversations => &self.conversations,
            convo_api::Resource::Visitors => &self.visitors,
        }
    }

    pub fn get_mut(&mut self, tab: convo_api::Resource) -> &mut Marked {
        match tab {
            convo_api::Resource::Conversations => &mut self.conversations,
            convo_api::Resource::Visitors => &mut self.visitors,
        }
    }
}

/// A tab's marked rows, in the order they were marked, each with its fields as they were
/// when marked (a command takes the loaded row's fields when the row is still loaded).
#[derive(Debug, Clone, Default)]
pub struct Marked {
    rows: Vec<(Uuid, RowFields)>,
    index: HashMap<Uuid, usize>,
}

impl Marked {
    /// Marks `id` or unmarks it; true when it is marked now.
    pub fn toggle(&mut self, id: Uuid, fields: RowFields) -> bool {
        if let Some(i) = self.index.remove(&id) {
            self.rows.remove(i);
            self.reindex();
            false
        } else {
            self.index.insert(id, self.rows.len());
            self.rows.push((id, fields));
            true
        }
    }

    fn reindex(&mut self) {
        self.index = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, i))
            .collect();
    }

    pub fn contains(&self, id: &Uuid) -> bool {
        self.index.contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn clear(&mut self) {
        self.rows.clear();
        self.index.clear();
    }

    /// The marked rows, in the order they were marked.
    pub fn rows(&self) -> impl Iterator<Item = &(Uuid, RowFields)> {
        self.rows.iter()
    }
}

/// What a command is to run: its id, name, where its output goes and each process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramRun {
    pub id: u64,
    pub name: String,
    pub output: Output,
    /// How many rows it runs on.
    pub rows: usize,
    pub invocations: Vec<Invocation>,
}

/// What a run did, as the runtime reports it (`Msg::ProgramDone`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// How many processes ran (or were tried).
    pub runs: usize,
    /// Each process that did not exit 0: how it ended ("exit 3", "killed by signal 9",
    /// "cannot run …: not found").
    pub failures: Vec<String>,
    /// What the processes wrote (stdout then stderr, each run in turn) for the pane, or the
    /// first line of stderr for the message line; as the programs wrote it (sanitised when
    /// shown).
    pub text: String,
    /// The output was longer than convo keeps: the rest was dropped.
    pub cut: bool,
}

/// `pane`: a command's output, scrolled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPane {
    /// The command's name and how it ended.
    pub title: String,
    /// The output's lines, sanitised (no control character reaches the terminal).
    pub lines: Vec<String>,
    pub scroll: usize,
}

impl OutputPane {
    pub fn new(title: String, text: &str, cut: bool) -> OutputPane {
        let mut lines: Vec<String> = text
            .lines()
            .map(|l| convo_text::sanitize(&l.replace('\t', "    ")).into_owned())
            .collect();
        if lines.is_empty() {
            lines.push("(no output)".into());
        }
        if cut {
            lines.push(format!(
                "… (cut: convo keeps the first {} of the output)",
                run::PANE_LIMIT_TEXT
            ));
        }
        OutputPane {
            title,
            lines,
            scroll: 0,
        }
    }
}

/// The fields of a row the `Y` menu offers: (what it is, its value), the empty ones left out.
pub fn copyable(f: &RowFields) -> Vec<(&'static str, String)> {
    [
        ("id", &f.id),
        ("visitor id", &f.visitor_id),
        ("e-mail", &f.email),
        ("name", &f.name),
        ("external id", &f.external_id),
        ("status", &f.status),
        ("site", &f.site),
        ("assignee", &f.assignee),
    ]
    .into_iter()
    .filter(|(_, v)| !v.is_empty())
    // A visitor's own id is its id: offered once.
    .filter(|(k, v)| !(*k == "visitor id" && **v == f.id))
    .map(|(k, v)| (k, v.clone()))
    .collect()
}

/// A conversation's fields; the visitor's from what convo knows of them (their loaded row in
/// the Visitors tab, else the names the store and the sync keep, else the attributes the
/// detail pane read from the store); a field not known is empty.
pub fn conversation_fields(
    c: &Conversation,
    visitor: Option<&Visitor>,
    label: Option<&VisitorLabel>,
    attributes: Option<&serde_json::Value>,
    query: &str,
) -> RowFields {
    let mut f = RowFields {
        id: c.id.to_string(),
        tab: "conversations".into(),
        status: c.status.as_str().to_string(),
        site: c.site_id.to_string(),
        assignee: c.assignee_id.map(|a| a.to_string()).unwrap_or_default(),
        visitor_id: c.visitor_id.to_string(),
        query: query.to_string(),
        ..Default::default()
    };
    if let Some(v) = visitor {
        f.email = v.email.clone().unwrap_or_default();
        f.name = v.name.clone().unwrap_or_default();
        f.external_id = v.external_id.clone().unwrap_or_default();
        f.attributes = v.attributes.clone();
    } else if let Some(l) = label {
        f.email = l.email.as_deref().unwrap_or_default().to_string();
        f.name = l.name.as_deref().unwrap_or_default().to_string();
        f.external_id = l.external_id.as_deref().unwrap_or_default().to_string();
    }
    if f.attributes.is_null()
        && let Some(a) = attributes
    {
        f.attributes = a.clone();
    }
    f
}

/// A visitor's fields.
pub fn visitor_fields(v: &Visitor, query: &str) -> RowFields {
    RowFields {
        id: v.id.to_string(),
        tab: "visitors".into(),
        visitor_id: v.id.to_string(),
        email: v.email.clone().unwrap_or_default(),
        name: v.name.clone().unwrap_or_default(),
        external_id: v.external_id.clone().unwrap_or_default(),
        attributes: v.attributes.clone(),
        query: query.to_string(),
        ..Default::default()
    }
}
