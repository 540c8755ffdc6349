//! Property tests (issue 4): the cursor walk against arbitrary servers, the sanitiser and
//! `fit`, and filters to query pairs (and a real URL) and back.
//!
//! No network: everything here is pure, `Client::new` included (it does no I/O).

use std::collections::{BTreeMap, HashMap, HashSet};

use convo::api::{
    ApiKey, Assignee, Client, ClientSettings, ConversationFilter, FilterError, KeySource, Limit,
    ListFilter, Page, Resource, Row, Status, VisitorFilter,
};
use convo::pager::MAX_FRUITLESS_PAGES;
use convo::text;
use convo::walk::Walk;
use proptest::prelude::*;
use uuid::Uuid;

use crate::common::cases as config;

// ---------------------------------------------------------------------------------------------
// The cursor walk
// ---------------------------------------------------------------------------------------------

/// A row: its id and a tag saying which page (and position) delivered it.
#[derive(Debug, Clone, PartialEq)]
struct R {
    id: u8,
    from: (usize, usize),
}

impl Row for R {
    fn id(&self) -> Uuid {
        Uuid::from_u128(self.id as u128)
    }
}

/// One page as a lying server might send it.
#[derive(Debug, Clone)]
struct Spec {
    ids: Vec<u8>,
    bad: usize,
    has_more: bool,
    /// `None`: null cursor; `Some(k)`: cursor `c{k}`; `Some(u8::MAX)`: the empty string.
    cursor: Option<u8>,
}

fn spec(ids: u8, cursors: u8) -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec(0..ids, 0..8),
        0usize..3,
        any::<bool>(),
        prop_oneof![
            1 => Just(None),
            1 => Just(Some(u8::MAX)),
            8 => (0..cursors).prop_map(Some),
        ],
    )
        .prop_map(|(ids, bad, has_more, cursor)| Spec {
            ids,
            bad,
            has_more,
            cursor,
        })
}

fn cursor_text(c: Option<u8>) -> Option<String> {
    c.map(|k| {
        if k == u8::MAX {
            String::new()
        } else {
            format!("c{k}")
        }
    })
}

fn to_page(s: &Spec, n: usize, cursor: Option<String>) -> Page<R> {
    Page {
        items: s
            .ids
            .iter()
            .enumerate()
            .map(|(i, &id)| R { id, from: (n, i) })
            .collect(),
        has_more: s.has_more,
        next_cursor: cursor,
        bad_rows: (0..s.bad)
            .map(|i| convo::api::BadRow {
                index: 100 + i,
                id: None,
                reason: "bad".into(),
            })
            .collect(),
    }
}

/// What a walk saw: the pages applied, in order.
struct Walked {
    pager: Walk<R>,
    applied: Vec<Vec<R>>,
    cursors_asked: Vec<Option<String>>,
}

/// Drives a walk to its end against `server`, failing some requests on the way (`fail` says
/// which request numbers fail once). Panics when the walk exceeds `cap` requests.
fn drive(
    limit: usize,
    cap: usize,
    fail: &HashSet<usize>,
    mut server: impl FnMut(usize, Option<&str>) -> Page<R>,
) -> Walked {
    let mut pager = Walk::new(limit, 1);
    let mut applied = Vec::new();
    let mut requests = 0;
    let mut cursors_asked = Vec::new();
    let mut failed_once = HashSet::new();
    while let Some(cursor) = pager.request() {
        assert!(pager.is_loading());
        assert_eq!(
            pager.request(),
            None,
            "a second request while one is in flight"
        );
        requests += 1;
        assert!(
            requests <= cap,
            "the walk did not stop after {cap} requests"
        );
        if fail.contains(&requests) && failed_once.insert(requests) {
            pager.stop();
            assert_eq!(
                pager.request(),
                Some(cursor.clone()),
                "after a failure the same cursor is asked for again"
            );
            pager.stop();
            continue;
        }
        cursors_asked.push(cursor.clone());
        let page = server(applied.len(), cursor.as_deref());
        applied.push(page.items.clone());
        pager.take(page);
    }
    assert!(pager.is_done());
    assert!(!pager.has_more());
    assert_eq!(pager.request(), None);
    Walked {
        pager,
        applied,
        cursors_asked,
    }
}

