//! How a row reads as CSV fields, JSON and table cells.

use serde::Serialize;

use crate::api::{Conversation, Row, Visitor, model::WireRow, model::short_id};

/// A row as `convo list` and the TUI's export write it.
pub trait Printable: Row + WireRow + Serialize + Send + 'static {
    const CSV_HEADER: &'static [&'static str];
    fn csv_fields(&self) -> Vec<String>;
    /// Table columns: (header, cell text before fitting, max width).
    const TABLE: &'static [(&'static str, usize)];
    fn table_cells(&self) -> Vec<String>;
    /// Appends the row's JSON (jsonl and json), exactly as `serde_json::to_writer` writes it.
    fn json_into(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

fn ts(t: &crate::api::Timestamp) -> String {
    t.to_wire()
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
    const TABLE: &'static [(&'static str, usize)] = &[
        ("ID", 36),
        ("STATUS", 12),
        ("SITE", 8),
        ("VISITOR", 8),
        ("ASSIGNEE", 10),
        ("CREATED", 30),
        ("UPDATED", 30),
    ];
    fn json_into(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        self.write_json(out)
    }
    fn table_cells(&self) -> Vec<String> {
        vec![
            self.id.to_string(),
            self.status.to_string(),
            short_id(&self.site_id),
            short_id(&self.visitor_id),
            self.assignee_id
                .map(|a| short_id(&a))
                .unwrap_or_else(|| "unassigned".into()),
            ts(&self.created_at),
            ts(&self.updated_at),
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
    const TABLE: &'static [(&'static str, usize)] = &[
        ("ID", 36),
        ("NAME", 28),
        ("EMAIL", 32),
        ("EXTERNAL ID", 20),
        ("CREATED", 30),
    ];
    fn table_cells(&self) -> Vec<String> {
        let dash = || "—".to_string();
        vec![
            self.id.to_string(),
            self.name.clone().unwrap_or_else(dash),
            self.email.clone().unwrap_or_else(dash),
            self.external_id.clone().unwrap_or_else(dash),
            self.created_at.as_ref().map(ts).unwrap_or_else(dash),
        ]
    }
}
