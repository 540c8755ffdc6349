//! `convo demo-server` flags, and how the demo's fault kinds are spelled on the command line.

use super::Choice;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use convo_demo::{
    BadBytes, BadCert, Churn, DemoOptions, Faults, LimitHeaders, Link, RequestBudget, ServeOrder,
};

/// Run the demo server: the same API as the service, on generated data, loopback only.
#[derive(clap::Args, Debug, Clone)]
pub struct DemoServerArgs {
    /// Address to listen on; loopback only. Port 0 picks a free port and prints it.
    #[arg(long, default_value = "127.0.0.1:8787")]
    pub addr: SocketAddr,
    /// Seed of the generated data: the same seed gives the same rows.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// How many conversations to generate (at most 5,000,000).
    #[arg(long, value_name = "N", default_value_t = 5000, value_parser = count)]
    pub conversations: usize,
    /// How many visitors to generate (at most 5,000,000).
    #[arg(long, value_name = "N", default_value_t = 1500, value_parser = count)]
    pub visitors: usize,
    /// Delay before each API answer, in milliseconds: the server's own time per answer.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub latency_ms: u64,
    /// Put every connection behind a simulated link of this round trip, in milliseconds (half
    /// each way; a new connection's handshake costs one round trip), as over a WAN.
    #[arg(long, value_name = "MS")]
    pub link_rtt_ms: Option<u64>,
    /// The simulated link's rate in kbit/s, each direction (shared by all connections), e.g.
    /// 4000 for 4 Mbit/s. Without --link-rtt-ms the round trip is 0.
    #[arg(long, value_name = "KBPS", value_parser = clap::value_parser!(u64).range(1..))]
    pub link_kbps: Option<u64>,
    /// Never compress answers (by default they are compressed, zstd, brotli or gzip, when the
    /// client asks with Accept-Encoding, as real services do).
    #[arg(long)]
    pub no_compress: bool,

    /// Serve HTTPS with a certificate for localhost and 127.0.0.1 made at start, signed by a CA
    /// made at start too; the CA certificate is written to --ca-out (printed at start).
    #[arg(long)]
    pub tls: bool,

    /// With --tls: where to write the CA certificate (default: the temp directory,
    /// convo-demo-ca-PORT.pem).
    #[arg(long, value_name = "PATH", requires = "tls")]
    pub ca_out: Option<PathBuf>,

    /// A request budget per key, as real services keep: at most N API requests in any
    /// --rate-limit-window (a minute); past it, 429 with Retry-After.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit: Option<u32>,
    /// With --rate-limit: which headers say the budget on every answer (ietf: RateLimit and
    /// RateLimit-Policy; x: X-RateLimit-*; none: only the 429s).
    #[arg(
        long,
        value_name = "KIND",
        default_value = "ietf",
        requires = "rate_limit"
    )]
    pub rate_limit_headers: Choice<LimitHeaders>,
    /// With --rate-limit: the window, in seconds.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 60,
        requires = "rate_limit",
        value_parser = clap::value_parser!(u64).range(1..=86400)
    )]
    pub rate_limit_window: u64,

    /// Keep the generated times at their fixed reference (the newest near 2026-11-22T12:00:00Z)
    /// instead of ending now: the same seed then answers byte for byte the same on any day.
    #[arg(long)]
    pub fixed_times: bool,
    /// A live queue past the demo's first-response target (1 minute) from the start, new
    /// breaches every minute, for trying the board, the exporter and its alerts: --churn 12,
    /// --churn-new-visitors 30 and a backlog of 20 waiting conversations (each unless given).
    #[arg(long, help_heading = "Live queue")]
    pub live: bool,
    /// Where to write the demo's targets as a config file for `convo --config` (the [sla]
    /// `convo --demo` uses: first response 1m, warn_at 0.5, resolution 1d; default: the temp
    /// directory, convo-demo-PORT.toml).
    #[arg(long, value_name = "PATH")]
    pub targets_out: Option<PathBuf>,

    /// About N conversation changes a minute, alternately a new open, unassigned
    /// conversation at the top and an agent picking up a waiting one (mostly the longest
    /// waiting; a reassignment when none waits). Default 0 (12 with --live).
    #[arg(long, value_name = "N", help_heading = "Live queue")]
    pub churn: Option<u32>,
    /// With churn: P percent of the new conversations are started by a new visitor, who
    /// joins the visitors list at its newest end (0 to 100; default 0, 30 with --live).
    #[arg(
        long,
        value_name = "P",
        value_parser = clap::value_parser!(u32).range(0..=100),
        help_heading = "Live queue"
    )]
    pub churn_new_visitors: Option<u32>,
    /// The newest N open conversations an agent holds (past the live queue at
    /// the top) are left unassigned, so the "Unassigned open" view runs to several pages.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        value_parser = count
    )]
    pub backlog: usize,
    /// The order rows are served in (the spec promises none; convo learns it).
    #[arg(
        long,
        value_enum,
        default_value_t = Choice(ServeOrder::Newest)
    )]
    pub order: Choice<ServeOrder>,
    /// The test server's fault switches: only in builds with the `testing` feature (`cargo
    /// test`), never in a shipped binary.
    #[cfg(feature = "testing")]
    #[command(flatten)]
    pub faults: FaultArgs,
}

