//! `convo list conversations|visitors -q QUERY` (and `--explain`): the query (with the filter
//! flags as terms of it) parsed, resolved and planned before any request, then its streams
//! walked by the union executor and the rows that pass convo's checks printed.

use std::collections::HashMap;

use uuid::Uuid;

use super::RowWriter;
use super::by_state::DueRows;
use super::visitor_join::Printer;
use convo_api::{Client, Conversation, Limit, ListFilter, Resource, Visitor};
use convo_config::Config;
use convo_query::exit::{ListError, quiet_pipe};
use convo_query::options::{CommonOptions, ConversationOptions, FlagTerm, VisitorOptions};
use convo_query::output::{CsvStyle, Output, Printable, stderr};
use convo_query::query::eval::{Context, Filter, VisitorInfo};
use convo_query::query::exec::{Timed, Union};
use convo_query::query::plan::{self, Plan};
use convo_query::query::resolve::Names;
use convo_query::query::run::{
    Keeper, before_any_request, from_the_flags, lookup, resolve_emails, understood_with,
};
use convo_query::query::{Query, cost};

/// Parses and resolves `-q` with the flags' terms (the query as written, and resolved), or
/// the error with its caret.
fn understood(
    q: Option<&str>,
    flags: &[FlagTerm],
    resource: Resource,
    cfg: &Config,
) -> Result<(Query, Query), ListError> {
    let names = Names {
        agent_id: cfg.query.agent_id,
        aliases: &cfg.aliases,
        sla: &cfg.sla,
    };
    understood_with(q, flags, resource, &names)
}

/// What `--explain` adds to a plan: the query as written, the flags' terms, what `me` is.
fn annotate<F>(plan: &mut Plan<F>, parsed: &Query, flags: &[FlagTerm], cfg: &Config) {
    plan.query = parsed.to_string();
    let mut notes = Vec::new();
    if !flags.is_empty() {
        notes.push(from_the_flags(flags));
    }
    let says_me = parsed.terms.iter().any(|t| {
        matches!(&t.pred, convo_query::query::Pred::Assignee(v) if v.contains(&convo_query::query::AssigneeRef::Me))
    });
    if let (true, Some(id)) = (says_me, cfg.query.agent_id) {
        let who = match cfg.aliases.name(&id) {
            Some(n) => format!("{} = agent {id}", convo_text::one_line(n, 40)),
            None => format!("agent_id {id}"),
        };
        notes.push(match &cfg.profile {
            _ if cfg.query.demo_me => {
                format!("me is {who} (the demo's agent with the most open conversations)")
            }
            Some(p) => format!("me is {who} (profile {p})"),
            None => format!("me is {who} (config)"),
        });
    }
    notes.append(&mut plan.notes);
    plan.notes = notes;
}

/// Runs `convo list conversations -q QUERY`.
pub async fn conversations(
    client: &Client,
    args: &ConversationOptions,
    cfg: &Config,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    let flags = args.flag_terms();
    let (parsed, q) = understood(
        args.query.text.as_deref(),
        &flags,
        Resource::Conversations,
        cfg,
    )?;
    let limit = args.common.limit_or(cfg.page_size)?;
    let (emails, store) = emails_and_store(client, args, (&parsed, &q), &flags, cfg, o).await?;
    let mut plan = plan::conversations(&q, &emails, cfg.query.max_streams);
    if args.query.explain {
        annotate(&mut plan, &parsed, &flags, cfg);
        let now = now()?.as_second();
        let store = store.or_else(|| existing_store(cfg));
        let counts = cost::conversation_counts(store.as_ref(), &plan.streams, now);
        return explain(&plan, cfg, o, (&counts, limit, &args.common, now));
    }
    // A `visitor:` term (or `--visitor-email`, the same term) whose e-mails no visitor has
    // matches nothing: exit 2, as without -q.
    if let Some(e) = no_visitor(&q, &emails) {
        return Err(ListError::NoVisitor(e));
    }
    let now = now()?;
    let filter = Filter::new(&plan.terms(), context(cfg, now));
    let mut known: HashMap<Uuid, Option<VisitorInfo>> = HashMap::new();
    let mut pass = |c: &Conversation| {
        if !filter.needs_visitor() {
            return filter.conversation(c, None);
        }
        let v = known
            .entry(c.visitor_id)
            .or_insert_with(|| lookup(store.as_ref(), c.visitor_id));
        filter.conversation(c, v.as_ref())
    };
    let mut sink = sink(args, cfg, store.as_ref(), now, o);
    run(
        client,
        &plan,
        limit,
        &args.common,
        o,
        &mut pass,
        sink.as_mut(),
    )
    .await
}

