//! The demo server over real HTTP on 127.0.0.1:0, with reqwest directly (not convo's client),
//! checked against an independent filter over `dataset(...)`. The generated data is checked
//! in `demo_server/data.rs`, the fault switches and the CLI flags in `demo_server/faults.rs`.

use std::collections::HashSet;
use std::time::Duration;

use convo::demo::{DemoOptions, DemoServer, Faults, dataset};
use serde_json::Value;

#[path = "demo_server/data.rs"]
mod data;
#[path = "demo_server/faults.rs"]
mod faults;

const SEED: u64 = 7;

fn http(timeout: Duration) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .build()
        .expect("client")
}

/// [`start`] with no faults but those `set` gives (`|f| f.hang = true`).
async fn start_faulty(
    conversations: usize,
    visitors: usize,
    set: impl FnOnce(&mut Faults),
) -> DemoServer {
    let mut faults = Faults::default();
    set(&mut faults);
    start(conversations, visitors, faults).await
}

/// `METHOD path` with the demo's key, given up after `timeout`.
async fn send(
    s: &DemoServer,
    method: reqwest::Method,
    path: &str,
    timeout: Duration,
) -> reqwest::Result<reqwest::Response> {
    let url = format!("{}{path}", s.base_url());
    http(timeout)
        .request(method, url)
        .bearer_auth(s.api_key())
        .send()
        .await
}

async fn start(conversations: usize, visitors: usize, faults: Faults) -> DemoServer {
    DemoServer::start(DemoOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        seed: SEED,
        conversations,
        visitors,
        latency: Duration::ZERO,
        faults,
        anchor: None,
        ..DemoOptions::default()
    })
    .await
    .expect("demo server starts")
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:.200}", self.text))
    }

    /// Asserts a 400 in the error shape naming `param`; returns the error object.
    fn bad_param(&self, code: &str, param: &str) -> Value {
        assert_eq!(self.status, 400, "{}", self.text);
        let e = self.json()["error"].clone();
        assert_eq!(e["code"], code, "{}", self.text);
        assert_eq!(e["param"], param, "{}", self.text);
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
        e
    }
}

/// GET `path_and_query` with the server's key (or `key` when given, `Some("")` for none).
async fn get_as(s: &DemoServer, path_and_query: &str, key: Option<&str>) -> Answer {
    let mut req = http(Duration::from_secs(10)).get(format!("{}{path_and_query}", s.base_url()));
    match key {
        None => req = req.bearer_auth(s.api_key()),
        Some("") => {}
        Some(k) => req = req.header("Authorization", k),
    }
    let r = req.send().await.expect("request");
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let text = r.text().await.expect("body");
    Answer {
        status,
        headers,
        text,
    }
}

async fn get(s: &DemoServer, path_and_query: &str) -> Answer {
    get_as(s, path_and_query, None).await
}

/// A whole walk: every page's rows, in order, following next_cursor.
async fn walk(s: &DemoServer, path: &str, query: &str, limit: usize) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10_000 {
        let mut q = format!("{path}?limit={limit}");
        if !query.is_empty() {
            q = format!("{q}&{query}");
        }
        if let Some(c) = &cursor {
            q = format!("{q}&cursor={c}");
        }
        let a = get(s, &q).await;
        assert_eq!(a.status, 200, "{q}: {}", a.text);
        let page = a.json();
        let data = page["data"].as_array().expect("data").clone();
        assert!(data.len() <= limit);
        rows.extend(data);
        match (page["has_more"].as_bool(), page["next_cursor"].as_str()) {
            (Some(true), Some(c)) => cursor = Some(c.to_string()),
            (Some(false), None) => return rows,
            other => panic!("inconsistent envelope {other:?}"),
        }
    }
    panic!("the walk did not end");
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect()
}

fn wire<T: serde::Serialize>(rows: &[T]) -> Vec<Value> {
    rows.iter()
        .map(|r| serde_json::to_value(r).expect("serialise"))
        .collect()
}

/// `(createdAt, id)` strictly decreasing: the documented order, no repeats.
fn assert_api_order(rows: &[Value]) {
    for w in rows.windows(2) {
        let k = |r: &Value| {
            (
                r["createdAt"].as_str().unwrap_or("").to_string(),
                r["id"].as_str().unwrap_or("").to_string(),
            )
        };
        assert!(k(&w[0]) > k(&w[1]), "out of order: {} then {}", w[0], w[1]);
    }
}

