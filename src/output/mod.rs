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
pub use row::Printable;
pub use stderr::{bad_row_line, retry_line};
pub use table::{write_table, write_table_cols};

/// Where a command (`list`, `summary`) writes.
pub struct Output<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    /// stdout is a terminal: CSV cells get sanitised.
    pub out_is_terminal: bool,
    /// stderr is a terminal: a progress line is shown.
    pub err_is_terminal: bool,
}
