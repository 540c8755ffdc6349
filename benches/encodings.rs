//! What each content encoding costs for one page of 100 conversations (issue 30, section 1):
//! its bytes, the server's time to compress it, and convo's time to decode it.
//!
//! The page is a real one: the demo server's first page of 100 (20,000 conversations), fetched
//! plain. Each encoding runs through the codec crate the HTTP stack uses underneath (the demo
//! server's tower-http and convo's reqwest both go through async-compression to these):
//! `flate2` (gzip), `brotli`, `zstd` (the C library; decoded as convo's client does, `encoding::unzstd`). Compress: the whole page in one call, as
//! the demo server hands its body to the compressor in one piece; decode: the compressed page
//! back to its bytes, then convo's `Page::decode` (`decode_page/<enc>`), so the identity row
//! is the JSON alone and each other row adds the decompression.
//!
//! Run: `nice cargo bench --bench encodings` (it prints the bytes first);
//! `cargo test --bench encodings` runs each once (CI's smoke run).

use std::hint::black_box;
use std::io::{Read, Write};

use convo::api::{Conversation, Page};
use convo::demo::{DemoOptions, DemoServer};
use criterion::{Criterion, criterion_group, criterion_main};

/// One encoding at one level, as a server would be configured.
#[derive(Clone, Copy)]
enum Enc {
    Identity,
    Gzip(u32),
    Brotli(u32),
    Zstd(i32),
}

impl Enc {
    fn name(self) -> String {
        match self {
            Enc::Identity => "identity".into(),
            Enc::Gzip(l) => format!("gzip-{l}"),
            Enc::Brotli(q) => format!("br-{q}"),
            Enc::Zstd(l) => format!("zstd-{l}"),
        }
    }

    fn compress(self, body: &[u8]) -> Vec<u8> {
        match self {
            Enc::Identity => body.to_vec(),
            Enc::Gzip(l) => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(l));
                e.write_all(body).expect("gzip");
                e.finish().expect("gzip")
            }
            Enc::Brotli(q) => {
                let mut out = Vec::new();
                {
                    // The window async-compression leaves brotli at (lgwin 22).
                    let mut w = brotli::CompressorWriter::new(&mut out, 4096, q, 22);
                    w.write_all(body).expect("brotli");
                }
                out
            }
            Enc::Zstd(l) => zstd::bulk::compress(body, l).expect("zstd"),
        }
    }

    /// Streaming decoders, as the HTTP stack's are (no size known in advance).
    fn decompress(self, wire: &[u8], out: &mut Vec<u8>) {
        out.clear();
        match self {
            Enc::Identity => out.extend_from_slice(wire),
            Enc::Gzip(_) => {
                flate2::read::GzDecoder::new(wire)
                    .read_to_end(out)
                    .expect("gunzip");
            }
            Enc::Brotli(_) => {
                brotli::Decompressor::new(wire, 4096)
                    .read_to_end(out)
                    .expect("unbrotli");
            }
            Enc::Zstd(_) => {
                // convo's own zstd decoding (the client's): the thread's decoder, kept.
                *out = convo::api::encoding::unzstd(wire, 1 << 30)
                    .expect("unzstd")
                    .expect("under the cap");
            }
        }
    }
}

const LEVELS: [Enc; 9] = [
    Enc::Identity,
    Enc::Gzip(1),
    Enc::Gzip(6),
    Enc::Brotli(1),
    Enc::Brotli(4),
    Enc::Brotli(5),
    Enc::Zstd(1),
    Enc::Zstd(3),
    Enc::Zstd(6),
];

/// The demo server's first page of 100 conversations, plain.
fn page() -> Vec<u8> {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let server = DemoServer::start(DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            conversations: 20_000,
            visitors: 100,
            ..DemoOptions::default()
        })
        .await
        .expect("demo server");
        let http = convo::api::client::http_builder().build().expect("client");
        let body = http
            .get(format!("{}/v1/conversations?limit=100", server.base_url()))
            .bearer_auth(server.api_key())
            .header("accept-encoding", "identity")
            .send()
            .await
            .expect("answer")
            .bytes()
            .await
            .expect("body")
            .to_vec();
        server.shutdown().await;
        body
    })
}

fn encodings(c: &mut Criterion) {
    let body = page();
    assert_eq!(
        Page::<Conversation>::decode(&body)
            .expect("a page")
            .items
            .len(),
        100
    );
    println!("a page of 100 conversations, bytes on the wire (body only):");
    let wires: Vec<(Enc, Vec<u8>)> = LEVELS.iter().map(|&e| (e, e.compress(&body))).collect();
    let mut out = Vec::with_capacity(body.len());
    for (e, wire) in &wires {
        e.decompress(wire, &mut out);
        assert_eq!(out, body, "{} must give the page back", e.name());
        println!("  {:<9} {:>6} bytes", e.name(), wire.len());
    }
    let mut g = c.benchmark_group("compress_page");
    for &(e, _) in &wires[1..] {
        g.bench_function(e.name(), |b| b.iter(|| e.compress(black_box(&body))));
    }
    g.finish();
    let mut g = c.benchmark_group("decode_page");
    for (e, wire) in &wires {
        g.bench_function(e.name(), |b| {
            b.iter(|| {
                e.decompress(black_box(wire), &mut out);
                Page::<Conversation>::decode(&out)
                    .expect("a page")
                    .items
                    .len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, encodings);
criterion_main!(benches);
