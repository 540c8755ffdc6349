//! The HTTP client: one connection pool, the auth header, the transport rule, same-origin
//! redirects only, timeouts and the retry policy of docs/design.md ("Transport", "Errors").

use std::error::Error as _;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use reqwest::{StatusCode, Url, redirect};
use serde::Deserialize;

use super::budget::{Budget, Priority};
use super::clock::Clock;
use super::error::ApiError;
use super::filter::{Limit, ListFilter, Resource};
use super::key::ApiKey;
use super::model::Page;
use super::proxy::{self, ProxySetting, Route};
use super::redact::Redactor;
use convo_text as text;

/// Bodies larger than this are refused rather than held in memory (a lying server).
pub const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// Requests in flight to one service at once, unless `max_parallel` says otherwise.
pub const DEFAULT_MAX_PARALLEL: usize = 4;

/// How failed requests are retried (docs/design.md "Errors").
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Waits before each retry of a 5xx, timeout or connection error; its length is the
    /// number of retries.
    pub backoff: Vec<Duration>,
    /// How many 429 answers in a row are waited out before giving up.
    pub max_rate_limit_waits: u32,
    /// The longest `Retry-After` honoured.
    pub max_retry_after: Duration,
    /// The wait when a 429 has no usable `Retry-After`.
    pub default_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            backoff: vec![
                Duration::from_millis(500),
                Duration::from_secs(1),
                Duration::from_secs(2),
            ],
            max_rate_limit_waits: 5,
            max_retry_after: Duration::from_secs(60),
            default_retry_after: Duration::from_secs(1),
        }
    }
}

/// Everything the client needs; built from the config.
#[derive(Debug, Clone)]
pub struct ClientSettings {
    pub base_url: String,
    pub key: ApiKey,
    /// Header that carries the key (docs/design.md "Authentication": default `Authorization`).
    pub auth_header: String,
    /// Scheme before the key (default `Bearer`); empty sends the bare key.
    pub auth_scheme: String,
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub allow_insecure_http: bool,
    pub retry: RetryPolicy,
    /// `--proxy` / `proxy` in the config; [`ProxySetting::Environment`] reads the usual
    /// variables (see [`super::proxy`]).
    pub proxy: ProxySetting,
    /// `ca_file`: a PEM bundle of extra trusted roots (the system's stay trusted, and
    /// `SSL_CERT_FILE` / `SSL_CERT_DIR` keep working). Already `~`-expanded.
    pub ca_file: Option<PathBuf>,
    /// `max_parallel`: at most this many requests in flight to the service at once, whoever
    /// sends them (prefetch, refresh, the visitor sync, a query's streams). Default 4.
    pub max_parallel: usize,
    /// The time of the client's waits (a `Retry-After`, a retry's back-off, the budget) and of
    /// the visitor sync that sends through it: the real clock; tests give a
    /// `ManualClock` ([`super::clock`]). The transport's timeouts stay real.
    pub clock: Arc<dyn Clock>,
}

impl ClientSettings {
    /// Settings with the defaults of docs/design.md ("Transport", "Errors").
    pub fn new(base_url: impl Into<String>, key: ApiKey) -> ClientSettings {
        ClientSettings {
            base_url: base_url.into(),
            key,
            auth_header: "Authorization".into(),
            auth_scheme: "Bearer".into(),
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(15),
            allow_insecure_http: false,
            retry: RetryPolicy::default(),
            proxy: ProxySetting::Environment,
            ca_file: None,
            max_parallel: DEFAULT_MAX_PARALLEL,
            clock: super::clock::system(),
        }
    }
}

/// Said before each retry, so a caller can show a countdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// 1 for the first retry.
    pub attempt: u32,
    /// How long the client waits before it.
    pub wait: Duration,
    /// Why, in a few words (sanitised).
    pub reason: String,
    /// True when the service asked to slow down (429).
    pub rate_limited: bool,
    /// True when no request was sent: the client waits for the request budget to have a slot
    /// (`attempt` is 0).
    pub budget: bool,
}

/// A client of the two list endpoints. Cheap to clone (one shared pool).
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Url,
    host: String,
    auth_name: HeaderName,
    auth_value: HeaderValue,
    key: ApiKey,
    /// Takes the key out of server text before it leaves the client.
    redact: Redactor,
    retry: RetryPolicy,
    timeout: Duration,
    route: Route,
    /// Until one request has had an answer, requests go out one at a time: before the first
    /// handshake nobody knows whether the service speaks HTTP/2, and concurrent requests
    /// (prefetch, a visitor sync, the streams of a query) would each open a connection of
    /// their own. After it, they share the one HTTP/2 connection (or, with HTTP/1.1, open
    /// what they need).
    first: Arc<FirstAnswer>,
    /// What every request to the service shares: the `max_parallel` permits, and the pause a
    /// 429 asks for (one stream rate limited slows them all, as the service meant).
    pacing: Arc<Pacing>,
    /// How the pool was built, and the undecoded pool of [`Accept::Wire`] built the same way.
    wire: Arc<Wire>,
    /// Requests sent, by endpoint and answer (`convo exporter`'s own series).
    stats: Arc<super::stats::RequestStats>,
    /// The service's request budget, shared by every clone (see [`super::budget`]).
    budget: Arc<Budget>,
    /// Whose requests this clone sends: [`Client::background`] makes a background one.
    priority: Priority,
    /// Whether to ask this service for compressed answers or plain ones (`super::encoding`).
    encoding: Arc<super::encoding::Chooser>,
    /// See [`ClientSettings::clock`].
    clock: Arc<dyn Clock>,
}

