//! The HTTP side: routes, strict validation, keyset pages, fault switches.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::Faults;
use super::data::{Dataset, DemoConversation, DemoVisitor, Indexes};

/// The OpenAPI description of the two endpoints as convo understands them.
pub const OPENAPI_YAML: &str = include_str!("../../assets/openapi.yaml");

pub struct Shared {
    pub data: Dataset,
    pub ix: Indexes,
    pub key: String,
    pub latency: Duration,
    pub faults: Faults,
    pub requests: AtomicU64,
    pub cancel: CancellationToken,
}

pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/conversations", get(conversations))
        .route("/v1/visitors", get(visitors))
        .route("/openapi.yaml", get(openapi))
        .route("/healthz", get(|| async { "ok" }))
        .fallback(not_found)
        .with_state(shared)
}

/// An error in the documented shape `{"error": {code, message, param?}}`.
struct ApiErr {
    status: StatusCode,
    code: &'static str,
    message: String,
    param: Option<String>,
}

impl ApiErr {
    fn bad(param: &str, message: impl Into<String>) -> ApiErr {
        ApiErr {
            status: StatusCode::BAD_REQUEST,
            code: "invalid_parameter",
            message: message.into(),
            param: Some(param.to_string()),
        }
    }
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiErr {
        ApiErr {
            status,
            code,
            message: message.into(),
            param: None,
        }
    }
}

impl IntoResponse for ApiErr {
    fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct Inner<'a> {
            code: &'a str,
            message: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            param: Option<&'a str>,
        }
        let body = serde_json::json!({ "error": Inner {
            code: self.code,
            message: &self.message,
            param: self.param.as_deref(),
        }});
        (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response()
    }
}

async fn not_found(uri: Uri) -> ApiErr {
    ApiErr::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no such endpoint: {}", uri.path()),
    )
}

async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/yaml")], OPENAPI_YAML)
}

/// Query parameters, checked: only known names, none repeated, none empty.
fn parse_query(raw: Option<&str>, allowed: &[&str]) -> Result<HashMap<String, String>, ApiErr> {
    let mut out = HashMap::new();
    for (k, v) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if !allowed.contains(&k.as_ref()) {
            return Err(ApiErr::bad(&k, format!("unknown parameter {k:?}")));
        }
        if v.is_empty() {
            return Err(ApiErr::bad(&k, format!("{k} must not be empty")));
        }
        if out.insert(k.to_string(), v.to_string()).is_some() {
            return Err(ApiErr::bad(&k, format!("{k} is given more than once")));
        }
    }
    Ok(out)
}

fn uuid_param(q: &HashMap<String, String>, name: &str) -> Result<Option<Uuid>, ApiErr> {
    q.get(name)
        .map(|v| {
            // The plain hyphenated form only, as the spec's examples show.
            if v.len() != 36 {
                return Err(ApiErr::bad(name, format!("{name} must be a UUID")));
            }
            Uuid::parse_str(v).map_err(|_| ApiErr::bad(name, format!("{name} must be a UUID")))
        })
        .transpose()
}

fn limit_param(q: &HashMap<String, String>) -> Result<usize, ApiErr> {
    match q.get("limit") {
        None => Ok(20),
        Some(v) => match v.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) && !v.starts_with('+') => Ok(n),
            _ => Err(ApiErr::bad(
                "limit",
                "limit must be an integer from 1 to 100",
            )),
        },
    }
}

/// A keyset cursor: the last row's (createdAt, id), bound to the filter it was made for.
fn encode_cursor(kind: u8, created_ns: i128, id: Uuid, filter: u64) -> String {
    let mut b = Vec::with_capacity(41);
    b.push(kind);
    b.extend_from_slice(&created_ns.to_be_bytes());
    b.extend_from_slice(id.as_bytes());
    b.extend_from_slice(&filter.to_be_bytes());
    URL_SAFE_NO_PAD.encode(b)
}

