//! The rows of `convo list` in its formats, shared by the plain walk and the query's.

use std::io;

use convo_api::Row;
use convo_engine::walk::Walk;
use convo_query::exit::{ListError, quiet_pipe};
use convo_query::options::Format;
use convo_query::output::{
    CsvStyle, Output, Printable, bad_row_line, csv, has_byte_from_7f, json_terminal_safe, stderr,
};
use convo_query::query::pages::Arrived;

/// What a walk of `convo list` has printed so far, and what it says on stderr as it goes.
pub(crate) struct Tally {
    /// A progress line on stderr (a terminal, and more than one page wanted).
    pub(crate) progress: bool,
    pub(crate) printed: u64,
    pub(crate) bad_rows: usize,
    /// Stdout still takes rows (not closed by `| head`).
    pub(crate) open: bool,
}

impl Tally {
    pub(crate) fn new(progress: bool) -> Tally {
        Tally {
            progress,
            printed: 0,
            bad_rows: 0,
            open: true,
        }
    }

    /// Names the rows of a page that could not be read.
    pub(crate) fn bad_rows(&mut self, o: &mut Output<'_>, arrived: &Arrived) {
        let clear = stderr::clear(self.progress);
        for b in &arrived.bad_rows {
            self.bad_rows += 1;
            let _ = writeln!(o.err, "{clear}{}", bad_row_line(b, arrived.page_no));
        }
    }

    /// The progress line, after a page.
    pub(crate) fn progress<T: Row>(&self, o: &mut Output<'_>, walk: &Walk<T>) {
        if self.progress {
            let line = stderr::progress_line(
                &self.printed.to_string(),
                "rows",
                walk.pages(),
                walk.has_more(),
            );
            let _ = write!(o.err, "{line}");
        }
    }

    /// The walk's warnings, at its end (unreadable rows were named as they came).
    pub(crate) fn warnings<T: Row>(o: &mut Output<'_>, walk: &Walk<T>) {
        for w in walk.warnings().messages() {
            if !w.contains("unreadable") {
                let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
            }
        }
    }
}

/// Writes rows in one of the formats: header, rows, end. Table rows are kept and aligned at
/// the end; the others stream.
pub(crate) struct RowWriter {
    fmt: Format,
    csv_style: CsvStyle,
    first: bool,
    table: Vec<Vec<String>>,
    line_buf: Vec<u8>,
}

impl RowWriter {
    pub(crate) fn new(fmt: Format, csv_style: CsvStyle) -> RowWriter {
        RowWriter {
            fmt,
            csv_style,
            first: true,
            table: Vec::new(),
            line_buf: Vec::with_capacity(512),
        }
    }

    /// The CSV header or JSON's `[`; `false` when stdout is closed.
    pub(crate) fn begin<T: Printable>(&mut self, o: &mut Output<'_>) -> Result<bool, ListError> {
        match self.fmt {
            Format::Csv => quiet_pipe(writeln!(o.out, "{}", T::CSV_HEADER.join(","))),
            Format::Json => quiet_pipe(write!(o.out, "[")),
            _ => Ok(true),
        }
    }

    /// One row; `false` when stdout is closed (`| head`).
    pub(crate) fn row<T: Printable>(
        &mut self,
        o: &mut Output<'_>,
        row: &T,
    ) -> Result<bool, ListError> {
        let fmt = self.fmt;
        let line = match fmt {
            Format::Jsonl | Format::Json => {
                // One reused buffer; rows that are plain ASCII (the common case) skip the
                // terminal-safety pass.
                let line_buf = &mut self.line_buf;
                line_buf.clear();
                if fmt == Format::Json {
                    line_buf.extend_from_slice(if self.first { b"\n  " } else { b",\n  " });
                    self.first = false;
                }
                let start = line_buf.len();
                row.json_into(line_buf)
                    .map_err(|e| ListError::Io(io::Error::other(e.to_string())))?;
                if has_byte_from_7f(&line_buf[start..]) {
                    let json = String::from_utf8_lossy(&line_buf[start..]).into_owned();
                    let safe = json_terminal_safe(json);
                    line_buf.truncate(start);
                    line_buf.extend_from_slice(safe.as_bytes());
                }
                if fmt == Format::Jsonl {
                    line_buf.push(b'\n');
                }
                return quiet_pipe(o.out.write_all(line_buf));
            }
            Format::Csv => {
                let mut l = String::new();
                csv::push_row(&mut l, row, self.csv_style);
                l
            }
            Format::Table => {
                self.table.push(row.table_cells());
                return Ok(true);
            }
        };
        quiet_pipe(o.out.write_all(line.as_bytes()))
    }

    /// JSON's `]` (also after an error, so the output stays one array) or the aligned table.
    pub(crate) fn end<T: Printable>(&mut self, o: &mut Output<'_>) -> Result<(), ListError> {
        match self.fmt {
            Format::Json => {
                quiet_pipe(writeln!(o.out, "{}]", if self.first { "" } else { "\n" }))?;
            }
            Format::Table => {
                quiet_pipe(o.table(T::TABLE, &self.table))?;
            }
            _ => {}
        }
        Ok(())
    }
}
