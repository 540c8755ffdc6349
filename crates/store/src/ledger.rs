//! The store as the [`Ledger`] of the request budget (issue 41): every process on the store
//! (so on the profile and service) records each request it sends in `budget_sends`, and is
//! admitted on the tally of all of them (`api::budget::shared`). Each admission is one
//! `BEGIN IMMEDIATE` transaction (the tally and the record of one request are one step, so two
//! processes never both take the last slot); what answers teach goes into `budget_shared` and
//! `request_budget`. Its own connection (not the store thread's), so a request never waits
//! behind a page of names being written.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{OptionalExtension, params};

use super::{OpenOptions, Store, StoreError};
use convo_api::budget::shared::{Admission, News, Tally, decide};
use convo_api::budget::{DEFAULT_WINDOW, Learned, Ledger, MIN_LEARNED, Priority, Source};

/// How much longer than the window a request is counted (as the budget does: admitted a
/// little before the service counts it).
const MARGIN_MS: i64 = 500;

/// The store's budget tables, on a connection of their own.
pub struct StoreLedger {
    store: Mutex<Store>,
    pid: u32,
}

impl std::fmt::Debug for StoreLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreLedger")
    }
}

impl StoreLedger {
    /// Opens the store at `path` for the ledger (no integrity check: the other connection of
    /// the process does that; a damaged file fails here and sharing stays off).
    pub fn open(path: &Path) -> Result<StoreLedger, StoreError> {
        let store = Store::open_with(
            path,
            OpenOptions {
                check: false,
                ..OpenOptions::default()
            },
        )?;
        Ok(StoreLedger {
            store: Mutex::new(store),
            pid: std::process::id(),
        })
    }

    fn with<R>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<R>,
    ) -> Result<R, String> {
        let mut s = self
            .store
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (path, busy) = (s.path.clone(), s.busy);
        let err = |e: rusqlite::Error| StoreError::from_sqlite(&path, &e, busy).to_string();
        let tx = s
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let r = f(&tx).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(r)
    }
}

/// The learned limit, as `Store::budget` reads it, inside a transaction.
fn learned(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<Option<Learned>> {
    let row = tx
        .query_row(
            "SELECT quota, window_secs, source FROM request_budget WHERE id = 1",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                ))
            },
        )
        .optional()?;
    Ok(row.and_then(|(q, w, src)| {
        let source = Source::parse(&src);
        let limit = u32::try_from(q).ok().filter(|q| *q > 0)?;
        let window = u64::try_from(w).ok().filter(|w| *w > 0)?;
        (source != Source::Unknown).then_some(Learned {
            limit,
            window: Duration::from_secs(window),
            source,
        })
    }))
}

fn keep(tx: &rusqlite::Transaction<'_>, l: &Learned, now_ms: i64) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT OR REPLACE INTO request_budget (id, quota, window_secs, source, learned_at)
         VALUES (1, ?1, ?2, ?3, ?4)",
        params![
            l.limit,
            l.window.as_secs().max(1) as i64,
            l.source.as_str(),
            now_ms / 1000
        ],
    )
    .map(|_| ())
}

fn count(
    tx: &rusqlite::Transaction<'_>,
    sql: &str,
    p: impl rusqlite::Params,
) -> rusqlite::Result<u32> {
    tx.query_row(sql, p, |r| r.get::<_, i64>(0))
        .map(|n| n.clamp(0, i64::from(u32::MAX)) as u32)
}

