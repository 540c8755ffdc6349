//! The table's columns, each declared once in the `columns!` table below: its `[columns]`
//! name, title and widths, the text a cell shows (also what search looks at), the key a
//! display sort uses and what its cell draws. Which columns a tab shows, in what order, comes
//! from `[columns]` (checked here: the names are the table's) or the table's defaults.

use crate::format::{attributes_summary, attributes_summary_first, id_label, relative_ts};
use crate::names::VisitorNames;
use convo_api::model::short_id;
use convo_api::{Conversation, Resource, Status, Timestamp, Visitor};
use convo_config::Aliases;
use convo_config::ui::ColumnsConfig;
use convo_engine::sla::{Sla, State, Target};
use convo_text::fit;

/// Declares [`Column`] from one table: each column's `[columns]` name, its name in the sort
/// mark, its title and widths ([`Col`]), and what it is on each tab ([`Part`]; `None`: not a
/// column of that tab), in the order `[columns]` errors list the names and the defaults show.
macro_rules! columns {
    ($($(#[$doc:meta])* $variant:ident = $key:literal, $name:literal, $spec:expr,
        conversations: $conv:expr, visitors: $vis:expr;)*) => {
        /// A column of either tab.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Column {
            $($(#[$doc])* $variant,)*
        }

        impl Column {
            /// Every column, in table order.
            pub const ALL: &[Column] = &[$(Column::$variant),*];

            /// The name in `[columns]`.
            pub const fn key(self) -> &'static str {
                match self {
                    $(Column::$variant => $key,)*
                }
            }

            /// The lower-case name, as in the sort mark.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Column::$variant => $name,)*
                }
            }

            /// Title and widths.
            pub fn spec(self) -> Col {
                match self {
                    $(Column::$variant => $spec,)*
                }
            }

            /// What the column is on the Conversations tab.
            fn conversation(self) -> Option<Part<Conversation>> {
                match self {
                    $(Column::$variant => $conv,)*
                }
            }

            /// What the column is on the Visitors tab.
            fn visitor(self) -> Option<Part<Visitor>> {
                match self {
                    $(Column::$variant => $vis,)*
                }
            }
        }
    };
}

