//! Export (`e`): the loaded rows, or the whole filtered walk, to a new CSV or JSONL file with
//! `convo list`'s formatting. The path prompt and the loaded-rows export: [`update`]; the
//! whole-walk export: [`walk`]; writing the file (I/O, run by the runtime): [`write`].

pub mod update;
pub mod walk;
pub mod write;

use crate::api::Resource;
use crate::output::{CsvStyle, Printable, csv, json_terminal_safe};

/// A whole-walk export in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkExport {
    pub tab: Resource,
    /// The tab's walk it follows; another generation means the walk started over.
    pub generation: u64,
    /// Where it will be written (as typed).
    pub path: String,
}

/// An export being written, one part at a time: the rows `0..total` of the tab's walk of
/// `generation`, handed to the writer in parts of [`PART_ROWS`] (never the whole file in
/// `update`, never a copy of every row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportStream {
    pub id: u64,
    pub tab: Resource,
    pub generation: u64,
    /// Where it is written (as typed).
    pub path: String,
    pub total: usize,
    /// Rows handed to the writer so far.
    pub sent: usize,
    /// Rows the writer has written so far.
    pub written: usize,
}

/// Rows in one part of an export.
pub const PART_ROWS: usize = 5_000;

/// One part of an export's rows, copied out of the tab for the writer.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportPart {
    Conversations(Vec<crate::api::Conversation>),
    Visitors(Vec<crate::api::Visitor>),
}

// Rows compare as their fields do; a visitor's attributes are JSON, which holds no NaN.
impl Eq for ExportPart {}

impl ExportPart {
    /// The part as CSV rows (after the header when `first`) or JSONL; and its row count.
    pub fn format(&self, jsonl: bool, first: bool) -> (String, usize) {
        match self {
            ExportPart::Conversations(r) => format_part(r, jsonl, first),
            ExportPart::Visitors(r) => format_part(r, jsonl, first),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ExportPart::Conversations(r) => r.len(),
            ExportPart::Visitors(r) => r.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The CSV header of a tab's rows (an export of no rows is still a valid CSV file).
pub fn csv_header(tab: Resource) -> String {
    let mut out = String::new();
    match tab {
        Resource::Conversations => csv::push_header::<crate::api::Conversation>(&mut out),
        Resource::Visitors => csv::push_header::<crate::api::Visitor>(&mut out),
    }
    out
}

fn format_part<T: Printable>(rows: &[T], jsonl: bool, first: bool) -> (String, usize) {
    if jsonl || !first {
        let mut out = String::new();
        push_rows(&mut out, rows, jsonl);
        (out, rows.len())
    } else {
        format_rows(rows, false)
    }
}

fn push_rows<T: Printable>(out: &mut String, rows: &[T], jsonl: bool) {
    if jsonl {
        for r in rows {
            if let Ok(j) = serde_json::to_string(r) {
                out.push_str(&json_terminal_safe(j));
                out.push('\n');
            }
        }
    } else {
        for r in rows {
            csv::push_row(out, r, CsvStyle::FILE);
        }
    }
}

/// Rows as CSV (header first) or JSONL, with `convo list`'s formatting.
pub fn format_rows<T: Printable>(rows: &[T], jsonl: bool) -> (String, usize) {
    let mut out = String::new();
    if !jsonl {
        // A file: formulas guarded (it may be opened in a spreadsheet), bytes otherwise exact.
        csv::push_header::<T>(&mut out);
    }
    push_rows(&mut out, rows, jsonl);
    (out, rows.len())
}
