//! What the query line (`:`) keeps and reads: its history per tab (newest last, each text
//! once, at most [`HISTORY_MAX`]) and the keys of the visitors' attributes it completes.

use rusqlite::params;

use super::{Store, StoreError};
use convo_api::Resource;

/// Most queries kept per tab.
pub const HISTORY_MAX: usize = 200;

/// Most attribute keys offered.
const ATTR_KEYS_MAX: usize = 500;

impl Store {
    /// Remembers a query run on `tab` at `now` (unix seconds): once per text (a repeat moves to
    /// the newest place); the oldest past [`HISTORY_MAX`] go.
    pub fn record_query(&self, tab: Resource, text: &str, now: i64) -> Result<(), StoreError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        let err = |e: rusqlite::Error| self.error(&e);
        // A repeat in the same second still becomes the newest.
        let newest: i64 = self
            .conn
            .query_row(
                "SELECT COALESCE(MAX(used_at), 0) FROM query_history WHERE tab = ?1",
                params![tab.name()],
                |r| r.get(0),
            )
            .map_err(err)?;
        self.conn
            .execute(
                "INSERT INTO query_history (tab, text, used_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (tab, text) DO UPDATE SET used_at = excluded.used_at",
                params![tab.name(), text, now.max(newest + 1)],
            )
            .map_err(err)?;
        self.conn
            .execute(
                "DELETE FROM query_history WHERE tab = ?1 AND text NOT IN (
                   SELECT text FROM query_history WHERE tab = ?1
                   ORDER BY used_at DESC LIMIT ?2)",
                params![tab.name(), HISTORY_MAX as i64],
            )
            .map_err(err)?;
        Ok(())
    }

    /// The queries run on `tab`, oldest first.
    pub fn query_history(&self, tab: Resource) -> Result<Vec<String>, StoreError> {
        let err = |e: rusqlite::Error| self.error(&e);
        let mut st = self
            .conn
            .prepare(
                "SELECT text FROM query_history WHERE tab = ?1
                 ORDER BY used_at DESC LIMIT ?2",
            )
            .map_err(err)?;
        let mut out = st
            .query_map(params![tab.name(), HISTORY_MAX as i64], |r| {
                r.get::<_, String>(0)
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        out.reverse();
        Ok(out)
    }

    /// The keys of the attribute objects of the visitors kept, sorted.
    pub fn attribute_keys(&self) -> Result<Vec<String>, StoreError> {
        let err = |e: rusqlite::Error| self.error(&e);
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT j.key FROM visitors, json_each(visitors.attributes) AS j
                 WHERE visitors.attributes IS NOT NULL
                   AND json_type(visitors.attributes) = 'object'
                 ORDER BY j.key LIMIT ?1",
            )
            .map_err(err)?;
        st.query_map(params![ATTR_KEYS_MAX as i64], |r| r.get::<_, String>(0))
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.sqlite")).unwrap();
        (dir, s)
    }

    #[test]
    fn history_is_per_tab_deduped_newest_last_and_bounded() {
        let (_d, s) = store();
        let c = Resource::Conversations;
        s.record_query(c, "status:open", 10).unwrap();
        s.record_query(c, "is:waiting", 10).unwrap();
        s.record_query(c, " status:open ", 10).unwrap();
        s.record_query(c, "  ", 11).unwrap();
        s.record_query(Resource::Visitors, "name:ana", 12).unwrap();
        assert_eq!(s.query_history(c).unwrap(), ["is:waiting", "status:open"]);
        assert_eq!(s.query_history(Resource::Visitors).unwrap(), ["name:ana"]);
        for i in 0..HISTORY_MAX + 5 {
            s.record_query(c, &format!("age:>{i}m"), 20).unwrap();
        }
        let h = s.query_history(c).unwrap();
        assert_eq!(h.len(), HISTORY_MAX);
        assert_eq!(h.last().map(String::as_str), Some("age:>204m"));
        assert_eq!(h.first().map(String::as_str), Some("age:>5m"));
    }

    #[test]
    fn attribute_keys_come_from_the_kept_visitors() {
        let (_d, mut s) = store();
        let v: Vec<convo_api::Visitor> = serde_json::from_value(serde_json::json!([
            {"id": "0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90", "attributes": {"plan": "pro", "seats": 3}},
            {"id": "7c1e9a2b-3d4f-4a5b-8c6d-7e8f9a0b1c2d", "attributes": {"plan": "free", "country": "PT"}},
            {"id": "5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60", "attributes": [1, 2]}
        ]))
        .unwrap();
        s.upsert_visitors(&v, 1).unwrap();
        assert_eq!(s.attribute_keys().unwrap(), ["country", "plan", "seats"]);
    }
}
