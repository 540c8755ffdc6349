//! One request budget per service for the whole app (docs/design.md "Request budget"): what the service
//! allows, learned from its answers, and who may spend it.
//!
//! How to use it (the whole API):
//! - Every request goes through the [`super::Client`], which consults its budget before it
//!   sends. A clone of a client shares its budget, so one client (and its clones) per service
//!   means one budget per service.
//! - Requests are the user's unless marked: work the user did not ask for now (the visitor
//!   sync, checks of the new end, the refresh of a tab not shown, look-ahead past the next
//!   screen, the board) sends through [`super::Client::background`], a clone whose requests are
//!   [`Priority::Background`]. Nothing else is asked of a caller.
//! - [`super::Client::budget`] shows what the client sees ([`Budget::snapshot`], e.g. for
//!   `convo doctor`, a board or an exporter: "the budget left"), and lets the local store keep
//!   what was learned ([`Budget::learned`]) and hand it back at the next start
//!   ([`Budget::seed`]).
//!
//! Learned from (in this order of trust): `RateLimit` / `RateLimit-Policy` (the IETF draft:
//! `"default";r=50;t=30` and `"default";q=120;w=60`; its older forms `limit=, remaining=,
//! reset=` and `RateLimit-Limit/-Remaining/-Reset`), `X-RateLimit-Limit/-Remaining/-Reset`,
//! else the 429s: at a 429 without such headers, the requests sent in the minute before it are
//! taken as the limit per minute. Headers are untrusted: unreadable values are ignored, numbers
//! are capped.
//!
//! Spent by (the share rule, [`background_may_send`]): the user's requests go whenever a slot
//! is left (and wait, said by the client's retry notice, only when none is); background
//! requests never spend more than they leave (at most half of what was left to them) and never
//! the last slots ([`reserve`]), so the user's own fetches never wait behind them.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::time::Instant;

use crate::clock::Clock;

mod headers;
pub mod shared;

pub use headers::{Heard, parse_headers};
pub use shared::Ledger;

/// The window assumed when the service names none (a limit "per minute" is the common one).
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(60);

/// Who a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Priority {
    /// The user asked for it now (scrolling, `L`, `r`, a query, an export, a command).
    #[default]
    User,
    /// Work the user did not ask for now: it spends only the share [`background_may_send`]
    /// allows.
    Background,
}

/// Where what the budget knows came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Nothing learned yet: no limit header seen, no 429.
    Unknown,
    /// `RateLimit` / `RateLimit-Policy` (the IETF draft, current or older forms).
    RateLimit,
    /// `X-RateLimit-Limit` / `-Remaining` / `-Reset`.
    XRateLimit,
    /// Counted at a 429 that named no limit.
    TooManyRequests,
}

impl Source {
    /// As kept in the store and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Unknown => "unknown",
            Source::RateLimit => "RateLimit headers",
            Source::XRateLimit => "X-RateLimit headers",
            Source::TooManyRequests => "counted at a 429",
        }
    }

    /// The inverse of [`Source::as_str`]; anything else is `Unknown`.
    pub fn parse(s: &str) -> Source {
        [
            Source::RateLimit,
            Source::XRateLimit,
            Source::TooManyRequests,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
        .unwrap_or(Source::Unknown)
    }
}

/// What is kept in the store per service and used from the start next time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Learned {
    /// Requests allowed per window.
    pub limit: u32,
    pub window: Duration,
    pub source: Source,
}

/// What the budget sees now (`convo doctor`, a board, an exporter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Snapshot {
    /// Requests allowed per window, when known.
    pub limit: Option<u32>,
    /// The window, when known (told by `w=`, or assumed a minute after a 429).
    pub window: Option<Duration>,
    /// Requests left now, when known (told by the service, less what was sent since).
    pub left: Option<u32>,
    /// When the service said its window resets.
    pub resets_in: Option<Duration>,
    pub source: Source,
    /// How many more background requests the share rule allows now (`None`: no budget known,
    /// background work goes at its own pace).
    pub background_left: Option<u32>,
}