#[tokio::test]
async fn full_walks_return_every_id_once_in_order() {
    let s = start(523, 211, Faults::default()).await;
    let ds = dataset(SEED, 523, 211);
    let want_c = ids(&wire(&ds.conversations));
    let want_v = ids(&wire(&ds.visitors));

    let got = walk(&s, "/v1/conversations", "", 100).await;
    assert_api_order(&got);
    assert_eq!(ids(&got), want_c);
    assert_eq!(
        s.request_count(),
        6,
        "ceil(523 / 100) pages, no empty last page"
    );
    assert_eq!(
        got,
        wire(&ds.conversations),
        "rows are the dataset's, field for field"
    );

    let got = walk(&s, "/v1/conversations", "", 7).await;
    assert_eq!(ids(&got), want_c);

    let got = walk(&s, "/v1/visitors", "", 100).await;
    assert_api_order(&got);
    assert_eq!(ids(&got), want_v);
    let unique: HashSet<_> = want_v.iter().collect();
    assert_eq!(unique.len(), want_v.len());

    // An exact multiple of the limit ends without an empty page.
    let s = start(200, 10, Faults::default()).await;
    assert_eq!(walk(&s, "/v1/conversations", "", 100).await.len(), 200);
    assert_eq!(s.request_count(), 2);
}

#[tokio::test]
async fn conversation_filters_alone_and_combined_match_the_dataset() {
    let s = start(900, 120, Faults::default()).await;
    let all = wire(&dataset(SEED, 900, 120).conversations);
    let sample = &all[17];
    let site = sample["siteId"].as_str().unwrap().to_string();
    let visitor = sample["visitorId"].as_str().unwrap().to_string();
    let agent = all
        .iter()
        .find_map(|c| c["assigneeId"].as_str())
        .unwrap()
        .to_string();
    let waiting_site = all
        .iter()
        .rev()
        .find(|c| c["status"] == "open" && c["assigneeId"].is_null())
        .and_then(|c| c["siteId"].as_str())
        .unwrap()
        .to_string();
    type Pred = Box<dyn Fn(&Value) -> bool>;
    let eq = |k: &'static str, v: String| -> Pred { Box::new(move |c: &Value| c[k] == v.as_str()) };
    let cases: Vec<(String, Pred)> = vec![
        (format!("site_id={site}"), eq("siteId", site.clone())),
        ("status=open".into(), eq("status", "open".into())),
        ("status=pending".into(), eq("status", "pending".into())),
        ("status=closed".into(), eq("status", "closed".into())),
        (
            format!("assignee_id={agent}"),
            eq("assigneeId", agent.clone()),
        ),
        (
            "unassigned=true".into(),
            Box::new(|c: &Value| c["assigneeId"].is_null()),
        ),
        (
            "unassigned=false".into(),
            Box::new(|c: &Value| c["assigneeId"].is_string()),
        ),
        (
            format!("visitor_id={visitor}"),
            eq("visitorId", visitor.clone()),
        ),
        // Only the live queue at the head waits: the site of one of them.
        (
            format!("site_id={waiting_site}&status=open&unassigned=true"),
            {
                let site = waiting_site.clone();
                Box::new(move |c: &Value| {
                    c["siteId"] == site.as_str()
                        && c["status"] == "open"
                        && c["assigneeId"].is_null()
                })
            },
        ),
        (format!("status=pending&assignee_id={agent}"), {
            let agent = agent.clone();
            Box::new(move |c: &Value| c["status"] == "pending" && c["assigneeId"] == agent.as_str())
        }),
        (format!("visitor_id={visitor}&site_id={site}"), {
            let (v, st) = (visitor.clone(), site.clone());
            Box::new(move |c: &Value| c["visitorId"] == v.as_str() && c["siteId"] == st.as_str())
        }),
        // Uppercase hex is the same UUID.
        (
            format!("site_id={}", site.to_uppercase()),
            eq("siteId", site.clone()),
        ),
    ];
    for (query, pred) in cases {
        let want: Vec<&Value> = all.iter().filter(|c| pred(c)).collect();
        assert!(!want.is_empty(), "{query} matches nothing in the dataset");
        let got = walk(&s, "/v1/conversations", &query, 13).await;
        assert_eq!(got.len(), want.len(), "{query}");
        assert!(got.iter().zip(&want).all(|(g, w)| g == *w), "{query}");
    }
    // A filter that matches nothing: an empty, final page.
    let none = "00000000-0000-4000-8000-000000000000";
    let p = get(&s, &format!("/v1/conversations?visitor_id={none}"))
        .await
        .json();
    assert_eq!(p["data"], serde_json::json!([]));
    assert_eq!(p["has_more"], false);
    assert!(p["next_cursor"].is_null());
}

