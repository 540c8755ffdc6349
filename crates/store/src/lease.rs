//! Who walks the visitors list when several convo processes share one store (issue 41): a
//! lease in the store. One process holds it while it walks (or checks the list's new end) and
//! renews it as it goes; the others do not walk, they read the names it writes and show its
//! progress. A lease is taken over when it has expired, or at once when its holder's process
//! is gone (same host, its pid no longer that process): a killed window never blocks the
//! others for longer than one lease.
//!
//! Every step is one `BEGIN IMMEDIATE` transaction (a read that decides a write), and the
//! clock is the caller's (`now_ms`), so tests run expiry without waiting.

use std::time::Duration;

use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError};

/// How long a lease lasts unless renewed: a holder killed without a word blocks the others
/// for at most this long (less when its pid can be seen to be gone).
pub const LEASE: Duration = Duration::from_secs(60);

/// The one walk there is.
const VISITOR_WALK: &str = "visitors";

/// A process that may hold the lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// Random, one per process (a pid alone may be reused).
    pub id: String,
    pub pid: u32,
    pub host: String,
    /// When the process started (clock ticks since boot; Linux): a reused pid is another one.
    pub started: Option<i64>,
}

impl Holder {
    /// This process.
    pub fn this_process() -> Holder {
        let pid = std::process::id();
        Holder {
            id: uuid::Uuid::new_v4().simple().to_string(),
            pid,
            host: host_name(),
            started: process_start(pid),
        }
    }
}

/// The machine's name, as far as it can be read without a system call of our own.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// `/proc/PID/stat`: its state letter and start time; `None` when there is no such process
/// (or no `/proc`).
fn proc_stat(pid: u32) -> Option<(char, Option<i64>)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) S ppid ...": the command may hold spaces and parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // Field 22 of the whole line is the start time: the 20th after the state.
    let started = fields.nth(18).and_then(|s| s.parse().ok());
    Some((state, started))
}

fn process_start(pid: u32) -> Option<i64> {
    proc_stat(pid).and_then(|(_, s)| s)
}

/// Whether the process a lease names is known to be gone: on this host, with `/proc` to look
/// in, no such pid, a zombie, or another process under a reused pid. Anything not known is
/// taken as alive (the lease's expiry then decides).
fn gone(pid: u32, started: Option<i64>, host: &str, me: &Holder) -> bool {
    if host != me.host || !std::path::Path::new("/proc/self/stat").exists() {
        return false;
    }
    match proc_stat(pid) {
        None => true,
        Some(('Z' | 'X' | 'x', _)) => true,
        Some((_, now)) => matches!((started, now), (Some(a), Some(b)) if a != b),
    }
}

/// What taking the lease found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lease {
    /// This process holds it now (taken, taken over, or renewed).
    Taken {
        /// It was another's, expired or gone: this process takes over its walk.
        taken_over: bool,
    },
    /// Another process holds it.
    HeldBy { pid: u32, host: String },
}

