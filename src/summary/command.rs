//! `convo summary conversations`: walks the list with the pager, streaming each page into a
//! [`Summary`] (rows are dropped once counted, so memory stays flat), then prints it.
//!
//! Progress (on a terminal only), warnings and errors go to stderr as `convo list` writes them,
//! and the exit codes are the same. A walk cut short by `--max` or by an error still prints
//! what it counted, marked as partial.

use std::sync::Arc;

use super::Summary;
use super::options::{SummaryFormat, SummaryOptions};
use super::report::{self, Context};
use super::walked::{Walked, WalkedPages};
use crate::api::{ApiError, Client, Conversation, ConversationFilter, FilterError, Limit};
use crate::config::Aliases;
use crate::exit::{self, ListError};
use crate::options::conversation_filter;
use crate::output::{Output, bad_row_line, retry_line, stderr};
use crate::pager::Pager;
use crate::sla::Sla;

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

/// The instant to measure ages to: the clock, or in a build with the `testing` feature
/// `CONVO_NOW` when set (so tests can compare ages with the demo dataset).
pub fn now_from_env() -> Result<jiff::Timestamp, SummaryError> {
    #[cfg(feature = "testing")]
    if let Some(now) = crate::testing::now() {
        return now.map_err(SummaryError::Usage);
    }
    Ok(jiff::Timestamp::now())
}

/// Runs `convo summary conversations` (once, or every `--watch` until Ctrl-C); each walk's
/// counts are kept in `store` (when on) for the TUI's trend.
#[allow(clippy::too_many_arguments)]
pub async fn conversations(
    client: &Client,
    a: &SummaryOptions,
    page_size: Limit,
    stale_after_secs: i64,
    aliases: &Aliases,
    sla: &Sla,
    query: crate::config::QuerySettings,
    mut store: Option<crate::store::Store>,
    o: &mut Output<'_>,
) -> Result<(), SummaryError> {
    // Validated exactly as `list conversations` does.
    let base = conversation_filter(&a.filter)?;
    // `-q`: refused here when bad, before any request.
    let prepared = if a.query.is_set() {
        Some(super::query::prepare(client, a, aliases, sla, query, store.as_mut(), o.err).await?)
    } else {
        None
    };
    if let (Some(p), true) = (&prepared, a.query.explain) {
        return write_out(o, &p.plan.explain(aliases));
    }
    let prepared = prepared.as_ref();
    let key = match prepared {
        Some(p) => format!("query {}", p.parsed),
        None => crate::store::samples::filter_key(&base),
    };
    let look = if a.since_last {
        let look = store.as_ref().and_then(|s| s.look(&key).ok().flatten());
        if look.is_none() {
            let _ = writeln!(
                o.err,
                "convo: --since-last: the local store has no earlier look at these filters \
                 (the browser keeps one when it leaves a view or quits)"
            );
        }
        look
    } else {
        None
    };
    let samples = Samples { store, key, look };
    if a.sla && sla.is_empty() {
        return Err(SummaryError::Usage(
            "--sla: the config sets no response-time target: add first_response or resolution \
             to [sla] (see config.example.toml)"
                .into(),
        ));
    }
    let targets = (a.sla || a.format == SummaryFormat::Prometheus) && !sla.is_empty();
    let targets = targets.then(|| Arc::new(sla.clone()));
    let Some(every) = a.watch else {
        let now = now_from_env()?;
        return once(
            client,
            a,
            (&base, prepared),
            page_size,
            stale_after_secs,
            aliases,
            targets,
            now,
            &samples,
            o,
        )
        .await;
    };
    if every < 1 {
        return Err(SummaryError::Usage(
            "--watch: the interval must be at least 1s".into(),
        ));
    }
    if a.since_last {
        return Err(SummaryError::Usage(
            "--since-last compares one walk with the last look: use it without --watch".into(),
        ));
    }
    if !matches!(a.format, SummaryFormat::Table | SummaryFormat::Json) {
        return Err(SummaryError::Usage(
            "--watch redraws a table on a terminal and prints JSON lines otherwise: \
             use it with --format table or json"
                .into(),
        ));
    }
    let wallboard = o.out_is_terminal && a.format == SummaryFormat::Table;
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        let now = now_from_env()?;
        let sample = Sample { wallboard, every };
        let r = watch_once(
            client,
            a,
            (&base, prepared),
            page_size,
            stale_after_secs,
            aliases,
            targets.clone(),
            now,
            sample,
            &samples,
            o,
        )
        .await;
        match r {
            // A failed walk is said and the board goes on: the next sample may work.
            Err(SummaryError::List(e)) if e.exit_code() != exit::USAGE => {
                let _ = writeln!(o.err, "convo: {e} (next try in {})", report::age(every));
            }
            Err(e) => return Err(e),
            Ok(()) => {}
        }
        tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_secs(every as u64)) => {}
            _ = &mut ctrl_c => {
                // The board's last line has no newline (so nothing scrolls): end it, so the
                // shell's prompt starts on a line of its own.
                if wallboard {
                    let _ = write_out(o, "\n");
                }
                return Ok(());
            }
        }
    }
}