// THE place to add a column: one entry here (`[columns]` name, sort-mark name, title and
// widths, and per tab whether it is shown by default, its text, its sort key when not its
// text, and its cell). `[columns]` checking, the defaults, search, sort and drawing follow.
// The order is the order of the defaults and of the names `[columns]` errors list.
columns! {
    // Narrowing, the columns go in this order: CREATED, SITE, RESOLVE, UPDATED, ASSIGNEE, ID,
    // DUE. A row can always be told apart: VISITOR (who) stays with STATUS, and the id
    // outlives every column but DUE; times against targets say nothing without the row they
    // belong to.
    Status = "status", "status", col("STATUS", 7, 8, 0),
        conversations: Some(Part::shown(
            |c, _, _| Some(convo_text::sanitize(c.status.as_str()).into_owned()),
            |c, _, n| Content::new(fit(c.status.as_str(), n), Look::status(&c.status)),
        )),
        visitors: None;
    /// Time left or overdue against the first-response target (`[sla]`).
    // "over 23h" fits in 9; the 2 more for the NO_COLOR marks ("!! over 23h") come after the
    // visitor's name.
    Due = "due", "due", col("DUE", 9, 11, 1).turn(1),
        // The same target for every row of a site: the older, the less time left. Rows not
        // waiting (no DUE) come last.
        conversations: Some(Part::hidden(
            |_: &Conversation, _, _| None,
            |c, cx, n| due(c, cx, Target::FirstResponse, n),
        ).sort(|c, _| SortKey::time(&c.created_at, !convo_engine::sla::is_waiting(c)))),
        visitors: None;
    /// Time left or overdue against the resolution target (`[sla]`).
    Resolution = "resolution", "resolution", col("RESOLVE", 9, 11, 5).turn(1),
        // Rows not tracked (closed) come last; the older, the less time left.
        conversations: Some(Part::hidden(
            |_: &Conversation, _, _| None,
            |c, cx, n| due(c, cx, Target::Resolution, n),
        ).sort(|c, _| SortKey::time(&c.created_at, c.status == Status::Closed))),
        visitors: None;
    // Room to spare goes to the visitor's name, then the whole id, then sites and agents.
    Visitor = "visitor", "visitor", col("VISITOR", 8, 15, 0).stretch(32, 0),
        // The name, else e-mail, else external id (cut with … to the column), else the id.
        // Sorted as shown: by the name (folded: case and accents), ids after names.
        conversations: Some(Part::shown(
            |c: &Conversation, _, _| Some(short_id(&c.visitor_id)),
            |c, cx, n| match cx.names.shown(&c.visitor_id) {
                Some(name) => Content::plain(fit(name, n.max(8))),
                None => Content::plain(short_id(&c.visitor_id)),
            },
        ).sort(|c, names| match names.shown(&c.visitor_id) {
            Some(name) => SortKey::text(Some(convo_text::sanitize(name).into_owned())),
            None => SortKey::after(short_id(&c.visitor_id)),
        })),
        visitors: None;
    Site = "site", "site", col("SITE", 8, 18, 6).stretch(24, 2),
        conversations: Some(Part::shown(
            |c, _, aliases| Some(id_label(aliases, &c.site_id)),
            |c, cx, n| Content::plain(fit(&id_label(cx.aliases, &c.site_id), n)),
        )),
        visitors: None;
    Assignee = "assignee", "assignee", col("ASSIGNEE", 10, 18, 3).stretch(24, 2),
        conversations: Some(Part::shown(
            |c, _, aliases| Some(match &c.assignee_id {
                Some(id) => id_label(aliases, id),
                None => "unassigned".into(),
            }),
            |c, cx, n| match &c.assignee_id {
                Some(id) if cx.me == Some(*id) => Content::plain(fit("me", n)),
                Some(id) => Content::plain(fit(&id_label(cx.aliases, id), n)),
                None => Content::new(fit("unassigned", n), Look::Unassigned),
            },
        )),
        visitors: None;
    // Names and e-mails share a narrow table (the detail pane open beside it) before either
    // stretches; attributes take what is left.
    Name = "name", "name", col("NAME", 10, 16, 0).stretch(24, 0),
        conversations: None,
        visitors: Some(Part::shown(|v, _, _| clean(&v.name), |v, _, n| text(&v.name, n)));
    Email = "email", "email", col("EMAIL", 12, 22, 1).stretch(32, 0),
        conversations: None,
        visitors: Some(Part::shown(|v, _, _| clean(&v.email), |v, _, n| text(&v.email, n)));
    ExternalId = "external_id", "external id", col("EXTERNAL ID", 8, 16, 3),
        conversations: None,
        visitors: Some(Part::shown(
            |v, _, _| clean(&v.external_id),
            |v, _, n| text(&v.external_id, n),
        ));
    Created = "created", "created", col("CREATED", 8, 8, 7),
        conversations: Some(Part::shown(
            |c: &Conversation, now, _| Some(relative_ts(now, &c.created_at)),
            |c, cx, n| Content::plain(fit(&relative_ts(cx.now, &c.created_at), n)),
        ).sort(|c, _| SortKey::time(&c.created_at, false))),
        // Visitors without a creation time come after every other.
        visitors: Some(Part::shown(
            |v: &Visitor, now, _| v.created_at.as_ref().map(|t| relative_ts(now, t)),
            |v, cx, n| match &v.created_at {
                Some(t) => Content::plain(fit(&relative_ts(cx.now, t), n)),
                None => Content::empty(),
            },
        ).sort(|v, _| match &v.created_at {
            Some(t) => SortKey::time(t, false),
            None => SortKey { group: 4, num: 0, text: Box::default() },
        }));
    Updated = "updated", "updated", col("UPDATED", 8, 8, 4),
        conversations: Some(Part::shown(
            |c: &Conversation, now, _| Some(relative_ts(now, &c.updated_at)),
            |c, cx, n| Content::plain(fit(&relative_ts(cx.now, &c.updated_at), n)),
        ).sort(|c, _| SortKey::time(&c.updated_at, false))),
        visitors: None;
    Attributes = "attributes", "attributes", col("ATTRIBUTES", 10, 36, 4).stretch(200, 2),
        conversations: None,
        visitors: Some(Part::shown(
            |v, _, _| attributes_summary(&v.attributes, 200),
            |v, cx, n| attributes_summary_first(&v.attributes, n, cx.first_attributes)
                .map_or_else(Content::empty, Content::plain),
        ));
    // The whole id only when all of it fits: the short form below that.
    Id = "id", "id", col("ID", 8, 8, 2).whole(36, 1),
        conversations: Some(Part::shown(
            |c: &Conversation, _, _| Some(c.id.to_string()),
            |c, _, n| Content::plain(if n >= 36 { c.id.to_string() } else { short_id(&c.id) }),
        ).sort(|c, _| SortKey::id(&c.id))),
        visitors: Some(Part::hidden(
            |v: &Visitor, _, _| Some(v.id.to_string()),
            |v, _, n| Content::plain(if n >= 36 { v.id.to_string() } else { short_id(&v.id) }),
        ).sort(|v, _| SortKey::id(&v.id)));
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

/// A row's cell text before fitting (sanitised), at `now` with the config's aliases; `None`
/// for an empty value.
type TextFn<T> = fn(&T, jiff::Timestamp, &Aliases) -> Option<String>;

/// What a row's cell draws, fitted to `n` cells.
type CellFn<T> = fn(&T, &CellCx<'_>, usize) -> Content;

/// What a column is on a tab whose rows are `T`.
pub struct Part<T> {
    /// Shown unless `[columns]` says otherwise.
    shown: bool,
    text: TextFn<T>,
    /// The sort key, when the column does not sort by its text (the visitors' names the
    /// screen knows at hand: a column sorts as it shows).
    sort: Option<fn(&T, &VisitorNames) -> SortKey>,
    cell: CellFn<T>,
}

impl<T> Part<T> {
    /// A column the tab shows by default.
    fn shown(text: TextFn<T>, cell: CellFn<T>) -> Part<T> {
        Part {
            shown: true,
            text,
            sort: None,
            cell,
        }
    }

    /// A column the tab has but shows only when `[columns]` (or `[sla]`) asks for it.
    fn hidden(text: TextFn<T>, cell: CellFn<T>) -> Part<T> {
        Part {
            shown: false,
            ..Part::shown(text, cell)
        }
    }

    /// The same, sorting by `key` rather than by its text.
    fn sort(self, key: fn(&T, &VisitorNames) -> SortKey) -> Part<T> {
        Part {
            sort: Some(key),
            ..self
        }
    }
}

/// What the cells of a frame are drawn from.
pub struct CellCx<'a> {
    pub now: jiff::Timestamp,
    pub aliases: &'a Aliases,
    pub names: &'a VisitorNames,
    pub sla: &'a Sla,
    /// `NO_COLOR`: a mark says what the colour would.
    pub no_color: bool,
    /// The attribute keys the tab's query names (`attr.plan:pro`): shown first.
    pub first_attributes: &'a [String],
    /// `agent_id` (who `me` is in queries): the ASSIGNEE column says `me` for it.
    pub me: Option<uuid::Uuid>,
}

/// A cell's text, fitted, and how it looks (the view picks the style).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    pub text: String,
    pub look: Look,
}

