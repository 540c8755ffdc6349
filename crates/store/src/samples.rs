//! Summary counts over time, per view/filter key: what the 24 h sparkline draws. One sample
//! per key and second (a second one in the same second replaces the first); samples older
//! than [`KEEP_SECS`] are dropped as new ones are recorded.

use rusqlite::params;

use super::{Store, StoreError};

/// Samples are kept for 8 days (a week back plus a margin).
pub const KEEP_SECS: i64 = 8 * 86_400;

/// The window of the summary pane's trend.
pub const DAY_SECS: i64 = 86_400;

/// One sample of a view's counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Unix seconds.
    pub at: i64,
    /// Conversations the counts cover.
    pub loaded: u64,
    /// Whether `loaded` is the whole list; else the counts cover the top `loaded` rows (those
    /// a refresh keeps live). Only samples of one scope are drawn together.
    pub complete: bool,
    /// Open and unassigned.
    pub waiting: u64,
    /// Past `warn_at` of a target, not yet past it.
    pub imminent: u64,
    /// Past a target.
    pub breaching: u64,
}

/// The key a Conversations filter's looks and samples are kept under: the filter as the
/// query it sends (`conversations?status=open&unassigned=true`).
pub fn filter_key(f: &convo_api::ConversationFilter) -> String {
    use convo_api::ListFilter;
    let q: Vec<String> = f
        .query_pairs()
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .chain(
            f.by_email
                .as_ref()
                .map(|b| format!("visitor_email={}", b.email)),
        )
        .collect();
    format!("conversations?{}", q.join("&"))
}

fn n(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Store {
    /// Records a sample for `key` (e.g. a view name or a filter's query string) and drops
    /// that key's samples older than [`KEEP_SECS`] before it.
    pub fn record_sample(&self, key: &str, s: &Sample) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO samples (key, at, loaded, complete, waiting, imminent, breaching)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    key,
                    s.at,
                    n(s.loaded),
                    s.complete,
                    n(s.waiting),
                    n(s.imminent),
                    n(s.breaching)
                ],
            )
            .map_err(|e| self.error(&e))?;
        self.conn
            .execute(
                "DELETE FROM samples WHERE key = ?1 AND at < ?2",
                params![key, s.at.saturating_sub(KEEP_SECS)],
            )
            .map(|_| ())
            .map_err(|e| self.error(&e))
    }

    /// The samples of `key` taken at or after `since` (unix seconds), oldest first.
    pub fn samples_since(&self, key: &str, since: i64) -> Result<Vec<Sample>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT at, loaded, complete, waiting, imminent, breaching FROM samples
                 WHERE key = ?1 AND at >= ?2 ORDER BY at",
            )
            .map_err(|e| self.error(&e))?;
        let rows = st
            .query_map(params![key, since], |r| {
                let u = |i: usize| r.get::<_, i64>(i).map(|v| v.max(0) as u64);
                Ok(Sample {
                    at: r.get(0)?,
                    loaded: u(1)?,
                    complete: r.get(2)?,
                    waiting: u(3)?,
                    imminent: u(4)?,
                    breaching: u(5)?,
                })
            })
            .map_err(|e| StoreError::from_sqlite(&self.path, &e, self.busy))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| StoreError::from_sqlite(&self.path, &e, self.busy))
    }
}
