//! Each fault switch does what its `--help` says.

use std::time::Duration;

use convo::demo::{DemoOptions, DemoServer};
use reqwest::Method;
use serde_json::Value;

use super::{get, get_as, http, ids, send, start, start_faulty, walk};
use crate::common;
use convo::demo::Faults;

#[tokio::test]
async fn status_faults_fail_then_recover() {
    let s = start_faulty(20, 5, |f| {
        f.fail_first = 2;
        f.fail_status = 502;
        f.fail_every = 5;
    })
    .await;
    let mut statuses = Vec::new();
    for _ in 0..10 {
        let a = get(&s, "/v1/conversations?limit=1").await;
        if a.status != 200 {
            assert!(a.json()["error"]["code"].is_string(), "{}", a.text);
        }
        statuses.push(a.status);
    }
    assert_eq!(statuses, [502, 502, 200, 200, 503, 200, 200, 200, 200, 503]);
    assert_eq!(s.request_count(), 10);

    let s = start_faulty(5, 5, |f| f.fail_always = true).await;
    for _ in 0..3 {
        assert_eq!(get(&s, "/v1/visitors").await.status, 500);
    }
    // The key is still checked first.
    assert_eq!(get_as(&s, "/v1/visitors", Some("")).await.status, 401);
}

#[tokio::test]
async fn rate_limit_sends_retry_after() {
    let s = start_faulty(5, 5, |f| {
        f.rate_limit_first = 2;
        f.retry_after = "7".into();
    })
    .await;
    for _ in 0..2 {
        let a = get(&s, "/v1/conversations").await;
        assert_eq!(a.status, 429);
        assert_eq!(a.headers["retry-after"], "7");
        assert_eq!(a.json()["error"]["code"], "rate_limited");
    }
    assert_eq!(get(&s, "/v1/conversations").await.status, 200);
    // An invalid value falls back to 1 s rather than failing.
    let s = start_faulty(5, 5, |f| {
        f.rate_limit_first = 1;
        f.retry_after = "\n".into();
    })
    .await;
    assert_eq!(get(&s, "/v1/visitors").await.headers["retry-after"], "1");
}

#[tokio::test]
async fn body_faults_malformed_wrong_shape_bad_row() {
    let s = start_faulty(30, 5, |f| f.malformed_page = Some(2)).await;
    assert_eq!(
        get(&s, "/v1/conversations").await.json()["data"]
            .as_array()
            .unwrap()
            .len(),
        20
    );
    let a = get(&s, "/v1/conversations").await;
    assert_eq!(a.status, 200);
    assert!(
        serde_json::from_str::<Value>(&a.text).is_err(),
        "{}",
        a.text
    );
    assert!(get(&s, "/v1/conversations").await.json()["data"].is_array());

    let s = start_faulty(5, 5, |f| f.wrong_shape = true).await;
    let a = get(&s, "/v1/visitors").await;
    assert_eq!(a.status, 200);
    assert!(a.json().get("data").is_none());

    let s = start_faulty(30, 30, |f| f.bad_row = true).await;
    for path in ["/v1/conversations?limit=10", "/v1/visitors?limit=10"] {
        let rows = get(&s, path).await.json()["data"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(rows.len(), 11);
        let bad: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i]["id"] == "not-a-uuid")
            .collect();
        assert_eq!(bad, [5], "one bad row, among the good ones");
    }
}

#[tokio::test]
async fn transport_faults_hang_reset_redirect() {
    let s = start_faulty(5, 5, |f| f.hang = true).await;
    let quick = Duration::from_millis(300);
    let err = send(&s, Method::GET, "/v1/visitors", quick)
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    // A hanging request does not hold up the shutdown: the shutdown tells it, and it is
    // answered (503) as the server stops, not cut off when a stuck server is aborted.
    let url = format!("{}/v1/visitors", s.base_url());
    let held = tokio::spawn(
        http(Duration::from_secs(60))
            .get(url)
            .bearer_auth(s.api_key())
            .send(),
    );
    let asked = s.request_count() + 1;
    common::wait_until("the held request to reach the server", || {
        s.request_count() >= asked
    })
    .await;
    s.shutdown().await;
    let r = held
        .await
        .unwrap()
        .expect("an answer, not a cut connection");
    assert_eq!(r.status(), 503);

    let s = start_faulty(50, 5, |f| f.reset_mid_body = true).await;
    let r = send(
        &s,
        Method::GET,
        "/v1/conversations?limit=50",
        Duration::from_secs(5),
    )
    .await;
    let failed = match r {
        Err(_) => true,
        Ok(r) => {
            assert_eq!(r.status().as_u16(), 200);
            r.bytes().await.is_err()
        }
    };
    assert!(failed, "the body must not arrive whole");

    let target = "http://127.0.0.1:9";
    let s = start_faulty(5, 5, |f| f.redirect_to = Some(format!("{target}/"))).await;
    let a = get(&s, "/v1/visitors?limit=3&email=a%40b.example").await;
    assert_eq!(a.status, 307);
    assert_eq!(
        a.headers["location"],
        format!("{target}/v1/visitors?limit=3&email=a%40b.example")
    );
}

