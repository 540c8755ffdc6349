//! The table's columns: which, in what order (`[columns]` in the config), their widths, the
//! text a cell shows (also what search looks at) and the key a display sort uses.

use crate::api::model::short_id;
use crate::api::{Conversation, Resource, Timestamp, Visitor};
use crate::config::Aliases;
use crate::tui::format::{attributes_summary, id_label, relative_ts};
use crate::ui_config::{CONVERSATION_COLUMNS, ColumnsConfig, VISITOR_COLUMNS};

/// A column of either tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Status,
    /// Time left or overdue against the first-response target (`[sla]`).
    Due,
    /// Time left or overdue against the resolution target (`[sla]`).
    Resolution,
    Visitor,
    Site,
    Assignee,
    Created,
    Updated,
    Id,
    Name,
    Email,
    ExternalId,
    Attributes,
}

/// A column's title, the narrowest and the widest it is useful at, how far it stretches once
/// every column has its `pref` (free text: names, sites, agents), in which turn it stretches
/// (lower first), whether it stretches only all the way (a cell with a short and a whole form,
/// such as the id), and when it is dropped on a narrow terminal (higher goes first; 0 never).
#[derive(Debug, Clone, Copy)]
pub struct Col {
    pub title: &'static str,
    pub min: u16,
    pub pref: u16,
    pub stretch: u16,
    pub turn: u8,
    pub whole: bool,
    pub drop: u8,
}

const fn col(title: &'static str, min: u16, pref: u16, drop: u8) -> Col {
    Col {
        title,
        min,
        pref,
        stretch: pref,
        turn: 0,
        whole: false,
        drop,
    }
}

impl Col {
    /// The same column, stretching to `n` cells in turn `turn` when the terminal has room to
    /// spare.
    const fn stretch(self, n: u16, turn: u8) -> Col {
        Col {
            stretch: n,
            turn,
            ..self
        }
    }

    /// The same column, growing to its `pref` in turn `turn` rather than the first.
    const fn turn(self, turn: u8) -> Col {
        Col { turn, ..self }
    }

    /// The same column, growing to `n` cells in turn `turn` only when all `n` fit: its cell
    /// shows a short form below that, and cells in between would stay blank.
    const fn whole(self, n: u16, turn: u8) -> Col {
        Col {
            whole: true,
            ..self.stretch(n, turn)
        }
    }
}

impl Column {
    /// The column of a `[columns]` name on a tab.
    pub fn parse(tab: Resource, name: &str) -> Option<Column> {
        Some(match (tab, name) {
            (Resource::Conversations, "status") => Column::Status,
            (Resource::Conversations, "due") => Column::Due,
            (Resource::Conversations, "resolution") => Column::Resolution,
            (Resource::Conversations, "visitor") => Column::Visitor,
            (Resource::Conversations, "site") => Column::Site,
            (Resource::Conversations, "assignee") => Column::Assignee,
            (Resource::Conversations, "updated") => Column::Updated,
            (Resource::Visitors, "name") => Column::Name,
            (Resource::Visitors, "email") => Column::Email,
            (Resource::Visitors, "external_id") => Column::ExternalId,
            (Resource::Visitors, "attributes") => Column::Attributes,
            (_, "created") => Column::Created,
            (_, "id") => Column::Id,
            _ => return None,
        })
    }

