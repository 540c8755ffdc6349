//! The service's request budget as the client learned it ([`convo_api::budget`]), kept so
//! that the next start paces from its first request. One row: the file is per service.

use std::time::Duration;

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};
use convo_api::budget::{Learned, Source};

impl Store {
    /// Keeps what was learned (replacing what was kept).
    pub fn keep_budget(&self, learned: &Learned, now: i64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO request_budget (id, quota, window_secs, source, learned_at)
                 VALUES (1, ?1, ?2, ?3, ?4)",
                params![
                    learned.limit,
                    i64::try_from(learned.window.as_secs().max(1)).unwrap_or(i64::MAX),
                    learned.source.as_str(),
                    now
                ],
            )
            .map(|_| ())
            .map_err(|e| self.error(&e))
    }

    /// What was kept, with when it was learned (unix seconds); `None` when nothing was, or what
    /// was kept cannot be used (a zero quota or window, an unknown source).
    pub fn budget(&self) -> Result<Option<(Learned, i64)>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT quota, window_secs, source, learned_at FROM request_budget WHERE id = 1",
                [],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, i64>(3)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| self.error(&e))?;
        Ok(row.and_then(|(quota, window, source, at)| {
            let source = Source::parse(&source);
            let limit = u32::try_from(quota).ok().filter(|q| *q > 0)?;
            let window = u64::try_from(window).ok().filter(|w| *w > 0)?;
            (source != Source::Unknown).then_some((
                Learned {
                    limit,
                    window: Duration::from_secs(window),
                    source,
                },
                at,
            ))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_learned_budget_is_kept_for_the_next_start_and_garbage_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let learned = Learned {
            limit: 120,
            window: Duration::from_secs(60),
            source: Source::TooManyRequests,
        };
        {
            let s = Store::open(&path).unwrap();
            assert_eq!(s.budget().unwrap(), None);
            s.keep_budget(&learned, 1_764_000_000).unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.budget().unwrap(), Some((learned, 1_764_000_000)));
        s.conn
            .execute("UPDATE request_budget SET source = 'rumour'", [])
            .unwrap();
        assert_eq!(s.budget().unwrap(), None);
        s.keep_budget(&learned, 1).unwrap();
        s.conn
            .execute("UPDATE request_budget SET quota = -3", [])
            .unwrap();
        assert_eq!(s.budget().unwrap(), None);
    }
}
