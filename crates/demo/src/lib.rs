//! The embedded demo server: the same API as the service (strict validation, the error shape,
//! keyset cursors, the order of docs/design.md "Demo server") on generated data, on loopback only. It lets a
//! new user see convo work in one command and lets tests talk real HTTP.

mod churn;
mod compression;
mod cursor;
pub mod data;
mod faults;
pub mod link;
mod names;
mod query;
mod queue;
mod rate_limit;
mod server;
pub mod tls;

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use churn::Churn;
pub use data::{Dataset, DemoConversation, DemoVisitor, dataset};
pub use faults::{BadBytes, BadCert, Faults, ServeOrder};
pub use link::Link;
pub use names::{aliases, me};
pub use queue::{QUEUE_TARGET_SECS, targets, targets_toml};
pub use rate_limit::{LimitCounts, LimitHeaders, RequestBudget};
pub use server::OPENAPI_YAML;

/// How to run the demo server.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// Loopback only; port 0 picks a free port. Default 127.0.0.1:8787.
    pub addr: SocketAddr,
    /// Seed of the generated data: the same seed gives the same rows. Default 42.
    pub seed: u64,
    /// How many conversations to generate. Default 5,000.
    pub conversations: usize,
    /// How many visitors to generate (at least one when there are conversations). Default 1,500.
    pub visitors: usize,
    /// Delay before each API answer.
    pub latency: Duration,
    pub faults: Faults,
    /// Moves every generated time so that the dataset ends at this instant instead of the fixed
    /// reference time (`data::REFERENCE_TIME`): `convo --demo` and `convo demo-server` pass the
    /// clock, so the newest rows are minutes old, not days. `None` (tests): the fixed times.
    pub anchor: Option<jiff::Timestamp>,
    /// Compress answers when the client asks (`Accept-Encoding`: zstd, br, gzip), as real services
    /// do. Default on; `--no-compress` turns it off.
    pub compress: bool,
    /// A simulated network link in front of the server (round trip and rate); `None`: loopback.
    pub link: Option<Link>,
    /// `--rate-limit`: a request budget per key (429 past it); `None`: no limit.
    pub budget: Option<RequestBudget>,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            addr: ([127, 0, 0, 1], 8787).into(),
            seed: 42,
            conversations: 5000,
            visitors: 1500,
            latency: Duration::ZERO,
            faults: Faults::default(),
            anchor: None,
            compress: true,
            link: None,
            budget: None,
        }
    }
}

/// A running demo server. Dropping it stops it.
pub struct DemoServer {
    addr: SocketAddr,
    shared: Arc<server::Shared>,
    task: Option<JoinHandle<()>>,
    /// With a simulated link: the task that carries connections across it.
    link_task: Option<JoinHandle<()>>,
    link_lanes: Option<Arc<link::Lanes>>,
    /// With TLS: the CA certificate (PEM) a client must trust.
    ca_pem: Option<String>,
    /// TCP connections accepted (TLS only; failed handshakes included).
    connections: Arc<AtomicU64>,
    /// TLS handshakes finished, full and resumed.
    handshakes: Arc<tls::Handshakes>,
    /// With a request budget: its state and counts.
    limiter: Option<Arc<rate_limit::Limiter>>,
}

/// The demo key for a seed: `sk_demo_` and 24 hex digits.
pub fn demo_key(seed: u64) -> String {
    let mut r = data::Rng::new(seed ^ 0x6b65_795f_6b65_795f);
    format!("sk_demo_{:016x}{:08x}", r.next_u64(), r.next_u64() as u32)
}

impl DemoServer {
    /// Generates the data and starts serving. Refuses a non-loopback address.
    pub async fn start(opts: DemoOptions) -> io::Result<DemoServer> {
        DemoServer::start_with(opts, false).await
    }

    /// The same server over TLS (`convo demo-server --tls`): a CA and a certificate for
    /// `localhost` and `127.0.0.1` are made at start; [`DemoServer::ca_pem`] is the CA to trust
    /// and [`DemoServer::base_url`] is `https://localhost:PORT`.
    pub async fn start_tls(opts: DemoOptions) -> io::Result<DemoServer> {
        DemoServer::start_with(opts, true).await
    }

