//! Every view counted: the built-in views and the config's `[[views]]`, each walked with the
//! machinery `convo summary -q` uses (its query planned into streams, the union executor,
//! convo's checks on each row), giving per view a [`ViewReport`]: how many match (exact, or
//! "≥ N" where the walk stopped at its page budget), waiting, oldest waiting, imminent and
//! breaching, when it was read, or its error. A view that fails is one report with an error:
//! the others are walked all the same.
//!
//! Shared by `convo summary --views` (a table, JSON, CSV or Prometheus text), `convo exporter`
//! (the same series served on `/metrics`) and the browser's board. Nothing here writes to the
//! terminal: what a walk would say on stderr (retries, warnings) is kept in the report's
//! `notices`, sanitised.
//!
//! The walk's future is not `Send` (it holds the local store and the summary walk's writers
//! across awaits): run it in the task that owns the store (`select!` beside other work, as
//! `convo exporter` does, a `LocalSet`, or a thread with its own runtime), not `tokio::spawn`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Summary;
use super::options::SummaryOptions;
use convo_api::{Client, Limit, Resource, Visitor, VisitorFilter};
use convo_config::{Aliases, QuerySettings, View};
use convo_engine::sla::{Sla, Target};
use convo_query::exit::ListError;
use convo_query::options::QueryOptions;
use convo_query::output::Output;
use convo_query::query::eval::{Context, Filter};
use convo_query::query::exec::Union;
use convo_query::query::{filters, parse, plan, resolve};
use convo_store::Store;

/// Every view the profile has, in the picker's order: the built-in ones ("My open" when
/// `agent_id` is set; those on the first-response target only when `sla` sets one), then the
/// config's.
pub fn all_views(config_views: &[View], sla: &Sla, agent_id: Option<uuid::Uuid>) -> Vec<View> {
    let mut views = convo_config::builtin_views::builtin_views(agent_id);
    views.retain(|v| !convo_config::builtin_views::needs_missing_target(v, sla));
    views.extend(config_views.iter().cloned());
    views
}

/// The query a view walks: its `query = "…"` as written, else its tab's filters as a query.
pub fn view_query(v: &View) -> String {
    match &v.query {
        Some(q) => q.clone(),
        None => match v.tab {
            Resource::Conversations => filters::of_conversations(&v.conversations).to_string(),
            Resource::Visitors => filters::of_visitors(&v.visitors).to_string(),
        },
    }
}

/// What every view's walk shares (from the config and the command line).
pub struct ViewsWalk<'a> {
    pub client: &'a Client,
    /// Rows per request.
    pub page_size: Limit,
    /// Requests one view may send (its page budget); past it the count is "≥ N". `None`: the
    /// whole view is walked.
    pub max_pages: Option<u64>,
    /// A conversation not closed is stale after this many seconds without an update.
    pub stale_after_secs: i64,
    pub aliases: &'a Aliases,
    /// The response-time targets: imminent and breaching are counted when `first_response`
    /// is set (else those columns are empty).
    pub sla: &'a Sla,
    /// `agent_id` (`me`), `max_streams`.
    pub settings: QuerySettings,
}

/// One view's walk: what it is, when it was read, its counts or its error.
#[derive(Debug, Clone)]
pub struct ViewReport {
    /// The view's name as the config gives it (not sanitised: the formatter does that).
    pub name: String,
    pub tab: Resource,
    /// The query walked ([`view_query`]).
    pub query: String,
    /// When the walk started: ages are measured to it.
    pub read_at: jiff::Timestamp,
    /// How long the walk took.
    pub took: Duration,
    /// The counts, or why there are none: a bad query, a failed walk, a walk the service
    /// ended early (then no count is given: it would be a wrong one).
    pub outcome: Result<ViewCounts, String>,
    /// What the walk would have said on stderr (retries, warnings), one line each, sanitised.
    pub notices: Vec<String>,
}

/// What one view's walk counted.
#[derive(Debug, Clone)]
pub struct ViewCounts {
    /// Rows that match the view (that passed convo's checks).
    pub matched: u64,
    /// The walk read the whole view; `false`: it stopped at its page budget and `matched` is
    /// a lower bound ("≥ N").
    pub complete: bool,
    /// The conversations counted (ages, waiting, targets); `None` for a visitors view.
    pub summary: Option<Summary>,
}

impl ViewCounts {
    /// "1,234", or "≥ 1,234" when the walk stopped at its page budget.
    pub fn matched_text(&self) -> String {
        let n = convo_text::thousands(self.matched);
        if self.complete { n } else { format!("≥ {n}") }
    }

    /// Conversations open and unassigned; `None` for a visitors view.
    pub fn waiting(&self) -> Option<u64> {
        Some(self.summary.as_ref()?.total().waiting)
    }

    /// Seconds the oldest waiting conversation has waited (since `createdAt`); `None` when
    /// none waits or for a visitors view.
    pub fn oldest_waiting_secs(&self) -> Option<i64> {
        self.summary.as_ref()?.total().oldest_waiting_age
    }

    /// Waiting conversations past `warn_at` of the first-response target, not past it; `None`
    /// when no such target is set or for a visitors view.
    pub fn imminent(&self) -> Option<u64> {
        Some(self.tracked()?.total().sla.imminent)
    }

    /// Waiting conversations past the first-response target; `None` when no such target is
    /// set or for a visitors view.
    pub fn breaching(&self) -> Option<u64> {
        Some(self.tracked()?.total().sla.breaching)
    }

    fn tracked(&self) -> Option<&Summary> {
        let s = self.summary.as_ref()?;
        s.sla()?.is_tracked(Target::FirstResponse).then_some(s)
    }
}

