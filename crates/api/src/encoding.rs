//! Which answers to ask a service for, compressed or plain, chosen per service from what its
//! pages cost (issue 30). On a slow link compression wins by the bytes it saves; on loopback
//! or a fast LAN it is pure cost (the service compresses, convo decodes, and the bytes saved
//! take no time to cross). No fixed preference is right everywhere, so the client tries both
//! and keeps the faster, looking again now and then.
//!
//! The trial: requests alternate (compressed first: on an unknown link it is the safe bet)
//! until pages of the same kind have come both ways, then every request asks the faster way.
//! A page's time runs from sending the request to the last byte decoded. The first request
//! of a client usually opens the connection (a round trip more), so its time only counts when
//! it wins anyway. Pages much shorter than the largest of their kind (a walk's last page) are
//! not compared. Every [`RECHECK`] one request asks the other way again.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `Accept-Encoding` when convo asks for compressed answers: zstd, then brotli, then gzip, in
/// the order of their cost per page (CHANGELOG.md, "Performance history", "What each encoding costs"). The
/// q-values carry the order: servers (tower-http, nginx) take their own order among equal
/// ones.
pub const COMPRESSED: &str = "zstd, br;q=0.9, gzip;q=0.8";

/// How long a choice stands before one request tries the other way again.
pub const RECHECK: Duration = Duration::from_secs(60);

/// After a choice made on one time of the way not taken, it is tried once more after this many
/// requests.
const SECOND_LOOK: u32 = 4;

/// How many recent times of each way are kept, per kind of page.
const KEPT: usize = 4;

/// One way of asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    Compressed,
    Plain,
}

impl Ask {
    /// The `Accept-Encoding` value.
    pub fn header(self) -> &'static str {
        match self {
            Ask::Compressed => COMPRESSED,
            Ask::Plain => "identity",
        }
    }

    fn other(self) -> Ask {
        match self {
            Ask::Compressed => Ask::Plain,
            Ask::Plain => Ask::Compressed,
        }
    }

    fn index(self) -> usize {
        match self {
            Ask::Compressed => 0,
            Ask::Plain => 1,
        }
    }

    /// In words, for `convo doctor`.
    pub fn describe(self) -> &'static str {
        match self {
            Ask::Compressed => "compressed",
            Ask::Plain => "plain",
        }
    }
}

/// What was chosen, and on what evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub ask: Ask,
    /// The best recent time of a page of the compared kind, each way.
    pub compressed: Duration,
    pub plain: Duration,
    /// Decoded bytes of the largest page of that kind.
    pub page_bytes: usize,
}

/// The choice for one service (shared by every clone of a client).
#[derive(Debug, Default)]
pub struct Chooser {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    chosen: Option<Choice>,
    /// When the choice was made or last looked at again.
    since: Option<Instant>,
    /// Pages recorded so far (the first is marked: it likely paid for the connection).
    recorded: u64,
    /// Requests that asked the chosen way since the choice (or the last look at the other).
    runs: u32,
    /// The minute's look at the other way is out: its answer replaces that way's old times.
    fresh_look: bool,
    kinds: Vec<Kind>,
}

impl State {
    /// Times kept of one way, every kind of page together.
    fn seen(&self, ask: Ask) -> usize {
        self.kinds.iter().map(|k| k.times[ask.index()].len()).sum()
    }

    /// Those of them that did not pay for a connection (the client's first request).
    fn fair(&self, ask: Ask) -> usize {
        let fair = |t: &Vec<(Duration, bool)>| t.iter().filter(|(_, first)| !first).count();
        self.kinds.iter().map(|k| fair(&k.times[ask.index()])).sum()
    }
}

/// Recent times of one kind of page (a path and a page size), each way.
#[derive(Debug)]
struct Kind {
    key: String,
    largest: usize,
    /// Per [`Ask::index`]: (time, first request of the client), newest last.
    times: [Vec<(Duration, bool)>; 2],
}

impl Kind {
    /// The best time one way, and whether it is only the first request's.
    fn best(&self, ask: Ask) -> Option<(Duration, bool)> {
        let t = &self.times[ask.index()];
        t.iter()
            .filter(|(_, first)| !first)
            .map(|&(d, _)| d)
            .min()
            .map(|d| (d, false))
            .or_else(|| t.iter().map(|&(d, _)| d).min().map(|d| (d, true)))
    }

