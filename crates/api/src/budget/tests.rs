use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::time::Instant;

use super::*;

const NOW: i64 = 1_764_000_000;

fn map(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (k, v) in pairs {
        h.append(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    h
}

fn secs(n: u64) -> Option<Duration> {
    Some(Duration::from_secs(n))
}

#[test]
fn the_current_draft_is_read() {
    let h = map(&[
        ("RateLimit-Policy", r#""default";q=120;w=60"#),
        ("RateLimit", r#""default";r=50;t=30"#),
    ]);
    let (heard, source) = parse_headers(&h, NOW).unwrap();
    assert_eq!(source, Source::RateLimit);
    assert_eq!(
        heard,
        Heard {
            limit: Some(120),
            window: secs(60),
            remaining: Some(50),
            reset: secs(30),
        }
    );
}

#[test]
fn of_several_policies_the_one_that_is_nearest_its_end_counts() {
    let h = map(&[
        (
            "RateLimit-Policy",
            r#""burst";q=100;w=60, "daily";q=1000;w=86400;qu="requests""#,
        ),
        ("RateLimit", r#""burst";r=80;t=20, "daily";r=7;t=3600"#),
    ]);
    let (heard, _) = parse_headers(&h, NOW).unwrap();
    assert_eq!(heard.remaining, Some(7));
    assert_eq!(heard.reset, secs(3600));
    assert_eq!((heard.limit, heard.window), (Some(1000), secs(86400)));
    // With no RateLimit: the policy with the fewest requests a second.
    let h = map(&[(
        "RateLimit-Policy",
        r#""burst";q=100;w=60, "day";q=1000;w=86400"#,
    )]);
    let (heard, _) = parse_headers(&h, NOW).unwrap();
    assert_eq!((heard.limit, heard.window), (Some(1000), secs(86400)));
}

#[test]
fn the_older_drafts_are_read() {
    // draft 07's dictionary and policy.
    let h = map(&[
        ("RateLimit", "limit=10, remaining=5, reset=30"),
        ("RateLimit-Policy", "10;w=1, 50;w=60"),
    ]);
    let (heard, source) = parse_headers(&h, NOW).unwrap();
    assert_eq!(source, Source::RateLimit);
    assert_eq!(
        heard,
        Heard {
            limit: Some(50),
            window: secs(60),
            remaining: Some(5),
            reset: secs(30),
        }
    );
    // The separate headers of the earlier drafts.
    let h = map(&[
        ("RateLimit-Limit", "120, 120;w=60"),
        ("RateLimit-Remaining", "119"),
        ("RateLimit-Reset", "59"),
    ]);
    let (heard, _) = parse_headers(&h, NOW).unwrap();
    assert_eq!(
        (heard.limit, heard.remaining, heard.reset),
        (Some(120), Some(119), secs(59))
    );
}

#[test]
fn x_ratelimit_is_read_with_its_reset_as_seconds_or_a_unix_time() {
    let h = map(&[
        ("X-RateLimit-Limit", "5000"),
        ("X-RateLimit-Remaining", "4999"),
        ("X-RateLimit-Reset", &(NOW + 600).to_string()),
    ]);
    let (heard, source) = parse_headers(&h, NOW).unwrap();
    assert_eq!(source, Source::XRateLimit);
    assert_eq!(
        heard,
        Heard {
            limit: Some(5000),
            window: None,
            remaining: Some(4999),
            reset: secs(600),
        }
    );
    let ms = map(&[
        ("X-RateLimit-Remaining", "3"),
        ("X-RateLimit-Reset", &((NOW + 9) * 1000).to_string()),
    ]);
    assert_eq!(parse_headers(&ms, NOW).unwrap().0.reset, secs(9));
    let delta = map(&[("X-RateLimit-Remaining", "3"), ("X-RateLimit-Reset", "42")]);
    assert_eq!(parse_headers(&delta, NOW).unwrap().0.reset, secs(42));
    // A reset in the past is now.
    let past = map(&[
        ("X-RateLimit-Remaining", "3"),
        ("X-RateLimit-Reset", "1700000000"),
    ]);
    assert_eq!(parse_headers(&past, NOW).unwrap().0.reset, secs(0));
}

#[test]
fn garbage_is_ignored_not_believed() {
    for pairs in [
        vec![("RateLimit", "\"default\";r=-5;t=x")],
        vec![("RateLimit", "lots")],
        vec![("RateLimit", r#""a;r=1"#)],
        vec![("RateLimit-Policy", r#""default";q=;w=60"#)],
        vec![("X-RateLimit-Limit", "12abc")],
        vec![("X-RateLimit-Remaining", "99999999999999999999999")],
        vec![("RateLimit-Limit", "")],
        vec![("X-RateLimit-Limit", "1e9")],
    ] {
        assert_eq!(parse_headers(&map(&pairs), NOW), None, "{pairs:?}");
    }
    // A limit past belief, a window past a day: capped or dropped.
    let h = map(&[("RateLimit-Policy", "\"p\";q=5;w=99999999999")]);
    assert_eq!(parse_headers(&h, NOW).unwrap().0.window, secs(24 * 3600));
    let h = map(&[("X-RateLimit-Limit", "20000000")]);
    assert_eq!(parse_headers(&h, NOW), None);
    // A value past 512 bytes is not read at all.
    let long = format!("\"p\";r=5;t=1{}", ", \"q\";r=9".repeat(60));
    assert_eq!(parse_headers(&map(&[("RateLimit", &long)]), NOW), None);
    // Not UTF-8: ignored.
    let mut h = HeaderMap::new();
    h.insert(
        HeaderName::from_static("ratelimit"),
        HeaderValue::from_bytes(b"\"p\";r=\xff").unwrap(),
    );
    assert_eq!(parse_headers(&h, NOW), None);
    // Quotes that hide separators are kept together.
    let h = map(&[("RateLimit", r#""a,b;c";r=3;t=4"#)]);
    assert_eq!(parse_headers(&h, NOW).unwrap().0.remaining, Some(3));
}

#[test]
fn the_share_rule_leaves_the_user_at_least_half_and_the_last_slots() {
    // 120 left, nothing spent: background may send 60, and the user keeps 60.
    assert_eq!(reserve(Some(120)), 12);
    let (mut left, mut spent) = (120, 0);
    while background_may_send(left, spent, reserve(Some(120))) {
        left -= 1;
        spent += 1;
    }
    assert_eq!((left, spent), (60, 60));
    assert_eq!(background_share(120, 0, 12), 60);
    // The user spent 100: of the 20 left, background may take 10 at most.
    assert_eq!(background_share(20, 0, 12), 8);
    assert!(background_may_send(20, 0, 12));
    assert!(!background_may_send(12, 0, 12), "the last slots");
    assert!(!background_may_send(0, 0, 0));
    assert!(!background_may_send(1, 0, 0));
    assert!(background_may_send(2, 0, 0));
    // Background already spent as much as is left: no more.
    assert!(!background_may_send(50, 49, 2));
    assert!(background_may_send(50, 48, 2));
}

#[test]
fn the_share_rule_never_spends_more_than_half_whatever_the_numbers() {
    for limit in [1u32, 2, 3, 10, 60, 120, 1000] {
        let r = reserve(Some(limit));
        for used_by_user in 0..=limit {
            let (mut left, mut spent) = (limit - used_by_user, 0);
            let start = left;
            while background_may_send(left, spent, r) {
                left -= 1;
                spent += 1;
            }
            assert!(spent <= start / 2, "{limit} {used_by_user}");
            assert!(left >= r.min(start), "{limit} {used_by_user}");
            assert_eq!(
                spent,
                background_share(start, 0, r),
                "{limit} {used_by_user}"
            );
        }
    }
}

#[tokio::test]
async fn background_stops_at_its_share_and_the_user_goes_on() {
    let b = Budget::new();
    let h = map(&[
        ("RateLimit-Policy", r#""default";q=40;w=60"#),
        ("RateLimit", r#""default";r=40;t=60"#),
    ]);
    b.heard(&h, false, NOW);
    let now = Instant::now();
    let mut bg = 0;
    while b
        .try_admit(Priority::Background, now, Duration::ZERO)
        .is_ok()
    {
        bg += 1;
    }
    assert_eq!(bg, 20);
    assert_eq!(b.snapshot().left, Some(20));
    assert_eq!(b.snapshot().background_left, Some(0));
    for _ in 0..20 {
        assert!(b.try_admit(Priority::User, now, Duration::ZERO).is_ok());
    }
    // None left: the user waits until the reset the service named, at most a minute.
    let free = b
        .try_admit(Priority::User, now, Duration::ZERO)
        .unwrap_err()
        .expect("not shared");
    assert!(free > now + Duration::from_secs(59), "{:?}", free - now);
    assert!(b.try_admit(Priority::User, now, MAX_USER_WAIT).is_ok());
}

#[tokio::test]
async fn a_429_without_headers_teaches_the_requests_of_the_minute_before() {
    // After a few requests a 429 teaches nothing (its Retry-After is waited, no more).
    let b = Budget::new();
    for _ in 0..MIN_LEARNED {
        b.try_admit(Priority::User, Instant::now(), Duration::ZERO)
            .unwrap();
    }
    b.heard(&HeaderMap::new(), true, NOW);
    assert_eq!(b.learned().0, None);
    let b = Budget::new();
    let now = Instant::now();
    for _ in 0..31 {
        b.try_admit(Priority::Background, now, Duration::ZERO)
            .unwrap();
    }
    assert_eq!(b.learned().0, None);
    b.heard(&HeaderMap::new(), false, NOW);
    assert_eq!(b.learned().0, None, "a plain answer teaches nothing");
    let v = b.learned().1;
    b.heard(&HeaderMap::new(), true, NOW);
    let (learned, v2) = b.learned();
    assert_eq!(
        learned,
        Some(Learned {
            limit: 30,
            window: Duration::from_secs(60),
            source: Source::TooManyRequests,
        })
    );
    assert!(v2 > v);
    // All 31 of the minute are still counted: nothing left, background waits.
    assert!(
        b.try_admit(Priority::Background, Instant::now(), Duration::ZERO)
            .is_err()
    );
    // Headers, when they come, win.
    b.heard(&map(&[("X-RateLimit-Limit", "500")]), false, NOW);
    assert_eq!(
        b.learned().0.map(|l| (l.limit, l.source)),
        Some((500, Source::XRateLimit))
    );
}

#[test]
fn a_seeded_budget_paces_from_the_start_until_the_service_says_otherwise() {
    let b = Budget::new();
    b.seed(Learned {
        limit: 10,
        window: Duration::from_secs(60),
        source: Source::RateLimit,
    });
    let s = b.snapshot();
    assert_eq!(
        (s.limit, s.left, s.background_left),
        (Some(10), Some(10), Some(5))
    );
    assert_eq!(
        s.line(),
        "10 requests per 60 s (RateLimit headers); 10 left; background work may send 5 more now"
    );
    assert_eq!(
        Budget::new().snapshot().line(),
        "not known yet: the service sent no RateLimit or X-RateLimit headers and no 429"
    );
}

/// 600 a minute, background work asking as fast as it may: it gets 300 (half, and never the
/// last tenth) at once, then nothing until they leave the window (60.5 s of the clock: a
/// window and the half second a request is counted longer), then 300 more; the user's
/// request meanwhile goes at once. Minutes of budget in milliseconds, on a `ManualClock`.
#[tokio::test]
async fn at_600_a_minute_background_work_gets_half_of_each_window() {
    use crate::clock::ManualClock;
    let clock = ManualClock::new();
    let b = Budget::with_clock(clock.clone());
    b.seed(Learned {
        limit: 600,
        window: Duration::from_secs(60),
        source: Source::RateLimit,
    });
    let admissions = async {
        let mut times = Vec::new();
        for _ in 0..600 {
            drop(b.admit(Priority::Background, &|_| {}).await);
            times.push(clock.elapsed());
        }
        times
    };
    let times = clock.run(admissions, || {}).await;
    let at = |ms: u64| {
        times
            .iter()
            .filter(|t| **t == Duration::from_millis(ms))
            .count()
    };
    assert_eq!((at(0), at(60_500)), (300, 300), "{times:?}");
    // Background has its half of this window: the user's request does not wait.
    let waited = std::sync::atomic::AtomicBool::new(false);
    let on_wait = |_: Duration| waited.store(true, std::sync::atomic::Ordering::SeqCst);
    let ticket = futures::poll!(std::pin::pin!(b.admit(Priority::User, &on_wait)));
    assert!(ticket.is_ready() && !waited.into_inner());
}