/// The visitors of the query's e-mails, asked of the service, and the store (opened for the
/// checks on visitor fields, to keep the visitors an e-mail finds, and for `--with-visitor`).
async fn emails_and_store(
    client: &Client,
    args: &ConversationOptions,
    (parsed, q): (&Query, &Query),
    flags: &[FlagTerm],
    cfg: &Config,
    o: &mut Output<'_>,
) -> Result<(plan::Emails, Option<convo_store::Store>), ListError> {
    let wanted = plan::emails_to_resolve(q);
    let mut store = if !wanted.is_empty() || needs_visitor(q) || args.with_visitor {
        convo_store::open_for_command(cfg, o.err)
    } else {
        None
    };
    if !args.query.explain {
        let text = args.query.text.as_deref();
        before_any_request(text, flags, parsed, store.as_ref(), o.err)?;
    }
    let mut keeper = Keeper::new(store.as_mut());
    let emails = resolve_emails(client, &wanted, &mut keeper).await;
    keeper.finish(o.err);
    Ok((emails?, store))
}

/// Where the rows go: with `--with-visitor` the visitor's columns; with `--breaching` /
/// `--imminent` each row's due_secs (DUE), as without -q; else the list's rows.
fn sink<'a>(
    args: &ConversationOptions,
    cfg: &'a Config,
    store: Option<&'a convo_store::Store>,
    now: jiff::Timestamp,
    o: &Output<'_>,
) -> Box<dyn Sink<Conversation> + 'a> {
    let (fmt, csv) = (
        args.common.format,
        CsvStyle::stdout(o.out_is_terminal, args.common.csv_raw),
    );
    if args.with_visitor {
        Box::new(Printer::new(fmt, csv, Some(store)))
    } else if args.breaching || args.imminent {
        let rows = DueRows::new(fmt, csv, false);
        Box::new(WithDue {
            rows,
            sla: &cfg.sla,
            now,
        })
    } else {
        Box::new(rows_for(&args.common, o))
    }
}

/// Runs `convo list visitors -q QUERY`.
pub async fn visitors(
    client: &Client,
    args: &VisitorOptions,
    cfg: &Config,
    o: &mut Output<'_>,
) -> Result<(), ListError> {
    let flags = args.flag_terms();
    let (parsed, q) = understood(args.query.text.as_deref(), &flags, Resource::Visitors, cfg)?;
    let limit = args.common.limit_or(cfg.page_size)?;
    let mut plan = plan::visitors(&q, cfg.query.max_streams);
    if args.query.explain {
        annotate(&mut plan, &parsed, &flags, cfg);
        let now = now()?.as_second();
        let counts = cost::visitor_counts(existing_store(cfg).as_ref(), &plan.streams);
        return explain(&plan, cfg, o, (&counts, limit, &args.common, now));
    }
    let filter = Filter::new(&plan.terms(), context(cfg, now()?));
    // Every visitor received is kept in the local store, as `list visitors` does.
    let mut store = convo_store::open_for_command(cfg, o.err);
    let text = args.query.text.as_deref();
    before_any_request(text, &flags, &parsed, store.as_ref(), o.err)?;
    let mut keeper = Keeper::new(store.as_mut());
    let mut pass = |v: &Visitor| {
        keeper.keep(v);
        filter.visitor(v)
    };
    let mut rows = rows_for(&args.common, o);
    let r = run(client, &plan, limit, &args.common, o, &mut pass, &mut rows).await;
    keeper.finish(o.err);
    r
}

/// The first e-mail of a required `visitor:` term that names only e-mails no visitor has.
fn no_visitor(q: &Query, emails: &plan::Emails) -> Option<String> {
    use convo_query::query::{Pred, VisitorRef};
    q.terms.iter().filter(|t| !t.negated).find_map(|t| {
        let Pred::Visitor(vs) = &t.pred else {
            return None;
        };
        let found = |v: &VisitorRef| match v {
            VisitorRef::Id(_) => true,
            VisitorRef::Email(e) => emails
                .get(&e.trim().to_lowercase())
                .is_some_and(|ids| !ids.is_empty()),
        };
        if vs.iter().any(found) {
            return None;
        }
        vs.iter().find_map(|v| match v {
            VisitorRef::Email(e) => Some(e.trim().to_string()),
            VisitorRef::Id(_) => None,
        })
    })
}

