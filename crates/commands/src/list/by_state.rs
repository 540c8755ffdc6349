//! `convo list conversations --breaching / --imminent`: the waiting conversations
//! (`status=open&unassigned=true`, asked of the server) kept by their standing against the
//! first-response target, a filter applied here after each page (the service has no such
//! filter). Each row gets `due_secs` (seconds left, negative when overdue) in json, jsonl and
//! csv, and a DUE column in the table.

use std::io;

use convo_api::{Assignee, Client, Conversation, ConversationFilter, Limit, Status};
use convo_engine::walk::Walk;
use convo_query::exit::ListError;
use convo_query::options::{ConversationOptions, Format, conversation_filter};
use convo_query::output::{
    CsvStyle, Output, Printable, TableCol, csv::push_record, json_terminal_safe, stderr,
};
use convo_query::query::pages::Pages;

use super::Tally;
use convo_engine::sla::{Due, Sla, State};

/// Test-only, as for `convo summary`: the instant states are measured at (RFC 3339).
const NOW_ENV: &str = "CONVO_NOW";

/// Which states to keep.
#[derive(Debug, Clone, Copy)]
pub struct Wanted {
    pub imminent: bool,
    pub breaching: bool,
}

impl Wanted {
    fn keeps(self, s: State) -> bool {
        (self.imminent && s == State::Imminent) || (self.breaching && s == State::Breaching)
    }
}

fn usage(m: String) -> ListError {
    ListError::Usage(m)
}

/// The filter: the one given, narrowed to waiting conversations; anything that contradicts
/// waiting is refused.
fn waiting_filter(args: &ConversationOptions) -> Result<ConversationFilter, ListError> {
    let mut f = conversation_filter(&args.filter)?;
    if f.status.as_ref().is_some_and(|s| *s != Status::Open) {
        return Err(usage(
            "--breaching and --imminent look at waiting conversations (open, unassigned): \
             leave out --status or use --status open"
                .into(),
        ));
    }
    if !matches!(f.assignee, Assignee::Any | Assignee::Unassigned) {
        return Err(usage(
            "--breaching and --imminent look at waiting conversations (open, unassigned): \
             leave out the assignee filter or use --assignee none"
                .into(),
        ));
    }
    f.status = Some(Status::Open);
    f.assignee = Assignee::Unassigned;
    Ok(f)
}

fn now() -> Result<jiff::Timestamp, ListError> {
    match std::env::var(NOW_ENV) {
        Err(_) => Ok(jiff::Timestamp::now()),
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|e| usage(format!("{NOW_ENV}: not an RFC 3339 time ({e})"))),
    }
}

fn pipe(r: io::Result<()>) -> Result<bool, ListError> {
    match r {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(ListError::Io(e)),
    }
}

/// Runs the filtered list. Walks every page (the oldest waiting conversations come last in the
/// server's order) until `--max` rows were printed.
pub async fn conversations(
    client: &Client,
    args: &ConversationOptions,
    page_size: Limit,
    sla: &Sla,
    wanted: Wanted,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    let filter = waiting_filter(args)?;
    if !sla.is_tracked(convo_engine::sla::Target::FirstResponse) {
        return Err(usage(
            "--breaching and --imminent need a first_response target in [sla] of the config \
             (see config.example.toml)"
                .into(),
        ));
    }
    let now = now()?;
    let limit = args.common.limit_or(page_size)?;
    let max = args.common.max;
    let csv = CsvStyle::stdout(o.out_is_terminal, args.common.csv_raw);
    let mut w = DueRows::new(args.common.format, csv, o.err_is_terminal);
    w.begin(o)?;
    let mut pages: Pages<_, Conversation> = Pages::new(client, &filter, limit, false);
    while w.tally.open && max.is_none_or(|m| w.tally.printed < m) {
        let clear = stderr::clear(w.tally.progress);
        let mut on_retry = |line: &str| {
            let _ = writeln!(o.err, "{clear}{line}");
        };
        let arrived = match pages.next(|_| false, &mut on_retry).await {
            None => break,
            Some(Ok(a)) => a,
            Some(Err(e)) => return Err(w.fail(o, e)),
        };
        w.tally.bad_rows(o, &arrived);
        let kept = pages.drain_rows().filter_map(|row| {
            let due = sla.first_response(&row, now)?;
            wanted.keeps(due.state).then_some((row, due))
        });
        if !w.rows(o, kept, max)? {
            break;
        }
        w.tally.progress(o, pages.walk());
    }
    w.end(o, pages.walk())
}

/// The kept rows with their `due_secs` (json, jsonl, csv) or DUE column (the table); the
/// query's walk (`--breaching -q …`) writes its rows with it too.
pub(crate) struct DueRows {
    fmt: Format,
    csv: CsvStyle,
    /// No JSON row written yet.
    first: bool,
    table: Vec<Vec<String>>,
    tally: Tally,
}