impl Snapshot {
    /// One line: "120 requests per 60 s (RateLimit headers); 87 left, resets in 23 s;
    /// background work may send 37 more now".
    pub fn line(&self) -> String {
        let mut s = match (self.limit, self.window) {
            (Some(l), Some(w)) => format!(
                "{} requests per {} ({})",
                convo_text::thousands(u64::from(l)),
                secs(w),
                self.source.as_str()
            ),
            (Some(l), None) => format!(
                "{} requests per window ({})",
                convo_text::thousands(u64::from(l)),
                self.source.as_str()
            ),
            (None, _) if self.left.is_some() => {
                format!("limit not said ({})", self.source.as_str())
            }
            (None, _) => {
                return "not known yet: the service sent no RateLimit or X-RateLimit headers \
                        and no 429"
                    .into();
            }
        };
        if let Some(left) = self.left {
            s.push_str(&format!(
                "; {} left",
                convo_text::thousands(u64::from(left))
            ));
            if let Some(r) = self.resets_in {
                s.push_str(&format!(", resets in {}", secs(r)));
            }
        }
        if let Some(b) = self.background_left {
            s.push_str(&format!(
                "; background work may send {} more now",
                convo_text::thousands(u64::from(b))
            ));
        }
        s
    }
}

fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64().ceil() as u64)
}

/// The slots background work never takes: a tenth of the limit, at least 2 (and at least 4,
/// the requests in flight an answer cannot have counted, when the limit is unknown).
pub fn reserve(limit: Option<u32>) -> u32 {
    match limit {
        Some(l) => (l / 10).max(2),
        None => 4,
    }
}

/// The share rule (pure): may one more background request go, with `left` requests left in
/// the window, `spent` of them already spent by background work in this window? Only when,
/// after it, background work has spent no more than is left (so at most half of what was left
/// to it) and at least `reserve` slots are left.
pub fn background_may_send(left: u32, spent: u32, reserve: u32) -> bool {
    let Some(after) = left.checked_sub(1) else {
        return false;
    };
    after >= reserve && spent < after
}

/// How many background requests in a row [`background_may_send`] allows from here.
pub fn background_share(left: u32, spent: u32, reserve: u32) -> u32 {
    // after = left - k, spent + k <= after  =>  k <= (left - spent) / 2; and left - k >= reserve.
    let by_half = left.saturating_sub(spent) / 2;
    by_half.min(left.saturating_sub(reserve))
}

/// The longest window believed.
pub(crate) const MAX_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// What one answer said of the budget left, and the requests sent since.
#[derive(Debug, Clone, Copy)]
struct Told {
    remaining: u32,
    reset_at: Instant,
    /// Requests admitted since this was heard.
    sent_since: u32,
}

#[derive(Debug)]
struct State {
    limit: Option<u32>,
    window: Option<Duration>,
    /// The service named the window (`w=`); else it is the longest reset heard (a window is
    /// at least as long as any wait to its reset), or a minute.
    window_said: bool,
    source: Source,
    told: Option<Told>,
    /// Requests admitted, oldest first, kept for one window.
    sends: VecDeque<(Instant, Priority)>,
    /// Bumped whenever [`Budget::learned`] changes.
    version: u64,
    /// Requests admitted and not yet answered (their [`Ticket`]s are alive).
    in_flight: u32,
}

/// A 429 teaches a limit only when at least this many requests went in the minute before it.
pub const MIN_LEARNED: u32 = 10;

/// How much longer than the window a request admitted is counted.
const COUNT_MARGIN: Duration = Duration::from_millis(500);

/// Sends kept at most (a limit above this per window is not paced by counting).
const MAX_SENDS: usize = 100_000;

impl State {
    fn window(&self) -> Duration {
        self.window.unwrap_or(DEFAULT_WINDOW)
    }

    /// Forgets the sends no count looks at any more (kept as long as [`State::sent_within`]
    /// counts them: a window and [`COUNT_MARGIN`]).
    fn prune(&mut self, now: Instant) {
        let w = self.window().max(DEFAULT_WINDOW) + COUNT_MARGIN;
        while let Some((t, _)) = self.sends.front() {
            if now.duration_since(*t) >= w || self.sends.len() > MAX_SENDS {
                self.sends.pop_front();
            } else {
                break;
            }
        }
    }

