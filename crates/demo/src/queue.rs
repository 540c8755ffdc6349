//! The live queue at the head of the demo data: a few conversations waiting for a first
//! response at ages spread around [`QUEUE_TARGET_SECS`] (most within it, some imminent, a few
//! breaching) among recent ones agents already took. [`super::data`] lays it over the newest
//! conversations and gives everyone older who would wait an agent, as in a real inbox; churn
//! ([`super::churn`]) keeps the mix going with arrivals and pick-ups of the longest waiting.

/// The first-response target (seconds) the live queue is shaped around; `convo --demo` sets
/// it as its target (with imminent from half of it).
pub const QUEUE_TARGET_SECS: i64 = 60;

/// The resolution target `--demo` shows (seconds): a day.
pub const RESOLUTION_SECS: i64 = 24 * 3600;

/// The targets `--demo` shows when the config sets none. The first response is short, because
/// the demo's queue moves in seconds (a new conversation every 10 s): a new one is imminent
/// after 30 s and breaching after a minute, so every state is on screen within a minute. The
/// demo data's live queue is shaped around this first-response target
/// ([`QUEUE_TARGET_SECS`]): it opens with conversations in each state; nobody older waits.
/// Resolution is a day, as a real desk's: what was opened today is within it (imminent after
/// 12 hours), and only what has stayed open for more than a day is over.
pub fn targets() -> convo_engine::sla::Sla {
    convo_engine::sla::Sla {
        base: convo_engine::sla::Policy {
            first_response: Some(QUEUE_TARGET_SECS),
            resolution: Some(RESOLUTION_SECS),
            warn_at: 0.5,
            ..convo_engine::sla::Policy::default()
        },
        ..convo_engine::sla::Sla::default()
    }
}

/// [`targets`] as a config file's `[sla]` table (what `convo demo-server` writes for
/// `convo --config`).
pub fn targets_toml() -> String {
    format!(
        "# The demo server's targets, as `convo --demo` has them (written by convo demo-server).\n\
         [sla]\nfirst_response = \"{QUEUE_TARGET_SECS}s\"\nwarn_at = 0.5\nresolution = \"{RESOLUTION_SECS}s\"\n"
    )
}

/// What one conversation of the live queue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Open and unassigned: it waits.
    Waiting,
    /// Taken by an agent, with this status.
    Taken(&'static str),
}

/// The live queue: a kind and an age range in hundredths of the target each. Interleaved, so
/// that a small data set (which gets only the first ones) still has each state. With the
/// demo's target (60 s, imminent from 30 s) the waiting ones are: four within target (one
/// under the first bar's 7 s), two imminent, three breaching (1m–3m, 3m–12m, over 12m): every
/// bar of the wait histogram has one.
const SLOTS: &[(Kind, u64, u64)] = &[
    (Kind::Waiting, 3, 11),
    (Kind::Waiting, 55, 70),
    (Kind::Waiting, 125, 280),
    (Kind::Taken("open"), 30, 100),
    (Kind::Waiting, 15, 35),
    (Kind::Waiting, 75, 92),
    (Kind::Waiting, 320, 1100),
    (Kind::Taken("open"), 100, 500),
    (Kind::Waiting, 25, 45),
    (Kind::Waiting, 1250, 2000),
    (Kind::Taken("pending"), 200, 900),
    (Kind::Waiting, 12, 40),
    (Kind::Taken("open"), 500, 1500),
    (Kind::Taken("closed"), 600, 1800),
    (Kind::Taken("open"), 900, 2200),
    (Kind::Taken("closed"), 1200, 2400),
];

/// How many conversations the live queue of a data set of `n` conversations has (the newest).
pub(crate) fn len(n: usize) -> usize {
    SLOTS.len().min(n / 2)
}

/// The live queue for a data set of `n` conversations (at most half of them): what each is
/// and its age in seconds (at least 1), drawn with `below` (uniform in `0..n`).
pub(crate) fn plan(n: usize, mut below: impl FnMut(u64) -> u64) -> Vec<(Kind, i64)> {
    SLOTS
        .iter()
        .take(n / 2)
        .map(|&(kind, lo, hi)| {
            let hundredths = (lo + below(hi - lo)) as i64;
            (kind, (hundredths * QUEUE_TARGET_SECS / 100).max(1))
        })
        .collect()
}

#[cfg(test)]
mod target_tests {
    use crate::data::REFERENCE_TIME;
    use convo_engine::sla::{State, state};

    /// Issue 32 §10: with a 30-minute resolution target most open rows of the demo were
    /// "over", even those opened an hour ago. Nothing opened within a working day is over;
    /// the last two days show every state.
    #[test]
    fn the_demo_resolution_target_puts_only_what_is_open_for_more_than_a_day_over() {
        let ds = crate::dataset(42, 5000, 1500);
        let t = super::targets();
        let (target, warn) = (t.base.resolution.expect("a target"), t.base.warn_at);
        let now: jiff::Timestamp = REFERENCE_TIME.parse().unwrap();
        let mut seen = std::collections::HashSet::new();
        for c in ds.conversations.iter().filter(|c| c.status != "closed") {
            let age = c.created_at.duration_until(now).as_secs();
            let s = state(age, target, warn);
            if age < 8 * 3600 {
                assert_ne!(s, State::Breaching, "open for {age}s and over");
            }
            if age < 2 * 24 * 3600 {
                seen.insert(s);
            }
        }
        assert_eq!(seen.len(), 3, "{seen:?}");
    }
}
