//! Business hours: `"Mon-Fri 09:00-18:00"` in a time zone, and the clock that only runs inside
//! them.
//!
//! A window is local (civil) time on a weekday; its ends are turned into instants the way jiff's
//! `Zoned` does ("compatible": a time in a DST gap moves forward by the gap, a time in a fold
//! takes the earlier instant). So a window that spans a DST change is 1 h shorter or longer in
//! real time, as a clock on the office wall would have it.

use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

/// Days further back than this from "now" are counted at their nominal (civil) length a week
/// at a time, not day by day: exact but for DST changes inside a window more than two years
/// ago, and it keeps an ancient conversation from costing a loop over every day since.
const EXACT_DAYS: i64 = 732;

/// When the clock runs: at most one window per weekday, in a time zone.
#[derive(Debug, Clone, PartialEq)]
pub struct BusinessHours {
    /// Monday first; `(open, close)` in seconds after local midnight, `open < close <= 86_400`.
    windows: [Option<(u32, u32)>; 7],
    tz: TimeZone,
    /// The spec as written (trimmed), for messages.
    spec: String,
}

/// Why a `business_hours` value is refused (the message names the part at fault).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HoursError(String);

const DAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// A weekday, Monday = 0: `Mon`, `monday` (any case).
fn day(s: &str) -> Option<usize> {
    const FULL: [&str; 7] = [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ];
    let s = s.trim().to_ascii_lowercase();
    (0..7).find(|&i| s == DAYS[i] || s == FULL[i])
}

/// `HH:MM` (or `24:00` for the end of the day) as seconds after midnight.
fn clock(s: &str) -> Option<u32> {
    let (h, m) = s.trim().split_once(':')?;
    if h.is_empty() || h.len() > 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    match (h, m) {
        (24, 0) => Some(86_400),
        (0..=23, 0..=59) => Some(h * 3600 + m * 60),
        _ => None,
    }
}

impl BusinessHours {
    /// Parses `"Mon-Fri 09:00-18:00"`; several parts are separated by `,` or `;`
    /// (`"Mon-Fri 09:00-18:00, Sat 10:00-14:00"`), days as ranges (`Mon-Fri`) or lists
    /// (`Mon/Wed`). A later part wins for a day named twice. Windows end on the day they start
    /// (`24:00` is the end of the day).
    pub fn parse(spec: &str, tz: TimeZone) -> Result<BusinessHours, HoursError> {
        let err = |m: String| HoursError(m);
        let mut windows = [None; 7];
        let mut any = false;
        for part in spec.split([',', ';']).map(str::trim) {
            if part.is_empty() {
                continue;
            }
            let (days, times) = part.split_once(char::is_whitespace).ok_or_else(|| {
                err(format!(
                    "{part:?} is not DAYS HH:MM-HH:MM (e.g. \"Mon-Fri 09:00-18:00\")"
                ))
            })?;
            let (o, c) = times.trim().split_once('-').ok_or_else(|| {
                err(format!(
                    "{:?} is not a time range HH:MM-HH:MM",
                    times.trim()
                ))
            })?;
            let bad_time = |t: &str| {
                err(format!(
                    "{:?} is not a time HH:MM (00:00 to 24:00)",
                    t.trim()
                ))
            };
            let open = clock(o)
                .filter(|&s| s < 86_400)
                .ok_or_else(|| bad_time(o))?;
            let close = clock(c).ok_or_else(|| bad_time(c))?;
            if close <= open {
                return Err(err(format!(
                    "{:?} closes before it opens (a window ends on the day it starts; use 24:00 for midnight)",
                    times.trim()
                )));
            }
            let bad_day = |d: &str| err(format!("{:?} is not a day (Mon, Tue, … Sun)", d.trim()));
            for piece in days.split('/') {
                let (a, b) = match piece.split_once('-') {
                    Some((a, b)) => (
                        day(a).ok_or_else(|| bad_day(a))?,
                        day(b).ok_or_else(|| bad_day(b))?,
                    ),
                    None => {
                        let d = day(piece).ok_or_else(|| bad_day(piece))?;
                        (d, d)
                    }
                };
                // A range may wrap past Sunday (Sat-Mon).
                let mut d = a;
                loop {
                    windows[d] = Some((open, close));
                    if d == b {
                        break;
                    }
                    d = (d + 1) % 7;
                }
                any = true;
            }
        }
        if !any {
            return Err(err("no days given (e.g. \"Mon-Fri 09:00-18:00\")".into()));
        }
        Ok(BusinessHours {
            windows,
            tz,
            spec: spec.trim().to_string(),
        })
    }

