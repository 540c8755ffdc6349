//! The visitor directory: every visitor row convo receives is upserted (the service's row wins
//! whole), and the background walk keeps its place in `sync_state` so it resumes after a restart.

use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

use super::{Store, StoreError};
use crate::api::Visitor;

/// A visitor as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredVisitor {
    pub id: Uuid,
    pub name: Option<String>,
    pub email: Option<String>,
    pub external_id: Option<String>,
    /// Compact JSON; `None` when the service sent null or an empty object.
    pub attributes: Option<String>,
    /// `createdAt` as the service sent it.
    pub created_at: Option<String>,
    /// Unix seconds: when convo last received this row.
    pub seen_at: i64,
}

impl StoredVisitor {
    /// What to show for this visitor: the name, else the e-mail, else the external id (each
    /// trimmed; blanks skipped). `None`: nothing better than the id.
    pub fn display_name(&self) -> Option<&str> {
        display_name(
            self.name.as_deref(),
            self.email.as_deref(),
            self.external_id.as_deref(),
        )
    }

    /// The attributes as JSON (null when none).
    pub fn attributes_json(&self) -> serde_json::Value {
        self.attributes
            .as_deref()
            .and_then(|a| serde_json::from_str(a).ok())
            .unwrap_or(serde_json::Value::Null)
    }
}

/// The first non-blank of name, e-mail and external id.
pub fn display_name<'a>(
    name: Option<&'a str>,
    email: Option<&'a str>,
    external_id: Option<&'a str>,
) -> Option<&'a str> {
    [name, email, external_id]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|s| !s.is_empty())
}

/// A visitor's name fields (what the screen's map holds).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NameRow {
    pub id: Uuid,
    pub name: Option<String>,
    pub email: Option<String>,
    pub external_id: Option<String>,
}

/// Where the background walk of the visitors list stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
}

/// The name of the one walk kept today.
const VISITOR_WALK: &str = "visitors";

fn attributes_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::Object(m) if m.is_empty() => None,
        other => serde_json::to_string(other).ok(),
    }
}

fn created_text(v: &Visitor) -> Option<String> {
    v.created_at.as_ref().map(|t| match t.parsed() {
        Some(ts) => ts.to_string(),
        None => t.to_string(),
    })
}