#[tokio::test]
async fn pagination_faults() {
    let n = 40;
    let s = start_faulty(n, 5, |f| f.oversize_page = true).await;
    assert_eq!(
        get(&s, "/v1/conversations?limit=10").await.json()["data"]
            .as_array()
            .unwrap()
            .len(),
        15
    );

    let s = start_faulty(n, 5, |f| f.null_cursor_with_more = true).await;
    let p = get(&s, "/v1/conversations?limit=10").await.json();
    assert_eq!(
        (p["has_more"].as_bool(), p["next_cursor"].is_null()),
        (Some(true), true)
    );

    let s = start_faulty(n, 5, |f| f.cursor_loop = true).await;
    let p1 = get(&s, "/v1/conversations?limit=10").await.json();
    let c1 = p1["next_cursor"].as_str().unwrap();
    let p2 = get(&s, &format!("/v1/conversations?limit=10&cursor={c1}"))
        .await
        .json();
    assert_eq!(p2["next_cursor"], p1["next_cursor"]);
    assert_eq!(p2["has_more"], true);

    let s = start_faulty(n, 5, |f| f.duplicate_ids = true).await;
    let p1 = get(&s, "/v1/conversations?limit=10&status=open")
        .await
        .json();
    let c1 = p1["next_cursor"].as_str().unwrap();
    let p2 = get(
        &s,
        &format!("/v1/conversations?limit=10&status=open&cursor={c1}"),
    )
    .await
    .json();
    let (i1, i2) = (
        ids(p1["data"].as_array().unwrap()),
        ids(p2["data"].as_array().unwrap()),
    );
    assert_eq!(
        i2[..3],
        i1[7..],
        "page 2 starts with the last 3 rows of page 1"
    );
}

#[tokio::test]
async fn data_faults_unknown_status_hostile_big_attribute() {
    let s = start_faulty(50, 5, |f| f.unknown_status = true).await;
    let rows = walk(&s, "/v1/conversations", "", 100).await;
    assert!(rows.iter().any(|r| r["status"] == "snoozed"));

    let s = start_faulty(5, 60, |f| f.hostile = true).await;
    let rows = walk(&s, "/v1/visitors", "", 100).await;
    assert_eq!(rows.len(), 60);
    let text: String = rows.iter().map(Value::to_string).collect();
    let decoded: String = rows
        .iter()
        .flat_map(|r| {
            ["name", "email", "externalId"].map(|k| r[k].as_str().unwrap_or("").to_string())
        })
        .collect();
    for needle in [
        "\u{1b}[2J",
        "\u{1b}]0;pwned\u{7}",
        "\u{9b}",
        "\r",
        "\u{8}",
        "\u{202e}",
        "\u{200d}",
    ] {
        assert!(decoded.contains(needle), "{needle:?} missing");
    }
    assert!(rows.iter().any(|r| {
        r["name"]
            .as_str()
            .is_some_and(|n| n.chars().count() >= 5000)
    }));
    assert!(
        rows.iter()
            .any(|r| r.get("name").is_none() || r["name"].is_null())
    );
    assert!(!text.is_empty());

    let s = start_faulty(5, 5, |f| f.big_attribute = true).await;
    let a = get(&s, "/v1/visitors?limit=1").await;
    assert!(a.text.len() > 2_000_000);
    assert!(a.json()["data"][0]["attributes"].to_string().len() > 2_000_000);
}

