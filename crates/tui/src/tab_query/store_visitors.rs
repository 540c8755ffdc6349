//! The local store's answers about visitors, for a union tab's checks on their attributes
//! (see [`crate::tab_query::visitors`]).

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use crate::command::Command;
use convo_query::query::eval::VisitorInfo;

/// The store's answers for the visitors of the rows walked (see the module).
#[derive(Debug, Clone, Default)]
pub struct StoreVisitors {
    /// Answered: `None` when the store does not know the visitor.
    known: HashMap<Uuid, Option<VisitorInfo>>,
    /// Asked and not answered yet.
    asked: HashSet<Uuid>,
    /// The runtime has no store (off, or it failed): visitor attributes are not known here.
    pub absent: bool,
    /// The missing store was said for the query shown.
    pub said: bool,
    /// Visitors the store did not know were said for the query shown.
    pub unknown_said: bool,
}

impl StoreVisitors {
    /// The store's answer for visitor `id`: `None` while there is none yet.
    pub fn get(&self, id: &Uuid) -> Option<Option<&VisitorInfo>> {
        self.known.get(id).map(Option::as_ref)
    }

    /// The answers are read again (a new query, a refresh: attributes may have changed).
    pub fn forget(&mut self) {
        self.known.clear();
        self.asked.clear();
    }

    /// The store's answer: what it knows of `asked` (the others it does not know). How many
    /// of `asked` it does not know.
    pub fn answer(&mut self, asked: Vec<Uuid>, known: Vec<(Uuid, VisitorInfo)>) -> usize {
        let unknown = asked.len().saturating_sub(known.len());
        for id in asked {
            self.asked.remove(&id);
            self.known.entry(id).or_insert(None);
        }
        for (id, v) in known {
            self.known.insert(id, Some(v));
        }
        unknown
    }

    /// The command that asks the store for those of `ids` neither answered nor asked.
    pub fn ask(&mut self, ids: impl IntoIterator<Item = Uuid>) -> Option<Command> {
        let mut new = Vec::new();
        for id in ids {
            if !self.known.contains_key(&id) && self.asked.insert(id) {
                new.push(id);
            }
        }
        (!new.is_empty()).then_some(Command::LookupVisitors(new))
    }
}
