//! A small real HTTP proxy for the tests: CONNECT tunnels (with optional Basic proxy auth)
//! on a random loopback port. It records what it saw outside the tunnels (each request head)
//! and the bytes clients sent inside them, so tests can check where the key travelled.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy saw.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    /// Every request head (request line and headers), in arrival order.
    pub heads: Vec<String>,
    /// Every byte clients sent inside tunnels (TLS records: must not show the key).
    pub tunnelled: Vec<u8>,
}

pub struct Proxy {
    pub port: u16,
    seen: Arc<Mutex<Seen>>,
}

impl Proxy {
    /// Starts on the current tokio runtime. `auth`: the `user:password` it demands (407
    /// otherwise).
    pub async fn start(auth: Option<&str>) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let expected = auth.map(|a| {
            use base64::Engine;
            format!(
                "basic {}",
                base64::engine::general_purpose::STANDARD.encode(a)
            )
        });
        let rec = seen.clone();
        tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(serve(client, rec.clone(), expected.clone()));
            }
        });
        Proxy { port, seen }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn seen(&self) -> Seen {
        self.seen.lock().expect("lock").clone()
    }

    /// The request lines of the CONNECT requests seen.
    pub fn connects(&self) -> Vec<String> {
        self.seen()
            .heads
            .iter()
            .filter_map(|h| h.lines().next())
            .filter(|l| l.starts_with("CONNECT "))
            .map(str::to_string)
            .collect()
    }
}

async fn serve(mut client: TcpStream, seen: Arc<Mutex<Seen>>, expected: Option<String>) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match client.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > 64 * 1024 {
            return;
        }
    }
    let end = head.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(0) + 4;
    let text = String::from_utf8_lossy(&head[..end]).into_owned();
    let early = head[end..].to_vec();
    seen.lock().expect("lock").heads.push(text.clone());
    let line = text.lines().next().unwrap_or_default().to_string();
    let Some(target) = line
        .strip_prefix("CONNECT ")
        .and_then(|r| r.split(' ').next())
    else {
        let _ = client
            .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            .await;
        return;
    };
    if let Some(want) = expected {
        let got = text
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("proxy-authorization")
                    .then(|| v.trim().to_ascii_lowercase())
            })
            .unwrap_or_default();
        // Compare with the base64 in its case (only the scheme is case-insensitive).
        let got_token = got.split_once(' ').map(|x| x.1).unwrap_or("");
        let want_token = want.split_once(' ').map(|x| x.1).unwrap_or("");
        if !got.starts_with("basic ") || !got_token.eq_ignore_ascii_case(want_token) {
            let _ = client
                .write_all(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\n\
                      Proxy-Authenticate: Basic realm=\"test\"\r\ncontent-length: 0\r\n\r\n",
                )
                .await;
            return;
        }
    }
    let Ok(mut upstream) = TcpStream::connect(target).await else {
        let _ = client
            .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            .await;
        return;
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await
        .is_err()
    {
        return;
    }
    seen.lock()
        .expect("lock")
        .tunnelled
        .extend_from_slice(&early);
    let _ = upstream.write_all(&early).await;
    let (mut cr, mut cw) = client.into_split();
    let (mut ur, mut uw) = upstream.into_split();
    let up = async {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match cr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    seen.lock()
                        .expect("lock")
                        .tunnelled
                        .extend_from_slice(&buf[..n]);
                    if uw.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = uw.shutdown().await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut ur, &mut cw).await;
        let _ = cw.shutdown().await;
    };
    tokio::join!(up, down);
}
