//! Test-only switches of the real binary, read from the environment. This module exists only
//! in builds with the `testing` feature (as `cargo test` builds the library and the binary
//! its pty tests spawn); a shipped build has neither the module nor the switches.
//!
//! - `CONVO_TEST_PANIC`: `1` (any other non-empty value) panics at the first draw; `fetch`
//!   makes the next fetch task panic; `stall` makes the browser loop stop answering after its
//!   first frame (the main thread sleeps for ever, as when the terminal's reader never returns).
//!   To check that the terminal is restored, that a panicking task becomes an error on screen,
//!   and that a stop signal ends convo even when the loop does not answer.
//! - `CONVO_NOW`: the clock of `convo summary` (RFC 3339), for stable ages.
//! - `CONVO_TEST_SLOW_START`: milliseconds the browser's local start-up (terminal set-up,
//!   store, first frame) is made to take longer, as on a slow terminal or disk: to check that
//!   the first page's connection is opened during it, not after.
//! - `CONVO_TEST_LEASE_MS`: the length of the visitor walk's lease in the store (a minute
//!   otherwise), so a test sees a stopped holder's lease expire without waiting a minute.

/// The variable of [`panic_at`].
pub const PANIC_ENV: &str = "CONVO_TEST_PANIC";
/// The variable of [`now`].
pub const NOW_ENV: &str = "CONVO_NOW";
/// The variable of [`lease`].
pub const LEASE_ENV: &str = "CONVO_TEST_LEASE_MS";
/// The variable of [`slow_start`].
pub const SLOW_START_ENV: &str = "CONVO_TEST_SLOW_START";

/// How much longer `CONVO_TEST_SLOW_START` makes the browser's local start-up (unset, empty
/// or not a number of milliseconds: none).
pub fn slow_start() -> Option<std::time::Duration> {
    let ms: u64 = std::env::var(SLOW_START_ENV).ok()?.trim().parse().ok()?;
    Some(std::time::Duration::from_millis(ms))
}

/// The visitor walk's lease as `CONVO_TEST_LEASE_MS` sets it (unset or not a number: the
/// usual minute).
pub fn lease() -> Option<std::time::Duration> {
    let ms: u64 = std::env::var(LEASE_ENV).ok()?.trim().parse().ok()?;
    Some(std::time::Duration::from_millis(ms))
}

/// Where `CONVO_TEST_PANIC` makes the binary panic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanicAt {
    /// At the first draw, in the UI task.
    Draw,
    /// Inside the next fetch task the runtime spawns (once).
    Fetch,
    /// Not a panic: after the first frame the browser loop never comes back.
    Stall,
}

/// Where the binary should panic, if `CONVO_TEST_PANIC` asks (unset or empty: nowhere).
pub fn panic_at() -> Option<PanicAt> {
    let v = std::env::var(PANIC_ENV).ok()?;
    match v.trim() {
        "" => None,
        "fetch" => Some(PanicAt::Fetch),
        "stall" => Some(PanicAt::Stall),
        _ => Some(PanicAt::Draw),
    }
}

/// The instant `CONVO_NOW` sets, if it is set; `Err` says why it does not parse.
pub fn now() -> Option<Result<jiff::Timestamp, String>> {
    let v = std::env::var(NOW_ENV).ok()?;
    Some(v.trim().parse().map_err(|e| {
        format!(
            "{NOW_ENV}: {:?} is not an RFC 3339 time ({e})",
            convo_text::one_line(&v, 40)
        )
    }))
}
