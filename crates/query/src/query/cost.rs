//! `--explain`'s estimate of what a query costs the service: requests per stream, from the
//! page size and the counts convo has seen (a summary's complete count of the same filter,
//! the visitor sync's count of the whole visitors list). Only an estimate, and said so: lists
//! change, and checks done in convo may need more pages before `--max` rows pass.

use std::fmt::Write as _;

use convo_api::{ConversationFilter, VisitorFilter};
use convo_store::Store;

/// How far the walk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// One page (no `--all`, no `--max`).
    OnePage,
    /// Until this many rows have been printed.
    Max(u64),
    /// The whole list (`--all`).
    All,
}

/// A count of a stream's rows that convo saw: how many, and when (unix seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub rows: u64,
    pub at: i64,
}

/// The latest complete count of each conversations stream (a `convo summary`, or the
/// browser's `S`, of the same filter), from the store.
pub fn conversation_counts(
    store: Option<&Store>,
    streams: &[ConversationFilter],
    now: i64,
) -> Vec<Option<Seen>> {
    let since = now.saturating_sub(convo_store::samples::KEEP_SECS);
    streams
        .iter()
        .map(|f| {
            let key = convo_store::samples::filter_key(f);
            let samples = store?.samples_since(&key, since).ok()?;
            samples.iter().rev().find(|s| s.complete).map(|s| Seen {
                rows: s.loaded,
                at: s.at,
            })
        })
        .collect()
}

/// The visitor sync's count of the whole list, for a stream that sends no filter.
pub fn visitor_counts(store: Option<&Store>, streams: &[VisitorFilter]) -> Vec<Option<Seen>> {
    let state = store.and_then(|s| s.sync_state().ok());
    streams
        .iter()
        .map(|f| {
            if !super::plan::query_string(f).is_empty() {
                return None;
            }
            let st = state.as_ref()?;
            Some(Seen {
                rows: st.last_total?,
                at: st.finished_at?,
            })
        })
        .collect()
}

/// Requests for `rows` rows at `limit` a page: at least one.
fn pages(rows: u64, limit: u64) -> u64 {
    rows.div_ceil(limit.max(1)).max(1)
}

/// The lines `--explain` adds: requests per stream and in all.
pub fn estimate(
    counts: &[Option<Seen>],
    limit: u32,
    reach: Reach,
    checks: bool,
    now: i64,
) -> String {
    let mut out = String::new();
    let limit = u64::from(limit.max(1));
    let n = convo_text::thousands;
    let _ = writeln!(
        out,
        "requests (an estimate, from {} rows a page and the counts seen):",
        n(limit)
    );
    let (mut total, mut open_ended) = (0u64, false);
    for (i, seen) in counts.iter().enumerate() {
        let (k, why) = match (reach, seen) {
            (Reach::OnePage, _) => (Some(1), "one page".to_string()),
            (Reach::Max(m), Some(s)) => (
                Some(pages(m.min(s.rows), limit)),
                format!("at most {} rows: {}", n(m), counted(s, now)),
            ),
            (Reach::Max(m), None) => (
                Some(pages(m, limit)),
                format!("at most {} rows; no count seen", n(m)),
            ),
            (Reach::All, Some(s)) => (Some(pages(s.rows, limit)), counted(s, now)),
            (Reach::All, None) => (
                None,
                format!(
                    "one per {} rows; no count seen (a `convo summary` of it counts them)",
                    n(limit)
                ),
            ),
        };
        match k {
            Some(k) => {
                total += k;
                let _ = writeln!(
                    out,
                    "  {}. {} request{} ({why})",
                    i + 1,
                    n(k),
                    if k == 1 { "" } else { "s" }
                );
            }
            None => {
                open_ended = true;
                total += 1;
                let _ = writeln!(out, "  {}. at least 1 request ({why})", i + 1);
            }
        }
    }
    let more = if open_ended || (checks && reach != Reach::OnePage) {
        "at least "
    } else {
        "about "
    };
    let _ = write!(out, "  in all: {more}{}", n(total));
    if checks && matches!(reach, Reach::Max(_)) {
        out.push_str(" (rows checked in convo may need more pages)");
    }
    out.push('\n');
    out
}

fn counted(s: &Seen, now: i64) -> String {
    let ago = now.saturating_sub(s.at).max(0);
    let ago = match ago {
        0..120 => format!("{ago} s"),
        120..7200 => format!("{} min", ago / 60),
        7200..172_800 => format!("{} h", ago / 3600),
        _ => format!("{} days", ago / 86_400),
    };
    format!(
        "{} rows when counted {ago} ago",
        convo_text::thousands(s.rows)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_764_000_000;

    #[test]
    fn pages_per_stream_from_the_counts_seen() {
        let seen = Some(Seen {
            rows: 1234,
            at: NOW - 300,
        });
        assert_eq!(
            estimate(&[seen, None], 100, Reach::All, false, NOW),
            "requests (an estimate, from 100 rows a page and the counts seen):\n  \
             1. 13 requests (1,234 rows when counted 5 min ago)\n  \
             2. at least 1 request (one per 100 rows; no count seen (a `convo summary` of it \
             counts them))\n  in all: at least 14\n"
        );
        assert_eq!(
            estimate(&[seen], 100, Reach::Max(250), true, NOW),
            "requests (an estimate, from 100 rows a page and the counts seen):\n  \
             1. 3 requests (at most 250 rows: 1,234 rows when counted 5 min ago)\n  \
             in all: at least 3 (rows checked in convo may need more pages)\n"
        );
        assert!(
            estimate(&[None, None], 50, Reach::OnePage, true, NOW).ends_with("in all: about 2\n")
        );
        // An empty list is still one request.
        let none = Some(Seen { rows: 0, at: NOW });
        assert!(estimate(&[none], 100, Reach::All, false, NOW).contains("1. 1 request (0 rows"));
    }
}
