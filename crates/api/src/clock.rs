//! The time source of the client's waits, the request budget and the visitor sync's pacing
//! (issue 37): a [`Clock`] given to the client ([`super::ClientSettings::clock`]), shared by
//! its clones, its budget and the sync that sends through it. The real one is
//! [`SystemClock`] (tokio's clock and the system's time); tests give a [`ManualClock`]
//! (`testing` feature) that moves only when told, so "one request a minute" is tested in
//! milliseconds, and "not before +60 s" is a fact about virtual instants, not a quiet spell.
//!
//! The transport's own timeouts (connect, request) stay on the real clock: they measure the
//! network, not a pace.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

/// A sleep on a [`Clock`].
pub type Sleep<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Where the budget, the client's waits and the sync's pacing read the time and sleep.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Now, as an instant of this clock.
    fn now(&self) -> Instant;
    /// Now, as unix milliseconds (what the shared budget's ledger records).
    fn unix_ms(&self) -> i64;
    /// Ends at `at` (at once when it is past).
    fn sleep_until(&self, at: Instant) -> Sleep<'_>;
}

/// [`Clock::sleep_until`] `now + d`.
pub fn sleep(clock: &dyn Clock, d: Duration) -> Sleep<'_> {
    clock.sleep_until(clock.now() + d)
}

/// The real clock: tokio's (so a runtime with a paused clock pauses it too) and the system's
/// time of day.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn unix_ms(&self) -> i64 {
        jiff::Timestamp::now().as_millisecond()
    }

    fn sleep_until(&self, at: Instant) -> Sleep<'_> {
        Box::pin(tokio::time::sleep_until(at))
    }
}

/// The clock everything uses unless given another.
pub fn system() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}

#[cfg(any(test, feature = "testing"))]
pub use manual::ManualClock;

#[cfg(any(test, feature = "testing"))]
mod manual {
    use std::sync::Mutex;

    use super::*;

    /// A clock that moves only by [`ManualClock::advance`]; what sleeps on it is listed
    /// ([`ManualClock::sleepers`]), so a test can wait for the code to be parked until a
    /// given instant, check what was sent by then, and move on.
    #[derive(Debug)]
    pub struct ManualClock {
        start: Instant,
        start_unix_ms: i64,
        state: Mutex<State>,
        moved: tokio::sync::watch::Sender<()>,
    }

    #[derive(Debug, Default)]
    struct State {
        /// Virtual time since `start`.
        offset: Duration,
        /// Those asleep: an id and the instant each wakes at.
        sleepers: Vec<(u64, Instant)>,
        next_id: u64,
    }

    impl ManualClock {
        /// A clock standing at the real time of now.
        pub fn new() -> Arc<ManualClock> {
            Arc::new(ManualClock {
                start: Instant::now(),
                start_unix_ms: jiff::Timestamp::now().as_millisecond(),
                state: Mutex::new(State::default()),
                moved: tokio::sync::watch::Sender::new(()),
            })
        }

        fn lock(&self) -> std::sync::MutexGuard<'_, State> {
            self.state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }

        /// The instant the clock was made at (its virtual time 0).
        pub fn start(&self) -> Instant {
            self.start
        }

        /// Virtual time since the clock was made.
        pub fn elapsed(&self) -> Duration {
            self.lock().offset
        }

        /// Moves the clock on by `d`, waking what sleeps until then.
        pub fn advance(&self, d: Duration) {
            self.lock().offset += d;
            self.moved.send_replace(());
        }

        /// Moves the clock to `at` (never back).
        pub fn advance_to(&self, at: Instant) {
            let mut st = self.lock();
            let to = at.saturating_duration_since(self.start);
            if to > st.offset {
                st.offset = to;
            }
            drop(st);
            self.moved.send_replace(());
        }

        /// The instants those asleep on the clock wake at, earliest first.
        pub fn sleepers(&self) -> Vec<Instant> {
            let mut v: Vec<Instant> = self.lock().sleepers.iter().map(|(_, t)| *t).collect();
            v.sort_unstable();
            v
        }

        /// Virtual time since the start of an instant of this clock.
        pub fn at(&self, t: Instant) -> Duration {
            t.saturating_duration_since(self.start)
        }

        /// Runs `fut` to its end, moving the clock, whenever something sleeps on it until a
        /// later instant, to the earliest such instant (as tokio's paused clock does, but
        /// only this clock: the network and the disk stay real). `looked` is called each time
        /// the clock stands still with what sleeps on it parked, before it moves and once at
        /// the end: what it reads then happened at the instant the clock stands at. Exact, not
        /// a sample, for code that runs as one task (or whose tasks all sleep on this clock).
        pub async fn run<F: Future>(&self, fut: F, mut looked: impl FnMut()) -> F::Output {
            let mut fut = std::pin::pin!(fut);
            loop {
                let out = tokio::select! {
                    out = &mut fut => Some(out),
                    () = tokio::time::sleep(Duration::from_millis(1)) => None,
                };
                // Sleepers first: one parked now stays parked (only this loop moves the
                // clock), so whatever it did before it is seen by `looked`.
                let next = self.sleepers().into_iter().find(|t| *t > self.now());
                looked();
                if let Some(out) = out {
                    return out;
                }
                if let Some(t) = next {
                    self.advance_to(t);
                }
            }
        }
    }

    /// Takes a sleeper off the list when its sleep ends or is dropped.
    struct Asleep<'a>(&'a ManualClock, u64);

    impl Drop for Asleep<'_> {
        fn drop(&mut self) {
            self.0.lock().sleepers.retain(|(id, _)| *id != self.1);
        }
    }

    impl Clock for ManualClock {
        fn now(&self) -> Instant {
            self.start + self.lock().offset
        }

        fn unix_ms(&self) -> i64 {
            self.start_unix_ms + self.lock().offset.as_millis() as i64
        }

        fn sleep_until(&self, at: Instant) -> Sleep<'_> {
            Box::pin(async move {
                let mut moved = self.moved.subscribe();
                if self.now() >= at {
                    return;
                }
                let id = {
                    let mut st = self.lock();
                    st.next_id += 1;
                    let id = st.next_id;
                    st.sleepers.push((id, at));
                    id
                };
                let _asleep = Asleep(self, id);
                while self.now() < at {
                    if moved.changed().await.is_err() {
                        // The sender lives as long as the clock: never.
                        std::future::pending::<()>().await;
                    }
                }
            })
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[tokio::test]
        async fn a_sleep_ends_when_the_clock_reaches_it_and_not_before() {
            let c = ManualClock::new();
            let at = c.now() + Duration::from_secs(60);
            let mut sleep = c.sleep_until(at);
            assert!(futures::poll!(sleep.as_mut()).is_pending());
            assert_eq!(c.sleepers(), vec![at]);
            c.advance(Duration::from_millis(59_999));
            assert!(futures::poll!(sleep.as_mut()).is_pending());
            c.advance(Duration::from_millis(1));
            assert!(futures::poll!(sleep.as_mut()).is_ready());
            assert!(c.sleepers().is_empty());
            assert_eq!(c.elapsed(), Duration::from_secs(60));
            assert!(futures::poll!(c.sleep_until(at)).is_ready());
        }
    }
}
