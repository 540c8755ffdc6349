//! Change marks: what changed since the previous fetch. Marks on rows that are new and rows whose
//! watched fields (a conversation's status or assignee) changed.
//!
//! - A periodic refresh merges the first page ([`crate::pager::Pager::merge_head`]): its
//!   `new_ids` are new, and its `changed_ids` are kept when the watched fields differ.
//! - A reload (`r`) starts a new walk: the rows loaded before are remembered by id, and the
//!   new walk's pages are compared with them as they arrive. A row the old walk did not have
//!   is new only once a row that it did have comes after it (otherwise it may simply be past
//!   where the old walk had got to).
//! - Each refresh replaces the marks; a mark goes when its row is selected; a new walk (a
//!   filter change) drops them all (they belong to one generation).

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use uuid::Uuid;

use super::tab::{HeadStep, TabFilter, TabState};
use crate::api::{ApiError, Conversation, Page, Row, Visitor};
use crate::pager::Merged;

/// What the Conversations tab has loaded, as "since you last looked" keeps it: the first
/// [`crate::store::looks::LOOK_CAP`] rows' ids and watched fields, under the filter's key.
pub fn look_of<F: TabFilter>(
    t: &TabState<Conversation, F>,
    key: String,
) -> Option<super::command::Command> {
    let rows: Vec<crate::store::LookRow> = t
        .rows()
        .iter()
        .take(crate::store::looks::LOOK_CAP)
        .map(|r| crate::store::LookRow {
            id: r.id(),
            watched: r.watch_hash(),
        })
        .collect();
    (!rows.is_empty()).then_some(super::command::Command::KeepLook { key, rows })
}

/// A row whose "did it change" fields can be fingerprinted.
pub trait Watched: Row {
    /// A hash of the fields whose change is worth a mark.
    fn watch_hash(&self) -> u64;
}

