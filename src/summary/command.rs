//! `convo summary conversations`: walks the list with the pager, streaming each page into a
//! [`Summary`] (rows are dropped once counted, so memory stays flat), then prints it.
//!
//! Progress (on a terminal only), warnings and errors go to stderr as `convo list` writes them,
//! and the exit codes are the same. A walk cut short by `--max` or by an error still prints
//! what it counted, marked as partial.

use super::Summary;
use super::report::{self, Context};
use crate::api::{ApiError, Client, Conversation, FilterError, Limit};
use crate::cli::{SummaryArgs, SummaryFormat};
use crate::config::Aliases;
use crate::list::{ListError, conversation_filter, exit};
use crate::output::{Output, bad_row_line, retry_line, stderr};
use crate::pager::Pager;
use crate::text;

/// Test-only: the instant ages and staleness are measured to, as RFC 3339 (e.g.
/// `2026-11-22T12:00:00Z`, the demo data's reference time). Read by this command only, so
/// tests can compare ages with the demo dataset; leave it unset in real use.
pub const NOW_ENV: &str = "CONVO_NOW";

/// How a summary run ended badly.
#[derive(Debug)]
pub enum SummaryError {
    /// A bad value outside the filters (e.g. `CONVO_NOW`).
    Usage(String),
    /// The walk or the output failed, as `convo list` reports it.
    List(ListError),
}

impl SummaryError {
    pub fn exit_code(&self) -> u8 {
        match self {
            SummaryError::Usage(_) => exit::USAGE,
            SummaryError::List(e) => e.exit_code(),
        }
    }
}

impl std::fmt::Display for SummaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SummaryError::Usage(m) => f.write_str(m),
            SummaryError::List(e) => write!(f, "{e}"),
        }
    }
}

impl From<ListError> for SummaryError {
    fn from(e: ListError) -> Self {
        SummaryError::List(e)
    }
}

impl From<ApiError> for SummaryError {
    fn from(e: ApiError) -> Self {
        SummaryError::List(e.into())
    }
}

impl From<FilterError> for SummaryError {
    fn from(e: FilterError) -> Self {
        SummaryError::List(e.into())
    }
}

/// The instant to measure ages to: [`NOW_ENV`] when set (tests), else the clock.
pub fn now_from_env() -> Result<jiff::Timestamp, SummaryError> {
    match std::env::var(NOW_ENV) {
        Err(_) => Ok(jiff::Timestamp::now()),
        Ok(v) => v.trim().parse().map_err(|e| {
            SummaryError::Usage(format!(
                "{NOW_ENV}: {:?} is not an RFC 3339 time ({e})",
                text::one_line(&v, 40)
            ))
        }),
    }
}

/// Runs `convo summary conversations`.
pub async fn conversations(
    client: &Client,
    a: &SummaryArgs,
    page_size: Limit,
    stale_after_secs: i64,
    aliases: &Aliases,
    o: &mut Output<'_>,
) -> Result<(), SummaryError> {
    // Validated exactly as `list conversations` does.
    let base = conversation_filter(&a.filter)?;
    let now = now_from_env()?;
    let mut limit = match a.limit {
        Some(n) => Limit::new(n).map_err(ListError::from)?,
        None => page_size,
    };
    if let Some(m) = a.max
        && m < limit.get() as u64
    {
        limit = Limit::new(m.max(1) as i64).map_err(ListError::from)?; // ask for no more than needed
    }
    let mut summary = Summary::new(now, a.stale_after.unwrap_or(stale_after_secs));
    let mut pager: Pager<Conversation> = Pager::new(limit.get());
    let progress = o.err_is_terminal;
    let clear = stderr::clear(progress);
    let mut cut = false;
    let mut failure: Option<ApiError> = None;
    while let Some(cursor) = pager.next_request() {
        let notes = std::sync::Mutex::new(Vec::<String>::new());
        let on_retry = |n: crate::api::RetryNotice| {
            if let Ok(mut v) = notes.lock() {
                v.push(retry_line(&n));
            }
        };
        let result = client
            .list::<_, Conversation>(&base, limit, cursor.as_deref(), &on_retry)
            .await;
        for line in notes.into_inner().unwrap_or_default() {
            let _ = writeln!(o.err, "{clear}{line}");
        }
        let page = match result {
            Ok(p) => p,
            Err(e) => {
                pager.failed();
                failure = Some(e);
                break;
            }
        };
        let page_no = pager.pages() + 1;
        let applied = pager.apply(page);
        for b in &applied.bad_rows {
            let _ = writeln!(o.err, "{clear}{}", bad_row_line(b, page_no));
        }
        summary.add_unreadable(applied.bad_rows.len() as u64);
        for row in pager.drain_rows() {
            if a.max.is_some_and(|m| summary.coverage().loaded >= m) {
                cut = true;
                break;
            }
            summary.add(&row);
        }
        if a.max.is_some_and(|m| summary.coverage().loaded >= m) {
            cut |= pager.has_more();
            break;
        }
        if progress {
            let line = stderr::progress_line(
                &super::thousands(summary.coverage().loaded),
                "conversations",
                pager.pages(),
                pager.has_more(),
            );
            let _ = write!(o.err, "{line}");
        }
    }
    let _ = write!(o.err, "{clear}");
    summary.set_more_available(cut || pager.has_more() || failure.is_some());
    for w in pager.warnings().messages() {
        if !w.contains("unreadable") {
            let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
        }
    }
    // Print what was counted, unless nothing was: an error on the first page is only an error.
    if pager.pages() > 0 {
        let cx = Context {
            by: a.by,
            aliases,
            base: &base,
        };
        let text = match a.format {
            SummaryFormat::Table => report::table(&summary, &cx),
            SummaryFormat::Json => report::json(&summary, &cx),
            SummaryFormat::Csv => report::csv(&summary, &cx, o.out_is_terminal),
        };
        match o
            .out
            .write_all(text.as_bytes())
            .and_then(|()| o.out.flush())
        {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Err(e) => return Err(ListError::Io(e).into()),
        }
        let cov = summary.coverage();
        if !cov.complete {
            let why = if failure.is_some() {
                "the walk failed"
            } else {
                "--max"
            };
            let _ = writeln!(o.err, "convo: the summary is partial ({why}): {cov}");
        }
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    let unreadable = summary.coverage().unreadable_rows;
    if unreadable > 0 {
        return Err(ListError::BadRows(unreadable as usize).into());
    }
    Ok(())
}
