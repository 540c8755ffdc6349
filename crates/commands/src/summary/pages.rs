//! The plain walk of `convo summary conversations` (no `-q`): the filter's pages read with
//! [`Pages`] (the engine's walk over the client, as `convo list` reads them), each page's rows counted into the [`Summary`] and dropped (only their ids are kept),
//! progress and warnings on stderr. `super::query` walks a query's streams instead.

use super::Summary;
use super::options::SummaryOptions;
use super::walked::{Walked, WalkedPages};
use convo_api::{ApiError, Client, Conversation, ConversationFilter, Limit};
use convo_engine::walk::Walk;
use convo_query::exit::ListError;
use convo_query::output::{Output, bad_row_line, stderr};
use convo_query::query::pages::Pages;
use convo_store::looks::SinceLook;

/// The rows per request: `--limit` or the page size, no more than `--max`.
fn page_limit(a: &SummaryOptions, page_size: Limit) -> Result<Limit, ListError> {
    let limit = match a.limit {
        Some(n) => Limit::new(n)?,
        None => page_size,
    };
    match a.max {
        // Ask for no more than needed.
        Some(m) if m < limit.get() as u64 => Ok(Limit::new(m.max(1) as i64)?),
        _ => Ok(limit),
    }
}

/// Walks the filter's pages into `summary`, with progress and warnings on stderr.
pub(super) async fn walk(
    client: &Client,
    base: &ConversationFilter,
    a: &SummaryOptions,
    page_size: Limit,
    mut summary: Summary,
    mut since: Option<SinceLook>,
    o: &mut Output<'_>,
) -> Result<WalkedPages, ListError> {
    let limit = page_limit(a, page_size)?;
    let mut walk: Pages<_, Conversation> = Pages::new(client, base, limit, false);
    let progress = o.err_is_terminal;
    let clear = stderr::clear(progress);
    let full = |s: &Summary| a.max.is_some_and(|m| s.coverage().loaded >= m);
    let mut cut = false;
    let mut failure: Option<ApiError> = None;
    loop {
        let mut on_retry = |line: &str| {
            let _ = writeln!(o.err, "{clear}{line}");
        };
        let arrived = match walk.next(|_| false, &mut on_retry).await {
            None => break,
            Some(Ok(a)) => a,
            Some(Err(e)) => {
                failure = Some(e);
                break;
            }
        };
        for b in &arrived.bad_rows {
            let _ = writeln!(o.err, "{clear}{}", bad_row_line(b, arrived.page_no));
        }
        summary.add_unreadable(arrived.bad_rows.len() as u64);
        for row in walk.drain_rows() {
            if full(&summary) {
                cut = true;
                break;
            }
            summary.add(&row);
            if let Some(s) = &mut since {
                s.see(&row);
            }
        }
        let so_far = walk.walk();
        if full(&summary) || a.max_pages.is_some_and(|m| so_far.pages() as u64 >= m) {
            cut |= so_far.has_more();
            break;
        }
        if progress {
            say_progress(&summary, so_far, o);
        }
    }
    let _ = write!(o.err, "{clear}");
    Ok(ended(summary, since, walk.walk(), cut, failure, o))
}

/// The progress line on stderr (a terminal): conversations counted, pages read.
fn say_progress(summary: &Summary, walk: &Walk<Conversation>, o: &mut Output<'_>) {
    let loaded = super::thousands(summary.coverage().loaded);
    let line = stderr::progress_line(&loaded, "conversations", walk.pages(), walk.has_more());
    let _ = write!(o.err, "{line}");
}

/// How the filter's walk ended: cut by `--max`, failed, or cut short by the service (partial
/// too, and exit 5); the walk's warnings said.
fn ended(
    mut summary: Summary,
    since: Option<SinceLook>,
    walk: &Walk<Conversation>,
    cut: bool,
    failure: Option<ApiError>,
    o: &mut Output<'_>,
) -> WalkedPages {
    let ended_early = !cut && failure.is_none() && walk.warnings().ended_early();
    summary.set_more_available(cut || walk.has_more() || failure.is_some() || ended_early);
    for w in walk.warnings().messages() {
        if !w.contains("unreadable") {
            let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
        }
    }
    WalkedPages {
        pages: walk.pages(),
        since,
        walked: Walked {
            summary,
            failure,
            ended_early,
        },
    }
}