impl Store {
    /// Upserts visitor rows in one transaction, seen at `now` (unix seconds).
    pub fn upsert_visitors(&mut self, rows: &[Visitor], now: i64) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        let (path, busy) = (self.path.clone(), self.busy);
        let err = |e: rusqlite::Error| StoreError::from_sqlite(&path, &e, busy);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        upsert_rows(&tx, rows, now).map_err(err)?;
        tx.commit().map_err(err)
    }

    /// One visitor, if known.
    pub fn visitor(&self, id: Uuid) -> Result<Option<StoredVisitor>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, name, email, external_id, attributes, created_at, seen_at
                 FROM visitors WHERE id = ?1",
                [id.as_bytes().as_slice()],
                read_visitor,
            )
            .optional()
            .map_err(|e| self.error(&e))
            .map(Option::flatten)
    }

    /// The visitors among `ids` that are known, in no particular order.
    pub fn visitors(&self, ids: &[Uuid]) -> Result<Vec<StoredVisitor>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT id, name, email, external_id, attributes, created_at, seen_at
                 FROM visitors WHERE id = ?1",
            )
            .map_err(|e| self.error(&e))?;
        let mut out = Vec::new();
        for id in ids {
            if let Some(v) = st
                .query_row([id.as_bytes().as_slice()], read_visitor)
                .optional()
                .map_err(|e| StoreError::from_sqlite(&self.path, &e, self.busy))?
                .flatten()
            {
                out.push(v);
            }
        }
        Ok(out)
    }

    /// Every visitor's name, e-mail and external id (for the in-memory map the screen reads).
    /// Visitors with nothing to show are left out.
    pub fn visitor_names(&self) -> Result<Vec<NameRow>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT id, name, email, external_id FROM visitors")
            .map_err(|e| self.error(&e))?;
        let rows = st
            .query_map([], |r| {
                let id: Vec<u8> = r.get(0)?;
                let name: Option<String> = r.get(1)?;
                let email: Option<String> = r.get(2)?;
                let ext: Option<String> = r.get(3)?;
                Ok((id, name, email, ext))
            })
            .map_err(|e| StoreError::from_sqlite(&self.path, &e, self.busy))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, name, email, ext) =
                row.map_err(|e| StoreError::from_sqlite(&self.path, &e, self.busy))?;
            let Ok(id) = Uuid::from_slice(&id) else {
                continue;
            };
            if display_name(name.as_deref(), email.as_deref(), ext.as_deref()).is_some() {
                out.push(NameRow {
                    id,
                    name,
                    email,
                    external_id: ext,
                });
            }
        }
        Ok(out)
    }

    /// How many visitors are known.
    pub fn visitor_count(&self) -> Result<u64, StoreError> {
        self.conn
            .query_row("SELECT count(*) FROM visitors", [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(|e| self.error(&e))
    }

    /// Where the background walk stands.
    pub fn sync_state(&self) -> Result<SyncState, StoreError> {
        self.conn
            .query_row(
                "SELECT cursor, walked, started_at, finished_at, last_total
                 FROM sync_state WHERE walk = ?1",
                [VISITOR_WALK],
                |r| {
                    Ok(SyncState {
                        cursor: r.get(0)?,
                        walked: r.get::<_, i64>(1)?.max(0) as u64,
                        started_at: r.get(2)?,
                        finished_at: r.get(3)?,
                        last_total: r.get::<_, Option<i64>>(4)?.map(|n| n.max(0) as u64),
                    })
                },
            )
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(|e| self.error(&e))
    }

    /// Records one page of the walk: its rows and where the walk goes next, in one
    /// transaction (so a restart resumes exactly after the rows kept).
    pub fn record_sync_page(
        &mut self,
        rows: &[Visitor],
        state: &SyncState,
        now: i64,
    ) -> Result<(), StoreError> {
        let (path, busy) = (self.path.clone(), self.busy);
        let err = |e: rusqlite::Error| StoreError::from_sqlite(&path, &e, busy);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        upsert_rows(&tx, rows, now).map_err(err)?;
        tx.execute(
            "INSERT INTO sync_state (walk, cursor, walked, started_at, finished_at, last_total)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(walk) DO UPDATE SET cursor = excluded.cursor,
                   walked = excluded.walked, started_at = excluded.started_at,
                   finished_at = excluded.finished_at, last_total = excluded.last_total",
            params![
                VISITOR_WALK,
                state.cursor,
                state.walked as i64,
                state.started_at,
                state.finished_at,
                state.last_total.map(|n| n as i64)
            ],
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }
}

/// Upserts rows inside a transaction the caller commits.
fn upsert_rows(tx: &rusqlite::Transaction<'_>, rows: &[Visitor], now: i64) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached(
        "INSERT INTO visitors (id, name, email, external_id, attributes, created_at, seen_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email,
           external_id = excluded.external_id, attributes = excluded.attributes,
           created_at = excluded.created_at, seen_at = excluded.seen_at",
    )?;
    for v in rows {
        st.execute(params![
            v.id.as_bytes().as_slice(),
            v.name,
            v.email,
            v.external_id,
            attributes_text(&v.attributes),
            created_text(v),
            now
        ])?;
    }
    Ok(())
}

/// A row of `visitors`; `None` for an id that is not 16 bytes (never written by convo).
fn read_visitor(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<StoredVisitor>> {
    let id: Vec<u8> = r.get(0)?;
    let Ok(id) = Uuid::from_slice(&id) else {
        return Ok(None);
    };
    Ok(Some(StoredVisitor {
        id,
        name: r.get(1)?,
        email: r.get(2)?,
        external_id: r.get(3)?,
        attributes: r.get(4)?,
        created_at: r.get(5)?,
        seen_at: r.get(6)?,
    }))
}
