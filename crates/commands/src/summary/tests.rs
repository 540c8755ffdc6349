//! The summary's arithmetic on small hand-made rows.

use super::*;
use convo_api::Timestamp;

fn now() -> jiff::Timestamp {
    "2026-11-22T12:00:00Z".parse().unwrap()
}

const SITE_A: Uuid = Uuid::from_u128(0xa);
const SITE_B: Uuid = Uuid::from_u128(0xb);
const AGENT: Uuid = Uuid::from_u128(0x1);

fn ago(mins: i64) -> Timestamp {
    Timestamp::Parsed(now() - jiff::SignedDuration::from_mins(mins))
}

fn row(
    n: u128,
    status: &str,
    site: Uuid,
    agent: Option<Uuid>,
    created: i64,
    upd: i64,
) -> Conversation {
    Conversation {
        id: Uuid::from_u128(1000 + n),
        site_id: site,
        visitor_id: Uuid::from_u128(5000 + n),
        status: Status::from_wire(status),
        assignee_id: agent,
        created_at: ago(created),
        updated_at: ago(upd),
    }
}

fn rows() -> Vec<Conversation> {
    vec![
        row(1, "open", SITE_A, None, 47, 47), // waiting, stale (47m > 30m)
        row(2, "open", SITE_A, Some(AGENT), 10, 5), // fresh
        row(3, "open", SITE_B, None, 20, 20), // waiting, fresh
        row(4, "closed", SITE_A, Some(AGENT), 300, 290), // closed: never stale
        row(5, "pending", SITE_B, Some(AGENT), 100, 90), // stale
        row(6, "snoozed", SITE_B, None, 60, 1), // unknown status
    ]
}

/// A median from the histogram: within its documented bound of the exact value.
fn near(got: Option<i64>, exact: i64) {
    let got = got.expect("a median");
    let bound = exact >> histogram::PRECISION_BITS;
    assert!((got - exact).abs() <= bound, "{got} vs {exact} ± {bound}");
}

fn summary(rows: &[Conversation], stale_mins: i64) -> Summary {
    let mut s = Summary::new(now(), stale_mins * 60);
    for r in rows {
        s.add(r);
    }
    s
}