    async fn start_with(opts: DemoOptions, with_tls: bool) -> io::Result<DemoServer> {
        if !opts.addr.ip().is_loopback() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the demo server listens on loopback only, not {}",
                    opts.addr.ip()
                ),
            ));
        }
        let public = tokio::net::TcpListener::bind(opts.addr).await?;
        let addr = public.local_addr()?;
        // Behind a simulated link the server itself listens on a private loopback port, and
        // the public one carries each connection to it across the link.
        let (listener, public) = match opts.link {
            Some(_) => (
                tokio::net::TcpListener::bind((addr.ip(), 0)).await?,
                Some(public),
            ),
            None => (public, None),
        };
        let inner_addr = listener.local_addr()?;
        let (conversations, visitors, seed) = (opts.conversations, opts.visitors, opts.seed);
        let faults = opts.faults.clone();
        let anchor = opts.anchor;
        let mut data = tokio::task::spawn_blocking(move || {
            let mut d = dataset(seed, conversations, visitors);
            if let Some(a) = anchor {
                data::shift_times(&mut d, a);
            }
            d
        })
        .await
        .map_err(io::Error::other)?;
        if faults.coarse_times {
            data::coarse_times(&mut data);
        }
        if faults.unknown_status {
            for (i, c) in data.conversations.iter_mut().enumerate() {
                if i % 7 == 3 {
                    c.status = "snoozed";
                }
            }
        }
        if faults.hostile {
            data::make_hostile(&mut data);
        }
        if faults.big_attribute
            && let Some(v) = data.visitors.first_mut()
            && let serde_json::Value::Object(m) = &mut v.attributes
        {
            m.insert("blob".into(), "x".repeat(2 * 1024 * 1024).into());
        }
        if faults.backlog > 0 {
            let queue = queue::len(data.conversations.len());
            data.conversations
                .iter_mut()
                .skip(queue)
                .filter(|c| c.status == "open" && c.assignee_id.is_some())
                .take(faults.backlog)
                .for_each(|c| c.assignee_id = None);
        }
        match faults.order {
            ServeOrder::Newest => {}
            ServeOrder::Updated | ServeOrder::Mixed if faults.churn.is_on() => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "--order updated/mixed cannot be combined with churn (it adds rows at the \
                     newest end)",
                ));
            }
            ServeOrder::Oldest => {
                data.conversations.reverse();
                data.visitors.reverse();
            }
            ServeOrder::Updated => data
                .conversations
                .sort_by_key(|c| std::cmp::Reverse((c.updated_at, c.id))),
            ServeOrder::Mixed => {}
        }
        let pending_oldest = (faults.order == ServeOrder::Mixed)
            .then(|| data.conversations.iter().rev().cloned().collect());
        let ix = data::Indexes::build(&data);
        let churn = faults.churn.is_on().then(|| {
            let clock = if anchor.is_some() {
                churn::Clock::Wall
            } else {
                churn::Clock::AfterHead
            };
            churn::Churning::new(
                faults.churn,
                &data,
                seed,
                clock,
                faults.order == ServeOrder::Oldest,
            )
        });
        let cancel = CancellationToken::new();
        let shared = Arc::new(server::Shared {
            data,
            ix,
            key: demo_key(seed),
            latency: opts.latency,
            faults,
            churn,
            pending_oldest,
            requests: AtomicU64::new(0),
            first_pages: AtomicU64::new(0),
            waiting: AtomicU64::new(0),
            peak_waiting: AtomicU64::new(0),
            visitor_log: std::sync::Mutex::new(Vec::new()),
            cancel: cancel.clone(),
        });
        let mut app = server::router(shared.clone());
        let limiter = opts.budget.map(|b| Arc::new(rate_limit::Limiter::new(b)));
        if let Some(l) = &limiter {
            app = app.layer(axum::middleware::from_fn_with_state(
                l.clone(),
                rate_limit::layer,
            ));
        }
        if opts.compress {
            app = app
                .layer(compression::zstd())
                .layer(compression::brotli_and_gzip());
        }
        let (link_task, link_lanes) = match (opts.link, public) {
            (Some(link), Some(public)) => {
                let (task, lanes) = link::spawn(public, inner_addr, link, cancel.clone());
                (Some(task), Some(lanes))
            }
            _ => (None, None),
        };
        let connections = Arc::new(AtomicU64::new(0));
        let handshakes = Arc::new(tls::Handshakes::default());
        let (task, ca_pem) = if with_tls {
            let (bad, h2) = (opts.faults.bad_cert, !opts.faults.http1_only);
            let certs = tokio::task::spawn_blocking(move || tls::generate(bad, h2))
                .await
                .map_err(io::Error::other)??;
            let tls_listener = tls::TlsListener::new(
                listener,
                &certs,
                cancel.clone(),
                connections.clone(),
                handshakes.clone(),
            )?;
            let task = tokio::spawn(async move {
                let _ = axum::serve(tls_listener, app)
                    .with_graceful_shutdown(async move { cancel.cancelled().await })
                    .await;
            });
            (task, Some(certs.ca_pem))
        } else {
            // As real services do (see `tls::TlsListener`): no Nagle delay on small writes.
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let task = tokio::spawn(async move {
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move { cancel.cancelled().await })
                    .await;
            });
            (task, None)
        };
        Ok(DemoServer {
            addr,
            shared,
            task: Some(task),
            link_task,
            link_lanes,
            ca_pem,
            connections,
            handshakes,
            limiter,
        })
    }

    /// e.g. `http://127.0.0.1:41234` (no trailing slash); with TLS `https://localhost:41234`
    /// (the name the certificate is for; it also names 127.0.0.1).
    pub fn base_url(&self) -> String {
        match &self.ca_pem {
            Some(_) => format!("https://localhost:{}", self.addr.port()),
            None => format!("http://{}", self.addr),
        }
    }

    /// With TLS, the CA certificate (PEM) that signed the server's certificate.
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// With TLS, how many TCP connections were accepted (failed handshakes included).
    pub fn connection_count(&self) -> u64 {
        self.connections.load(Ordering::SeqCst)
    }

    /// With TLS, the handshakes finished so far: (full, resumed from an earlier session).
    pub fn tls_handshakes(&self) -> (u64, u64) {
        self.handshakes.counts()
    }

    /// With TLS, the finished handshakes that took more than one round trip: TLS 1.2's, or
    /// TLS 1.3's after a HelloRetryRequest.
    pub fn slow_tls_handshakes(&self) -> u64 {
        self.handshakes.slow()
    }

    /// With a simulated link: the bytes that crossed it, (to the server, from the server).
    pub fn link_bytes(&self) -> Option<(u64, u64)> {
        self.link_lanes.as_ref().map(|l| l.bytes())
    }

    /// With a simulated link: the connections it carried.
    pub fn link_connections(&self) -> Option<u64> {
        self.link_lanes.as_ref().map(|l| l.connections())
    }

    /// The server's key (`sk_demo_…`). Not a secret: it opens generated data on loopback.
    pub fn api_key(&self) -> String {
        self.shared.key.clone()
    }

    /// The address the server listens on (the real port when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// With a latency: the most `/v1` requests that were in flight at once (counted while
    /// they wait out the latency).
    pub fn peak_concurrency(&self) -> u64 {
        self.shared.peak_waiting.load(Ordering::SeqCst)
    }

    /// With a latency: the `/v1` requests waiting it out now.
    pub fn waiting_now(&self) -> u64 {
        self.shared.waiting.load(Ordering::SeqCst)
    }

    /// With a request budget (`--rate-limit`): the requests it let through and answered 429,
    /// per list. All zero without one.
    pub fn limit_counts(&self) -> LimitCounts {
        self.limiter
            .as_ref()
            .map(|l| l.counts())
            .unwrap_or_default()
    }

    /// With a request budget: the `/v1` requests it let through, in the order they took their
    /// slots, each with when it came (the server's clock) and its path and query. Empty
    /// without one.
    pub fn limit_log(&self) -> Vec<(std::time::Instant, String)> {
        self.limiter.as_ref().map_or_else(Vec::new, |l| {
            l.log
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()
        })
    }

    /// How many `/v1` requests were served (faulty ones included).
    pub fn request_count(&self) -> u64 {
        self.shared.requests.load(Ordering::SeqCst)
    }

    /// The query string of every visitors request served so far, in order (`limit=100&
    /// cursor=…`; answers refused by `--rate-limit` are not served, so not here).
    pub fn visitor_requests(&self) -> Vec<String> {
        self.shared
            .visitor_log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Of [`DemoServer::visitor_requests`], those that asked for a page by a cursor another
    /// request had already asked for with the same query (a page fetched twice), and all
    /// those with a cursor.
    pub fn repeated_visitor_cursors(&self) -> (usize, usize) {
        let log = self.visitor_requests();
        let mut seen = std::collections::HashSet::new();
        let (mut repeated, mut with_cursor) = (0, 0);
        for q in log.iter().filter(|q| q.contains("cursor=")) {
            with_cursor += 1;
            if !seen.insert(q.as_str()) {
                repeated += 1;
            }
        }
        (repeated, with_cursor)
    }

    /// How many conversations requests without a cursor were served: the walks started,
    /// each refresh of a browser included (it re-reads from the first page).
    pub fn first_page_count(&self) -> u64 {
        self.shared.first_pages.load(Ordering::SeqCst)
    }

    /// The data being served: [`dataset`] for the seed, with the `unknown_status`, `hostile`
    /// and `big_attribute` faults applied when they are on.
    pub fn data(&self) -> &Dataset {
        &self.shared.data
    }

    /// The conversations being served now: with churn on, as changed so far; otherwise
    /// the same as [`DemoServer::data`].
    pub fn conversations_now(&self) -> Vec<DemoConversation> {
        match &self.shared.churn {
            Some(c) => c.read().data.conversations.clone(),
            None => self.shared.data.conversations.clone(),
        }
    }

    /// Test scripting (churn on, e.g. `Churn { scripted: true, .. }`): gives conversation
    /// `id` the assignee `agent`, as a colleague picking it up would; false without churn or
    /// when no conversation has that id.
    pub fn assign(&self, id: uuid::Uuid, agent: Option<uuid::Uuid>) -> bool {
        self.shared
            .churn
            .as_ref()
            .is_some_and(|c| c.assign(id, agent))
    }

    /// Stops serving and waits (at most 2 s) for open requests to finish, then drops the
    /// connections that are left. Hanging and sleeping requests end at once.
    pub async fn shutdown(mut self) {
        self.shared.cancel.cancel();
        if let Some(t) = self.link_task.take() {
            t.abort();
        }
        if let Some(mut t) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(2), &mut t)
                .await
                .is_err()
        {
            t.abort();
        }
    }
}