/// `backlog` leaves that many more open conversations waiting, older than the live queue,
/// which stays as it was; every walk of the conversations (and only its first page) counts as
/// a first page.
#[tokio::test]
async fn backlog_leaves_older_open_conversations_waiting() {
    let waiting = "status=open&unassigned=true";
    let plain = start(400, 20, Faults::default()).await;
    let before = walk(&plain, "/v1/conversations", waiting, 10).await;
    let s = start(
        400,
        20,
        Faults {
            backlog: 30,
            ..Faults::default()
        },
    )
    .await;
    let after = walk(&s, "/v1/conversations", waiting, 10).await;
    assert_eq!(after.len(), before.len() + 30);
    // The live queue (the newest waiting) is the same; the backlog comes after it.
    assert_eq!(ids(&after[..before.len()]), ids(&before));
    assert_eq!(
        (plain.first_page_count(), s.first_page_count()),
        (1, 1),
        "one walk each ({} and {} requests)",
        plain.request_count(),
        s.request_count()
    );
    walk(&s, "/v1/conversations", "", 100).await;
    walk(&s, "/v1/visitors", "", 10).await;
    assert_eq!(s.first_page_count(), 2, "a visitors walk is not counted");
}

#[tokio::test]
async fn latency_delays_each_answer() {
    let s = DemoServer::start(DemoOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        conversations: 5,
        visitors: 5,
        latency: Duration::from_millis(150),
        ..DemoOptions::default()
    })
    .await
    .unwrap();
    // The answer is held in the latency wait (counted there) before it comes: an event, not a
    // wall time (how exact the wait is, is the walk bench's figure).
    let answer = get(&s, "/v1/conversations");
    tokio::pin!(answer);
    let mut held = false;
    let status = loop {
        tokio::select! {
            a = &mut answer => break a.status,
            () = tokio::time::sleep(Duration::from_millis(1)) => held |= s.waiting_now() == 1,
        }
    };
    assert_eq!(status, 200);
    assert!(held, "the request was never seen waiting out the latency");
    assert_eq!(s.waiting_now(), 0);
}

#[test]
fn cli_flags_map_to_options() {
    use clap::Parser;
    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        a: convo::cli::demo::DemoServerArgs,
    }
    let o = T::parse_from(["t"]).a.to_options();
    let d = DemoOptions::default();
    assert_eq!(
        (o.addr, o.seed, o.conversations, o.visitors, o.latency),
        (d.addr, 42, 5000, 1500, Duration::ZERO)
    );
    assert_eq!(
        (o.faults.fail_status, o.faults.retry_after.as_str()),
        (500, "1")
    );
    let o = T::parse_from([
        "t",
        "--addr",
        "127.0.0.1:0",
        "--seed",
        "9",
        "--conversations",
        "10",
        "--visitors",
        "3",
        "--latency-ms",
        "25",
        "--fail-first",
        "2",
        "--fail-status",
        "503",
        "--fail-every",
        "4",
        "--fail-always",
        "--rate-limit-first",
        "1",
        "--retry-after",
        "5",
        "--malformed-page",
        "3",
        "--wrong-shape",
        "--bad-row",
        "--hang",
        "--reset-mid-body",
        "--oversize-page",
        "--null-cursor-with-more",
        "--cursor-loop",
        "--duplicate-ids",
        "--unknown-status",
        "--hostile",
        "--redirect-to",
        "http://127.0.0.2:1",
        "--big-attribute",
        "--backlog",
        "40",
    ])
    .a
    .to_options();
    let f = &o.faults;
    assert_eq!((o.seed, o.conversations, o.visitors), (9, 10, 3));
    assert_eq!(o.latency, Duration::from_millis(25));
    assert_eq!((f.fail_first, f.fail_status, f.fail_every), (2, 503, 4));
    assert_eq!(
        (f.rate_limit_first, f.retry_after.as_str(), f.malformed_page),
        (1, "5", Some(3))
    );
    assert!(f.fail_always && f.wrong_shape && f.bad_row && f.hang && f.reset_mid_body);
    assert!(f.oversize_page && f.null_cursor_with_more && f.cursor_loop && f.duplicate_ids);
    assert!(f.unknown_status && f.hostile && f.big_attribute);
    assert_eq!(f.backlog, 40);
    assert_eq!(f.redirect_to.as_deref(), Some("http://127.0.0.2:1"));
    assert!(T::try_parse_from(["t", "--fail-status", "200"]).is_err());
    assert!(T::try_parse_from(["t", "--conversations", "5000001"]).is_err());
    assert!(T::try_parse_from(["t", "--visitors", "-1"]).is_err());
}
