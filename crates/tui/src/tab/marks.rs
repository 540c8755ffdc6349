//! A tab's walk feeding its change marks ([`crate::marks`]): a refresh's merged first
//! page, a reload compared with the rows before it, "since you last looked", and the row
//! selected.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use super::{HeadStep, TabFilter, TabState};
use crate::command::Command;
use crate::marks::Watched;
use convo_api::{ApiError, Conversation, Page, Row};
use convo_engine::pager::Merged;

/// What a tab has loaded, as "since you last looked" keeps it: the first
/// [`convo_store::looks::LOOK_CAP`] rows' ids and watched fields, under the view's key.
pub fn look_of<T: Watched + Clone + PartialEq, F: TabFilter>(
    t: &TabState<T, F>,
    key: String,
) -> Option<Command> {
    let rows: Vec<convo_store::LookRow> = t
        .rows()
        .iter()
        .take(convo_store::looks::LOOK_CAP)
        .map(|r| convo_store::LookRow {
            id: r.id(),
            watched: r.watch_hash(),
        })
        .collect();
    (!rows.is_empty()).then_some(Command::KeepLook { key, rows })
}

/// The store key of the Conversations tab's view ("since you last looked", trend samples):
/// its filters as the query they send, or a union's query text.
pub fn look_key_of(t: &TabState<Conversation, convo_api::ConversationFilter>) -> String {
    // A union's rows are the query's, not the (empty) filters': its key is its text.
    match &t.union {
        Some(_) => format!("query:{}", t.query),
        None => crate::names::look_key(&t.filter),
    }
}

/// The store key of the Visitors tab's view ("since you last looked"): its filters as the
/// query they send, or a union's query text (apart from the Conversations tab's keys).
pub fn visitors_look_key_of(t: &TabState<convo_api::Visitor, convo_api::VisitorFilter>) -> String {
    use convo_api::ListFilter;
    match &t.union {
        Some(_) => format!("visitors query:{}", t.query),
        None => {
            let q: Vec<String> = t
                .filter
                .query_pairs()
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            format!("visitors?{}", q.join("&"))
        }
    }
}

/// The store key of `tab`'s view in `app`.
pub fn look_key(app: &crate::app::App, tab: convo_api::Resource) -> String {
    match tab {
        convo_api::Resource::Conversations => look_key_of(&app.conversations),
        convo_api::Resource::Visitors => visitors_look_key_of(&app.visitors),
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
    HeadMerge::Done(merge_ready(t, body))
}

/// Merges the tab's finished re-read into its rows and marks what is new or changed (rows
/// that left take their marks with them).
pub fn merge_ready<T: Watched + Clone + PartialEq, F: TabFilter>(
    t: &mut TabState<T, F>,
    body: usize,
) -> Merged {
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
    let live = merged.live_from..merged.live_from + merged.live;
    let rows = t.walk.rows().get(live).unwrap_or_default();
    t.marks.merged(t.generation(), &merged, &before, rows);
    merged
}

/// What one page of a refresh led to.
#[derive(Debug)]
pub enum HeadMerge {
    /// The re-read goes on with this request.
    Next(Command),
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
    t.marks.compare_with(generation, before);
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
    t.marks.compare_with(t.generation(), before);
    after_page(t, 0);
}

/// After a page of the walk was applied: `start` is where its rows begin. Compares them with
/// the rows before a reload, if one is being compared.
pub fn after_page<T: Watched + Clone + PartialEq, F: TabFilter>(
    t: &mut TabState<T, F>,
    start: usize,
) {
    let rows = t.walk.rows().get(start..).unwrap_or_default();
    t.marks.arrived(t.generation(), rows, t.walk.is_done());
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
    use crate::marks::Mark;
    use crate::testing::{AGENT_B, conversation, page};
    use convo_api::{Limit, Resource};

    fn tab() -> TabState<Conversation, convo_api::ConversationFilter> {
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
        t.apply(t.generation(), Ok(page(&rows, 0, 10)), 5);
        let next = t.generation() + 1;
        before_reload(&mut t, next);
        let _ = t.restart(true);
        let mut fresh: Vec<Conversation> = (100..102).map(conversation).collect();
        fresh.extend(rows.iter().cloned());
        assert_eq!(fresh[4].assignee_id, Some(AGENT_B));
        fresh[4].assignee_id = None; // row 2
        fresh[5].updated_at = fresh[6].updated_at.clone(); // not watched
        let _ = t.next_fetch(5, Limit::DEFAULT);
        let start = t.rows().len();
        t.apply(t.generation(), Ok(page(&fresh, 0, 10)), 5);
        after_page(&mut t, start);
        let g = t.generation();
        assert_eq!(t.marks.counts(g), (2, 1));
        assert_eq!(t.marks.mark(g, &fresh[0].id), Some(Mark::New));
        assert_eq!(t.marks.mark(g, &fresh[4].id), Some(Mark::Changed));
        assert_eq!(t.marks.mark(g, &fresh[5].id), None);
        assert_eq!(t.marks.mark(g + 1, &fresh[0].id), None, "another walk");
    }
}