/// The transport settings a pool is built from.
struct Wire {
    /// TLS (https only): reqwest's set-up with `ca_file`'s roots added, the system's loading
    /// in the background (`super::tls`); `None` for plain http.
    tls: Option<rustls::ClientConfig>,
    proxy: Option<reqwest::Proxy>,
    connect_timeout: Duration,
    request_timeout: Duration,
    /// The pool that leaves bodies as they came ([`Accept::Wire`]), built on first use.
    undecoded: std::sync::OnceLock<Result<reqwest::Client, String>>,
}

impl Wire {
    /// The pool of [`Accept::Wire`]: the same transport, no decoding of gzip or brotli.
    fn undecoded(&self) -> Result<&reqwest::Client, ApiError> {
        self.undecoded
            .get_or_init(|| {
                self.builder()
                    .no_gzip()
                    .no_brotli()
                    .build()
                    .map_err(|e| format!("cannot build the HTTP client: {e}"))
            })
            .as_ref()
            .map_err(|e| ApiError::Setup(e.clone()))
    }

    fn builder(&self) -> reqwest::ClientBuilder {
        let mut builder = http_builder();
        builder = match &self.tls {
            Some(tls) => builder.tls_backend_preconfigured(tls.clone()),
            // Plain http, and redirects stay on this origin (scheme included): TLS is never
            // used, so the system's root certificates are not loaded (a few ms at start-up).
            None => builder.tls_certs_only(Vec::new()),
        };
        if let Some(p) = &self.proxy {
            builder = builder.proxy(p.clone());
        }
        builder
            .redirect(redirect_policy())
            .connect_timeout(self.connect_timeout)
            .timeout(self.request_timeout)
    }
}

/// See [`Client::pacing`].
struct Pacing {
    clock: Arc<dyn Clock>,
    in_flight: tokio::sync::Semaphore,
    /// No request leaves before this instant (set by a 429's `Retry-After`).
    paused_until: std::sync::Mutex<Option<tokio::time::Instant>>,
}

impl Pacing {
    fn new(max_parallel: usize, clock: Arc<dyn Clock>) -> Pacing {
        Pacing {
            clock,
            in_flight: tokio::sync::Semaphore::new(max_parallel.max(1)),
            paused_until: std::sync::Mutex::new(None),
        }
    }