impl DueRows {
    pub(crate) fn new(fmt: Format, csv: CsvStyle, progress: bool) -> DueRows {
        DueRows {
            fmt,
            csv,
            first: true,
            table: Vec::new(),
            tally: Tally::new(progress),
        }
    }

    /// Whether stdout still takes rows.
    pub(crate) fn is_open(&self) -> bool {
        self.tally.open
    }

    /// The CSV header (with `due_secs`) or JSON's `[`.
    pub(crate) fn begin(&mut self, o: &mut Output<'_>) -> Result<(), ListError> {
        if self.fmt == Format::Csv {
            let mut h = Conversation::CSV_HEADER.join(",");
            h.push_str(",due_secs\n");
            self.tally.open = pipe(o.out.write_all(h.as_bytes()))?;
        }
        if self.tally.open && self.fmt == Format::Json {
            self.tally.open = pipe(o.out.write_all(b"["))?;
        }
        Ok(())
    }

    /// The error a walk ends with; JSON's array is closed first, so the output stays one.
    fn fail(&self, o: &mut Output<'_>, e: convo_api::ApiError) -> ListError {
        let _ = write!(o.err, "{}", stderr::clear(self.tally.progress));
        if self.fmt == Format::Json {
            let _ = pipe(o.out.write_all(b"\n]\n"));
        }
        e.into()
    }

    /// Prints a page's kept rows and flushes them; `false` when `max` rows were printed
    /// before the page's end (the walk stops there).
    fn rows(
        &mut self,
        o: &mut Output<'_>,
        rows: impl Iterator<Item = (Conversation, Due)>,
        max: Option<u64>,
    ) -> Result<bool, ListError> {
        for (row, due) in rows {
            if max.is_some_and(|m| self.tally.printed >= m) {
                return Ok(false);
            }
            if !self.row(o, &row, &due)? {
                break;
            }
        }
        if self.tally.open && !pipe(o.out.flush())? {
            self.tally.open = false;
        }
        Ok(true)
    }

    /// Prints one row (a table's is kept for the end); `false` when stdout is closed.
    pub(crate) fn row(
        &mut self,
        o: &mut Output<'_>,
        row: &Conversation,
        due: &Due,
    ) -> Result<bool, ListError> {
        self.tally.printed += 1;
        if let Some(line) = self.line(row, due)?
            && !pipe(o.out.write_all(line.as_bytes()))?
        {
            self.tally.open = false;
        }
        Ok(self.tally.open)
    }

    /// One row's line; `None` for the table, which keeps its cells for the end.
    fn line(&mut self, row: &Conversation, due: &Due) -> Result<Option<String>, ListError> {
        Ok(Some(match self.fmt {
            Format::Json | Format::Jsonl => {
                let mut buf = Vec::with_capacity(256);
                row.json_into(&mut buf)
                    .map_err(|e| ListError::Io(io::Error::other(e.to_string())))?;
                // The row's object with one more member.
                if buf.last() == Some(&b'}') {
                    buf.pop();
                    buf.extend_from_slice(format!(",\"due_secs\":{}}}", due.due_secs).as_bytes());
                }
                let json = json_terminal_safe(String::from_utf8_lossy(&buf).into_owned());
                if self.fmt == Format::Json {
                    let sep = if self.first { "\n  " } else { ",\n  " };
                    self.first = false;
                    format!("{sep}{json}")
                } else {
                    format!("{json}\n")
                }
            }
            Format::Csv => {
                let mut fields = row.csv_fields();
                fields.push(due.due_secs.to_string());
                let mut l = String::new();
                push_record(&mut l, &fields, self.csv);
                l
            }
            Format::Table => {
                let mut cells = row.table_cells();
                cells.push(due.label());
                self.table.push(cells);
                return Ok(None);
            }
        }))
    }

    /// JSON's `]` or the aligned table with its DUE column, then the walk's warnings.
    fn end(self, o: &mut Output<'_>, walk: &Walk<Conversation>) -> Result<(), ListError> {
        let _ = write!(o.err, "{}", stderr::clear(self.tally.progress));
        self.finish(o)?;
        Tally::warnings(o, walk);
        if self.tally.bad_rows > 0 {
            return Err(ListError::BadRows(self.tally.bad_rows));
        }
        Ok(())
    }

    /// Flushes, then JSON's `]` or the aligned table with its DUE column.
    pub(crate) fn finish(&self, o: &mut Output<'_>) -> Result<(), ListError> {
        if !self.tally.open {
            return Ok(());
        }
        match self.fmt {
            Format::Json => {
                let end = if self.first {
                    b"]\n" as &[u8]
                } else {
                    b"\n]\n"
                };
                pipe(o.out.write_all(end))?;
            }
            Format::Table => {
                let mut cols: Vec<TableCol> = Conversation::TABLE.to_vec();
                cols.push(TableCol::new("DUE", 12, 12).kept());
                pipe(o.table(&cols, &self.table))?;
            }
            _ => {}
        }
        pipe(o.out.flush())?;
        Ok(())
    }
}
