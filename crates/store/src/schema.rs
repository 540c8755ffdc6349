//! The tables, as a list of forward migrations. The file's `user_version` says how many have
//! run; opening runs the rest in one transaction each. A file from a newer convo (a version
//! past [`VERSION`]) is left alone.
//!
//! A migration is never edited once landed: a change is a new entry at the end.

use rusqlite::Connection;

/// Migration `i` takes a file from version `i` to `i + 1`.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: the visitor directory and the state of the background walk.
    "CREATE TABLE visitors (
        id BLOB PRIMARY KEY NOT NULL,   -- 16 bytes
        name TEXT,
        email TEXT,
        external_id TEXT,
        attributes TEXT,                -- compact JSON; NULL when null or {}
        created_at TEXT,
        seen_at INTEGER NOT NULL        -- unix seconds, when convo last received the row
     ) WITHOUT ROWID;
     CREATE TABLE sync_state (
        walk TEXT PRIMARY KEY NOT NULL,
        cursor TEXT,                    -- next page; NULL: start from the first
        walked INTEGER NOT NULL DEFAULT 0,
        started_at INTEGER,
        finished_at INTEGER,            -- last complete walk
        last_total INTEGER              -- rows of the last complete walk
     );",
    // 2: what was loaded per profile and view at the last look.
    "CREATE TABLE looks (
        key TEXT PRIMARY KEY NOT NULL,  -- tab and filter
        taken_at INTEGER NOT NULL,
        rows BLOB NOT NULL              -- see looks.rs
     );",
    // 3: summary counts over time.
    "CREATE TABLE samples (
        key TEXT NOT NULL,
        at INTEGER NOT NULL,
        loaded INTEGER NOT NULL,
        complete INTEGER NOT NULL,
        waiting INTEGER NOT NULL,
        imminent INTEGER NOT NULL,
        breaching INTEGER NOT NULL,
        PRIMARY KEY (key, at)
     ) WITHOUT ROWID;",
    // 4: the query line's history (`:`), per tab.
    "CREATE TABLE query_history (
        tab TEXT NOT NULL,              -- conversations | visitors
        text TEXT NOT NULL,
        used_at INTEGER NOT NULL,       -- unix seconds, last run
        PRIMARY KEY (tab, text)
     ) WITHOUT ROWID;",
    // 5: the service's request budget, as learned (the file is per service already).
    "CREATE TABLE request_budget (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        quota INTEGER NOT NULL,         -- requests per window
        window_secs INTEGER NOT NULL,
        source TEXT NOT NULL,           -- api::budget::Source::as_str
        learned_at INTEGER NOT NULL     -- unix seconds
     );",
    // 6: the visitors list's order as learned from its rows, its new end, and the visitors
    // of loaded rows the store did not know.
    "ALTER TABLE sync_state ADD COLUMN fits INTEGER NOT NULL DEFAULT 7; -- orders followed (bits)
     ALTER TABLE sync_state ADD COLUMN rows_seen INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE sync_state ADD COLUMN tail_known INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE sync_state ADD COLUMN tail_cursor TEXT;  -- the last page's cursor
     ALTER TABLE sync_state ADD COLUMN checked_at INTEGER; -- last check of the new end
     CREATE TABLE unknown_visitors (
        id BLOB PRIMARY KEY NOT NULL,   -- 16 bytes
        rows INTEGER NOT NULL,          -- loaded rows with this visitor, at the last sighting
        seen_at INTEGER NOT NULL
     ) WITHOUT ROWID;",
    // 7: where the browser was when it quit (its view or query, sort, tab), reopened at the
    // next start unless `--fresh`.
    "CREATE TABLE place (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        text TEXT NOT NULL,             -- convo_tui::resume's JSON
        saved_at INTEGER NOT NULL
     );",
    // 8: many processes on one store (issue 41): who walks the visitors list (a lease that
    // expires), and what every process sends to the service (one request budget for all).
    "CREATE TABLE sync_lease (
        walk TEXT PRIMARY KEY NOT NULL,
        holder TEXT NOT NULL,           -- a random id per process
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        started INTEGER,                -- the process's start (clock ticks since boot, Linux)
        expires_ms INTEGER NOT NULL,    -- unix milliseconds
        check_asked INTEGER NOT NULL DEFAULT 0 -- another process wants the new end checked
     );
     CREATE TABLE budget_sends (
        id INTEGER PRIMARY KEY,         -- in admission order
        at_ms INTEGER NOT NULL,         -- unix milliseconds, when admitted
        background INTEGER NOT NULL,
        pid INTEGER NOT NULL,
        done INTEGER NOT NULL DEFAULT 0 -- its answer has been heard
     );
     CREATE INDEX budget_sends_at ON budget_sends (at_ms);
     CREATE TABLE budget_shared (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        told_remaining INTEGER,         -- what the last answer said was left
        told_reset_ms INTEGER,          -- unix milliseconds the service said it resets
        told_mark INTEGER,              -- the last send admitted when it was heard
        told_extra INTEGER,             -- sends in flight then, not in told_remaining
        paused_until_ms INTEGER,        -- a 429's Retry-After, for every process
        user_at_ms INTEGER              -- a user's request went or waited: background holds
     );",
];

/// The schema version this convo writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// Tables that hold data (what `convo store clear` empties).
pub(super) const DATA_TABLES: &[&str] = &[
    "visitors",
    "sync_state",
    "looks",
    "samples",
    "query_history",
    "request_budget",
    "unknown_visitors",
    "place",
    "sync_lease",
    "budget_sends",
    "budget_shared",
];

#[derive(Debug)]
pub(super) enum MigrateError {
    /// The file is at this newer version.
    Newer(i64),
    /// A version no convo writes (below zero): the file is treated as damaged.
    Bad(i64),
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for MigrateError {
    fn from(e: rusqlite::Error) -> Self {
        MigrateError::Sql(e)
    }
}

/// Brings the file to [`VERSION`]. Two processes may race here: each step re-reads the version
/// inside its write transaction, so a step is never run twice.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), MigrateError> {
    migrate_to(conn, VERSION)
}

/// Runs migrations up to `target` (tests build files of each earlier version with it).
pub(super) fn migrate_to(conn: &mut Connection, target: i64) -> Result<(), MigrateError> {
    loop {
        let current: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if current > VERSION {
            return Err(MigrateError::Newer(current));
        }
        if current < 0 {
            return Err(MigrateError::Bad(current));
        }
        if current >= target {
            return Ok(());
        }
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let now: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if now == current {
            let step = MIGRATIONS[current as usize];
            tx.execute_batch(step)?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", current + 1))?;
        }
        tx.commit()?;
    }
}