    /// The faster way, when the times say so: both ways seen, and a time that may carry a
    /// connection's set-up counted only when it wins anyway.
    fn decide(&self) -> Option<Choice> {
        let (c, c_first) = self.best(Ask::Compressed)?;
        let (p, p_first) = self.best(Ask::Plain)?;
        let ask = if p < c { Ask::Plain } else { Ask::Compressed };
        let loser_first = match ask {
            Ask::Plain => c_first,
            Ask::Compressed => p_first,
        };
        (!loser_first).then_some(Choice {
            ask,
            compressed: c,
            plain: p,
            page_bytes: self.largest,
        })
    }
}

impl Chooser {
    /// How the next request asks.
    pub fn next(&self) -> Ask {
        let mut s = self.lock();
        match s.chosen {
            None => {
                // Alternate, compressed first: the way with fewer pages of any kind.
                if s.seen(Ask::Plain) < s.seen(Ask::Compressed) {
                    Ask::Plain
                } else {
                    Ask::Compressed
                }
            }
            Some(c) => {
                let now = Instant::now();
                let other = c.ask.other();
                if s.since.is_some_and(|t| now.duration_since(t) >= RECHECK) {
                    // Once a RECHECK, even if this request fails.
                    s.since = Some(now);
                    s.runs = 0;
                    s.fresh_look = true;
                    other
                } else if s.fair(other) < 2 && s.runs >= SECOND_LOOK {
                    // One time of the way not taken may be a hiccup of the machine's (times
                    // are only ever late): a second look, a few pages on.
                    s.runs = 0;
                    other
                } else {
                    s.runs += 1;
                    c.ask
                }
            }
        }
    }

    /// A page that came back whole: which way it was asked, which kind it is (path and page
    /// size), its time from request to last byte decoded, and its decoded size.
    pub fn record(&self, ask: Ask, kind: &str, elapsed: Duration, decoded: usize) {
        let mut s = self.lock();
        let first = s.recorded == 0;
        s.recorded += 1;
        let at = match s.kinds.iter().position(|k| k.key == kind) {
            Some(i) => i,
            None => {
                s.kinds.push(Kind {
                    key: kind.to_string(),
                    largest: 0,
                    times: [Vec::new(), Vec::new()],
                });
                s.kinds.len() - 1
            }
        };
        let looked_again = s.chosen.is_some_and(|c| c.ask != ask);
        let fresh = looked_again && std::mem::take(&mut s.fresh_look);
        let k = &mut s.kinds[at];
        if decoded * 2 < k.largest {
            return; // a short page (the end of a list): not like the others
        }
        if decoded > k.largest * 2 {
            // Those before were the short ones.
            k.times = [Vec::new(), Vec::new()];
        }
        k.largest = k.largest.max(decoded);
        let times = &mut k.times[ask.index()];
        if fresh {
            // Only the fresh time of the way not taken: the link may have changed.
            times.clear();
        }
        times.push((elapsed, first));
        if times.len() > KEPT {
            times.remove(0);
        }
        if let Some(choice) = k.decide() {
            if looked_again || s.chosen.map(|c| c.ask) != Some(choice.ask) {
                s.since = Some(Instant::now());
            }
            s.chosen = Some(choice);
        }
    }

    /// The choice made so far (`None` while the trial goes on).
    pub fn choice(&self) -> Option<Choice> {
        self.lock().chosen
    }