#[tokio::test]
async fn visitor_filters_match_the_dataset() {
    let s = start(10, 600, Faults::default()).await;
    let all = wire(&dataset(SEED, 10, 600).visitors);
    let lower = |v: &Value, k: &str| v[k].as_str().map(str::to_lowercase);
    // A shared address, so one filter returns several visitors.
    let shared = all
        .iter()
        .filter_map(|v| lower(v, "email"))
        .find(|e| {
            all.iter()
                .filter(|v| lower(v, "email").as_ref() == Some(e))
                .count()
                > 1
        })
        .expect("some visitors share an e-mail address");
    let ext = all
        .iter()
        .find_map(|v| v["externalId"].as_str())
        .unwrap()
        .to_string();
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    for (query, want) in [
        (
            format!("email={}", enc(&shared)),
            all.iter()
                .filter(|v| lower(v, "email").as_deref() == Some(shared.as_str()))
                .collect::<Vec<_>>(),
        ),
        (
            // Exact but case-insensitive.
            format!("email={}", enc(&shared.to_uppercase())),
            all.iter()
                .filter(|v| lower(v, "email").as_deref() == Some(shared.as_str()))
                .collect(),
        ),
        (
            format!("external_id={}", enc(&ext)),
            all.iter()
                .filter(|v| v["externalId"] == ext.as_str())
                .collect(),
        ),
        (
            format!("email={}&external_id={}", enc(&shared), enc(&ext)),
            all.iter()
                .filter(|v| {
                    lower(v, "email").as_deref() == Some(shared.as_str())
                        && v["externalId"] == ext.as_str()
                })
                .collect(),
        ),
        ("email=nobody%40example.invalid".to_string(), vec![]),
        // Not a substring match.
        (format!("email={}", enc(&shared[1..])), vec![]),
    ] {
        let got = walk(&s, "/v1/visitors", &query, 1).await;
        assert_eq!(got.len(), want.len(), "{query}");
        assert!(got.iter().zip(&want).all(|(g, w)| g == *w), "{query}");
    }
    assert!(
        walk(&s, "/v1/visitors", &format!("email={}", enc(&shared)), 1)
            .await
            .len()
            > 1
    );
}

#[tokio::test]
async fn limit_default_and_bounds() {
    let s = start(150, 150, Faults::default()).await;
    for path in ["/v1/conversations", "/v1/visitors"] {
        let p = get(&s, path).await.json();
        assert_eq!(p["data"].as_array().unwrap().len(), 20, "default 20");
        assert_eq!(p["has_more"], true);
        for (limit, n) in [("1", 1), ("100", 100), ("057", 57)] {
            let p = get(&s, &format!("{path}?limit={limit}")).await.json();
            assert_eq!(p["data"].as_array().unwrap().len(), n, "limit={limit}");
        }
        for bad in [
            "0",
            "101",
            "abc",
            "-1",
            "1.5",
            "+5",
            "1e2",
            "%205",
            "99999999999999999999",
        ] {
            let e = get(&s, &format!("{path}?limit={bad}"))
                .await
                .bad_param("invalid_parameter", "limit");
            assert!(e["message"].as_str().unwrap().contains("1 to 100"), "{e}");
        }
    }
}

#[tokio::test]
async fn api_key_is_required_and_checked() {
    let s = start(5, 5, Faults::default()).await;
    let key = s.api_key();
    assert!(key.starts_with("sk_demo_") && key.len() == 8 + 24, "{key}");
    for path in ["/v1/conversations", "/v1/visitors?limit=5"] {
        let a = get_as(&s, path, Some("")).await;
        assert_eq!(a.status, 401);
        assert_eq!(a.json()["error"]["code"], "missing_api_key");
        for wrong in [
            "Bearer sk_demo_wrongwrongwrong".to_string(),
            format!("Bearer {key}x"),
            format!("Basic {key}"),
            format!("bearer{key}"),
            key.clone(),
        ] {
            let a = get_as(&s, path, Some(&wrong)).await;
            assert_eq!(a.status, 401, "{wrong}");
            assert_eq!(a.json()["error"]["code"], "invalid_api_key");
            assert!(!a.text.contains("wrongwrong") && !a.text.contains(&key));
        }
    }
    // A 401 comes before parameter validation.
    assert_eq!(
        get_as(&s, "/v1/visitors?bogus=1", Some("")).await.status,
        401
    );
    // The description and the health check need no key, and do not count as API requests.
    let before = s.request_count();
    let a = get_as(&s, "/openapi.yaml", Some("")).await;
    assert_eq!(a.status, 200);
    assert!(a.text.starts_with("openapi: 3.0.3") && a.text.contains("/v1/visitors"));
    assert_eq!(a.text, convo::demo::OPENAPI_YAML);
    let a = get_as(&s, "/healthz", Some("")).await;
    assert_eq!((a.status, a.text.as_str()), (200, "ok"));
    assert_eq!(s.request_count(), before);
}