/// The demo server's fault switches, for convo's own tests: each makes it misbehave in one
/// named way (see `convo_demo::Faults`). Compiled only with the `testing` feature, which `cargo
/// test` turns on and a release build never does: a shipped `convo demo-server --help` names
/// none of them.
#[cfg(feature = "testing")]
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "Faults (for testing)")]
pub struct FaultArgs {
    /// For testing: the first N API requests answer --fail-status with an error body, then
    /// the server behaves. API requests are counted from 1, failed ones included.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub fail_first: u32,
    /// For testing: the status --fail-first answers with (400 to 599).
    #[arg(
        long,
        value_name = "CODE",
        default_value_t = 500,
        value_parser = clap::value_parser!(u16).range(400..=599)
    )]
    pub fail_status: u16,
    /// For testing: every Nth API request answers 503 (0: never).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub fail_every: u32,
    /// For testing: every API request answers 500 (once the key is accepted).
    #[arg(long)]
    pub fail_always: bool,
    /// For testing: every API request after the first N answers 500 (dies mid-walk).
    #[arg(long, value_name = "N")]
    pub fail_after: Option<u32>,
    /// For testing: the status of --fail-after (e.g. 401 or 403: a key revoked or narrowed
    /// mid-walk); below 400 means 500.
    #[arg(long, value_name = "STATUS", default_value_t = 0)]
    pub fail_after_status: u16,
    /// For testing: API requests whose path and query hold TEXT (e.g. `status=pending`)
    /// answer 403, as for a key narrowed to some lists: one view fails, the others are read.
    #[arg(long, value_name = "TEXT")]
    pub forbid_matching: Option<String>,
    /// For testing: the first N API requests answer 429 with a Retry-After header.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub rate_limit_first: u32,
    /// For testing: the Retry-After value sent with 429 (seconds or an HTTP date).
    #[arg(long, value_name = "VALUE", default_value = "1")]
    pub retry_after: String,
    /// For testing: the Nth API request (from 1) answers 200 with truncated, invalid JSON.
    #[arg(long, value_name = "N")]
    pub malformed_page: Option<u32>,
    /// For testing: every API request answers 200 with valid JSON of the wrong shape
    /// ({"items":[]}).
    #[arg(long)]
    pub wrong_shape: bool,
    /// For testing: every page carries one extra row that cannot be parsed (id "not-a-uuid"),
    /// among the good ones.
    #[arg(long)]
    pub bad_row: bool,
    /// For testing: every page carries one extra row whose string holds invalid UTF-8 (utf8)
    /// or a raw control character (control), among the good ones.
    #[arg(long, value_name = "KIND")]
    pub bad_bytes_row: Option<Choice<BadBytes>>,
    /// For testing, with --tls: serve a certificate issued for another name (wrong-name) or
    /// one that has expired (expired), signed by the same CA.
    #[arg(long, value_name = "KIND", requires = "tls")]
    pub bad_cert: Option<Choice<BadCert>>,
    /// For testing: accept API requests and never answer (until the server stops).
    #[arg(long)]
    pub hang: bool,
    /// For testing: send the headers and half of the body, then drop the connection.
    #[arg(long)]
    pub reset_mid_body: bool,
    /// Pages are a small gzip body that inflates without end (a decompression bomb).
    #[arg(long)]
    pub gzip_bomb: bool,
    /// Pages are a small zstd body that inflates without end (a decompression bomb).
    #[arg(long)]
    pub zstd_bomb: bool,
    /// For testing: answers a client may get compressed come this many ms later (a service
    /// whose compression is slow).
    #[arg(long, value_name = "MS")]
    pub slow_compression_ms: Option<u64>,
    /// For testing: pages hold 5 rows more than the limit asked for.
    #[arg(long)]
    pub oversize_page: bool,
    /// For testing: the first page says has_more: true with next_cursor: null.
    #[arg(long)]
    pub null_cursor_with_more: bool,
    /// For testing: pages after the first hand back the cursor they were asked with, so a
    /// walk that does not notice never ends.
    #[arg(long)]
    pub cursor_loop: bool,
    /// For testing: pages after the first repeat the last 3 rows of the one before.
    #[arg(long)]
    pub duplicate_ids: bool,
    /// For testing: every 7th conversation has the status "snoozed", which the spec does not
    /// name.
    #[arg(long)]
    pub unknown_status: bool,
    /// For testing: visitor names, e-mails, external ids and attributes hold terminal escape
    /// sequences, C1 controls, CR, backspaces, bidi overrides, zero-width joiners, spreadsheet
    /// formulas (=, +, -, @, tab, CR first) and a 5,000-character name; some fields are null or
    /// missing; every 13th conversation's status is a formula.
    #[arg(long)]
    pub hostile: bool,
    /// For testing: answer every API request with this HTTP status and an error body that
    /// quotes the Authorization header it received (a service that echoes the key).
    #[arg(long, value_name = "STATUS")]
    pub echo_key: Option<u16>,
    /// For testing: answer every API request with a 307 redirect to this origin (same path and
    /// query), to check that a client does not follow it with the key.
    #[arg(long, value_name = "URL")]
    pub redirect_to: Option<String>,
    /// Every createdAt cut to its hour: many rows share a second, and ties are ordered by id.
    #[arg(long)]
    pub coarse_times: bool,
    /// For testing: the first visitor's attributes hold a 2 MB string.
    #[arg(long)]
    pub big_attribute: bool,
    /// For testing, deterministic: every first-page conversations request after the first
    /// adds N new open, unassigned conversations at the top.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub churn_head_new: u32,
    /// For testing, deterministic: every first-page conversations request after the first
    /// reassigns N of the first ten conversations.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub churn_head_reassign: u32,
}

