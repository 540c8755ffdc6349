//! Test-only fault switches: each makes the demo server misbehave in one named way.

/// Fault switches, off by default; any combination may be on. Request numbers count `/v1`
/// requests from 1, faulty ones included.
///
/// For request n they apply in this order: `latency`, `hang`, `redirect_to`, `echo_key`, then
/// the key is checked (a 401 comes before any other fault), then `fail_always`, `fail_first`,
/// `fail_every`, `rate_limit_first`, `malformed_page`, `wrong_shape`; then the parameters are
/// validated (400); then the page faults (`oversize_page`, `duplicate_ids`,
/// `null_cursor_with_more`, `cursor_loop`, `bad_row`, `bad_bytes_row`, `reset_mid_body`). `unknown_status`,
/// `hostile`, `big_attribute` and `backlog` change the data at start; `churn` changes the conversations
/// before each conversations request it applies to.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// The first N requests answer `fail_status` (default 500).
    pub fail_first: u32,
    /// Status for `fail_first`; anything below 400 (0 included) means 500.
    pub fail_status: u16,
    /// Every Nth request answers 503.
    pub fail_every: u32,
    /// Every request answers 500.
    pub fail_always: bool,
    /// Every request after the first N answers 500 (a service that dies mid-walk).
    pub fail_after: Option<u32>,
    /// Status for `fail_after`: 401 or 403 play a key revoked or narrowed mid-walk; anything
    /// below 400 (0 included) means 500.
    pub fail_after_status: u16,
    /// Requests whose path and query hold this text answer 403: a key narrowed to some sites
    /// or lists, so that one view fails while the others are read.
    pub forbid_matching: Option<String>,
    /// The first N requests answer 429 with `Retry-After: retry_after` (when `fail_first` is
    /// also set, it wins for the requests both cover).
    pub rate_limit_first: u32,
    /// The `Retry-After` value for `rate_limit_first` (empty or not a valid header value: "1").
    pub retry_after: String,
    /// The Nth request answers 200 with truncated, invalid JSON.
    pub malformed_page: Option<u32>,
    /// Every request answers 200 with valid JSON of the wrong shape.
    pub wrong_shape: bool,
    /// Every page carries one extra row that cannot be parsed.
    pub bad_row: bool,
    /// Every page carries one extra row whose string holds bytes no JSON parser takes: invalid
    /// UTF-8, or a raw control character.
    pub bad_bytes_row: Option<BadBytes>,
    /// Requests are accepted and never answered.
    pub hang: bool,
    /// Headers and part of the body are sent, then the connection is dropped.
    pub reset_mid_body: bool,
    /// Pages are a small gzip body that inflates without end: a decompression bomb, which a
    /// client must refuse by its decoded size.
    pub gzip_bomb: bool,
    /// Pages are a small zstd body that inflates without end (the same bomb in zstd), its
    /// frame asking for the largest window HTTP allows (8 MiB, RFC 9659).
    pub zstd_bomb: bool,
    /// Answers a client may get compressed (its `Accept-Encoding` names zstd, br or gzip)
    /// come this much later: a service whose compression is slow (busy, or at a high level),
    /// so that plain answers are the faster on any link.
    pub slow_compression: Option<std::time::Duration>,
    /// Pages hold `limit + 5` rows.
    pub oversize_page: bool,
    /// The first page says `has_more: true` with `next_cursor: null`.
    pub null_cursor_with_more: bool,
    /// Every page after the first hands back the cursor it was asked with.
    pub cursor_loop: bool,
    /// Every page after the first repeats the last 3 rows of the one before.
    pub duplicate_ids: bool,
    /// Every 7th conversation has the status "snoozed".
    pub unknown_status: bool,
    /// Visitor text fields hold escape sequences, bidi overrides, spreadsheet formulas, a
    /// 5,000-character name; every 13th conversation's status is a formula.
    pub hostile: bool,
    /// Every request answers this status (below 400: 500) with an error body that quotes the
    /// credentials it received, as a careless service does ("invalid key: Bearer sk_…").
    pub echo_key: Option<u16>,
    /// Every request answers 307 to this origin (same path and query).
    pub redirect_to: Option<String>,
    /// The first visitor's attributes hold a 2 MB string.
    pub big_attribute: bool,
    /// Every `createdAt` cut to its hour, so that many rows share a second (a service that
    /// stores coarse times): the lists' keyset order, (createdAt, id), then decides ties by id.
    pub coarse_times: bool,
    /// Conversations change between requests (new ones at the head, pick-ups, reassignments).
    pub churn: super::Churn,
    /// The newest N open conversations an agent holds (past the live queue) are left
    /// unassigned: a backlog, so the "Unassigned open" view runs to several pages.
    pub backlog: usize,
    /// The order both lists are served in (the spec promises none): newest first (the
    /// default, docs/design.md "Demo server"), oldest first, or conversations by `updatedAt` latest first.
    /// Not with churn (which adds rows at the newest end).
    pub order: ServeOrder,
    /// With TLS: the certificate is wrong in this way (signed by the same CA).
    pub bad_cert: Option<BadCert>,
    /// With TLS: offer only HTTP/1.1 by ALPN, as a service (or a proxy in front of it) that
    /// does not speak HTTP/2; concurrent requests then need connections of their own.
    pub http1_only: bool,
}

