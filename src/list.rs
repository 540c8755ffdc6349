//! `convo list`: one page, `--max N` rows or `--all` of a list, for scripts.
//!
//! Data goes to stdout, progress (on a terminal only), warnings and errors to stderr.
//! jsonl, csv and json stream page by page through the pager's `drain_rows`, so memory stays
//! flat on long walks; the table is aligned, so it is written at the end.

use std::io::{self, Write};

use serde::Serialize;

use crate::api::{
    ApiError, Assignee, Client, Conversation, ConversationFilter, FilterError, Limit, ListFilter,
    Row, Status, Visitor, VisitorFilter, filter::parse_uuid, model::WireRow, model::short_id,
};
use crate::cli::{CommonListArgs, ConversationArgs, ConversationFilterArgs, Format, VisitorArgs};
use crate::pager::Pager;
use crate::text;

/// Exit codes, as documented in `convo list --help` and the README.
pub mod exit {
    pub const OK: u8 = 0;
    pub const USAGE: u8 = 2;
    pub const KEY_REFUSED: u8 = 3;
    pub const NETWORK: u8 = 4;
    pub const BAD_DATA: u8 = 5;
}

/// The exit code for an API error.
pub fn exit_code(e: &ApiError) -> u8 {
    match e {
        ApiError::BadBaseUrl { .. }
        | ApiError::InsecureTransport { .. }
        | ApiError::Key(_)
        | ApiError::Filter(_)
        | ApiError::BadRequest { .. } => exit::USAGE,
        ApiError::Unauthorized { .. } => exit::KEY_REFUSED,
        ApiError::Http { .. }
        | ApiError::RateLimited { .. }
        | ApiError::Server { .. }
        | ApiError::Timeout { .. }
        | ApiError::Connect { .. }
        | ApiError::Network { .. }
        | ApiError::Redirect { .. } => exit::NETWORK,
        ApiError::Decode { .. } => exit::BAD_DATA,
    }
}

/// How a `list` run ended.
#[derive(Debug)]
pub enum ListError {
    Api(ApiError),
    /// Writing to stdout failed (not a broken pipe, which ends quietly).
    Io(io::Error),
    /// Every page arrived but some rows could not be read; they were reported on stderr.
    BadRows(usize),
}

impl ListError {
    pub fn exit_code(&self) -> u8 {
        match self {
            ListError::Api(e) => exit_code(e),
            ListError::Io(_) => 1,
            ListError::BadRows(_) => exit::BAD_DATA,
        }
    }
}

impl std::fmt::Display for ListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListError::Api(e) => write!(f, "{e}"),
            ListError::Io(e) => write!(f, "cannot write the output: {e}"),
            ListError::BadRows(n) => write!(
                f,
                "{n} rows sent by the service could not be read (see the warnings above)"
            ),
        }
    }
}

impl From<ApiError> for ListError {
    fn from(e: ApiError) -> Self {
        ListError::Api(e)
    }
}

impl From<FilterError> for ListError {
    fn from(e: FilterError) -> Self {
        ListError::Api(ApiError::Filter(e))
    }
}

/// Builds the conversations filter from the command line, validating every value.
pub fn conversation_filter(a: &ConversationFilterArgs) -> Result<ConversationFilter, FilterError> {
    let opt_uuid =
        |field, v: &Option<String>| v.as_deref().map(|s| parse_uuid(field, s)).transpose();
    let assignee = match &a.assignee {
        Some(s) => Assignee::parse(s)?,
        None => Assignee::from_spec_params(a.unassigned, opt_uuid("assignee_id", &a.assignee_id)?)?
            .unwrap_or_default(),
    };
    Ok(ConversationFilter {
        site_id: opt_uuid("site_id", &a.site_id)?,
        status: a
            .status
            .as_deref()
            .map(|s| Status::parse_filter(s).ok_or_else(|| FilterError::BadStatus(s.into())))
            .transpose()?,
        assignee,
        visitor_id: opt_uuid("visitor_id", &a.visitor_id)?,
    })
}

