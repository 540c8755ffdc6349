//! Response-time targets (docs/design.md "Response-time targets"): a conversation's state against
//! them (ok, imminent, breaching) and the time left or overdue, at a given "now".
//!
//! Pure: no I/O, no UI, `now` is a parameter. Shared by the TUI, `convo summary` and
//! `convo list`. A conversation *waits* while it is open and unassigned, from `createdAt`;
//! `first_response` is the target for waiting. `resolution` is the target for not being closed,
//! from `createdAt`. Imminent from `warn_at` × target, breaching from the target on. With
//! business hours the clock only runs inside them ([`hours`]). These are approximations from
//! list data alone: the list does not say when a conversation was first answered or reopened.
//!
//! - [`hours`]: business hours and their clock.

pub mod hours;

use std::collections::HashMap;
use std::sync::Arc;

use jiff::Timestamp;
use uuid::Uuid;

use convo_api::{Conversation, Status};
pub use hours::{BusinessHours, HoursError};

/// The default `warn_at`: imminent at 80 % of a target.
pub const DEFAULT_WARN_AT: f64 = 0.8;

/// A conversation's standing against one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    /// Less than `warn_at` of the target has run.
    Ok,
    /// At least `warn_at` of the target has run, not all of it.
    Imminent,
    /// The target has run out.
    Breaching,
}

impl State {
    /// The lower-case name, as in JSON and CSV.
    pub fn name(self) -> &'static str {
        match self {
            State::Ok => "ok",
            State::Imminent => "imminent",
            State::Breaching => "breaching",
        }
    }

    /// A mark before the time when colour is off (NO_COLOR): `"  "`, `"! "`, `"!!"`, so the
    /// times stay aligned (ASCII: one cell each on every terminal).
    pub fn symbol(self) -> &'static str {
        match self {
            State::Ok => "  ",
            State::Imminent => "! ",
            State::Breaching => "!!",
        }
    }
}

/// Which target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// Waiting (open and unassigned) from `createdAt`.
    FirstResponse,
    /// Not closed, from `createdAt`.
    Resolution,
}

/// Where a conversation stands against a target at "now".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due {
    pub state: State,
    /// Seconds of the target left (> 0) or overdue (< 0), in clock time (business seconds when
    /// business hours are set).
    pub due_secs: i64,
    /// Seconds the clock has run since `createdAt`.
    pub elapsed_secs: i64,
}

impl Due {
    /// "in 1m", "over 12m", "due now".
    pub fn label(&self) -> String {
        match self.due_secs {
            0 => "due now".into(),
            s if s > 0 => format!("in {}", short(s)),
            s => format!("over {}", short(s.saturating_neg())),
        }
    }
}

/// A span of seconds in its largest unit, floored: `45s`, `12m`, `3h`, `2d`.
pub fn short(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

/// The targets that apply to one site. `None`: not tracked.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Seconds (> 0) a conversation may wait.
    pub first_response: Option<i64>,
    /// Seconds (> 0) a conversation may stay not closed.
    pub resolution: Option<i64>,
    /// In (0, 1]: the share of a target at which it becomes imminent.
    pub warn_at: f64,
    /// When the clock runs; `None`: always.
    pub hours: Option<Arc<BusinessHours>>,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            first_response: None,
            resolution: None,
            warn_at: DEFAULT_WARN_AT,
            hours: None,
        }
    }
}

impl Policy {
    /// One line for `convo doctor`: `first response 5m, resolution 1d, imminent at 80 %, …`.
    pub fn describe(&self) -> String {
        let t = |v: Option<i64>| v.map_or_else(|| "not tracked".to_string(), short);
        let mut s = format!(
            "first response {}, resolution {}, imminent at {} %",
            t(self.first_response),
            t(self.resolution),
            (self.warn_at * 100.0).round()
        );
        if let Some(h) = &self.hours {
            s.push_str(&format!(", business hours {}", h.describe()));
        }
        s
    }

    /// The target's seconds, if tracked.
    pub fn target(&self, which: Target) -> Option<i64> {
        match which {
            Target::FirstResponse => self.first_response,
            Target::Resolution => self.resolution,
        }
    }

    /// Seconds the clock has run from `from` to `now`.
    pub fn elapsed(&self, from: Timestamp, now: Timestamp) -> i64 {
        match &self.hours {
            Some(h) => h.elapsed(from, now),
            None if now > from => now.duration_since(from).as_secs(),
            None => 0,
        }
    }

    /// The state of something that started at `from`, against `target` seconds.
    pub fn due(&self, target: i64, from: Timestamp, now: Timestamp) -> Due {
        let elapsed = self.elapsed(from, now);
        Due {
            state: state(elapsed, target, self.warn_at),
            due_secs: target.saturating_sub(elapsed),
            elapsed_secs: elapsed,
        }
    }
}

