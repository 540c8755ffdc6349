//! The HTTP side: routes, auth, keyset pages and the fault switches.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::Faults;
use super::ServeOrder;
use super::cursor::{self, Key};
use super::data::{Dataset, DemoConversation, DemoVisitor, Indexes};
use super::query::{ApiErr, enum_param, json_response, limit_param, parse_query, uuid_param};

/// The OpenAPI description of the two endpoints, as served at `/openapi.yaml`.
pub const OPENAPI_YAML: &str = include_str!("../../../assets/openapi.yaml");

/// State shared by every request.
pub(crate) struct Shared {
    pub data: Dataset,
    pub ix: Indexes,
    pub key: String,
    pub latency: Duration,
    pub faults: Faults,
    /// Only when churn is on (test only): the changing copy of the data.
    pub churn: Option<super::churn::Churning>,
    /// `--order mixed`: the conversations oldest first, served for `status=pending`.
    pub pending_oldest: Option<Vec<DemoConversation>>,
    pub requests: AtomicU64,
    /// Conversations requests without a cursor: walks (and refreshes) started.
    pub first_pages: AtomicU64,
    /// Requests in their latency wait now, and the most there ever were at once.
    pub waiting: AtomicU64,
    pub peak_waiting: AtomicU64,
    /// The query string of every visitors request served (its filters, limit and cursor), in
    /// order: who asked for which page ([`super::DemoServer::visitor_requests`]).
    pub visitor_log: std::sync::Mutex<Vec<String>>,
    pub cancel: CancellationToken,
}

/// Visitors requests logged at most (a longer run keeps its first ones).
const MAX_LOGGED: usize = 1_000_000;

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(
            "/v1/conversations",
            get(conversations).fallback(method_not_allowed),
        )
        .route("/v1/visitors", get(visitors).fallback(method_not_allowed))
        .route("/openapi.yaml", get(openapi))
        .route("/healthz", get(|| async { "ok" }))
        .fallback(not_found)
        .with_state(shared)
}

async fn not_found(uri: Uri) -> ApiErr {
    ApiErr::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no such endpoint: {}", uri.path()),
    )
}

async fn method_not_allowed() -> Response {
    let mut r = ApiErr::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this endpoint only answers GET",
    )
    .into_response();
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET"));
    r
}

async fn openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/yaml")], OPENAPI_YAML)
}

/// Sleeps, unless the server shuts down first.
async fn sleep_or_cancel(s: &Shared, d: Duration) {
    tokio::select! {
        _ = tokio::time::sleep(d) => {}
        _ = s.cancel.cancelled() => {}
    }
}

/// `--latency-ms`: waits `d` as exactly as the machine allows, so that the walk bench can compare
/// convo with pages × (latency + server time). tokio's timer has a 1 ms granularity and rounds up
/// (20 ms became 21–22 ms a page); so tokio sleeps all but the last 3 ms, and a blocking-pool
/// thread sleeps to the deadline (tens of µs late). A cancel still ends the long part at once.
async fn delay_or_cancel(s: &Shared, d: Duration) {
    const FINE: Duration = Duration::from_millis(3);
    let deadline = std::time::Instant::now() + d;
    if d > FINE {
        sleep_or_cancel(s, d - FINE).await;
        if s.cancel.is_cancelled() {
            return;
        }
    }
    let rest = deadline.saturating_duration_since(std::time::Instant::now());
    if !rest.is_zero() {
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(rest)).await;
    }
}

/// Compares without an early exit, so timing does not reveal how much of a key matched.
fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The common part of both lists: request count, latency, auth and every fault that does not
/// depend on the list. `Ok(n)` is the request's number (from 1).
#[cfg_attr(not(feature = "faults"), allow(unused_variables))]
async fn preamble(s: &Shared, uri: &Uri, headers: &HeaderMap) -> Result<u64, Response> {
    let n = s.requests.fetch_add(1, Ordering::SeqCst) + 1;
    if !s.latency.is_zero() {
        let now = s.waiting.fetch_add(1, Ordering::SeqCst) + 1;
        s.peak_waiting.fetch_max(now, Ordering::SeqCst);
        delay_or_cancel(s, s.latency).await;
        s.waiting.fetch_sub(1, Ordering::SeqCst);
    }
    #[cfg(feature = "faults")]
    {
        let early = super::faults::before_key(&s.faults, uri, headers);
        if let Some(d) = early.wait {
            delay_or_cancel(s, d).await;
        }
        if early.hang {
            sleep_or_cancel(s, Duration::from_secs(3600)).await;
            return Err(StatusCode::SERVICE_UNAVAILABLE.into_response());
        }
        if let Some(r) = early.answer {
            return Err(r);
        }
    }
    match headers.get(header::AUTHORIZATION) {
        None => {
            return Err(ApiErr::new(
                StatusCode::UNAUTHORIZED,
                "missing_api_key",
                "no API key: send it as Authorization: Bearer sk_…",
            )
            .into_response());
        }
        Some(v) => {
            let key = v.to_str().ok().and_then(|a| a.strip_prefix("Bearer "));
            if !key.is_some_and(|k| same_key(k, &s.key)) {
                return Err(ApiErr::new(
                    StatusCode::UNAUTHORIZED,
                    "invalid_api_key",
                    "the API key is not valid",
                )
                .into_response());
            }
        }
    }
    #[cfg(feature = "faults")]
    if let Some(r) = super::faults::after_key(&s.faults, n, uri) {
        return Err(r);
    }
    Ok(n)
}