/// How one `--watch` sample is shown.
#[derive(Clone, Copy)]
struct Sample {
    /// Redraw the table in place (stdout is a terminal).
    wallboard: bool,
    every: i64,
}

/// One sample of `--watch`: the table redrawn in place, or one JSON line.
#[allow(clippy::too_many_arguments)]
async fn watch_once(
    client: &Client,
    a: &SummaryOptions,
    (base, prepared): (&ConversationFilter, Option<&super::query::Prepared>),
    page_size: Limit,
    stale_after_secs: i64,
    aliases: &Aliases,
    targets: Option<Arc<Sla>>,
    now: jiff::Timestamp,
    sample: Sample,
    samples: &Samples,
    o: &mut Output<'_>,
) -> Result<(), SummaryError> {
    let walked = walk_either(
        client,
        a,
        (base, prepared),
        page_size,
        stale_after_secs,
        aliases,
        targets,
        now,
        None,
        samples,
        o,
    )
    .await?;
    if walked.pages > 0 {
        samples.record(&walked.summary, now, o);
    }
    let cx = Context {
        by: a.by,
        aliases,
        base,
        query: prepared.map(|p| &p.parsed),
    };
    let text = if sample.wallboard {
        // Home, clear, then the table fitted to the screen, the last line without a newline:
        // the screen is replaced, never scrolled, so the header stays on it.
        let (width, height) = crate::output::terminal_size(true).unwrap_or((80, 24));
        let fit = super::table::Fit {
            width: Some(width),
            height: Some(height.saturating_sub(1).max(1)),
        };
        let footer = format!("every {} · Ctrl-C to stop", report::age(sample.every));
        format!(
            "\x1b[H\x1b[2J{}{}",
            super::table::table(&walked.summary, &cx, fit),
            crate::text::fit(&footer, width)
        )
    } else {
        report::json_line(&walked.summary, &cx)
    };
    write_out(o, &text)?;
    Ok(walked.finish()?)
}

/// Writes the whole output; a closed pipe is not an error.
fn write_out(o: &mut Output<'_>, text: &str) -> Result<(), SummaryError> {
    match o
        .out
        .write_all(text.as_bytes())
        .and_then(|()| o.out.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(ListError::Io(e).into()),
    }
}

/// Where each walk's counts are kept for the TUI's 24 h trend (the local store, when on).
struct Samples {
    store: Option<crate::store::Store>,
    /// The filter's key, as the TUI keeps it.
    key: String,
    /// `--since-last`: the filter's last look in the browser, when the store has one.
    look: Option<crate::store::Snapshot>,
}

impl Samples {
    /// Records the counts of a walk that covered the whole filter (a walk cut short counts
    /// as far as it got, which is no point of a trend); a store that fails says so on stderr
    /// and the summary goes on.
    fn record(&self, summary: &crate::summary::Summary, now: jiff::Timestamp, o: &mut Output<'_>) {
        let Some(store) = &self.store else { return };
        let (total, coverage) = (summary.total(), summary.coverage());
        if !coverage.complete {
            return;
        }
        let sample = crate::store::Sample {
            at: now.as_second(),
            loaded: coverage.loaded,
            complete: coverage.complete,
            waiting: total.waiting,
            imminent: total.sla.imminent,
            breaching: total.sla.breaching,
        };
        if let Err(e) = store.record_sample(&self.key, &sample) {
            let _ = writeln!(o.err, "convo: {e}: this sample is not kept");
        }
    }
}

