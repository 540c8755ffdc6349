//! The local store: one SQLite file per profile and base URL in the data dir (docs/design.md,
//! "Local store"). It is a cache of what the service already has: visitors seen or synced, what
//! was loaded per view at the last look, and summary samples over time.
//!
//! Never a crash from the store. [`Store::open`] moves a corrupt file aside and builds a new
//! one; a file locked by another convo for longer than the busy timeout, a read-only place or a
//! full disk give a [`StoreError`] whose message the caller shows once, and convo runs without
//! the store. Two processes may use one file at once (WAL, busy timeout).
//!
//! - [`schema`]: the tables and the forward migrations.
//! - [`visitors`]: the visitor directory.
//! - [`looks`]: what was loaded per view at the last look.
//! - [`samples`]: summary counts over time (the 24 h sparkline).
//! - [`budget`]: the service's request budget, as learned, for the next start.
//! - [`ledger`]: the request budget shared by every process on the file.
//! - [`lease`]: who walks the visitors list when several processes share the file;
//!   [`sharing`]: a turn at the walk taken, kept and given back, and following another's.
//! - [`queries`]: the query line's history and the attribute keys it completes.
//! - [`sync`]: the paced walk of the visitors list into the store, and its checks of the
//!   list's new end.
//! - `sync_state`: where the sync stands (kept with each page it writes).
//! - `stats`: opening the store for a command, and its sizes and counts.
//! - [`worker`]: a thread that owns the connection, so the UI never waits on SQLite.

pub mod budget;
pub mod lease;
pub mod ledger;
pub mod looks;
pub mod queries;
pub mod samples;
mod schema;
pub mod sharing;
mod stats;
pub mod sync;
mod sync_state;
pub mod visitors;
pub mod worker;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

pub use looks::{LookDiff, LookRow, Snapshot};
pub use samples::Sample;
pub use schema::VERSION as SCHEMA_VERSION;
pub use stats::{Stats, SyncWords, open_for_command};
pub use sync_state::{SyncState, Unknown};
pub use visitors::{NameRow, StoredVisitor};
pub use worker::StoreTask;

/// How long a write waits for another convo's write before giving up (the busy timeout).
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the store cannot be used. The message is meant for the user, once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// `store = false` in the config.
    #[error("the local store is off (store = false): nothing is kept on disk")]
    Disabled,
    /// No data directory on this platform.
    #[error("no data directory on this platform: running without the local store")]
    NoDataDir,
    /// Another process held the file for longer than the busy timeout.
    #[error(
        "local store {path} is locked by another program for more than {secs} s: running without it"
    )]
    Locked { path: String, secs: u64 },
    /// The file or its directory cannot be written.
    #[error("local store {path} cannot be written ({reason}): running without it")]
    ReadOnly { path: String, reason: String },
    /// The disk (or quota) is full.
    #[error("local store {path}: the disk is full: running without it")]
    Full { path: String },
    /// A newer convo wrote this file; it is left as it is.
    #[error(
        "local store {path} was written by a newer convo (schema {found}, this one knows {known}): running without it"
    )]
    Newer {
        path: String,
        found: i64,
        known: i64,
    },
    /// Anything else SQLite or the file system said.
    #[error("local store {path}: {reason}: running without it")]
    Other { path: String, reason: String },
}

impl StoreError {
    /// Classifies a SQLite error for the file at `path`.
    pub(crate) fn from_sqlite(path: &Path, e: &rusqlite::Error, busy: Duration) -> StoreError {
        let path = path.display().to_string();
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Locked {
                path,
                secs: busy.as_secs().max(1),
            },
            Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
                StoreError::ReadOnly {
                    path,
                    reason: short_reason(e),
                }
            }
            Some(ErrorCode::DiskFull) => StoreError::Full { path },
            _ => StoreError::Other {
                path,
                reason: short_reason(e),
            },
        }
    }

    fn from_io(path: &Path, e: &std::io::Error) -> StoreError {
        let path = path.display().to_string();
        match e.kind() {
            std::io::ErrorKind::StorageFull => StoreError::Full { path },
            std::io::ErrorKind::PermissionDenied
            | std::io::ErrorKind::ReadOnlyFilesystem
            | std::io::ErrorKind::NotADirectory
            | std::io::ErrorKind::AlreadyExists => StoreError::ReadOnly {
                path,
                reason: e.to_string(),
            },
            _ => StoreError::Other {
                path,
                reason: e.to_string(),
            },
        }
    }
}

fn short_reason(e: &rusqlite::Error) -> String {
    convo_text::one_line(&e.to_string(), 200)
}

/// Whether SQLite says the file is not a database or is damaged.
fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    )
}

/// How to open a store. [`OpenOptions::default`] is what convo uses.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    /// How long to wait for another writer.
    pub busy_timeout: Duration,
    /// Caps the file at this many pages (4 KiB each): tests use it to reach "disk full".
    pub max_pages: Option<u32>,
    /// Reads the whole file once at open (`quick_check`) to find damage, and moves a damaged
    /// file aside; off for a second connection of a process (the shared budget's), which
    /// then fails on a damaged file and leaves it to the first.
    pub check: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            busy_timeout: BUSY_TIMEOUT,
            max_pages: None,
            check: true,
        }
    }
}

