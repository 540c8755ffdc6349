//! "Since you last looked": per profile (one store per profile) and view key, the rows that
//! were loaded when convo last quit or left the view: ids in list order with a stable
//! fingerprint of their watched fields, capped at [`LOOK_CAP`] rows.
//!
//! A row is kept as 24 bytes (16 of id, 8 of fingerprint, little-endian) in one blob per key.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};
use uuid::Uuid;

use super::{Store, StoreError};

/// At most this many rows are kept per view (the first ones, in list order).
pub const LOOK_CAP: usize = 5_000;

const ROW_BYTES: usize = 24;

/// One row of a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LookRow {
    pub id: Uuid,
    /// [`fingerprint`] of the watched fields.
    pub watched: u64,
}

/// What one view had loaded at the last look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Unix seconds.
    pub taken_at: i64,
    /// In list order, at most [`LOOK_CAP`].
    pub rows: Vec<LookRow>,
}

/// A stable hash of watched fields (FNV-1a, the same on every build and platform, unlike
/// std's hasher): each part is prefixed by its length so ("ab","c") and ("a","bc") differ.
/// The watched fields of a conversation (status and assignee) as a look keeps them.
pub fn conversation_fingerprint(c: &convo_api::Conversation) -> u64 {
    let assignee = c.assignee_id.map(|a| *a.as_bytes()).unwrap_or_default();
    fingerprint(&[c.status.as_str().as_bytes(), &assignee])
}

/// What changed in a walk since a look: rows the look did not have (counted as new only once
/// a row it did have comes after them: past the look's end they may simply be older rows it
/// never reached) and rows whose watched fields differ.
#[derive(Debug, Clone)]
pub struct SinceLook {
    pub taken_at: i64,
    before: std::collections::HashMap<uuid::Uuid, u64>,
    pending: u64,
    pub new: u64,
    pub changed: u64,
}

impl SinceLook {
    pub fn new(look: &Snapshot) -> SinceLook {
        SinceLook {
            taken_at: look.taken_at,
            before: look.rows.iter().map(|r| (r.id, r.watched)).collect(),
            pending: 0,
            new: 0,
            changed: 0,
        }
    }

    /// One row of the walk, in the service's order.
    pub fn see(&mut self, c: &convo_api::Conversation) {
        match self.before.get(&c.id) {
            None => self.pending += 1,
            Some(w) => {
                self.new += std::mem::take(&mut self.pending);
                if *w != conversation_fingerprint(c) {
                    self.changed += 1;
                }
            }
        }
    }
}

pub fn fingerprint(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    for p in parts {
        for b in (p.len() as u32).to_le_bytes() {
            eat(b);
        }
        for b in *p {
            eat(*b);
        }
    }
    h
}

/// How the rows loaded now differ from a snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LookDiff {
    /// Rows the snapshot did not have, and that come before a row it did have (a row past
    /// the end of what was loaded then may simply not have been reached).
    pub new: Vec<Uuid>,
    /// Rows in both whose watched fields differ.
    pub changed: Vec<Uuid>,
}

impl Snapshot {
    /// Compares rows loaded now (in list order) with the snapshot.
    pub fn diff(&self, now: impl IntoIterator<Item = LookRow>) -> LookDiff {
        let before: HashMap<Uuid, u64> = self.rows.iter().map(|r| (r.id, r.watched)).collect();
        let mut out = LookDiff::default();
        let mut pending = Vec::new();
        for r in now {
            match before.get(&r.id) {
                Some(w) => {
                    out.new.append(&mut pending);
                    if *w != r.watched {
                        out.changed.push(r.id);
                    }
                }
                None => pending.push(r.id),
            }
        }
        out
    }
}

fn encode(rows: &[LookRow]) -> Vec<u8> {
    let mut b = Vec::with_capacity(rows.len().min(LOOK_CAP) * ROW_BYTES);
    for r in rows.iter().take(LOOK_CAP) {
        b.extend_from_slice(r.id.as_bytes());
        b.extend_from_slice(&r.watched.to_le_bytes());
    }
    b
}

