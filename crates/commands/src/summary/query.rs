//! `convo summary conversations -q QUERY`: the query planned as `convo list` plans it, its
//! streams walked by the union executor, and each row that passes convo's checks counted.
//! Relative terms (`age:`, `idle:`, `is:stale`, `due:`) are measured from each walk's `now`,
//! so every `--watch` sample measures them again.

use std::collections::HashMap;
use std::sync::Arc;

use uuid::Uuid;

use super::Summary;
use super::options::SummaryOptions;
use super::walked::{Walked, WalkedPages};
use convo_api::{Client, Conversation, ConversationFilter, Limit, Resource};
use convo_config::{Aliases, QuerySettings};
use convo_engine::sla::Sla;
use convo_query::exit::ListError;
use convo_query::options::conversation_flag_terms;
use convo_query::output::{Output, stderr};
use convo_query::query::Query;
use convo_query::query::eval::{Context, Filter, VisitorInfo};
use convo_query::query::exec::Union;
use convo_query::query::plan::{self, Plan};
use convo_query::query::resolve::Names;
use convo_query::query::run::{Keeper, from_the_flags, lookup, resolve_emails, understood_with};
use convo_store::looks::SinceLook;

/// A query ready to walk: as written (for the output) and planned.
pub struct Prepared {
    pub parsed: Query,
    pub plan: Plan<ConversationFilter>,
}

/// Parses, resolves and plans `-q` with the filter flags as terms (the e-mails of `visitor:`
/// are looked up first). A bad query is refused here, before any list request.
pub async fn prepare(
    client: &Client,
    a: &SummaryOptions,
    aliases: &Aliases,
    sla: &Sla,
    settings: QuerySettings,
    store: Option<&mut convo_store::Store>,
    err: &mut dyn std::io::Write,
) -> Result<Prepared, ListError> {
    let flags = conversation_flag_terms(&a.filter);
    let names = Names {
        agent_id: settings.agent_id,
        aliases,
        sla,
    };
    let (parsed, q) = understood_with(
        a.query.text.as_deref(),
        &flags,
        Resource::Conversations,
        &names,
    )?;
    convo_query::query::run::before_any_request(
        a.query.text.as_deref(),
        &flags,
        &parsed,
        store.as_deref(),
        err,
    )?;
    let mut keeper = Keeper::new(store);
    let emails = resolve_emails(client, &plan::emails_to_resolve(&q), &mut keeper).await;
    keeper.finish(err);
    let emails = emails?;
    let mut plan = plan::conversations(&q, &emails, settings.max_streams);
    plan.query = parsed.to_string();
    if !flags.is_empty() {
        plan.notes.insert(0, from_the_flags(&flags));
    }
    Ok(Prepared { parsed, plan })
}

/// What the query's walk counts into, and what its checks need.
pub(super) struct Counting<'a> {
    pub summary: Summary,
    /// `--since-last`: what changed since the look.
    pub since: Option<SinceLook>,
    /// The response-time targets counted (`due:` is checked against them too).
    pub targets: Option<Arc<Sla>>,
    pub aliases: &'a Aliases,
    /// The local store, for the checks on visitor fields.
    pub store: Option<&'a convo_store::Store>,
}

/// Walks the query's streams into the summary: each row that passes convo's checks counted.
pub(super) async fn walk(
    client: &Client,
    a: &SummaryOptions,
    p: &Prepared,
    page_size: Limit,
    mut c: Counting<'_>,
    o: &mut Output<'_>,
) -> Result<WalkedPages, ListError> {
    let limit = match a.limit {
        Some(n) => Limit::new(n)?,
        None => page_size,
    };
    let no_targets = Sla::default();
    let targets = c.targets.clone();
    let filter = checks(p, &c, targets.as_deref().unwrap_or(&no_targets));
    let mut union: Union<ConversationFilter, Conversation> = Union::new(
        client.clone(),
        p.plan.streams.clone(),
        limit,
        a.max.is_none(),
    );
    if let Some(n) = a.max_pages {
        union = union.with_max_requests(n);
    }
    let mut known: HashMap<Uuid, Option<VisitorInfo>> = HashMap::new();
    let cut;
    loop {
        if a.max.is_some_and(|m| c.summary.coverage().loaded >= m) {
            cut = union.has_more();
            break;
        }
        let row = union.next().await;
        for line in union.take_notices() {
            let _ = writeln!(o.err, "{line}");
        }
        let Some(row) = row else {
            cut = union.out_of_budget();
            break;
        };
        let visitor = if filter.needs_visitor() {
            known
                .entry(row.visitor_id)
                .or_insert_with(|| lookup(c.store, row.visitor_id))
                .as_ref()
        } else {
            None
        };
        if filter.conversation(&row, visitor) {
            c.summary.add(&row);
            if let Some(s) = &mut c.since {
                s.see(&row);
            }
        }
    }
    Ok(ended(c, &union, p.plan.streams.len(), cut, o))
}

/// The query's checks on each row, measured from the summary's `now` (so every `--watch`
/// sample measures relative terms again), `due:` against `sla`.
fn checks<'a>(p: &Prepared, c: &Counting<'a>, sla: &'a Sla) -> Filter<'a> {
    Filter::new(
        &p.plan.terms(),
        Context {
            now: c.summary.now(),
            tz: jiff::tz::TimeZone::system(),
            sla,
            stale_after_secs: c.summary.stale_after_secs(),
            aliases: c.aliases,
        },
    )
}

/// How the union's walk ended: every stream failed (an error as for one walk), some did (a
/// partial summary, exit 5), or it was cut short; its warnings said.
fn ended(
    c: Counting<'_>,
    union: &Union<ConversationFilter, Conversation>,
    of: usize,
    cut: bool,
    o: &mut Output<'_>,
) -> WalkedPages {
    let mut summary = c.summary;
    summary.add_unreadable(union.bad_rows() as u64);
    let failed = union.failures().len();
    let failure = (failed > 0 && failed == of).then(|| union.failures()[0].1.clone());
    let ended_early = !cut && failure.is_none() && union.incomplete();
    summary.set_more_available(cut || failure.is_some() || ended_early);
    for w in union.warnings() {
        let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
    }
    WalkedPages {
        pages: if failure.is_some() {
            0
        } else {
            (union.requests() as usize).max(1)
        },
        since: c.since,
        walked: Walked {
            summary,
            failure,
            ended_early,
        },
    }
}