    fn pause_until(&self) -> Option<tokio::time::Instant> {
        *self
            .paused_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every request waits out a pause the service asked for.
    fn pause(&self, wait: Duration) {
        let until = self.clock.now() + wait;
        let mut p = self
            .paused_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if p.is_none_or(|t| t < until) {
            *p = Some(until);
        }
    }

    /// Waits for a pause to end and a permit to be free; the permit is held while the request
    /// is in flight.
    async fn admit(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        loop {
            if let Some(t) = self.pause_until()
                && t > self.clock.now()
            {
                self.clock.sleep_until(t).await;
            }
            // Closed never: the semaphore lives as long as the client.
            let permit = self.in_flight.acquire().await.ok();
            // A 429 that came while this one waited for its permit: wait it out too.
            match self.pause_until() {
                Some(t) if t > self.clock.now() => drop(permit),
                _ => return permit,
            }
        }
    }
}

/// See [`Client::first`].
#[derive(Default)]
struct FirstAnswer {
    seen: std::sync::atomic::AtomicBool,
    gate: tokio::sync::Mutex<()>,
}

impl FirstAnswer {
    fn seen(&self) -> bool {
        self.seen.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Waits for the request before this one to be answered, unless one already was.
    async fn wait(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        if self.seen() {
            return None;
        }
        let guard = self.gate.lock().await;
        (!self.seen()).then_some(guard)
    }

    fn answered(&self) {
        self.seen.store(true, std::sync::atomic::Ordering::Release);
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base.as_str())
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// Installs the rustls crypto provider once (it lives with the TLS set-up, below the client).
use super::tls::install_crypto_provider;

/// How [`Client::once`] asks for its answer's encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept<'a> {
    /// As every request of this client: its choice between compressed and plain answers
    /// (`super::encoding`), which this answer's time counts toward; the body comes decoded.
    Chosen,
    /// This `Accept-Encoding`, and the body as it came on the wire (not decoded): a look at
    /// the wire beside the client's own requests, not paced, counted nor budgeted.
    Wire(&'a str),
}

/// A successful answer to [`Client::once`] (any other status is an error).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    /// Decoded or not, as [`Accept`] asked.
    pub body: Vec<u8>,
    /// From the request's sending to the body's last byte.
    pub elapsed: Duration,
}

/// A reqwest builder with the crypto provider installed, no proxy and no redirects.
/// Tests that talk to the demo server directly use this too.
pub fn http_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
        .user_agent(concat!("convo/", env!("CARGO_PKG_VERSION")))
        .no_proxy()
        .redirect(redirect::Policy::none())
}

/// True for 127.0.0.0/8, ::1 and `localhost` exactly (`*.localhost` depends on the resolver).
pub fn is_loopback_host(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Parses and checks a base URL against the transport rule, before any I/O.
pub fn check_base_url(raw: &str, allow_insecure_http: bool) -> Result<Url, ApiError> {
    let bad = |reason: &str| ApiError::BadBaseUrl {
        url: text::one_line(raw, 200),
        reason: reason.into(),
    };
    let mut url = Url::parse(raw.trim()).map_err(|e| bad(&e.to_string()))?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("credentials in the URL are not supported; use api_key"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("it must not have a query or fragment"));
    }
    match url.scheme() {
        "https" => {}
        "http" if is_loopback_host(&url) || allow_insecure_http => {}
        "http" => {
            return Err(ApiError::InsecureTransport {
                host: url.host_str().unwrap_or_default().to_string(),
            });
        }
        other => return Err(bad(&format!("scheme {other}: is not http or https"))),
    }
    // Keep a path prefix (e.g. https://host/chat) and join /v1/... onto it.
    let path = url.path().trim_end_matches('/').to_string();
    url.set_path(&path);
    Ok(url)
}

fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// The redirect rule: follow only within the origin, at most 5 hops; otherwise hand the 3xx
/// back so it becomes [`ApiError::Redirect`].
fn redirect_policy() -> redirect::Policy {
    redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().cloned();
        match first {
            Some(first) if attempt.previous().len() <= 5 && same_origin(&first, attempt.url()) => {
                attempt.follow()
            }
            _ => attempt.stop(),
        }
    })
}

/// Why one attempt failed, and whether to try again.
enum Failure {
    Retry { error: ApiError, reason: String },
    RateLimited { wait: Duration, detail: String },
    Fatal(ApiError),
}

impl Failure {
    /// The error, when there is no retrying it ([`Client::once`]).
    fn into_error(self) -> ApiError {
        match self {
            Failure::Fatal(e) | Failure::Retry { error: e, .. } => e,
            Failure::RateLimited { detail, .. } => ApiError::RateLimited {
                attempts: 1,
                detail,
            },
        }
    }
}

impl Client {
    /// Checks the settings (transport rule, header) and builds the pool. No I/O.
    pub fn new(settings: ClientSettings) -> Result<Client, ApiError> {
        let env = |k: &str| std::env::var(k).ok();
        Client::new_with_env(settings, &env)
    }