    /// Requests (of `who`, or all) admitted in the last window.
    fn sent_within(&self, now: Instant, who: Option<Priority>) -> u32 {
        // A request is counted from when it was admitted, a little before the service counts
        // it: kept a little longer than the window, it is never forgotten before the service
        // forgets it.
        let w = self.window() + COUNT_MARGIN;
        self.sends
            .iter()
            .rev()
            .take_while(|(t, _)| now.duration_since(*t) < w)
            .filter(|(_, p)| who.is_none_or(|w| w == *p))
            .count() as u32
    }

    /// Requests left now, when anything is known.
    fn left(&self, now: Instant) -> Option<u32> {
        if let Some(t) = self.told
            && now < t.reset_at
        {
            return Some(t.remaining.saturating_sub(t.sent_since));
        }
        // Past the reset the service said (or told nothing): the limit, less what went in the
        // last window. Never more than a fixed window's service allows, and right for a
        // sliding window's.
        self.limit
            .map(|l| l.saturating_sub(self.sent_within(now, None)))
    }

    /// When a slot is next expected to free up.
    fn next_free(&self, now: Instant) -> Instant {
        let w = self.window();
        let by_window = self
            .sends
            .iter()
            .find(|(t, _)| now.duration_since(*t) < w)
            .map(|(t, _)| *t + w);
        let at = match self.told {
            Some(t) if now < t.reset_at => t.reset_at,
            _ => by_window.unwrap_or(now),
        };
        at.max(now + Duration::from_millis(50))
    }

    fn background_left(&self, now: Instant) -> Option<u32> {
        let left = self.left(now)?;
        let spent = self.sent_within(now, Some(Priority::Background));
        Some(background_share(left, spent, reserve(self.limit)))
    }

    /// The window was guessed from resets heard (not seeded, not counted at a 429).
    fn source_was_heard(&self) -> bool {
        matches!(self.source, Source::RateLimit | Source::XRateLimit)
    }

    fn learned(&self) -> Option<Learned> {
        Some(Learned {
            limit: self.limit?,
            window: self.window(),
            source: self.source,
        })
    }
}

/// Counts one admission in [`Budget::waiting`] while it lives.
struct Waiting<'a>(&'a std::sync::atomic::AtomicU32);

impl<'a> Waiting<'a> {
    fn new(n: &'a std::sync::atomic::AtomicU32) -> Waiting<'a> {
        n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Waiting(n)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A request admitted and not yet answered; dropped when its answer has been heard.
#[derive(Debug)]
pub struct Ticket<'a> {
    budget: &'a Budget,
    /// Its record in the shared ledger.
    id: Option<i64>,
    refused: bool,
}

impl Ticket<'_> {
    /// The answer was a 429: the service did not count this request.
    pub fn refused(&mut self) {
        self.refused = true;
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let mut st = self.budget.lock();
        st.in_flight = st.in_flight.saturating_sub(1);
        drop(st);
        if let (Some(id), Some(ledger)) = (self.id, self.budget.ledger()) {
            let refused = self.refused;
            let at = self.budget.clock.unix_ms();
            off_thread(move || ledger.done(id, refused, at));
        }
    }
}

/// Runs a ledger call that nobody waits for on a blocking thread (here when there is no
/// runtime); a failure is logged (the next admission finds the ledger's state anyway).
fn off_thread(f: impl FnOnce() -> Result<(), String> + Send + 'static) {
    let run = move || {
        if let Err(e) = f() {
            tracing::warn!(error = %e, "shared request budget: a write failed");
        }
    };
    match tokio::runtime::Handle::try_current() {
        Ok(h) => drop(h.spawn_blocking(run)),
        Err(_) => run(),
    }
}

/// The budget of one service. See the module's doc.
#[derive(Debug)]
pub struct Budget {
    state: Mutex<State>,
    changed: tokio::sync::Notify,
    /// Where the other processes on this key record what they send ([`shared`]); `None`:
    /// this process's budget alone.
    ledger: Mutex<Option<std::sync::Arc<dyn Ledger>>>,
    /// Its time: the client's clock ([`crate::clock`]).
    clock: std::sync::Arc<dyn Clock>,
    /// Admissions waiting on the budget now: the user's, background ones.
    waiting: [std::sync::atomic::AtomicU32; 2],
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new()
    }
}

/// A user's request waits at most this long on the budget before it goes anyway (as long
/// as the longest `Retry-After` honoured).
pub const MAX_USER_WAIT: Duration = Duration::from_secs(60);

