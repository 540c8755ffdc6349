//! Visitors' names where ids were: a bounded cache (id → name, e-mail, external id) that the
//! render path reads. It holds the visitors of the rows loaded: a page's visitors are asked of
//! the local store in one command when the page arrives ([`wanted`]), never the
//! whole store at start; the background visitor sync and the Visitors tab's rows update what
//! it holds. The store itself is only touched by its thread (`convo_store::StoreTask`);
//! nothing here waits on it: a row whose name is not there yet shows its short id.

pub mod wanted;

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use convo_api::Visitor;
use convo_store::visitors::display_name;

/// What the screen knows of one visitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisitorLabel {
    pub name: Option<Box<str>>,
    pub email: Option<Box<str>>,
    pub external_id: Option<Box<str>>,
}

impl VisitorLabel {
    /// The name, else the e-mail, else the external id (blanks skipped).
    pub fn shown(&self) -> Option<&str> {
        display_name(
            self.name.as_deref(),
            self.email.as_deref(),
            self.external_id.as_deref(),
        )
    }

    /// From a visitor row; `None` when it has nothing better than its id.
    pub fn of(v: &Visitor) -> Option<VisitorLabel> {
        VisitorLabel::from_fields(
            v.name.as_deref(),
            v.email.as_deref(),
            v.external_id.as_deref(),
        )
    }

    /// From the three fields; `None` when none has anything to show.
    pub fn from_fields(
        name: Option<&str>,
        email: Option<&str>,
        external_id: Option<&str>,
    ) -> Option<VisitorLabel> {
        let l = VisitorLabel {
            name: name.map(Into::into),
            email: email.map(Into::into),
            external_id: external_id.map(Into::into),
        };
        l.shown().is_some().then_some(l)
    }
}

/// The store key of a Conversations view: its filter as the query it sends (the same key
/// `convo summary` samples under).
pub fn look_key(f: &convo_api::ConversationFilter) -> String {
    convo_store::samples::filter_key(f)
}

/// When a look was taken, in words: "17:40" today, "yesterday 17:40", else "Nov 21 17:40".
pub fn since_words(now: jiff::Timestamp, tz: &jiff::tz::TimeZone, unix: i64) -> String {
    let Ok(t) = jiff::Timestamp::from_second(unix) else {
        return "the last look".into();
    };
    let (then, today) = (t.to_zoned(tz.clone()), now.to_zoned(tz.clone()));
    let hm = then.strftime("%H:%M").to_string();
    if then.date() == today.date() {
        hm
    } else if today.date().yesterday().ok() == Some(then.date()) {
        format!("yesterday {hm}")
    } else {
        format!("{} {hm}", then.strftime("%b %-d"))
    }
}

/// Visitor rows handed to the store (a command's payload; compared row by row).
#[derive(Debug, Clone, PartialEq)]
pub struct VisitorRows(pub Vec<Visitor>);

// JSON values from the wire hold no NaN, so equality is an equivalence here.
impl Eq for VisitorRows {}

/// What the cache knows of one visitor.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// Asked of the store; no answer yet.
    Asked,
    /// Known, with something better than its id (or not: `None`).
    Known(Option<VisitorLabel>),
    /// The store does not know it (yet): the visitor sync is told.
    Unknown,
}

/// The cache holds at least this many visitors before it drops those no loaded row has.
const MIN_LIMIT: usize = 4096;

/// The names the screen shows, and where the background walk stands.
#[derive(Debug, Clone)]
pub struct VisitorNames {
    map: HashMap<Uuid, Entry>,
    /// Past this many entries, those no loaded row has are dropped ([`VisitorNames::retain`]).
    limit: usize,
    /// "names: 12,400 of ≥20,000 visitors" while the walk runs; `None` when done or off.
    pub sync_line: Option<String>,
    /// Counts the changes of what is shown (a sort by name is computed again after one).
    revision: u64,
}

impl Default for VisitorNames {
    fn default() -> Self {
        VisitorNames {
            map: HashMap::new(),
            limit: MIN_LIMIT,
            sync_line: None,
            revision: 0,
        }
    }
}

impl VisitorNames {
    /// Changes whenever a name shown may have changed.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The label of a visitor, if known.
    pub fn get(&self, id: &Uuid) -> Option<&VisitorLabel> {
        match self.map.get(id) {
            Some(Entry::Known(l)) => l.as_ref(),
            _ => None,
        }
    }

    /// What to show for a visitor, if known.
    pub fn shown(&self, id: &Uuid) -> Option<&str> {
        self.get(id).and_then(VisitorLabel::shown)
    }

    /// Whether the store was asked about this visitor and has not answered yet.
    pub fn pending(&self, id: &Uuid) -> bool {
        self.map.get(id) == Some(&Entry::Asked)
    }

    /// Whether the store was asked about this visitor and does not know it.
    pub fn is_unknown(&self, id: &Uuid) -> bool {
        self.map.get(id) == Some(&Entry::Unknown)
    }

    /// How many visitors the cache holds (named, nameless, asked or unknown).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Those of `ids` the cache has nothing for, now marked as asked (each once).
    pub fn want(&mut self, ids: impl IntoIterator<Item = Uuid>) -> Vec<Uuid> {
        let mut out = Vec::new();
        for id in ids {
            if let std::collections::hash_map::Entry::Vacant(e) = self.map.entry(id) {
                e.insert(Entry::Asked);
                out.push(id);
            }
        }
        out
    }