/// What the tables say at `now_ms`.
fn tally(tx: &rusqlite::Transaction<'_>, now_ms: i64) -> rusqlite::Result<Tally> {
    let learned = learned(tx)?;
    let window = learned.map_or(DEFAULT_WINDOW, |l| l.window).as_millis() as i64;
    // Kept for a window, and for the minute a 429 counts.
    let keep_from = now_ms - window.max(DEFAULT_WINDOW.as_millis() as i64) - MARGIN_MS;
    tx.execute("DELETE FROM budget_sends WHERE at_ms < ?1", [keep_from])?;
    let from = now_ms - window - MARGIN_MS;
    // A request refused with a 429 did not count at the service.
    let sent = count(
        tx,
        "SELECT count(*) FROM budget_sends WHERE at_ms >= ?1 AND done < 2",
        [from],
    )?;
    let background = count(
        tx,
        "SELECT count(*) FROM budget_sends WHERE at_ms >= ?1 AND done < 2 AND background = 1",
        [from],
    )?;
    let oldest_ms: Option<i64> = tx.query_row(
        "SELECT min(at_ms) FROM budget_sends WHERE at_ms >= ?1",
        [now_ms - window],
        |r| r.get(0),
    )?;
    let shared = tx
        .query_row(
            "SELECT told_remaining, told_reset_ms, told_mark, told_extra, paused_until_ms,
                    user_at_ms FROM budget_shared WHERE id = 1",
            [],
            |r| {
                Ok((
                    r.get::<_, Option<i64>>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, Option<i64>>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    r.get::<_, Option<i64>>(5)?,
                ))
            },
        )
        .optional()?
        .unwrap_or_default();
    let (remaining, reset_ms, mark, extra, paused_until_ms, user_at_ms) = shared;
    let told_left = match (remaining, reset_ms, mark) {
        (Some(r), Some(reset), Some(mark)) if reset > now_ms => {
            let since = count(
                tx,
                "SELECT count(*) FROM budget_sends WHERE id > ?1",
                [mark],
            )?;
            let left = r - extra.unwrap_or(0) - i64::from(since);
            Some(left.clamp(0, i64::from(u32::MAX)) as u32)
        }
        _ => None,
    };
    Ok(Tally {
        learned,
        sent,
        background,
        told_left,
        reset_ms: told_left.and(reset_ms),
        oldest_ms,
        paused_until_ms,
        user_at_ms,
    })
}

fn set_shared(
    tx: &rusqlite::Transaction<'_>,
    column: &str,
    sql_value: &str,
    v: i64,
) -> rusqlite::Result<()> {
    tx.execute("INSERT OR IGNORE INTO budget_shared (id) VALUES (1)", [])?;
    tx.execute(
        &format!("UPDATE budget_shared SET {column} = {sql_value} WHERE id = 1"),
        [v],
    )
    .map(|_| ())
}

impl Ledger for StoreLedger {
    fn admit(
        &self,
        priority: Priority,
        waited: Duration,
        now_ms: i64,
    ) -> Result<Admission, String> {
        let pid = self.pid;
        self.with(|tx| {
            let t = tally(tx, now_ms)?;
            let verdict = decide(&t, priority, waited, now_ms);
            if priority == Priority::User && verdict.is_err() {
                // A user's request waiting holds every process's background work.
                set_shared(tx, "user_at_ms", "max(coalesce(user_at_ms, 0), ?1)", now_ms)?;
            }
            let verdict = match verdict {
                Ok(()) => {
                    tx.execute(
                        "INSERT INTO budget_sends (at_ms, background, pid) VALUES (?1, ?2, ?3)",
                        params![now_ms, priority == Priority::Background, pid],
                    )?;
                    Ok(tx.last_insert_rowid())
                }
                Err(until) => Err(until),
            };
            Ok(Admission {
                verdict,
                learned: t.learned,
            })
        })
    }