fn hash_of(v: impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

impl Watched for Conversation {
    /// Status and assignee (not `updatedAt`: any message moves it). A stable hash: the local
    /// store keeps it across runs ("since you last looked").
    fn watch_hash(&self) -> u64 {
        crate::store::looks::conversation_fingerprint(self)
    }
}

impl Watched for Visitor {
    fn watch_hash(&self) -> u64 {
        hash_of((&self.email, &self.name, &self.external_id))
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
}

/// Takes one page of a refresh: the next page's request while the re-read goes on; once it
/// is complete, merges it into the tab and marks what is new or changed (rows that left take
/// their marks with them).
pub fn merge_head<T: Watched + Clone + PartialEq, F: TabFilter>(
    t: &mut TabState<T, F>,
    result: Result<Page<T>, ApiError>,
    body: usize,
) -> HeadMerge {
    match t.head_page(result) {
        HeadStep::Next(c) => return HeadMerge::Next(c),
        HeadStep::Failed => return HeadMerge::Failed,
        HeadStep::Ready => {}
    }
    // The watched fields of the rows the re-read has again, before they are replaced.
    let before: HashMap<Uuid, u64> = match t.reread() {
        Some(r) => {
            let fresh: HashSet<Uuid> = r.rows().iter().map(Row::id).collect();
            t.rows()
                .iter()
                .filter(|r| fresh.contains(&r.id()))
                .map(|r| (r.id(), r.watch_hash()))
                .collect()
        }
        None => HashMap::new(),
    };
    let merged = t.finish_reread(body);
    let generation = t.generation;
    let changed: HashSet<Uuid> = merged.changed_ids.iter().copied().collect();
    let m = &mut t.marks;
    m.replace(generation);
    m.reload = None;
    m.revision += 1;
    m.new.extend(merged.new_ids.iter().copied());
    let live = merged.live_from..merged.live_from + merged.live;
    for r in t.pager.rows().get(live).unwrap_or_default() {
        let id = r.id();
        if changed.contains(&id) && before.get(&id) != Some(&r.watch_hash()) {
            m.changed.insert(id);
        }
    }
    HeadMerge::Done(merged)
}

/// What one page of a refresh led to.
#[derive(Debug)]
pub enum HeadMerge {
    /// The re-read goes on with this request.
    Next(super::command::Command),
    /// It was merged.
    Done(Merged),
    /// It failed (said in the footer), or nothing was under way.
    Failed,
}

/// Before a reload's walk (of `generation`) takes the place of the rows on screen: remembers
/// them, to compare the new walk's rows with them.
pub fn before_reload<T: Watched + Clone + PartialEq, F: TabFilter>(
    t: &mut TabState<T, F>,
    generation: u64,
) {
    let before = t
        .rows()
        .iter()
        .map(|r| (r.id(), r.watch_hash()))
        .collect::<HashMap<_, _>>();
    let m = &mut t.marks;
    m.replace(generation);
    m.reload = (!before.is_empty()).then(|| ReloadDiff {
        before,
        ..ReloadDiff::default()
    });
}

/// "Since you last looked": compares the walk under way with what the same view had loaded
/// when convo last quit (ids and watch hashes), as a reload is compared with the rows before
/// it; the rows already loaded are compared at once.
pub fn since_look<T: Watched + Clone + PartialEq, F: TabFilter>(
    t: &mut TabState<T, F>,
    before: HashMap<Uuid, u64>,
) {
    if before.is_empty() {
        return;
    }
    let m = &mut t.marks;
    m.replace(t.generation);
    m.reload = Some(ReloadDiff {
        before,
        ..ReloadDiff::default()
    });
    after_page(t, 0);
}

/// After a page of the walk was applied: `start` is where its rows begin. Compares them with
/// the rows before a reload, if one is being compared.
pub fn after_page<T: Watched + Clone + PartialEq, F: TabFilter>(
    t: &mut TabState<T, F>,
    start: usize,
) {
    let m = &mut t.marks;
    if m.generation != t.generation {
        m.reload = None;
        return;
    }
    let Some(diff) = m.reload.as_mut() else {
        return;
    };
    for r in t.pager.rows().get(start..).unwrap_or_default() {
        let id = r.id();
        match diff.before.get(&id) {
            Some(h) => {
                diff.matched += 1;
                if *h != r.watch_hash() {
                    m.changed.insert(id);
                }
                m.new.extend(diff.pending.drain(..));
            }
            None => diff.pending.push(id),
        }
    }
    if diff.matched >= diff.before.len() || t.pager.is_done() {
        m.reload = None;
    }
}

/// The selection moved (key or mouse): the mark of the row now selected goes.
pub fn selected<T: Watched + Clone + PartialEq, F: TabFilter>(t: &mut TabState<T, F>) {
    if let Some(id) = t.selected_row().map(Row::id) {
        t.marks.seen(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Limit, Resource};
    use crate::tui::testing::{AGENT_B, conversation, page};

    fn tab() -> TabState<Conversation, crate::api::ConversationFilter> {
        TabState::new(
            Resource::Conversations,
            Default::default(),
            Limit::new(10).unwrap_or(Limit::DEFAULT),
        )
    }

    #[test]
    fn a_reload_marks_rows_before_a_known_one_as_new_and_changed_ones() {
        let rows: Vec<Conversation> = (0..20).map(conversation).collect();
        let mut t = tab();
        let _ = t.next_fetch(5, Limit::DEFAULT);
        t.apply(Ok(page(&rows, 0, 10)), 5);
        let next = t.generation + 1;
        before_reload(&mut t, next);
        let _ = t.restart(true);
        let mut fresh: Vec<Conversation> = (100..102).map(conversation).collect();
        fresh.extend(rows.iter().cloned());
        assert_eq!(fresh[4].assignee_id, Some(AGENT_B));
        fresh[4].assignee_id = None; // row 2
        fresh[5].updated_at = fresh[6].updated_at.clone(); // not watched
        let _ = t.next_fetch(5, Limit::DEFAULT);
        let start = t.rows().len();
        t.apply(Ok(page(&fresh, 0, 10)), 5);
        after_page(&mut t, start);
        let g = t.generation;
        assert_eq!(t.marks.counts(g), (2, 1));
        assert_eq!(t.marks.mark(g, &fresh[0].id), Some(Mark::New));
        assert_eq!(t.marks.mark(g, &fresh[4].id), Some(Mark::Changed));
        assert_eq!(t.marks.mark(g, &fresh[5].id), None);
        assert_eq!(t.marks.mark(g + 1, &fresh[0].id), None, "another walk");
    }
}