/// The invariants every walk keeps, whatever the server sent.
fn check_walk(w: &Walked) {
    let rows = w.pager.rows();
    // Never duplicates.
    let mut seen = HashSet::new();
    for r in rows {
        assert!(seen.insert(r.id), "id {} loaded twice", r.id);
    }
    // Never loses an id that arrived, and keeps server order: the rows are exactly the first
    // arrival of each id, in arrival order.
    let mut first = Vec::new();
    let mut arrived = HashSet::new();
    let mut total = 0;
    for page in &w.applied {
        for r in page {
            total += 1;
            if arrived.insert(r.id) {
                first.push(r.clone());
            }
        }
    }
    assert_eq!(
        rows,
        &first[..],
        "rows are not the first arrivals in server order"
    );
    assert_eq!(w.pager.warnings().duplicates, total - first.len());
    assert_eq!(w.pager.loaded(), first.len());
    assert_eq!(w.pager.pages(), w.applied.len());
    // No cursor is asked for twice: that is what "never loops" means for a walk.
    let mut asked = HashSet::new();
    for c in &w.cursors_asked {
        assert!(asked.insert(c.clone()), "cursor {c:?} asked for twice");
    }
}

proptest! {
    #![proptest_config(config(600))]

    /// A server whose answer is a function of the cursor (what a real, possibly buggy, server
    /// is): with K distinct cursors the walk makes at most K + 1 requests, however the
    /// cursors point at each other (loops included).
    #[test]
    fn walk_against_a_cursor_map_is_bounded_and_loses_nothing(
        first in spec(40, 6),
        by_cursor in prop::collection::vec(spec(40, 6), 6),
        limit in 1usize..10,
        fail in prop::collection::hash_set(1usize..12, 0..3),
    ) {
        let map: HashMap<String, Spec> = by_cursor
            .iter()
            .enumerate()
            .map(|(k, s)| (format!("c{k}"), s.clone()))
            .collect();
        let w = drive(limit, 7 + fail.len(), &fail, |n, cursor| {
            let s = match cursor {
                None => &first,
                Some(c) => map.get(c).expect("the walk only sends cursors it was given"),
            };
            to_page(s, n, cursor_text(s.cursor))
        });
        check_walk(&w);
        prop_assert!(w.applied.len() <= 7);
        // The walk only stops early for a reason it reports.
        let last = match w.cursors_asked.last().unwrap() {
            None => &first,
            Some(c) => &map[c],
        };
        let warn = w.pager.warnings();
        if last.has_more {
            prop_assert!(warn.inconsistent_end || warn.cursor_loop || warn.stalled,
                "the walk stopped on has_more=true without a warning: {:?}", warn);
        }
    }

    /// A server that makes up a fresh cursor for every page (so cursor-loop detection cannot
    /// help): with ids from a finite set the walk still stops, because a run of pages without
    /// a new row ends it.
    #[test]
    fn walk_against_fresh_cursors_stops_when_nothing_new_arrives(
        pages in prop::collection::vec(spec(30, 4), 1..20),
        limit in 1usize..10,
        fail in prop::collection::hash_set(1usize..40, 0..4),
    ) {
        let distinct = 30usize;
        let cap = (distinct + 1) * (MAX_FRUITLESS_PAGES as usize + 1) + 1 + fail.len();
        let w = drive(limit, cap, &fail, |n, _cursor| {
            // Cycle through the specs forever; always has_more with a never-seen cursor.
            let s = &pages[n % pages.len()];
            let mut p = to_page(s, n, Some(format!("fresh-{n}")));
            p.has_more = true;
            p
        });
        check_walk(&w);
        prop_assert!(w.pager.warnings().stalled, "{:?}", w.pager.warnings());
        // Every id the server ever sent was kept.
        let sent: HashSet<u8> = w.applied.iter().flatten().map(|r| r.id).collect();
        prop_assert_eq!(sent.len(), w.pager.loaded());
    }

    /// An arbitrary sequence of pages (each answer is the next in the list, whatever was
    /// asked): the invariants hold, and the walk ends no later than the sequence.
    #[test]
    fn walk_against_an_arbitrary_sequence(
        pages in prop::collection::vec(spec(50, 10), 1..30),
        limit in 1usize..10,
    ) {
        let last = pages.len() - 1;
        let w = drive(limit, pages.len(), &HashSet::new(), |n, _| {
            let s = &pages[n];
            let mut p = to_page(s, n, cursor_text(s.cursor));
            if n == last {
                p.has_more = false;
            }
            p
        });
        check_walk(&w);
        let oversize = w
            .applied
            .iter()
            .zip(&pages)
            .filter(|(items, s)| items.len() + s.bad > limit)
            .count();
        prop_assert_eq!(w.pager.warnings().oversize_pages, oversize);
        let bad: usize = pages[..w.applied.len()].iter().map(|s| s.bad).sum();
        prop_assert_eq!(w.pager.warnings().bad_rows, bad);
    }

    /// Streaming (`drain_rows` after each page, as `convo list --all` does) delivers exactly
    /// what the stored walk holds: same rows, same order, no duplicate across drains.
    #[test]
    fn streaming_walk_equals_stored_walk(
        pages in prop::collection::vec(spec(30, 200), 1..15),
    ) {
        let page_of = |n: usize| {
            let s = &pages[n.min(pages.len() - 1)];
            let mut p = to_page(s, n, Some(format!("s{n}")));
            p.has_more = n + 1 < pages.len();
            p
        };
        let mut stored = Walk::new(10, 1);
        let mut streamed = Walk::new(10, 1);
        let mut out = Vec::new();
        let mut n = 0;
        while let (Some(_), Some(_)) = (stored.request(), streamed.request()) {
            stored.take(page_of(n));
            streamed.take(page_of(n));
            out.extend(streamed.drain_rows());
            n += 1;
        }
        prop_assert!(stored.is_done() && streamed.is_done());
        prop_assert_eq!(&out[..], stored.rows());
        prop_assert_eq!(streamed.loaded(), stored.loaded());
        prop_assert_eq!(streamed.warnings(), stored.warnings());
    }
}