    /// [`Client::new`] with the environment given (the proxy variables are read from it).
    pub fn new_with_env(
        settings: ClientSettings,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Client, ApiError> {
        let base = check_base_url(&settings.base_url, settings.allow_insecure_http)?;
        let host = match base.port() {
            Some(p) => format!("{}:{p}", base.host_str().unwrap_or_default()),
            None => base.host_str().unwrap_or_default().to_string(),
        };
        let bad = |reason: String| ApiError::BadBaseUrl {
            url: base.to_string(),
            reason,
        };
        let auth_name =
            HeaderName::from_bytes(settings.auth_header.trim().as_bytes()).map_err(|_| {
                bad(format!(
                    "auth_header {:?} is not a header name",
                    settings.auth_header
                ))
            })?;
        let value = if settings.auth_scheme.trim().is_empty() {
            settings.key.expose().to_string()
        } else {
            format!("{} {}", settings.auth_scheme.trim(), settings.key.expose())
        };
        let mut auth_value = HeaderValue::from_str(&value)
            .map_err(|_| bad("the auth scheme cannot be sent in a header".into()))?;
        auth_value.set_sensitive(true);
        let route = proxy::route(&base, &settings.proxy, env).map_err(ApiError::Setup)?;
        let tls = if base.scheme() == "http" {
            None
        } else {
            // reqwest's own TLS set-up, but the system's roots load while the first
            // connection's handshakes go on, not before the client exists (see `super::tls`).
            let extra = match &settings.ca_file {
                Some(path) => read_ca_file(path)?,
                None => Vec::new(),
            };
            Some(
                super::tls::client_config(extra)
                    .map_err(|e| bad(format!("cannot set up TLS: {e}")))?,
            )
        };
        let wire = Wire {
            tls,
            proxy: match route.proxy() {
                // One service per client and redirects stay on its origin, so one proxy for
                // all.
                Some(p) => Some(reqwest::Proxy::all(p.expose().clone()).map_err(|e| {
                    ApiError::Setup(format!("the proxy {p} cannot be used: {}", innermost(&e)))
                })?),
                None => None,
            },
            connect_timeout: settings.connect_timeout,
            request_timeout: settings.request_timeout,
            undecoded: std::sync::OnceLock::new(),
        };
        let http = wire
            .builder()
            .build()
            .map_err(|e| bad(format!("cannot build the HTTP client: {e}")))?;
        Ok(Client {
            http,
            base,
            host,
            auth_name,
            auth_value,
            redact: Redactor::new(settings.key.expose()),
            key: settings.key,
            retry: settings.retry,
            timeout: settings.request_timeout,
            route,
            first: Arc::default(),
            pacing: Arc::new(Pacing::new(settings.max_parallel, settings.clock.clone())),
            wire: Arc::new(wire),
            stats: Arc::default(),
            budget: Arc::new(Budget::with_clock(settings.clock.clone())),
            priority: Priority::User,
            encoding: Arc::default(),
            clock: settings.clock,
        })
    }

    /// The requests this client (and its clones) sent, by endpoint and answer.
    pub fn stats(&self) -> &super::stats::RequestStats {
        &self.stats
    }

    /// A clone for work the user did not ask for now (the visitor sync, checks, the hidden
    /// tab's refresh, look-ahead past the next screen, the board): its requests spend only the
    /// background share of the budget ([`super::budget`]). Same pool, same budget.
    pub fn background(&self) -> Client {
        Client {
            priority: Priority::Background,
            ..self.clone()
        }
    }

    /// Whose requests this client sends.
    pub fn priority(&self) -> Priority {
        self.priority
    }

    /// The service's request budget, as this client and all its clones spend it.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The clock of this client's waits, its budget and the sync that sends through it.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// Where requests go (direct or through which proxy) and why.
    pub fn route(&self) -> &Route {
        &self.route
    }

    /// The checked base URL.
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// The key as it may be shown (`sk_…abcd`).
    pub fn masked_key(&self) -> String {
        self.key.masked()
    }

    /// The client's settled choice between compressed and plain answers, once it has one.
    pub fn encoding_choice(&self) -> Option<super::encoding::Choice> {
        self.encoding.choice()
    }

    /// True once the client's choice between compressed and plain answers stands on enough
    /// pages each way (`super::encoding`).
    pub fn encoding_settled(&self) -> bool {
        self.encoding.settled()
    }

    /// The full URL of one page of a list.
    pub fn page_url(
        &self,
        resource: Resource,
        query: &[(&'static str, String)],
        limit: Limit,
        cursor: Option<&str>,
    ) -> Url {
        let mut url = self.base.clone();
        let path = format!(
            "{}{}",
            self.base.path().trim_end_matches('/'),
            resource.path()
        );
        url.set_path(&path);
        {
            let mut q = url.query_pairs_mut();
            for (k, v) in query {
                q.append_pair(k, v);
            }
            q.append_pair("limit", &limit.to_string());
            if let Some(c) = cursor {
                q.append_pair("cursor", c);
            }
        }
        url
    }

    /// One page of the list `F` is for, retried as docs/design.md "Errors" says. `on_retry` hears of each
    /// wait before it starts.
    pub async fn list<F, T>(
        &self,
        filter: &F,
        limit: Limit,
        cursor: Option<&str>,
        on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
    ) -> Result<Page<T>, ApiError>
    where
        F: ListFilter,
        T: super::model::WireRow,
    {
        let url = self.page_url(F::RESOURCE, &filter.query_pairs(), limit, cursor);
        self.get_page(url, on_retry).await
    }

    /// GETs one page URL with retries. Server text in the answer (errors, unreadable rows)
    /// has the key taken out ([`Redactor`]).
    pub async fn get_page<T>(
        &self,
        url: Url,
        on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
    ) -> Result<Page<T>, ApiError>
    where
        T: super::model::WireRow,
    {
        let body = self.get_body(url, on_retry).await?;
        self.decode_page(&body)
    }

    /// Decodes a page body as [`Client::get_page`] does, server text that echoes the key
    /// scrubbed from its bad rows and its error.
    pub fn decode_page<T: super::model::WireRow>(&self, body: &[u8]) -> Result<Page<T>, ApiError> {
        match decode_page(body) {
            Ok(mut page) => {
                for b in &mut page.bad_rows {
                    self.redact.bad_row(b);
                }
                Ok(page)
            }
            Err(e) => Err(self.redact.error(e)),
        }
    }

    /// GETs one page URL with retries and returns the body undecoded, so that a walk can ask
    /// for the next page ([`super::wire::envelope::peek_next`]) before it decodes this one
    /// ([`Client::decode_page`]). Errors are scrubbed of the key as [`Client::get_page`]'s.
    pub async fn get_body(
        &self,
        url: Url,
        on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
    ) -> Result<Vec<u8>, ApiError> {
        self.get_body_as_sent(url, on_retry)
            .await
            .map_err(|e| self.redact.error(e))
    }

    async fn get_body_as_sent(
        &self,
        url: Url,
        on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
    ) -> Result<Vec<u8>, ApiError> {
        let mut retries = 0u32;
        let mut rate_waits = 0u32;
        let on_budget = |wait: Duration| {
            on_retry(RetryNotice {
                attempt: 0,
                wait,
                reason: "waiting on the request budget".into(),
                rate_limited: false,
                budget: true,
            })
        };
        loop {
            let attempts = retries + rate_waits + 1;
            let mut ticket = self.budget.admit(self.priority, &on_budget).await;
            let answer = self.attempt(&url, attempts).await;
            if matches!(answer, Err(Failure::RateLimited { .. })) {
                ticket.refused();
            }
            drop(ticket);
            match answer {
                Ok(body) => return Ok(body),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry { error, reason }) => {
                    let Some(&wait) = self.retry.backoff.get(retries as usize) else {
                        return Err(error);
                    };
                    retries += 1;
                    on_retry(RetryNotice {
                        attempt: retries + rate_waits,
                        wait,
                        reason,
                        rate_limited: false,
                        budget: false,
                    });
                    super::clock::sleep(&*self.clock, wait).await;
                }
                Err(Failure::RateLimited { wait, detail }) => {
                    if rate_waits >= self.retry.max_rate_limit_waits {
                        return Err(ApiError::RateLimited { attempts, detail });
                    }
                    rate_waits += 1;
                    on_retry(RetryNotice {
                        attempt: retries + rate_waits,
                        wait,
                        reason: "rate limited (HTTP 429)".into(),
                        rate_limited: true,
                        budget: false,
                    });
                    super::clock::sleep(&*self.clock, wait).await;
                }
            }
        }
    }

    /// One GET of `url` without retries (`convo doctor`'s probes), with the client's auth and
    /// transport, its error mapped and scrubbed of the key as [`Client::get_body`]'s; the
    /// answer with its status, headers and time. [`Accept::Chosen`] is paced, counted and
    /// budgeted as every request of the client; [`Accept::Wire`] is none of these.
    pub async fn once(&self, url: Url, accept: Accept<'_>) -> Result<Answer, ApiError> {
        self.attempt_answer(&url, 1, accept)
            .await
            .map_err(|f| self.redact.error(f.into_error()))
    }

    async fn attempt(&self, url: &Url, attempts: u32) -> Result<Vec<u8>, Failure> {
        self.attempt_answer(url, attempts, Accept::Chosen)
            .await
            .map(|a| a.body)
    }

    async fn attempt_answer(
        &self,
        url: &Url,
        attempts: u32,
        accept: Accept<'_>,
    ) -> Result<Answer, Failure> {
        let (http, ask) = match accept {
            Accept::Chosen => (&self.http, Some(self.encoding.next())),
            Accept::Wire(_) => (self.wire.undecoded().map_err(Failure::Fatal)?, None),
        };
        let accept_encoding = match (accept, ask) {
            (Accept::Wire(header), _) => header,
            (Accept::Chosen, ask) => ask.map_or("identity", |a| a.header()),
        };
        // `Accept::Wire` looks at the wire beside the client's own requests: not paced,
        // counted, budgeted nor timed toward its choice of encoding (`ask` is `None`).
        let kept = ask.is_some();
        // The first answer before the pacing: a 429 it brings pauses those held behind it.
        let first = match kept {
            true => self.first.wait().await,
            false => None,
        };
        let _permit = match kept {
            true => self.pacing.admit().await,
            false => None,
        };
        let sent = std::time::Instant::now();
        let resp = http
            .get(url.clone())
            .header(self.auth_name.clone(), self.auth_value.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .header(reqwest::header::ACCEPT_ENCODING, accept_encoding)
            .send()
            .await
            .map_err(|e| {
                if kept {
                    self.stats.record(url, None);
                }
                self.transport_failure(&e, attempts)
            })?;
        let status = resp.status();
        if kept {
            self.stats.record(url, Some(status.as_u16()));
            self.budget.heard(
                resp.headers(),
                status == StatusCode::TOO_MANY_REQUESTS,
                self.clock.unix_ms() / 1000,
            );
            if status == StatusCode::TOO_MANY_REQUESTS {
                // Every request to the service waits, not only this one; set before the
                // requests held back for the first answer are let go.
                let wait = self.retry_after(resp.headers());
                self.pacing.pause(wait);
                self.budget.paused(wait);
            }
        }
        if first.is_some() {
            self.first.answered();
        }
        drop(first);
        if status.is_success() {
            let headers = resp.headers().clone();
            // The pool of `Chosen` decodes gzip and brotli; zstd is decoded here (bounded).
            let zstd = ask.is_some() && super::encoding::is_zstd(&headers);
            let body = read_body(resp, MAX_BODY_BYTES)
                .await
                .map_err(|e| self.transport_failure(&e, attempts))?;
            let body = match (zstd, body) {
                (true, Some(b)) => super::encoding::unzstd(&b, MAX_BODY_BYTES)
                    .map_err(|detail| Failure::Fatal(ApiError::Decode { detail }))?,
                (_, b) => b,
            };
            let body = body.ok_or_else(|| {
                Failure::Fatal(ApiError::Decode {
                    detail: format!(
                        "the response is larger than {} MiB",
                        MAX_BODY_BYTES / (1024 * 1024)
                    ),
                })
            })?;
            if let Some(ask) = ask {
                let kind = super::encoding::kind_of(url);
                self.encoding.record(ask, &kind, sent.elapsed(), body.len());
            }
            return Ok(Answer {
                status: status.as_u16(),
                headers,
                body,
                elapsed: sent.elapsed(),
            });
        }
        if status.is_redirection() {
            let to = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|l| url.join(l).ok())
                .map(|u| u.origin().ascii_serialization())
                .unwrap_or_else(|| "an unnamed location".into());
            return Err(Failure::Fatal(ApiError::Redirect {
                to: text::one_line(&to, 120),
            }));
        }
        let headers = resp.headers().clone();
        let body = read_body(resp, 64 * 1024)
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
        let body = if super::encoding::is_zstd(&headers) {
            super::encoding::unzstd(&body, 64 * 1024)
                .ok()
                .flatten()
                .unwrap_or_default()
        } else if ask.is_none() && encoded(&headers) {
            // Gzip or brotli left as it came (`Accept::Wire`): no text to show.
            Vec::new()
        } else {
            body
        };
        // Before it is parsed and cut: a key cut in half would not be found afterwards.
        let body = self.redact.bytes(body);
        let err = ErrorBody::parse(&body);
        let detail = err.detail();
        Err(match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                Failure::Fatal(ApiError::Unauthorized {
                    status: status.as_u16(),
                    detail,
                    origin: self.key.source.clone(),
                })
            }
            StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY => {
                Failure::Fatal(ApiError::BadRequest {
                    status: status.as_u16(),
                    param: err.param.map(|p| text::one_line(&p, 60)),
                    detail,
                })
            }
            StatusCode::TOO_MANY_REQUESTS => Failure::RateLimited {
                wait: self.retry_after(&headers),
                detail,
            },
            s if s.is_server_error() => Failure::Retry {
                reason: format!("HTTP {}", s.as_u16()),
                error: ApiError::Server {
                    status: s.as_u16(),
                    detail,
                    attempts,
                },
            },
            s => Failure::Fatal(ApiError::Http {
                status: s.as_u16(),
                detail,
            }),
        })
    }

