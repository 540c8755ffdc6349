//! One error type for everything a list request can meet. Its messages say what happened and
//! what to do; server text in them is sanitised and cut; the key never appears.

use std::time::Duration;

use super::filter::FilterError;
use super::key::{KeyError, KeySource};

/// What went wrong with a request, or before it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// The base URL cannot be used.
    #[error("base URL {url:?} cannot be used: {reason}")]
    BadBaseUrl { url: String, reason: String },

    /// docs/design.md "Transport": plain http only to loopback, refused before any network I/O.
    #[error(
        "refusing to send the API key over plain http:// to {host}: use https://, or set \
         allow_insecure_http = true in the config if you accept that the key travels in clear text"
    )]
    InsecureTransport { host: String },

    #[error(transparent)]
    Key(#[from] KeyError),

    #[error("invalid filter: {0}")]
    Filter(#[from] FilterError),

    /// 401/403: not retried. 401: the key itself was rejected; 403: the key is valid but may
    /// not list this (different advice).
    #[error("{}", unauthorized_text(*.status, .detail, .origin))]
    Unauthorized {
        status: u16,
        detail: String,
        origin: KeySource,
    },

    /// 400/422: the service refused a parameter; not retried.
    #[error("the service refused the request (HTTP {status}{detail})")]
    BadRequest {
        status: u16,
        /// The parameter the service named, if any.
        param: Option<String>,
        detail: String,
    },

    /// Any other 4xx (404 …): not retried.
    #[error("the service answered HTTP {status}{detail}; check the base URL")]
    Http { status: u16, detail: String },

    /// Still 429 after waiting as asked.
    #[error(
        "the service is rate limiting (HTTP 429{detail}) and still was after {attempts} attempts; \
         wait a little and retry"
    )]
    RateLimited { attempts: u32, detail: String },

    /// 5xx after the retries.
    #[error(
        "the service failed (HTTP {status}{detail}) {attempts} times in a row; rows already \
         loaded are kept, retry later"
    )]
    Server {
        status: u16,
        detail: String,
        attempts: u32,
    },

    #[error(
        "no answer within {}s ({attempts} attempts); the service is slow or unreachable \
         (request_timeout_secs sets the limit)", .timeout.as_secs()
    )]
    Timeout { timeout: Duration, attempts: u32 },

    #[error(
        "cannot connect to {host} ({detail}) after {attempts} attempts; is the base URL right and the service up?"
    )]
    Connect {
        host: String,
        detail: String,
        attempts: u32,
    },

    #[error("the connection failed ({detail}) after {attempts} attempts")]
    Network { detail: String, attempts: u32 },

    /// The server's certificate was refused (unknown issuer, name mismatch, expired …): final,
    /// never retried, since trying again cannot change the answer.
    #[error("certificate for {host} {cause}: {fix}")]
    Certificate {
        host: String,
        /// e.g. "is not trusted (unknown issuer)".
        cause: String,
        fix: String,
    },

    /// The proxy could not be reached or did not open the tunnel. `proxy` is masked.
    #[error("{what} through proxy {proxy} ({detail}) after {attempts} attempts; {fix}")]
    Proxy {
        proxy: String,
        what: String,
        detail: String,
        fix: &'static str,
        attempts: u32,
    },

    /// The proxy asked for credentials (407): final.
    #[error("the proxy {proxy} refused the request (407 Proxy Authentication Required): {fix}")]
    ProxyAuth { proxy: String, fix: &'static str },

    /// `ca_file` or the proxy setting cannot be used; found before any request.
    #[error("{0}")]
    Setup(String),

    /// docs/design.md "Transport": redirects to another origin are not followed, so the key stays home.
    #[error(
        "the service redirected to another origin ({to}); not followed so the API key stays \
         with the configured host. Set base_url to the new address if you trust it"
    )]
    Redirect { to: String },

    /// The answer is not a list page.
    #[error("the service sent data convo cannot read: {detail}")]
    Decode { detail: String },
}

fn unauthorized_text(status: u16, detail: &str, origin: &KeySource) -> String {
    if status == 403 {
        format!(
            "the key is not allowed to list this (HTTP 403{detail}): the service accepted the \
             key from {origin} but refused this list; ask for a key with access to it, or \
             use the profile meant for it"
        )
    } else {
        format!(
            "the key was rejected (HTTP {status}{detail}): the service did not accept the key \
             from {origin}; check or replace it"
        )
    }
}

impl ApiError {
    /// What happened, without the advice to retry later that the whole message ends with: for
    /// a screen that gives its own retry hint (the TUI's status line: "r retries; loaded rows
    /// stay"), so each thing is said once. Advice that is not about retrying (check the base
    /// URL, the key, a setting) stays.
    pub fn cause(&self) -> String {
        match self {
            ApiError::Server {
                status,
                detail,
                attempts,
            } => format!("the service failed (HTTP {status}{detail}) {attempts} times in a row"),
            ApiError::RateLimited { attempts, detail } => format!(
                "the service is rate limiting (HTTP 429{detail}) and still was after {attempts} \
                 attempts"
            ),
            other => other.to_string(),
        }
    }
}