/// A row no client can parse, for the `bad_row` fault.
#[cfg(feature = "faults")]
pub(crate) const BAD_ROW: &[u8] =
    br#"{"id":"not-a-uuid","siteId":42,"status":["x"],"name":{"no":1}}"#;

/// Writes the envelope around the rows, applying the body-level faults.
#[cfg_attr(not(feature = "faults"), allow(unused_variables))]
fn envelope<T: Serialize>(
    s: &Shared,
    rows: &[&T],
    has_more: bool,
    next_cursor: Option<String>,
) -> Response {
    /// A raw row written into the page (a test fault) before row `usize`.
    #[cfg(not(feature = "faults"))]
    type Inserted = (usize, &'static [u8]);
    #[cfg(feature = "faults")]
    if let Some(r) = super::faults::bomb(&s.faults) {
        return r;
    }
    let mut body = Vec::with_capacity(300 * rows.len() + 64);
    body.extend_from_slice(b"{\"data\":[");
    #[cfg(feature = "faults")]
    let (bad_at, bad_bytes_at) = (
        s.faults.bad_row.then_some((rows.len() / 2, BAD_ROW)),
        s.faults.bad_bytes_row.map(|b| (rows.len() / 2, b.row())),
    );
    #[cfg(not(feature = "faults"))]
    let (bad_at, bad_bytes_at): (Option<Inserted>, Option<Inserted>) = (None, None);
    for i in 0..=rows.len() {
        if let Some((at, row)) = bad_at
            && at == i
        {
            if body.last() != Some(&b'[') {
                body.push(b',');
            }
            body.extend_from_slice(row);
        }
        if let Some((at, row)) = bad_bytes_at
            && at == i
        {
            if body.last() != Some(&b'[') {
                body.push(b',');
            }
            body.extend_from_slice(row);
        }
        let Some(r) = rows.get(i) else { break };
        if body.last() != Some(&b'[') {
            body.push(b',');
        }
        if serde_json::to_writer(&mut body, r).is_err() {
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    }
    body.extend_from_slice(b"],\"has_more\":");
    body.extend_from_slice(if has_more { b"true" } else { b"false" });
    body.extend_from_slice(b",\"next_cursor\":");
    match next_cursor {
        // Cursors are base64url: nothing to escape.
        Some(c) => {
            body.push(b'"');
            body.extend_from_slice(c.as_bytes());
            body.push(b'"');
        }
        None => body.extend_from_slice(b"null"),
    }
    body.push(b'}');
    #[cfg(feature = "faults")]
    if s.faults.reset_mid_body {
        return super::faults::reset_mid_body(body);
    }
    json_response(body)
}

/// One list: its rows in API order, how to key them, and which cursor kind it issues.
struct List<'a, T, K> {
    rows: &'a [T],
    key: K,
    kind: u8,
}

impl<T: Serialize, K: Fn(&T) -> Key> List<'_, T, K> {
    /// Pages the list: finds the start after the cursor by binary search, collects up to
    /// `limit` matches (from `candidates`, an index, when given) plus one to know whether more
    /// exist, and builds the next cursor.
    fn page(
        &self,
        s: &Shared,
        fh: u64,
        q: &HashMap<String, String>,
        candidates: Option<&[u32]>,
        pred: impl Fn(&T) -> bool,
    ) -> Result<Response, ApiErr> {
        let rows = self.rows;
        let limit = limit_param(q)?;
        let cursor = q.get("cursor");
        let start = match cursor {
            None => 0,
            Some(c) => {
                let k = cursor::decode(c, self.kind, fh)?;
                rows.partition_point(|r| (self.key)(r) >= k)
            }
        };
        let f = &s.faults;
        let take = if f.oversize_page { limit + 5 } else { limit };
        let (mut positions, more) =
            collect(rows.len(), start, take, candidates, |i| pred(&rows[i]));
        if f.duplicate_ids && cursor.is_some() {
            let mut back: Vec<usize> = (0..start)
                .rev()
                .filter(|&i| pred(&rows[i]))
                .take(3)
                .collect();
            back.reverse();
            back.extend(positions);
            positions = back;
        }
        let mut next = match (more, positions.last()) {
            (true, Some(&p)) => Some(cursor::encode(self.kind, (self.key)(&rows[p]), fh)),
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
        let out: Vec<&T> = positions.iter().map(|&i| &rows[i]).collect();
        Ok(envelope(s, &out, has_more, next))
    }
}

/// Up to `limit` matching positions from `start`, over `candidates` (sorted positions) or all
/// rows, and whether one more matches.
fn collect(
    len: usize,
    start: usize,
    limit: usize,
    candidates: Option<&[u32]>,
    pred: impl Fn(usize) -> bool,
) -> (Vec<usize>, bool) {
    let mut positions = Vec::with_capacity(limit);
    let iter: Box<dyn Iterator<Item = usize> + '_> = match candidates {
        Some(c) => {
            let from = c.partition_point(|&p| (p as usize) < start);
            Box::new(c[from..].iter().map(|&p| p as usize))
        }
        None => Box::new(start..len),
    };
    for i in iter {
        if pred(i) {
            if positions.len() == limit {
                return (positions, true);
            }
            positions.push(i);
        }
    }
    (positions, false)
}

