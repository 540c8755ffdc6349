//! Visitors' names where ids were: an in-memory map (id → name, e-mail, external id) that the
//! render path reads, filled from the local store at start, by the background visitor sync and
//! by every visitor row the Visitors tab loads. The store itself is only touched by its thread
//! (`crate::store::StoreTask`); nothing here waits on it.

use std::collections::HashMap;

use uuid::Uuid;

use crate::api::Visitor;
use crate::store::visitors::display_name;

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
        let l = VisitorLabel {
            name: v.name.as_deref().map(Into::into),
            email: v.email.as_deref().map(Into::into),
            external_id: v.external_id.as_deref().map(Into::into),
        };
        l.shown().is_some().then_some(l)
    }
}

/// The store key of a Conversations view: its filter as the query it sends (the same key
/// `convo summary` samples under).
pub fn look_key(f: &crate::api::ConversationFilter) -> String {
    crate::store::samples::filter_key(f)
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

/// The names the screen shows, and where the background walk stands.
#[derive(Debug, Clone, Default)]
pub struct VisitorNames {
    map: HashMap<Uuid, VisitorLabel>,
    /// "names: 12,400 of ≥20,000 visitors" while the walk runs; `None` when done or off.
    pub sync_line: Option<String>,
}

impl VisitorNames {
    /// The label of a visitor, if known.
    pub fn get(&self, id: &Uuid) -> Option<&VisitorLabel> {
        self.map.get(id)
    }

    /// What to show for a visitor, if known.
    pub fn shown(&self, id: &Uuid) -> Option<&str> {
        self.map.get(id).and_then(VisitorLabel::shown)
    }

    /// How many visitors have a name (or e-mail, or external id) on screen.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether none is known.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Takes labels (from the store or the sync); later ones win.
    pub fn extend(&mut self, labels: impl IntoIterator<Item = (Uuid, VisitorLabel)>) {
        self.map.extend(labels);
    }

    /// Takes the labels of visitor rows just received (a row without any name removes an
    /// older label: the service's row wins).
    pub fn learn(&mut self, rows: &[Visitor]) {
        for v in rows {
            match VisitorLabel::of(v) {
                Some(l) => {
                    self.map.insert(v.id, l);
                }
                None => {
                    self.map.remove(&v.id);
                }
            }
        }
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
        assert_eq!(n.len(), 1);
    }
}
