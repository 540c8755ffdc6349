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

/// Rows as CSV (header first) or JSONL, with `convo list`'s formatting.
pub fn format_rows<T: Printable>(rows: &[T], jsonl: bool) -> (String, usize) {
    let mut out = String::new();
    if jsonl {
        for r in rows {
            if let Ok(j) = serde_json::to_string(r) {
                out.push_str(&json_terminal_safe(j));
                out.push('\n');
            }
        }
    } else {
        // A file: formulas guarded (it may be opened in a spreadsheet), bytes otherwise exact.
        csv::push_header::<T>(&mut out);
        for r in rows {
            csv::push_row(&mut out, r, CsvStyle::FILE);
        }
    }
    (out, rows.len())
}
