//! Property tests of the response-time arithmetic (issue 13): state is monotone in time, the
//! business-hours clock never counts closed hours (checked against a minute-by-minute count in
//! the time zone), and DST changes are counted as the wall clock has them.

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use proptest::prelude::*;

use convo::sla::{BusinessHours, Policy, State, state};

use crate::common::cases as config;

/// Zones with DST at different hours and sizes (Lord Howe moves by 30 minutes), and without.
const ZONES: [&str; 6] = [
    "Europe/Lisbon",
    "America/New_York",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "America/Santiago",
    "UTC",
];

/// DST changes of 2026 (UTC) in those zones: spans are drawn around them.
const CHANGES: [&str; 6] = [
    "2026-03-29T01:00:00Z",
    "2026-10-25T01:00:00Z",
    "2026-03-08T07:00:00Z",
    "2026-11-01T06:00:00Z",
    "2026-04-04T15:00:00Z",
    "2026-10-03T15:30:00Z",
];

/// Whole hours that no zone above has a DST change at (local): 00:00, 03:00 … 24:00.
fn hour() -> impl Strategy<Value = u32> {
    prop_oneof![2 => Just(0u32), 1 => 3u32..=24, 1 => Just(24u32)]
}

/// A business-hours spec with one or two parts, whole-hour windows.
fn spec() -> impl Strategy<Value = String> {
    // Mon-Sun is listed twice: drawn twice as often as each other spec.
    let days = prop::sample::select(
        "Mon-Sun Mon-Fri Mon-Sun Sat-Mon Sun Tue/Thu"
            .split(' ')
            .collect::<Vec<_>>(),
    );
    (days, hour(), hour(), prop::option::of((hour(), hour()))).prop_filter_map(
        "a window opens before it closes",
        |(d, a, b, extra)| {
            let (o, c) = (a.min(b), a.max(b));
            if o == c || o == 24 {
                return None;
            }
            let mut s = format!("{d} {o:02}:00-{c:02}:00");
            if let Some((x, y)) = extra {
                let (o, c) = (x.min(y), x.max(y));
                if o != c && o != 24 {
                    s.push_str(&format!(", Sat {o:02}:00-{c:02}:00"));
                }
            }
            Some(s)
        },
    )
}

fn zone() -> impl Strategy<Value = TimeZone> {
    prop::sample::select(&ZONES[..]).prop_map(|z| TimeZone::get(z).expect("zone in tzdb"))
}

/// A minute-aligned instant from three days before a DST change to a day after it.
fn near_change() -> impl Strategy<Value = Timestamp> {
    (prop::sample::select(&CHANGES[..]), -3 * 1440i64..1440).prop_map(|(c, m)| {
        let t: Timestamp = c.parse().expect("a timestamp");
        t.checked_add(SignedDuration::from_mins(m))
            .expect("in range")
    })
}

/// Seconds of `[from, to)` whose local time falls in `spec`'s window of that weekday, counted
/// one minute at a time: the clock as a person would keep it.
fn oracle(spec: &str, tz: &TimeZone, from: Timestamp, to: Timestamp) -> i64 {
    let mut windows: [Option<(i64, i64)>; 7] = [None; 7];
    for part in spec.split(", ") {
        let (days, times) = part.split_once(' ').expect("days and times");
        let (o, c) = times.split_once('-').expect("a range");
        let h = |s: &str| s[..2].parse::<i64>().expect("hour") * 60;
        let w = Some((h(o), h(c)));
        let idx = |d: &str| {
            ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
                .iter()
                .position(|x| *x == d)
                .expect("a day")
        };
        for piece in days.split('/') {
            match piece.split_once('-') {
                Some((a, b)) => {
                    let (mut d, b) = (idx(a), idx(b));
                    loop {
                        windows[d] = w;
                        if d == b {
                            break;
                        }
                        d = (d + 1) % 7;
                    }
                }
                None => windows[idx(piece)] = w,
            }
        }
    }
    let mut t = from;
    let mut n = 0;
    while t < to {
        let z = t.to_zoned(tz.clone());
        let minute = i64::from(z.hour()) * 60 + i64::from(z.minute());
        if let Some((o, c)) = windows[z.weekday().to_monday_zero_offset() as usize]
            && o <= minute
            && minute < c
        {
            n += 60;
        }
        t = t
            .checked_add(SignedDuration::from_mins(1))
            .expect("in range");
    }
    n
}

