//! How a row reads as CSV fields, JSON and table cells.

use serde::Serialize;

use convo_api::{Conversation, Row, Visitor, model::WireRow, model::short_id};

/// One column of a table written to a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableCol {
    pub header: &'static str,
    /// Widest cell: longer ones are cut with `…`.
    pub max: usize,
    /// The narrowest the column is cut to before columns are left out.
    pub min: usize,
    /// Left out only after every column without it (the point of the listing, e.g. `DUE`).
    pub keep: bool,
    /// When it is left out on a narrow terminal: higher first (the browser's order, its
    /// `columns!` table; a test holds them equal).
    pub drop: u8,
    /// A UUID shown whole at `max`, else its short form (`min` characters) rather than cut:
    /// the first column to give up room, as the browser's ID.
    pub short: bool,
    /// A UUID named by `[aliases]` when it has a name (else its short form).
    pub named: bool,
}

impl TableCol {
    pub const fn new(header: &'static str, max: usize, min: usize) -> TableCol {
        TableCol {
            header,
            max,
            min,
            keep: false,
            drop: 0,
            short: false,
            named: false,
        }
    }

    /// The same column, left out in turn `rank` (higher first).
    pub const fn drops(self, rank: u8) -> TableCol {
        TableCol { drop: rank, ..self }
    }

    /// The same column, a UUID whole or short (see [`TableCol::short`]).
    pub const fn short_form(self) -> TableCol {
        TableCol {
            short: true,
            ..self
        }
    }

    /// The same column, a UUID by its alias (see [`TableCol::named`]).
    pub const fn named(self) -> TableCol {
        TableCol {
            named: true,
            ..self
        }
    }

    /// The same column, left out only after the others.
    pub const fn kept(self) -> TableCol {
        TableCol { keep: true, ..self }
    }
}

/// A row as `convo list` and the TUI's export write it.
pub trait Printable: Row + WireRow + Serialize + Send + 'static {
    const CSV_HEADER: &'static [&'static str];
    fn csv_fields(&self) -> Vec<String>;
    /// Table columns on a terminal: header, widest cell, and the narrowest it is cut to
    /// before columns on its right are left out.
    const TABLE: &'static [TableCol];
    fn table_cells(&self) -> Vec<String>;
    /// Appends the row's JSON (jsonl and json), exactly as `serde_json::to_writer` writes it.
    fn json_into(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

fn ts(t: &convo_api::Timestamp) -> String {
    t.to_wire()
}

/// A table's timestamp: to the second (the machine formats keep the exact string).
fn table_ts(t: &convo_api::Timestamp) -> String {
    t.to_seconds()
}

impl Printable for Conversation {
    const CSV_HEADER: &'static [&'static str] = &[
        "id",
        "siteId",
        "visitorId",
        "status",
        "assigneeId",
        "createdAt",
        "updatedAt",
    ];
    fn csv_fields(&self) -> Vec<String> {
        vec![
            self.id.to_string(),
            self.site_id.to_string(),
            self.visitor_id.to_string(),
            self.status.to_string(),
            self.assignee_id.map(|a| a.to_string()).unwrap_or_default(),
            ts(&self.created_at),
            ts(&self.updated_at),
        ]
    }
    const TABLE: &'static [TableCol] = &[
        TableCol::new("ID", 36, 8).short_form().drops(2),
        TableCol::new("STATUS", 12, 6),
        TableCol::new("SITE", 18, 8).named().drops(6),
        TableCol::new("VISITOR", 8, 8),
        TableCol::new("ASSIGNEE", 18, 10).named().drops(3),
        TableCol::new("CREATED", 30, 20).drops(7),
        TableCol::new("UPDATED", 30, 20).drops(4),
    ];
    fn json_into(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        self.write_json(out)
    }
    fn table_cells(&self) -> Vec<String> {
        vec![
            self.id.to_string(),
            self.status.to_string(),
            // Whole: named by the aliases, or cut to the short form, as the table is written.
            self.site_id.to_string(),
            short_id(&self.visitor_id),
            self.assignee_id
                .map(|a| a.to_string())
                .unwrap_or_else(|| "unassigned".into()),
            table_ts(&self.created_at),
            table_ts(&self.updated_at),
        ]
    }
}

impl Printable for Visitor {
    const CSV_HEADER: &'static [&'static str] = &[
        "id",
        "externalId",
        "email",
        "name",
        "attributes",
        "createdAt",
    ];
    fn csv_fields(&self) -> Vec<String> {
        vec![
            self.id.to_string(),
            self.external_id.clone().unwrap_or_default(),
            self.email.clone().unwrap_or_default(),
            self.name.clone().unwrap_or_default(),
            if self.attributes.is_null() {
                String::new()
            } else {
                self.attributes.to_string()
            },
            self.created_at.as_ref().map(ts).unwrap_or_default(),
        ]
    }
    const TABLE: &'static [TableCol] = &[
        TableCol::new("ID", 36, 8).short_form().drops(2),
        TableCol::new("NAME", 28, 12),
        TableCol::new("EMAIL", 32, 16).drops(1),
        TableCol::new("EXTERNAL ID", 20, 11).drops(3),
        TableCol::new("CREATED", 30, 20).drops(7),
    ];
    fn table_cells(&self) -> Vec<String> {
        let dash = || "—".to_string();
        vec![
            self.id.to_string(),
            self.name.clone().unwrap_or_else(dash),
            self.email.clone().unwrap_or_else(dash),
            self.external_id.clone().unwrap_or_else(dash),
            self.created_at.as_ref().map(table_ts).unwrap_or_else(dash),
        ]
    }
}
