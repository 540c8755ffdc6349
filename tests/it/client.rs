//! The API client against a real demo server on a random loopback port: filters, the full walk,
//! every error path, the redirect rule. No mocks.

use crate::common;

use std::sync::Mutex;
use std::time::Duration;

use common::{Demo, client_for, fast_settings, ignore_retry};
use convo::api::{
    ApiError, Assignee, Client, Conversation, ConversationFilter, Limit, Page, Status, Visitor,
    VisitorFilter,
};
use convo::demo::{Faults, dataset};
use convo::walk::Walk;
use serde_json::Value;
use uuid::Uuid;

fn lim(n: i64) -> Limit {
    Limit::new(n).unwrap()
}

/// Walks a whole conversations list through the pager and returns the ids in order.
fn walk_conversations(d: &Demo, f: &ConversationFilter, limit: i64) -> Vec<Uuid> {
    let c = d.client();
    let mut p: Walk<Conversation> = Walk::new(limit as usize, 1);
    d.block_on(async {
        while let Some(cursor) = p.request() {
            let page: Page<Conversation> = c
                .list(f, lim(limit), cursor.as_deref(), &ignore_retry)
                .await
                .expect("page");
            p.take(page);
        }
    });
    assert!(p.warnings().is_empty(), "{:?}", p.warnings());
    p.rows().iter().map(|r| r.id).collect()
}

/// The first page of conversations (`limit` rows, no filter) through `c`, retries unheard.
fn first_conversations(d: &Demo, c: &Client, limit: i64) -> Result<Page<Conversation>, ApiError> {
    d.block_on(c.list(
        &ConversationFilter::default(),
        lim(limit),
        None,
        &ignore_retry,
    ))
}

/// [`first_conversations`] for visitors.
fn first_visitors(d: &Demo, c: &Client, limit: i64) -> Result<Page<Visitor>, ApiError> {
    d.block_on(c.list(&VisitorFilter::default(), lim(limit), None, &ignore_retry))
}

/// The dataset's conversations as wire JSON, in API order.
fn wire_conversations(conversations: usize, visitors: usize) -> Vec<Value> {
    let ds = dataset(7, conversations, visitors);
    ds.conversations
        .iter()
        .map(|c| serde_json::to_value(c).unwrap())
        .collect()
}

fn id_of(v: &Value) -> Uuid {
    v["id"].as_str().unwrap().parse().unwrap()
}

#[test]
fn full_walk_returns_every_id_once_in_order() {
    let d = Demo::start(437, 120, Faults::default());
    let ids = walk_conversations(&d, &ConversationFilter::default(), 100);
    let want: Vec<Uuid> = wire_conversations(437, 120).iter().map(id_of).collect();
    assert_eq!(ids.len(), 437);
    assert_eq!(ids, want);
    assert_eq!(d.requests(), 5);
}

/// An independent predicate over a row's wire JSON.
type Pred = Box<dyn Fn(&Value) -> bool>;

#[test]
fn every_conversation_filter_alone_and_combined() {
    let d = Demo::start(600, 150, Faults::default());
    let all = wire_conversations(600, 150);
    let sample = &all[17];
    let site: Uuid = sample["siteId"].as_str().unwrap().parse().unwrap();
    let visitor: Uuid = sample["visitorId"].as_str().unwrap().parse().unwrap();
    let agent: Uuid = all
        .iter()
        .find_map(|c| c["assigneeId"].as_str())
        .unwrap()
        .parse()
        .unwrap();
    // Only the live queue at the head waits: the site of one of them.
    let waiting = |c: &&Value| c["status"] == "open" && c["assigneeId"].is_null();
    let waiting_site: Uuid = all.iter().find(waiting).unwrap()["siteId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let cases: Vec<(ConversationFilter, Pred)> = vec![
        (
            ConversationFilter {
                site_id: Some(site),
                ..Default::default()
            },
            Box::new(move |c| c["siteId"] == site.to_string()),
        ),
        (
            ConversationFilter {
                status: Some(Status::Pending),
                ..Default::default()
            },
            Box::new(|c| c["status"] == "pending"),
        ),
        (
            ConversationFilter {
                assignee: Assignee::Unassigned,
                ..Default::default()
            },
            Box::new(|c| c["assigneeId"].is_null()),
        ),
        (
            ConversationFilter {
                assignee: Assignee::Anyone,
                ..Default::default()
            },
            Box::new(|c| !c["assigneeId"].is_null()),
        ),
        (
            ConversationFilter {
                assignee: Assignee::Agent(agent),
                ..Default::default()
            },
            Box::new(move |c| c["assigneeId"] == agent.to_string()),
        ),
        (
            ConversationFilter {
                visitor_id: Some(visitor),
                ..Default::default()
            },
            Box::new(move |c| c["visitorId"] == visitor.to_string()),
        ),
        (
            ConversationFilter {
                site_id: Some(waiting_site),
                status: Some(Status::Open),
                assignee: Assignee::Unassigned,
                visitor_id: None,
                by_email: None,
            },
            Box::new(move |c| {
                c["siteId"] == waiting_site.to_string()
                    && c["status"] == "open"
                    && c["assigneeId"].is_null()
            }),
        ),
    ];
    for (f, pred) in cases {
        let want: Vec<Uuid> = all.iter().filter(|c| pred(c)).map(id_of).collect();
        assert!(
            !want.is_empty(),
            "filter {f:?} matches nothing in the dataset"
        );
        assert_eq!(walk_conversations(&d, &f, 37), want, "filter {f:?}");
    }
}

