//! Generated data that looks real, deterministic per seed.

use std::collections::HashMap;

use jiff::{SignedDuration, Timestamp};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};
use uuid::Uuid;

/// The instant the data is generated back from: fixed, so a seed always gives the same rows.
pub const REFERENCE_TIME: &str = "2026-11-22T12:00:00Z";

/// splitmix64: small, fast, good enough for demo data, and stable across platforms.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }
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
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
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
    pub id: Uuid,
    pub site_id: Uuid,
    pub visitor_id: Uuid,
    pub status: &'static str,
    pub assignee_id: Option<Uuid>,
    #[serde(serialize_with = "ts")]
    pub created_at: Timestamp,
    #[serde(serialize_with = "ts")]
    pub updated_at: Timestamp,
}

/// A visitor as the demo server stores and sends it. `None` fields are sent as null, or left
/// out when `omit_empty` is set, so clients meet both forms.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoVisitor {
    pub id: Uuid,
    pub external_id: Option<String>,
    pub email: Option<String>,
    pub name: Option<String>,
    pub attributes: Value,
    pub created_at: Timestamp,
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
    pub conversations: Vec<DemoConversation>,
    pub visitors: Vec<DemoVisitor>,
    pub sites: Vec<Uuid>,
    pub agents: Vec<Uuid>,
}

/// Indexes for the selective filters, so a page never scans the whole list.
#[derive(Debug, Default)]
pub struct Indexes {
    pub by_visitor: HashMap<Uuid, Vec<u32>>,
    pub by_email: HashMap<String, Vec<u32>>,
    pub by_external_id: HashMap<String, Vec<u32>>,
}

impl Indexes {
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

/// Generates the data set for a seed. Cheap enough for 1,000,000 conversations.
pub fn dataset(seed: u64, conversations: usize, visitors: usize) -> Dataset {
    let mut r = Rng::new(seed);
    let reference: Timestamp = REFERENCE_TIME.parse().unwrap_or(Timestamp::UNIX_EPOCH);
    let window = 90 * 24 * 3600;
    let sites: Vec<Uuid> = (0..4 + r.below(3)).map(|_| r.uuid()).collect();
    let agents: Vec<Uuid> = (0..8 + r.below(5)).map(|_| r.uuid()).collect();

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
    cs.sort_by_key(|c| std::cmp::Reverse((c.created_at, c.id)));
    Dataset {
        conversations: cs,
        visitors: vs,
        sites,
        agents,
    }
}

/// Hostile text for the `hostile` fault: everything a terminal could act on.
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
];

/// Makes the data hostile: control sequences in every text field, a 5,000-character name,
/// nulls and missing fields.
pub fn make_hostile(ds: &mut Dataset) {
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