/// Waiting conversations `--live` leaves in the queue (unless `--backlog` says): older than
/// the demo's target, so the queue breaches from the start and churn keeps it going.
const LIVE_BACKLOG: usize = 20;

/// A row count: a number from 0 to 5,000,000.
fn count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n <= 5_000_000 => Ok(n),
        Ok(_) => Err("at most 5,000,000".into()),
        Err(e) => Err(e.to_string()),
    }
}

impl DemoServerArgs {
    /// `Some(path or default)` with --tls.
    pub fn tls(&self) -> Option<Option<PathBuf>> {
        self.tls.then(|| self.ca_out.clone())
    }

    /// The options these flags describe.
    pub fn to_options(&self) -> DemoOptions {
        DemoOptions {
            addr: self.addr,
            seed: self.seed,
            conversations: self.conversations,
            visitors: self.visitors,
            latency: Duration::from_millis(self.latency_ms),
            anchor: (!self.fixed_times).then(jiff::Timestamp::now),
            compress: !self.no_compress,
            link: (self.link_rtt_ms.is_some() || self.link_kbps.is_some()).then(|| Link {
                rtt: Duration::from_millis(self.link_rtt_ms.unwrap_or(0)),
                kbps: self.link_kbps,
            }),
            budget: self.rate_limit.map(|limit| RequestBudget {
                limit,
                window: Duration::from_secs(self.rate_limit_window),
                headers: self.rate_limit_headers.0,
            }),
            faults: self.faults(),
        }
    }

