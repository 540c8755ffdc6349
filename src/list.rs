//! `convo list`: one page, `--max N` rows or `--all` of a list, for scripts.
//!
//! Data goes to stdout, progress (on a terminal only), warnings and errors to stderr.
//! jsonl, csv and json stream page by page through the pager's `drain_rows`, so memory stays
//! flat on long walks; the table is aligned, so it is written at the end.

use crate::api::{ApiError, Client, Conversation, Limit, ListFilter, Visitor};
use crate::exit::{ListError, no_visitor_with_email, quiet_pipe};
use crate::options::{CommonOptions, ConversationOptions, Format, VisitorOptions};
use crate::options::{conversation_filter, visitor_filter};
use crate::output::{CsvStyle, Output, Printable, bad_row_line, retry_line, stderr};
use crate::pager::Pager;

pub mod by_state;
pub mod query;
mod rows;

pub(crate) use rows::RowWriter;

/// Runs `convo list conversations` (with `--breaching` / `--imminent`: [`by_state`]).
pub async fn conversations(
    client: &Client,
    args: &ConversationOptions,
    page_size: Limit,
    sla: &crate::sla::Sla,
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
    store: Option<crate::store::Store>,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    // Every row is kept in the local store (when there is one); a store failure is said once
    // and the listing goes on without it.
    let mut store = store;
    let mut failed: Option<crate::store::StoreError> = None;
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

async fn walk<F: ListFilter, T: Printable>(
    client: &Client,
    filter: &F,
    common: &CommonOptions,
    page_size: Limit,
    o: &mut Output<'_>,
    on_rows: &mut dyn FnMut(&[T]),
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
    let fmt = common.format;
    let mut writer = RowWriter::new(fmt, CsvStyle::stdout(o.out_is_terminal, common.csv_raw));
    if !writer.begin::<T>(o)? {
        return Ok(());
    }
    let progress = o.err_is_terminal && max.is_none_or(|m| m > limit.get() as u64);
    let mut open = true;
    // A walk runs at the network's pace: when a page arrives, the next one is asked for from
    // its `next_cursor` (read from the end of the body, `peek_next`) before the page is
    // decoded and written, so the server works while convo decodes and prints. The guess is
    // checked against the pager once the page is decoded; a wrong one is cancelled and the
    // right request sent. Still one request in flight, and only on `--all`: with `--max` or
    // one page, the next page is asked for once the pager says its rows will be printed.
    let speculate = max.is_none() && !one_page;
    let mut in_flight: Option<Fetch> = None;
    let fail = |o: &mut Output<'_>, e: ApiError| {
        let _ = write!(o.err, "{}", stderr::clear(progress));
        if fmt == Format::Json {
            let _ = quiet_pipe(writeln!(o.out, "]"));
        }
        Err(e.into())
    };
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
            let _ = writeln!(o.err, "{}{line}", stderr::clear(progress));
        }
        let body = match result {
            Ok(b) => b,
            Err(e) => return fail(o, e),
        };
        let mut guess = None;
        if speculate
            && let Some((true, Some(c))) = crate::api::model::peek_next(&body)
            && pager.would_follow(c)
        {
            guess = Some((
                Fetch::start(client, filter, limit, Some(c.into())),
                c.to_string(),
            ));
            Fetch::let_it_leave().await;
        }
        let page = match client.decode_page::<T>(&body) {
            Ok(p) => p,
            Err(e) => return fail(o, e),
        };
        drop(body);
        let page_no = pager.pages() + 1;
        let applied = pager.apply(page);
        for b in &applied.bad_rows {
            bad_rows += 1;
            let _ = writeln!(
                o.err,
                "{}{}",
                stderr::clear(progress),
                bad_row_line(b, page_no)
            );
        }
        let wanted_more = max.is_none_or(|m| printed + (pager.rows().len() as u64) < m);
        if !one_page
            && wanted_more
            && let Some(cursor) = pager.next_request()
        {
            in_flight = Some(match guess.take() {
                Some((f, asked)) if cursor.as_deref() == Some(asked.as_str()) => f,
                _ => {
                    // No guess, or a wrong one (dropping it cancels it): ask now, and let the
                    // request go out before the rows are written.
                    drop(guess.take());
                    let f = Fetch::start(client, filter, limit, cursor);
                    Fetch::let_it_leave().await;
                    f
                }
            });
        }
        // A guess the pager did not take (the walk ends) is cancelled here.
        drop(guess);
        on_rows(pager.rows());
        for row in pager.drain_rows() {
            if max.is_some_and(|m| printed >= m) {
                break;
            }
            printed += 1;
            if !writer.row(o, &row)? {
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
            let line = stderr::progress_line(
                &printed.to_string(),
                "rows",
                pager.pages(),
                pager.has_more(),
            );
            let _ = write!(o.err, "{line}");
        }
    }
    let _ = write!(o.err, "{}", stderr::clear(progress));
    if open {
        writer.end::<T>(o)?;
    }
    for w in pager.warnings().messages() {
        if !w.contains("unreadable") {
            let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
        }
    }
    if one_page && pager.has_more() {
        let _ = writeln!(
            o.err,
            "convo: {printed} rows shown; more exist (use --all or --max N)"
        );
    }
    // A walk that wanted more rows and was cut short by the service is not a complete list.
    let wanted_more = !one_page && max.is_none_or(|m| printed < m);
    if open && wanted_more && pager.warnings().ended_early() {
        return Err(ListError::Truncated);
    }
    if bad_rows > 0 {
        return Err(ListError::BadRows(bad_rows));
    }
    Ok(())
}

/// One page request running on its own task, with the retry notices it heard. The body comes
/// back undecoded: the walk reads the next cursor from it first.
struct Fetch {
    task: tokio::task::JoinHandle<Result<Vec<u8>, ApiError>>,
    retries: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Fetch {
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
            client.get_body(url, &on_retry).await
        });
        Fetch { task, retries }
    }

    /// Lets a request just started reach the socket before the walk turns to work that does
    /// not yield (decoding, writing): `list` runs on one thread.
    async fn let_it_leave() {
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
    }

    /// The body (or the error), and the retry notices to print before it.
    async fn finish(mut self) -> (Result<Vec<u8>, ApiError>, Vec<String>) {
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

impl Drop for Fetch {
    /// A request nobody waits for any more (broken pipe, an error) is cancelled.
    fn drop(&mut self) {
        self.task.abort();
    }
}
