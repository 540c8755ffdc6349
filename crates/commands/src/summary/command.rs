//! `convo summary conversations`: walks the list (the filter's pages: `pages`; a query's
//! streams: `query`), counting each row into a [`Summary`], then prints it, once or every
//! `--watch`.
//!
//! Progress (on a terminal only), warnings and errors go to stderr as `convo list` writes them,
//! and the exit codes are the same. A walk cut short by `--max` or by an error still prints
//! what it counted, marked as partial.

use std::sync::Arc;

use super::Summary;
use super::options::{SummaryFormat, SummaryOptions};
use super::report::{self, Context};
use super::walked::{Walked, WalkedPages};
use convo_api::{ApiError, Client, ConversationFilter, FilterError, Limit};
use convo_config::Aliases;
use convo_engine::sla::Sla;
use convo_query::exit::{self, ListError};
use convo_query::options::conversation_filter;
use convo_query::output::Output;

/// How a summary run ended badly.
#[derive(Debug)]
pub enum SummaryError {
    /// A bad value outside the filters (e.g. `CONVO_NOW`).
    Usage(String),
    /// The walk or the output failed, as `convo list` reports it.
    List(ListError),
    /// `summary --views`: some views could not be read (the others were printed); exit 5.
    ViewsFailed(String),
}

impl SummaryError {
    pub fn exit_code(&self) -> u8 {
        match self {
            SummaryError::Usage(_) => exit::USAGE,
            SummaryError::List(e) => e.exit_code(),
            SummaryError::ViewsFailed(_) => exit::BAD_DATA,
        }
    }
}

impl std::fmt::Display for SummaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SummaryError::Usage(m) | SummaryError::ViewsFailed(m) => f.write_str(m),
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
    if let Some(now) = convo_query::testing::now() {
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
    query: convo_config::QuerySettings,
    mut store: Option<convo_store::Store>,
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
        None => convo_store::samples::filter_key(&base),
    };
    let samples = Samples::new(store, key, a.since_last, o);
    let job = Job {
        client,
        a,
        base: &base,
        prepared,
        page_size,
        stale_after_secs,
        aliases,
        targets: targets(a, sla)?,
        samples: &samples,
    };
    match a.watch {
        None => once(&job, now_from_env()?, o).await,
        Some(every) => watch(&job, every, o).await,
    }
}

/// The response-time targets to count against: with `--sla` (an error when the config sets
/// none) or for Prometheus, when the config sets some.
fn targets(a: &SummaryOptions, sla: &Sla) -> Result<Option<Arc<Sla>>, SummaryError> {
    if a.sla && sla.is_empty() {
        return Err(SummaryError::Usage(
            "--sla: the config sets no response-time target: add first_response or resolution \
             to [sla] (see config.example.toml)"
                .into(),
        ));
    }
    let wanted = (a.sla || a.format == SummaryFormat::Prometheus) && !sla.is_empty();
    Ok(wanted.then(|| Arc::new(sla.clone())))
}

/// What every walk of one run shares: the client, the options, the filter or query, and
/// where the counts are kept.
struct Job<'a> {
    client: &'a Client,
    a: &'a SummaryOptions,
    base: &'a ConversationFilter,
    prepared: Option<&'a super::query::Prepared>,
    page_size: Limit,
    stale_after_secs: i64,
    aliases: &'a Aliases,
    targets: Option<Arc<Sla>>,
    samples: &'a Samples,
}

impl Job<'_> {
    /// How the output names what was counted.
    fn context(&self) -> Context<'_> {
        Context {
            by: self.a.by,
            aliases: self.aliases,
            base: self.base,
            query: self.prepared.map(|p| &p.parsed),
        }
    }
}

