//! `convo demo-server --tls`: a CA and a certificate for `localhost` / `127.0.0.1` made at
//! start (rcgen), and a listener that hands axum TLS streams (tokio-rustls). A client trusts
//! the server by trusting the CA (`ca_file` or `SSL_CERT_FILE`); without it, it gets the
//! "unknown issuer" error a private CA gives.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;

/// The certificates of one TLS demo server.
pub struct Certs {
    /// The CA's certificate, PEM: what a client must trust.
    pub ca_pem: String,
    config: Arc<rustls::ServerConfig>,
}

/// Makes a fresh CA ("convo demo CA") and a leaf for `localhost` and `127.0.0.1` it signs;
/// with `bad`, a leaf wrong in that way instead. `h2`: offer HTTP/2 by ALPN (besides 1.1).
pub fn generate(bad: Option<super::BadCert>, h2: bool) -> io::Result<Certs> {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
        KeyPair, KeyUsagePurpose,
    };
    let err = |e: rcgen::Error| io::Error::other(format!("cannot make the demo certificate: {e}"));
    let ca_key = KeyPair::generate().map_err(err)?;
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(
        DnType::CommonName,
        "convo demo CA (made at start, loopback only)",
    );
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca.self_signed(&ca_key).map_err(err)?;
    let issuer = Issuer::new(ca, ca_key);

    let leaf_key = KeyPair::generate().map_err(err)?;
    let names = match bad {
        Some(super::BadCert::WrongName) => vec!["wrong.example".to_string()],
        _ => vec!["localhost".to_string(), "127.0.0.1".to_string()],
    };
    let common_name = names[0].clone();
    let mut leaf = CertificateParams::new(names).map_err(err)?;
    leaf.distinguished_name
        .push(DnType::CommonName, common_name);
    if bad == Some(super::BadCert::Expired) {
        leaf.not_before = rcgen::date_time_ymd(2020, 1, 1);
        leaf.not_after = rcgen::date_time_ymd(2021, 1, 1);
    }
    leaf.use_authority_key_identifier_extension = true;
    leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer).map_err(err)?;

    convo_api::tls::install_crypto_provider();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let chain: Vec<CertificateDer<'static>> = vec![leaf_cert.der().clone()];
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(io::Error::other)?
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .map_err(io::Error::other)?;
    // HTTP/2 and HTTP/1.1, chosen by ALPN as real services offer them.
    config.alpn_protocols = if h2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    // Session resumption as real services allow it: rustls' defaults, said here so that it
    // is seen (a cache of 256 sessions, and two TLS 1.3 tickets sent after each handshake,
    // each naming a cached session). A resumed handshake skips the certificate and its
    // signature check (CPU, not round trips: TLS 1.3 takes one either way).
    config.session_storage = rustls::server::ServerSessionMemoryCache::new(256);
    config.send_tls13_tickets = 2;
    Ok(Certs {
        ca_pem: ca_cert.pem(),
        config: Arc::new(config),
    })
}

/// Handshakes finished, counted by kind (full, or resumed from an earlier session).
#[derive(Debug, Default)]
pub struct Handshakes {
    full: AtomicU64,
    resumed: AtomicU64,
    /// Those that took more than one round trip: TLS 1.2's, or TLS 1.3's after a
    /// HelloRetryRequest (the client guessed a key share the server does not take).
    slow: AtomicU64,
}

impl Handshakes {
    /// (full, resumed) handshakes so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.full.load(Ordering::SeqCst),
            self.resumed.load(Ordering::SeqCst),
        )
    }

    /// Handshakes that took more than one round trip (TLS 1.2, or a HelloRetryRequest).
    pub fn slow(&self) -> u64 {
        self.slow.load(Ordering::SeqCst)
    }

    fn count(&self, kind: Option<rustls::HandshakeKind>, version: Option<rustls::ProtocolVersion>) {
        if kind == Some(rustls::HandshakeKind::FullWithHelloRetryRequest)
            || version != Some(rustls::ProtocolVersion::TLSv1_3)
        {
            self.slow.fetch_add(1, Ordering::SeqCst);
        }
        match kind {
            Some(rustls::HandshakeKind::Resumed) => &self.resumed,
            _ => &self.full,
        }
        .fetch_add(1, Ordering::SeqCst);
    }
}

/// A TCP listener whose connections are TLS handshaken off the accept loop (a slow or failed
/// handshake does not hold up the others); axum sees only finished TLS streams.
pub struct TlsListener {
    rx: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    addr: SocketAddr,
}

impl TlsListener {
    /// Starts accepting on `tcp` until `cancel`; `connections` counts accepted TCP connections
    /// (handshakes that fail included), `handshakes` the finished ones by kind.
    pub fn new(
        tcp: TcpListener,
        certs: &Certs,
        cancel: CancellationToken,
        connections: Arc<AtomicU64>,
        handshakes: Arc<Handshakes>,
    ) -> io::Result<TlsListener> {
        let addr = tcp.local_addr()?;
        let acceptor = TlsAcceptor::from(certs.config.clone());
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let (stream, peer) = tokio::select! {
                    () = cancel.cancelled() => return,
                    r = tcp.accept() => match r {
                        Ok(x) => x,
                        Err(_) => {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    },
                };
                connections.fetch_add(1, Ordering::SeqCst);
                // As real services do: without it, a small write after an unacknowledged one
                // (a body's last frame after its first) waits for a delayed ACK (40 ms).
                let _ = stream.set_nodelay(true);
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                let handshakes = handshakes.clone();
                tokio::spawn(async move {
                    let hs = tokio::time::timeout(Duration::from_secs(10), acceptor.accept(stream));
                    if let Ok(Ok(tls)) = hs.await {
                        let conn = tls.get_ref().1;
                        handshakes.count(conn.handshake_kind(), conn.protocol_version());
                        let _ = tx.send((tls, peer)).await;
                    }
                });
            }
        });
        Ok(TlsListener { rx, addr })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.rx.recv().await {
            Some(x) => x,
            // The accept loop ended (shutdown): wait for axum's graceful shutdown to stop us.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.addr)
    }
}
