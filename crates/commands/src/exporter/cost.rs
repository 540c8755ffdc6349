//! What the exporter costs the service: requests a round and a minute for its interval and
//! views. Before the first round, bounds from the plan of each view's query (`--explain`'s
//! planner: each stream costs at least one request, at most the page budget); after a round,
//! what it sent. With the service's budget known (its rate-limit headers, a 429), an interval
//! whose rounds cannot fit it is refused.

use std::time::Duration;

use convo_api::{Resource, budget::Snapshot};
use convo_config::{Config, View};
use convo_query::query::plan::{self, Emails};
use convo_query::query::resolve::Names;

/// Requests a round sends, as far as known before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// One request per stream of each view.
    pub least: u64,
    /// Every stream of each view to its page budget.
    pub most: u64,
}

/// The streams of `v`'s query (one for a view of filters; several for a union; 1 when the
/// query does not plan: its walk then fails without a request, counted as one to be safe).
fn streams(v: &View, cfg: &Config) -> u64 {
    let text = crate::summary::views::view_query(v);
    let names = Names {
        agent_id: cfg.query.agent_id,
        aliases: &cfg.aliases,
        sla: &cfg.sla,
    };
    let Ok((_, q)) = convo_query::query::views::understood(&text, v.tab, &names) else {
        return 1;
    };
    let n = match v.tab {
        Resource::Conversations => plan::conversations(&q, &Emails::new(), cfg.query.max_streams)
            .streams
            .len(),
        Resource::Visitors => plan::visitors(&q, cfg.query.max_streams).streams.len(),
    };
    n.max(1) as u64
}

/// The bounds of one round over `views`, each view at most `max_pages` requests a stream.
pub fn bounds(views: &[View], cfg: &Config, max_pages: u64) -> Bounds {
    let streams: Vec<u64> = views.iter().map(|v| streams(v, cfg)).collect();
    Bounds {
        least: streams.iter().sum(),
        most: streams.iter().map(|s| s * max_pages.max(1)).sum(),
    }
}

/// `n` requests a round as requests a minute at one round per `interval`.
pub fn per_minute(n: u64, interval: Duration) -> u64 {
    let secs = interval.as_secs_f64().max(1.0);
    (n as f64 * 60.0 / secs).round() as u64
}

/// The line said at start and on `/`: views, requests a round and a minute.
pub fn said(views: usize, b: Bounds, interval: Duration) -> String {
    format!(
        "cost: {views} views, {}–{} requests a round (a request per stream of each view, at \
         most its page budget), so {}–{} a minute at one round every {}s",
        b.least,
        b.most,
        per_minute(b.least, interval),
        per_minute(b.most, interval),
        interval.as_secs()
    )
}

/// A round of `sent` requests every `interval` against the service's budget: `Err` with the
/// reason when it cannot fit (more requests a window than the window allows), `Ok` with a
/// note of the share it takes when the budget is known.
pub fn fits(sent: u64, interval: Duration, budget: &Snapshot) -> Result<Option<String>, String> {
    let (Some(limit), Some(window)) = (budget.limit, budget.window) else {
        return Ok(None);
    };
    let rounds = window.as_secs_f64() / interval.as_secs_f64().max(1.0);
    let need = (sent as f64 * rounds).ceil() as u64;
    let w = window.as_secs();
    if need > u64::from(limit) {
        // The shortest interval whose rounds fit: sent rounds per window at most the limit.
        let shortest = (sent as f64 * window.as_secs_f64() / f64::from(limit.max(1))).ceil();
        return Err(format!(
            "--interval {}s cannot fit the service's budget: a round sent {sent} requests, {need} \
             every {w}s, and the service allows {limit} per {w}s; walk every {shortest}s or more \
             (--interval, exporter_interval), or leave views out (exporter_exclude, \
             exporter = false)",
            interval.as_secs()
        ));
    }
    Ok(Some(format!(
        "a round sent {sent} requests: {need} of the {limit} the service allows per {w}s ({}%)",
        need * 100 / u64::from(limit.max(1))
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(limit: u32, window: u64) -> Snapshot {
        Snapshot {
            limit: Some(limit),
            window: Some(Duration::from_secs(window)),
            left: None,
            resets_in: None,
            source: convo_api::budget::Source::Unknown,
            background_left: None,
        }
    }

    #[test]
    fn a_round_fits_or_is_refused_with_the_shortest_interval() {
        let ten = Duration::from_secs(10);
        assert_eq!(
            fits(20, ten, &budget(600, 60)).unwrap().unwrap(),
            "a round sent 20 requests: 120 of the 600 the service allows per 60s (20%)"
        );
        let e = fits(120, ten, &budget(600, 60)).unwrap_err();
        assert!(e.contains("720 every 60s"), "{e}");
        assert!(e.contains("walk every 12s or more"), "{e}");
        assert_eq!(per_minute(13, Duration::from_secs(10)), 78);
    }
}
