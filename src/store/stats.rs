//! What a command needs of the store: opening it with a word on stderr when it cannot, and its
//! sizes and counts (`convo store stats`).

use std::io::Write;

use super::{Store, StoreError};
use crate::config::Config;

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