impl ViewsWalk<'_> {
    /// Walks one view, ages measured to `now`. `store`: the local store, for the checks on
    /// visitor fields and the visitors `visitor:` e-mails find (kept there as `summary -q`
    /// keeps them); `None` runs without it.
    pub async fn walk(
        &self,
        view: &View,
        now: jiff::Timestamp,
        store: Option<&mut Store>,
    ) -> ViewReport {
        let started = Instant::now();
        let query = view_query(view);
        let mut err: Vec<u8> = Vec::new();
        let outcome = match view.tab {
            Resource::Conversations => self.conversations(&query, now, store, &mut err).await,
            Resource::Visitors => self.visitors(&query, now, &mut err).await,
        };
        let notices: Vec<String> = String::from_utf8_lossy(&err)
            .lines()
            .map(|l| convo_text::one_line(l, 300))
            .filter(|l| !l.trim().is_empty())
            .collect();
        let outcome = outcome.map_err(|e| match e {
            // The walk's warning says why; the error alone would point "above".
            ListError::Truncated => format!(
                "the service ended the walk early: {}",
                notices
                    .last()
                    .map(String::as_str)
                    .unwrap_or("no reason given")
            ),
            // One line: the query and what is wrong with it (the caret needs its own line).
            ListError::Query(m) => format!(
                "bad query {:?}: {}",
                query,
                m.lines().last().unwrap_or_default().trim()
            ),
            e => e.to_string(),
        });
        ViewReport {
            name: view.name.clone(),
            tab: view.tab,
            query,
            read_at: now,
            took: started.elapsed(),
            outcome,
            notices,
        }
    }

    /// Walks every view one after another, `on_each` told of each report as it is done (a
    /// board shows progress); returns them all, in the order given.
    pub async fn walk_all(
        &self,
        views: &[View],
        now: impl Fn() -> jiff::Timestamp,
        mut store: Option<&mut Store>,
        mut on_each: impl FnMut(&ViewReport),
    ) -> Vec<ViewReport> {
        let mut out = Vec::with_capacity(views.len());
        for v in views {
            let r = self.walk(v, now(), store.as_deref_mut()).await;
            on_each(&r);
            out.push(r);
        }
        out
    }

    /// A conversations view: `summary -q`'s preparation and walk.
    async fn conversations(
        &self,
        query: &str,
        now: jiff::Timestamp,
        mut store: Option<&mut Store>,
        err: &mut Vec<u8>,
    ) -> Result<ViewCounts, ListError> {
        let a = SummaryOptions {
            query: QueryOptions {
                text: Some(query.to_string()),
                explain: false,
            },
            max_pages: self.max_pages,
            ..SummaryOptions::default()
        };
        let p = super::query::prepare(
            self.client,
            &a,
            self.aliases,
            self.sla,
            self.settings,
            store.as_deref_mut(),
            err,
        )
        .await?;
        let targets = (!self.sla.is_empty()).then(|| Arc::new(self.sla.clone()));
        let mut summary = Summary::new(now, self.stale_after_secs);
        if let Some(t) = targets.clone() {
            summary = summary.with_sla(t);
        }
        let counting = super::query::Counting {
            summary,
            since: None,
            targets,
            aliases: self.aliases,
            store: store.as_deref(),
        };
        let mut sink = std::io::sink();
        let mut o = Output {
            out: &mut sink,
            err,
            out_is_terminal: false,
            err_is_terminal: false,
            aliases: self.aliases.clone(),
        };
        let walked = super::query::walk(self.client, &a, &p, self.page_size, counting, &mut o)
            .await?
            .walked;
        if let Some(e) = walked.failure {
            return Err(ListError::Api(e));
        }
        if walked.ended_early {
            return Err(ListError::Truncated);
        }
        let cov = walked.summary.coverage();
        Ok(ViewCounts {
            matched: cov.loaded,
            complete: cov.complete,
            summary: Some(walked.summary),
        })
    }

    /// A visitors view: its query's streams walked and the rows that pass its checks counted.
    async fn visitors(
        &self,
        query: &str,
        now: jiff::Timestamp,
        err: &mut Vec<u8>,
    ) -> Result<ViewCounts, ListError> {
        use std::io::Write;
        let names = resolve::Names {
            agent_id: self.settings.agent_id,
            aliases: self.aliases,
            sla: self.sla,
        };
        let bad = |e: convo_query::query::QueryError| ListError::Query(e.render(query));
        let q = resolve::resolve(&parse(query, Resource::Visitors).map_err(bad)?, &names)
            .map_err(bad)?;
        let plan = plan::visitors(&q, self.settings.max_streams);
        let filter = Filter::new(
            &plan.terms(),
            Context {
                now,
                tz: jiff::tz::TimeZone::system(),
                sla: self.sla,
                stale_after_secs: self.stale_after_secs,
                aliases: self.aliases,
            },
        );
        let mut union: Union<VisitorFilter, Visitor> =
            Union::new(self.client.clone(), plan.streams, self.page_size, true);
        if let Some(n) = self.max_pages {
            union = union.with_max_requests(n);
        }
        let mut matched = 0u64;
        loop {
            let row = union.next().await;
            for line in union.take_notices() {
                let _ = writeln!(err, "{line}");
            }
            let Some(v) = row else { break };
            if filter.visitor(&v) {
                matched += 1;
            }
        }
        for w in union.warnings() {
            let _ = writeln!(err, "convo: warning: {w}");
        }
        if let Some((_, e)) = union.failures().first() {
            return Err(ListError::Api(e.clone()));
        }
        if union.incomplete() {
            return Err(ListError::Truncated);
        }
        Ok(ViewCounts {
            matched,
            complete: !union.out_of_budget(),
            summary: None,
        })
    }
}
