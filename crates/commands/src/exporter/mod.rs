//! `convo exporter`: every view (built-in and `[[views]]`) walked once per interval and served
//! to Prometheus on `/metrics`, so one process feeds a whole team: its cost to the service is
//! one walk per view per interval, however many people or dashboards look.
//!
//! - [`state`]: what is served (the last complete walk of each view, never a half one; a view
//!   whose walk fails keeps its figures and says so) and the exporter's own series.
//! - [`server`]: the HTTP side (axum): `/metrics`, `/healthz`, `/`.
//!
//! The walk of each view is [`crate::summary::views`], the one `convo summary --views` and
//! the browser's board use. Loopback by default: another address is refused unless the user
//! says `--allow-remote`. The key is never in an answer: the series carry counts, view names
//! and the client's request counts, and the errors `/` shows are the client's, scrubbed of
//! the key. SIGTERM (or Ctrl-C) stops it cleanly: the listener closes and the walk ends.

pub mod cost;
pub mod series;
pub mod server;
pub mod state;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::summary::By;
use crate::summary::views::all_views;
use crate::summary::views_command::views_walk;
use convo_api::Client;
use convo_config::Config;

/// The port Prometheus's exporter list gives convo's exporter.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9464";

/// How often every view is walked when neither `--interval` nor the config says.
pub const DEFAULT_INTERVAL_SECS: u64 = 60;

/// `convo exporter`'s options, as plain values (`cli` builds them).
#[derive(Debug, Clone)]
pub struct ExporterOptions {
    pub listen: SocketAddr,
    /// Listening on an address other than loopback is the user's explicit choice.
    pub allow_remote: bool,
    /// Seconds between the starts of two rounds over every view (default:
    /// `exporter_interval` from the config, else [`DEFAULT_INTERVAL_SECS`]).
    pub interval_secs: Option<u64>,
    /// How the summary gauges are grouped (each sample also has `view`).
    pub by: By,
    /// Requests one view may send per walk (default: `scan_max_pages`).
    pub max_pages: Option<u64>,
    /// Rows per request (default: `page_size`).
    pub limit: Option<i64>,
}

/// Why the exporter could not run.
#[derive(Debug)]
pub enum ExporterError {
    /// A bad option (an interval the service's budget cannot take among them): exit 2.
    Usage(String),
    /// The address could not be listened on.
    Listen(String),
}

impl ExporterError {
    pub fn exit_code(&self) -> u8 {
        match self {
            ExporterError::Usage(_) => convo_query::exit::USAGE,
            ExporterError::Listen(_) => 1,
        }
    }
}

impl std::fmt::Display for ExporterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExporterError::Usage(m) | ExporterError::Listen(m) => f.write_str(m),
        }
    }
}

/// Refuses an address that is not loopback unless `--allow-remote` says to listen there.
pub fn check_listen(addr: SocketAddr, allow_remote: bool) -> Result<(), ExporterError> {
    if addr.ip().is_loopback() || allow_remote {
        return Ok(());
    }
    Err(ExporterError::Usage(format!(
        "--listen {addr}: not a loopback address, so anyone who can reach it reads the \
         figures of every view; add --allow-remote to mean it (or put a reverse proxy with \
         authentication in front of 127.0.0.1)"
    )))
}

/// The views the exporter walks: every view of the profile ([`all_views`]) but those the
/// config leaves out (`exporter_exclude = [...]`, `exporter = false` in a `[[views]]` entry).
pub fn exported_views(cfg: &Config) -> Vec<convo_config::View> {
    let mut views = all_views(&cfg.views, &cfg.sla, cfg.query.agent_id);
    views.retain(|v| {
        !cfg.exporter_exclude
            .iter()
            .any(|n| n.trim().eq_ignore_ascii_case(&v.name))
    });
    views
}

