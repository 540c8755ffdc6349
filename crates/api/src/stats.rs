//! What the client sent, counted: requests by endpoint and answer, and the 429s among them.
//! One set per client (its clones share it), read by `convo exporter` for its own series.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use url::Url;

/// Requests by endpoint and answer. Every attempt counts (a retry is a request too).
#[derive(Debug, Default)]
pub struct RequestStats {
    by: Mutex<BTreeMap<(&'static str, String), u64>>,
    rate_limited: AtomicU64,
}

/// The endpoint of a request's URL: `conversations`, `visitors`, or `other` (a base URL with
/// a path of its own is allowed, so the path's end is what names it).
pub fn endpoint(url: &Url) -> &'static str {
    let p = url.path().trim_end_matches('/');
    if p.ends_with("/v1/conversations") {
        "conversations"
    } else if p.ends_with("/v1/visitors") {
        "visitors"
    } else {
        "other"
    }
}

impl RequestStats {
    /// Counts one request to `url`: its HTTP status, or `error` when no answer came (a
    /// timeout, a refused connection).
    pub fn record(&self, url: &Url, status: Option<u16>) {
        if status == Some(429) {
            self.rate_limited.fetch_add(1, Ordering::Relaxed);
        }
        let status = status.map_or_else(|| "error".to_string(), |s| s.to_string());
        let mut by = self
            .by
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *by.entry((endpoint(url), status)).or_default() += 1;
    }

    /// Every (endpoint, status, requests), in order.
    pub fn requests(&self) -> Vec<(&'static str, String, u64)> {
        let by = self
            .by
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        by.iter().map(|((e, s), n)| (*e, s.clone(), *n)).collect()
    }

    /// Answers that were 429 (rate limited).
    pub fn rate_limited(&self) -> u64 {
        self.rate_limited.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_endpoint_and_status() {
        let s = RequestStats::default();
        let u = |p: &str| Url::parse(&format!("http://127.0.0.1:1{p}")).unwrap();
        s.record(&u("/v1/conversations?limit=5"), Some(200));
        s.record(&u("/v1/conversations"), Some(200));
        s.record(&u("/api/v1/visitors"), Some(429));
        s.record(&u("/v1/visitors"), None);
        s.record(&u("/other"), Some(404));
        assert_eq!(
            s.requests(),
            vec![
                ("conversations", "200".to_string(), 2),
                ("other", "404".to_string(), 1),
                ("visitors", "429".to_string(), 1),
                ("visitors", "error".to_string(), 1),
            ]
        );
        assert_eq!(s.rate_limited(), 1);
    }
}