impl Budget {
    /// Knows nothing: every request goes until the service says otherwise.
    pub fn new() -> Budget {
        Budget::with_clock(crate::clock::system())
    }

    /// [`Budget::new`] on `clock` (the client's).
    pub fn with_clock(clock: std::sync::Arc<dyn Clock>) -> Budget {
        Budget {
            state: Mutex::new(State {
                limit: None,
                window: None,
                window_said: false,
                source: Source::Unknown,
                told: None,
                sends: VecDeque::new(),
                version: 0,
                in_flight: 0,
            }),
            changed: tokio::sync::Notify::new(),
            ledger: Mutex::new(None),
            clock,
            waiting: Default::default(),
        }
    }

    /// Shares the budget with the other processes that record into `ledger` (see
    /// [`shared`]): from now on a request is admitted on what all of them sent.
    pub fn share(&self, ledger: std::sync::Arc<dyn Ledger>) {
        // What this process sent before is recorded, so the others count it too: taken while
        // the ledger is set (under the state's lock), so a request is either in it or goes
        // through the ledger.
        let past: Vec<(i64, bool)> = {
            let now = self.clock.now();
            let now_ms = self.clock.unix_ms();
            let st = self.lock();
            *self
                .ledger
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(ledger.clone());
            st.sends
                .iter()
                .filter(|(t, _)| now.duration_since(*t) < st.window() + COUNT_MARGIN)
                .map(|(t, p)| {
                    let ago = now.duration_since(*t).as_millis() as i64;
                    (now_ms - ago, *p == Priority::Background)
                })
                .collect()
        };
        if let Err(e) = ledger.record_past(&past) {
            self.unshare(&e);
        }
    }

    /// Whether the budget is shared with other processes now.
    pub fn is_shared(&self) -> bool {
        self.ledger().is_some()
    }

