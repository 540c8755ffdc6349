//! The demo server over real HTTP on 127.0.0.1:0, with reqwest directly (not convo's client),
//! checked against an independent filter over `dataset(...)`.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use convo::demo::{DemoOptions, DemoServer, Faults, dataset};
use serde_json::Value;

const SEED: u64 = 7;

fn http(timeout: Duration) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(timeout)
        .build()
        .expect("client")
}

async fn start(conversations: usize, visitors: usize, faults: Faults) -> DemoServer {
    DemoServer::start(DemoOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        seed: SEED,
        conversations,
        visitors,
        latency: Duration::ZERO,
        faults,
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
        (format!("site_id={site}&status=open&unassigned=true"), {
            let site = site.clone();
            Box::new(move |c: &Value| {
                c["siteId"] == site.as_str() && c["status"] == "open" && c["assigneeId"].is_null()
            })
        }),
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
    let r = http(Duration::from_secs(5))
        .post(format!("{}/v1/conversations", s.base_url()))
        .bearer_auth(s.api_key())
        .send()
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
async fn data_is_deterministic_per_seed_and_looks_real() {
    let a = dataset(11, 3000, 800);
    let b = dataset(11, 3000, 800);
    let other = dataset(12, 3000, 800);
    assert_eq!(wire(&a.conversations), wire(&b.conversations));
    assert_eq!(wire(&a.visitors), wire(&b.visitors));
    assert_eq!((&a.sites, &a.agents), (&b.sites, &b.agents));
    assert_ne!(
        ids(&wire(&a.conversations)),
        ids(&wire(&other.conversations))
    );
    assert_ne!(a.sites, other.sites);

    assert!((4..=6).contains(&a.sites.len()) && (8..=12).contains(&a.agents.len()));
    let convs = wire(&a.conversations);
    let vis = wire(&a.visitors);
    let visitor_ids: HashSet<&str> = vis.iter().filter_map(|v| v["id"].as_str()).collect();
    let reference = "2026-11-22T12:00:00Z".parse::<jiff::Timestamp>().unwrap();
    let oldest = reference - jiff::SignedDuration::from_hours(91 * 24);
    for c in &convs {
        let t = |k: &str| c[k].as_str().unwrap().parse::<jiff::Timestamp>().unwrap();
        assert!(c["createdAt"].as_str().unwrap().ends_with('Z'));
        assert!(t("updatedAt") >= t("createdAt") && t("updatedAt") <= reference);
        assert!(t("createdAt") > oldest);
        assert!(visitor_ids.contains(c["visitorId"].as_str().unwrap()));
        for k in ["id", "siteId", "visitorId"] {
            let u: uuid::Uuid = c[k].as_str().unwrap().parse().unwrap();
            assert_eq!(u.get_version_num(), 4);
        }
    }
    let share =
        |f: &dyn Fn(&Value) -> bool| convs.iter().filter(|c| f(c)).count() * 100 / convs.len();
    assert!((22..=38).contains(&share(&|c| c["assigneeId"].is_null())));
    for (st, lo, hi) in [("open", 38, 52), ("pending", 14, 26), ("closed", 28, 42)] {
        assert!((lo..=hi).contains(&share(&|c| c["status"] == st)), "{st}");
    }
    let names: Vec<&str> = vis.iter().filter_map(|v| v["name"].as_str()).collect();
    assert!(
        names
            .iter()
            .any(|n| n.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)))
    );
    assert!(
        names
            .iter()
            .any(|n| n.chars().any(|c| ('\u{c0}'..='\u{17f}').contains(&c)))
    );
    assert!(names.iter().any(|n| n.chars().any(|c| c as u32 >= 0x1f300)));
    for k in ["name", "email", "externalId"] {
        assert!(
            vis.iter().any(|v| v.get(k).is_none()),
            "{k} sometimes missing"
        );
        assert!(
            vis.iter().any(|v| v.get(k).is_some_and(Value::is_null)),
            "{k} sometimes null"
        );
    }
    let mut kinds = HashSet::new();
    fn walk_kinds(v: &Value, kinds: &mut HashSet<&'static str>) {
        let kind = match v {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(n) if n.is_f64() => "float",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(a) => {
                a.iter().for_each(|x| walk_kinds(x, kinds));
                "array"
            }
            Value::Object(o) => {
                o.values().for_each(|x| walk_kinds(x, kinds));
                "object"
            }
        };
        kinds.insert(kind);
    }
    for v in &vis {
        assert!(v["attributes"].is_object());
        for x in v["attributes"].as_object().unwrap().values() {
            walk_kinds(x, &mut kinds);
        }
    }
    assert_eq!(
        kinds.len(),
        7,
        "every JSON type among attribute values: {kinds:?}"
    );

    // Two servers on one seed serve the same rows with the same key.
    let s1 = start(50, 20, Faults::default()).await;
    let s2 = start(50, 20, Faults::default()).await;
    assert_eq!(s1.api_key(), s2.api_key());
    assert_eq!(
        get(&s1, "/v1/visitors").await.text,
        get(&s2, "/v1/visitors").await.text
    );
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

#[tokio::test]
async fn status_faults_fail_then_recover() {
    let s = start(
        20,
        5,
        Faults {
            fail_first: 2,
            fail_status: 502,
            fail_every: 5,
            ..Faults::default()
        },
    )
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

    let s = start(
        5,
        5,
        Faults {
            fail_always: true,
            ..Faults::default()
        },
    )
    .await;
    for _ in 0..3 {
        assert_eq!(get(&s, "/v1/visitors").await.status, 500);
    }
    // The key is still checked first.
    assert_eq!(get_as(&s, "/v1/visitors", Some("")).await.status, 401);
}

#[tokio::test]
async fn rate_limit_sends_retry_after() {
    let s = start(
        5,
        5,
        Faults {
            rate_limit_first: 2,
            retry_after: "7".into(),
            ..Faults::default()
        },
    )
    .await;
    for _ in 0..2 {
        let a = get(&s, "/v1/conversations").await;
        assert_eq!(a.status, 429);
        assert_eq!(a.headers["retry-after"], "7");
        assert_eq!(a.json()["error"]["code"], "rate_limited");
    }
    assert_eq!(get(&s, "/v1/conversations").await.status, 200);
    // An invalid value falls back to 1 s rather than failing.
    let s = start(
        5,
        5,
        Faults {
            rate_limit_first: 1,
            retry_after: "\n".into(),
            ..Faults::default()
        },
    )
    .await;
    assert_eq!(get(&s, "/v1/visitors").await.headers["retry-after"], "1");
}

#[tokio::test]
async fn body_faults_malformed_wrong_shape_bad_row() {
    let s = start(
        30,
        5,
        Faults {
            malformed_page: Some(2),
            ..Faults::default()
        },
    )
    .await;
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

    let s = start(
        5,
        5,
        Faults {
            wrong_shape: true,
            ..Faults::default()
        },
    )
    .await;
    let a = get(&s, "/v1/visitors").await;
    assert_eq!(a.status, 200);
    assert!(a.json().get("data").is_none());

    let s = start(
        30,
        30,
        Faults {
            bad_row: true,
            ..Faults::default()
        },
    )
    .await;
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
    let s = start(
        5,
        5,
        Faults {
            hang: true,
            ..Faults::default()
        },
    )
    .await;
    let t = Instant::now();
    let err = http(Duration::from_millis(300))
        .get(format!("{}/v1/visitors", s.base_url()))
        .bearer_auth(s.api_key())
        .send()
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert!(t.elapsed() < Duration::from_secs(3));
    // A hanging request does not hold up the shutdown.
    let t = Instant::now();
    s.shutdown().await;
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );

    let s = start(
        50,
        5,
        Faults {
            reset_mid_body: true,
            ..Faults::default()
        },
    )
    .await;
    let r = http(Duration::from_secs(5))
        .get(format!("{}/v1/conversations?limit=50", s.base_url()))
        .bearer_auth(s.api_key())
        .send()
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
    let s = start(
        5,
        5,
        Faults {
            redirect_to: Some(format!("{target}/")),
            ..Faults::default()
        },
    )
    .await;
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
    let s = start(
        n,
        5,
        Faults {
            oversize_page: true,
            ..Faults::default()
        },
    )
    .await;
    assert_eq!(
        get(&s, "/v1/conversations?limit=10").await.json()["data"]
            .as_array()
            .unwrap()
            .len(),
        15
    );

    let s = start(
        n,
        5,
        Faults {
            null_cursor_with_more: true,
            ..Faults::default()
        },
    )
    .await;
    let p = get(&s, "/v1/conversations?limit=10").await.json();
    assert_eq!(
        (p["has_more"].as_bool(), p["next_cursor"].is_null()),
        (Some(true), true)
    );

    let s = start(
        n,
        5,
        Faults {
            cursor_loop: true,
            ..Faults::default()
        },
    )
    .await;
    let p1 = get(&s, "/v1/conversations?limit=10").await.json();
    let c1 = p1["next_cursor"].as_str().unwrap();
    let p2 = get(&s, &format!("/v1/conversations?limit=10&cursor={c1}"))
        .await
        .json();
    assert_eq!(p2["next_cursor"], p1["next_cursor"]);
    assert_eq!(p2["has_more"], true);

    let s = start(
        n,
        5,
        Faults {
            duplicate_ids: true,
            ..Faults::default()
        },
    )
    .await;
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
    let s = start(
        50,
        5,
        Faults {
            unknown_status: true,
            ..Faults::default()
        },
    )
    .await;
    let rows = walk(&s, "/v1/conversations", "", 100).await;
    assert!(rows.iter().any(|r| r["status"] == "snoozed"));

    let s = start(
        5,
        60,
        Faults {
            hostile: true,
            ..Faults::default()
        },
    )
    .await;
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

    let s = start(
        5,
        5,
        Faults {
            big_attribute: true,
            ..Faults::default()
        },
    )
    .await;
    let a = get(&s, "/v1/visitors?limit=1").await;
    assert!(a.text.len() > 2_000_000);
    assert!(a.json()["data"][0]["attributes"].to_string().len() > 2_000_000);
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
    let t = Instant::now();
    assert_eq!(get(&s, "/v1/conversations").await.status, 200);
    assert!(t.elapsed() >= Duration::from_millis(150));
}

#[test]
fn cli_flags_map_to_options() {
    use clap::Parser;
    #[derive(Parser)]
    struct T {
        #[command(flatten)]
        a: convo::demo::cli::DemoServerArgs,
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
    assert_eq!(f.redirect_to.as_deref(), Some("http://127.0.0.2:1"));
    assert!(T::try_parse_from(["t", "--fail-status", "200"]).is_err());
}

/// Scale: a million conversations are generated in seconds (run with `--release --ignored`).
#[test]
#[ignore = "slow in debug builds; run with --release -- --ignored"]
fn a_million_conversations_generate_in_seconds() {
    let t = Instant::now();
    let ds = dataset(1, 1_000_000, 50_000);
    let took = t.elapsed();
    assert_eq!(ds.conversations.len(), 1_000_000);
    eprintln!("1,000,000 conversations and 50,000 visitors in {took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}
