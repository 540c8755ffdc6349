//! The real network: the demo server's simulated link (`--link-rtt-ms`, `--link-kbps`),
//! compression asked for and decoded, a decompression bomb refused by its decoded size,
//! HTTP/2 sharing one connection, start to first row over TLS against its floor (TCP + TLS +
//! one request), the browser's connection opened during its start-up, and TLS session
//! resumption. Loopback only, with the real binary where a user would run it.

use crate::common;

use std::time::{Duration, Instant};

use common::{Demo, convo_cmd, fast_settings};
use convo::api::client::http_builder;
use convo::api::encoding::Ask;
use convo::demo::{DemoOptions, DemoServer, Faults, Link};

/// A demo server on its own runtime, with these options (over HTTPS with `tls`).
fn serve(opts: DemoOptions, tls: bool) -> Demo {
    if tls {
        Demo::with_tls(opts)
    } else {
        Demo::with(opts)
    }
}

/// Held by the tests that time a whole process (start to first row) and by the CPU-heavy
/// bomb test, so that the test harness's threads do not run them side by side on a machine of
/// two cores.
static TIMED: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn timed() -> std::sync::MutexGuard<'static, ()> {
    TIMED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn small(link: Option<Link>, compress: bool) -> DemoOptions {
    DemoOptions {
        conversations: 500,
        visitors: 100,
        compress,
        link,
        ..DemoOptions::default()
    }
}

/// One GET of a page of 100 conversations; its time and body size (decoded).
async fn timed_get(http: &reqwest::Client, s: &DemoServer) -> (Duration, usize) {
    let t = Instant::now();
    let resp = http
        .get(format!("{}/v1/conversations?limit=100", s.base_url()))
        .bearer_auth(s.api_key())
        .send()
        .await
        .expect("answer");
    assert_eq!(resp.status(), 200);
    let body = resp.bytes().await.expect("body");
    (t.elapsed(), body.len())
}

/// Two pages over a known link: the second goes over the first one's connection (the pool
/// kept it), and the link counted both bodies down and the requests up. How long each took
/// against the link's floors (two round trips and the transfer on a new connection, one on a
/// kept one) is a figure of `cargo bench --bench links`, checked there, not a wall time
/// asserted here.
#[test]
fn two_pages_over_a_known_link_share_its_one_connection() {
    let link = Link {
        rtt: Duration::from_millis(120),
        kbps: Some(1_000),
    };
    let srv = serve(small(Some(link), false), false);
    let http = http_builder().build().expect("client");
    let (_, size) = srv.rt.block_on(timed_get(&http, srv.s()));
    let (_, size2) = srv.rt.block_on(timed_get(&http, srv.s()));
    assert_eq!(size, size2);
    // A page of 100 conversations is about 30 KB: 240 ms at 1 Mbit/s (the link's model).
    assert!(link.transfer(size) > Duration::from_millis(150));
    // The second page went over the first one's connection (no second handshake).
    assert_eq!(srv.s().link_connections(), Some(1));
    let (up, down) = srv.s().link_bytes().expect("counted");
    assert!(
        down >= 2 * size as u64,
        "{down} bytes down for two {size}-byte pages"
    );
    assert!(up > 0);
}

