//! A simulated network link in front of the demo server (`--link-rtt-ms`, `--link-kbps`), so
//! that convo can be measured where users are: 20 to 150 ms away, at a few Mbit/s.
//!
//! The public listener accepts each connection and pumps its bytes, both ways, to the real
//! server on a private loopback port. Every chunk crosses the link as over a WAN: it waits for
//! the link to be free, takes its size over the rate to send (each direction is one shared
//! link, so parallel connections share its bandwidth as they would on a real line), then half
//! the round trip to arrive. A new connection's first bytes leave one round trip after it was
//! accepted, as TCP's handshake costs a client that round trip before it may send: a request
//! on a new connection costs two round trips plus its bytes, one on a kept connection one.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The link's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// Round-trip time: half of it each way.
    pub rtt: Duration,
    /// Rate of each direction in kbit/s (1,000 bit/s); `None` is unlimited.
    pub kbps: Option<u64>,
}

impl Link {
    /// How long `bytes` take to be sent at the link's rate.
    pub fn transfer(&self, bytes: usize) -> Duration {
        match self.kbps {
            // bits / (kbps * 1000) seconds = bytes * 8 / kbps milliseconds
            Some(kbps) if kbps > 0 => {
                Duration::from_micros((bytes as u64).saturating_mul(8_000) / kbps)
            }
            _ => Duration::ZERO,
        }
    }
}

/// When each direction of the link is next free to send (shared by every connection), and
/// how many bytes crossed it each way.
#[derive(Default)]
pub struct Lanes {
    up: Mutex<Option<Instant>>,
    down: Mutex<Option<Instant>>,
    up_bytes: AtomicU64,
    down_bytes: AtomicU64,
    connections: AtomicU64,
}

impl Lanes {
    /// Connections carried so far.
    pub fn connections(&self) -> u64 {
        self.connections.load(Ordering::Relaxed)
    }

    /// Bytes carried from clients to the server, and from the server to clients.
    pub fn bytes(&self) -> (u64, u64) {
        (
            self.up_bytes.load(Ordering::Relaxed),
            self.down_bytes.load(Ordering::Relaxed),
        )
    }
}

/// Takes the lane for `bytes` sent no earlier than `ready`; returns when they are all sent.
fn occupy(lane: &Mutex<Option<Instant>>, link: Link, ready: Instant, bytes: usize) -> Instant {
    let mut free = lane
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let start = free.map_or(ready, |f| f.max(ready));
    let sent = start + link.transfer(bytes);
    *free = Some(sent);
    sent
}

/// Accepts on `public` until `cancel` and carries every connection to `inner` across `link`;
/// the lanes count what crossed.
pub fn spawn(
    public: TcpListener,
    inner: SocketAddr,
    link: Link,
    cancel: CancellationToken,
) -> (tokio::task::JoinHandle<()>, Arc<Lanes>) {
    let lanes = Arc::new(Lanes::default());
    let counted = lanes.clone();
    let task = tokio::spawn(async move {
        loop {
            let client = tokio::select! {
                () = cancel.cancelled() => return,
                r = public.accept() => match r {
                    Ok((s, _)) => s,
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            lanes.connections.fetch_add(1, Ordering::Relaxed);
            let (lanes, cancel) = (lanes.clone(), cancel.clone());
            tokio::spawn(async move {
                tokio::select! {
                    () = cancel.cancelled() => {}
                    _ = carry(client, inner, link, lanes) => {}
                }
            });
        }
    });
    (task, counted)
}

/// One connection: both directions pumped until each side has closed.
async fn carry(
    client: TcpStream,
    inner: SocketAddr,
    link: Link,
    lanes: Arc<Lanes>,
) -> io::Result<()> {
    let accepted = Instant::now();
    let server = TcpStream::connect(inner).await?;
    client.set_nodelay(true)?;
    server.set_nodelay(true)?;
    let (client_r, client_w) = client.into_split();
    let (server_r, server_w) = server.into_split();
    let handshake = accepted + link.rtt;
    let up = pump(
        client_r,
        server_w,
        link,
        lanes.clone(),
        Direction::Up,
        handshake,
    );
    let down = pump(server_r, client_w, link, lanes, Direction::Down, accepted);
    tokio::join!(up, down);
    Ok(())
}

#[derive(Clone, Copy)]
enum Direction {
    Up,
    Down,
}

/// Reads chunks from `from` and writes each to `to` when it has crossed the link; the bytes
/// in flight are bounded (64 chunks), as a real link's queue is.
async fn pump(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    link: Link,
    lanes: Arc<Lanes>,
    dir: Direction,
    not_before: Instant,
) {
    let (tx, mut rx) = mpsc::channel::<(Bytes, Instant)>(64);
    let read = async move {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = match from.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let ready = Instant::now().max(not_before);
            let (lane, count) = match dir {
                Direction::Up => (&lanes.up, &lanes.up_bytes),
                Direction::Down => (&lanes.down, &lanes.down_bytes),
            };
            count.fetch_add(n as u64, Ordering::Relaxed);
            let sent = occupy(lane, link, ready, n);
            let chunk = Bytes::copy_from_slice(&buf[..n]);
            if tx.send((chunk, sent + link.rtt / 2)).await.is_err() {
                break;
            }
        }
    };
    let write = async move {
        while let Some((chunk, at)) = rx.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&chunk).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(read, write);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_count_takes_its_time_at_the_rate() {
        let link = Link {
            rtt: Duration::from_millis(40),
            kbps: Some(10_000),
        };
        // 10 Mbit/s: 1,250 bytes a millisecond.
        assert_eq!(link.transfer(12_500), Duration::from_millis(10));
        let free = Link { kbps: None, ..link };
        assert_eq!(free.transfer(1 << 30), Duration::ZERO);
    }

    #[test]
    fn a_lane_sends_one_chunk_after_another() {
        let link = Link {
            rtt: Duration::ZERO,
            kbps: Some(8),
        };
        let lane = Mutex::new(None);
        let t0 = Instant::now();
        // 8 kbit/s: a byte a millisecond; the second chunk waits for the first.
        assert_eq!(occupy(&lane, link, t0, 10), t0 + Duration::from_millis(10));
        assert_eq!(occupy(&lane, link, t0, 5), t0 + Duration::from_millis(15));
        let later = t0 + Duration::from_secs(1);
        assert_eq!(
            occupy(&lane, link, later, 1),
            later + Duration::from_millis(1)
        );
    }
}
