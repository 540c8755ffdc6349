//! What `convo doctor` asks of the service: one request without retries per list (its time,
//! the server's clock, the rows), the compression the service offers, and the client's
//! settled choice between compressed and plain answers. Each goes through the client's own
//! request ([`Client::once`] or [`Client::get_body`]): its auth, pacing, budget, and errors
//! scrubbed of the key.

use std::time::Duration;

use convo_api::client::{Accept, Answer};
use convo_api::encoding::{self, Choice};
use convo_api::{ApiError, Client, Conversation, Limit, Resource, Visitor};
use convo_text as text;

/// What one probe request found.
#[derive(Debug, Clone)]
pub struct Probe {
    pub elapsed: Duration,
    /// The server's `Date` header, when it sent a readable one.
    pub server_date: Option<jiff::Timestamp>,
    pub rows: usize,
}

/// What the doctor learns of the service's compression from one page of 100 rows.
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

/// One request for a one-row page of `resource`, without retries: its time, the server's
/// clock and the rows.
pub async fn probe(client: &Client, resource: Resource) -> Result<Probe, ApiError> {
    let url = client.page_url(resource, &[], Limit::new(1)?, None);
    let Answer {
        headers,
        body,
        elapsed,
        ..
    } = client.once(url, Accept::Chosen).await?;
    let rows = match resource {
        Resource::Conversations => client.decode_page::<Conversation>(&body)?.items.len(),
        Resource::Visitors => client.decode_page::<Visitor>(&body)?.items.len(),
    };
    Ok(Probe {
        elapsed,
        server_date: headers
            .get("date")
            .and_then(|v| v.to_str().ok())
            .and_then(|d| jiff::fmt::rfc2822::parse(d).ok())
            .map(|z| z.timestamp()),
        rows,
    })
}

/// One page of 100 conversations asked for compressed, as convo asks, and again plain, both
/// read undecoded, to say whether the service compresses and how much a page shrinks. No
/// retries.
pub async fn compression(client: &Client) -> Result<Compression, ApiError> {
    let url = client.page_url(Resource::Conversations, &[], Limit::new(100)?, None);
    let compressed = client
        .once(url.clone(), Accept::Wire(encoding::COMPRESSED))
        .await?;
    let plain = client.once(url, Accept::Wire("identity")).await?;
    Ok(Compression {
        encoding: compressed
            .headers
            .get("content-encoding")
            .and_then(|v| v.to_str().ok())
            .map(|v| text::one_line(v, 40))
            .filter(|v| !v.eq_ignore_ascii_case("identity")),
        wire_bytes: compressed.body.len(),
        plain_bytes: plain.body.len(),
    })
}

/// Asks for the first page of 100 conversations (at most ten times, with the client's
/// retries) until the client's choice between compressed and plain answers stands on two
/// times each way, and returns the choice.
pub async fn settle_encoding(client: &Client) -> Result<Option<Choice>, ApiError> {
    let url = client.page_url(Resource::Conversations, &[], Limit::new(100)?, None);
    for _ in 0..10 {
        if client.encoding_settled() {
            break;
        }
        client.get_body(url.clone(), &|_| {}).await?;
    }
    Ok(client.encoding_choice())
}
