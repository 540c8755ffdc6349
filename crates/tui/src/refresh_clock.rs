//! The periodic refresh's clock (`R`, `refresh_secs`): whether it runs and when its period
//! started. `update::refresh` runs the refreshes it says are due.

/// The periodic refresh's clock: whether it runs (`R`) and when the period started (the end
/// of the last refresh, or its start over).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefreshClock {
    on: bool,
    last: jiff::Timestamp,
}

impl RefreshClock {
    /// A clock that runs (or not) from `now`.
    pub fn new(on: bool, now: jiff::Timestamp) -> RefreshClock {
        RefreshClock { on, last: now }
    }

    /// The periodic refresh is on.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// When the last refresh ended (or started over): the period runs from there.
    pub fn last(&self) -> jiff::Timestamp {
        self.last
    }

    /// Turns the periodic refresh on or off (a session starts it when its config sets
    /// `refresh_secs`); the period keeps its start.
    pub fn switch(&mut self, on: bool) {
        self.on = on;
    }

    /// `R`: on becomes off and off on, the period counted from `now`. Says whether it is on.
    pub fn toggle(&mut self, now: jiff::Timestamp) -> bool {
        self.on = !self.on;
        self.last = now;
        self.on
    }

    /// A refresh ended, failed or started over at `now`: the next period runs from there.
    pub fn restart(&mut self, now: jiff::Timestamp) {
        self.last = now;
    }

    /// With the clock on and a period of `secs`, whether a refresh is due at `now`.
    pub fn due(&self, period: Option<u64>, now: jiff::Timestamp) -> bool {
        match (self.on, period) {
            (true, Some(secs)) => {
                now.as_second() >= self.last.as_second().saturating_add(secs as i64)
            }
            _ => false,
        }
    }
}