impl Store {
    /// Takes the lease for `len` from `now_ms` if it is free, expired, this holder's already, or
    /// its holder's process is gone; else says who holds it.
    pub fn take_lease(
        &mut self,
        me: &Holder,
        now_ms: i64,
        len: Duration,
    ) -> Result<Lease, StoreError> {
        let (tx, err) = self.immediate()?;
        let row = tx
            .query_row(
                "SELECT holder, pid, host, started, expires_ms FROM sync_lease WHERE walk = ?1",
                [VISITOR_WALK],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, Option<i64>>(3)?,
                        r.get::<_, i64>(4)?,
                    ))
                },
            )
            .optional()
            .map_err(&err)?;
        let mut taken_over = false;
        if let Some((holder, pid, host, started, expires)) = row
            && holder != me.id
        {
            let pid = u32::try_from(pid).unwrap_or(0);
            if expires > now_ms && !gone(pid, started, &host, me) {
                return Ok(Lease::HeldBy { pid, host });
            }
            taken_over = true;
        }
        let expires = now_ms.saturating_add(len.as_millis() as i64);
        tx.execute(
            "INSERT INTO sync_lease (walk, holder, pid, host, started, expires_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(walk) DO UPDATE SET holder = excluded.holder, pid = excluded.pid,
               host = excluded.host, started = excluded.started,
               expires_ms = excluded.expires_ms",
            params![VISITOR_WALK, me.id, me.pid, me.host, me.started, expires],
        )
        .map_err(&err)?;
        tx.commit().map_err(&err)?;
        Ok(Lease::Taken { taken_over })
    }

    /// Renews this holder's lease for `len` from `now_ms`. `None`: it is not this holder's any
    /// more (it expired and another took it); else whether another process asked for a check
    /// of the new end since the last renewal (the ask is taken).
    pub fn renew_lease(
        &mut self,
        me: &Holder,
        now_ms: i64,
        len: Duration,
    ) -> Result<Option<bool>, StoreError> {
        let expires = now_ms.saturating_add(len.as_millis() as i64);
        let (tx, err) = self.immediate()?;
        let asked = tx
            .query_row(
                "SELECT check_asked FROM sync_lease WHERE walk = ?1 AND holder = ?2",
                [VISITOR_WALK, me.id.as_str()],
                |r| r.get::<_, bool>(0),
            )
            .optional()
            .map_err(&err)?;
        if asked.is_some() {
            tx.execute(
                "UPDATE sync_lease SET expires_ms = ?2, check_asked = 0 WHERE walk = ?1",
                params![VISITOR_WALK, expires],
            )
            .map_err(&err)?;
        }
        tx.commit().map_err(&err)?;
        Ok(asked)
    }

    /// Lets go of the lease (when this holder has it).
    pub fn release_lease(&mut self, me: &Holder) -> Result<(), StoreError> {
        self.conn
            .execute(
                "DELETE FROM sync_lease WHERE walk = ?1 AND holder = ?2",
                params![VISITOR_WALK, me.id],
            )
            .map(|_| ())
            .map_err(|e| self.error(&e))
    }

    /// Asks the holder (if any) to check the list's new end: a row here has a visitor the
    /// store does not know. Whether a holder was there to ask.
    pub fn ask_check(&mut self) -> Result<bool, StoreError> {
        self.conn
            .execute(
                "UPDATE sync_lease SET check_asked = 1 WHERE walk = ?1",
                [VISITOR_WALK],
            )
            .map(|n| n > 0)
            .map_err(|e| self.error(&e))
    }

    /// Whether `holder` holds the lease now (checked inside a page's write).
    pub(super) fn holds(tx: &rusqlite::Transaction<'_>, holder: &str) -> rusqlite::Result<bool> {
        tx.query_row(
            "SELECT count(*) FROM sync_lease WHERE walk = ?1 AND holder = ?2",
            [VISITOR_WALK, holder],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn other(pid: u32) -> Holder {
        Holder {
            id: format!("other-{pid}"),
            pid,
            host: Holder::this_process().host,
            started: process_start(pid),
        }
    }

    const LEN: Duration = Duration::from_secs(60);

    #[test]
    fn one_holder_at_a_time_until_it_expires_or_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let me = Holder::this_process();
        // The other is this very process under another id: alive, so only expiry frees it.
        let live = other(std::process::id());
        let t0 = 1_764_000_000_000;
        assert_eq!(
            s.take_lease(&live, t0, LEN).unwrap(),
            Lease::Taken { taken_over: false }
        );
        assert_eq!(
            s.take_lease(&me, t0 + 1000, LEN).unwrap(),
            Lease::HeldBy {
                pid: live.pid,
                host: live.host.clone()
            }
        );
        // Renewed, it holds past its first expiry.
        assert_eq!(s.renew_lease(&live, t0 + 50_000, LEN).unwrap(), Some(false));
        assert!(matches!(
            s.take_lease(&me, t0 + 61_000, LEN).unwrap(),
            Lease::HeldBy { .. }
        ));
        // Not renewed: one lease later, taken over.
        assert_eq!(
            s.take_lease(&me, t0 + 110_001, LEN).unwrap(),
            Lease::Taken { taken_over: true }
        );
        // The old holder learns it at its next renewal.
        assert_eq!(s.renew_lease(&live, t0 + 110_002, LEN).unwrap(), None);
        // An ask for a check reaches the holder once.
        assert!(s.ask_check().unwrap());
        assert_eq!(s.renew_lease(&me, t0 + 111_000, LEN).unwrap(), Some(true));
        assert_eq!(s.renew_lease(&me, t0 + 112_000, LEN).unwrap(), Some(false));
        // Let go, it is free at once.
        s.release_lease(&me).unwrap();
        assert!(!s.ask_check().unwrap());
        assert_eq!(
            s.take_lease(&live, t0 + 112_001, LEN).unwrap(),
            Lease::Taken { taken_over: false }
        );
    }

    #[test]
    fn a_holder_whose_process_is_gone_is_taken_over_before_expiry() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            eprintln!("SKIPPED: no /proc here: only expiry frees a lease");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let t0 = 1_764_000_000_000;
        // A child that has exited and been reaped: its pid names no process.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = other(child.id());
        child.wait().unwrap();
        let dead = Holder {
            started: Some(1),
            ..dead
        };
        assert!(matches!(
            s.take_lease(&dead, t0, LEN).unwrap(),
            Lease::Taken { .. }
        ));
        let me = Holder::this_process();
        assert_eq!(
            s.take_lease(&me, t0 + 1, LEN).unwrap(),
            Lease::Taken { taken_over: true }
        );
        // A pid reused by another process (another start time) is not the holder either.
        let reused = Holder {
            started: process_start(std::process::id()).map(|t| t + 1),
            ..other(std::process::id())
        };
        s.release_lease(&me).unwrap();
        s.take_lease(&reused, t0 + 2, LEN).unwrap();
        assert_eq!(
            s.take_lease(&me, t0 + 3, LEN).unwrap(),
            Lease::Taken { taken_over: true }
        );
        // On another host nothing can be seen: the lease holds until it expires.
        let far = Holder {
            host: "elsewhere".into(),
            ..dead
        };
        s.release_lease(&me).unwrap();
        s.take_lease(&far, t0 + 4, LEN).unwrap();
        assert!(matches!(
            s.take_lease(&me, t0 + 5, LEN).unwrap(),
            Lease::HeldBy { .. }
        ));
        assert!(matches!(
            s.take_lease(&me, t0 + 4 + 60_000, LEN).unwrap(),
            Lease::Taken { taken_over: true }
        ));
    }
}
