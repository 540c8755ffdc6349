//! `convo list`: one page, `--max N` rows or `--all` of a list, for scripts.
//!
//! Data goes to stdout, progress (on a terminal only), warnings and errors to stderr.
//! jsonl, csv and json stream page by page through the walk's `drain_rows`: rows are not
//! held, only their ids (docs/design.md "Pagination safety"); the table is aligned, so it is
//! written at the end.

use convo_api::{ApiError, Client, Conversation, Limit, ListFilter, Visitor};
use convo_engine::walk::Walk;
use convo_query::exit::{ListError, no_visitor_with_email, quiet_pipe};
use convo_query::options::{CommonOptions, ConversationOptions, Format, VisitorOptions};
use convo_query::options::{conversation_filter, visitor_filter};
use convo_query::output::{CsvStyle, Output, Printable, stderr};
use convo_query::query::pages::Pages;

pub mod by_state;
pub mod query;
mod rows;
pub mod visitor_join;

pub(crate) use rows::{RowWriter, Tally};

/// Runs `convo list conversations` (with `--breaching` / `--imminent`: [`by_state`]).
pub async fn conversations(
    client: &Client,
    args: &ConversationOptions,
    page_size: Limit,
    sla: &convo_engine::sla::Sla,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    if args.breaching || args.imminent {
        let wanted = by_state::Wanted {
            imminent: args.imminent,
            breaching: args.breaching,
        };
        return by_state::conversations(client, args, page_size, sla, wanted, o).await;
    }
    let filter = conversation_filter(&args.filter)?;
    walk::<_, Conversation>(client, &filter, &args.common, page_size, o, &mut |_| {}).await
}

/// Runs `convo list visitors`.
pub async fn visitors(
    client: &Client,
    args: &VisitorOptions,
    page_size: Limit,
    store: Option<convo_store::Store>,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    // Every row is kept in the local store (when there is one); a store failure is said once
    // and the listing goes on without it.
    let mut store = store;
    let mut failed: Option<convo_store::StoreError> = None;
    let mut seen = 0usize;
    let mut keep = |rows: &[Visitor]| {
        seen += rows.len();
        if let Some(s) = store.as_mut()
            && let Err(e) = s.upsert_visitors(rows, jiff::Timestamp::now().as_second())
        {
            failed = Some(e);
            store = None;
        }
    };
    let r = walk::<_, Visitor>(
        client,
        &visitor_filter(args),
        &args.common,
        page_size,
        o,
        &mut keep,
    )
    .await;
    if let Some(e) = failed {
        let _ = writeln!(o.err, "convo: warning: {e}");
    }
    if r.is_ok()
        && seen == 0
        && let Some(email) = args.email.as_deref()
    {
        // The spec does not say how `email` matches; the service matches whole addresses, so
        // a part of one finds nothing: say so rather than print an empty list without a word.
        let _ = writeln!(o.err, "convo: {}", no_visitor_with_email(email));
    }
    r
}

/// Walks `filter`'s pages and prints their rows (`on_rows` sees each page's first), up to
/// `--max` rows, one page, or with `--all` to the end.
async fn walk<F: ListFilter, T: Printable>(
    client: &Client,
    filter: &F,
    common: &CommonOptions,
    page_size: Limit,
    o: &mut Output<'_>,
    on_rows: &mut dyn FnMut(&[T]),
) -> Result<(), ListError> {
    let (limit, max) = common.paging(page_size)?;
    let one_page = common.one_page();
    let mut w = Printing {
        writer: RowWriter::new(
            common.format,
            CsvStyle::stdout(o.out_is_terminal, common.csv_raw),
        ),
        fmt: common.format,
        max,
        one_page,
        tally: Tally::new(o.err_is_terminal && max.is_none_or(|m| m > limit.get() as u64)),
    };
    if !w.writer.begin::<T>(o)? {
        return Ok(());
    }
    // Only a walk of everything guesses the next page ([`Pages`]); with `--max` or one page,
    // the next page is asked for once the walk says its rows will be printed.
    let mut pages: Pages<F, T> = Pages::new(client, filter, limit, max.is_none() && !one_page);
    while w.tally.open && max.is_none_or(|m| w.tally.printed < m) {
        let printed = w.tally.printed;
        let wants_next =
            |p: &Walk<T>| !one_page && max.is_none_or(|m| printed + (p.rows().len() as u64) < m);
        let clear = stderr::clear(w.tally.progress);
        let mut on_retry = |line: &str| {
            let _ = writeln!(o.err, "{clear}{line}");
        };
        let arrived = match pages.next(wants_next, &mut on_retry).await {
            None => break,
            Some(Ok(a)) => a,
            Some(Err(e)) => return Err(w.fail(o, e)),
        };
        w.tally.bad_rows(o, &arrived);
        on_rows(pages.walk().rows());
        w.rows(o, pages.drain_rows())?;
        if one_page {
            break;
        }
        w.tally.progress(o, pages.walk());
    }
    w.end(o, pages.walk())
}

/// What a walk of `convo list` has printed, and how it prints.
struct Printing {
    writer: RowWriter,
    fmt: Format,
    /// The rows to print at most (`None`: all).
    max: Option<u64>,
    one_page: bool,
    tally: Tally,
}

impl Printing {
    /// The error a walk ends with; JSON's array is closed first, so the output stays one.
    fn fail(&self, o: &mut Output<'_>, e: ApiError) -> ListError {
        let _ = write!(o.err, "{}", stderr::clear(self.tally.progress));
        if self.fmt == Format::Json {
            let _ = quiet_pipe(writeln!(o.out, "]"));
        }
        e.into()
    }

    /// Prints a page's rows, up to the cap, and flushes them.
    fn rows<T: Printable>(
        &mut self,
        o: &mut Output<'_>,
        rows: impl Iterator<Item = T>,
    ) -> Result<(), ListError> {
        let t = &mut self.tally;
        for row in rows {
            if self.max.is_some_and(|m| t.printed >= m) {
                break;
            }
            t.printed += 1;
            if !self.writer.row(o, &row)? {
                t.open = false;
                break;
            }
        }
        if t.open && !quiet_pipe(o.out.flush())? {
            t.open = false;
        }
        Ok(())
    }

    /// The end of the output, the walk's warnings, and how it ended: a walk that wanted more
    /// rows and was cut short by the service is not a complete list.
    fn end<T: Printable>(mut self, o: &mut Output<'_>, walk: &Walk<T>) -> Result<(), ListError> {
        let t = &self.tally;
        let _ = write!(o.err, "{}", stderr::clear(t.progress));
        if t.open {
            self.writer.end::<T>(o)?;
        }
        Tally::warnings(o, walk);
        let printed = t.printed;
        if self.one_page && walk.has_more() {
            let _ = writeln!(
                o.err,
                "convo: {printed} rows shown; more exist (use --all or --max N)"
            );
        }
        let wanted_more = !self.one_page && self.max.is_none_or(|m| printed < m);
        if t.open && wanted_more && walk.warnings().ended_early() {
            return Err(ListError::Truncated);
        }
        if t.bad_rows > 0 {
            return Err(ListError::BadRows(t.bad_rows));
        }
        Ok(())
    }
}