    /// The spec and zone, e.g. `Mon-Fri 09:00-18:00 (Europe/Lisbon)`.
    pub fn describe(&self) -> String {
        format!(
            "{} ({})",
            self.spec,
            self.tz.iana_name().unwrap_or("the system's time zone")
        )
    }

    /// The time zone the windows are read in.
    pub fn tz(&self) -> &TimeZone {
        &self.tz
    }

    /// The window of `date` as instants, if that weekday has one.
    fn window(&self, date: Date) -> Option<(Timestamp, Timestamp)> {
        let (open, close) = self.windows[date.weekday().to_monday_zero_offset() as usize]?;
        let at = |d: Date, secs: u32| {
            let t = Time::new((secs / 3600) as i8, (secs / 60 % 60) as i8, 0, 0).ok()?;
            self.tz
                .to_ambiguous_timestamp(d.to_datetime(t))
                .compatible()
                .ok()
        };
        let o = at(date, open)?;
        let c = if close == 86_400 {
            at(date.tomorrow().ok()?, 0)?
        } else {
            at(date, close)?
        };
        Some((o, c))
    }

    /// Nominal seconds of business time in a week (civil lengths, DST ignored).
    fn week_secs(&self) -> i64 {
        self.windows
            .iter()
            .flatten()
            .map(|(o, c)| i64::from(c - o))
            .sum()
    }

    /// Whether the clock runs at `t`.
    pub fn is_open(&self, t: Timestamp) -> bool {
        let d = t.to_zoned(self.tz.clone()).date();
        [d.yesterday().ok(), Some(d)]
            .into_iter()
            .flatten()
            .filter_map(|d| self.window(d))
            .any(|(o, c)| o <= t && t < c)
    }

    /// Business seconds from `from` to `to` (0 when `to <= from`).
    pub fn elapsed(&self, from: Timestamp, to: Timestamp) -> i64 {
        if to <= from {
            return 0;
        }
        let first = from.to_zoned(self.tz.clone()).date();
        let last = to.to_zoned(self.tz.clone()).date();
        let days_between = |a: Date, b: Date| b.since(a).map_or(0, |s| i64::from(s.get_days()));
        let mut d = first.yesterday().unwrap_or(first);
        let mut sum = 0i64;
        while d <= last {
            // Whole weeks beyond the exact horizon (never the first, partial days).
            let far = days_between(d, last) - EXACT_DAYS;
            if d > first && far >= 7 {
                let weeks = far / 7;
                sum += weeks * self.week_secs();
                match d.checked_add(jiff::Span::new().days(weeks * 7)) {
                    Ok(next) => d = next,
                    Err(_) => break,
                }
                continue;
            }
            if let Some((o, c)) = self.window(d) {
                let (a, b) = (o.max(from), c.min(to));
                if b > a {
                    sum += b.duration_since(a).as_secs();
                }
            }
            match d.tomorrow() {
                Ok(next) => d = next,
                Err(_) => break,
            }
        }
        sum
    }