// ---------------------------------------------------------------------------------------------
// Sanitising and fitting
// ---------------------------------------------------------------------------------------------

/// Characters that must never reach a terminal as they are.
fn forbidden(c: char) -> bool {
    let cp = c as u32;
    matches!(cp,
        0x00..=0x1f | 0x7f | 0x80..=0x9f
        // bidi: ALM, LRM/RLM, embeddings/overrides, isolates
        | 0x061c | 0x200e | 0x200f | 0x202a..=0x202e | 0x2066..=0x2069
        // line/paragraph separators
        | 0x2028 | 0x2029)
}

/// Strings biased towards what hostile data holds: escapes, C1, bidi, zero-width, wide and
/// combining characters, emoji with variation selectors.
fn hostile_string() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        '\u{1b}',
        '\u{7}',
        '\r',
        '\n',
        '\t',
        '\u{8}',
        '\u{0}',
        '\u{7f}',
        '\u{80}',
        '\u{9b}',
        '\u{9d}',
        '\u{9f}',
        '\u{85}',
        '\u{202a}',
        '\u{202b}',
        '\u{202c}',
        '\u{202d}',
        '\u{202e}',
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{200e}',
        '\u{200f}',
        '\u{061c}',
        '\u{200b}',
        '\u{200d}',
        '\u{2060}',
        '\u{feff}',
        '\u{fe0f}',
        '\u{fe0e}',
        '\u{300}',
        '\u{e0041}',
        '\u{2028}',
        '\u{2029}',
        '\u{ad}',
        '王',
        '😀',
        '☺',
        '❤',
        '🇫',
        '🇷',
        'a',
        '[',
        ']',
        ';',
        '…',
        '\u{fffd}',
        '\u{3000}',
        '\u{1f3fb}',
    ]);
    prop::collection::vec(prop_oneof![3 => special, 1 => any::<char>()], 0..40)
        .prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn sanitize_leaves_no_control_or_bidi_character(s in hostile_string()) {
        let out = text::sanitize(&s);
        if let Some(c) = out.chars().find(|&c| forbidden(c)) {
            prop_assert!(false, "U+{:04X} survived sanitize({:?}) = {:?}", c as u32, s, out);
        }
        prop_assert!(text::is_clean(&out));
        // Visible, not deleted: every character of the input is still accounted for.
        prop_assert!(out.chars().count() >= s.chars().count());
        // Idempotent: the stand-ins are themselves clean.
        prop_assert_eq!(text::sanitize(&out), out.clone());
        // Clean input passes unchanged.
        prop_assert_eq!(s == *out, text::is_clean(&s));
    }

    #[test]
    fn fit_never_exceeds_the_cell_budget(s in hostile_string(), max in 0usize..30) {
        let out = text::fit(&s, max);
        let w = text::width(&out);
        prop_assert!(w <= max, "fit({:?}, {}) = {:?} is {} cells", s, max, out, w);
        prop_assert!(out.chars().all(|c| !forbidden(c)), "{:?}", out);
        let clean = text::sanitize(&s);
        if text::width(&clean) <= max {
            prop_assert_eq!(out.as_ref(), clean.as_ref(), "cut although it fitted");
        } else if max > 0 {
            prop_assert!(out.ends_with('…'), "cut without an ellipsis: {:?}", out);
            let kept = out.strip_suffix('…').unwrap();
            prop_assert!(clean.starts_with(kept), "{:?} is not a prefix of {:?}", kept, clean);
        }
        let line = text::one_line(&s, max);
        prop_assert!(!line.contains('\n') && !line.contains('\r'));
    }
}