/// `--watch`: refuses what it cannot do, then one sample every `every` seconds until Ctrl-C.
async fn watch(job: &Job<'_>, every: i64, o: &mut Output<'_>) -> Result<(), SummaryError> {
    let a = job.a;
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
        let sample = Sample { wallboard, every };
        match watch_once(job, now_from_env()?, sample, o).await {
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
async fn watch_once(
    job: &Job<'_>,
    now: jiff::Timestamp,
    sample: Sample,
    o: &mut Output<'_>,
) -> Result<(), SummaryError> {
    let walked = walk_either(job, now, None, o).await?;
    if walked.pages > 0 {
        job.samples.record(&walked.summary, now, o);
    }
    let cx = job.context();
    let text = if sample.wallboard {
        // Home, clear, then the table fitted to the screen, the last line without a newline:
        // the screen is replaced, never scrolled, so the header stays on it.
        let (width, height) = convo_query::output::terminal_size(true).unwrap_or((80, 24));
        let fit = super::table::Fit {
            width: Some(width),
            height: Some(height.saturating_sub(1).max(1)),
        };
        let footer = format!("every {} · Ctrl-C to stop", report::age(sample.every));
        format!(
            "\x1b[H\x1b[2J{}{}",
            super::table::table(&walked.summary, &cx, fit),
            convo_text::fit(&footer, width)
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
    store: Option<convo_store::Store>,
    /// The filter's key, as the TUI keeps it.
    key: String,
    /// `--since-last`: the filter's last look in the browser, when the store has one.
    look: Option<convo_store::Snapshot>,
}

impl Samples {
    /// The store and the filter's key; with `--since-last` its last look (a word on stderr
    /// when there is none).
    fn new(
        store: Option<convo_store::Store>,
        key: String,
        since_last: bool,
        o: &mut Output<'_>,
    ) -> Samples {
        let look = if since_last {
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
        Samples { store, key, look }
    }

    /// Records the counts of a walk that covered the whole filter (a walk cut short counts
    /// as far as it got, which is no point of a trend); a store that fails says so on stderr
    /// and the summary goes on.
    fn record(&self, summary: &crate::summary::Summary, now: jiff::Timestamp, o: &mut Output<'_>) {
        let Some(store) = &self.store else { return };
        let (total, coverage) = (summary.total(), summary.coverage());
        if !coverage.complete {
            return;
        }
        let sample = convo_store::Sample {
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
async fn once(job: &Job<'_>, now: jiff::Timestamp, o: &mut Output<'_>) -> Result<(), SummaryError> {
    let walked = walk_either(job, now, job.samples.look.as_ref(), o).await?;
    // Print what was counted, unless nothing was: an error on the first page is only an error.
    if walked.pages > 0 {
        job.samples.record(&walked.summary, now, o);
        let text = formatted(job, &walked.summary, o);
        let text = match &walked.since {
            Some(since) => with_since(text, job.a.format, since, o),
            None => text,
        };
        write_out(o, &text)?;
        say_partial(&walked, o);
    }
    Ok(walked.finish()?)
}

/// The summary in the chosen format.
fn formatted(job: &Job<'_>, summary: &Summary, o: &Output<'_>) -> String {
    let cx = job.context();
    match job.a.format {
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
            job.a.by,
            job.aliases,
            job.prepared.map(|p| p.parsed.to_string()).as_deref(),
        ),
    }
}

/// Says on stderr that the summary is partial, and why, when it is.
fn say_partial(walked: &Walked, o: &mut Output<'_>) {
    let cov = walked.summary.coverage();
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

/// The walk of the filters, or of the query when there is one (`-q`).
async fn walk_either(
    job: &Job<'_>,
    now: jiff::Timestamp,
    look: Option<&convo_store::Snapshot>,
    o: &mut Output<'_>,
) -> Result<WalkedPages, SummaryError> {
    let stale = job.a.stale_after.unwrap_or(job.stale_after_secs);
    let mut summary = Summary::new(now, stale);
    if let Some(t) = job.targets.clone() {
        summary = summary.with_sla(t);
    }
    let since = look.map(convo_store::looks::SinceLook::new);
    Ok(match job.prepared {
        Some(p) => {
            let store = job.samples.store.as_ref();
            let counting = super::query::Counting {
                summary,
                since,
                targets: job.targets.clone(),
                aliases: job.aliases,
                store,
            };
            super::query::walk(job.client, job.a, p, job.page_size, counting, o).await?
        }
        None => {
            let (client, base) = (job.client, job.base);
            super::pages::walk(client, base, job.a, job.page_size, summary, since, o).await?
        }
    })
}

/// Adds `--since-last` to the output: a line under the table, a `since_last` member in the
/// JSON object, a line on stderr for CSV and Prometheus (their shape is fixed).
fn with_since(
    text: String,
    format: SummaryFormat,
    since: &convo_store::looks::SinceLook,
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