#[tokio::test]
async fn strict_parameter_validation() {
    let s = start(30, 30, Faults::default()).await;
    let c = "/v1/conversations";
    let uuid = "5b1f3a34-7c43-4f7e-9a53-1f2e3d4c5b6a";
    for (query, param) in [
        ("sort=created_at".to_string(), "sort"),
        ("Limit=5".to_string(), "Limit"),
        ("email=a%40example.com".to_string(), "email"),
        ("status=".to_string(), "status"),
        ("status".to_string(), "status"),
        ("status=OPEN".to_string(), "status"),
        ("status=snoozed".to_string(), "status"),
        ("status=open&status=closed".to_string(), "status"),
        ("limit=5&limit=5".to_string(), "limit"),
        ("unassigned=yes".to_string(), "unassigned"),
        ("unassigned=1".to_string(), "unassigned"),
        ("unassigned=True".to_string(), "unassigned"),
        ("site_id=nope".to_string(), "site_id"),
        ("assignee_id=123".to_string(), "assignee_id"),
        (
            format!("visitor_id={}", uuid.replace('-', "")),
            "visitor_id",
        ),
        (format!("visitor_id={{{uuid}}}"), "visitor_id"),
        (format!("site_id={uuid}x"), "site_id"),
    ] {
        get(&s, &format!("{c}?{query}"))
            .await
            .bad_param("invalid_parameter", param);
    }
    for query in [
        format!("unassigned=true&assignee_id={uuid}"),
        format!("assignee_id={uuid}&unassigned=false"),
    ] {
        let e = get(&s, &format!("{c}?{query}"))
            .await
            .bad_param("invalid_parameter", "unassigned");
        let m = e["message"].as_str().unwrap();
        assert!(m.contains("assignee_id") && m.contains("combined"), "{m}");
    }
    for (query, param) in [
        ("status=open", "status"),
        ("email=", "email"),
        ("external_id=", "external_id"),
        ("email=a&email=b", "email"),
    ] {
        get(&s, &format!("/v1/visitors?{query}"))
            .await
            .bad_param("invalid_parameter", param);
    }
    // Unknown paths and methods answer in the error shape too.
    let a = get(&s, "/v1/nope").await;
    assert_eq!(a.status, 404);
    assert_eq!(a.json()["error"]["code"], "not_found");
    assert_eq!(get(&s, "/v1/conversations/").await.status, 404);
    let r = send(
        &s,
        reqwest::Method::POST,
        "/v1/conversations",
        Duration::from_secs(5),
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    let body: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed");
}

#[tokio::test]
async fn cursors_are_opaque_checked_and_bound_to_their_filter() {
    let s = start(100, 100, Faults::default()).await;
    let p = get(&s, "/v1/conversations?status=open&limit=5")
        .await
        .json();
    let cursor = p["next_cursor"].as_str().unwrap().to_string();
    assert!(
        cursor
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "URL-safe without escaping: {cursor}"
    );
    // Same filter, another limit: fine, and it continues after the first page.
    let p2 = get(
        &s,
        &format!("/v1/conversations?status=open&limit=9&cursor={cursor}"),
    )
    .await
    .json();
    let first: Vec<_> = ids(p["data"].as_array().unwrap());
    let next: Vec<_> = ids(p2["data"].as_array().unwrap());
    assert_eq!(next.len(), 9);
    assert!(next.iter().all(|i| !first.contains(i)));
    for query in [
        format!("/v1/conversations?status=closed&cursor={cursor}"),
        format!("/v1/conversations?cursor={cursor}"),
        format!("/v1/visitors?cursor={cursor}"),
        "/v1/conversations?cursor=not-a-cursor".to_string(),
        "/v1/conversations?cursor=%FF%FE".to_string(),
        format!(
            "/v1/conversations?status=open&cursor={}",
            &cursor[..cursor.len() - 2]
        ),
        format!(
            "/v1/conversations?status=open&cursor={}A",
            &cursor[..cursor.len() - 1]
        ),
    ] {
        get(&s, &query).await.bad_param("invalid_cursor", "cursor");
    }
}

#[tokio::test]
async fn only_loopback_addresses_are_accepted() {
    for addr in ["0.0.0.0:0", "192.0.2.1:0", "[::]:0"] {
        let err = DemoServer::start(DemoOptions {
            addr: addr.parse().unwrap(),
            conversations: 1,
            visitors: 1,
            ..DemoOptions::default()
        })
        .await
        .err()
        .unwrap_or_else(|| panic!("{addr} was accepted"));
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{addr}");
        assert!(err.to_string().contains("loopback"), "{err}");
    }
    let s = start(1, 1, Faults::default()).await;
    assert!(s.addr().ip().is_loopback() && s.addr().port() != 0);
    assert_eq!(
        s.base_url(),
        format!("http://127.0.0.1:{}", s.addr().port())
    );
    s.shutdown().await;
}

/// `anchor` (what `convo --demo` passes: the clock) moves every time by one amount: the newest
/// rows are as old as they are at the fixed reference, the walk is the same rows in the same
/// order, and cursors keep working.
#[tokio::test]
async fn an_anchor_moves_every_time_and_keeps_the_walk() {
    let fixed = start(400, 60, Faults::default()).await;
    let anchor: jiff::Timestamp = "2031-05-01T08:00:00Z".parse().unwrap();
    let moved = DemoServer::start(DemoOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        seed: SEED,
        conversations: 400,
        visitors: 60,
        latency: Duration::ZERO,
        faults: Faults::default(),
        anchor: Some(anchor),
        ..DemoOptions::default()
    })
    .await
    .expect("starts");
    let reference: jiff::Timestamp = convo::demo::data::REFERENCE_TIME.parse().unwrap();
    let by = reference.duration_until(anchor);
    for path in ["/v1/conversations", "/v1/visitors"] {
        let a = walk(&fixed, path, "", 37).await;
        let b = walk(&moved, path, "", 37).await;
        assert_eq!(ids(&a), ids(&b), "{path}: same rows, same order");
        assert_api_order(&b);
        for (x, y) in a.iter().zip(&b) {
            for field in ["createdAt", "updatedAt"] {
                let (Some(x), Some(y)) = (x[field].as_str(), y[field].as_str()) else {
                    continue; // visitors have no updatedAt
                };
                let (x, y): (jiff::Timestamp, jiff::Timestamp) =
                    (x.parse().unwrap(), y.parse().unwrap());
                assert_eq!(x.checked_add(by).unwrap(), y, "{path} {field}");
            }
        }
        let newest: jiff::Timestamp = b[0]["createdAt"].as_str().unwrap().parse().unwrap();
        assert!(newest <= anchor && anchor.duration_since(newest).as_secs() < 90 * 86_400);
    }
    moved.shutdown().await;
    fixed.shutdown().await;
}