    /// Visitors the store did not know, asked of it again (another convo wrote names).
    pub fn ask_again(&mut self, ids: impl IntoIterator<Item = Uuid>) {
        for id in ids {
            if let Some(e @ Entry::Unknown) = self.map.get_mut(&id) {
                *e = Entry::Asked;
            }
        }
    }

    /// The store's answer: `found` are the visitors of `asked` it knows; the others are
    /// unknown (unless the sync or a row named them meanwhile). How many are unknown.
    pub fn answered(&mut self, asked: &[Uuid], found: Vec<(Uuid, Option<VisitorLabel>)>) -> usize {
        if !found.is_empty() {
            self.revision += 1;
        }
        for (id, l) in found {
            self.map.insert(id, Entry::Known(l));
        }
        let mut unknown = 0;
        for id in asked {
            if let Some(e @ Entry::Asked) = self.map.get_mut(id) {
                *e = Entry::Unknown;
                unknown += 1;
            }
        }
        unknown
    }

    /// Labels from the visitor sync: only visitors the cache holds are taken (the others are
    /// in the store, read when a row needs them). Whether anything shown may have changed.
    pub fn offer(&mut self, labels: Vec<(Uuid, Option<VisitorLabel>)>) -> bool {
        let mut changed = false;
        for (id, l) in labels {
            if let Some(e) = self.map.get_mut(&id) {
                let new = Entry::Known(l);
                if *e != new {
                    *e = new;
                    changed = true;
                }
            }
        }
        if changed {
            self.revision += 1;
        }
        changed
    }

    /// Takes the labels of visitor rows just received (a row without any name removes an
    /// older label: the service's row wins).
    pub fn learn(&mut self, rows: &[Visitor]) {
        if !rows.is_empty() {
            self.revision += 1;
        }
        for v in rows {
            self.map.insert(v.id, Entry::Known(VisitorLabel::of(v)));
        }
    }

    /// Whether the cache has grown past its limit ([`VisitorNames::retain`] is due).
    pub fn over_limit(&self) -> bool {
        self.map.len() > self.limit
    }

    /// Keeps only the visitors of loaded rows (`live`); the next limit is twice what is left,
    /// so the cache stays bounded by the rows loaded, not by the store.
    pub fn retain(&mut self, live: &HashSet<Uuid>) {
        self.map
            .retain(|id, e| live.contains(id) || *e == Entry::Asked);
        self.limit = (self.map.len() * 2).max(MIN_LIMIT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(n: u128, name: Option<&str>, email: Option<&str>) -> Visitor {
        Visitor {
            id: Uuid::from_u128(n),
            external_id: None,
            email: email.map(str::to_string),
            name: name.map(str::to_string),
            attributes: serde_json::Value::Null,
            created_at: None,
        }
    }

    #[test]
    fn since_words_say_today_yesterday_or_the_date() {
        let tz = jiff::tz::TimeZone::UTC;
        let now: jiff::Timestamp = "2026-11-23T09:00:00Z".parse().unwrap();
        let at = |s: &str| s.parse::<jiff::Timestamp>().unwrap().as_second();
        assert_eq!(since_words(now, &tz, at("2026-11-23T08:05:00Z")), "08:05");
        assert_eq!(
            since_words(now, &tz, at("2026-11-22T17:40:00Z")),
            "yesterday 17:40"
        );
        assert_eq!(
            since_words(now, &tz, at("2026-11-20T17:40:00Z")),
            "Nov 20 17:40"
        );
    }

    #[test]
    fn name_else_email_and_the_service_row_wins() {
        let mut n = VisitorNames::default();
        n.learn(&[
            v(1, Some("Ana"), Some("a@x")),
            v(2, Some("  "), Some("b@x")),
        ]);
        assert_eq!(n.shown(&Uuid::from_u128(1)), Some("Ana"));
        assert_eq!(n.shown(&Uuid::from_u128(2)), Some("b@x"));
        n.learn(&[v(1, None, None)]);
        assert_eq!(n.shown(&Uuid::from_u128(1)), None);
        assert_eq!(n.len(), 2);
    }

    #[test]
    fn asked_once_unknown_until_the_sync_names_it_and_bounded_by_loaded_rows() {
        let mut n = VisitorNames::default();
        let id = |k| Uuid::from_u128(k);
        assert_eq!(n.want([id(1), id(2), id(1)]), vec![id(1), id(2)]);
        assert!(n.want([id(1)]).is_empty(), "asked once");
        let label = VisitorLabel::of(&v(1, Some("Ana"), None));
        assert_eq!(n.answered(&[id(1), id(2)], vec![(id(1), label.clone())]), 1);
        assert_eq!(n.shown(&id(1)), Some("Ana"));
        assert!(n.is_unknown(&id(2)));
        // A sync page names the unknown one; visitors nobody asked for are not kept.
        let bo = VisitorLabel::of(&v(2, Some("Bo"), None));
        assert!(n.offer(vec![(id(2), bo), (id(3), label)]));
        assert_eq!(n.shown(&id(2)), Some("Bo"));
        assert_eq!(n.len(), 2);
        for k in 10..(MIN_LIMIT as u128 + 20) {
            n.want([id(k)]);
            n.answered(&[id(k)], Vec::new());
        }
        assert!(n.over_limit());
        n.retain(&[id(1), id(2)].into_iter().collect());
        assert_eq!(n.len(), 2);
        assert!(!n.over_limit());
    }
}
