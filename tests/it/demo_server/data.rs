//! The generated data: deterministic per seed, shaped like the real thing, and fast at scale.

use std::collections::HashSet;

use convo::demo::{Faults, dataset};
use serde_json::Value;

use super::{get, ids, start, wire};

#[tokio::test]
async fn data_is_deterministic_per_seed_and_looks_real() {
    let a = dataset(11, 3000, 800);
    let b = dataset(11, 3000, 800);
    let other = dataset(12, 3000, 800);
    assert_eq!(wire(&a.conversations), wire(&b.conversations));
    assert_eq!(wire(&a.visitors), wire(&b.visitors));
    assert_eq!((&a.sites, &a.agents), (&b.sites, &b.agents));
    assert_ne!(
        ids(&wire(&a.conversations)),
        ids(&wire(&other.conversations))
    );
    assert_ne!(a.sites, other.sites);

    assert!((4..=6).contains(&a.sites.len()) && (8..=12).contains(&a.agents.len()));
    let convs = wire(&a.conversations);
    let vis = wire(&a.visitors);
    let visitor_ids: HashSet<&str> = vis.iter().filter_map(|v| v["id"].as_str()).collect();
    let reference = "2026-11-22T12:00:00Z".parse::<jiff::Timestamp>().unwrap();
    let oldest = reference - jiff::SignedDuration::from_hours(91 * 24);
    for c in &convs {
        let t = |k: &str| c[k].as_str().unwrap().parse::<jiff::Timestamp>().unwrap();
        assert!(c["createdAt"].as_str().unwrap().ends_with('Z'));
        assert!(t("updatedAt") >= t("createdAt") && t("updatedAt") <= reference);
        assert!(t("createdAt") > oldest);
        assert!(visitor_ids.contains(c["visitorId"].as_str().unwrap()));
        for k in ["id", "siteId", "visitorId"] {
            let u: uuid::Uuid = c[k].as_str().unwrap().parse().unwrap();
            assert_eq!(u.get_version_num(), 4);
        }
    }
    let share =
        |f: &dyn Fn(&Value) -> bool| convs.iter().filter(|c| f(c)).count() * 100 / convs.len();
    // Unassigned: pending or closed ones, and the few waiting at the head.
    assert!((12..=22).contains(&share(&|c| c["assigneeId"].is_null())));
    // A live queue at the reference time: waiting (open, unassigned) ages spread around the
    // demo's first-response target, in each state and across the wait histogram's bars; nobody
    // older waits, as in a real inbox.
    let target = convo::demo::QUEUE_TARGET_SECS;
    let waits: Vec<i64> = convs
        .iter()
        .filter(|c| c["status"] == "open" && c["assigneeId"].is_null())
        .map(|c| {
            let t: jiff::Timestamp = c["createdAt"].as_str().unwrap().parse().unwrap();
            t.duration_until(reference).as_secs()
        })
        .collect();
    assert!((6..=12).contains(&waits.len()), "{waits:?}");
    let states: HashSet<_> = waits
        .iter()
        .map(|&w| convo::sla::state(w, target, 0.5))
        .collect();
    assert_eq!(states.len(), 3, "ok, imminent and breaching: {waits:?}");
    let edges = convo::sla::wait_edges(Some(target), 0.5);
    let bars: HashSet<usize> = waits
        .iter()
        .map(|&w| convo::sla::wait_bin(w, &edges))
        .collect();
    assert!(bars.len() >= 5, "{bars:?} of {waits:?}");
    assert!(waits.iter().all(|&w| w < 40 * target), "{waits:?}");
    for (st, lo, hi) in [("open", 38, 52), ("pending", 14, 26), ("closed", 28, 42)] {
        assert!((lo..=hi).contains(&share(&|c| c["status"] == st)), "{st}");
    }
    let names: Vec<&str> = vis.iter().filter_map(|v| v["name"].as_str()).collect();
    assert!(
        names
            .iter()
            .any(|n| n.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)))
    );
    assert!(
        names
            .iter()
            .any(|n| n.chars().any(|c| ('\u{c0}'..='\u{17f}').contains(&c)))
    );
    assert!(names.iter().any(|n| n.chars().any(|c| c as u32 >= 0x1f300)));
    for k in ["name", "email", "externalId"] {
        assert!(
            vis.iter().any(|v| v.get(k).is_none()),
            "{k} sometimes missing"
        );
        assert!(
            vis.iter().any(|v| v.get(k).is_some_and(Value::is_null)),
            "{k} sometimes null"
        );
    }
    let mut kinds = HashSet::new();
    fn walk_kinds(v: &Value, kinds: &mut HashSet<&'static str>) {
        let kind = match v {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(n) if n.is_f64() => "float",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(a) => {
                a.iter().for_each(|x| walk_kinds(x, kinds));
                "array"
            }
            Value::Object(o) => {
                o.values().for_each(|x| walk_kinds(x, kinds));
                "object"
            }
        };
        kinds.insert(kind);
    }
    for v in &vis {
        assert!(v["attributes"].is_object());
        for x in v["attributes"].as_object().unwrap().values() {
            walk_kinds(x, &mut kinds);
        }
    }
    assert_eq!(
        kinds.len(),
        7,
        "every JSON type among attribute values: {kinds:?}"
    );

    // Two servers on one seed serve the same rows with the same key.
    let s1 = start(50, 20, Faults::default()).await;
    let s2 = start(50, 20, Faults::default()).await;
    assert_eq!(s1.api_key(), s2.api_key());
    assert_eq!(
        get(&s1, "/v1/visitors").await.text,
        get(&s2, "/v1/visitors").await.text
    );
}

// The time to generate a million conversations and to serve a page of 100 are figures of
// `cargo bench --bench demo_server` (docs/performance.md), not assertions here.