/// Whether the query checks a conversation's visitor (its fields, or free text).
fn needs_visitor(q: &Query) -> bool {
    use convo_query::query::Pred;
    q.terms.iter().any(|t| {
        matches!(
            t.pred,
            Pred::Text(_) | Pred::VisitorName(_) | Pred::VisitorEmail(_) | Pred::VisitorAttr(..)
        )
    })
}

/// The clock, or in a build with the `testing` feature `CONVO_NOW` when set.
fn now() -> Result<jiff::Timestamp, ListError> {
    #[cfg(feature = "testing")]
    if let Some(now) = convo_query::testing::now() {
        return now.map_err(ListError::Usage);
    }
    Ok(jiff::Timestamp::now())
}

fn context(cfg: &Config, now: jiff::Timestamp) -> Context<'_> {
    Context {
        now,
        tz: jiff::tz::TimeZone::system(),
        sla: &cfg.sla,
        stale_after_secs: cfg
            .ui
            .stale_after_secs
            .unwrap_or(convo_config::ui::DEFAULT_STALE_AFTER_SECS),
        aliases: &cfg.aliases,
    }
}

/// The store, only when its file exists (`--explain` creates nothing).
fn existing_store(cfg: &Config) -> Option<convo_store::Store> {
    let path = convo_store::path_for(cfg).ok().filter(|p| p.exists())?;
    convo_store::Store::open(&path).ok()
}

/// What `--explain` estimates from: the counts seen per stream, the page size, how far the
/// walk goes, the clock.
type CostInputs<'a> = (&'a [Option<cost::Seen>], Limit, &'a CommonOptions, i64);

fn explain<F: ListFilter>(
    plan: &Plan<F>,
    cfg: &Config,
    o: &mut Output<'_>,
    (counts, limit, common, now): CostInputs<'_>,
) -> Result<(), ListError> {
    let reach = if common.all {
        cost::Reach::All
    } else {
        match common.cap(limit) {
            Some(m) if !common.one_page() => cost::Reach::Max(m),
            _ => cost::Reach::OnePage,
        }
    };
    let limit = u32::try_from(limit.get()).unwrap_or(100);
    let checks = !plan.checks.is_empty();
    let estimate = cost::estimate(counts, limit, reach, checks, now);
    quiet_pipe(o.out.write_all(plan.explain(&cfg.aliases).as_bytes()))?;
    quiet_pipe(o.out.write_all(estimate.as_bytes()))?;
    quiet_pipe(o.out.flush())?;
    Ok(())
}

/// Walks the plan's streams and prints the rows that pass, up to `--max` (or one page's worth
/// without `--all`/`--max`).
async fn run<F, T>(
    client: &Client,
    plan: &Plan<F>,
    limit: Limit,
    common: &CommonOptions,
    o: &mut Output<'_>,
    pass: &mut dyn FnMut(&T) -> bool,
    writer: &mut dyn Sink<T>,
) -> Result<(), ListError>
where
    F: ListFilter + Clone,
    T: Printable + Timed + convo_api::model::WireRow + Clone + Send + 'static,
{
    if plan.streams.is_empty() {
        say_why_nothing(plan, o);
    }
    let one_page = common.one_page();
    let max = common.cap(limit);
    // A walk of everything asks for each stream's next page as soon as a page arrives; a
    // screenful (`--max`, one page) asks only when the merge needs a stream's next row.
    let mut union: Union<F, T> =
        Union::new(client.clone(), plan.streams.clone(), limit, common.all);
    if !writer.begin(o)? {
        return Ok(());
    }
    let mut printed: u64 = 0;
    let mut open = true;
    while max.is_none_or(|m| printed < m) {
        let row = union.next().await;
        for line in union.take_notices() {
            let _ = writeln!(o.err, "{line}");
        }
        let Some(row) = row else { break };
        if !pass(&row) {
            continue;
        }
        printed += 1;
        if !writer.row(o, &row)? {
            open = false;
            break;
        }
    }
    if open {
        writer.end(o)?;
    }
    for w in union.warnings() {
        let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
    }
    if one_page && open && union.has_more() && max.is_some_and(|m| printed >= m) {
        let _ = writeln!(
            o.err,
            "convo: {printed} rows shown; more may exist (use --all or --max N)"
        );
    }
    let cut_short_matters = open && max.is_none_or(|m| printed < m);
    outcome(&union, plan.streams.len(), cut_short_matters)
}