/// The state after `elapsed` seconds of `target`, imminent from `warn_at` × target (rounded up
/// to a whole second).
pub fn state(elapsed: i64, target: i64, warn_at: f64) -> State {
    let warn = (warn_at * target as f64).ceil() as i64;
    if elapsed >= target {
        State::Breaching
    } else if elapsed >= warn {
        State::Imminent
    } else {
        State::Ok
    }
}

/// The five edges (seconds) of the six wait-time bars: `< 1m`, `1–5m`, `5–15m`, `15m–1h`,
/// `1–4h` and `≥ 4h` when no first-response target is set; with a target T imminent from w·T, they are
/// w·T/4, w·T, T, 3·T and 12·T, so one bar is the imminent ones and the bars from T on are the
/// breaching ones.
pub fn wait_edges(first_response: Option<i64>, warn_at: f64) -> [i64; 5] {
    match first_response {
        None => [60, 300, 900, 3600, 4 * 3600],
        Some(t) => {
            let w = ((warn_at * t as f64).ceil() as i64).clamp(1, t);
            let quarter = (w / 4).max(1).min(w.saturating_sub(1).max(1));
            let mut e = [quarter, w, t, t.saturating_mul(3), t.saturating_mul(12)];
            // Strictly increasing, whatever the target.
            for i in 1..5 {
                if e[i] <= e[i - 1] {
                    e[i] = e[i - 1] + 1;
                }
            }
            e
        }
    }
}

/// The bar (0..6) a wait of `secs` falls in.
pub fn wait_bin(secs: i64, edges: &[i64; 5]) -> usize {
    edges.iter().take_while(|&&e| secs >= e).count()
}

/// The six bars' labels: `< 1m`, `1m–5m`, …, `> 4h`.
pub fn wait_labels(edges: &[i64; 5]) -> [String; 6] {
    std::array::from_fn(|i| match i {
        0 => format!("< {}", short(edges[0])),
        5 => format!("≥ {}", short(edges[4])),
        i => format!("{}–{}", short(edges[i - 1]), short(edges[i])),
    })
}

/// Whether a conversation waits for a first response: open and unassigned.
pub fn is_waiting(c: &Conversation) -> bool {
    c.status == Status::Open && c.assignee_id.is_none()
}

/// The targets of a profile: the `[sla]` table and its per-site overrides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sla {
    /// For every site without an override.
    pub base: Policy,
    /// Overrides, already laid over `base`.
    pub sites: HashMap<Uuid, Policy>,
}

impl Sla {
    /// Whether any target is set (for the base or a site).
    pub fn is_tracked(&self, which: Target) -> bool {
        self.base.target(which).is_some() || self.sites.values().any(|p| p.target(which).is_some())
    }

    /// Whether nothing is tracked at all.
    pub fn is_empty(&self) -> bool {
        !self.is_tracked(Target::FirstResponse) && !self.is_tracked(Target::Resolution)
    }

    /// The policy of a site.
    pub fn policy(&self, site: &Uuid) -> &Policy {
        self.sites.get(site).unwrap_or(&self.base)
    }

    /// Where `c` stands against `which` at `now`; `None` when that target is not tracked for
    /// its site, the conversation is not subject to it (not waiting; closed), or its
    /// `createdAt` could not be read.
    pub fn due(&self, which: Target, c: &Conversation, now: Timestamp) -> Option<Due> {
        let p = self.policy(&c.site_id);
        let target = p.target(which)?;
        let applies = match which {
            Target::FirstResponse => is_waiting(c),
            Target::Resolution => c.status != Status::Closed,
        };
        if !applies {
            return None;
        }
        let from = c.created_at.parsed()?;
        Some(p.due(target, from, now))
    }

    /// The first-response standing of `c` (see [`Sla::due`]).
    pub fn first_response(&self, c: &Conversation, now: Timestamp) -> Option<Due> {
        self.due(Target::FirstResponse, c, now)
    }