    /// Title and widths.
    pub fn spec(self) -> Col {
        match self {
            // Narrowing, the columns go in this order: CREATED, SITE, RESOLVE, UPDATED,
            // ASSIGNEE, ID, DUE. A row can always be told apart: VISITOR (who) stays with
            // STATUS, and the id outlives every column but DUE; times against targets say
            // nothing without the row they belong to.
            Column::Status => col("STATUS", 7, 8, 0),
            // "over 23h" fits in 9; the 2 more for the NO_COLOR marks ("!! over 23h") come
            // after the visitor's name.
            Column::Due => col("DUE", 9, 11, 1).turn(1),
            Column::Resolution => col("RESOLVE", 9, 11, 5).turn(1),
            // Room to spare goes to the visitor's name, then the whole id, then sites and
            // agents.
            Column::Visitor => col("VISITOR", 8, 15, 0).stretch(32, 0),
            Column::Site => col("SITE", 8, 18, 6).stretch(24, 2),
            Column::Assignee => col("ASSIGNEE", 10, 18, 3).stretch(24, 2),
            Column::Created => col("CREATED", 8, 8, 7),
            Column::Updated => col("UPDATED", 8, 8, 4),
            Column::Id => col("ID", 8, 8, 2).whole(36, 1),
            // Names and e-mails share a narrow table (the detail pane open beside it) before
            // either stretches; attributes take what is left.
            Column::Name => col("NAME", 10, 16, 0).stretch(24, 0),
            Column::Email => col("EMAIL", 12, 22, 1).stretch(32, 0),
            Column::ExternalId => col("EXTERNAL ID", 8, 16, 3),
            Column::Attributes => col("ATTRIBUTES", 10, 36, 4).stretch(200, 2),
        }
    }

    /// The lower-case name, as in `[columns]` and the sort mark.
    pub fn name(self) -> &'static str {
        match self {
            Column::Status => "status",
            Column::Due => "due",
            Column::Resolution => "resolution",
            Column::Visitor => "visitor",
            Column::Site => "site",
            Column::Assignee => "assignee",
            Column::Created => "created",
            Column::Updated => "updated",
            Column::Id => "id",
            Column::Name => "name",
            Column::Email => "email",
            Column::ExternalId => "external id",
            Column::Attributes => "attributes",
        }
    }
}

/// The columns of both tabs, in display order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    pub conversations: Vec<Column>,
    pub visitors: Vec<Column>,
}

impl Default for Columns {
    fn default() -> Self {
        let parse =
            |tab, names: &[&str]| names.iter().filter_map(|n| Column::parse(tab, n)).collect();
        Columns {
            conversations: parse(Resource::Conversations, CONVERSATION_COLUMNS),
            visitors: parse(Resource::Visitors, VISITOR_COLUMNS),
        }
    }
}

impl Columns {
    /// From `[columns]` (names were checked when the config was read; unknown ones are
    /// skipped here).
    pub fn from_config(c: &ColumnsConfig) -> Columns {
        let mut cols = Columns::default();
        let parse = |tab, names: &Vec<String>| -> Vec<Column> {
            names
                .iter()
                .filter_map(|n| Column::parse(tab, n.trim()))
                .collect()
        };
        if let Some(v) = &c.conversations {
            let p = parse(Resource::Conversations, v);
            if !p.is_empty() {
                cols.conversations = p;
            }
        }
        if let Some(v) = &c.visitors {
            let p = parse(Resource::Visitors, v);
            if !p.is_empty() {
                cols.visitors = p;
            }
        }
        cols
    }

    /// The columns of a tab.
    pub fn of(&self, tab: Resource) -> &[Column] {
        match tab {
            Resource::Conversations => &self.conversations,
            Resource::Visitors => &self.visitors,
        }
    }
}

/// What a cell of a row shows, for search and sort; `None` for an empty value (drawn `—`).
pub trait Cells {
    /// The cell's text before fitting (sanitised).
    fn text(&self, col: Column, now: jiff::Timestamp, aliases: &Aliases) -> Option<String>;
    /// The row's key for sorting by a column (times as times, text case-insensitively, empty
    /// last): computed once per row and sort, never per comparison.
    fn sort_key(&self, col: Column, aliases: &Aliases) -> SortKey;
    /// The visitor the row is about, whose name and e-mail (from the local store) quick
    /// search also matches; `None` for a visitor row (its own name is a column).
    fn visitor(&self) -> Option<uuid::Uuid> {
        None
    }
}

