//! What a command needs of the store: opening it with a word on stderr when it cannot, and its
//! sizes and counts (`convo store stats`).

use std::io::Write;

use super::sync::ListOrder;
use super::{Store, StoreError, SyncState, Unknown};
use convo_config::Config;
use convo_text::thousands;

/// Opens this config's store for a command, saying on stderr why not (once) or that a
/// damaged file was moved aside. `None`: run without it.
pub fn open_for_command(cfg: &Config, err: &mut dyn Write) -> Option<Store> {
    let path = match super::path_for(cfg) {
        Ok(p) => p,
        Err(StoreError::Disabled) => return None,
        Err(e) => {
            let _ = writeln!(err, "convo: warning: {e}");
            return None;
        }
    };
    match Store::open(&path) {
        Ok(s) => {
            if let Some(n) = &s.notice {
                let _ = writeln!(err, "convo: warning: {n}");
            }
            Some(s)
        }
        Err(e) => {
            let _ = writeln!(err, "convo: warning: {e}");
            None
        }
    }
}

/// What `convo store stats` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub bytes: u64,
    pub visitors: u64,
    pub looks: u64,
    pub samples: u64,
}

impl Store {
    /// Sizes and counts of the store.
    pub fn stats(&self) -> Result<Stats, StoreError> {
        let count = |table: &str| {
            self.conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| {
                    r.get::<_, i64>(0)
                })
                .map(|n| n.max(0) as u64)
                .map_err(|e| self.error(&e))
        };
        Ok(Stats {
            bytes: self.size_on_disk(),
            visitors: count("visitors")?,
            looks: count("looks")?,
            samples: count("samples")?,
        })
    }
}

/// A moment in UTC, for a report.
pub fn when(unix: i64) -> String {
    jiff::Timestamp::from_second(unix)
        .map(|t| t.strftime("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|_| unix.to_string())
}

/// What the visitor sync has done, in words (`convo store stats`, `convo doctor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncWords {
    /// How far the full walk is.
    pub walk: String,
    /// The visitors list's order, as learned.
    pub order: String,
    /// Loaded rows whose visitors the store does not know.
    pub unknown: String,
    /// The order cannot be learned: new visitors wait for the next full walk.
    pub full_walks_only: bool,
}

impl SyncWords {
    pub fn of(sync: &SyncState, unknown: Unknown) -> SyncWords {
        let walk = match (&sync.cursor, sync.finished_at) {
            (Some(_), _) => format!(
                "under way ({} visitors so far{}; resumes where it stopped)",
                thousands(sync.walked),
                sync.last_total
                    .map(|t| format!(" of ≥{}", thousands(t.max(sync.walked))))
                    .unwrap_or_default()
            ),
            (None, Some(t)) => format!(
                "last complete walk {} ({} visitors)",
                when(t),
                thousands(sync.last_total.unwrap_or(0))
            ),
            (None, None) => "never run (convo store sync, or start the TUI)".into(),
        };
        let unknown = match unknown.rows {
            0 => "no loaded row has a visitor the store does not know".to_string(),
            n => format!(
                "{} loaded rows ({} visitors) have a visitor the store does not know yet",
                thousands(n),
                thousands(unknown.visitors)
            ),
        };
        let order = ListOrder::of(sync);
        SyncWords {
            walk,
            order: order.words().to_string(),
            unknown,
            full_walks_only: order == ListOrder::Unknown,
        }
    }
}
