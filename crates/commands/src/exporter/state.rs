//! What `/metrics` serves: per view the last complete walk (never a walk still under way: a
//! view's figures change only when its walk has ended), whether its latest walk failed, and
//! the exporter's own counters. Shared between the walker and the HTTP handlers behind a
//! mutex; a scrape renders it and sends no request to the service.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::summary::By;
use crate::summary::views::ViewReport;
use crate::summary::views_output::{self, ViewState};
use convo_api::budget::Snapshot;
use convo_api::stats::RequestStats;
use convo_config::Aliases;

/// One view as the exporter knows it.
#[derive(Debug, Clone)]
struct Known {
    name: String,
    /// The last walk that ended with counts.
    last_complete: Option<ViewReport>,
    /// The latest walk's error (`None`: it succeeded, or none has ended yet).
    error: Option<String>,
    /// Walks that ended, by result.
    ok: u64,
    failed: u64,
    /// When the last walk with counts ended (the monotonic clock: the age served is this
    /// process's, whatever its wall clock or `CONVO_NOW` say).
    ok_at: Option<Instant>,
}

/// The exporter's figures.
#[derive(Debug)]
pub struct State {
    views: Mutex<Vec<Known>>,
    /// What the rounds cost, said on `/`: the estimate at start, then the first round's.
    cost: Mutex<Vec<String>>,
    rounds: Mutex<Rounds>,
    interval: Duration,
    by: By,
    aliases: Aliases,
    /// The config's base response-time targets, in seconds (`first_response`, `resolution`).
    targets: Vec<(&'static str, i64)>,
}

/// The rounds of walks over every view.
#[derive(Debug, Default, Clone, Copy)]
struct Rounds {
    done: u64,
    last_at: Option<jiff::Timestamp>,
    last_took: Option<Duration>,
    /// Requests the last round sent.
    last_requests: u64,
}

impl State {
    /// No view read yet; `names` in the order they are walked; `sla`'s base targets are
    /// served as `convo_sla_target_seconds` (the rules compare the oldest wait with it).
    pub fn new(
        names: &[String],
        interval: Duration,
        by: By,
        aliases: Aliases,
        sla: &convo_engine::sla::Sla,
    ) -> State {
        let targets = [
            ("first_response", sla.base.first_response),
            ("resolution", sla.base.resolution),
        ]
        .into_iter()
        .filter_map(|(n, t)| Some((n, t?)))
        .collect();
        State {
            views: Mutex::new(
                names
                    .iter()
                    .map(|n| Known {
                        name: n.clone(),
                        last_complete: None,
                        error: None,
                        ok: 0,
                        failed: 0,
                        ok_at: None,
                    })
                    .collect(),
            ),
            rounds: Mutex::new(Rounds::default()),
            cost: Mutex::new(Vec::new()),
            interval,
            by,
            aliases,
            targets,
        }
    }

    /// A view's walk has ended: counts replace the view's figures; an error keeps them and
    /// is said (`convo_view_up 0`).
    pub fn ended(&self, i: usize, r: ViewReport) {
        let mut views = lock(&self.views);
        let Some(k) = views.get_mut(i) else { return };
        match &r.outcome {
            Ok(_) => {
                k.ok += 1;
                k.ok_at = Some(Instant::now());
                k.error = None;
                k.last_complete = Some(r);
            }
            Err(e) => {
                k.failed += 1;
                k.error = Some(e.clone());
            }
        }
    }

    /// A round over every view has ended, having sent `requests`.
    pub fn round_ended(&self, at: jiff::Timestamp, took: Duration, requests: u64) {
        let mut r = lock(&self.rounds);
        r.done += 1;
        r.last_at = Some(at);
        r.last_took = Some(took);
        r.last_requests = requests;
    }

    /// Rounds that ended.
    pub fn rounds(&self) -> u64 {
        lock(&self.rounds).done
    }

    /// The estimate said at start ([`super::cost::said`]).
    pub fn set_cost(&self, line: String) {
        *lock(&self.cost) = vec![line];
    }

    /// What the first round cost, against the budget when known.
    pub fn set_cost_note(&self, line: String) {
        let mut c = lock(&self.cost);
        c.truncate(1);
        c.push(line);
    }