    fn transport_failure(&self, e: &reqwest::Error, attempts: u32) -> Failure {
        let detail = text::one_line(&innermost(e), 160);
        if let Some(cert) = certificate_error(e) {
            let host = self.base.host_str().unwrap_or_default().to_string();
            let (cause, fix) = describe_certificate_error(cert);
            return Failure::Fatal(ApiError::Certificate { host, cause, fix });
        }
        if let Some(p) = self.route.proxy() {
            let chain = chain(e);
            if chain
                .iter()
                .any(|m| m.contains("proxy authorization required"))
            {
                return Failure::Fatal(ApiError::ProxyAuth {
                    proxy: p.to_string(),
                    fix: if p.has_credentials() {
                        "check the user and password in the proxy URL"
                    } else {
                        "put the credentials in the proxy URL: http://user:password@host:port"
                    },
                });
            }
            let tunnel = chain.iter().any(|m| m.contains("tunnel error"));
            if e.is_connect() || tunnel {
                let refused = chain
                    .iter()
                    .any(|m| m.contains("tunnel error: unsuccessful"));
                let (what, fix) = if refused {
                    (
                        format!("the proxy did not open a tunnel to {}", self.host),
                        "the proxy refused the CONNECT request or could not reach the service; \
                         check base_url and the proxy's rules (NO_PROXY to go direct)",
                    )
                } else {
                    (
                        format!("cannot reach {}", self.host),
                        "check that the proxy is up and the proxy URL is right \
                         (convo doctor shows which one is used and why)",
                    )
                };
                return Failure::Retry {
                    reason: "proxy failed".into(),
                    error: ApiError::Proxy {
                        proxy: p.to_string(),
                        what,
                        detail,
                        fix,
                        attempts,
                    },
                };
            }
        }
        if e.is_timeout() {
            Failure::Retry {
                reason: "timed out".into(),
                error: ApiError::Timeout {
                    timeout: self.timeout,
                    attempts,
                },
            }
        } else if e.is_connect() {
            Failure::Retry {
                reason: "cannot connect".into(),
                error: ApiError::Connect {
                    host: self.host.clone(),
                    detail,
                    attempts,
                },
            }
        } else if e.is_builder() {
            Failure::Fatal(ApiError::BadBaseUrl {
                url: self.base.to_string(),
                reason: detail,
            })
        } else {
            Failure::Retry {
                reason: "connection failed".into(),
                error: ApiError::Network { detail, attempts },
            }
        }
    }

