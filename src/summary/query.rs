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
use crate::api::{Client, Conversation, ConversationFilter, Limit, Resource};
use crate::config::{Aliases, QuerySettings};
use crate::exit::ListError;
use crate::options::conversation_flag_terms;
use crate::output::{Output, stderr};
use crate::query::Query;
use crate::query::eval::{Context, Filter, VisitorInfo};
use crate::query::exec::Union;
use crate::query::plan::{self, Plan};
use crate::query::resolve::Names;
use crate::query::run::{Keeper, from_the_flags, lookup, resolve_emails, understood_with};
use crate::sla::Sla;

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
    store: Option<&mut crate::store::Store>,
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

/// Walks the query's streams into a summary.
#[allow(clippy::too_many_arguments)]
pub(super) async fn walk(
    client: &Client,
    a: &SummaryOptions,
    p: &Prepared,
    page_size: Limit,
    stale_after_secs: i64,
    targets: Option<Arc<Sla>>,
    now: jiff::Timestamp,
    look: Option<&crate::store::Snapshot>,
    aliases: &Aliases,
    store: Option<&crate::store::Store>,
    o: &mut Output<'_>,
) -> Result<WalkedPages, ListError> {
    let limit = match a.limit {
        Some(n) => Limit::new(n)?,
        None => page_size,
    };
    let stale = a.stale_after.unwrap_or(stale_after_secs);
    let mut summary = Summary::new(now, stale);
    let no_targets = Sla::default();
    let sla = targets.clone();
    if let Some(t) = targets {
        summary = summary.with_sla(t);
    }
    let filter = Filter::new(
        &p.plan.terms(),
        Context {
            now,
            tz: jiff::tz::TimeZone::system(),
            sla: sla.as_deref().unwrap_or(&no_targets),
            stale_after_secs: stale,
            aliases,
        },
    );
    let mut since = look.map(crate::store::looks::SinceLook::new);
    let mut union: Union<ConversationFilter, Conversation> = Union::new(
        client.clone(),
        p.plan.streams.clone(),
        limit,
        a.max.is_none(),
    );
    let mut known: HashMap<Uuid, Option<VisitorInfo>> = HashMap::new();
    let mut cut = false;
    loop {
        if a.max.is_some_and(|m| summary.coverage().loaded >= m) {
            cut = union.has_more();
            break;
        }
        let row = union.next().await;
        for line in union.take_notices() {
            let _ = writeln!(o.err, "{line}");
        }
        let Some(row) = row else { break };
        let visitor = if filter.needs_visitor() {
            known
                .entry(row.visitor_id)
                .or_insert_with(|| lookup(store, row.visitor_id))
                .as_ref()
        } else {
            None
        };
        if !filter.conversation(&row, visitor) {
            continue;
        }
        summary.add(&row);
        if let Some(s) = &mut since {
            s.see(&row);
        }
    }
    summary.add_unreadable(union.bad_rows() as u64);
    let (failed, of) = (union.failures().len(), p.plan.streams.len());
    // Every stream failed: an error as for one walk. Some did: a partial summary, exit 5.
    let failure = (failed > 0 && failed == of).then(|| union.failures()[0].1.clone());
    let ended_early = !cut && failure.is_none() && union.incomplete();
    summary.set_more_available(cut || failure.is_some() || ended_early);
    for w in union.warnings() {
        let _ = writeln!(o.err, "{}", stderr::warning_line(&w));
    }
    Ok(WalkedPages {
        pages: if failure.is_some() {
            0
        } else {
            (union.requests() as usize).max(1)
        },
        since,
        walked: Walked {
            summary,
            failure,
            ended_early,
        },
    })
}