/// One summary, printed in the chosen format.
#[allow(clippy::too_many_arguments)]
async fn once(
    client: &Client,
    a: &SummaryOptions,
    (base, prepared): (&ConversationFilter, Option<&super::query::Prepared>),
    page_size: Limit,
    stale_after_secs: i64,
    aliases: &Aliases,
    targets: Option<Arc<Sla>>,
    now: jiff::Timestamp,
    samples: &Samples,
    o: &mut Output<'_>,
) -> Result<(), SummaryError> {
    let walked = walk_either(
        client,
        a,
        (base, prepared),
        page_size,
        stale_after_secs,
        aliases,
        targets,
        now,
        samples.look.as_ref(),
        samples,
        o,
    )
    .await?;
    let summary = &walked.summary;
    // Print what was counted, unless nothing was: an error on the first page is only an error.
    if walked.pages > 0 {
        samples.record(summary, now, o);
        let cx = Context {
            by: a.by,
            aliases,
            base,
            query: prepared.map(|p| &p.parsed),
        };
        let text = match a.format {
            SummaryFormat::Table => super::table::table(
                summary,
                &cx,
                super::table::Fit {
                    width: o.table_width(),
                    height: None,
                },
            ),
            SummaryFormat::Json => report::json(summary, &cx),
            SummaryFormat::Csv => report::csv(summary, &cx, o.out_is_terminal),
            SummaryFormat::Prometheus => super::prometheus::text(
                summary,
                a.by,
                aliases,
                prepared.map(|p| p.parsed.to_string()).as_deref(),
            ),
        };
        let text = match &walked.since {
            Some(since) => with_since(text, a.format, since, o),
            None => text,
        };
        write_out(o, &text)?;
        let cov = summary.coverage();
        if !cov.complete {
            let why = if walked.failure.is_some() {
                "the walk failed"
            } else if walked.ended_early {
                "the service ended the walk early"
            } else {
                "--max"
            };
            let _ = writeln!(o.err, "convo: the summary is partial ({why}): {cov}");
        }
    }
    Ok(walked.finish()?)
}

/// The walk of the filters, or of the query when there is one (`-q`).
#[allow(clippy::too_many_arguments)]
async fn walk_either(
    client: &Client,
    a: &SummaryOptions,
    (base, prepared): (&ConversationFilter, Option<&super::query::Prepared>),
    page_size: Limit,
    stale_after_secs: i64,
    aliases: &Aliases,
    targets: Option<Arc<Sla>>,
    now: jiff::Timestamp,
    look: Option<&crate::store::Snapshot>,
    samples: &Samples,
    o: &mut Output<'_>,
) -> Result<WalkedPages, SummaryError> {
    Ok(match prepared {
        Some(p) => {
            super::query::walk(
                client,
                a,
                p,
                page_size,
                stale_after_secs,
                targets,
                now,
                look,
                aliases,
                samples.store.as_ref(),
                o,
            )
            .await?
        }
        None => {
            walk(
                client,
                a,
                base,
                page_size,
                stale_after_secs,
                targets,
                now,
                look,
                o,
            )
            .await?
        }
    })
}

/// Walks the list into a summary, with progress and warnings on stderr.
#[allow(clippy::too_many_arguments)]
async fn walk(
    client: &Client,
    a: &SummaryOptions,
    base: &ConversationFilter,
    page_size: Limit,
    stale_after_secs: i64,
    targets: Option<Arc<Sla>>,
    now: jiff::Timestamp,
    look: Option<&crate::store::Snapshot>,
    o: &mut Output<'_>,
) -> Result<WalkedPages, SummaryError> {
    let mut since = look.map(crate::store::looks::SinceLook::new);
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
    if let Some(t) = targets {
        summary = summary.with_sla(t);
    }
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
            .list::<_, Conversation>(base, limit, cursor.as_deref(), &on_retry)
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
            if let Some(s) = &mut since {
                s.see(&row);
            }
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
    // A walk the service cut short is partial too, and exits 5.
    let ended_early = !cut && failure.is_none() && pager.warnings().ended_early();
    summary.set_more_available(cut || pager.has_more() || failure.is_some() || ended_early);
    for w in pager.warnings().messages() {
        if !w.contains("unreadable") {
            let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
        }
    }
    Ok(WalkedPages {
        pages: pager.pages(),
        since,
        walked: Walked {
            summary,
            failure,
            ended_early,
        },
    })
}

/// Adds `--since-last` to the output: a line under the table, a `since_last` member in the
/// JSON object, a line on stderr for CSV and Prometheus (their shape is fixed).
fn with_since(
    text: String,
    format: SummaryFormat,
    since: &crate::store::looks::SinceLook,
    o: &mut Output<'_>,
) -> String {
    let when = jiff::Timestamp::from_second(since.taken_at)
        .map(|t| t.strftime("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|_| "the last look".into());
    let line = format!(
        "since the last look ({when}): {} new, {} changed",
        super::thousands(since.new),
        super::thousands(since.changed)
    );
    match format {
        SummaryFormat::Table => format!("{text}{line}\n"),
        SummaryFormat::Json => match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(serde_json::Value::Object(mut m)) => {
                m.insert(
                    "since_last".into(),
                    serde_json::json!({
                        "taken_at": jiff::Timestamp::from_second(since.taken_at)
                            .map(|t| t.to_string())
                            .unwrap_or_default(),
                        "new": since.new,
                        "changed": since.changed,
                    }),
                );
                format!("{}\n", serde_json::Value::Object(m))
            }
            _ => text,
        },
        SummaryFormat::Csv | SummaryFormat::Prometheus => {
            let _ = writeln!(o.err, "convo: {line}");
            text
        }
    }
}