    fn retry_after(&self, headers: &HeaderMap) -> Duration {
        parse_retry_after(
            headers.get(RETRY_AFTER).and_then(|v| v.to_str().ok()),
            jiff::Timestamp::now(),
        )
        .unwrap_or(self.retry.default_retry_after)
        .min(self.retry.max_retry_after)
    }
}

/// Decodes a page body (the error is a decode error); nothing scrubbed: see
/// [`Client::decode_page`].
fn decode_page<T: super::model::WireRow>(body: &[u8]) -> Result<Page<T>, ApiError> {
    Page::decode(body).map_err(|e| ApiError::Decode { detail: e.0 })
}

/// `Retry-After` as seconds or an HTTP date (docs/design.md "Errors"); `None` when absent or unreadable.
pub fn parse_retry_after(value: Option<&str>, now: jiff::Timestamp) -> Option<Duration> {
    let v = value?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = jiff::fmt::rfc2822::parse(v).ok()?.timestamp();
    let delta = when.as_millisecond().saturating_sub(now.as_millisecond());
    Some(Duration::from_millis(delta.max(0) as u64))
}

/// True when an answer names an encoding other than `identity`.
fn encoded(headers: &HeaderMap) -> bool {
    headers
        .get(reqwest::header::CONTENT_ENCODING)
        .is_some_and(|v| !v.as_bytes().trim_ascii().eq_ignore_ascii_case(b"identity"))
}