/// The rows of a list in the chosen format.
fn rows_for(common: &CommonOptions, o: &Output<'_>) -> RowWriter {
    RowWriter::new(
        common.format,
        CsvStyle::stdout(o.out_is_terminal, common.csv_raw),
    )
}

/// Where [`run`] writes the rows that pass: a list's rows, or with `--with-visitor` each
/// conversation with its visitor's columns.
trait Sink<T> {
    /// The CSV header or JSON's `[`; `false` when stdout is closed.
    fn begin(&mut self, o: &mut Output<'_>) -> Result<bool, ListError>;
    /// One row; `false` when stdout is closed.
    fn row(&mut self, o: &mut Output<'_>, row: &T) -> Result<bool, ListError>;
    /// Flushes, then JSON's `]` or the aligned table.
    fn end(&mut self, o: &mut Output<'_>) -> Result<(), ListError>;
}

impl<T: Printable> Sink<T> for RowWriter {
    fn begin(&mut self, o: &mut Output<'_>) -> Result<bool, ListError> {
        RowWriter::begin::<T>(self, o)
    }
    fn row(&mut self, o: &mut Output<'_>, row: &T) -> Result<bool, ListError> {
        RowWriter::row(self, o, row)
    }
    fn end(&mut self, o: &mut Output<'_>) -> Result<(), ListError> {
        quiet_pipe(o.out.flush())?;
        RowWriter::end::<T>(self, o)
    }
}

impl Sink<Conversation> for Printer<'_> {
    fn begin(&mut self, o: &mut Output<'_>) -> Result<bool, ListError> {
        self.start(o.out)
    }
    fn row(&mut self, o: &mut Output<'_>, row: &Conversation) -> Result<bool, ListError> {
        Printer::row(self, row, o.out)
    }
    fn end(&mut self, o: &mut Output<'_>) -> Result<(), ListError> {
        self.finish(o)
    }
}

/// `--breaching` / `--imminent` with `-q`: each row with its `due_secs` (a DUE column in the
/// table), as without `-q`.
struct WithDue<'a> {
    rows: DueRows,
    sla: &'a convo_engine::sla::Sla,
    now: jiff::Timestamp,
}

impl Sink<Conversation> for WithDue<'_> {
    fn begin(&mut self, o: &mut Output<'_>) -> Result<bool, ListError> {
        self.rows.begin(o)?;
        Ok(self.rows.is_open())
    }
    fn row(&mut self, o: &mut Output<'_>, row: &Conversation) -> Result<bool, ListError> {
        // `due:` passed only rows the target measures: every row has its standing.
        match self.sla.first_response(row, self.now) {
            Some(due) => self.rows.row(o, row, &due),
            None => Ok(true),
        }
    }
    fn end(&mut self, o: &mut Output<'_>) -> Result<(), ListError> {
        self.rows.finish(o)
    }
}

/// Nothing can match (an e-mail no visitor has, values that exclude each other): says why
/// instead of printing nothing silently.
fn say_why_nothing<F>(plan: &Plan<F>, o: &mut Output<'_>) {
    for n in &plan.notes {
        let _ = writeln!(o.err, "convo: {}", convo_text::one_line(n, 300));
    }
}

/// How a query's walk ended: some or all of its `streams` failed, the service cut it short
/// (when that matters: stdout open and fewer rows printed than wanted), or some rows could
/// not be read.
fn outcome<F, T>(
    union: &Union<F, T>,
    streams: usize,
    cut_short_matters: bool,
) -> Result<(), ListError>
where
    F: ListFilter + Clone,
    T: Printable + Timed + convo_api::model::WireRow + Clone + Send + 'static,
{
    let failed = union.failures().len();
    if failed > 0 {
        // One stream, or all of them: nothing else was shown, so the error says it all.
        if failed == streams {
            return Err(ListError::Api(union.failures()[0].1.clone()));
        }
        return Err(ListError::StreamsFailed {
            failed,
            of: streams,
        });
    }
    if cut_short_matters && union.incomplete() {
        return Err(ListError::Truncated);
    }
    if union.bad_rows() > 0 {
        return Err(ListError::BadRows(union.bad_rows()));
    }
    Ok(())
}