/// Reads a blob back; a damaged tail (not a whole row) is dropped.
fn decode(b: &[u8]) -> Vec<LookRow> {
    b.chunks_exact(ROW_BYTES)
        .filter_map(|c| {
            let id = Uuid::from_slice(&c[..16]).ok()?;
            let w = u64::from_le_bytes(c[16..].try_into().ok()?);
            Some(LookRow { id, watched: w })
        })
        .collect()
}

impl Store {
    /// Keeps what view `key` has loaded (the first [`LOOK_CAP`] rows), replacing the last.
    pub fn save_look(&self, key: &str, rows: &[LookRow], now: i64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO looks (key, taken_at, rows) VALUES (?1, ?2, ?3)
                 ON CONFLICT(key) DO UPDATE SET taken_at = excluded.taken_at, rows = excluded.rows",
                params![key, now, encode(rows)],
            )
            .map(|_| ())
            .map_err(|e| self.error(&e))
    }

    /// Keeps where the browser was when it quit (`text`: what `tui::resume` writes).
    pub fn save_place(&self, text: &str, now: i64) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO place (id, text, saved_at) VALUES (1, ?1, ?2)
                 ON CONFLICT(id) DO UPDATE SET text = excluded.text, saved_at = excluded.saved_at",
                params![text, now],
            )
            .map(|_| ())
            .map_err(|e| self.error(&e))
    }

    /// Where the browser was when it last quit, if kept.
    pub fn place(&self) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row("SELECT text FROM place WHERE id = 1", [], |r| r.get(0))
            .optional()
            .map_err(|e| self.error(&e))
    }

    /// What view `key` had loaded at the last look, if anything was kept.
    pub fn look(&self, key: &str) -> Result<Option<Snapshot>, StoreError> {
        self.conn
            .query_row(
                "SELECT taken_at, rows FROM looks WHERE key = ?1",
                [key],
                |r| {
                    let taken_at: i64 = r.get(0)?;
                    let rows: Vec<u8> = r.get(1)?;
                    Ok(Snapshot {
                        taken_at,
                        rows: decode(&rows),
                    })
                },
            )
            .optional()
            .map_err(|e| self.error(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u128, w: u64) -> LookRow {
        LookRow {
            id: Uuid::from_u128(n),
            watched: w,
        }
    }

    #[test]
    fn new_rows_count_only_before_a_known_row() {
        let snap = Snapshot {
            taken_at: 0,
            rows: vec![row(3, 1), row(2, 1), row(1, 1)],
        };
        // 5 and 4 came in on top; 2 changed; 0 is past where the last look had loaded (1 is
        // the last known row, nothing known comes after 0), so it is not "new".
        let d = snap.diff([
            row(5, 1),
            row(4, 1),
            row(3, 1),
            row(2, 9),
            row(1, 1),
            row(0, 1),
        ]);
        assert_eq!(d.new, vec![Uuid::from_u128(5), Uuid::from_u128(4)]);
        assert_eq!(d.changed, vec![Uuid::from_u128(2)]);
    }

    #[test]
    fn blob_round_trips_and_is_capped() {
        let rows: Vec<LookRow> = (0..LOOK_CAP as u128 + 10)
            .map(|n| row(n, n as u64))
            .collect();
        let b = encode(&rows);
        assert_eq!(b.len(), LOOK_CAP * ROW_BYTES);
        let back = decode(&b);
        assert_eq!(back, rows[..LOOK_CAP].to_vec());
        // A cut blob keeps its whole rows.
        assert_eq!(decode(&b[..ROW_BYTES * 2 + 5]).len(), 2);
    }

    #[test]
    fn fingerprint_separates_parts() {
        assert_ne!(fingerprint(&[b"ab", b"c"]), fingerprint(&[b"a", b"bc"]));
        assert_eq!(fingerprint(&[b"open", b""]), fingerprint(&[b"open", b""]));
    }
}