/// `convo list conversations --all` against `srv`: its exit code, stdout and stderr.
fn list_all(srv: &Demo, tmp: &std::path::Path, extra: &[&str]) -> (i32, String, String) {
    let mut cmd = convo_cmd(tmp);
    cmd.env("CONVO_API_KEY", srv.s().api_key())
        .args(["--base-url", &srv.s().base_url()])
        .args(["list", "conversations", "--all", "--limit", "100"])
        .args(["--format", "jsonl"])
        .args(extra);
    let out = cmd.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// As [`list_all`], and the peak RSS (KiB) of that one child: its `VmHWM`, read from
/// /proc while it runs (the high-water mark only grows, so the last reading is the closest).
/// Not getrusage: a child started by vfork from this (large, many-test) process inherits the
/// parent's high-water mark in its `ru_maxrss` at exec.
fn list_all_peak(srv: &Demo, tmp: &std::path::Path) -> (i32, String, String, u64) {
    use std::io::Read;
    let mut child = common::convo_std_cmd(tmp)
        .env("CONVO_API_KEY", srv.s().api_key())
        .args(["--base-url", &srv.s().base_url()])
        .args(["list", "conversations", "--all", "--limit", "100"])
        .args(["--format", "jsonl"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("stdout")));
    let err = reader(Box::new(child.stderr.take().expect("stderr")));
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let code = loop {
        let hwm = std::fs::read_to_string(&status).ok().and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
        peak_kib = peak_kib.max(hwm.unwrap_or(0));
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code().unwrap_or(-1);
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    (
        code,
        out.join().expect("read"),
        err.join().expect("read"),
        peak_kib,
    )
}

/// A link on which compression wins by far: a page of 100 conversations is ~120 ms plain
/// and ~26 ms compressed at 2 Mbit/s.
const SLOW: Link = Link {
    rtt: Duration::from_millis(4),
    kbps: Some(2_000),
};

/// A demo server of 1,000 conversations (10 pages of 100) behind `link`, its bytes counted.
fn ten_pages(link: Link, faults: Faults) -> Demo {
    serve(
        DemoOptions {
            conversations: 1_000,
            faults,
            ..small(Some(link), true)
        },
        false,
    )
}

#[test]
fn on_a_slow_link_convo_asks_for_zstd_and_decodes_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut bytes = Vec::new();
    for compress in [true, false] {
        let srv = serve(
            DemoOptions {
                conversations: 1_000,
                ..small(Some(SLOW), compress)
            },
            false,
        );
        let (code, out, err) = list_all(&srv, tmp.path(), &[]);
        assert_eq!(code, 0, "{err}");
        let ids = common::jsonl_ids(&out);
        let want = common::conversation_ids(&srv);
        assert_eq!(ids, want, "every row, decoded, in order");
        let raw = out.len() as u64;
        let (_, down) = srv.s().link_bytes().expect("counted");
        bytes.push((down, raw));
    }
    let (compressed, raw) = bytes[0];
    let (plain, _) = bytes[1];
    // JSON pages shrink four- to five-fold; one page of the ten came plain (the trial of
    // the other way), the rest compressed. The uncompressed walk carries every byte.
    assert!(
        compressed * 2 < raw,
        "{compressed} bytes crossed for {raw} bytes of rows: not compressed"
    );
    assert!(plain > raw, "--no-compress: {plain} bytes for {raw}");
    // What convo asks for is zstd, and the demo server sends it (its preference, as convo's);
    // a client that takes only gzip or brotli gets those.
    let srv = serve(small(None, true), false);
    let raw_client = http_builder()
        .no_gzip()
        .no_brotli()
        .build()
        .expect("client");
    let get = |accept: &str| {
        let resp = srv
            .rt
            .block_on(
                raw_client
                    .get(format!("{}/v1/conversations?limit=100", srv.s().base_url()))
                    .bearer_auth(srv.s().api_key())
                    .header("accept-encoding", accept)
                    .send(),
            )
            .expect("answer");
        let enc = resp.headers().get("content-encoding").cloned();
        let body = srv.rt.block_on(resp.bytes()).expect("body");
        (enc.map(|v| v.to_str().unwrap_or("?").to_string()), body)
    };
    let (enc, wire) = get(convo::api::encoding::COMPRESSED);
    assert_eq!(enc.as_deref(), Some("zstd"));
    let page = convo::api::encoding::unzstd(&wire, 1 << 20)
        .expect("zstd")
        .expect("small");
    assert!(page.starts_with(b"{\"data\":["), "a page of JSON");
    assert!(
        wire.len() * 3 < page.len(),
        "{} of {}",
        wire.len(),
        page.len()
    );
    for (accept, want) in [("gzip", "gzip"), ("br", "br"), ("gzip, br", "br")] {
        let (enc, wire) = get(accept);
        assert_eq!(enc.as_deref(), Some(want), "asked {accept}");
        assert!(
            wire.len() * 3 < page.len(),
            "{accept}: {} bytes",
            wire.len()
        );
    }
    assert_eq!(get("identity"), (None, page.into()));
}

#[test]
fn convo_chooses_compressed_answers_where_they_are_faster_and_plain_ones_where_not() {
    let _timed = timed();
    let tmp = tempfile::tempdir().expect("tmp");
    // A slow link: compressed. On loopback, from a service whose compression takes 20 ms a
    // page: plain.
    let slow_compressor = Faults {
        slow_compression: Some(Duration::from_millis(20)),
        ..Faults::default()
    };
    let loopback = Link {
        rtt: Duration::ZERO,
        kbps: None,
    };
    for (link, faults, want) in [
        (SLOW, Faults::default(), Ask::Compressed),
        (loopback, slow_compressor, Ask::Plain),
    ] {
        let srv = ten_pages(link, faults.clone());
        // The client's own choice, after the pages that settle it.
        let client = common::client_for(&srv.s().base_url(), &srv.s().api_key(), fast_settings);
        let choice = srv
            .rt
            .block_on(convo::setup::probes::settle_encoding(&client))
            .expect("pages")
            .expect("chosen within five pages");
        assert_eq!(choice.ask, want, "{choice:?}");
        // A walk: after the trial, every page the chosen way (bytes on the link say which).
        let srv = ten_pages(link, faults);
        let (code, out, err) = list_all(&srv, tmp.path(), &[]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(common::jsonl_ids(&out).len(), 1_000);
        let (_, down) = srv.s().link_bytes().expect("counted");
        let raw = out.len() as u64;
        match want {
            // Seven or more of the ten pages compressed.
            Ask::Compressed => assert!(down * 2 < raw, "{down} bytes for {raw}: {choice:?}"),
            // At most two compressed (the trial's).
            Ask::Plain => assert!(down * 10 > raw * 7, "{down} bytes for {raw}: {choice:?}"),
        }
    }
}

#[test]
fn a_decompression_bomb_is_refused_by_its_decoded_size_with_memory_bounded() {
    let _timed = timed();
    let tmp = tempfile::tempdir().expect("tmp");
    let bombs = [
        (
            "gzip",
            Faults {
                gzip_bomb: true,
                ..Faults::default()
            },
        ),
        (
            "zstd",
            Faults {
                zstd_bomb: true,
                ..Faults::default()
            },
        ),
    ];
    for (name, faults) in bombs {
        let srv = serve(
            DemoOptions {
                faults,
                ..small(None, true)
            },
            false,
        );
        let (code, out, err, peak_kib) = list_all_peak(&srv, tmp.path());
        assert_eq!(code, 5, "{name}: stderr: {err}");
        assert!(out.is_empty(), "{name}: no rows from a bomb: {out}");
        assert!(err.contains("larger than 64 MiB"), "{name}: {err}");
        // The body would inflate to 1 GiB; convo stops at 64 MiB of decoded bytes.
        assert!(
            peak_kib < 150 * 1024,
            "{name}: peak RSS {} MiB",
            peak_kib / 1024
        );
    }
}

#[test]
fn http2_carries_concurrent_requests_on_one_connection() {
    let srv = serve(small(None, true), true);
    let tmp = tempfile::tempdir().expect("tmp");
    let ca = common::file(tmp.path(), "ca.pem", srv.s().ca_pem().expect("CA"));
    let client = common::client_for(&srv.s().base_url(), &srv.s().api_key(), |s| {
        fast_settings(s);
        s.ca_file = Some(ca.clone());
    });
    let pages = srv.rt.block_on(async {
        let gets = (0..8).map(|_| {
            let client = client.clone();
            async move {
                client
                    .list::<_, convo::api::Conversation>(
                        &convo::api::ConversationFilter::default(),
                        convo::api::Limit::new(100).expect("limit"),
                        None,
                        &common::ignore_retry,
                    )
                    .await
            }
        });
        futures::future::join_all(gets).await
    });
    for p in &pages {
        assert_eq!(p.as_ref().expect("a page").items.len(), 100);
    }
    assert_eq!(
        srv.s().connection_count(),
        1,
        "eight requests at once over HTTP/2 share one connection"
    );
}

type PageResult = Result<convo::api::Page<convo::api::Conversation>, convo::api::ApiError>;

/// `n` first pages at once through one client; each one's result and when it came.
fn concurrent_pages(
    srv: &Demo,
    client: &convo::api::Client,
    n: usize,
) -> Vec<(PageResult, Duration)> {
    let t = Instant::now();
    srv.rt.block_on(async {
        let gets = (0..n).map(|_| {
            let client = client.clone();
            async move {
                let page = client
                    .list::<_, convo::api::Conversation>(
                        &convo::api::ConversationFilter::default(),
                        convo::api::Limit::new(10).expect("limit"),
                        None,
                        &common::ignore_retry,
                    )
                    .await;
                (page, t.elapsed())
            }
        });
        futures::future::join_all(gets).await
    })
}

#[test]
fn at_most_max_parallel_requests_are_in_flight_at_once() {
    for (max_parallel, want) in [(2, 2), (4, 4)] {
        let srv = serve(
            DemoOptions {
                latency: Duration::from_millis(150),
                ..small(None, true)
            },
            false,
        );
        let client = common::client_for(&srv.s().base_url(), &srv.s().api_key(), |s| {
            fast_settings(s);
            s.max_parallel = max_parallel;
        });
        for (p, _) in concurrent_pages(&srv, &client, 9) {
            p.expect("a page");
        }
        assert_eq!(
            srv.s().peak_concurrency(),
            want,
            "max_parallel = {max_parallel}, nine requests at once"
        );
    }
}

#[test]
fn a_429_pauses_every_request_to_the_service_not_only_its_own() {
    let srv = serve(
        DemoOptions {
            faults: Faults {
                rate_limit_first: 1,
                retry_after: "1".into(),
                ..Faults::default()
            },
            ..small(None, true)
        },
        false,
    );
    // On a ManualClock: the virtual time at which the server saw each request.
    let (client, clock) = common::client_on_clock(&srv);
    let four = || {
        let gets = (0..4).map(|_| {
            let client = client.clone();
            async move {
                client
                    .list::<_, convo::api::Conversation>(
                        &convo::api::ConversationFilter::default(),
                        convo::api::Limit::new(10).expect("limit"),
                        None,
                        &common::ignore_retry,
                    )
                    .await
            }
        });
        common::on_clock(&srv, &clock, futures::future::join_all(gets))
    };
    // The first request is told to wait a second; the three held behind it wait with it
    // rather than going ahead at once: 1 refused at 0 s, then 4 served, none before +1 s. (A
    // request is stamped with the clock's time when the server is seen to have it: never
    // earlier than it was sent, later on a busy machine when another wait moved the clock.)
    let (pages, at) = four();
    for p in pages {
        p.expect("a page after the wait");
    }
    let s = Duration::from_secs(1);
    assert_eq!((at.len(), at[0]), (5, Duration::ZERO), "{at:?}");
    assert!(
        at[1..].iter().all(|t| *t >= s),
        "a request went before the pause ended: {at:?}"
    );
    assert_eq!(srv.s().request_count(), 5);
    // The pause is over: four more pages, four requests, none refused.
    let (pages, _) = four();
    for p in pages {
        p.expect("a page");
    }
    assert_eq!(srv.s().request_count(), 9);
}

/// Process start to the first row of `convo list conversations --limit 20` on stdout, over
/// TLS (the CA trusted through `SSL_CERT_FILE`, as a user with a private CA would).
fn start_to_first_row(srv: &Demo, tmp: &std::path::Path) -> Duration {
    use std::io::BufRead;
    let ca = tmp.join("ca.pem");
    std::fs::write(&ca, srv.s().ca_pem().expect("CA")).expect("write CA");
    let mut cmd = common::convo_std_cmd(tmp);
    cmd.env("SSL_CERT_FILE", &ca)
        .env("CONVO_API_KEY", srv.s().api_key())
        .args(["--base-url", &srv.s().base_url()])
        .args([
            "list",
            "conversations",
            "--limit",
            "20",
            "--format",
            "jsonl",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let t = Instant::now();
    let mut child = cmd.spawn().expect("runs");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a row");
    let at = t.elapsed();
    assert!(first.starts_with('{'), "first line: {first:?}");
    assert!(child.wait().expect("exits").success());
    at
}

/// The best of three runs: a busy machine only ever adds time.
fn best_start_to_first_row(srv: &Demo, tmp: &std::path::Path) -> Duration {
    (0..3)
        .map(|_| start_to_first_row(srv, tmp))
        .min()
        .expect("three runs")
}

/// Start to first row over TLS costs the floor's round trips and no more: each of three runs
/// opens one connection, does one handshake (TLS 1.3 in one round trip) and sends one
/// request (no probe, no redirect, no second connection). How close to the floor it comes is a
/// figure (docs/performance.md, "Timings out of cargo test"), not asserted here.
#[test]
fn start_to_first_row_over_tls_takes_one_connection_one_handshake_one_request() {
    let _timed = timed();
    let tmp = tempfile::tempdir().expect("tmp");
    let link = Link {
        rtt: Duration::from_millis(100),
        kbps: None,
    };
    let srv = serve(small(Some(link), true), true);
    let took = best_start_to_first_row(&srv, tmp.path());
    // The floor, as curl measures it: TCP's handshake, TLS 1.3's, then the request (a figure;
    // the events are asserted below).
    let floor = 3 * link.rtt;
    eprintln!("start to first row: {took:?} on the link (floor {floor:?})");
    let s = srv.s();
    assert_eq!(s.connection_count(), 3, "one connection a run");
    let (full, resumed) = s.tls_handshakes();
    assert_eq!(full + resumed, 3, "one handshake a run");
    assert_eq!(s.slow_tls_handshakes(), 0, "TLS 1.3 in one round trip");
    assert_eq!(s.request_count(), 3, "one request a run");
}

#[test]
fn a_second_connection_resumes_the_tls_session_of_the_first() {
    // HTTP/1.1 only: concurrent requests after the first answer need connections of their own.
    let srv = serve(
        DemoOptions {
            latency: Duration::from_millis(100),
            faults: Faults {
                http1_only: true,
                ..Faults::default()
            },
            ..small(None, true)
        },
        true,
    );
    let tmp = tempfile::tempdir().expect("tmp");
    let ca = tmp.path().join("ca.pem");
    std::fs::write(&ca, srv.s().ca_pem().expect("CA")).expect("write CA");
    let client = common::client_for(&srv.s().base_url(), &srv.s().api_key(), |s| {
        fast_settings(s);
        s.ca_file = Some(ca.clone());
    });
    for (p, _) in concurrent_pages(&srv, &client, 4) {
        p.expect("a page");
    }
    let connections = srv.s().connection_count();
    assert!(
        connections >= 2,
        "{connections} connection(s): no second one"
    );
    let (full, resumed) = srv.s().tls_handshakes();
    assert_eq!(full + resumed, connections, "every connection handshaken");
    // The server hands out two single-use TLS 1.3 tickets a handshake (as OpenSSL's servers
    // do): connections opened at once may outnumber them, and those do a full handshake.
    assert!(
        resumed >= 1 && full < connections,
        "{full} full, {resumed} resumed handshakes of {connections} connections: no resumption"
    );
}

/// The order of events: with the local start-up held (`CONVO_TEST_SLOW_START`, between
/// asking for the first page and entering the alternate screen), the first page's request
/// reaches the server while the terminal is not yet set up. Then the first row shows.
#[test]
fn the_browser_opens_its_connection_while_the_terminal_is_set_up_not_after() {
    let _timed = timed();
    let link = Link {
        rtt: Duration::from_millis(100),
        kbps: None,
    };
    let tmp = tempfile::tempdir().expect("tmp");
    // Start-up held 4 s: the request (three round trips, 300 ms, over this link) comes
    // meanwhile. Had it waited for the terminal, the alternate screen would come first.
    let srv = serve(small(Some(link), true), true);
    let ca = tmp.path().join("ca.pem");
    std::fs::write(&ca, srv.s().ca_pem().expect("CA")).expect("write CA");
    let (home, ca) = (
        tmp.path().to_str().expect("utf-8"),
        ca.to_str().expect("utf-8"),
    );
    let (cfg, log) = (tmp.path().join("none.toml"), tmp.path().join("convo.log"));
    let (key, url) = (srv.s().api_key(), srv.s().base_url());
    let env = [
        ("HOME", home),
        ("CONVO_CONFIG", cfg.to_str().expect("utf-8")),
        ("CONVO_LOG_FILE", log.to_str().expect("utf-8")),
        ("CONVO_API_KEY", key.as_str()),
        ("SSL_CERT_FILE", ca),
        ("CONVO_TEST_SLOW_START", "4000"),
    ];
    let mut p = common::pty::Pty::spawn(&["--base-url", &url], &env, 120, 30);
    let deadline = Instant::now() + Duration::from_secs(30);
    while srv.s().request_count() == 0 {
        assert!(
            Instant::now() < deadline,
            "no request came:\n{}",
            p.screen()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let raw = p.raw();
    let entered = raw.windows(8).any(|w| w == b"\x1b[?1049h");
    assert!(
        !entered,
        "the first page was asked for after the terminal was set up, not during it"
    );
    let first_id = srv.s().data().conversations[0].id.to_string();
    p.wait_until(Duration::from_secs(20), |s| s.contains(&first_id[..8]));
    p.send(b"q");
    assert_eq!(p.wait_exit(Duration::from_secs(10)), Some(0));
}

/// The order of events: the trusted roots are read while the first connection is opened, not
/// before. `SSL_CERT_FILE` is a FIFO that gives the roots only when this test writes them (as a
/// large trust store on a slow disk would, later): the server sees the connection first.
#[cfg(unix)]
#[test]
fn trusted_roots_load_while_the_first_connection_is_handshaken() {
    use std::io::Read;
    let _timed = timed();
    let link = Link {
        rtt: Duration::from_millis(100),
        kbps: None,
    };
    let srv = serve(small(Some(link), true), true);
    let tmp = tempfile::tempdir().expect("tmp");
    let fifo = tmp.path().join("roots.pem");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo");
    let mut cmd = common::convo_std_cmd(tmp.path());
    cmd.env("SSL_CERT_FILE", &fifo)
        .env("CONVO_API_KEY", srv.s().api_key())
        .args(["--base-url", &srv.s().base_url()])
        .args(["list", "conversations", "--limit", "5", "--format", "jsonl"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("runs");
    // Until the roots are written, a connection can only be one opened while they load.
    let deadline = Instant::now() + Duration::from_secs(30);
    let connected_first = loop {
        if srv.s().connection_count() >= 1 {
            break true;
        }
        if Instant::now() > deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // The roots now (opening the FIFO waits for its reader).
    std::fs::write(&fifo, srv.s().ca_pem().expect("CA")).expect("write the roots");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("convo did not finish after the roots were written");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("stdout");
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    assert!(
        connected_first,
        "no connection until the roots were read: they were loaded before connecting"
    );
    assert!(child.wait().expect("exits").success(), "{err}");
    assert!(out.starts_with('{'), "first line: {out:?}; {err}");
}
