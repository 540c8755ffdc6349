//! Where the visitor sync stands, kept beside the rows it wrote (one transaction a page, so a
//! restart resumes exactly after the rows kept): the full walk's cursor, the order the
//! visitors list was seen to follow, where its new end is, and the visitors of loaded rows the
//! store did not know (what `convo store stats` and `convo doctor` report).

use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

use super::{Store, StoreError};
use convo_api::Visitor;

/// Where the background walk of the visitors list stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncState {
    /// The next page's cursor; `None`: the walk starts from the first page.
    pub cursor: Option<String>,
    /// Rows received in the walk under way.
    pub walked: u64,
    /// Unix seconds the walk under way began.
    pub started_at: Option<i64>,
    /// Unix seconds the last complete walk ended.
    pub finished_at: Option<i64>,
    /// Rows of the last complete walk.
    pub last_total: Option<u64>,
    /// Which of createdAt descending, createdAt ascending, updatedAt descending the rows of
    /// this walk (and the new-end checks since it began) followed
    /// (`convo_query::query::merge::orders_followed`).
    pub fits: [bool; 3],
    /// Rows those orders were checked on.
    pub rows_seen: u64,
    /// The cursor the last page of the last complete walk was asked with (`None`: the first
    /// page), when known: an oldest-first list grows there.
    pub tail: Option<Option<String>>,
    /// Unix seconds of the last check of the new end.
    pub checked_at: Option<i64>,
}

impl Default for SyncState {
    fn default() -> Self {
        SyncState {
            cursor: None,
            walked: 0,
            started_at: None,
            finished_at: None,
            last_total: None,
            fits: [true; 3],
            rows_seen: 0,
            tail: None,
            checked_at: None,
        }
    }
}

/// The name of the one walk kept today.
const VISITOR_WALK: &str = "visitors";

/// Loaded rows whose visitors the store did not know, at the last look.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unknown {
    pub visitors: u64,
    pub rows: u64,
}

/// At most this many unknown visitors are kept (the most recently seen).
const UNKNOWN_CAP: i64 = 10_000;

fn fits_bits(f: [bool; 3]) -> i64 {
    f.iter().enumerate().map(|(i, b)| i64::from(*b) << i).sum()
}

fn bits_fits(b: i64) -> [bool; 3] {
    [b & 1 != 0, b & 2 != 0, b & 4 != 0]
}

impl Store {
    /// Where the background walk stands.
    pub fn sync_state(&self) -> Result<SyncState, StoreError> {
        self.conn
            .query_row(
                "SELECT cursor, walked, started_at, finished_at, last_total, fits, rows_seen,
                        tail_known, tail_cursor, checked_at
                 FROM sync_state WHERE walk = ?1",
                [VISITOR_WALK],
                |r| {
                    Ok(SyncState {
                        cursor: r.get(0)?,
                        walked: r.get::<_, i64>(1)?.max(0) as u64,
                        started_at: r.get(2)?,
                        finished_at: r.get(3)?,
                        last_total: r.get::<_, Option<i64>>(4)?.map(|n| n.max(0) as u64),
                        fits: bits_fits(r.get(5)?),
                        rows_seen: r.get::<_, i64>(6)?.max(0) as u64,
                        tail: r
                            .get::<_, bool>(7)?
                            .then(|| r.get::<_, Option<String>>(8))
                            .transpose()?,
                        checked_at: r.get(9)?,
                    })
                },
            )
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(|e| self.error(&e))
    }

    /// Records one page of the sync (of the full walk or of a check of the new end): its rows
    /// and where the sync stands after it, in one transaction. How many of the rows the store
    /// did not know before.
    pub fn record_sync_page(
        &mut self,
        rows: &[Visitor],
        state: &SyncState,
        now: i64,
    ) -> Result<u64, StoreError> {
        Ok(self
            .record_sync_page_as(rows, state, now, None)?
            .unwrap_or_default())
    }

    /// [`Store::record_sync_page`] by the holder of the walk's lease (`holder`, when given):
    /// `None` when the lease is no longer its own (another process took the walk over), and
    /// then the rows are kept but where the sync stands is not (the new holder's is).
    pub fn record_sync_page_as(
        &mut self,
        rows: &[Visitor],
        state: &SyncState,
        now: i64,
        holder: Option<&str>,
    ) -> Result<Option<u64>, StoreError> {
        let (tx, err) = self.immediate()?;
        let new = super::visitors::upsert_rows(&tx, rows, now).map_err(&err)?;
        if let Some(h) = holder
            && !Store::holds(&tx, h).map_err(&err)?
        {
            tx.commit().map_err(&err)?;
            return Ok(None);
        }
        tx.execute(
            "INSERT INTO sync_state (walk, cursor, walked, started_at, finished_at, last_total,
                                     fits, rows_seen, tail_known, tail_cursor, checked_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT(walk) DO UPDATE SET cursor = excluded.cursor,
                   walked = excluded.walked, started_at = excluded.started_at,
                   finished_at = excluded.finished_at, last_total = excluded.last_total,
                   fits = excluded.fits, rows_seen = excluded.rows_seen,
                   tail_known = excluded.tail_known, tail_cursor = excluded.tail_cursor,
                   checked_at = excluded.checked_at",
            params![
                VISITOR_WALK,
                state.cursor,
                state.walked as i64,
                state.started_at,
                state.finished_at,
                state.last_total.map(|n| n as i64),
                fits_bits(state.fits),
                state.rows_seen as i64,
                state.tail.is_some(),
                state.tail.clone().flatten(),
                state.checked_at,
            ],
        )
        .map_err(&err)?;
        tx.commit().map_err(&err)?;
        Ok(Some(new))
    }

    /// Notes visitors of loaded rows the store does not know (`(id, rows)`: how many loaded
    /// rows have it), seen at `now`; at most [`UNKNOWN_CAP`] are kept, the latest.
    pub fn note_unknown(&mut self, ids: &[(Uuid, u32)], now: i64) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let (tx, err) = self.immediate()?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO unknown_visitors (id, rows, seen_at)
                     SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM visitors WHERE id = ?1)
                     ON CONFLICT(id) DO UPDATE SET rows = excluded.rows,
                       seen_at = excluded.seen_at",
                )
                .map_err(&err)?;
            for (id, rows) in ids {
                st.execute(params![id.as_bytes().as_slice(), rows, now])
                    .map_err(&err)?;
            }
            tx.execute(
                "DELETE FROM unknown_visitors WHERE id NOT IN
                   (SELECT id FROM unknown_visitors ORDER BY seen_at DESC LIMIT ?1)",
                [UNKNOWN_CAP],
            )
            .map_err(&err)?;
        }
        tx.commit().map_err(&err)
    }

    /// Loaded rows whose visitors are still unknown (as last noted).
    pub fn unknown(&self) -> Result<Unknown, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*), coalesce(sum(rows), 0) FROM unknown_visitors",
                [],
                |r| {
                    Ok(Unknown {
                        visitors: r.get::<_, i64>(0)?.max(0) as u64,
                        rows: r.get::<_, i64>(1)?.max(0) as u64,
                    })
                },
            )
            .map_err(|e| self.error(&e))
    }
}