#[test]
fn fit_regressions() {
    // Found by the properties above, kept as named cases.
    for (s, max) in [
        ("☺\u{fe0f}☺\u{fe0f}☺\u{fe0f}", 3),
        ("❤\u{fe0f}", 1),
        ("a\u{202e}b", 4),
        ("\u{1b}[2J", 2),
        ("©\u{fe0f}\u{80}\u{202a}\u{80}", 2),
    ] {
        let out = text::fit(s, max);
        assert!(text::width(&out) <= max, "fit({s:?}, {max}) = {out:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Filters to query pairs and back
// ---------------------------------------------------------------------------------------------

fn uuid() -> impl Strategy<Value = Uuid> {
    any::<u128>().prop_map(Uuid::from_u128)
}

fn assignee() -> impl Strategy<Value = Assignee> {
    prop_oneof![
        Just(Assignee::Any),
        Just(Assignee::Unassigned),
        Just(Assignee::Anyone),
        uuid().prop_map(Assignee::Agent),
    ]
}

fn conversation_filter() -> impl Strategy<Value = ConversationFilter> {
    (
        prop::option::of(uuid()),
        prop::option::of(prop::sample::select(Status::KNOWN.to_vec())),
        assignee(),
        prop::option::of(uuid()),
    )
        .prop_map(
            |(site_id, status, assignee, visitor_id)| ConversationFilter {
                site_id,
                status,
                assignee,
                visitor_id,
                by_email: None,
            },
        )
}

/// A client that is never used for I/O: only to build URLs the way requests are built.
/// Built once (building a TLS-capable client takes milliseconds).
fn url_client() -> &'static Client {
    static CLIENT: std::sync::OnceLock<Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| {
        let key = ApiKey::new("sk_test_0123456789abcdef", KeySource::Env, "sk_").unwrap();
        Client::new(ClientSettings::new("http://127.0.0.1:9/base", key)).unwrap()
    })
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn conversation_filter_round_trips_through_query_pairs(
        f in conversation_filter(),
        limit in 1i64..=100,
        cursor in prop::option::of(".{0,20}"),
    ) {
        let pairs = f.query_pairs();
        let keys: Vec<&str> = pairs.iter().map(|(k, _)| *k).collect();
        prop_assert!(
            !(keys.contains(&"unassigned") && keys.contains(&"assignee_id")),
            "both unassigned and assignee_id sent: {:?}", pairs
        );
        // Unset filters are not sent, and nothing is sent twice.
        let set = [f.site_id.is_some(), f.status.is_some(), f.assignee != Assignee::Any,
            f.visitor_id.is_some()].iter().filter(|b| **b).count();
        prop_assert_eq!(pairs.len(), set);
        prop_assert!(pairs.iter().all(|(_, v)| !v.is_empty()));
        prop_assert_eq!(f.is_empty(), set == 0);

        let back = ConversationFilter::from_query_pairs(
            pairs.iter().map(|(k, v)| (*k, v.as_str())),
        );
        prop_assert_eq!(back.as_ref(), Ok(&f));

        // And through a real request URL: percent-encoding, limit and cursor included.
        let url = url_client().page_url(
            Resource::Conversations,
            &pairs,
            Limit::new(limit).unwrap(),
            cursor.as_deref(),
        );
        prop_assert_eq!(url.path(), "/base/v1/conversations");
        let got: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        let back = ConversationFilter::from_query_pairs(
            got.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        );
        prop_assert_eq!(back, Ok(f));
        let map: BTreeMap<_, _> = got.iter().cloned().collect();
        prop_assert_eq!(map.len(), got.len(), "a parameter sent twice: {:?}", got);
        prop_assert_eq!(map.get("limit"), Some(&limit.to_string()));
        prop_assert_eq!(map.get("cursor"), cursor.as_ref());
    }

    /// Pairs that carry both assignee parameters are refused, whatever order or values.
    #[test]
    fn both_assignee_params_are_refused(
        a in uuid(),
        flag in any::<bool>(),
        swap in any::<bool>(),
        other in conversation_filter(),
    ) {
        let a = a.to_string();
        let flag = flag.to_string();
        let mut pairs: Vec<(&str, &str)> = vec![("unassigned", &flag), ("assignee_id", &a)];
        if swap {
            pairs.reverse();
        }
        let extra = other.query_pairs();
        let extra: Vec<(&str, &str)> = extra
            .iter()
            .filter(|(k, _)| *k != "unassigned" && *k != "assignee_id")
            .map(|(k, v)| (*k, v.as_str()))
            .collect();
        pairs.extend(extra);
        prop_assert_eq!(
            ConversationFilter::from_query_pairs(pairs),
            Err(FilterError::AssigneeConflict)
        );
    }

    /// Visitor filters go out trimmed and exactly as typed otherwise (any character, `&`, `=`,
    /// `+`, `#`, `%`, non-ASCII), and blank ones are not sent.
    #[test]
    fn visitor_filter_survives_the_url(
        email in prop::option::of("[ a-zA-Z0-9@.+&=#%?/_-]{0,12}|\\PC{0,12}"),
        external_id in prop::option::of("\\PC{0,16}"),
    ) {
        let f = VisitorFilter { email: email.clone(), external_id: external_id.clone() };
        let url = url_client().page_url(
            Resource::Visitors,
            &f.query_pairs(),
            Limit::DEFAULT,
            None,
        );
        let got: BTreeMap<String, String> = url.query_pairs().into_owned().collect();
        for (name, v) in [("email", &email), ("external_id", &external_id)] {
            let want = v.as_deref().map(str::trim).filter(|s| !s.is_empty());
            prop_assert_eq!(got.get(name).map(String::as_str), want, "{}", name);
        }
    }
}
