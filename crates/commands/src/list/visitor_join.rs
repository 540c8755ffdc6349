//! Conversations with their visitors, for `convo list conversations`:
//! - `--with-visitor` adds each row's visitor from the local store (`"visitor": null` in JSON,
//!   `visitorKnown` false in CSV when the store does not know it; a count on stderr says how
//!   many).
//! - `--visitor-email E` asks the service for the visitors with that e-mail (always: the
//!   store may be stale), walks each one's conversations (`visitor_id`) and merges them newest
//!   first, as docs/design.md "Demo server" orders rows ([`convo_query::query::by_email`], which the browser shares).

use std::collections::HashMap;
use std::io::Write;

use uuid::Uuid;

use convo_api::{Client, Conversation, ConversationFilter, Limit};
use convo_query::exit::ListError;
use convo_query::options::{ConversationOptions, Format, conversation_filter};
use convo_query::output::{CsvStyle, Output, Printable, csv, has_byte_from_7f, json_terminal_safe};
use convo_query::query::by_email::{newest_first, visitors_by_email, walk_one};
use convo_store::{Store, StoredVisitor};

/// CSV columns added by `--with-visitor`.
const VISITOR_CSV: &[&str] = &[
    "visitorKnown",
    "visitorName",
    "visitorEmail",
    "visitorExternalId",
    "visitorAttributes",
];

/// Writes rows in the chosen format, joined with their visitors when asked.
pub(crate) struct Printer<'s> {
    fmt: Format,
    csv: CsvStyle,
    /// `--with-visitor`: the store to read (`None`: none could be opened, every row unknown).
    join: Option<Option<&'s Store>>,
    cache: HashMap<Uuid, Option<StoredVisitor>>,
    first: bool,
    table: Vec<Vec<String>>,
    printed: u64,
    unknown: u64,
    open: bool,
}

fn quiet(r: std::io::Result<()>) -> Result<bool, ListError> {
    match r {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(ListError::Io(e)),
    }
}

impl<'s> Printer<'s> {
    pub(crate) fn new(fmt: Format, csv: CsvStyle, join: Option<Option<&'s Store>>) -> Self {
        Printer {
            fmt,
            csv,
            join,
            cache: HashMap::new(),
            first: true,
            table: Vec::new(),
            printed: 0,
            unknown: 0,
            open: true,
        }
    }

    fn visitor(&mut self, id: Uuid) -> Option<StoredVisitor> {
        let store = self.join.flatten()?;
        self.cache
            .entry(id)
            .or_insert_with(|| store.visitor(id).ok().flatten())
            .clone()
    }

    pub(crate) fn start(&mut self, out: &mut dyn Write) -> Result<bool, ListError> {
        let ok = match self.fmt {
            Format::Csv => {
                let mut l = String::new();
                let header: Vec<&str> = if self.join.is_some() {
                    Conversation::CSV_HEADER
                        .iter()
                        .chain(VISITOR_CSV)
                        .copied()
                        .collect()
                } else {
                    Conversation::CSV_HEADER.to_vec()
                };
                csv::push_record(&mut l, &header, CsvStyle::RAW);
                quiet(out.write_all(l.as_bytes()))?
            }
            Format::Json => quiet(write!(out, "["))?,
            _ => true,
        };
        self.open = ok;
        Ok(ok)
    }

    fn rows(&mut self, rows: &[Conversation], out: &mut dyn Write) -> Result<(), ListError> {
        for c in rows {
            if !self.row(c, out)? {
                return Ok(());
            }
        }
        if self.open && !quiet(out.flush())? {
            self.open = false;
        }
        Ok(())
    }

    /// Writes one row (a table's is kept for the end); `false` when stdout is closed.
    pub(crate) fn row(&mut self, c: &Conversation, out: &mut dyn Write) -> Result<bool, ListError> {
        if !self.open {
            return Ok(false);
        }
        self.printed += 1;
        let v = if self.join.is_some() {
            let v = self.visitor(c.visitor_id);
            if v.is_none() {
                self.unknown += 1;
            }
            v
        } else {
            None
        };
        let mut line: Vec<u8> = Vec::with_capacity(320);
        match self.fmt {
            Format::Json | Format::Jsonl => self.json_line(c, v.as_ref(), &mut line)?,
            Format::Csv => line = self.csv_line(c, v).into_bytes(),
            Format::Table => {
                let mut cells = c.table_cells();
                if let Some(name) = v.as_ref().and_then(|v| v.display_name())
                    && let Some(cell) = cells.get_mut(3)
                {
                    *cell = name.to_string();
                }
                self.table.push(cells);
                return Ok(true);
            }
        }
        if !quiet(out.write_all(&line))? {
            self.open = false;
        }
        Ok(self.open)
    }