/// What is wrong inside the row of the `bad_bytes_row` fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadBytes {
    /// Bytes 0xFF 0xFE inside a string: not UTF-8.
    Utf8,
    /// A raw 0x01 and a raw newline inside a string: JSON wants them escaped.
    Control,
}

impl BadBytes {
    /// The row, with a readable id so that the report can name it.
    pub fn row(self) -> &'static [u8] {
        match self {
            BadBytes::Utf8 => {
                b"{\"id\":\"00000000-0000-4000-8000-0000000000b1\",\"name\":\"Ana \xff\xfe Lu\",\"status\":\"open\"}"
            }
            BadBytes::Control => {
                b"{\"id\":\"00000000-0000-4000-8000-0000000000b2\",\"name\":\"Ana \x01 Lu\n\",\"status\":\"open\"}"
            }
        }
    }
}

/// How the TLS demo server's certificate is wrong (`--bad-cert`), for testing what a client
/// says about it. The CA is the usual one, so trusting it leaves only this fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadCert {
    /// Issued for `wrong.example`, not `localhost` / `127.0.0.1`.
    WrongName,
    /// Valid from 2020-01-01 to 2021-01-01.
    Expired,
}

/// `convo demo-server --order`: the order rows are served in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ServeOrder {
    /// createdAt descending, then id descending (docs/design.md "Demo server").
    #[default]
    Newest,
    /// createdAt ascending, then id ascending.
    Oldest,
    /// Conversations by updatedAt descending, then id descending (visitors newest first).
    Updated,
    /// Newest first, except `status=pending`, served oldest first: requests that disagree.
    Mixed,
}

/// True when `Accept-Encoding` names an encoding the demo server compresses with.
#[cfg(feature = "faults")]
pub fn asks_compressed(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get_all(axum::http::header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|e| {
            let mut parts = e.split(';');
            let name = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    == Some(0.0)
            });
            ["zstd", "br", "gzip"]
                .iter()
                .any(|n| name.eq_ignore_ascii_case(n))
                && !refused
        })
}

// What the fault switches do. Compiled only with the `faults` feature, which convo's own tests
// turn on (`cargo test`) and a release build never does; without it the switches above are
// never read and the server answers as a well-behaved service.

#[cfg(feature = "faults")]
use axum::body::{Body, Bytes};
#[cfg(feature = "faults")]
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
#[cfg(feature = "faults")]
use axum::response::{IntoResponse, Response};
#[cfg(feature = "faults")]
use std::time::Duration;

#[cfg(feature = "faults")]
use super::query::{ApiErr, json_response};

/// What the faults that come before the key is checked ask of a request, in this order: a
/// wait (a slow compressor), a server that hangs (for an hour, then 503), an answer (a
/// redirect to another origin, one that echoes the key).
#[cfg(feature = "faults")]
pub(crate) struct BeforeKey {
    pub wait: Option<Duration>,
    pub hang: bool,
    pub answer: Option<Response>,
}

/// The faults before the key for this request (the server does the waiting).
#[cfg(feature = "faults")]
pub(crate) fn before_key(f: &Faults, uri: &Uri, headers: &HeaderMap) -> BeforeKey {
    BeforeKey {
        wait: f.slow_compression.filter(|_| asks_compressed(headers)),
        hang: f.hang,
        answer: early_answer(f, uri, headers),
    }
}