/// Issue 39 §13: a visitor is never created after one of their conversations, in the
/// generated data and after churn's new visitors (each created at their first conversation).
/// Both lists walked over HTTP, as a client sees them.
#[tokio::test]
async fn no_visitor_is_created_after_their_conversations() {
    let mut faults = Faults::default();
    faults.churn.new_per_head = 5;
    faults.churn.new_visitors = 100;
    let s = start(400, 120, faults).await;
    // every first-page request after the first adds five conversations by new visitors
    for _ in 0..4 {
        assert_eq!(get(&s, "/v1/conversations?limit=1").await.status, 200);
    }
    let visitors = walk(&s, "/v1/visitors", "", 100).await;
    let conversations = walk(&s, "/v1/conversations", "", 100).await;
    let created: std::collections::HashMap<&str, &str> = visitors
        .iter()
        .map(|v| {
            (
                v["id"].as_str().expect("id"),
                v["createdAt"].as_str().expect("createdAt"),
            )
        })
        .collect();
    let parse = |t: &str| t.parse::<jiff::Timestamp>().expect("a time");
    let mut checked = 0;
    let mut late = Vec::new();
    for c in &conversations {
        let Some(v) = created.get(c["visitorId"].as_str().expect("visitorId")) else {
            continue;
        };
        checked += 1;
        let at = c["createdAt"].as_str().expect("createdAt");
        if parse(v) > parse(at) {
            late.push(format!(
                "visitor {} at {v}, conversation {} at {at}",
                c["visitorId"], c["id"]
            ));
        }
    }
    assert!(
        checked >= 400,
        "only {checked} conversations have a listed visitor"
    );
    assert!(
        conversations.len() >= 415,
        "churn added {}",
        conversations.len() - 400
    );
    assert!(late.is_empty(), "{} of {checked}: {late:#?}", late.len());
    s.shutdown().await;
}