    /// True once a choice stands on at least two times each way.
    pub fn settled(&self) -> bool {
        let s = self.lock();
        s.chosen.is_some() && s.fair(Ask::Compressed) >= 2 && s.fair(Ask::Plain) >= 2
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The kind of a page request: its path and its page size.
pub fn kind_of(url: &url::Url) -> String {
    let limit = url
        .query_pairs()
        .find(|(k, _)| k == "limit")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    format!("{} {limit}", url.path())
}

/// The largest zstd window convo decodes with: 8 MB, the most RFC 9659 lets an HTTP answer
/// ask for. A frame asking for more is refused, so a decoder never holds more than this.
pub const ZSTD_WINDOW_LOG_MAX: u32 = 23;

/// True when an answer is zstd (the one encoding convo decodes itself: see [`unzstd`]).
pub fn is_zstd(headers: &reqwest::header::HeaderMap) -> bool {
    headers
        .get(reqwest::header::CONTENT_ENCODING)
        .is_some_and(|v| v.as_bytes().trim_ascii().eq_ignore_ascii_case(b"zstd"))
}

/// A zstd body decoded, frame after frame, up to `cap` bytes: `Ok(None)` when it would be
/// larger (a decompression bomb stops there), an error when it is not zstd convo can read.
/// reqwest's own zstd decoder (through tower-http) takes any window up to 128 MiB; this one
/// holds it to [`ZSTD_WINDOW_LOG_MAX`]. The decoder's context is the thread's, kept from one
/// answer to the next ([`DCTX`]).
pub fn unzstd(wire: &[u8], cap: usize) -> Result<Option<Vec<u8>>, String> {
    DCTX.with(|cell| {
        let mut slot = cell.borrow_mut();
        let ctx = match slot.as_mut() {
            Some(ctx) => ctx,
            None => slot.insert(zstd_context()?),
        };
        unzstd_with(ctx, wire, cap)
    })
}

thread_local! {
    /// One zstd decoder context a thread, kept across answers (its window limit with it):
    /// building one costs more than decoding a page of 100 rows (`ZSTD_createDCtx` was 8.7% of
    /// `L`'s samples in a walk that had chosen zstd). Each answer starts a new session on it.
    static DCTX: std::cell::RefCell<Option<zstd::zstd_safe::DCtx<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// A decoder context that refuses windows over [`ZSTD_WINDOW_LOG_MAX`].
fn zstd_context() -> Result<zstd::zstd_safe::DCtx<'static>, String> {
    let mut ctx = zstd::zstd_safe::DCtx::try_create()
        .ok_or_else(|| "cannot set up a zstd decoder (out of memory)".to_string())?;
    ctx.set_parameter(zstd::zstd_safe::DParameter::WindowLogMax(
        ZSTD_WINDOW_LOG_MAX,
    ))
    .map_err(|c| {
        format!(
            "cannot set up a zstd decoder ({})",
            zstd::zstd_safe::get_error_name(c)
        )
    })?;
    Ok(ctx)
}

fn unzstd_with(
    ctx: &mut zstd::zstd_safe::DCtx<'static>,
    wire: &[u8],
    cap: usize,
) -> Result<Option<Vec<u8>>, String> {
    use std::io::Read as _;
    let said = |e: std::io::Error| format!("a zstd answer that cannot be decoded ({e})");
    let d = zstd::stream::read::Decoder::with_context(wire, ctx);
    let mut out = Vec::with_capacity(wire.len().saturating_mul(5).min(cap));
    d.take((cap as u64).saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| match e.to_string() {
            m if m.contains("Frame requires too much memory") => format!(
                "a zstd answer whose window is over the {} MiB HTTP allows (RFC 9659)",
                (1u32 << ZSTD_WINDOW_LOG_MAX) >> 20
            ),
            _ => said(e),
        })?;
    Ok((out.len() <= cap).then_some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn page(ch: &Chooser, took: u32) -> Ask {
        let a = ch.next();
        ch.record(a, "/v1/conversations 100", MS * took, 30_000);
        a
    }

    #[test]
    fn alternates_from_compressed_until_both_ways_are_timed_then_keeps_the_faster() {
        // Loopback: plain is faster; the first (compressed) page also paid for the connection.
        let ch = Chooser::default();
        assert_eq!(page(&ch, 3), Ask::Compressed);
        assert_eq!(page(&ch, 1), Ask::Plain);
        // Plain won against a first page: not yet settled.
        assert_eq!(ch.choice(), None);
        assert_eq!(page(&ch, 2), Ask::Compressed);
        let c = ch.choice().expect("chosen");
        assert_eq!((c.ask, c.plain, c.compressed), (Ask::Plain, MS, MS * 2));
        // Compressed lost on one fair time (the first paid for the connection): four pages
        // on, a second look at it; 2 ms again, so plain for good (until the next minute).
        let asked: Vec<Ask> = (0..12)
            .map(|_| {
                let a = ch.next();
                let took = if a == Ask::Plain { 1 } else { 2 };
                ch.record(a, "/v1/conversations 100", MS * took, 30_000);
                a
            })
            .collect();
        use Ask::{Compressed as C, Plain as P};
        assert_eq!(asked, [P, P, P, P, C, P, P, P, P, P, P, P]);
        assert!(ch.settled());
    }

    #[test]
    fn a_hiccup_on_the_one_time_of_a_way_is_looked_at_again() {
        // Loopback, but the one plain page met a busy machine (7 ms): compressed at first.
        let ch = Chooser::default();
        assert_eq!(page(&ch, 3), Ask::Compressed);
        assert_eq!(page(&ch, 7), Ask::Plain);
        assert_eq!(ch.choice().map(|c| c.ask), Some(Ask::Compressed));
        assert_eq!(page(&ch, 2), Ask::Compressed);
        assert!(!ch.settled());
        let asked: Vec<Ask> = (0..6)
            .map(|_| {
                let a = ch.next();
                let took = if a == Ask::Plain { 1 } else { 2 };
                ch.record(a, "/v1/conversations 100", MS * took, 30_000);
                a
            })
            .collect();
        // Compressed since the second page (its first time, late as it was, still won): four
        // pages that way, then plain again, 1 ms: plain from then on.
        use Ask::{Compressed as C, Plain as P};
        assert_eq!(asked, [C, C, C, P, P, P]);
        assert_eq!(ch.choice().map(|c| c.ask), Some(Ask::Plain));
        assert!(ch.settled());
    }

    #[test]
    fn a_first_page_that_wins_anyway_settles_it_at_once() {
        // A slow link: the compressed first page, handshake and all, beats a plain one.
        let ch = Chooser::default();
        assert_eq!(page(&ch, 53), Ask::Compressed);
        assert_eq!(page(&ch, 79), Ask::Plain);
        assert_eq!(ch.choice().map(|c| c.ask), Some(Ask::Compressed));
        assert_eq!(page(&ch, 33), Ask::Compressed);
    }

    #[test]
    fn short_pages_are_not_compared_with_full_ones() {
        let ch = Chooser::default();
        ch.record(Ask::Compressed, "k", MS * 50, 30_000);
        ch.record(Ask::Compressed, "k", MS * 40, 30_000);
        // The last page of a walk: 5 rows, fast because small, plain by turn.
        ch.record(Ask::Plain, "k", MS * 21, 1_500);
        assert_eq!(ch.choice(), None);
        // Another kind of page is not compared with these either.
        ch.record(Ask::Plain, "other", MS, 30_000);
        assert_eq!(ch.choice(), None);
    }

    #[test]
    fn zstd_frames_decode_up_to_the_cap_and_no_further() {
        let page = br#"{"data":[],"has_more":false}"#.repeat(100);
        let mut two = zstd::bulk::compress(&page, 3).unwrap();
        two.extend(zstd::bulk::compress(b"!", 3).unwrap());
        let mut whole = page.clone();
        whole.push(b'!');
        assert_eq!(unzstd(&two, whole.len()), Ok(Some(whole.clone())));
        assert_eq!(unzstd(&two, whole.len() - 1), Ok(None));
        assert!(unzstd(&two[..two.len() / 2], 1 << 20).is_err(), "cut short");
        assert!(unzstd(b"{not zstd}", 1 << 20).is_err());
        // The thread's decoder, kept, reads a whole answer again after those failures.
        assert_eq!(unzstd(&two, whole.len()), Ok(Some(whole)));
    }

    #[test]
    fn a_zstd_frame_asking_for_a_window_over_8_mib_is_refused() {
        // A frame header with a 16 MiB window (exponent 14), then one RLE block of 4 zeros.
        let frame = [
            0x28,
            0xb5,
            0x2f,
            0xfd,
            0x00,
            14 << 3,
            0x23,
            0x00,
            0x00,
            0x00,
        ];
        let err = unzstd(&frame, 1 << 20).unwrap_err();
        assert!(err.contains("over the 8 MiB HTTP allows"), "{err}");
        // The same at 8 MiB (exponent 13) is read.
        let frame = [
            0x28,
            0xb5,
            0x2f,
            0xfd,
            0x00,
            13 << 3,
            0x23,
            0x00,
            0x00,
            0x00,
        ];
        assert_eq!(unzstd(&frame, 1 << 20), Ok(Some(vec![0; 4])));
    }
}
