//! What `convo doctor` asks of the service through the client, beside the retry loop rather
//! than in it: one request without retries (its time, the server's clock, the rows), the
//! compression the service offers, and the client's settled choice between compressed and
//! plain answers. A child module of `client`, so it uses the client's own request path.

use std::time::Duration;

use super::{Client, Failure, MAX_BODY_BYTES, read_body};
use crate::error::ApiError;
use crate::filter::{Limit, Resource};
use crate::model::Page;
use convo_text as text;

/// What one probe request found (`convo doctor`).
#[derive(Debug, Clone)]
pub struct Probe {
    pub elapsed: Duration,
    /// The server's `Date` header, when it sent a readable one.
    pub server_date: Option<jiff::Timestamp>,
    pub rows: usize,
}

/// What `convo doctor` learns of the service's compression from one page of 100 rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compression {
    /// `Content-Encoding` of the answer to a request that accepts zstd, brotli and gzip; `None`
    /// when the service sent it plain.
    pub encoding: Option<String>,
    /// Bytes on the wire of that answer.
    pub wire_bytes: usize,
    /// Bytes of the same page asked for plain (`Accept-Encoding: identity`).
    pub plain_bytes: usize,
}

impl Client {
    /// `convo doctor`: one page of 100 conversations asked for compressed, as convo asks, and
    /// again plain, both read undecoded, to say whether the service compresses and how much
    /// a page shrinks. No retries.
    pub async fn probe_compression(&self) -> Result<Compression, ApiError> {
        let http = self
            .wire
            .builder()
            .no_gzip()
            .no_brotli()
            .build()
            .map_err(|e| ApiError::Setup(format!("cannot build the HTTP client: {e}")))?;
        let url = self.page_url(Resource::Conversations, &[], Limit::new(100)?, None);
        let get = |accept: &'static str| {
            let (http, url) = (&http, url.clone());
            async move {
                let resp = http
                    .get(url)
                    .header(self.auth_name.clone(), self.auth_value.clone())
                    .header(reqwest::header::ACCEPT, "application/json")
                    .header(reqwest::header::ACCEPT_ENCODING, accept)
                    .send()
                    .await
                    .map_err(|e| {
                        self.redact
                            .error(self.transport_failure(&e, 1).into_error())
                    })?;
                if !resp.status().is_success() {
                    return Err(ApiError::Http {
                        status: resp.status().as_u16(),
                        detail: String::new(),
                    });
                }
                let encoding = resp
                    .headers()
                    .get(reqwest::header::CONTENT_ENCODING)
                    .and_then(|v| v.to_str().ok())
                    .map(|v| text::one_line(v, 40))
                    .filter(|v| !v.eq_ignore_ascii_case("identity"));
                let body = read_body(resp, MAX_BODY_BYTES)
                    .await
                    .map_err(|e| {
                        self.redact
                            .error(self.transport_failure(&e, 1).into_error())
                    })?
                    .unwrap_or_default();
                Ok::<_, ApiError>((encoding, body.len()))
            }
        };
        let (encoding, wire_bytes) = get(crate::encoding::COMPRESSED).await?;
        let (_, plain_bytes) = get("identity").await?;
        Ok(Compression {
            encoding,
            wire_bytes,
            plain_bytes,
        })
    }

    /// `convo doctor`: asks for the first page of 100 conversations (at most ten times) until
    /// the client's choice between compressed and plain answers stands on two times each way,
    /// and returns the choice.
    pub async fn settle_encoding(&self) -> Result<Option<crate::encoding::Choice>, ApiError> {
        let url = self.page_url(Resource::Conversations, &[], Limit::new(100)?, None);
        for _ in 0..10 {
            if self.encoding.settled() {
                break;
            }
            self.get_body(url.clone(), &|_| {}).await?;
        }
        Ok(self.encoding.choice())
    }

    /// One request without retries, for `convo doctor`: its time, the server's clock and the
    /// rows of a one-row page.
    pub async fn probe(&self, resource: Resource) -> Result<Probe, ApiError> {
        self.probe_as_sent(resource)
            .await
            .map_err(|e| self.redact.error(e))
    }

    async fn probe_as_sent(&self, resource: Resource) -> Result<Probe, ApiError> {
        let url = self.page_url(resource, &[], Limit::new(1)?, None);
        let started = std::time::Instant::now();
        let (body, date) = self
            .attempt_with_date(&url, 1)
            .await
            .map_err(Failure::into_error)?;
        let elapsed = started.elapsed();
        let rows = match resource {
            Resource::Conversations => {
                Page::<crate::model::Conversation>::decode(&body).map(|p| p.items.len())
            }
            Resource::Visitors => {
                Page::<crate::model::Visitor>::decode(&body).map(|p| p.items.len())
            }
        }
        .map_err(|e| ApiError::Decode { detail: e.0 })?;
        Ok(Probe {
            elapsed,
            server_date: date
                .and_then(|d| jiff::fmt::rfc2822::parse(&d).ok())
                .map(|z| z.timestamp()),
            rows,
        })
    }
}