    /// The demo's live queue, backlog and order, and (in test builds) the fault switches.
    fn faults(&self) -> Faults {
        let churn = Churn {
            per_minute: self.churn.unwrap_or(if self.live { 12 } else { 0 }),
            new_visitors: self
                .churn_new_visitors
                .unwrap_or(if self.live { 30 } else { 0 }),
            ..Churn::default()
        };
        let demo = Faults {
            churn,
            order: self.order.0,
            backlog: match (self.live, self.backlog) {
                (true, 0) => LIVE_BACKLOG,
                (_, n) => n,
            },
            ..Faults::default()
        };
        #[cfg(feature = "testing")]
        let demo = self.faults.apply(demo);
        demo
    }
}

#[cfg(feature = "testing")]
impl FaultArgs {
    /// `demo` with these switches on.
    fn apply(&self, demo: Faults) -> Faults {
        Faults {
            fail_first: self.fail_first,
            fail_status: self.fail_status,
            fail_every: self.fail_every,
            fail_always: self.fail_always,
            fail_after: self.fail_after,
            fail_after_status: self.fail_after_status,
            forbid_matching: self.forbid_matching.clone(),
            rate_limit_first: self.rate_limit_first,
            retry_after: self.retry_after.clone(),
            malformed_page: self.malformed_page,
            wrong_shape: self.wrong_shape,
            bad_row: self.bad_row,
            bad_bytes_row: self.bad_bytes_row.map(|c| c.0),
            bad_cert: self.bad_cert.map(|c| c.0),
            http1_only: false,
            hang: self.hang,
            reset_mid_body: self.reset_mid_body,
            gzip_bomb: self.gzip_bomb,
            zstd_bomb: self.zstd_bomb,
            slow_compression: self.slow_compression_ms.map(Duration::from_millis),
            oversize_page: self.oversize_page,
            null_cursor_with_more: self.null_cursor_with_more,
            cursor_loop: self.cursor_loop,
            duplicate_ids: self.duplicate_ids,
            unknown_status: self.unknown_status,
            hostile: self.hostile,
            echo_key: self.echo_key,
            redirect_to: self.redirect_to.clone(),
            big_attribute: self.big_attribute,
            coarse_times: self.coarse_times,
            churn: Churn {
                new_per_head: self.churn_head_new,
                reassign_per_head: self.churn_head_reassign,
                ..demo.churn
            },
            ..demo
        }
    }
}

value_enum!(LimitHeaders {
    Ietf => "ietf": "RateLimit and RateLimit-Policy (the IETF draft)",
    X => "x": "X-RateLimit-Limit, -Remaining, -Reset",
    None => "none": "no headers: only the 429s and Retry-After",
});

value_enum!(BadBytes {
    Utf8 => "utf8": "Bytes 0xFF 0xFE inside a string: not UTF-8",
    Control => "control": "A raw 0x01 and a raw newline inside a string: JSON wants them escaped",
});

value_enum!(BadCert {
    WrongName => "wrong-name": "Issued for `wrong.example`, not `localhost` / `127.0.0.1`",
    Expired => "expired": "Valid from 2020-01-01 to 2021-01-01",
});

value_enum!(ServeOrder {
    Newest => "newest": "createdAt descending, then id descending (docs/design.md \"Demo server\")",
    Oldest => "oldest": "createdAt ascending, then id ascending",
    Updated => "updated": "Conversations by updatedAt descending, then id descending (visitors \
        newest first)",
    Mixed => "mixed": "Newest first, except `status=pending`, served oldest first: requests that \
        disagree",
});