fn conv_key(c: &DemoConversation) -> Key {
    (c.created_at.as_nanosecond(), c.id)
}

fn visitor_key(v: &DemoVisitor) -> Key {
    (v.created_at.as_nanosecond(), v.id)
}

/// A key that falls along the served order (rows are served by key descending): oldest
/// first negates both parts; `updated` keys conversations by `updatedAt`.
fn ordered(order: ServeOrder, (t, id): Key) -> Key {
    match order {
        ServeOrder::Oldest => (-t, uuid::Uuid::from_u128(!id.as_u128())),
        _ => (t, id),
    }
}

fn conv_key_in(order: ServeOrder) -> impl Fn(&DemoConversation) -> Key {
    move |c| match order {
        ServeOrder::Updated => (c.updated_at.as_nanosecond(), c.id),
        o => ordered(o, conv_key(c)),
    }
}

fn visitor_key_in(order: ServeOrder) -> impl Fn(&DemoVisitor) -> Key {
    move |v| ordered(order, visitor_key(v))
}

const VISITOR_PARAMS: &[&str] = &["email", "external_id", "limit", "cursor"];

const CONVERSATION_PARAMS: &[&str] = &[
    "site_id",
    "status",
    "assignee_id",
    "unassigned",
    "visitor_id",
    "limit",
    "cursor",
];

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
        let q = parse_query(raw.as_deref(), CONVERSATION_PARAMS)?;
        let site = uuid_param(&q, "site_id")?;
        let status = enum_param(&q, "status", &["open", "pending", "closed"])?;
        let assignee = uuid_param(&q, "assignee_id")?;
        let unassigned = enum_param(&q, "unassigned", &["true", "false"])?.map(|v| v == "true");
        let visitor = uuid_param(&q, "visitor_id")?;
        if unassigned.is_some() && assignee.is_some() {
            return Err(ApiErr::bad(
                "unassigned",
                "unassigned and assignee_id cannot be combined",
            ));
        }
        let fh = cursor::filter_hash(&[
            ("site_id", site.map(|u| u.to_string())),
            ("status", status.map(str::to_string)),
            ("assignee_id", assignee.map(|u| u.to_string())),
            ("unassigned", unassigned.map(|b| b.to_string())),
            ("visitor_id", visitor.map(|u| u.to_string())),
        ]);
        let head = !q.contains_key("cursor");
        if head {
            s.first_pages.fetch_add(1, Ordering::SeqCst);
        }
        if let Some(ch) = &s.churn {
            ch.advance(head);
        }
        let live = s.churn.as_ref().map(|ch| ch.read());
        let (data, ix) = match &live {
            Some(l) => (&l.data, &l.ix),
            None => (&s.data, &s.ix),
        };
        let candidates = visitor.map(|v| ix.by_visitor.get(&v).map_or(&[][..], Vec::as_slice));
        let pred = |c: &DemoConversation| {
            site.is_none_or(|x| c.site_id == x)
                && status.is_none_or(|x| c.status == x)
                && assignee.is_none_or(|x| c.assignee_id == Some(x))
                && unassigned.is_none_or(|u| c.assignee_id.is_none() == u)
                && visitor.is_none_or(|x| c.visitor_id == x)
        };
        // `--order mixed`: `status=pending` is served oldest first (its own copy, no index).
        if let (Some(oldest), Some("pending")) = (&s.pending_oldest, status) {
            let list = List {
                rows: oldest,
                key: conv_key_in(ServeOrder::Oldest),
                kind: b'c',
            };
            return list.page(&s, fh, &q, None, pred);
        }
        let list = List {
            rows: &data.conversations,
            key: conv_key_in(s.faults.order),
            kind: b'c',
        };
        list.page(&s, fh, &q, candidates, pred)
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
    {
        let mut log = s
            .visitor_log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if log.len() < MAX_LOGGED {
            log.push(raw.clone().unwrap_or_default());
        }
    }
    let run = || -> Result<Response, ApiErr> {
        let q = parse_query(raw.as_deref(), VISITOR_PARAMS)?;
        // E-mail matching is exact but case-insensitive (documented in the OpenAPI file);
        // external_id matching is exact.
        let email = q.get("email").map(|e| e.to_lowercase());
        let ext = q.get("external_id").cloned();
        let fh = cursor::filter_hash(&[("email", email.clone()), ("external_id", ext.clone())]);
        // With churn, the visitors as changed so far (new ones join at the newest end).
        let live = s.churn.as_ref().map(|ch| ch.read());
        let (data, ix) = match &live {
            Some(l) => (&l.data, &l.ix),
            None => (&s.data, &s.ix),
        };
        let candidates = match (&email, &ext) {
            (Some(e), _) => Some(ix.by_email.get(e).map_or(&[][..], Vec::as_slice)),
            (None, Some(x)) => Some(ix.by_external_id.get(x).map_or(&[][..], Vec::as_slice)),
            _ => None,
        };
        let list = List {
            rows: &data.visitors,
            key: visitor_key_in(s.faults.order),
            kind: b'v',
        };
        list.page(&s, fh, &q, candidates, |v: &DemoVisitor| {
            email
                .as_deref()
                .is_none_or(|e| v.email.as_deref().is_some_and(|x| x.to_lowercase() == e))
                && ext
                    .as_deref()
                    .is_none_or(|x| v.external_id.as_deref() == Some(x))
        })
    };
    run().unwrap_or_else(IntoResponse::into_response)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::dataset;

    #[test]
    fn a_deep_page_looks_only_at_its_own_rows() {
        let ds = dataset(1, 50_000, 10);
        let rows = &ds.conversations;
        let k = conv_key(&rows[40_000]);
        let start = rows.partition_point(|r| conv_key(r) >= k);
        assert_eq!(
            start, 40_001,
            "binary search lands right after the cursor row"
        );
        let calls = Cell::new(0);
        let (positions, more) = collect(rows.len(), start, 100, None, |_| {
            calls.set(calls.get() + 1);
            true
        });
        assert_eq!(positions, (40_001..40_101).collect::<Vec<_>>());
        assert!(more);
        assert_eq!(calls.get(), 101, "limit + 1 rows looked at, not 40,000");
    }

    #[test]
    fn an_index_is_entered_by_binary_search() {
        let idx: Vec<u32> = (0..1000).map(|i| i * 10).collect();
        let calls = Cell::new(0);
        let (positions, more) = collect(10_000, 5_001, 3, Some(&idx), |_| {
            calls.set(calls.get() + 1);
            true
        });
        assert_eq!(positions, [5_010, 5_020, 5_030]);
        assert!(more);
        assert_eq!(calls.get(), 4);
    }

    #[test]
    fn the_openapi_file_names_every_parameter_and_path() {
        for p in CONVERSATION_PARAMS.iter().chain(VISITOR_PARAMS) {
            assert!(OPENAPI_YAML.contains(&format!("name: {p}\n")), "{p}");
        }
        for path in [
            "/v1/conversations:",
            "/v1/visitors:",
            "/openapi.yaml:",
            "/healthz:",
        ] {
            assert!(OPENAPI_YAML.contains(path), "{path}");
        }
        assert!(OPENAPI_YAML.starts_with("openapi: 3.0.3\n"));
    }
}
