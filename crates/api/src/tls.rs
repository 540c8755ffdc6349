//! The client's TLS configuration: what reqwest would build (the platform's verifier, the
//! system's roots plus `ca_file`'s, HTTP/2 and HTTP/1.1 offered by ALPN), except that the
//! roots are loaded on a thread of their own from the moment the client is built.
//!
//! Loading the system's roots takes a while (about 150 certificates read and parsed; 18 ms in
//! a debug build here) and reqwest does it before the client exists, so before the first
//! connection may start. The roots are needed only when the server's certificate arrives, a
//! round trip for TCP and one for TLS later: loaded meanwhile, they cost the first row nothing.

use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

type Built = Result<Arc<dyn ServerCertVerifier>, rustls::Error>;

/// The platform's verifier, built once, on a thread started with the client (or by the first
/// handshake, if that comes first: [`OnceLock`] makes one wait for the other).
struct LazyVerifier {
    verifier: Arc<OnceLock<Built>>,
    build: Arc<dyn Fn() -> Built + Send + Sync>,
    provider: Arc<CryptoProvider>,
}

impl std::fmt::Debug for LazyVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyVerifier")
            .field("ready", &self.verifier.get().is_some())
            .finish_non_exhaustive()
    }
}

impl LazyVerifier {
    fn new(extra_roots: Vec<CertificateDer<'static>>, provider: Arc<CryptoProvider>) -> Self {
        let p = provider.clone();
        let build: Arc<dyn Fn() -> Built + Send + Sync> = Arc::new(move || {
            let v = rustls_platform_verifier::Verifier::new_with_extra_roots(
                extra_roots.iter().cloned(),
                p.clone(),
            )?;
            Ok(Arc::new(v) as Arc<dyn ServerCertVerifier>)
        });
        let verifier = Arc::new(OnceLock::new());
        let (cell, b) = (verifier.clone(), build.clone());
        // A thread that cannot be started only means the first handshake builds it.
        let _ = std::thread::Builder::new()
            .name("convo-tls-roots".into())
            .spawn(move || {
                cell.get_or_init(|| b());
            });
        LazyVerifier {
            verifier,
            build,
            provider,
        }
    }

    fn get(&self) -> Result<&Arc<dyn ServerCertVerifier>, rustls::Error> {
        self.verifier
            .get_or_init(|| (self.build)())
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for LazyVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.get()?
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.get()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.get()?.verify_tls13_signature(message, cert, dss)
    }

    /// Asked for the ClientHello, before any certificate: from the provider, never waiting
    /// for the roots (the platform's verifier answers the same).
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The rustls configuration of a client of an https service: TLS 1.3 and 1.2, the platform's
/// verifier with `extra_roots` (loading from now on, see the module doc), HTTP/2 and
/// HTTP/1.1 offered by ALPN, sessions kept for resumption (rustls' default cache).
pub fn client_config(
    extra_roots: Vec<CertificateDer<'static>>,
) -> Result<rustls::ClientConfig, rustls::Error> {
    // What is wrong in `ca_file`'s certificates is said now, as reqwest would, not at the
    // first handshake (the system's are skipped when bad, as always).
    let mut check = rustls::RootCertStore::empty();
    for cert in &extra_roots {
        check.add(cert.clone())?;
    }
    install_crypto_provider();
    let provider = CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
    let verifier = LazyVerifier::new(extra_roots, provider.clone());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// Installs the rustls crypto provider once; every reqwest client of the program (tests too)
/// must be built after it, which `client::http_builder` guarantees.
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Err means a provider is already installed, which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