fn decode_cursor(s: &str, kind: u8, filter: u64) -> Result<(i128, Uuid), ApiErr> {
    let bad = || {
        ApiErr::bad(
            "cursor",
            "cursor is not valid for this list and these filters",
        )
    };
    let b = URL_SAFE_NO_PAD.decode(s).map_err(|_| bad())?;
    if b.len() != 41 || b[0] != kind {
        return Err(bad());
    }
    let ns = i128::from_be_bytes(b[1..17].try_into().map_err(|_| bad())?);
    let id = Uuid::from_slice(&b[17..33]).map_err(|_| bad())?;
    let f = u64::from_be_bytes(b[33..41].try_into().map_err(|_| bad())?);
    if f != filter {
        return Err(bad());
    }
    Ok((ns, id))
}

/// FNV-1a of the filter's canonical form.
fn filter_hash(parts: &[(&str, Option<String>)]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, v) in parts {
        for b in k
            .bytes()
            .chain([b'='])
            .chain(v.as_deref().unwrap_or("").bytes())
            .chain([b'&'])
        {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// What a page is made of: positions of matching rows, and whether more match.
struct Slice {
    positions: Vec<usize>,
    has_more: bool,
}

/// Collects up to `limit` matching positions from `start`, over the candidates (an index) or
/// all rows, plus one more to know whether more exist.
fn collect(
    len: usize,
    start: usize,
    limit: usize,
    candidates: Option<&[u32]>,
    pred: impl Fn(usize) -> bool,
) -> Slice {
    let mut positions = Vec::with_capacity(limit);
    let mut has_more = false;
    let mut visit = |i: usize| -> bool {
        if pred(i) {
            if positions.len() == limit {
                has_more = true;
                return false;
            }
            positions.push(i);
        }
        true
    };
    match candidates {
        Some(c) => {
            let from = c.partition_point(|&p| (p as usize) < start);
            for &p in &c[from..] {
                if !visit(p as usize) {
                    break;
                }
            }
        }
        None => {
            for i in start..len {
                if !visit(i) {
                    break;
                }
            }
        }
    }
    Slice {
        positions,
        has_more,
    }
}

/// The common part of both handlers: request count, latency and every fault that does not
/// depend on the list. `Ok(n)` is the request's number.
async fn preamble(s: &Shared, uri: &Uri, headers: &HeaderMap) -> Result<u64, Response> {
    let n = s.requests.fetch_add(1, Ordering::SeqCst) + 1;
    if !s.latency.is_zero() {
        tokio::time::sleep(s.latency).await;
    }
    let f = &s.faults;
    if f.hang {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(3600)) => {}
            _ = s.cancel.cancelled() => {}
        }
        return Err(StatusCode::SERVICE_UNAVAILABLE.into_response());
    }
    if let Some(to) = &f.redirect_to {
        let pq = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
        let loc = format!("{}{pq}", to.trim_end_matches('/'));
        return Err((StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, loc)]).into_response());
    }
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    match auth.and_then(|a| a.strip_prefix("Bearer ")) {
        None => {
            return Err(ApiErr::new(
                StatusCode::UNAUTHORIZED,
                "missing_api_key",
                "send the secret API key as Authorization: Bearer sk_…",
            )
            .into_response());
        }
        Some(k) if k != s.key => {
            return Err(ApiErr::new(
                StatusCode::UNAUTHORIZED,
                "invalid_api_key",
                "the API key is not valid",
            )
            .into_response());
        }
        Some(_) => {}
    }
    let fail = |status: StatusCode| {
        ApiErr::new(status, "server_error", "the demo server was told to fail").into_response()
    };
    if f.fail_always {
        return Err(fail(StatusCode::INTERNAL_SERVER_ERROR));
    }
    if n <= f.fail_first as u64 {
        let st = StatusCode::from_u16(if f.fail_status == 0 {
            500
        } else {
            f.fail_status
        })
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return Err(fail(st));
    }
    if f.fail_every > 0 && n % f.fail_every as u64 == 0 {
        return Err(fail(StatusCode::SERVICE_UNAVAILABLE));
    }
    if n <= f.rate_limit_first as u64 {
        let ra = if f.retry_after.is_empty() {
            "1"
        } else {
            &f.retry_after
        };
        let mut r = ApiErr::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "too many requests",
        )
        .into_response();
        if let Ok(v) = ra.parse() {
            r.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return Err(r);
    }
    if f.malformed_page == Some(n as u32) {
        return Err(json_response(
            br#"{"data":[{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d"#.to_vec(),
        ));
    }
    if f.wrong_shape {
        return Err(json_response(br#"{"items":[],"total":0}"#.to_vec()));
    }
    Ok(n)
}

fn json_response(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Writes the envelope around the rows, applying the list-level faults.
fn envelope<T: Serialize>(
    s: &Shared,
    rows: &[&T],
    has_more: bool,
    next_cursor: Option<String>,
) -> Response {
    let mut body = Vec::with_capacity(256 * rows.len() + 64);
    body.extend_from_slice(b"{\"data\":[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        if serde_json::to_writer(&mut body, r).is_err() {
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    }
    if s.faults.bad_row {
        if !rows.is_empty() {
            body.push(b',');
        }
        body.extend_from_slice(br#"{"id":"not-a-uuid","status":42,"name":["x"]}"#);
    }
    body.extend_from_slice(b"],\"has_more\":");
    body.extend_from_slice(if has_more { b"true" } else { b"false" });
    body.extend_from_slice(b",\"next_cursor\":");
    match next_cursor {
        Some(c) => body.extend_from_slice(serde_json::Value::String(c).to_string().as_bytes()),
        None => body.extend_from_slice(b"null"),
    }
    body.push(b'}');
    if s.faults.reset_mid_body {
        let half = Bytes::from(body[..body.len() / 2].to_vec());
        let stream = futures::stream::iter([
            Ok::<Bytes, std::io::Error>(half),
            Err(std::io::Error::other("connection reset by the demo server")),
        ]);
        return (
            [(header::CONTENT_TYPE, "application/json")],
            Body::from_stream(stream),
        )
            .into_response();
    }
    json_response(body)
}

/// Pages a sorted list: finds the start after the cursor, collects, builds the next cursor.
#[allow(clippy::too_many_arguments)]
fn page<T: Serialize>(
    s: &Shared,
    rows: &[T],
    key: impl Fn(&T) -> (i128, Uuid),
    kind: u8,
    fh: u64,
    q: &HashMap<String, String>,
    candidates: Option<&[u32]>,
    pred: impl Fn(&T) -> bool,
) -> Result<Response, ApiErr> {
    let limit = limit_param(q)?;
    let cursor = q.get("cursor");
    let start = match cursor {
        None => 0,
        Some(c) => {
            let k = decode_cursor(c, kind, fh)?;
            rows.partition_point(|r| key(r) >= k)
        }
    };
    let f = &s.faults;
    let take = if f.oversize_page { limit + 5 } else { limit };
    let mut slice = collect(rows.len(), start, take, candidates, |i| pred(&rows[i]));
    if f.duplicate_ids && cursor.is_some() {
        let mut back: Vec<usize> = (0..start)
            .rev()
            .filter(|&i| pred(&rows[i]))
            .take(3)
            .collect();
        back.reverse();
        back.extend(slice.positions);
        slice.positions = back;
    }
    let mut next = match (slice.has_more, slice.positions.last()) {
        (true, Some(&p)) => {
            let (ns, id) = key(&rows[p]);
            Some(encode_cursor(kind, ns, id, fh))
        }
        _ => None,
    };
    let mut has_more = next.is_some();
    if f.null_cursor_with_more && cursor.is_none() {
        has_more = true;
        next = None;
    }
    if f.cursor_loop
        && let Some(c) = cursor
    {
        has_more = true;
        next = Some(c.clone());
    }
    let out: Vec<&T> = slice.positions.iter().map(|&i| &rows[i]).collect();
    Ok(envelope(s, &out, has_more, next))
}

fn conv_key(c: &DemoConversation) -> (i128, Uuid) {
    (c.created_at.as_nanosecond(), c.id)
}

fn visitor_key(v: &DemoVisitor) -> (i128, Uuid) {
    (v.created_at.as_nanosecond(), v.id)
}

async fn conversations(
    State(s): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    if let Err(r) = preamble(&s, &uri, &headers).await {
        return r;
    }
    let run = || -> Result<Response, ApiErr> {
        let q = parse_query(
            raw.as_deref(),
            &[
                "site_id",
                "status",
                "assignee_id",
                "unassigned",
                "visitor_id",
                "limit",
                "cursor",
            ],
        )?;
        let site = uuid_param(&q, "site_id")?;
        let visitor = uuid_param(&q, "visitor_id")?;
        let assignee = uuid_param(&q, "assignee_id")?;
        let status = match q.get("status").map(String::as_str) {
            None => None,
            Some(v @ ("open" | "pending" | "closed")) => Some(v.to_string()),
            Some(_) => {
                return Err(ApiErr::bad(
                    "status",
                    "status must be one of open, pending, closed",
                ));
            }
        };
        let unassigned = match q.get("unassigned").map(String::as_str) {
            None => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(_) => {
                return Err(ApiErr::bad(
                    "unassigned",
                    "unassigned must be true or false",
                ));
            }
        };
        if unassigned.is_some() && assignee.is_some() {
            return Err(ApiErr::bad(
                "unassigned",
                "unassigned and assignee_id cannot be combined",
            ));
        }
        let fh = filter_hash(&[
            ("site_id", site.map(|u| u.to_string())),
            ("status", status.clone()),
            ("assignee_id", assignee.map(|u| u.to_string())),
            ("unassigned", unassigned.map(|b| b.to_string())),
            ("visitor_id", visitor.map(|u| u.to_string())),
        ]);
        let empty: &[u32] = &[];
        let candidates =
            visitor.map(|v| s.ix.by_visitor.get(&v).map(Vec::as_slice).unwrap_or(empty));
        page(
            &s,
            &s.data.conversations,
            conv_key,
            b'c',
            fh,
            &q,
            candidates,
            |c: &DemoConversation| {
                site.is_none_or(|x| c.site_id == x)
                    && status.as_deref().is_none_or(|x| c.status == x)
                    && assignee.is_none_or(|x| c.assignee_id == Some(x))
                    && unassigned.is_none_or(|u| c.assignee_id.is_none() == u)
                    && visitor.is_none_or(|x| c.visitor_id == x)
            },
        )
    };
    run().unwrap_or_else(IntoResponse::into_response)
}

async fn visitors(
    State(s): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    if let Err(r) = preamble(&s, &uri, &headers).await {
        return r;
    }
    let run = || -> Result<Response, ApiErr> {
        let q = parse_query(raw.as_deref(), &["email", "external_id", "limit", "cursor"])?;
        // Email matching is exact but case-insensitive (documented in the OpenAPI file).
        let email = q.get("email").map(|e| e.to_lowercase());
        let ext = q.get("external_id").cloned();
        let fh = filter_hash(&[("email", email.clone()), ("external_id", ext.clone())]);
        let empty: &[u32] = &[];
        let candidates = match (&email, &ext) {
            (Some(e), _) => Some(s.ix.by_email.get(e).map(Vec::as_slice).unwrap_or(empty)),
            (None, Some(x)) => Some(
                s.ix.by_external_id
                    .get(x)
                    .map(Vec::as_slice)
                    .unwrap_or(empty),
            ),
            _ => None,
        };
        page(
            &s,
            &s.data.visitors,
            visitor_key,
            b'v',
            fh,
            &q,
            candidates,
            |v: &DemoVisitor| {
                email
                    .as_deref()
                    .is_none_or(|e| v.email.as_deref().is_some_and(|x| x.to_lowercase() == e))
                    && ext
                        .as_deref()
                        .is_none_or(|x| v.external_id.as_deref() == Some(x))
            },
        )
    };
    run().unwrap_or_else(IntoResponse::into_response)
}
