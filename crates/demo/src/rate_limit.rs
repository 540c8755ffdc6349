//! `--rate-limit N`: a request budget per key, as real services keep one: at most N `/v1`
//! requests in any window (a sliding window: the strict reading of "N a minute"); past it, 429
//! with `Retry-After` (whole seconds until a slot frees). Each answer can say the budget in
//! the IETF draft's headers (`RateLimit-Policy: "default";q=N;w=W` and `RateLimit:
//! "default";r=R;t=T`), in `X-RateLimit-Limit/-Remaining/-Reset` (the reset as a unix time,
//! as the best-known service sends it), or not at all (a client learns it from the 429s).

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::query::ApiErr;

/// Which headers say the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LimitHeaders {
    /// None: only the 429s and their `Retry-After`.
    None,
    /// `RateLimit` and `RateLimit-Policy` (the IETF draft).
    #[default]
    Ietf,
    /// `X-RateLimit-Limit`, `-Remaining`, `-Reset`.
    X,
}

/// A request budget per key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestBudget {
    /// Requests allowed in any `window`.
    pub limit: u32,
    /// Default a minute; tests use a few seconds.
    pub window: Duration,
    pub headers: LimitHeaders,
}

/// Keys remembered at most (the demo has one; a flood of made-up keys forgets the oldest).
const MAX_KEYS: usize = 1024;

/// The budget's state, and what it answered, per list (conversations, visitors).
pub(crate) struct Limiter {
    budget: RequestBudget,
    keys: Mutex<HashMap<u64, VecDeque<Instant>>>,
    /// Requests let through, per list: `[conversations, visitors]`.
    pub passed: [AtomicU64; 2],
    /// Requests answered 429, per list.
    pub refused: [AtomicU64; 2],
    /// The requests let through, when each came and its path and query (the first
    /// [`MAX_LOG`]): what a test reads to check a client's pace by the server's clock.
    pub log: Mutex<Vec<(Instant, String)>>,
}

/// Requests kept in [`Limiter::log`]: a long run does not grow the server without bound.
const MAX_LOG: usize = 20_000;

/// Counts of one list: requests let through and answered 429.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LimitCounts {
    pub conversations: u64,
    pub visitors: u64,
    pub conversations_refused: u64,
    pub visitors_refused: u64,
}

impl Limiter {
    pub(crate) fn new(budget: RequestBudget) -> Limiter {
        Limiter {
            budget: RequestBudget {
                limit: budget.limit.max(1),
                window: budget.window.max(Duration::from_millis(100)),
                ..budget
            },
            keys: Mutex::new(HashMap::new()),
            passed: Default::default(),
            refused: Default::default(),
            log: Default::default(),
        }
    }

    pub(crate) fn counts(&self) -> LimitCounts {
        let n = |a: &AtomicU64| a.load(Ordering::SeqCst);
        LimitCounts {
            conversations: n(&self.passed[0]),
            visitors: n(&self.passed[1]),
            conversations_refused: n(&self.refused[0]),
            visitors_refused: n(&self.refused[1]),
        }
    }

    /// Takes a slot for `key` now: `Ok(left)` or `Err(until a slot frees)`; with the time until
    /// the oldest request in the window leaves it.
    fn take(&self, key: u64, now: Instant) -> (Result<u32, Duration>, Duration) {
        let (limit, window) = (self.budget.limit, self.budget.window);
        let mut keys = self
            .keys
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if keys.len() >= MAX_KEYS && !keys.contains_key(&key) {
            keys.clear();
        }
        let log = keys.entry(key).or_default();
        while log
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            log.pop_front();
        }
        let frees_in = |log: &VecDeque<Instant>| {
            log.front()
                .map_or(window, |t| (*t + window).saturating_duration_since(now))
        };
        if log.len() >= limit as usize {
            let wait = frees_in(log);
            return (Err(wait), wait);
        }
        log.push_back(now);
        let left = limit - log.len() as u32;
        (Ok(left), frees_in(log))
    }

    fn say(&self, h: &mut HeaderMap, left: u32, frees_in: Duration) {
        let (limit, window) = (self.budget.limit, self.budget.window.as_secs().max(1));
        let reset = frees_in.as_secs_f64().ceil() as u64;
        let mut put = |name: &'static str, v: String| {
            if let Ok(v) = HeaderValue::from_str(&v) {
                h.insert(name, v);
            }
        };
        match self.budget.headers {
            LimitHeaders::None => {}
            LimitHeaders::Ietf => {
                put(
                    "ratelimit-policy",
                    format!("\"default\";q={limit};w={window}"),
                );
                put("ratelimit", format!("\"default\";r={left};t={reset}"));
            }
            LimitHeaders::X => {
                let at = jiff::Timestamp::now().as_second() + reset as i64;
                put("x-ratelimit-limit", limit.to_string());
                put("x-ratelimit-remaining", left.to_string());
                put("x-ratelimit-reset", at.to_string());
            }
        }
    }
}

/// The middleware in front of `/v1`: counts the request against its key's budget.
pub(crate) async fn layer(
    State(limiter): State<std::sync::Arc<Limiter>>,
    req: Request,
    next: Next,
) -> Response {
    if !req.uri().path().starts_with("/v1/") {
        return next.run(req).await;
    }
    let list = usize::from(req.uri().path().starts_with("/v1/visitors"));
    let key = {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        req.headers()
            .get(header::AUTHORIZATION)
            .map(HeaderValue::as_bytes)
            .hash(&mut h);
        h.finish()
    };
    let now = Instant::now();
    match limiter.take(key, now) {
        (Ok(left), frees_in) => {
            limiter.passed[list].fetch_add(1, Ordering::SeqCst);
            {
                let mut log = limiter
                    .log
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if log.len() < MAX_LOG {
                    log.push((now, req.uri().to_string()));
                }
            }
            let mut resp = next.run(req).await;
            limiter.say(resp.headers_mut(), left, frees_in);
            resp
        }
        (Err(wait), frees_in) => {
            limiter.refused[list].fetch_add(1, Ordering::SeqCst);
            let mut resp = ApiErr::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                "too many requests for this key; wait Retry-After",
            )
            .into_response();
            let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
            limiter.say(resp.headers_mut(), 0, frees_in);
            if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
            resp
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_limit_in_any_window_then_a_wait_until_the_oldest_leaves() {
        let l = Limiter::new(RequestBudget {
            limit: 3,
            window: Duration::from_secs(10),
            headers: LimitHeaders::Ietf,
        });
        let t0 = Instant::now();
        assert_eq!(l.take(1, t0).0, Ok(2));
        assert_eq!(l.take(1, t0 + Duration::from_secs(4)).0, Ok(1));
        assert_eq!(l.take(1, t0 + Duration::from_secs(5)).0, Ok(0));
        assert_eq!(
            l.take(1, t0 + Duration::from_secs(6)).0,
            Err(Duration::from_secs(4))
        );
        // Another key has its own budget.
        assert_eq!(l.take(2, t0 + Duration::from_secs(6)).0, Ok(2));
        // The first request leaves the window at 10 s.
        assert_eq!(l.take(1, t0 + Duration::from_secs(10)).0, Ok(0));
    }
}