/// How a cell looks; the view maps each to a style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    Plain,
    /// No value (drawn `—`).
    Empty,
    Open,
    Pending,
    Closed,
    /// A status convo does not know.
    OtherStatus,
    /// Against a target: in time, close to it, past it.
    Due(State),
    /// No agent.
    Unassigned,
}

impl Look {
    fn status(s: &Status) -> Look {
        match s {
            Status::Open => Look::Open,
            Status::Pending => Look::Pending,
            Status::Closed => Look::Closed,
            Status::Other(_) => Look::OtherStatus,
        }
    }
}

impl Content {
    fn new(text: impl Into<String>, look: Look) -> Content {
        Content {
            text: text.into(),
            look,
        }
    }

    fn plain(text: impl Into<String>) -> Content {
        Content::new(text, Look::Plain)
    }

    /// No value: `—`.
    pub fn empty() -> Content {
        Content::new("—", Look::Empty)
    }
}

/// A non-empty text value, sanitised.
fn clean(v: &Option<String>) -> Option<String> {
    v.as_deref()
        .filter(|s| !s.is_empty())
        .map(|s| convo_text::sanitize(s).into_owned())
}

/// A text value fitted to `n` cells, or `—`.
fn text(v: &Option<String>, n: usize) -> Content {
    match v.as_deref().filter(|s| !s.is_empty()) {
        Some(s) => Content::plain(fit(s, n)),
        None => Content::empty(),
    }
}

