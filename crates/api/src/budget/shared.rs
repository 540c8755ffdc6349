//! One budget for every process on the machine that uses the key (issue 41): what each one
//! sends is recorded in a [`Ledger`] the others read (the local store implements it), and a
//! request is admitted by the share rule applied to what all of them sent, in one atomic
//! step. A 429 that teaches a limit teaches it to all; its `Retry-After` holds all; a user's
//! request in any process holds the background work of every process (the user goes first).
//!
//! This file is the pure part: what a ledger tallies ([`Tally`]) and the decision on it
//! ([`decide`]); the ledger itself only counts and records.

use std::time::Duration;

use super::{Learned, MAX_USER_WAIT, Priority, background_may_send, reserve};

/// While a user's request waits on the budget in any process (it asks again every second),
/// background work waits, and this long after: the slots that free go to the user.
pub const USER_HOLD: Duration = Duration::from_millis(1500);

/// What the ledger knows, at one instant, of the requests of every process on the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    /// The limit as learned (by any process), if any.
    pub learned: Option<Learned>,
    /// Requests admitted in the last window (all processes).
    pub sent: u32,
    /// Of them, background ones.
    pub background: u32,
    /// Left as the service last said, less what went since (while that answer's window has
    /// not reset).
    pub told_left: Option<u32>,
    /// Unix ms the service said its window resets (with `told_left`).
    pub reset_ms: Option<i64>,
    /// Unix ms of the oldest request still in the window (a slot frees a window after it).
    pub oldest_ms: Option<i64>,
    /// Unix ms until which a 429's `Retry-After` holds every request.
    pub paused_until_ms: Option<i64>,
    /// Unix ms a user's request last waited on the budget, in any process.
    pub user_at_ms: Option<i64>,
}

impl Tally {
    fn window_ms(&self) -> i64 {
        self.learned
            .map_or(super::DEFAULT_WINDOW, |l| l.window)
            .as_millis() as i64
    }

    /// Requests left now, when anything is known.
    pub fn left(&self) -> Option<u32> {
        self.told_left
            .or_else(|| self.learned.map(|l| l.limit.saturating_sub(self.sent)))
    }
}

/// May a request of `priority` go at `now_ms`, having waited `waited`? `Err`: not before
/// this unix ms (background work looks again within a second anyway).
pub fn decide(t: &Tally, priority: Priority, waited: Duration, now_ms: i64) -> Result<(), i64> {
    if let Some(p) = t.paused_until_ms.filter(|p| *p > now_ms) {
        return Err(p);
    }
    let next_free = || {
        let by_window = t.oldest_ms.map(|o| o + t.window_ms());
        let at = match (t.told_left, t.reset_ms) {
            (Some(_), Some(r)) if r > now_ms => r,
            _ => by_window.unwrap_or(now_ms),
        };
        at.max(now_ms + 50)
    };
    match priority {
        Priority::User => match t.left() {
            Some(0) if waited < MAX_USER_WAIT => Err(next_free()),
            _ => Ok(()),
        },
        Priority::Background => {
            if let Some(u) = t.user_at_ms
                && now_ms < u + USER_HOLD.as_millis() as i64
            {
                return Err(u + USER_HOLD.as_millis() as i64);
            }
            match t.left() {
                None => Ok(()),
                Some(left) => {
                    let limit = t.learned.map(|l| l.limit);
                    if background_may_send(left, t.background, reserve(limit)) {
                        Ok(())
                    } else {
                        Err(next_free().min(now_ms + 1000))
                    }
                }
            }
        }
    }
}

/// What an answer taught, for the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct News {
    /// What this process now believes of the limit (from the answer's headers).
    pub learned: Option<Learned>,
    /// The answer said what is left, and when the window resets.
    pub remaining: Option<(u32, Duration)>,
    /// A 429 without limit headers: the ledger counts the requests of the minute before it
    /// (all processes', those answered and not refused) as the limit.
    pub count_at_429: bool,
    /// A 429's `Retry-After`: every process waits it.
    pub pause: Option<Duration>,
}

/// A request admitted by the ledger, and what it knows of the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admission {
    /// `Ok(id)` of the request recorded, or `Err(unix ms)` not before which to ask again.
    pub verdict: Result<i64, i64>,
    pub learned: Option<Learned>,
}

/// Where the processes on one key record what they send (the local store's tables). Calls
/// block (a file on disk); the budget makes them on a blocking thread. An error turns sharing
/// off for this process (it goes on with its own budget, as before).
pub trait Ledger: Send + Sync + std::fmt::Debug {
    /// In one atomic step: the tally of all processes, [`decide`], and, when it may go, the
    /// request recorded.
    fn admit(&self, priority: Priority, waited: Duration, now_ms: i64)
    -> Result<Admission, String>;
    /// What an answer taught.
    fn heard(&self, news: News, now_ms: i64) -> Result<(), String>;
    /// Requests this process sent before it shared its budget (unix ms, background), as
    /// answered ones.
    fn record_past(&self, sends: &[(i64, bool)]) -> Result<(), String>;
    /// Request `id` was answered at `now_ms` (it no longer counts as in flight, and counts
    /// from then on); `refused`: with a 429 (the service did not count it).
    fn done(&self, id: i64, refused: bool, now_ms: i64) -> Result<(), String>;
}

#[cfg(test)]
mod tests {
    use super::super::Source;
    use super::*;

    const NOW: i64 = 1_764_000_000_000;

    fn learned(limit: u32) -> Option<Learned> {
        Some(Learned {
            limit,
            window: Duration::from_secs(60),
            source: Source::TooManyRequests,
        })
    }

    #[test]
    fn all_processes_sends_count_and_the_user_goes_first() {
        let bg = |t: &Tally| decide(t, Priority::Background, Duration::ZERO, NOW);
        let user = |t: &Tally| decide(t, Priority::User, Duration::ZERO, NOW);
        // 120 a minute, 50 sent by others (30 of them background): background may go.
        let mut t = Tally {
            learned: learned(120),
            sent: 50,
            background: 30,
            oldest_ms: Some(NOW - 30_000),
            ..Tally::default()
        };
        assert!(bg(&t).is_ok());
        // Background has spent as much as is left: it waits, the user does not.
        t.background = 35;
        t.sent = 85;
        assert!(bg(&t).is_err());
        assert!(user(&t).is_ok());
        // A user's request a moment ago, in any process: background holds.
        let t2 = Tally {
            user_at_ms: Some(NOW - 200),
            background: 0,
            sent: 0,
            ..t
        };
        assert_eq!(bg(&t2), Err(NOW - 200 + USER_HOLD.as_millis() as i64));
        // Nothing left: the user waits until the oldest leaves the window.
        t.sent = 120;
        assert_eq!(user(&t), Err(NOW + 30_000));
        assert!(decide(&t, Priority::User, MAX_USER_WAIT, NOW).is_ok());
        // A 429's Retry-After holds everyone.
        let t3 = Tally {
            paused_until_ms: Some(NOW + 2000),
            ..Tally::default()
        };
        assert_eq!(user(&t3), Err(NOW + 2000));
        // Nothing known: everything goes.
        assert!(bg(&Tally::default()).is_ok());
    }
}