/// A redirect to another origin, or an error that echoes the key.
#[cfg(feature = "faults")]
fn early_answer(f: &Faults, uri: &Uri, headers: &HeaderMap) -> Option<Response> {
    if let Some(to) = &f.redirect_to {
        let pq = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
        let loc = format!("{}{pq}", to.trim_end_matches('/'));
        return Some((StatusCode::TEMPORARY_REDIRECT, [(header::LOCATION, loc)]).into_response());
    }
    if let Some(status) = f.echo_key {
        let st = StatusCode::from_u16(status)
            .ok()
            .filter(|s| s.as_u16() >= 400)
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let got = headers
            .get(header::AUTHORIZATION)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        return Some(
            ApiErr {
                status: st,
                code: "echo",
                message: format!("{got} is not accepted for this request"),
                param: None,
            }
            .into_response(),
        );
    }
    None
}

/// The faults that come after the key is accepted (request `n`, from 1): failures, 403s,
/// 429s, malformed and wrong-shaped answers. `Some(answer)` answers the request.
#[cfg(feature = "faults")]
pub(crate) fn after_key(f: &Faults, n: u64, uri: &Uri) -> Option<Response> {
    let fail = |status: StatusCode| {
        ApiErr::new(status, "server_error", "the demo server was told to fail").into_response()
    };
    if f.fail_after.is_some_and(|k| n > u64::from(k)) {
        return Some(match f.fail_after_status {
            401 => ApiErr::new(
                StatusCode::UNAUTHORIZED,
                "invalid_api_key",
                "the API key was revoked",
            )
            .into_response(),
            403 => ApiErr::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                "this key may not list this resource",
            )
            .into_response(),
            st => fail(
                StatusCode::from_u16(st)
                    .ok()
                    .filter(|s| s.as_u16() >= 400)
                    .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            ),
        });
    }
    if f.fail_always {
        return Some(fail(StatusCode::INTERNAL_SERVER_ERROR));
    }
    if let Some(t) = &f.forbid_matching
        && uri
            .path_and_query()
            .is_some_and(|pq| pq.as_str().contains(t.as_str()))
    {
        return Some(
            ApiErr::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                "this key may not list these conversations",
            )
            .into_response(),
        );
    }
    if n <= u64::from(f.fail_first) {
        let st = StatusCode::from_u16(f.fail_status)
            .ok()
            .filter(|s| s.as_u16() >= 400)
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        return Some(fail(st));
    }
    if f.fail_every > 0 && n.is_multiple_of(u64::from(f.fail_every)) {
        return Some(fail(StatusCode::SERVICE_UNAVAILABLE));
    }
    if n <= u64::from(f.rate_limit_first) {
        let mut r = ApiErr::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "too many requests; wait Retry-After",
        )
        .into_response();
        let ra = HeaderValue::from_str(&f.retry_after)
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or(HeaderValue::from_static("1"));
        r.headers_mut().insert(header::RETRY_AFTER, ra);
        return Some(r);
    }
    if f.malformed_page == Some(n as u32) {
        return Some(json_response(
            br#"{"data":[{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d"#.to_vec(),
        ));
    }
    if f.wrong_shape {
        return Some(json_response(br#"{"items":[],"total":0}"#.to_vec()));
    }
    None
}

/// A decompression bomb for a page's body, when one is asked for.
#[cfg(feature = "faults")]
pub(crate) fn bomb(f: &Faults) -> Option<Response> {
    if f.gzip_bomb {
        return Some(
            (
                [
                    (header::CONTENT_TYPE, "application/json"),
                    (header::CONTENT_ENCODING, "gzip"),
                ],
                Body::from_stream(gzip_bomb()),
            )
                .into_response(),
        );
    }
    if f.zstd_bomb {
        return Some(
            (
                [
                    (header::CONTENT_TYPE, "application/json"),
                    (header::CONTENT_ENCODING, "zstd"),
                ],
                Body::from_stream(zstd_bomb()),
            )
                .into_response(),
        );
    }
    None
}

/// Half of `body`, then the connection dropped.
#[cfg(feature = "faults")]
pub(crate) fn reset_mid_body(body: Vec<u8>) -> Response {
    let half = Bytes::from(body[..body.len() / 2].to_vec());
    let stream = futures::stream::iter([
        Ok::<Bytes, std::io::Error>(half),
        Err(std::io::Error::other("connection reset by the demo server")),
    ]);
    (
        [(header::CONTENT_TYPE, "application/json")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// How much the `gzip_bomb` fault inflates to: 1 GiB of zeros, in about a megabyte.
#[cfg(feature = "faults")]
pub const BOMB_INFLATED: usize = 1 << 30;

/// The `gzip_bomb` body: a gzip header, then deflate blocks of 1 MiB of zeros each, with no
/// end. Each block is flushed to a byte boundary, and the compressor's state is the same after
/// each one (a window of zeros), so every block after the first is the same bytes: the stream
/// is made once, in a millisecond, and repeated.
#[cfg(feature = "faults")]
pub fn gzip_bomb() -> impl futures::Stream<Item = Result<axum::body::Bytes, std::io::Error>> + Send
{
    use flate2::{Compress, Compression, FlushCompress};
    const BLOCK: usize = 1 << 20;
    let zeros = vec![0u8; BLOCK];
    let mut c = Compress::new(Compression::best(), false);
    let block = |c: &mut Compress| {
        let mut out = Vec::with_capacity(64 * 1024);
        // 1 MiB of zeros deflates to about a kilobyte: one call takes it all.
        let _ = c.compress_vec(&zeros, &mut out, FlushCompress::Sync);
        out
    };
    // A gzip header: magic, deflate, no flags, no time, no extra flags, unknown OS.
    let mut first = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    first.extend(block(&mut c));
    let next = axum::body::Bytes::from(block(&mut c));
    let rest = std::iter::repeat_n(next, BOMB_INFLATED / BLOCK - 1);
    futures::stream::iter(
        std::iter::once(axum::body::Bytes::from(first))
            .chain(rest)
            .map(Ok),
    )
}

/// The `zstd_bomb` body: one zstd frame with no content size and a window of 8 MiB (the most
/// RFC 9659 allows), then RLE blocks of 128 KiB of zeros, 4 bytes each, with no last block:
/// 32 KiB on the wire for 1 GiB, and no end.
#[cfg(feature = "faults")]
pub fn zstd_bomb() -> impl futures::Stream<Item = Result<axum::body::Bytes, std::io::Error>> + Send
{
    const BLOCK: usize = 128 << 10;
    // Magic; frame header descriptor 0 (no content size, not single-segment, no checksum, no
    // dictionary); window descriptor: exponent 13, mantissa 0 = 2^(10 + 13) bytes.
    let header = axum::body::Bytes::from_static(&[0x28, 0xb5, 0x2f, 0xfd, 0x00, 13 << 3]);
    // Block header (3 bytes, little-endian): not last, type 1 (RLE), size 128 KiB; then the
    // byte repeated.
    let h = (BLOCK << 3) | (1 << 1);
    let rle = [h as u8, (h >> 8) as u8, (h >> 16) as u8, 0];
    // 1 MiB of blocks a chunk.
    let chunk = axum::body::Bytes::from(rle.repeat((1 << 20) / BLOCK));
    let rest = std::iter::repeat_n(chunk, BOMB_INFLATED >> 20);
    futures::stream::iter(std::iter::once(header).chain(rest).map(Ok))
}

#[cfg(all(test, feature = "faults"))]
mod tests {
    use futures::StreamExt;
    use std::io::Read;

    #[tokio::test]
    async fn the_bomb_is_small_and_inflates_to_zeros_block_after_block() {
        let parts: Vec<axum::body::Bytes> = super::gzip_bomb()
            .take(4)
            .map(|r| r.expect("no error"))
            .collect()
            .await;
        let compressed: Vec<u8> = parts.concat();
        assert!(compressed.len() < 16 * 1024, "{} bytes", compressed.len());
        let mut inflated = Vec::new();
        // The stream has no end: read what the four blocks give.
        let mut d = flate2::read::GzDecoder::new(&compressed[..]);
        let _ = d.read_to_end(&mut inflated);
        assert_eq!(inflated.len(), 4 << 20);
        assert!(inflated.iter().all(|&b| b == 0));
    }

    #[tokio::test]
    async fn the_zstd_bomb_is_small_and_inflates_to_zeros_without_end() {
        let parts: Vec<axum::body::Bytes> = super::zstd_bomb()
            .take(5)
            .map(|r| r.expect("no error"))
            .collect()
            .await;
        let compressed: Vec<u8> = parts.concat();
        assert!(compressed.len() < 1024, "{} bytes", compressed.len());
        let mut d = zstd::stream::read::Decoder::with_buffer(&compressed[..]).expect("decoder");
        let mut inflated = vec![0u8; 4 << 20];
        d.read_exact(&mut inflated).expect("4 MiB of the stream");
        assert!(inflated.iter().all(|&b| b == 0));
        // The frame goes on: nothing says where it ends.
        assert!(
            d.read_to_end(&mut Vec::new()).is_err(),
            "the frame has no end"
        );
    }
}