proptest! {
    #![proptest_config(config(64))]

    /// Business time equals the minute-by-minute count in the zone, across DST changes: the
    /// clock never counts a closed minute and never skips an open one.
    #[test]
    fn business_clock_counts_exactly_the_open_minutes(
        spec in spec(),
        tz in zone(),
        from in near_change(),
        mins in 0i64..3 * 1440,
    ) {
        let h = BusinessHours::parse(&spec, tz.clone()).expect("spec parses");
        let to = from.checked_add(SignedDuration::from_mins(mins)).expect("in range");
        prop_assert_eq!(h.elapsed(from, to), oracle(&spec, &tz, from, to), "{} in {:?}", spec, tz.iana_name());
        prop_assert!(h.elapsed(from, to) <= mins * 60);
    }

    /// A clock that is closed at every minute of a span does not move over it.
    #[test]
    fn closed_minutes_add_nothing(
        spec in spec(),
        tz in zone(),
        from in near_change(),
        mins in 1i64..1440,
    ) {
        let h = BusinessHours::parse(&spec, tz).expect("spec parses");
        let to = from.checked_add(SignedDuration::from_mins(mins)).expect("in range");
        let mut t = from;
        let mut before = h.elapsed(from, t);
        while t < to {
            let next = t.checked_add(SignedDuration::from_mins(1)).expect("in range");
            let now = h.elapsed(from, next);
            if h.is_open(t) {
                prop_assert_eq!(now - before, 60);
            } else {
                prop_assert_eq!(now, before, "the clock ran at {} while closed", t);
            }
            before = now;
            t = next;
        }
    }

    /// Later never looks better: elapsed grows, time left shrinks, state only worsens, with and
    /// without business hours.
    #[test]
    fn state_is_monotone_in_time(
        spec in prop::option::of(spec()),
        tz in zone(),
        from in near_change(),
        a in 0i64..40 * 86_400,
        b in 0i64..40 * 86_400,
        target in 1i64..10 * 86_400,
        warn_at in 0.05f64..=1.0,
    ) {
        let hours = spec.map(|s| std::sync::Arc::new(BusinessHours::parse(&s, tz).expect("spec parses")));
        let p = Policy { first_response: Some(target), resolution: None, warn_at, hours };
        let (a, b) = (a.min(b), a.max(b));
        let at = |s: i64| from.checked_add(SignedDuration::from_secs(s)).expect("in range");
        let (da, db) = (p.due(target, from, at(a)), p.due(target, from, at(b)));
        prop_assert!(da.elapsed_secs <= db.elapsed_secs);
        prop_assert!(da.due_secs >= db.due_secs);
        prop_assert!(da.state <= db.state);
        prop_assert_eq!(db.due_secs, target - db.elapsed_secs);
        prop_assert_eq!(db.state == State::Breaching, db.due_secs <= 0);
    }

    /// Imminent exactly from `warn_at` of the target (rounded up), breaching from the target.
    #[test]
    fn thresholds(elapsed in 0i64..100_000, target in 1i64..50_000, warn_at in 0.05f64..=1.0) {
        let s = state(elapsed, target, warn_at);
        let warn = (warn_at * target as f64).ceil() as i64;
        let want = if elapsed >= target {
            State::Breaching
        } else if elapsed >= warn {
            State::Imminent
        } else {
            State::Ok
        };
        prop_assert_eq!(s, want);
    }
}