#[test]
fn counts_shares_and_order() {
    let s = summary(&rows(), 30);
    let b = s.buckets(By::Status);
    let keys: Vec<(String, u64)> = b
        .iter()
        .map(|b| (b.key.label(&Aliases::default(), |u| u.to_string()), b.count))
        .collect();
    assert_eq!(
        keys,
        [
            ("open".to_string(), 3),
            ("pending".to_string(), 1),
            ("closed".to_string(), 1),
            ("snoozed".to_string(), 1)
        ],
        "count desc, then key (known statuses in spec order, unknown ones after)"
    );
    assert!((b.iter().map(|b| b.share).sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!(b[0].share, 0.5);
    let a = s.buckets(By::Assignee);
    assert_eq!(
        a[0].key,
        Key::Assignee(None),
        "ties broken by key: unassigned first"
    );
    assert_eq!((a[0].count, a[1].count), (3, 3));
    assert_eq!(s.total().count, 6);
}

#[test]
fn ages_staleness_and_waiting() {
    let s = summary(&rows(), 30);
    let open = &s.buckets(By::Status)[0];
    assert_eq!(open.oldest_age, Some(47 * 60));
    near(open.median_age, 20 * 60); // ages 10, 20, 47 min
    assert_eq!(open.stale, 1);
    assert_eq!((open.waiting, open.oldest_waiting_age), (2, Some(47 * 60)));
    let closed = s
        .buckets(By::Status)
        .into_iter()
        .find(|b| b.key == Key::Status(Status::Closed))
        .unwrap();
    assert_eq!(
        (closed.stale, closed.waiting, closed.oldest_waiting_age),
        (0, 0, None)
    );
    let t = s.total();
    assert_eq!(t.stale, 2);
    assert_eq!(t.oldest_age, Some(300 * 60));
    // ages 10 20 47 60 100 300: index 3 of 6 (the older middle one)
    near(t.median_age, 60 * 60);
    let site_b = s
        .buckets(By::Site)
        .into_iter()
        .find(|b| b.key == Key::Site(SITE_B))
        .unwrap();
    assert_eq!(
        (site_b.waiting, site_b.oldest_waiting_age),
        (1, Some(20 * 60))
    );
}

#[test]
fn unreadable_times_are_counted_but_not_aged() {
    let mut r = rows();
    r[0].created_at = Timestamp::Raw("yesterday".into());
    r[1].updated_at = Timestamp::Raw("".into());
    let s = summary(&r, 30);
    let open = &s.buckets(By::Status)[0];
    assert_eq!(open.count, 3);
    assert_eq!((open.unreadable_created, open.unreadable_updated), (1, 1));
    assert_eq!(open.oldest_age, Some(20 * 60));
    assert_eq!(open.oldest_waiting_age, Some(20 * 60));
    assert_eq!(open.stale, 1, "row 1 is still stale by its updatedAt");
    assert_eq!(s.total().unreadable_created, 1);
}

#[test]
fn bucket_filters_keep_the_base() {
    let base = ConversationFilter {
        status: Some(Status::Open),
        ..Default::default()
    };
    let f = Key::Assignee(None).filter(&base).unwrap();
    assert_eq!(
        (f.status, f.assignee),
        (Some(Status::Open), Assignee::Unassigned)
    );
    let f = Key::Assignee(Some(AGENT)).filter(&base).unwrap();
    assert_eq!(f.assignee, Assignee::Agent(AGENT));
    assert_eq!(
        Key::Site(SITE_A).filter(&base).unwrap().site_id,
        Some(SITE_A)
    );
    assert_eq!(
        Key::Status(Status::Pending).filter(&base).unwrap().status,
        Some(Status::Pending)
    );
    assert_eq!(
        Key::Status(Status::Other("snoozed".into())).filter(&base),
        None
    );
    assert_eq!(Key::Overflow.filter(&base), None);
}

#[test]
fn labels_use_aliases() {
    let mut al = Aliases::default();
    al.insert(AGENT, "Ana".into());
    assert_eq!(
        Key::Assignee(Some(AGENT)).label(&al, |u| u.to_string()),
        "Ana"
    );
    assert_eq!(
        Key::Assignee(None).label(&al, |u| u.to_string()),
        "unassigned"
    );
    assert_eq!(
        Key::Site(SITE_A).label(&al, convo_api::short_id),
        "00000000"
    );
    assert_eq!(Key::Assignee(None).id(), None);
    assert_eq!(Key::Status(Status::Open).id().as_deref(), Some("open"));
}

#[test]
fn coverage_never_claims_an_unseen_total() {
    let mut s = summary(&rows(), 30);
    assert_eq!(s.coverage().to_string(), "6 of ≥6 loaded; more available");
    s.set_more_available(false);
    assert_eq!(s.coverage().to_string(), "all 6 conversations");
    s.add_unreadable(2);
    assert_eq!(
        s.coverage().to_string(),
        "all 6 conversations; 2 unreadable rows not counted"
    );
    let big = Coverage {
        loaded: 1200,
        complete: false,
        unreadable_rows: 0,
    };
    assert_eq!(big.to_string(), "1,200 of ≥1,200 loaded; more available");
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1_234_567), "1,234,567");
}

#[test]
fn buckets_are_bounded() {
    let mut s = Summary::new(now(), 3600);
    for i in 0..(MAX_BUCKETS as u128 + 50) {
        s.add(&row(i, &format!("weird-{i}"), SITE_A, None, 5, 5));
    }
    let b = s.buckets(By::Status);
    assert_eq!(b.len(), MAX_BUCKETS + 1);
    assert_eq!(b[0].key, Key::Overflow);
    assert_eq!(b[0].count, 50);
    assert_eq!(
        b.iter().map(|b| b.count).sum::<u64>(),
        MAX_BUCKETS as u64 + 50
    );
}

#[test]
fn durations() {
    assert_eq!(parse_duration("2h"), Ok(7200));
    assert_eq!(parse_duration("90m"), Ok(5400));
    assert_eq!(parse_duration("1h30m"), Ok(5400));
    assert_eq!(parse_duration("1d"), Ok(86_400));
    assert_eq!(parse_duration("45s"), Ok(45));
    assert_eq!(parse_duration("600"), Ok(600));
    assert_eq!(parse_duration(" 1w "), Ok(604_800));
    // jiff's friendly and ISO 8601 forms, fractions that make whole seconds.
    assert_eq!(parse_duration("1h 30m"), Ok(5400));
    assert_eq!(parse_duration("2 hours"), Ok(7200));
    assert_eq!(parse_duration("PT2H"), Ok(7200));
    assert_eq!(parse_duration("1.5h"), Ok(5400));
    for bad in [
        "",
        "h",
        "2x",
        "2h3",
        "-5",
        "-2h",
        "0.5s",
        "99999999999999999999d",
    ] {
        let e = parse_duration(bad).unwrap_err();
        assert!(e.contains(&format!("{bad:?}")), "{bad}: {e}");
    }
    assert_eq!(
        parse_duration("2h3").unwrap_err(),
        "\"2h3\" is not a duration (e.g. 2h, 90m, 1h30m, 1d)"
    );
    assert!(
        parse_duration("1mo")
            .unwrap_err()
            .contains("no fixed length")
    );
}