    /// `/metrics`: the views' series, then the exporter's own.
    pub fn metrics(&self, requests: &RequestStats, budget: &Snapshot) -> String {
        let views = lock(&self.views).clone();
        let states: Vec<ViewState<'_>> = views
            .iter()
            .map(|k| ViewState {
                name: &k.name,
                last: k
                    .last_complete
                    .as_ref()
                    .and_then(|r| r.outcome.as_ref().ok().map(|c| (c, r.read_at, r.took))),
                up: k.error.is_none() && k.ok > 0,
            })
            .collect();
        let mut out = views_output::prometheus(&states, self.by, &self.aliases);
        let label = |n: &str| crate::summary::prometheus::escape(n);
        // How old each view's figures are at this scrape: it grows while the walks fail (the
        // service down, the key refused) or hang, so that an outage is seen although the
        // figures themselves stay those of the last complete walk.
        out.push_str(
            "# HELP convo_view_figures_age_seconds Seconds since the view's figures were read \
             (its last complete walk ended); grows while its walks fail or hang.\n\
             # TYPE convo_view_figures_age_seconds gauge\n",
        );
        for k in &views {
            if let Some(at) = k.ok_at {
                out.push_str(&format!(
                    "convo_view_figures_age_seconds{{view=\"{}\"}} {}\n",
                    label(&k.name),
                    at.elapsed().as_secs_f64().floor()
                ));
            }
        }
        out.push_str(
            "# HELP convo_exporter_walks_total Walks of each view that ended, by result.\n\
             # TYPE convo_exporter_walks_total counter\n",
        );
        for k in &views {
            for (result, n) in [("ok", k.ok), ("error", k.failed)] {
                out.push_str(&format!(
                    "convo_exporter_walks_total{{view=\"{}\",result=\"{result}\"}} {n}\n",
                    label(&k.name)
                ));
            }
        }
        out.push_str(
            "# HELP convo_api_requests_total Requests sent to the service, by endpoint and HTTP \
             status (error: no answer).\n# TYPE convo_api_requests_total counter\n",
        );
        for (endpoint, status, n) in requests.requests() {
            out.push_str(&format!(
                "convo_api_requests_total{{endpoint=\"{endpoint}\",status=\"{status}\"}} {n}\n"
            ));
        }
        out.push_str(&format!(
            "# HELP convo_api_rate_limited_total Answers that were 429 (rate limited).\n\
             # TYPE convo_api_rate_limited_total counter\nconvo_api_rate_limited_total {}\n",
            requests.rate_limited()
        ));
        out.push_str(&budget_series(budget));
        let rounds = *lock(&self.rounds);
        out.push_str(&format!(
            "# HELP convo_exporter_rounds_total Rounds over every view that ended.\n\
             # TYPE convo_exporter_rounds_total counter\nconvo_exporter_rounds_total {}\n",
            rounds.done
        ));
        if let (Some(at), Some(took)) = (rounds.last_at, rounds.last_took) {
            out.push_str(&format!(
                "# HELP convo_exporter_round_duration_seconds How long the last round over every \
                 view took.\n# TYPE convo_exporter_round_duration_seconds gauge\n\
                 convo_exporter_round_duration_seconds {}\n\
                 # HELP convo_exporter_last_round_timestamp_seconds When the last round over \
                 every view ended (Unix time).\n\
                 # TYPE convo_exporter_last_round_timestamp_seconds gauge\n\
                 convo_exporter_last_round_timestamp_seconds {}\n\
                 # HELP convo_exporter_round_requests Requests the last round over every view \
                 sent.\n# TYPE convo_exporter_round_requests gauge\n\
                 convo_exporter_round_requests {}\n",
                took.as_secs_f64(),
                at.as_second(),
                rounds.last_requests
            ));
        }
        if !self.targets.is_empty() {
            out.push_str(
                "# HELP convo_sla_target_seconds The config's response-time targets ([sla], \
                 sites without an override).\n# TYPE convo_sla_target_seconds gauge\n",
            );
            for (target, secs) in &self.targets {
                out.push_str(&format!(
                    "convo_sla_target_seconds{{target=\"{target}\"}} {secs}\n"
                ));
            }
        }
        out.push_str(&format!(
            "# HELP convo_exporter_interval_seconds How often every view is walked.\n\
             # TYPE convo_exporter_interval_seconds gauge\nconvo_exporter_interval_seconds {}\n\
             # HELP convo_build_info convo's version.\n# TYPE convo_build_info gauge\n\
             convo_build_info{{version=\"{}\"}} 1\n",
            self.interval.as_secs_f64(),
            label(crate::VERSION)
        ));
        out
    }

    /// `/`: a page for people: each view, when it was read, its latest error.
    pub fn index(&self) -> String {
        let views = lock(&self.views);
        let mut out = String::from(
            "convo exporter: /metrics (Prometheus text format), /healthz (liveness)\n\n",
        );
        for line in lock(&self.cost).iter() {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("\nviews:\n");
        for k in views.iter() {
            let read = k
                .last_complete
                .as_ref()
                .map(|r| format!("read at {}", r.read_at))
                .unwrap_or_else(|| "not read yet".into());
            out.push_str(&format!("- {}: {read}", convo_text::one_line(&k.name, 80)));
            if let Some(e) = &k.error {
                out.push_str(&format!(
                    "; last walk failed: {}",
                    convo_text::one_line(e, 300)
                ));
            }
            out.push('\n');
        }
        out
    }
}

/// The request budget's series, as the client sees it (`api::budget`): requests left in the
/// window and the window's limit, gauges without labels; no sample while the budget is unknown
/// (a service that sends no rate-limit headers and has not answered 429). The exporter's walks
/// are its own user's requests (`Priority::User`): nobody else shares its client.
fn budget_series(b: &Snapshot) -> String {
    let mut out = String::new();
    if let Some(left) = b.left {
        out.push_str(&format!(
            "# HELP convo_api_budget_remaining Requests left in the service's rate-limit window \
             (learned from its headers or 429s).\n# TYPE convo_api_budget_remaining gauge\n\
             convo_api_budget_remaining {left}\n"
        ));
    }
    if let Some(limit) = b.limit {
        out.push_str(&format!(
            "# HELP convo_api_budget_limit Requests the service allows per window.\n\
             # TYPE convo_api_budget_limit gauge\nconvo_api_budget_limit {limit}\n"
        ));
    }
    out
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
