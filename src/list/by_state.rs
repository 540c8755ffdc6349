//! `convo list conversations --breaching / --imminent`: the waiting conversations
//! (`status=open&unassigned=true`, asked of the server) kept by their standing against the
//! first-response target, a filter applied here after each page (the service has no such
//! filter). Each row gets `due_secs` (seconds left, negative when overdue) in json, jsonl and
//! csv, and a DUE column in the table.

use std::io;

use crate::api::{Assignee, Client, Conversation, ConversationFilter, Limit, Status};
use crate::options::ConversationOptions;
use crate::output::{
    CsvStyle, Output, Printable, TableCol, bad_row_line, csv::push_record, json_terminal_safe,
    retry_line, stderr,
};
use crate::pager::Pager;
use crate::sla::{Sla, State};

use crate::exit::ListError;
use crate::options::conversation_filter;

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
    if !sla.is_tracked(crate::sla::Target::FirstResponse) {
        return Err(usage(
            "--breaching and --imminent need a first_response target in [sla] of the config \
             (see config.example.toml)"
                .into(),
        ));
    }
    let now = now()?;
    let limit = match args.common.limit {
        Some(n) => Limit::new(n)?,
        None => page_size,
    };
    let max = args.common.max;
    let fmt = args.common.format;
    use crate::options::Format;
    let mut pager: Pager<Conversation> = Pager::new(limit.get());
    let progress = o.err_is_terminal;
    let clear = stderr::clear(progress);
    let mut printed: u64 = 0;
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut bad_rows = 0usize;
    let mut first = true;
    let mut open = true;
    if fmt == Format::Csv {
        let mut h = Conversation::CSV_HEADER.join(",");
        h.push_str(",due_secs\n");
        open = pipe(o.out.write_all(h.as_bytes()))?;
    }
    if open && fmt == Format::Json {
        open = pipe(o.out.write_all(b"["))?;
    }
    'walk: while open && max.is_none_or(|m| printed < m) {
        let Some(cursor) = pager.next_request() else {
            break;
        };
        let notes = std::sync::Mutex::new(Vec::<String>::new());
        let on_retry = |n: crate::api::RetryNotice| {
            if let Ok(mut v) = notes.lock() {
                v.push(retry_line(&n));
            }
        };
        let result = client
            .list::<_, Conversation>(&filter, limit, cursor.as_deref(), &on_retry)
            .await;
        for line in notes.into_inner().unwrap_or_default() {
            let _ = writeln!(o.err, "{clear}{line}");
        }
        let page = match result {
            Ok(p) => p,
            Err(e) => {
                let _ = write!(o.err, "{clear}");
                if fmt == Format::Json {
                    let _ = pipe(o.out.write_all(b"\n]\n"));
                }
                return Err(e.into());
            }
        };
        let page_no = pager.pages() + 1;
        let applied = pager.apply(page);
        for b in &applied.bad_rows {
            bad_rows += 1;
            let _ = writeln!(o.err, "{clear}{}", bad_row_line(b, page_no));
        }
        for row in pager.drain_rows() {
            let Some(due) = sla.first_response(&row, now) else {
                continue;
            };
            if !wanted.keeps(due.state) {
                continue;
            }
            if max.is_some_and(|m| printed >= m) {
                break 'walk;
            }
            printed += 1;
            let line = match fmt {
                Format::Json | Format::Jsonl => {
                    let mut buf = Vec::with_capacity(256);
                    row.json_into(&mut buf)
                        .map_err(|e| ListError::Io(io::Error::other(e.to_string())))?;
                    // The row's object with one more member.
                    if buf.last() == Some(&b'}') {
                        buf.pop();
                        buf.extend_from_slice(
                            format!(",\"due_secs\":{}}}", due.due_secs).as_bytes(),
                        );
                    }
                    let json = json_terminal_safe(String::from_utf8_lossy(&buf).into_owned());
                    if fmt == Format::Json {
                        let sep = if first { "\n  " } else { ",\n  " };
                        first = false;
                        format!("{sep}{json}")
                    } else {
                        format!("{json}\n")
                    }
                }
                Format::Csv => {
                    let mut fields = row.csv_fields();
                    fields.push(due.due_secs.to_string());
                    let mut l = String::new();
                    push_record(
                        &mut l,
                        &fields,
                        CsvStyle::stdout(o.out_is_terminal, args.common.csv_raw),
                    );
                    l
                }
                Format::Table => {
                    let mut cells = row.table_cells();
                    cells.push(due.label());
                    table.push(cells);
                    continue;
                }
            };
            if !pipe(o.out.write_all(line.as_bytes()))? {
                open = false;
                break;
            }
        }
        if open && !pipe(o.out.flush())? {
            open = false;
        }
        if progress {
            let line = stderr::progress_line(
                &printed.to_string(),
                "rows",
                pager.pages(),
                pager.has_more(),
            );
            let _ = write!(o.err, "{line}");
        }
    }
    let _ = write!(o.err, "{clear}");
    if open {
        match fmt {
            Format::Json => {
                pipe(
                    o.out
                        .write_all(if first { b"]\n" as &[u8] } else { b"\n]\n" }),
                )?;
            }
            Format::Table => {
                let mut cols: Vec<TableCol> = Conversation::TABLE.to_vec();
                cols.push(TableCol::new("DUE", 12, 12).kept());
                pipe(o.table(&cols, &table))?;
            }
            _ => {}
        }
    }
    for w in pager.warnings().messages() {
        if !w.contains("unreadable") {
            let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
        }
    }
    if bad_rows > 0 {
        return Err(ListError::BadRows(bad_rows));
    }
    Ok(())
}