    /// The resolution standing of `c` (see [`Sla::due`]).
    pub fn resolution(&self, c: &Conversation, now: Timestamp) -> Option<Due> {
        self.due(Target::Resolution, c, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use convo_api::Timestamp as Stamp;

    fn conv(status: Status, assigned: bool, created: &str) -> Conversation {
        Conversation {
            id: Uuid::nil(),
            site_id: Uuid::nil(),
            visitor_id: Uuid::nil(),
            status,
            assignee_id: assigned.then(Uuid::nil),
            created_at: Stamp::parse(created),
            updated_at: Stamp::parse(created),
        }
    }

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn sla(first: Option<i64>, resolution: Option<i64>) -> Sla {
        Sla {
            base: Policy {
                first_response: first,
                resolution,
                ..Policy::default()
            },
            sites: HashMap::new(),
        }
    }

    #[test]
    fn waiting_conversation_goes_ok_imminent_breaching() {
        let s = sla(Some(300), None);
        let c = conv(Status::Open, false, "2026-11-23T10:00:00Z");
        let d = s.first_response(&c, at("2026-11-23T10:03:59Z")).unwrap();
        assert_eq!((d.state, d.due_secs), (State::Ok, 61));
        assert_eq!(d.label(), "in 1m");
        let d = s.first_response(&c, at("2026-11-23T10:04:00Z")).unwrap();
        assert_eq!((d.state, d.due_secs), (State::Imminent, 60));
        let d = s.first_response(&c, at("2026-11-23T10:05:00Z")).unwrap();
        assert_eq!((d.state, d.label().as_str()), (State::Breaching, "due now"));
        let d = s.first_response(&c, at("2026-11-23T10:17:30Z")).unwrap();
        assert_eq!(
            (d.state, d.label().as_str()),
            (State::Breaching, "over 12m")
        );
    }

    #[test]
    fn only_what_the_target_covers_is_tracked() {
        let s = sla(Some(300), Some(86_400));
        let now = at("2026-11-23T12:00:00Z");
        let assigned = conv(Status::Open, true, "2026-11-23T10:00:00Z");
        assert_eq!(s.first_response(&assigned, now), None);
        assert!(s.resolution(&assigned, now).is_some());
        let pending = conv(Status::Pending, false, "2026-11-23T10:00:00Z");
        assert_eq!(s.first_response(&pending, now), None);
        let closed = conv(Status::Closed, false, "2026-11-20T10:00:00Z");
        assert_eq!(s.resolution(&closed, now), None);
        let odd = conv(
            Status::Other("snoozed".into()),
            false,
            "2026-11-20T10:00:00Z",
        );
        assert_eq!(
            s.resolution(&odd, now).map(|d| d.state),
            Some(State::Breaching)
        );
        let raw = conv(Status::Open, false, "yesterday");
        assert_eq!(s.first_response(&raw, now), None);
        assert_eq!(
            sla(None, None).first_response(&conv(Status::Open, false, "2026-11-23T10:00:00Z"), now),
            None
        );
    }

    #[test]
    fn a_site_override_wins() {
        let mut s = sla(Some(300), None);
        let shop = Uuid::from_u128(7);
        s.sites.insert(
            shop,
            Policy {
                first_response: Some(60),
                ..Policy::default()
            },
        );
        let mut c = conv(Status::Open, false, "2026-11-23T10:00:00Z");
        let now = at("2026-11-23T10:02:00Z");
        assert_eq!(s.first_response(&c, now).unwrap().state, State::Ok);
        c.site_id = shop;
        assert_eq!(s.first_response(&c, now).unwrap().state, State::Breaching);
    }

    #[test]
    fn a_created_at_in_the_future_has_waited_nothing() {
        let s = sla(Some(300), None);
        let c = conv(Status::Open, false, "2026-11-23T10:00:00Z");
        let d = s.first_response(&c, at("2026-11-23T09:00:00Z")).unwrap();
        assert_eq!((d.state, d.due_secs, d.elapsed_secs), (State::Ok, 300, 0));
    }

    #[test]
    fn wait_bars_follow_the_target() {
        let e = wait_edges(None, 0.8);
        assert_eq!(e, [60, 300, 900, 3600, 14_400]);
        assert_eq!(wait_labels(&e)[0], "< 1m");
        assert_eq!(wait_labels(&e)[2], "5m–15m");
        assert_eq!(wait_labels(&e)[5], "≥ 4h");
        let e = wait_edges(Some(300), 0.8);
        assert_eq!(e, [60, 240, 300, 900, 3600]);
        assert_eq!(wait_bin(59, &e), 0);
        assert_eq!(wait_bin(240, &e), 2);
        assert_eq!(wait_bin(299, &e), 2);
        assert_eq!(wait_bin(300, &e), 3);
        assert_eq!(wait_bin(99_999, &e), 5);
        for t in [1, 2, 3, 5, 60] {
            let e = wait_edges(Some(t), 1.0);
            assert!(e.windows(2).all(|w| w[0] < w[1]), "{t}: {e:?}");
        }
    }

    #[test]
    fn short_spans() {
        assert_eq!(short(0), "0s");
        assert_eq!(short(59), "59s");
        assert_eq!(short(60), "1m");
        assert_eq!(short(3599), "59m");
        assert_eq!(short(7200), "2h");
        assert_eq!(short(3 * 86_400 + 5), "3d");
    }
}