/// Time left or overdue against a target, by state; with `NO_COLOR`, a mark says the state
/// (`!` imminent, `!!` breaching).
fn due(c: &Conversation, cx: &CellCx<'_>, which: Target, n: usize) -> Content {
    let Some(d) = cx.sla.due(which, c, cx.now) else {
        return Content::empty();
    };
    let text = if cx.no_color {
        format!("{} {}", d.state.symbol(), d.label())
    } else {
        d.label()
    };
    Content::new(fit(&text, n), Look::Due(d.state))
}

impl Column {
    /// Whether the column sorts by the visitors' names the screen knows (its order changes
    /// as they arrive).
    pub fn sorts_by_name(self) -> bool {
        self == Column::Visitor
    }

    /// The column of a `[columns]` name on a tab.
    pub fn parse(tab: Resource, name: &str) -> Option<Column> {
        Column::of(tab).find(|c| c.key() == name)
    }

    /// The columns a tab has, in table order.
    fn of(tab: Resource) -> impl Iterator<Item = Column> {
        Column::ALL.iter().copied().filter(move |c| match tab {
            Resource::Conversations => c.conversation().is_some(),
            Resource::Visitors => c.visitor().is_some(),
        })
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
        Columns {
            conversations: Column::of(Resource::Conversations)
                .filter(|c| c.conversation().is_some_and(|p| p.shown))
                .collect(),
            visitors: Column::of(Resource::Visitors)
                .filter(|c| c.visitor().is_some_and(|p| p.shown))
                .collect(),
        }
    }
}

/// Checks `[columns]` against the table: `Err((config key, what is wrong))` for an unknown
/// name, an empty list or a name listed twice.
pub fn check(c: &ColumnsConfig) -> Result<(), (String, String)> {
    let tabs = [
        (
            "columns.conversations",
            Resource::Conversations,
            &c.conversations,
        ),
        ("columns.visitors", Resource::Visitors, &c.visitors),
    ];
    for (key, tab, v) in tabs {
        let Some(v) = v else { continue };
        let unknown: Vec<String> = v
            .iter()
            .filter(|c| Column::parse(tab, c).is_none())
            .map(|c| format!("{:?}", convo_text::one_line(c, 40)))
            .collect();
        if !unknown.is_empty() {
            let known: Vec<&str> = Column::of(tab).map(Column::key).collect();
            return Err((
                key.to_string(),
                format!(
                    "unknown column{} {}; known: {}",
                    if unknown.len() == 1 { "" } else { "s" },
                    unknown.join(", "),
                    known.join(", ")
                ),
            ));
        }
        if v.is_empty() {
            return Err((key.to_string(), "needs at least one column".into()));
        }
        for (i, c) in v.iter().enumerate() {
            if v[i + 1..].contains(c) {
                return Err((key.to_string(), format!("{c:?} is listed twice")));
            }
        }
    }
    Ok(())
}

impl Columns {
    /// From `[columns]` (names are checked by [`check`] when the config is read; unknown ones
    /// are skipped here).
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

/// What a cell of a row shows, for search, sort and drawing, from the column's entry in the
/// table; `None` for an empty value (drawn `—`).
pub trait Cells: Sized {
    /// The column's part on this row's tab.
    fn part(col: Column) -> Option<Part<Self>>;

    /// The cell's text before fitting (sanitised).
    fn text(&self, col: Column, now: jiff::Timestamp, aliases: &Aliases) -> Option<String> {
        Self::part(col).and_then(|p| (p.text)(self, now, aliases))
    }