/// Runs the exporter until SIGTERM or Ctrl-C; says where it listens on `err`.
pub async fn run(
    client: Client,
    cfg: Config,
    opts: ExporterOptions,
    err: &mut dyn std::io::Write,
) -> Result<(), ExporterError> {
    check_listen(opts.listen, opts.allow_remote)?;
    let interval = opts.interval_secs.unwrap_or(DEFAULT_INTERVAL_SECS);
    if interval == 0 {
        return Err(ExporterError::Usage(
            "--interval: at least 1s between walks".into(),
        ));
    }
    let interval = Duration::from_secs(interval);
    // Checked before listening: a bad --limit is a usage error, not a failed walk.
    views_walk(&client, &cfg, opts.max_pages, opts.limit)
        .map_err(|e| ExporterError::Usage(e.to_string()))?;
    let views = exported_views(&cfg);
    if views.is_empty() {
        return Err(ExporterError::Usage(
            "every view is left out (exporter_exclude, exporter = false): nothing to serve".into(),
        ));
    }
    let names: Vec<String> = views.iter().map(|v| v.name.clone()).collect();
    let max_pages = opts.max_pages.unwrap_or(cfg.query.scan_max_pages as u64);
    let cost = cost::said(views.len(), cost::bounds(&views, &cfg, max_pages), interval);
    let state = Arc::new(state::State::new(
        &names,
        interval,
        opts.by,
        cfg.aliases.clone(),
        &cfg.sla,
    ));
    state.set_cost(cost.clone());
    let listener = tokio::net::TcpListener::bind(opts.listen)
        .await
        .map_err(|e| ExporterError::Listen(format!("cannot listen on {}: {e}", opts.listen)))?;
    let local = listener
        .local_addr()
        .map_err(|e| ExporterError::Listen(format!("cannot listen on {}: {e}", opts.listen)))?;
    let _ = writeln!(
        err,
        "convo exporter: serving http://{local}/metrics ({} views, walked every {}s)",
        views.len(),
        interval.as_secs()
    );
    let _ = writeln!(err, "convo exporter: {cost}");
    let _ = err.flush();
    let app = server::router(state.clone(), client.clone());
    let server = axum::serve(listener, app).with_graceful_shutdown(stop_signal());
    // The walk runs beside the server in this task (its future is not `Send`: the store),
    // and ends when the server does.
    let served = tokio::select! {
        r = server => r.map_err(|e| ExporterError::Listen(format!("the server stopped: {e}"))),
        r = walk_forever(client, cfg, opts, state, &mut *err) => r,
    };
    served?;
    let _ = writeln!(err, "convo exporter: stopped");
    Ok(())
}

/// One round over every view per interval, each view's figures replaced as its walk ends; a
/// view that starts failing, and one read again after failing, is said on `err` (once, not at
/// every round: a journal stays readable). After the first round, what it cost is said; an
/// interval whose rounds cannot fit the service's budget (once known) ends it (exit 2).
async fn walk_forever(
    client: Client,
    cfg: Config,
    opts: ExporterOptions,
    state: Arc<state::State>,
    err: &mut dyn std::io::Write,
) -> Result<(), ExporterError> {
    let Ok(walk) = views_walk(&client, &cfg, opts.max_pages, opts.limit) else {
        return Ok(());
    };
    let sent = || -> u64 { client.stats().requests().iter().map(|r| r.2).sum() };
    let mut budget_checked = false;
    let views = exported_views(&cfg);
    let interval = Duration::from_secs(opts.interval_secs.unwrap_or(DEFAULT_INTERVAL_SECS));
    // Views with checks on visitor fields look visitors up in the local store.
    let mut sink = std::io::sink();
    let mut store = convo_store::open_for_command(&cfg, &mut sink);
    let mut ticks = tokio::time::interval(interval);
    // A round longer than the interval starts the next at once, never several at once.
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut failing = vec![false; views.len()];
    loop {
        ticks.tick().await;
        let started = Instant::now();
        let before = sent();
        for (i, v) in views.iter().enumerate() {
            let r = walk.walk(v, now(), store.as_mut()).await;
            let name = convo_text::one_line(&v.name, 80);
            match &r.outcome {
                Err(e) if !failing[i] => {
                    let _ = writeln!(
                        err,
                        "convo exporter: view {name:?}: the walk failed: {}; its figures stay \
                         those of its last complete walk",
                        convo_text::one_line(e, 300)
                    );
                    tracing::warn!(view = %name, error = %e, "view walk failed");
                }
                Ok(_) if failing[i] => {
                    let _ = writeln!(err, "convo exporter: view {name:?}: read again");
                }
                _ => {}
            }
            failing[i] = r.outcome.is_err();
            state.ended(i, r);
        }
        let round = sent().saturating_sub(before);
        state.round_ended(jiff::Timestamp::now(), started.elapsed(), round);
        // Said after the first round, and checked until the budget is known (a service that
        // sends no rate-limit headers is learned from its first 429).
        if !budget_checked {
            let budget = client.budget().snapshot();
            budget_checked = budget.limit.is_some() && budget.window.is_some();
            match cost::fits(round, interval, &budget) {
                Err(why) => return Err(ExporterError::Usage(why)),
                Ok(note) if budget_checked || state.rounds() == 1 => {
                    let note = note.unwrap_or_else(|| {
                        format!(
                            "a round sent {round} requests ({} a minute); the service's budget \
                             is not known yet",
                            cost::per_minute(round, interval)
                        )
                    });
                    let _ = writeln!(err, "convo exporter: {note}");
                    state.set_cost_note(note);
                }
                Ok(_) => {}
            }
        }
    }
}

/// The clock, or in a build with the `testing` feature `CONVO_NOW` when set and readable.
fn now() -> jiff::Timestamp {
    crate::summary::command::now_from_env().unwrap_or_else(|_| jiff::Timestamp::now())
}

/// SIGTERM (what systemd and `kill` send) or Ctrl-C.
async fn stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = ctrl_c => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