    /// The instant at which `secs` business seconds will have run after `from` (for "due at"),
    /// searching at most a year ahead.
    pub fn add(&self, from: Timestamp, secs: i64) -> Option<Timestamp> {
        let mut left = secs.max(0);
        let mut d = from.to_zoned(self.tz.clone()).date().yesterday().ok()?;
        for _ in 0..400 {
            if let Some((o, c)) = self.window(d) {
                let a = o.max(from);
                if c > a {
                    let len = c.duration_since(a).as_secs();
                    if left <= len {
                        return a.checked_add(SignedDuration::from_secs(left)).ok();
                    }
                    left -= len;
                }
            }
            d = d.tomorrow().ok()?;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lisbon(spec: &str) -> BusinessHours {
        BusinessHours::parse(spec, TimeZone::get("Europe/Lisbon").unwrap()).unwrap()
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn parses_ranges_lists_and_refuses_nonsense() {
        let h = lisbon("Mon-Fri 09:00-18:00, Sat 10:00-14:00");
        assert_eq!(h.week_secs(), 5 * 9 * 3600 + 4 * 3600);
        assert_eq!(lisbon("Sat-Mon 00:00-24:00").week_secs(), 3 * 86_400);
        assert_eq!(lisbon("mon/wed/Friday 08:30-12:00").week_secs(), 3 * 12_600);
        let tz = TimeZone::UTC;
        for bad in [
            "",
            "Mon-Fri",
            "Mon-Fri 9-18",
            "Mon-Fri 18:00-09:00",
            "Funday 09:00-10:00",
            "Mon 09:00-24:30",
            "Mon 24:00-24:00",
        ] {
            let e = BusinessHours::parse(bad, tz.clone());
            assert!(e.is_err(), "{bad:?} was accepted");
        }
        let e = BusinessHours::parse("Mon-Fri 18:00-09:00", tz).unwrap_err();
        assert!(e.to_string().contains("closes before it opens"), "{e}");
    }

    #[test]
    fn the_clock_stops_over_the_weekend_and_at_night() {
        let h = lisbon("Mon-Fri 09:00-18:00");
        // Friday 17:55 (winter, UTC+0) to Monday 09:05: 10 minutes of business time.
        assert_eq!(
            h.elapsed(ts("2026-01-09T17:55:00Z"), ts("2026-01-12T09:05:00Z")),
            600
        );
        // Summer (UTC+1): 09:00 local is 08:00Z.
        assert_eq!(
            h.elapsed(ts("2026-07-06T07:00:00Z"), ts("2026-07-06T08:30:00Z")),
            1800
        );
        assert!(!h.is_open(ts("2026-07-06T07:59:59Z")));
        assert!(h.is_open(ts("2026-07-06T08:00:00Z")));
        assert_eq!(
            h.add(ts("2026-01-09T17:55:00Z"), 600),
            Some(ts("2026-01-12T09:05:00Z"))
        );
    }

    #[test]
    fn a_window_across_the_spring_change_is_an_hour_shorter() {
        // Lisbon, 2026-03-29: 01:00 becomes 02:00. 00:00-03:00 local lasts two real hours.
        let h = lisbon("Sun 00:00-03:00");
        assert_eq!(
            h.elapsed(ts("2026-03-28T00:00:00Z"), ts("2026-03-30T00:00:00Z")),
            7200
        );
        // And the autumn one (2026-10-25, 02:00 becomes 01:00) an hour longer.
        assert_eq!(
            h.elapsed(ts("2026-10-24T00:00:00Z"), ts("2026-10-26T00:00:00Z")),
            4 * 3600
        );
    }

    #[test]
    fn years_back_cost_weeks_not_days_and_stay_close() {
        let h = lisbon("Mon-Fri 09:00-18:00");
        let to = ts("2026-07-06T12:00:00Z");
        let from = ts("2016-07-04T08:00:00Z");
        let e = h.elapsed(from, to);
        // About 522 weeks of 45 h: within a day of business time of the nominal count.
        let nominal = 522 * 45 * 3600;
        assert!((e - nominal).abs() < 86_400, "{e} vs {nominal}");
    }
}