    fn ledger(&self) -> Option<std::sync::Arc<dyn Ledger>> {
        self.ledger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Sharing failed (the store went away, stayed locked): this process goes on alone.
    fn unshare(&self, why: &str) {
        tracing::warn!(error = %why, "shared request budget off: this process counts alone");
        *self
            .ledger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    /// A 429 asked every request to wait `wait` (its `Retry-After`): the other processes on
    /// the key wait it too.
    pub fn paused(&self, wait: Duration) {
        if let Some(ledger) = self.ledger() {
            let news = shared::News {
                learned: None,
                remaining: None,
                count_at_429: false,
                pause: Some(wait),
            };
            let at = self.clock.unix_ms();
            off_thread(move || ledger.heard(news, at));
        }
    }

    /// Takes what the ledger knows of the limit (another process may have learned it).
    fn adopt(&self, learned: Option<Learned>) {
        let Some(l) = learned else { return };
        let mut st = self.lock();
        if matches!(st.source, Source::Unknown | Source::TooManyRequests) && st.learned() != Some(l)
        {
            st.limit = Some(l.limit);
            st.window = Some(l.window.clamp(Duration::from_secs(1), MAX_WINDOW));
            st.source = l.source;
            st.version += 1;
        }
    }

    /// One admission through the ledger: `Ok(Some(id))` admitted, `Ok(None)` not yet (after
    /// waiting as it says), `Err` sharing is off.
    async fn admit_shared(
        &self,
        ledger: std::sync::Arc<dyn Ledger>,
        priority: Priority,
        waited: Duration,
    ) -> Result<Result<i64, Duration>, String> {
        let now = self.clock.unix_ms();
        let a = tokio::task::spawn_blocking(move || ledger.admit(priority, waited, now))
            .await
            .map_err(|e| e.to_string())??;
        self.adopt(a.learned);
        Ok(match a.verdict {
            Ok(id) => {
                let mut st = self.lock();
                let at = self.clock.now();
                st.prune(at);
                st.sends.push_back((at, priority));
                st.in_flight = st.in_flight.saturating_add(1);
                if let Some(t) = &mut st.told {
                    t.sent_since = t.sent_since.saturating_add(1);
                }
                Ok(id)
            }
            Err(until) => Err(Duration::from_millis(
                until.saturating_sub(now).max(0) as u64
            )),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What was learned before (kept in the store), used until the service says otherwise.
    pub fn seed(&self, learned: Learned) {
        let mut st = self.lock();
        if st.source != Source::Unknown || learned.limit == 0 {
            return;
        }
        st.limit = Some(learned.limit);
        st.window = Some(learned.window.clamp(Duration::from_secs(1), MAX_WINDOW));
        st.source = learned.source;
    }

    /// What is worth keeping for next time, and a number that changes when it does.
    pub fn learned(&self) -> (Option<Learned>, u64) {
        let st = self.lock();
        (st.learned(), st.version)
    }

    /// What the budget sees now.
    pub fn snapshot(&self) -> Snapshot {
        let now = self.clock.now();
        let st = self.lock();
        Snapshot {
            limit: st.limit,
            window: st.limit.map(|_| st.window()),
            left: st.left(now),
            resets_in: st
                .told
                .filter(|t| t.reset_at > now)
                .map(|t| t.reset_at - now),
            source: st.source,
            background_left: st.background_left(now),
        }
    }

    /// Waits until a request of `priority` may go, and counts it as sent. A user's request
    /// that has to wait hears `on_wait` with how long (once per wait); background work waits
    /// silently.
    /// The ticket is held until the answer has been [`Budget::heard`] (or the request failed).
    pub async fn admit(
        &self,
        priority: Priority,
        on_wait: &(dyn Fn(Duration) + Send + Sync),
    ) -> Ticket<'_> {
        let started = self.clock.now();
        let mut said: Option<Instant> = None;
        loop {
            let Some(ledger) = self.ledger() else {
                match self
                    .admit_alone(priority, started, &mut said, on_wait)
                    .await
                {
                    Some(ticket) => return ticket,
                    // Shared meanwhile: asked of the ledger.
                    None => continue,
                }
            };
            let now = self.clock.now();
            match self.admit_shared(ledger, priority, now - started).await {
                Ok(Ok(id)) => {
                    return Ticket {
                        budget: self,
                        id: Some(id),
                        refused: false,
                    };
                }
                Ok(Err(wait)) => {
                    let free = match priority {
                        Priority::User => (now + wait).min(started + MAX_USER_WAIT),
                        Priority::Background => now + wait,
                    };
                    // Said once per wait, with how long.
                    if priority == Priority::User
                        && said
                            .is_none_or(|s| s.max(free) - s.min(free) > Duration::from_millis(900))
                    {
                        said = Some(free);
                        on_wait(free - now);
                    }
                    // Asked again within a second: other processes' requests end, and a
                    // waiting user's request holds their background work while it asks.
                    let until = free.min(now + Duration::from_secs(1));
                    self.wait_until(priority, until).await;
                }
                Err(e) => self.unshare(&e),
            }
        }
    }

    /// Admission by this process's own count; `None` when the budget was shared meanwhile.
    async fn admit_alone(
        &self,
        priority: Priority,
        started: Instant,
        said: &mut Option<Instant>,
        on_wait: &(dyn Fn(Duration) + Send + Sync),
    ) -> Option<Ticket<'_>> {
        loop {
            let now = self.clock.now();
            let free = match self.try_admit(priority, now, now.duration_since(started)) {
                Ok(()) => {
                    return Some(Ticket {
                        budget: self,
                        id: None,
                        refused: false,
                    });
                }
                Err(None) => return None,
                Err(Some(free)) => free,
            };
            let until = match priority {
                Priority::User => free.min(started + MAX_USER_WAIT),
                // A user's request may end, an answer may say more: look again soon.
                Priority::Background => free.min(now + Duration::from_secs(1)),
            };
            if priority == Priority::User && *said != Some(until) {
                *said = Some(until);
                on_wait(until - now);
            }
            self.wait_until(priority, until).await;
        }
    }

    /// Waits until `until` on the clock, or until an answer or a ticket's end changes what is
    /// known; counted in [`Budget::waiting`] meanwhile.
    async fn wait_until(&self, priority: Priority, until: Instant) {
        let _waiting = Waiting::new(&self.waiting[priority as usize]);
        let changed = self.changed.notified();
        tokio::pin!(changed);
        tokio::select! {
            () = self.clock.sleep_until(until) => {}
            () = &mut changed => {}
        }
    }

    /// How many requests of `priority` wait on the budget now (held by the share rule, or by
    /// an empty window); for a status line, and for tests to see work held.
    pub fn waiting(&self, priority: Priority) -> u32 {
        self.waiting[priority as usize].load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The clock this budget reads.
    pub fn clock(&self) -> &std::sync::Arc<dyn Clock> {
        &self.clock
    }

    /// One look: counts the request as sent and answers `Ok`, or answers when a slot is next
    /// expected. A user's request that has waited [`MAX_USER_WAIT`] goes.
    /// `Err(None)`: the budget is shared now (checked under the state's lock, which
    /// [`Budget::share`] holds while it takes the sends so far).
    fn try_admit(
        &self,
        priority: Priority,
        now: Instant,
        waited: Duration,
    ) -> Result<(), Option<Instant>> {
        let mut st = self.lock();
        if self.ledger().is_some() {
            return Err(None);
        }
        st.prune(now);
        let go = match (priority, st.left(now)) {
            (_, None) => true,
            (Priority::User, Some(left)) => left > 0 || waited >= MAX_USER_WAIT,
            (Priority::Background, Some(left)) => {
                let spent = st.sent_within(now, Some(Priority::Background));
                background_may_send(left, spent, reserve(st.limit))
            }
        };
        if !go {
            return Err(Some(st.next_free(now)));
        }
        st.sends.push_back((now, priority));
        st.in_flight = st.in_flight.saturating_add(1);
        if let Some(t) = &mut st.told {
            t.sent_since = t.sent_since.saturating_add(1);
        }
        Ok(())
    }

    /// An answer's headers (and whether it was a 429, with the `Retry-After` it asked for).
    pub fn heard(&self, headers: &HeaderMap, too_many: bool, now_unix: i64) {
        let now = self.clock.now();
        let heard = parse_headers(headers, now_unix);
        let ledger = self.ledger();
        let mut st = self.lock();
        let before = st.learned();
        match heard {
            Some((h, source)) => {
                if st.source != source {
                    // What another source said (or a 429's count) is not this one's window.
                    st.window = None;
                    st.window_said = false;
                }
                st.source = source;
                if let Some(l) = h.limit {
                    st.limit = Some(l);
                }
                if let Some(w) = h.window {
                    st.window = Some(w);
                    st.window_said = true;
                } else if let Some(r) = h.reset.filter(|r| !r.is_zero())
                    && !st.window_said
                    && st.source_was_heard()
                {
                    st.window = Some(st.window.map_or(r, |w| w.max(r)));
                }
                if let Some(r) = h.remaining {
                    let reset = h.reset.unwrap_or_else(|| st.window());
                    st.told = Some(Told {
                        remaining: r,
                        reset_at: now + reset,
                        // The others in flight may not be in `r` yet.
                        sent_since: st.in_flight.saturating_sub(1),
                    });
                }
            }
            // Shared: the ledger counts every process's requests of that minute.
            None if too_many
                && ledger.is_none()
                && matches!(st.source, Source::Unknown | Source::TooManyRequests) =>
            {
                // The requests of the last minute, less this one, were what it allowed.
                st.prune(now);
                let w = DEFAULT_WINDOW;
                let sent = st
                    .sends
                    .iter()
                    .filter(|(t, _)| now.duration_since(*t) < w)
                    .count() as u32;
                // A 429 after a few requests says more of the service (a key shared with
                // others, a fault) than of a budget: only the Retry-After is heeded.
                let limit = sent.saturating_sub(1);
                if limit >= MIN_LEARNED {
                    st.limit = Some(st.limit.map_or(limit, |l| l.min(limit)));
                    st.window = Some(w);
                    st.source = Source::TooManyRequests;
                }
            }
            None => {}
        }
        if st.learned() != before {
            st.version += 1;
        }
        let news = shared::News {
            learned: st.learned().filter(|_| st.source_was_heard()),
            remaining: heard.and_then(|(h, _)| {
                h.remaining
                    .map(|r| (r, h.reset.unwrap_or_else(|| st.window())))
            }),
            count_at_429: too_many && heard.is_none(),
            pause: None,
        };
        drop(st);
        if let Some(ledger) = ledger
            && (news.learned.is_some() || news.remaining.is_some() || news.count_at_429)
        {
            let at = self.clock.unix_ms();
            off_thread(move || ledger.heard(news, at));
        }
        self.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests;