/// A row's sort key for one column; keys compare as the column's values do.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SortKey {
    /// Coarse order first: empty or untracked values, and unparsed times, sort after the rest.
    group: u8,
    /// A time in nanoseconds, or an id.
    num: i128,
    /// Text in lower case, or an unparsed time as sent.
    text: Box<str>,
}

impl SortKey {
    fn time(t: &Timestamp, after: bool) -> SortKey {
        let base = if after { 2 } else { 0 };
        match t {
            Timestamp::Parsed(p) => SortKey {
                group: base,
                num: p.as_nanosecond(),
                text: Box::default(),
            },
            Timestamp::Raw(r) => SortKey {
                group: base + 1,
                num: 0,
                text: r.as_ref().into(),
            },
        }
    }

    fn id(id: &uuid::Uuid) -> SortKey {
        SortKey {
            group: 0,
            // Unsigned order kept in a signed number.
            num: (id.as_u128() ^ (1 << 127)) as i128,
            text: Box::default(),
        }
    }

    fn text(t: Option<String>) -> SortKey {
        match t {
            Some(t) => SortKey {
                group: 0,
                num: 0,
                text: t.to_lowercase().into(),
            },
            None => SortKey {
                group: 1,
                num: 0,
                text: Box::default(),
            },
        }
    }
}

impl Cells for Conversation {
    fn visitor(&self) -> Option<uuid::Uuid> {
        Some(self.visitor_id)
    }

    fn text(&self, col: Column, now: jiff::Timestamp, aliases: &Aliases) -> Option<String> {
        Some(match col {
            Column::Status => crate::text::sanitize(self.status.as_str()).into_owned(),
            Column::Visitor => short_id(&self.visitor_id),
            Column::Site => id_label(aliases, &self.site_id),
            Column::Assignee => match &self.assignee_id {
                Some(id) => id_label(aliases, id),
                None => "unassigned".into(),
            },
            Column::Created => relative_ts(now, &self.created_at),
            Column::Updated => relative_ts(now, &self.updated_at),
            Column::Id => self.id.to_string(),
            _ => return None,
        })
    }

    fn sort_key(&self, col: Column, aliases: &Aliases) -> SortKey {
        match col {
            // The same target for every row of a site: the older, the less time left. Rows
            // not waiting (no DUE) come last.
            Column::Due => SortKey::time(&self.created_at, !crate::sla::is_waiting(self)),
            // Rows not tracked (closed) come last; the older, the less time left.
            Column::Resolution => {
                SortKey::time(&self.created_at, self.status == crate::api::Status::Closed)
            }
            Column::Created => SortKey::time(&self.created_at, false),
            Column::Updated => SortKey::time(&self.updated_at, false),
            Column::Id => SortKey::id(&self.id),
            _ => SortKey::text(self.text(col, jiff::Timestamp::UNIX_EPOCH, aliases)),
        }
    }
}

impl Cells for Visitor {
    fn text(&self, col: Column, now: jiff::Timestamp, _aliases: &Aliases) -> Option<String> {
        let s = |v: &Option<String>| {
            v.as_deref()
                .filter(|s| !s.is_empty())
                .map(|s| crate::text::sanitize(s).into_owned())
        };
        match col {
            Column::Name => s(&self.name),
            Column::Email => s(&self.email),
            Column::ExternalId => s(&self.external_id),
            Column::Created => self.created_at.as_ref().map(|t| relative_ts(now, t)),
            Column::Attributes => attributes_summary(&self.attributes, 200),
            Column::Id => Some(self.id.to_string()),
            _ => None,
        }
    }

    fn sort_key(&self, col: Column, aliases: &Aliases) -> SortKey {
        match col {
            Column::Created => match &self.created_at {
                Some(t) => SortKey::time(t, false),
                None => SortKey {
                    group: 4,
                    num: 0,
                    text: Box::default(),
                },
            },
            Column::Id => SortKey::id(&self.id),
            _ => SortKey::text(self.text(col, jiff::Timestamp::UNIX_EPOCH, aliases)),
        }
    }
}