impl Drop for DemoServer {
    /// Starts a graceful shutdown; the server task ends on its own.
    fn drop(&mut self) {
        self.shared.cancel.cancel();
    }
}

/// Where `convo demo-server --tls` writes its CA certificate unless told: the temp dir, one
/// file per port.
pub fn default_ca_path(port: u16) -> PathBuf {
    std::env::temp_dir().join(format!("convo-demo-ca-{port}.pem"))
}

/// Writes the CA certificate (public, but written new so a stale one is never read).
fn write_ca(path: &Path, pem: &str) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, pem)
}

/// `convo demo-server`: serve until Ctrl-C, after printing the URL and key. `tls`: serve
/// HTTPS and write the CA certificate to the path given (or [`default_ca_path`]).
pub async fn run_cli(
    opts: DemoOptions,
    tls: Option<Option<PathBuf>>,
    targets_out: Option<PathBuf>,
) -> io::Result<()> {
    let server = match tls {
        Some(_) => DemoServer::start_tls(opts).await?,
        None => DemoServer::start(opts).await?,
    };
    let url = server.base_url();
    let key = server.api_key();
    println!("convo demo server listening on {url}");
    println!("API key: {key}");
    let mut env = format!("CONVO_API_KEY={key}");
    if let (Some(pem), Some(path)) = (server.ca_pem(), tls) {
        let path = path.unwrap_or_else(|| default_ca_path(server.addr().port()));
        write_ca(&path, pem).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot write the CA certificate to {}: {e}", path.display()),
            )
        })?;
        println!(
            "CA certificate: {} (trust it with ca_file or SSL_CERT_FILE)",
            path.display()
        );
        env = format!("SSL_CERT_FILE={} {env}", path.display());
    }
    // The demo's targets, as `--demo` has them, in a config file of their own.
    let targets = targets_out.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("convo-demo-{}.toml", server.addr().port()))
    });
    std::fs::write(&targets, targets_toml()).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot write the targets to {}: {e}", targets.display()),
        )
    })?;
    println!(
        "Targets: {} (first response 1m, as convo --demo has them)",
        targets.display()
    );
    let cfg = format!("--config {}", targets.display());
    println!("Try:     {env} convo {cfg} --base-url {url} summary --views");
    println!("Or:      {env} convo {cfg} --base-url {url}");
    println!("Alerts:  {env} convo {cfg} --base-url {url} exporter --interval 15s");
    println!("OpenAPI: {url}/openapi.yaml   (Ctrl-C stops)");
    tokio::signal::ctrl_c().await?;
    server.shutdown().await;
    Ok(())
}