    /// A row's JSON (with `"visitor"` when joined), terminal-safe, into `line`.
    fn json_line(
        &mut self,
        c: &Conversation,
        v: Option<&StoredVisitor>,
        line: &mut Vec<u8>,
    ) -> Result<(), ListError> {
        if self.fmt == Format::Json {
            line.extend_from_slice(if self.first { b"\n  " } else { b",\n  " });
            self.first = false;
        }
        let start = line.len();
        c.json_into(line)
            .map_err(|e| ListError::Io(std::io::Error::other(e.to_string())))?;
        if self.join.is_some() && line.last() == Some(&b'}') {
            line.pop();
            line.extend_from_slice(b",\"visitor\":");
            let value = match v {
                Some(v) => serde_json::json!({
                    "id": v.id,
                    "name": v.name,
                    "email": v.email,
                    "externalId": v.external_id,
                    "attributes": v.attributes_json(),
                }),
                None => serde_json::Value::Null,
            };
            serde_json::to_writer(&mut *line, &value)
                .map_err(|e| ListError::Io(std::io::Error::other(e.to_string())))?;
            line.push(b'}');
        }
        if has_byte_from_7f(&line[start..]) {
            let json = String::from_utf8_lossy(&line[start..]).into_owned();
            let safe = json_terminal_safe(json);
            line.truncate(start);
            line.extend_from_slice(safe.as_bytes());
        }
        if self.fmt == Format::Jsonl {
            line.push(b'\n');
        }
        Ok(())
    }

    /// A row's CSV record, with the visitor's columns when joined.
    fn csv_line(&self, c: &Conversation, v: Option<StoredVisitor>) -> String {
        let mut fields = c.csv_fields();
        if self.join.is_some() {
            let known = v.is_some();
            let v = v.unwrap_or(StoredVisitor {
                id: c.visitor_id,
                name: None,
                email: None,
                external_id: None,
                attributes: None,
                created_at: None,
                seen_at: 0,
            });
            fields.extend([
                known.to_string(),
                v.name.unwrap_or_default(),
                v.email.unwrap_or_default(),
                v.external_id.unwrap_or_default(),
                v.attributes.unwrap_or_default(),
            ]);
        }
        let mut l = String::new();
        csv::push_record(&mut l, &fields, self.csv);
        l
    }

    pub(crate) fn finish(&mut self, o: &mut Output<'_>) -> Result<(), ListError> {
        if self.open {
            match self.fmt {
                Format::Json => {
                    quiet(writeln!(o.out, "{}]", if self.first { "" } else { "\n" }))?;
                }
                Format::Table => {
                    quiet(o.table(Conversation::TABLE, &self.table))?;
                }
                _ => {}
            }
            quiet(o.out.flush())?;
        }
        if self.join.is_some() && self.unknown > 0 {
            let _ = writeln!(
                o.err,
                "convo: {} of {} rows had no visitor known in the local store (\"visitor\": null, visitorKnown false); `convo store sync` fetches them",
                self.unknown, self.printed
            );
        }
        Ok(())
    }
}

/// `convo list conversations` with `--with-visitor` and/or `--visitor-email`.
pub async fn conversations(
    client: &Client,
    args: &ConversationOptions,
    page_size: Limit,
    mut store: Option<Store>,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    let filter = conversation_filter(&args.filter)?;
    let common = &args.common;
    let (limit, cap) = common.paging(page_size)?;
    let ids = match args.visitor_email.as_deref() {
        Some(email) => {
            let ids = visitors_by_email(client, email, store.as_mut(), o.err).await?;
            if ids.is_empty() {
                return Err(ListError::NoVisitor(email.trim().to_string()));
            }
            Some(ids)
        }
        None => None,
    };
    let csv = CsvStyle::stdout(o.out_is_terminal, common.csv_raw);
    let mut printer = Printer::new(
        common.format,
        csv,
        args.with_visitor.then_some(store.as_ref()),
    );
    printer.start(o.out)?;
    let mut bad_rows = 0usize;
    let more = match ids {
        None => {
            let out = &mut *o.out;
            let mut print = |rows: Vec<Conversation>| {
                printer.rows(&rows, out)?;
                Ok(printer.open)
            };
            walk_one(
                client,
                &filter,
                limit,
                cap,
                &mut bad_rows,
                o.err,
                &mut print,
            )
            .await?
        }
        Some(ids) => {
            let paging = (limit, cap);
            let (all, more) = merged(client, &filter, &ids, paging, &mut bad_rows, o.err).await?;
            printer.rows(&all, o.out)?;
            more
        }
    };
    printer.finish(o)?;
    if !common.all && more && printer.open {
        let _ = writeln!(
            o.err,
            "convo: {} rows shown; more exist (use --all or --max N)",
            printer.printed
        );
    }
    if bad_rows > 0 {
        return Err(ListError::BadRows(bad_rows));
    }
    Ok(())
}

/// `--visitor-email`: one walk per visitor under `filter`'s other filters, each to the cap;
/// then merged newest first, each id once, and cut to the cap. The rows, and whether more
/// exist past the cap.
async fn merged(
    client: &Client,
    filter: &ConversationFilter,
    visitors: &[Uuid],
    (limit, cap): (Limit, Option<u64>),
    bad_rows: &mut usize,
    err: &mut dyn Write,
) -> Result<(Vec<Conversation>, bool), ListError> {
    let mut all = Vec::new();
    let mut more = false;
    for id in visitors {
        let f = ConversationFilter {
            visitor_id: Some(*id),
            ..filter.clone()
        };
        more |= walk_one(client, &f, limit, cap, bad_rows, err, &mut |rows| {
            all.extend(rows);
            Ok(true)
        })
        .await?;
    }
    all.sort_by(newest_first);
    all.dedup_by_key(|c| c.id);
    if let Some(c) = cap
        && all.len() as u64 > c
    {
        all.truncate(c as usize);
        more = true;
    }
    Ok((all, more))
}
