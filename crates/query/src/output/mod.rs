//! What convo writes for people and scripts, shared by `list`, `summary` and `tui`.
//!
//! Below those three and above `api`/`text` (arrows point down only):
//! - [`row`]: how a row reads as CSV fields, JSON and table cells ([`Printable`]).
//! - [`csv`]: one CSV field or record (RFC 4180 quoting, terminal sanitising).
//! - [`file`]: export files: new only, mode 0600, never left half written.
//! - [`json`]: JSON made terminal-safe without losing a character.
//! - [`table`]: the aligned table of `convo list`.
//! - [`stderr`]: the line formats on stderr: retries, unreadable rows, progress, warnings.

use std::io::Write;

pub mod csv;
pub mod file;
pub mod json;
pub mod row;
pub mod stderr;
pub mod table;

pub use csv::{CsvStyle, csv_field};
pub use file::{ExportError, ExportFile};
pub use json::{has_byte_from_7f, json_terminal_safe};
pub use row::{Printable, TableCol};
pub use stderr::{bad_row_line, retry_line};
pub use table::{fit_widths, write_table, write_table_cols};

/// Where a command (`list`, `summary`) writes.
pub struct Output<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    /// stdout is a terminal: CSV cells get sanitised.
    pub out_is_terminal: bool,
    /// stderr is a terminal: a progress line is shown.
    pub err_is_terminal: bool,
    /// `[aliases]` (and the demo's names): a table's site and agent UUIDs by name.
    pub aliases: convo_config::Aliases,
}

impl Output<'_> {
    /// The width a table on stdout must fit: the terminal's when stdout is one, `None` (never
    /// cut) when it is a pipe or a file, whatever `COLUMNS` says.
    pub fn table_width(&self) -> Option<usize> {
        terminal_size(self.out_is_terminal).map(|(w, _)| w)
    }

    /// Writes an aligned table to stdout ([`write_table_cols`]) fitted to [`Self::table_width`];
    /// the columns left out to fit are named on stderr.
    /// A row's cells with the UUIDs of [`TableCol::named`] columns by their alias, else short.
    fn named_cells(&self, cols: &[TableCol], row: &[String]) -> Vec<String> {
        row.iter()
            .zip(cols.iter().map(|c| c.named).chain(std::iter::repeat(false)))
            .map(
                |(cell, named)| match named.then(|| uuid::Uuid::parse_str(cell).ok()).flatten() {
                    Some(id) => match self.aliases.name(&id) {
                        Some(n) => n.to_string(),
                        None => convo_api::model::short_id(&id),
                    },
                    None => cell.clone(),
                },
            )
            .collect()
    }

    pub fn table(&mut self, cols: &[TableCol], rows: &[Vec<String>]) -> std::io::Result<()> {
        let width = self.table_width();
        let named: Vec<Vec<String>>;
        let rows = if cols.iter().any(|c| c.named) {
            named = rows.iter().map(|r| self.named_cells(cols, r)).collect();
            &named
        } else {
            rows
        };
        let hidden = write_table_cols(self.out, cols, rows, width)?;
        if let Some(line) = stderr::hidden_columns_line(&hidden, width) {
            let _ = writeln!(self.err, "{line}");
        }
        Ok(())
    }
}

/// The terminal's (columns, rows) when `is_terminal`: `COLUMNS` and `LINES` when set (as `ls`
/// and `less` read them), else the terminal's own size, else 80x24. `None` when not a terminal.
pub fn terminal_size(is_terminal: bool) -> Option<(usize, usize)> {
    if !is_terminal {
        return None;
    }
    let var = |k: &str| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
    };
    let (cols, rows) = crossterm::terminal::size()
        .map(|(c, r)| (usize::from(c), usize::from(r)))
        .unwrap_or((80, 24));
    Some((
        var("COLUMNS").unwrap_or(cols).max(1),
        var("LINES").unwrap_or(rows).max(1),
    ))
}