#[test]
fn visitor_filters() {
    let d = Demo::start(50, 300, Faults::default());
    let ds = dataset(7, 50, 300);
    let vis: Vec<Value> = ds
        .visitors
        .iter()
        .map(|v| serde_json::to_value(v).unwrap())
        .collect();
    let with_email = vis.iter().find(|v| v["email"].is_string()).unwrap();
    let email = with_email["email"].as_str().unwrap().to_string();
    let ext = vis.iter().find_map(|v| v["externalId"].as_str());
    let ext = ext.expect("a visitor with an external id").to_string();
    let c = d.client();
    for (f, key, val) in [
        (
            VisitorFilter {
                email: Some(format!("  {email} ")),
                external_id: None,
            },
            "email",
            email.clone(),
        ),
        (
            VisitorFilter {
                email: None,
                external_id: Some(ext.clone()),
            },
            "externalId",
            ext.clone(),
        ),
    ] {
        let page: Page<Visitor> = d
            .block_on(c.list(&f, lim(100), None, &ignore_retry))
            .unwrap();
        let want = vis
            .iter()
            .filter(|v| {
                v[key]
                    .as_str()
                    .is_some_and(|s| s.eq_ignore_ascii_case(&val))
            })
            .count();
        assert_eq!(page.items.len(), want, "{key}");
        assert!(want >= 1);
    }
}

#[test]
fn limit_outside_bounds_is_a_400_naming_the_parameter() {
    let d = Demo::start(30, 10, Faults::default());
    let c = d.client();
    let mut url = c.base_url().clone();
    url.set_path("/v1/conversations");
    url.set_query(Some("limit=0"));
    let err = d
        .block_on(c.get_page::<Conversation>(url, &ignore_retry))
        .unwrap_err();
    match &err {
        ApiError::BadRequest {
            status: 400, param, ..
        } => {
            assert_eq!(param.as_deref(), Some("limit"))
        }
        other => panic!("expected a 400, got {other:?}"),
    }
    assert!(err.to_string().contains("limit"), "{err}");
}

