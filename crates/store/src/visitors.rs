//! The visitor directory: every visitor row convo receives is upserted (the service's row wins
//! whole); the screen reads the names of the visitors it shows ([`Store::names_of`]).

use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

use super::{Store, StoreError};
use convo_api::Visitor;

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
        let (tx, err) = self.immediate()?;
        upsert_rows(&tx, rows, now).map_err(&err)?;
        tx.commit().map_err(&err)
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

    /// The name fields of those of `ids` the store knows (visitors without any name
    /// included: they are known), in one query per 500 ids. The screen asks this for a page's
    /// visitors; it never loads the whole directory.
    pub fn names_of(&self, ids: &[Uuid]) -> Result<Vec<NameRow>, StoreError> {
        let mut out = Vec::new();
        for chunk in ids.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(",");
            let mut st = self
                .conn
                .prepare_cached(&format!(
                    "SELECT id, name, email, external_id FROM visitors WHERE id IN ({marks})"
                ))
                .map_err(|e| self.error(&e))?;
            let params = rusqlite::params_from_iter(chunk.iter().map(|id| id.as_bytes().to_vec()));
            let rows = st
                .query_map(params, |r| {
                    Ok((
                        r.get::<_, Vec<u8>>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, Option<String>>(3)?,
                    ))
                })
                .map_err(|e| StoreError::from_sqlite(&self.path, &e, self.busy))?;
            for row in rows {
                let (id, name, email, external_id) =
                    row.map_err(|e| StoreError::from_sqlite(&self.path, &e, self.busy))?;
                if let Ok(id) = Uuid::from_slice(&id) {
                    out.push(NameRow {
                        id,
                        name,
                        email,
                        external_id,
                    });
                }
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
}

/// Upserts rows inside a transaction the caller commits; how many of them the store did not
/// know before. A visitor received is no longer unknown (`unknown_visitors`).
pub(super) fn upsert_rows(
    tx: &rusqlite::Transaction<'_>,
    rows: &[Visitor],
    now: i64,
) -> rusqlite::Result<u64> {
    let mut known = tx.prepare_cached("SELECT 1 FROM visitors WHERE id = ?1")?;
    let mut st = tx.prepare_cached(
        "INSERT INTO visitors (id, name, email, external_id, attributes, created_at, seen_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, email = excluded.email,
           external_id = excluded.external_id, attributes = excluded.attributes,
           created_at = excluded.created_at, seen_at = excluded.seen_at",
    )?;
    let mut gone = tx.prepare_cached("DELETE FROM unknown_visitors WHERE id = ?1")?;
    let mut new = 0;
    for v in rows {
        let id = v.id.as_bytes().as_slice();
        if !known.exists([id])? {
            new += 1;
            gone.execute([id])?;
        }
        st.execute(params![
            id,
            v.name,
            v.email,
            v.external_id,
            attributes_text(&v.attributes),
            created_text(v),
            now
        ])?;
    }
    Ok(new)
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