    fn heard(&self, news: News, now_ms: i64) -> Result<(), String> {
        self.with(|tx| {
            if let Some(l) = news.learned {
                keep(tx, &l, now_ms)?;
            }
            if let Some((remaining, reset)) = news.remaining {
                let mark: i64 =
                    tx.query_row("SELECT coalesce(max(id), 0) FROM budget_sends", [], |r| {
                        r.get(0)
                    })?;
                // The others in flight may not be in `remaining` yet (this answer's is).
                let extra = count(tx, "SELECT count(*) FROM budget_sends WHERE done = 0", [])?
                    .saturating_sub(1);
                tx.execute("INSERT OR IGNORE INTO budget_shared (id) VALUES (1)", [])?;
                tx.execute(
                    "UPDATE budget_shared SET told_remaining = ?1, told_reset_ms = ?2,
                       told_mark = ?3, told_extra = ?4 WHERE id = 1",
                    params![remaining, now_ms + reset.as_millis() as i64, mark, extra],
                )?;
            }
            if news.count_at_429 {
                let current = learned(tx)?;
                if current.is_none_or(|l| l.source == Source::TooManyRequests) {
                    // The requests of the last minute (every process's) the service answered
                    // were what it allowed; those still in flight (this one among them) may
                    // be refused too, and are not counted: the limit learned is never above
                    // the service's.
                    let from = now_ms - DEFAULT_WINDOW.as_millis() as i64;
                    let limit = count(
                        tx,
                        "SELECT count(*) FROM budget_sends WHERE at_ms >= ?1 AND done = 1",
                        [from],
                    )?;
                    if limit >= MIN_LEARNED {
                        let limit = current.map_or(limit, |l| l.limit.min(limit));
                        let l = Learned {
                            limit,
                            window: DEFAULT_WINDOW,
                            source: Source::TooManyRequests,
                        };
                        keep(tx, &l, now_ms)?;
                    }
                }
            }
            if let Some(p) = news.pause {
                let until = now_ms + p.as_millis() as i64;
                set_shared(
                    tx,
                    "paused_until_ms",
                    "max(coalesce(paused_until_ms, 0), ?1)",
                    until,
                )?;
            }
            Ok(())
        })
    }

    fn record_past(&self, sends: &[(i64, bool)]) -> Result<(), String> {
        let pid = self.pid;
        self.with(|tx| {
            for (at, background) in sends {
                tx.execute(
                    "INSERT INTO budget_sends (at_ms, background, pid, done)
                     VALUES (?1, ?2, ?3, 1)",
                    params![at, background, pid],
                )?;
            }
            Ok(())
        })
    }

    fn done(&self, id: i64, refused: bool, now_ms: i64) -> Result<(), String> {
        self.with(|tx| {
            // Counted from its answer from now on: the service counted it on arrival, which
            // was no later, so its slot is never taken for free before the service frees it
            // (however long the request took to get there).
            tx.execute(
                "UPDATE budget_sends SET done = ?2, at_ms = max(at_ms, ?3) WHERE id = ?1",
                params![id, if refused { 2 } else { 1 }, now_ms],
            )
            .map(|_| ())
        })
    }
}

