//! Change marks: what changed since the previous fetch. Marks on rows that are new and rows whose
//! watched fields (a conversation's status or assignee) changed.
//!
//! - A periodic refresh merges the first page ([`convo_engine::walk::Walk::finish_refresh`]): its
//!   `new_ids` are new, and its `changed_ids` are kept when the watched fields differ.
//! - A reload (`r`) starts a new walk: the rows loaded before are remembered by id, and the
//!   new walk's pages are compared with them as they arrive. A row the old walk did not have
//!   is new only once a row that it did have comes after it (otherwise it may simply be past
//!   where the old walk had got to).
//! - Each refresh replaces the marks; a mark goes when its row is selected; a new walk (a
//!   filter change) drops them all (they belong to one generation).
//!
//! The marks' state; [`crate::tab::marks`] feeds it from a tab's walk.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use convo_api::{Conversation, Row, Visitor};
use convo_engine::pager::Merged;

/// A row whose "did it change" fields can be fingerprinted.
pub trait Watched: Row {
    /// A hash of the fields whose change is worth a mark.
    fn watch_hash(&self) -> u64;
}

impl Watched for Conversation {
    /// Status and assignee (not `updatedAt`: any message moves it). A stable hash: the local
    /// store keeps it across runs ("since you last looked").
    fn watch_hash(&self) -> u64 {
        convo_store::looks::conversation_fingerprint(self)
    }
}

impl Watched for Visitor {
    /// E-mail, name and external id. A stable hash: the local store keeps it across runs
    /// ("since you last looked").
    fn watch_hash(&self) -> u64 {
        let part = |v: &Option<String>| match v {
            Some(s) => [b"1", s.as_bytes()].concat(),
            None => b"0".to_vec(),
        };
        convo_store::looks::fingerprint(&[
            &part(&self.email),
            &part(&self.name),
            &part(&self.external_id),
        ])
    }
}

/// The mark on one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    New,
    Changed,
}

impl Mark {
    /// The symbol in the table's gutter (one cell wide).
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::New => "•",
            Mark::Changed => "~",
        }
    }
}

/// A reload being compared with the rows loaded before it.
#[derive(Debug, Clone, Default)]
struct ReloadDiff {
    /// Watch hashes of the rows loaded before, by id.
    before: HashMap<Uuid, u64>,
    /// Rows of `before` met again so far.
    matched: usize,
    /// Rows not in `before` that are not yet known to be new.
    pending: Vec<Uuid>,
}

/// One tab's marks.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// The walk the marks belong to; another generation shows none.
    generation: u64,
    new: HashSet<Uuid>,
    changed: HashSet<Uuid>,
    reload: Option<ReloadDiff>,
    /// Bumped by every merged refresh (rows may change in place without a new page).
    revision: u64,
}

impl Marks {
    /// The mark of a row in walk `generation`.
    pub fn mark(&self, generation: u64, id: &Uuid) -> Option<Mark> {
        if generation != self.generation {
            None
        } else if self.new.contains(id) {
            Some(Mark::New)
        } else if self.changed.contains(id) {
            Some(Mark::Changed)
        } else {
            None
        }
    }

    /// How many rows are marked new and changed in walk `generation`.
    pub fn counts(&self, generation: u64) -> (usize, usize) {
        if generation != self.generation {
            (0, 0)
        } else {
            (self.new.len(), self.changed.len())
        }
    }

    /// Changes with every merged refresh.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The row was selected: its mark goes.
    pub fn seen(&mut self, id: &Uuid) {
        self.new.remove(id);
        self.changed.remove(id);
    }

    fn replace(&mut self, generation: u64) {
        self.generation = generation;
        self.new.clear();
        self.changed.clear();
    }

    /// A refresh of walk `generation` was merged: its new rows are new, and its changed ones
    /// (among `live`, the rows it re-read) changed when their watched fields differ from
    /// `before` (the same rows' watch hashes before the merge).
    pub fn merged<T: Watched>(
        &mut self,
        generation: u64,
        merged: &Merged,
        before: &HashMap<Uuid, u64>,
        live: &[T],
    ) {
        let changed: HashSet<Uuid> = merged.changed_ids.iter().copied().collect();
        self.replace(generation);
        self.reload = None;
        self.revision += 1;
        self.new.extend(merged.new_ids.iter().copied());
        for r in live {
            let id = r.id();
            if changed.contains(&id) && before.get(&id) != Some(&r.watch_hash()) {
                self.changed.insert(id);
            }
        }
    }

    /// Walk `generation` starts, to be compared with `before` (ids and watch hashes of the
    /// rows it replaces) as its pages arrive; nothing to compare when `before` is empty.
    pub fn compare_with(&mut self, generation: u64, before: HashMap<Uuid, u64>) {
        self.replace(generation);
        self.reload = (!before.is_empty()).then(|| ReloadDiff {
            before,
            ..ReloadDiff::default()
        });
    }

    /// Rows of walk `generation` arrived (`rows`, from where the page begins; `done`: the walk
    /// has no more): compares them with the rows before, if a comparison is under way.
    pub fn arrived<T: Watched>(&mut self, generation: u64, rows: &[T], done: bool) {
        if self.generation != generation {
            self.reload = None;
            return;
        }
        let Some(diff) = self.reload.as_mut() else {
            return;
        };
        for r in rows {
            let id = r.id();
            match diff.before.get(&id) {
                Some(h) => {
                    diff.matched += 1;
                    if *h != r.watch_hash() {
                        self.changed.insert(id);
                    }
                    self.new.extend(diff.pending.drain(..));
                }
                None => diff.pending.push(id),
            }
        }
        if diff.matched >= diff.before.len() || done {
            self.reload = None;
        }
    }
}