/// Reads a body up to `cap` bytes; `Ok(None)` when it is larger.
async fn read_body(
    mut resp: reqwest::Response,
    cap: usize,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    let mut buf = Vec::with_capacity(
        resp.content_length()
            .map_or(16 * 1024, |n| (n as usize).min(cap)),
    );
    while let Some(chunk) = resp.chunk().await? {
        if buf.len() + chunk.len() > cap {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Some(buf))
}

/// Reads `ca_file`: every certificate of a PEM bundle; none is an error.
fn read_ca_file(
    path: &std::path::Path,
) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, ApiError> {
    use rustls::pki_types::pem::PemObject as _;
    let shown = path.display();
    let bytes = std::fs::read(path)
        .map_err(|e| ApiError::Setup(format!("ca_file {shown} cannot be read: {e}")))?;
    let certs = rustls::pki_types::CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            ApiError::Setup(format!(
                "ca_file {shown} is not a PEM bundle of certificates: {e}"
            ))
        })?;
    if certs.is_empty() {
        return Err(ApiError::Setup(format!(
            "ca_file {shown} holds no certificate (expected -----BEGIN CERTIFICATE----- blocks)"
        )));
    }
    Ok(certs)
}

/// The rustls certificate error in an error's source chain, if any. tokio-rustls and
/// hyper-util wrap it in io::Errors (nested), whose `source()` skips the wrapped error, so
/// each io::Error is opened with `get_ref`.
fn certificate_error(e: &reqwest::Error) -> Option<&rustls::CertificateError> {
    fn find<'a>(
        err: &'a (dyn std::error::Error + 'static),
    ) -> Option<&'a rustls::CertificateError> {
        if let Some(rustls::Error::InvalidCertificate(c)) = err.downcast_ref::<rustls::Error>() {
            return Some(c);
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && let Some(inner) = io.get_ref()
            && let Some(c) = find(inner)
        {
            return Some(c);
        }
        err.source().and_then(find)
    }
    e.source().and_then(find)
}

/// `(cause, fix)` for a refused certificate, in words.
fn describe_certificate_error(c: &rustls::CertificateError) -> (String, String) {
    use rustls::CertificateError as C;
    let trust = "set ca_file (a PEM bundle of the CA that signed it) or SSL_CERT_FILE";
    match c {
        C::UnknownIssuer => ("is not trusted (unknown issuer)".into(), trust.into()),
        C::BadSignature | C::UnhandledCriticalExtension => (
            "is not trusted (it cannot be verified)".into(),
            trust.into(),
        ),
        C::NotValidForName | C::NotValidForNameContext { .. } => (
            "does not name this host (name mismatch)".into(),
            "use the host name the certificate was issued for in base_url".into(),
        ),
        C::Expired | C::ExpiredContext { .. } => (
            "has expired".into(),
            "the service must renew it (or this machine's clock is wrong)".into(),
        ),
        C::NotValidYet | C::NotValidYetContext { .. } => (
            "is not valid yet".into(),
            "check this machine's clock".into(),
        ),
        C::Revoked => (
            "has been revoked".into(),
            "the service must replace it".into(),
        ),
        other => (
            format!(
                "was refused ({})",
                text::one_line(&format!("{other:?}"), 80)
            ),
            trust.into(),
        ),
    }
}