/// Shares `client`'s budget with the other processes on this config's store (none when the
/// store is off or cannot be opened: the client then counts alone, as before). The file is
/// opened on a thread of its own, so a locked or slow one never holds the start; the
/// requests sent before it is open count for this process alone.
pub fn share(cfg: &convo_config::Config, client: &convo_api::Client) {
    let Ok(path) = super::path_for(cfg) else {
        return;
    };
    let client = client.clone();
    let opened = std::thread::Builder::new()
        .name("convo-ledger".into())
        .spawn(move || match StoreLedger::open(&path) {
            Ok(l) => client.budget().share(Arc::new(l)),
            Err(e) => tracing::warn!(error = %e, "request budget not shared"),
        });
    if let Err(e) = opened {
        tracing::warn!(error = %e, "request budget not shared");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_764_000_000_000;

    /// Two ledgers on one file stand for two processes: what one sends, the other counts.
    #[test]
    fn what_one_process_sends_the_other_counts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let (a, b) = (
            StoreLedger::open(&path).unwrap(),
            StoreLedger::open(&path).unwrap(),
        );
        // Before any limit is known, everything goes, and is recorded.
        for i in 0..40 {
            let who = if i % 2 == 0 { &a } else { &b };
            let r = who
                .admit(Priority::Background, Duration::ZERO, T0 + i)
                .unwrap();
            // Answered, but for the last two (in flight when the 429 comes, one of them
            // the 429 itself).
            if i < 38 {
                who.done(r.verdict.unwrap(), false, T0 + i).unwrap();
            }
        }
        // A 429 heard by one teaches the limit of all: the 38 of the minute answered.
        let news = News {
            learned: None,
            remaining: None,
            count_at_429: true,
            pause: Some(Duration::from_secs(2)),
        };
        a.heard(news, T0 + 100).unwrap();
        let r = b.admit(Priority::User, Duration::ZERO, T0 + 200).unwrap();
        assert_eq!(
            r.learned.map(|l| (l.limit, l.source)),
            Some((38, Source::TooManyRequests))
        );
        // Its Retry-After holds the other process too.
        assert_eq!(r.verdict, Err(T0 + 2100));
        // After it: nothing left in the window for anyone; background waits, the user waits
        // for the first request to leave the window.
        let r = b
            .admit(Priority::Background, Duration::ZERO, T0 + 3000)
            .unwrap();
        assert!(r.verdict.is_err());
        let r = a.admit(Priority::User, Duration::ZERO, T0 + 3000).unwrap();
        assert_eq!(r.verdict, Err(T0 + 60_000));
        // A minute on, the window is empty: the user goes; a user's request that did not
        // wait holds nobody.
        let r = a
            .admit(Priority::User, Duration::ZERO, T0 + 61_000)
            .unwrap();
        assert!(r.verdict.is_ok());
        let r = b
            .admit(Priority::Background, Duration::ZERO, T0 + 61_100)
            .unwrap();
        assert!(r.verdict.is_ok());
        // Background of both together: at most half of what is left.
        let mut bg = 1;
        for i in 0..100 {
            let who = if i % 2 == 0 { &a } else { &b };
            if who
                .admit(Priority::Background, Duration::ZERO, T0 + 63_001 + i)
                .unwrap()
                .verdict
                .is_ok()
            {
                bg += 1;
            }
        }
        // 38 a minute, 1 user request: background takes half of the 37 left, 18, no more.
        assert_eq!(bg, 18);
    }

    /// Two processes' budgets on one store and one `ManualClock`, 600 requests a minute,
    /// background work in both asking in turn as fast as it may: together they get half, 300
    /// at 0 s (150 each), then nothing until those leave the window (a window and the half
    /// second a request is counted longer), then 300 more; a user's request in either goes
    /// at once meanwhile. Minutes of the shared budget in milliseconds.
    #[tokio::test]
    async fn two_processes_background_work_gets_half_of_each_window_together() {
        use convo_api::Budget;
        use convo_api::clock::ManualClock;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let learned = Learned {
            limit: 600,
            window: Duration::from_secs(60),
            source: Source::RateLimit,
        };
        Store::open(&path)
            .unwrap()
            .keep_budget(&learned, T0 / 1000)
            .unwrap();
        let clock = ManualClock::new();
        let budgets = [
            Budget::with_clock(clock.clone()),
            Budget::with_clock(clock.clone()),
        ];
        for b in &budgets {
            b.share(Arc::new(StoreLedger::open(&path).unwrap()));
        }
        let admissions = async {
            let mut times = [Vec::new(), Vec::new()];
            for i in 0..600 {
                drop(budgets[i % 2].admit(Priority::Background, &|_| {}).await);
                times[i % 2].push(clock.elapsed());
            }
            times
        };
        let times = tokio::time::timeout(Duration::from_secs(60), clock.run(admissions, || {}))
            .await
            .expect("600 admissions on the clock");
        let all: Vec<Duration> = times.concat();
        let at_0 = all.iter().filter(|t| t.is_zero()).count();
        assert_eq!(
            (at_0, times[0].iter().filter(|t| t.is_zero()).count()),
            (300, 150),
            "{times:?}"
        );
        // The other 300 at one instant, once the first ones have left the window: a window and
        // the half-second margin, the first of the ledger's looks every 50 ms past it.
        let later: Vec<Duration> = all.iter().copied().filter(|t| !t.is_zero()).collect();
        assert_eq!(later, vec![Duration::from_millis(60_550); 300]);
        // Background has its half of this window: a user's request goes at once.
        let waited = std::sync::atomic::AtomicBool::new(false);
        let on_wait = |_: Duration| waited.store(true, std::sync::atomic::Ordering::SeqCst);
        drop(budgets[1].admit(Priority::User, &on_wait).await);
        assert!(!waited.into_inner());
    }
}