/// An open store: one connection to one file.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    busy: Duration,
    /// Said once by the caller: the file was corrupt and moved aside.
    pub notice: Option<String>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// The directory stores live in: `<data dir>/stores` (`$XDG_DATA_HOME/convo/stores` on Linux).
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "convo").map(|d| d.data_dir().join("stores"))
}

/// The file for a profile and a base URL: `<dir>/<profile>@<host>[_<port>]-<hash>.sqlite`.
/// User info in the URL never reaches the name; the hash (of the URL without it) keeps two
/// services on one host apart. The demo uses `demo` for the URL, so every run shares a file.
pub fn file_name(profile: Option<&str>, base_url: &str) -> String {
    let profile = profile.filter(|p| !p.is_empty()).unwrap_or("default");
    let (host, canonical) = match url::Url::parse(base_url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            let host = match (u.host_str(), u.port()) {
                (Some(h), Some(p)) => format!("{h}_{p}"),
                (Some(h), None) => h.to_string(),
                _ => "local".to_string(),
            };
            let mut canonical = u.to_string();
            while canonical.ends_with('/') {
                canonical.pop();
            }
            (host, canonical)
        }
        Err(_) => (base_url.to_string(), base_url.to_string()),
    };
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .take(60)
            .collect()
    };
    format!(
        "{}@{}-{:08x}.sqlite",
        safe(profile),
        safe(&host),
        fnv1a(canonical.as_bytes()) as u32
    )
}

/// FNV-1a, 64 bits: a stable hash for file names (std's hasher may change between releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The store path for this config, or why there is none: in the config's `store.dir` when
/// given, else in [`default_dir`].
pub fn path_for(cfg: &convo_config::Config) -> Result<PathBuf, StoreError> {
    if !cfg.store.enabled {
        return Err(StoreError::Disabled);
    }
    let dir = (cfg.store.dir.clone())
        .or_else(default_dir)
        .ok_or(StoreError::NoDataDir)?;
    Ok(dir.join(file_name(cfg.profile.as_deref(), &cfg.store.key_url)))
}

