//! The limit headers of an answer, read defensively (they are untrusted): each form the
//! budget learns from, unreadable values ignored, numbers capped.

use std::time::Duration;

use reqwest::header::HeaderMap;

use super::{DEFAULT_WINDOW, MAX_WINDOW, Source};

/// The budget's state as one set of headers said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Heard {
    pub limit: Option<u32>,
    pub window: Option<Duration>,
    pub remaining: Option<u32>,
    /// Until the window resets.
    pub reset: Option<Duration>,
}

impl Heard {
    pub(super) fn is_empty(&self) -> bool {
        self.limit.is_none() && self.remaining.is_none()
    }
}

/// Numbers beyond these are not believed (a limit of a billion means no limit worth pacing).
const MAX_COUNT: u64 = 10_000_000;
/// Header values longer than this are ignored.
const MAX_VALUE: usize = 512;

fn count(v: &str) -> Option<u32> {
    let n: u64 = v.trim().parse().ok()?;
    (n <= MAX_COUNT).then_some(n as u32)
}

fn delta(v: &str) -> Option<Duration> {
    let n: u64 = v.trim().parse().ok()?;
    Some(Duration::from_secs(n).min(MAX_WINDOW))
}

/// A reset that may be seconds from now or a unix time (seconds or milliseconds), as
/// `X-RateLimit-Reset` is in the wild.
fn reset_value(v: &str, now_unix: i64) -> Option<Duration> {
    let n: u64 = v.trim().parse().ok()?;
    let secs = if n >= 1_000_000_000_000 {
        (n / 1000).saturating_sub(now_unix.max(0) as u64)
    } else if n >= 1_000_000_000 {
        n.saturating_sub(now_unix.max(0) as u64)
    } else {
        n
    };
    Some(Duration::from_secs(secs).min(MAX_WINDOW))
}

/// One member of a structured-field list: the bare item (a string, token or number) and its
/// parameters; or a dictionary member `key=value` (an older draft's `limit=10, remaining=5`).
#[derive(Debug, Default)]
struct Member<'a> {
    item: &'a str,
    params: Vec<(&'a str, &'a str)>,
}

/// Splits a structured-field list (or dictionary) loosely: commas and semicolons outside
/// quotes. At most 16 members of 16 parameters.
fn members(value: &str) -> Vec<Member<'_>> {
    let mut out = Vec::new();
    for raw in split_outside_quotes(value, ',').into_iter().take(16) {
        let mut parts = split_outside_quotes(raw, ';').into_iter();
        let item = parts.next().unwrap_or_default().trim();
        let mut m = Member {
            item,
            params: Vec::new(),
        };
        for p in parts.take(16) {
            let (k, v) = p.split_once('=').unwrap_or((p, "?1"));
            m.params.push((k.trim(), v.trim()));
        }
        out.push(m);
    }
    out
}

fn split_outside_quotes(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            c if c == sep && !quoted => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

impl Member<'_> {
    fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| *v)
    }

    /// The policy's name (`"default"` or a token), `None` for a number.
    fn name(&self) -> Option<&str> {
        let n = self.item.trim_matches('"');
        (!self.item.is_empty() && count(self.item).is_none()).then_some(n)
    }
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let v = headers.get(name)?.to_str().ok()?;
    (v.len() <= MAX_VALUE).then_some(v)
}

/// The limit headers of one answer, in either form, with which form it was; `None` when it
/// has none that can be read.
pub fn parse_headers(headers: &HeaderMap, now_unix: i64) -> Option<(Heard, Source)> {
    let ietf = parse_ratelimit(headers, now_unix);
    if !ietf.is_empty() {
        return Some((ietf, Source::RateLimit));
    }
    let x = Heard {
        limit: header(headers, "x-ratelimit-limit").and_then(leading_count),
        window: None,
        remaining: header(headers, "x-ratelimit-remaining").and_then(count),
        reset: header(headers, "x-ratelimit-reset").and_then(|v| reset_value(v, now_unix)),
    };
    (!x.is_empty()).then_some((x, Source::XRateLimit))
}

/// `120` or `120, 120;w=60` (an older draft's `RateLimit-Limit`): the leading number.
fn leading_count(v: &str) -> Option<u32> {
    let first = v.split([',', ';']).next()?;
    count(first)
}

fn parse_ratelimit(headers: &HeaderMap, now_unix: i64) -> Heard {
    let mut heard = Heard::default();
    // The current draft: RateLimit: "p";r=50;t=30 (the most restrictive member counts).
    let mut chosen: Option<String> = None;
    if let Some(v) = header(headers, "ratelimit") {
        let ms = members(v);
        let mut best: Option<(u32, Option<Duration>, Option<String>)> = None;
        for m in &ms {
            if let Some(r) = m.param("r").and_then(count)
                && best.as_ref().is_none_or(|(b, _, _)| r < *b)
            {
                best = Some((
                    r,
                    m.param("t").and_then(delta),
                    m.name().map(str::to_string),
                ));
            }
        }
        if let Some((r, t, name)) = best {
            heard.remaining = Some(r);
            heard.reset = t;
            chosen = name;
        } else {
            // An older draft's dictionary: limit=10, remaining=5, reset=30.
            for m in &ms {
                let Some((k, val)) = m.item.split_once('=') else {
                    continue;
                };
                match k.trim().to_ascii_lowercase().as_str() {
                    "limit" => heard.limit = count(val),
                    "remaining" => heard.remaining = count(val),
                    "reset" => heard.reset = delta(val),
                    _ => {}
                }
            }
        }
    }
    // RateLimit-Policy: "p";q=120;w=60 (or an older `120;w=60`): the chosen policy, else the
    // member with the fewest requests per second.
    if let Some(v) = header(headers, "ratelimit-policy") {
        let mut best: Option<(u32, Option<Duration>)> = None;
        for m in members(v) {
            let q = m.param("q").and_then(count).or_else(|| count(m.item));
            let w = m.param("w").and_then(delta).filter(|w| !w.is_zero());
            let Some(q) = q else { continue };
            if chosen.is_some() && m.name() == chosen.as_deref() {
                best = Some((q, w));
                break;
            }
            let rate = |q: u32, w: Option<Duration>| {
                f64::from(q) / w.unwrap_or(DEFAULT_WINDOW).as_secs_f64()
            };
            if best.is_none_or(|(bq, bw)| rate(q, w) < rate(bq, bw)) {
                best = Some((q, w));
            }
        }
        if let Some((q, w)) = best {
            heard.limit = Some(q);
            heard.window = w;
        }
    }
    // The older separate headers.
    if heard.limit.is_none() {
        heard.limit = header(headers, "ratelimit-limit").and_then(leading_count);
    }
    if heard.remaining.is_none() {
        heard.remaining = header(headers, "ratelimit-remaining").and_then(count);
        if heard.reset.is_none() {
            heard.reset = header(headers, "ratelimit-reset").and_then(|v| reset_value(v, now_unix));
        }
    }
    heard
}