/// Every message of an error's source chain, outermost first.
fn chain(e: &reqwest::Error) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut src = e.source();
    while let Some(s) = src {
        out.push(s.to_string());
        src = s.source();
    }
    out
}

fn innermost(e: &reqwest::Error) -> String {
    let mut msg = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        msg = s.to_string();
        src = s.source();
    }
    msg
}

/// An error body read as docs/design.md "Errors" says: `{"error": {code, message, param}}`, else
/// `{"message"}`, else the first 200 characters of text.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ErrorBody {
    pub code: Option<String>,
    pub message: Option<String>,
    pub param: Option<String>,
}

impl ErrorBody {
    pub fn parse(body: &[u8]) -> ErrorBody {
        #[derive(Deserialize)]
        struct Inner {
            code: Option<serde_json::Value>,
            message: Option<serde_json::Value>,
            param: Option<serde_json::Value>,
        }
        #[derive(Deserialize)]
        struct Nested {
            error: Inner,
        }
        fn s(v: Option<serde_json::Value>) -> Option<String> {
            match v? {
                serde_json::Value::String(s) => Some(s),
                serde_json::Value::Null => None,
                other => Some(other.to_string()),
            }
        }
        if let Ok(n) = serde_json::from_slice::<Nested>(body) {
            return ErrorBody {
                code: s(n.error.code),
                message: s(n.error.message),
                param: s(n.error.param),
            };
        }
        if let Ok(flat) = serde_json::from_slice::<Inner>(body)
            && (flat.message.is_some() || flat.code.is_some())
        {
            return ErrorBody {
                code: s(flat.code),
                message: s(flat.message),
                param: s(flat.param),
            };
        }
        let text: String = String::from_utf8_lossy(body).chars().take(200).collect();
        let text = text.trim();
        ErrorBody {
            message: (!text.is_empty()).then(|| text.to_string()),
            ..ErrorBody::default()
        }
    }

    /// `": code: message (parameter p)"`, sanitised, or empty.
    pub fn detail(&self) -> String {
        let mut out = String::new();
        if let Some(c) = &self.code {
            out.push_str(": ");
            out.push_str(&text::one_line(c, 60));
        }
        if let Some(m) = &self.message {
            out.push_str(": ");
            out.push_str(&text::one_line(m, 200));
        }
        if let Some(p) = &self.param {
            out.push_str(&format!(" (parameter {})", text::one_line(p, 60)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_rule() {
        assert!(check_base_url("http://127.0.0.1:8787", false).is_ok());
        assert!(check_base_url("http://127.8.9.10", false).is_ok());
        assert!(check_base_url("http://[::1]:80/", false).is_ok());
        assert!(check_base_url("http://localhost:1", false).is_ok());
        assert!(matches!(
            check_base_url("http://api.example.com", false),
            Err(ApiError::InsecureTransport { .. })
        ));
        assert!(check_base_url("http://api.example.com", true).is_ok());
        assert!(check_base_url("https://api.example.com/chat/", false).is_ok());
        assert!(check_base_url("ftp://x", false).is_err());
        assert!(check_base_url("api.example.com", false).is_err());
        assert!(check_base_url("https://u:p@h", false).is_err());
    }

    #[test]
    fn retry_after_forms() {
        let now: jiff::Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            parse_retry_after(Some("2"), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            parse_retry_after(Some("Thu, 01 Jan 2026 00:00:03 GMT"), now),
            Some(Duration::from_secs(3))
        );
        assert_eq!(parse_retry_after(Some("soon"), now), None);
        assert_eq!(parse_retry_after(None, now), None);
    }

    #[test]
    fn error_body_shapes() {
        let b = ErrorBody::parse(
            br#"{"error":{"code":"invalid_parameter","message":"bad","param":"limit"}}"#,
        );
        assert_eq!(b.param.as_deref(), Some("limit"));
        assert_eq!(b.detail(), ": invalid_parameter: bad (parameter limit)");
        let b = ErrorBody::parse(br#"{"message":"nope"}"#);
        assert_eq!(b.detail(), ": nope");
        let b = ErrorBody::parse(b"<html>\x1b[2J oops</html>");
        assert_eq!(b.detail(), ": <html>␛[2J oops</html>");
        assert_eq!(ErrorBody::parse(b"").detail(), "");
    }
}