    /// The row's key for sorting by a column (times as times, text with case and accents
    /// folded as quick search folds them, empty last): computed once per row and sort, never
    /// per comparison.
    fn sort_key(&self, col: Column, aliases: &Aliases, names: &VisitorNames) -> SortKey {
        match Self::part(col).and_then(|p| p.sort) {
            Some(key) => key(self, names),
            None => SortKey::text(self.text(col, jiff::Timestamp::UNIX_EPOCH, aliases)),
        }
    }

    /// What the cell draws in `n` cells.
    fn cell(&self, col: Column, cx: &CellCx<'_>, n: usize) -> Content {
        match Self::part(col) {
            Some(p) => (p.cell)(self, cx, n),
            None => Content::empty(),
        }
    }

    /// The visitor the row is about, whose name and e-mail (from the local store) quick
    /// search also matches; `None` for a visitor row (its own name is a column).
    fn visitor(&self) -> Option<uuid::Uuid> {
        None
    }
}

impl Cells for Conversation {
    fn part(col: Column) -> Option<Part<Self>> {
        col.conversation()
    }

    fn visitor(&self) -> Option<uuid::Uuid> {
        Some(self.visitor_id)
    }
}

impl Cells for Visitor {
    fn part(col: Column) -> Option<Part<Self>> {
        col.visitor()
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
    /// The order of two keys, descending or not: the coarse groups (empty, untracked,
    /// unknown) stay after the values either way.
    pub fn cmp_in(&self, other: &SortKey, desc: bool) -> std::cmp::Ordering {
        let rest = (self.num, &self.text).cmp(&(other.num, &other.text));
        self.group
            .cmp(&other.group)
            .then(if desc { rest.reverse() } else { rest })
    }

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
                text: convo_text::fold::fold(&t).into(),
            },
            None => SortKey {
                group: 1,
                num: 0,
                text: Box::default(),
            },
        }
    }

    /// A stand-in shown where a value is not known (a visitor's short id before their name):
    /// after the values, before the empty ones.
    fn after(t: String) -> SortKey {
        SortKey {
            group: 1,
            num: 0,
            text: t.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(conversations: &[&str], visitors: Option<&[&str]>) -> ColumnsConfig {
        let v = |n: &[&str]| n.iter().map(|s| s.to_string()).collect();
        ColumnsConfig {
            conversations: Some(v(conversations)),
            visitors: visitors.map(v),
        }
    }

    #[test]
    fn the_defaults_and_the_names_come_from_the_table_in_its_order() {
        let d = Columns::default();
        let keys = |c: &[Column]| c.iter().map(|c| c.key()).collect::<Vec<_>>();
        assert_eq!(
            keys(&d.conversations),
            [
                "status", "visitor", "site", "assignee", "created", "updated", "id"
            ]
        );
        assert_eq!(
            keys(&d.visitors),
            ["name", "email", "external_id", "created", "attributes"]
        );
        assert_eq!(
            Column::parse(Resource::Visitors, "external_id"),
            Some(Column::ExternalId)
        );
        assert_eq!(Column::ExternalId.name(), "external id");
        assert_eq!(Column::parse(Resource::Visitors, "site"), None);
        assert_eq!(
            Column::parse(Resource::Conversations, "id"),
            Some(Column::Id)
        );
    }

    #[test]
    fn columns_checking_names_the_key_and_lists_the_tab_s_names() {
        assert_eq!(check(&cfg(&["status", "due", "id"], Some(&["id"]))), Ok(()));
        let (key, m) = check(&cfg(&["status", "colour"], None)).unwrap_err();
        assert_eq!(key, "columns.conversations");
        assert_eq!(
            m,
            "unknown column \"colour\"; known: status, due, resolution, visitor, site, \
             assignee, created, updated, id"
        );
        let (key, m) = check(&cfg(&["status"], Some(&["name", "site", "x"]))).unwrap_err();
        assert_eq!(key, "columns.visitors");
        assert_eq!(
            m,
            "unknown columns \"site\", \"x\"; known: name, email, external_id, created, \
             attributes, id"
        );
        let (_, m) = check(&cfg(&[], None)).unwrap_err();
        assert_eq!(m, "needs at least one column");
        let (_, m) = check(&cfg(&["id", "status", "id"], None)).unwrap_err();
        assert_eq!(m, "\"id\" is listed twice");
    }
}
