//! UTC seconds read and written without a calendar library: the one form servers send almost
//! always, `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, UTC, years 1970 to 9999); anything else goes through
//! jiff. They give exactly what jiff gives (tested against it): on long walks, parsing and
//! printing timestamps through jiff was a large part of `convo list`'s time.

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's `days_from_civil`).
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

pub(crate) fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        _ => 31,
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` with valid fields and a year from 1970, else `None`.
pub(crate) fn parse_utc_seconds(s: &str) -> Option<jiff::Timestamp> {
    let b = s.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        b[from..to].iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    let (y, mo, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (h, mi, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if y < 1970 || !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) {
        return None;
    }
    if h > 23 || mi > 59 || sec > 59 {
        return None; // leap seconds and the like: jiff decides
    }
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec;
    jiff::Timestamp::from_second(secs).ok()
}

/// The RFC 3339 text of a whole-second instant from 1970 to 9999, as jiff prints it.
pub(crate) fn format_utc_seconds(t: jiff::Timestamp) -> Option<[u8; 20]> {
    if t.subsec_nanosecond() != 0 {
        return None;
    }
    let secs = t.as_second();
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    if !(1970..=9999).contains(&y) {
        return None;
    }
    let sod = secs.rem_euclid(86_400);
    let mut out = *b"0000-00-00T00:00:00Z";
    // Two digits at a time from a table (every value below is in 0..100).
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839404142434445464748495051525354555657585960616263\
        646566676869707172737475767778798081828384858687888990919293949596979899";
    let mut put = |at: usize, v: i64| {
        let v = v as usize * 2;
        out[at..at + 2].copy_from_slice(&PAIRS[v..v + 2]);
    };
    put(0, y / 100);
    put(2, y % 100);
    put(5, mo);
    put(8, d);
    put(11, sod / 3600);
    put(14, sod / 60 % 60);
    put(17, sod % 60);
    Some(out)
}