#[test]
fn wrong_key_is_401_unauthorized_without_the_key_in_the_message() {
    let d = Demo::start(30, 10, Faults::default());
    let c = client_for(&d.url(), "sk_demo_wrongwrongwrong", fast_settings);
    let err = first_conversations(&d, &c, 5).unwrap_err();
    assert!(
        matches!(err, ApiError::Unauthorized { status: 401, .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(msg.contains("the key was rejected (HTTP 401"), "{msg}");
    assert!(
        msg.contains("CONVO_API_KEY"),
        "names where the key came from: {msg}"
    );
    assert!(!msg.contains("wrongwrongwrong") && !format!("{err:?}").contains("wrongwrong"));
    assert_eq!(d.requests(), 1, "401 is not retried");
}

/// A 429 with `Retry-After: 1`: the client says it waits a second, waits it on its clock (a
/// `ManualClock`: the retry is sent at +1 s of it, not before) and then gets the page.
#[test]
fn rate_limit_waits_retry_after_then_continues() {
    let d = Demo::faulty(30, 10, common::rate_limited_once("1"));
    let (c, clock) = common::client_on_clock(&d);
    let notices = Mutex::new(Vec::new());
    let on_retry = |n| notices.lock().unwrap().push(n);
    let (page, times) = common::on_clock(
        &d,
        &clock,
        c.list::<_, Conversation>(&ConversationFilter::default(), lim(10), None, &on_retry),
    );
    assert_eq!(page.unwrap().items.len(), 10);
    assert_eq!(times, [Duration::ZERO, Duration::from_secs(1)]);
    let n = notices.into_inner().unwrap();
    assert_eq!(n.len(), 1);
    assert!(n[0].rate_limited);
    assert_eq!(n[0].wait, Duration::from_secs(1));
}

#[test]
fn server_errors_then_success_are_retried() {
    let d = Demo::faulty(30, 10, |f| {
        f.fail_first = 2;
        f.fail_status = 503;
    });
    let c = d.client();
    let page = first_conversations(&d, &c, 10).unwrap();
    assert_eq!(page.items.len(), 10);
    assert_eq!(d.requests(), 3);
}

#[test]
fn server_errors_forever_give_up_after_three_retries() {
    let d = Demo::faulty(30, 10, |f| f.fail_always = true);
    let c = d.client();
    let err = first_conversations(&d, &c, 10).unwrap_err();
    assert!(
        matches!(
            err,
            ApiError::Server {
                status: 500,
                attempts: 4,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(d.requests(), 4);
}

#[test]
fn a_hanging_server_times_out() {
    let d = Demo::faulty(30, 10, |f| f.hang = true);
    let c = client_for(&d.url(), &d.key(), |s| {
        fast_settings(s);
        s.request_timeout = Duration::from_millis(300);
    });
    let err = first_conversations(&d, &c, 10).unwrap_err();
    // The timeout fired on each attempt (the server never answers): four asked, four given up.
    assert!(
        matches!(err, ApiError::Timeout { attempts: 4, .. }),
        "{err:?}"
    );
    assert_eq!(d.requests(), 4);
}

#[test]
fn malformed_json_is_a_decode_error() {
    let d = Demo::faulty(30, 10, |f| f.malformed_page = Some(1));
    let err = first_conversations(&d, &d.client(), 10).unwrap_err();
    assert!(matches!(err, ApiError::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("not valid JSON"), "{err}");
}

#[test]
fn wrong_shape_is_a_decode_error() {
    let d = Demo::faulty(30, 10, |f| f.wrong_shape = true);
    let err = first_visitors(&d, &d.client(), 10).unwrap_err();
    assert!(err.to_string().contains("not a list page"), "{err}");
}

#[test]
fn connection_refused_is_a_connect_error() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let c = client_for(
        &format!("http://127.0.0.1:{port}"),
        "sk_test_x",
        fast_settings,
    );
    let err = rt
        .block_on(c.list::<_, Visitor>(&VisitorFilter::default(), lim(10), None, &ignore_retry))
        .unwrap_err();
    assert!(
        matches!(err, ApiError::Connect { attempts: 4, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(&format!("127.0.0.1:{port}")),
        "{err}"
    );
}

#[test]
fn redirect_to_another_origin_is_not_followed() {
    let target = Demo::start(30, 10, Faults::default());
    let d = Demo::faulty(30, 10, |f| f.redirect_to = Some(target.url()));
    let err = first_visitors(&d, &d.client(), 10).unwrap_err();
    assert!(matches!(err, ApiError::Redirect { .. }), "{err:?}");
    assert!(err.to_string().contains(&target.url()), "{err}");
    assert_eq!(
        target.requests(),
        0,
        "the key must not reach the other origin"
    );
}

#[test]
fn plain_http_to_a_remote_host_is_refused_before_any_io() {
    let key = convo::api::ApiKey::new("sk_test_abc", convo::api::KeySource::Env, "sk_").unwrap();
    let err = convo::api::Client::new(convo::api::ClientSettings::new(
        "http://chat.example.com",
        key,
    ))
    .unwrap_err();
    assert!(matches!(err, ApiError::InsecureTransport { .. }), "{err:?}");
    assert!(err.to_string().contains("allow_insecure_http"), "{err}");
}