/// Creates the directory (0700) and the file (0600) if missing, so SQLite never creates them
/// with wider modes; its `-wal` and `-shm` files copy the database file's mode.
fn prepare_file(path: &Path) -> Result<(), StoreError> {
    if let Some(dir) = path.parent() {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir).map_err(|e| StoreError::from_io(path, &e))?;
    }
    let mut o = std::fs::OpenOptions::new();
    o.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path).map_err(|e| StoreError::from_io(path, &e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // An older file with a wider mode is narrowed (it holds personal data).
        if let Ok(m) = std::fs::metadata(path)
            && m.permissions().mode() & 0o077 != 0
        {
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
    }
    Ok(())
}

impl Store {
    /// Opens (creating or migrating) the store at `path` with the default options.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, OpenOptions::default())
    }

    /// Opens the store at `path`. A corrupt file is renamed to `<name>.corrupt-<unix time>` and a
    /// new one built in its place (said in [`Store::notice`]).
    pub fn open_with(path: &Path, opts: OpenOptions) -> Result<Store, StoreError> {
        // Two processes opening a new file at once: SQLite answers some steps of the first
        // open (the switch to WAL) with SQLITE_BUSY without calling the busy handler, so the
        // open itself is tried again until the busy timeout.
        let start = std::time::Instant::now();
        let first = loop {
            match Store::try_open(path, opts) {
                Err(Opening::Failed(StoreError::Locked { .. }) | Opening::Transient(_))
                    if start.elapsed() < opts.busy_timeout =>
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(Opening::Transient(e)) => break Err(Opening::Failed(e)),
                other => break other,
            }
        };
        match first {
            Ok(s) => Ok(s),
            // Unchecked (a second connection): a damaged file is left to the checked one,
            // which moves it aside and says so.
            Err(Opening::Corrupt(reason)) if !opts.check => Err(StoreError::Other {
                path: path.display().to_string(),
                reason,
            }),
            Err(Opening::Corrupt(reason)) => {
                let aside = move_aside(path)?;
                tracing::warn!(path = %path.display(), %reason, "store corrupt; moved aside");
                let mut s = Store::try_open(path, opts).map_err(|e| match e {
                    Opening::Corrupt(reason) => StoreError::Other {
                        path: path.display().to_string(),
                        reason,
                    },
                    Opening::Failed(e) | Opening::Transient(e) => e,
                })?;
                s.notice = Some(format!(
                    "local store was damaged; moved to {} and started afresh",
                    aside.display()
                ));
                Ok(s)
            }
            Err(Opening::Failed(e) | Opening::Transient(e)) => Err(e),
        }
    }

    fn try_open(path: &Path, opts: OpenOptions) -> Result<Store, Opening> {
        prepare_file(path).map_err(Opening::Failed)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let fail = |e: rusqlite::Error| {
            if is_corrupt(&e) {
                Opening::Corrupt(short_reason(&e))
            } else if e.sqlite_error_code() == Some(ErrorCode::SystemIoFailure) {
                Opening::Transient(StoreError::from_sqlite(path, &e, opts.busy_timeout))
            } else {
                Opening::Failed(StoreError::from_sqlite(path, &e, opts.busy_timeout))
            }
        };
        let conn = Connection::open_with_flags(path, flags).map_err(fail)?;
        conn.busy_timeout(opts.busy_timeout).map_err(fail)?;
        // Reading the header first: a file that is not SQLite fails here, before any write.
        let _: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(fail)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(fail)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Opening::Failed(StoreError::ReadOnly {
                path: path.display().to_string(),
                reason: format!("journal mode stays {mode}"),
            }));
        }
        conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            .map_err(fail)?;
        if let Some(n) = opts.max_pages {
            conn.query_row(&format!("PRAGMA max_page_count = {n}"), [], |_| Ok(()))
                .map_err(fail)?;
        }
        if opts.check {
            let check: String = conn
                .query_row("PRAGMA quick_check", [], |r| r.get(0))
                .map_err(fail)?;
            if check != "ok" {
                return Err(Opening::Corrupt(convo_text::one_line(&check, 200)));
            }
        }
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            busy: opts.busy_timeout,
            notice: None,
        };
        schema::migrate(&mut store.conn).map_err(|e| match e {
            schema::MigrateError::Newer(found) => Opening::Failed(StoreError::Newer {
                path: path.display().to_string(),
                found,
                known: schema::VERSION,
            }),
            schema::MigrateError::Bad(v) => Opening::Corrupt(format!("schema version {v}")),
            schema::MigrateError::Sql(e) => fail(e),
        })?;
        Ok(store)
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The schema version of the open file (always [`SCHEMA_VERSION`] after `open`).
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.error(&e))
    }

    /// Bytes on disk: the file and its WAL.
    pub fn size_on_disk(&self) -> u64 {
        let len = |p: PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        len(self.path.clone()) + len(PathBuf::from(wal))
    }

    /// Writes what of the WAL it can back into the file without waiting for, or holding up,
    /// another process (what a process does as it ends; other convos may be using the file).
    pub fn checkpoint_passive(&self) -> Result<(), StoreError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .map_err(|e| self.error(&e))
    }

    /// Writes the WAL back into the file (so its size is the data's). It waits for other
    /// processes' readers and holds their writers meanwhile: for commands, not background work.
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(|e| self.error(&e))
    }

    /// A write transaction that takes the write lock at once (`BEGIN IMMEDIATE`, so that a
    /// read and then a write in it cannot race another process's), and how its errors read.
    pub(crate) fn immediate(
        &mut self,
    ) -> Result<
        (
            rusqlite::Transaction<'_>,
            impl Fn(rusqlite::Error) -> StoreError + use<>,
        ),
        StoreError,
    > {
        let (path, busy) = (self.path.clone(), self.busy);
        let err = move |e: rusqlite::Error| StoreError::from_sqlite(&path, &e, busy);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(&err)?;
        Ok((tx, err))
    }

    /// Deletes everything the store holds (the file stays, empty, and is compacted).
    pub fn clear(&mut self) -> Result<(), StoreError> {
        let (tx, err) = self.immediate()?;
        for table in schema::DATA_TABLES {
            tx.execute(&format!("DELETE FROM {table}"), [])
                .map_err(&err)?;
        }
        tx.commit().map_err(&err)?;
        self.conn
            .execute_batch("VACUUM")
            .map_err(|e| self.error(&e))?;
        self.checkpoint()
    }

    pub(crate) fn error(&self, e: &rusqlite::Error) -> StoreError {
        StoreError::from_sqlite(&self.path, e, self.busy)
    }
}

/// The outcome of one attempt to open.
enum Opening {
    Corrupt(String),
    Failed(StoreError),
    /// A disk I/O error while the file is set up (two processes building a new file at once
    /// can be answered so while the other switches it to WAL): tried again, as a busy file
    /// is, until the busy timeout.
    Transient(StoreError),
}

/// Renames a damaged file (and its WAL and shared-memory files) out of the way.
fn move_aside(path: &Path) -> Result<PathBuf, StoreError> {
    let stamp = jiff::Timestamp::now().as_second();
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".corrupt-{stamp}"));
    let aside = PathBuf::from(aside);
    std::fs::rename(path, &aside).map_err(|e| StoreError::from_io(path, &e))?;
    for ext in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(ext);
        let _ = std::fs::remove_file(PathBuf::from(side));
    }
    Ok(aside)
}

/// Removes the store file and its side files (`convo store clear` when the file cannot even be
/// opened). Missing files are fine.
pub fn remove_files(path: &Path) -> std::io::Result<()> {
    for ext in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(ext);
        match std::fs::remove_file(PathBuf::from(p)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