/// Builds the visitors filter from the command line.
pub fn visitor_filter(a: &VisitorArgs) -> VisitorFilter {
    VisitorFilter {
        email: a.email.clone(),
        external_id: a.external_id.clone(),
    }
}

/// A row as `list` prints it.
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
        ("CREATED", 20),
        ("UPDATED", 20),
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
        ("CREATED", 20),
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

/// Escapes, in serialised JSON, the characters serde_json leaves raw but a terminal could act
/// on (DEL, C1 controls, bidi and invisible format characters). They can only stand inside
/// JSON strings, so `\uXXXX` keeps the output valid and lossless.
pub fn json_terminal_safe(json: String) -> String {
    if text::is_clean(&json) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if text::is_clean(c.encode_utf8(&mut [0; 4])) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// True when a byte is 0x7f or above (DEL or part of a non-ASCII character), eight at a time.
fn has_byte_from_7f(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    // A byte's high bit, or its low seven bits all set (+1 carries into the high bit).
    let hit = words.any(|c| {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        (w | ((w & !HIGH) + ONES)) & HIGH != 0
    });
    hit || words.remainder().iter().any(|&c| c >= 0x7f)
}

/// The stderr line for a request the client is about to retry.
pub fn retry_line(n: &crate::api::RetryNotice) -> String {
    format!(
        "convo: {}; retrying in {:.1}s (attempt {})",
        n.reason,
        n.wait.as_secs_f32(),
        n.attempt + 1
    )
}

/// The stderr warning for a row of page `page_no` (from 1) that could not be read.
pub fn bad_row_line(b: &crate::api::BadRow, page_no: usize) -> String {
    format!(
        "convo: warning: row {} of page {page_no}{} could not be read: {}",
        b.index + 1,
        b.id.as_deref()
            .map(|i| format!(" (id {})", text::one_line(i, 40)))
            .unwrap_or_default(),
        text::one_line(&b.reason, 200)
    )
}

/// One CSV field, quoted when needed (RFC 4180). On a terminal, cells are sanitised too.
pub fn csv_field(s: &str, to_terminal: bool) -> String {
    let s = if to_terminal {
        text::sanitize(s)
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

/// Where a run writes.
pub struct Output<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    /// stdout is a terminal: CSV cells get sanitised.
    pub out_is_terminal: bool,
    /// stderr is a terminal: a progress line is shown.
    pub err_is_terminal: bool,
}

/// Runs `convo list conversations`.
pub async fn conversations(
    client: &Client,
    args: &ConversationArgs,
    page_size: Limit,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    let filter = conversation_filter(&args.filter)?;
    walk::<_, Conversation>(client, &filter, &args.common, page_size, o).await
}

/// Runs `convo list visitors`.
pub async fn visitors(
    client: &Client,
    args: &VisitorArgs,
    page_size: Limit,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    walk::<_, Visitor>(client, &visitor_filter(args), &args.common, page_size, o).await
}

/// Ignores a broken pipe (`convo list … | head`), reports other write errors.
fn quiet_pipe(r: io::Result<()>) -> Result<bool, ListError> {
    match r {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(ListError::Io(e)),
    }
}

async fn walk<F: ListFilter, T: Printable>(
    client: &Client,
    filter: &F,
    common: &CommonListArgs,
    page_size: Limit,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    let mut limit = match common.limit {
        Some(n) => Limit::new(n)?,
        None => page_size,
    };
    let max = if common.all {
        None
    } else if let Some(m) = common.max {
        // Ask for no more than needed.
        if m < limit.get() as u64 {
            limit = Limit::new(m.max(1) as i64)?;
        }
        Some(m)
    } else {
        Some(limit.get() as u64) // one page
    };
    let one_page = !common.all && common.max.is_none();
    let mut pager: Pager<T> = Pager::new(limit.get());
    let mut printed: u64 = 0;
    let mut bad_rows = 0usize;
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut first = true;
    let mut line_buf: Vec<u8> = Vec::with_capacity(512);
    let fmt = common.format;

    if fmt == Format::Csv && !quiet_pipe(writeln!(o.out, "{}", T::CSV_HEADER.join(",")))? {
        return Ok(());
    }
    if fmt == Format::Json && !quiet_pipe(write!(o.out, "["))? {
        return Ok(());
    }
    let progress = o.err_is_terminal && max.is_none_or(|m| m > limit.get() as u64);
    let mut open = true;
    // The next page is asked for as soon as the pager has the current one, and fetched while
    // the current one is written: the server works while convo prints. Still one request in
    // flight, and only when its rows will be printed (never past --max or one page).
    let mut in_flight: Option<Fetch<T>> = None;
    while open && max.is_none_or(|m| printed < m) {
        let fetch = match in_flight.take() {
            Some(f) => f,
            None => {
                let Some(cursor) = pager.next_request() else {
                    break;
                };
                Fetch::start(client, filter, limit, cursor)
            }
        };
        let (result, retry_lines) = fetch.finish().await;
        for line in retry_lines {
            let _ = writeln!(o.err, "{}{line}", if progress { "\r\x1b[K" } else { "" });
        }
        let page = match result {
            Ok(p) => p,
            Err(e) => {
                if progress {
                    let _ = write!(o.err, "\r\x1b[K");
                }
                if fmt == Format::Json {
                    let _ = quiet_pipe(writeln!(o.out, "]"));
                }
                return Err(e.into());
            }
        };
        let page_no = pager.pages() + 1;
        let applied = pager.apply(page);
        for b in &applied.bad_rows {
            bad_rows += 1;
            let _ = writeln!(
                o.err,
                "{}{}",
                if progress { "\r\x1b[K" } else { "" },
                bad_row_line(b, page_no)
            );
        }
        let wanted_more = max.is_none_or(|m| printed + (pager.rows().len() as u64) < m);
        if !one_page
            && wanted_more
            && let Some(cursor) = pager.next_request()
        {
            let f = Fetch::start(client, filter, limit, cursor);
            // Let the request go out before the rows are written.
            for _ in 0..4 {
                tokio::task::yield_now().await;
            }
            in_flight = Some(f);
        }
        for row in pager.drain_rows() {
            if max.is_some_and(|m| printed >= m) {
                break;
            }
            printed += 1;
            let line = match fmt {
                Format::Jsonl | Format::Json => {
                    // One reused buffer; rows that are plain ASCII (the common case) skip the
                    // terminal-safety pass.
                    line_buf.clear();
                    if fmt == Format::Json {
                        line_buf.extend_from_slice(if first { b"\n  " } else { b",\n  " });
                        first = false;
                    }
                    let start = line_buf.len();
                    row.json_into(&mut line_buf)
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
                    if !quiet_pipe(o.out.write_all(&line_buf))? {
                        open = false;
                        break;
                    }
                    continue;
                }
                Format::Csv => {
                    let mut l = row
                        .csv_fields()
                        .iter()
                        .map(|f| csv_field(f, o.out_is_terminal))
                        .collect::<Vec<_>>()
                        .join(",");
                    l.push('\n');
                    l
                }
                Format::Table => {
                    table.push(row.table_cells());
                    continue;
                }
            };
            if !quiet_pipe(o.out.write_all(line.as_bytes()))? {
                open = false;
                break;
            }
        }
        if open && !quiet_pipe(o.out.flush())? {
            open = false;
        }
        if one_page {
            break;
        }
        if progress {
            let _ = write!(
                o.err,
                "\r\x1b[K{} rows, {} pages{}",
                printed,
                pager.pages(),
                if pager.has_more() { ", more…" } else { "" }
            );
        }
    }
    if progress {
        let _ = write!(o.err, "\r\x1b[K");
    }
    if open {
        match fmt {
            Format::Json => {
                quiet_pipe(writeln!(o.out, "{}]", if first { "" } else { "\n" }))?;
            }
            Format::Table => {
                quiet_pipe(write_table::<T>(o.out, &table))?;
            }
            _ => {}
        }
    }
    for w in pager.warnings().messages() {
        if !w.contains("unreadable") {
            let _ = writeln!(o.err, "convo: warning: {w}");
        }
    }
    if one_page && pager.has_more() {
        let _ = writeln!(
            o.err,
            "convo: {printed} rows shown; more exist (use --all or --max N)"
        );
    }
    if bad_rows > 0 {
        return Err(ListError::BadRows(bad_rows));
    }
    Ok(())
}

/// One page request running on its own task, with the retry notices it heard.
struct Fetch<T> {
    task: tokio::task::JoinHandle<Result<crate::api::Page<T>, ApiError>>,
    retries: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl<T: Printable> Fetch<T> {
    fn start<F: ListFilter>(
        client: &Client,
        filter: &F,
        limit: Limit,
        cursor: Option<String>,
    ) -> Self {
        let url = client.page_url(F::RESOURCE, &filter.query_pairs(), limit, cursor.as_deref());
        let retries = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let heard = retries.clone();
        let client = client.clone();
        let task = tokio::spawn(async move {
            let on_retry = move |n: crate::api::RetryNotice| {
                if let Ok(mut e) = heard.lock() {
                    e.push(retry_line(&n));
                }
            };
            client.get_page::<T>(url, &on_retry).await
        });
        Fetch { task, retries }
    }

    /// The page (or the error), and the retry notices to print before it.
    async fn finish(mut self) -> (Result<crate::api::Page<T>, ApiError>, Vec<String>) {
        let result = match (&mut self.task).await {
            Ok(r) => r,
            Err(e) => Err(ApiError::Network {
                detail: format!("the request task ended: {e}"),
                attempts: 1,
            }),
        };
        let lines = self
            .retries
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default();
        (result, lines)
    }
}

impl<T> Drop for Fetch<T> {
    /// A request nobody waits for any more (broken pipe, an error) is cancelled.
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn write_table<T: Printable>(out: &mut dyn Write, rows: &[Vec<String>]) -> io::Result<()> {
    let cols = T::TABLE;
    let fitted: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .zip(cols)
                .map(|(cell, (_, max))| text::fit(cell, *max).into_owned())
                .collect()
        })
        .collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, (h, _))| {
            fitted
                .iter()
                .map(|r| text::width(&r[i]))
                .chain([h.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            l.push_str(c);
            if i + 1 < cells.len() {
                l.push_str(&" ".repeat(widths[i].saturating_sub(text::width(c)) + 2));
            }
        }
        l.push('\n');
        l
    };
    out.write_all(line(cols.iter().map(|(h, _)| *h).collect()).as_bytes())?;
    for r in &fitted {
        out.write_all(line(r.iter().map(String::as_str).collect()).as_bytes())?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_terminal_controls_losslessly() {
        let s = json_terminal_safe(serde_json::to_string("a\u{9b}b\u{202e}c\u{7f}").unwrap());
        assert_eq!(s, r#""a\u009bb\u202ec\u007f""#);
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "a\u{9b}b\u{202e}c\u{7f}");
        assert!(serde_json::to_string("\u{1b}").unwrap().contains("\\u001b"));
    }

    #[test]
    fn bytes_from_7f_found_anywhere() {
        for len in 0..20 {
            let clean = vec![b'~'; len];
            assert!(!has_byte_from_7f(&clean), "{len}");
            for at in 0..len {
                for bad in [0x7f, 0x80, 0xc3, 0xff] {
                    let mut v = clean.clone();
                    v[at] = bad;
                    assert!(has_byte_from_7f(&v), "{len} {at} {bad:#x}");
                }
                let mut v = clean.clone();
                v[at] = 0;
                assert!(!has_byte_from_7f(&v));
            }
        }
        assert!(!has_byte_from_7f(&(0u8..0x7f).collect::<Vec<_>>()));
    }

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("plain", false), "plain");
        assert_eq!(csv_field("a,b", false), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\"", false), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("x\u{1b}[2J", true), "x␛[2J");
    }
}
