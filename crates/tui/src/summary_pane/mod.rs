//! The summary pane (`S`, issue 7): the Conversations tab's loaded walk counted by status,
//! site or assignee, like VisiData's frequency table; Enter on a bucket filters the tab by it
//! (server-side, with Back history).
//!
//! The buckets are recomputed only when the rows change (a page, a refresh, a new walk), the
//! grouping changes, or the minute turns (ages and staleness); never per frame. How keys
//! change it: [`update`].

pub mod update;

use super::tab::TabState;
use convo_api::{Conversation, ConversationFilter};
pub use convo_commands::summary::{Bucket, By, DEFAULT_STALE_AFTER_SECS, Key, Summary};

/// The next or previous grouping, as Tab and Shift-Tab cycle them.
pub(crate) fn cycle(by: By, step: isize) -> By {
    let i = By::ALL.iter().position(|b| *b == by).unwrap_or(0) as isize;
    By::ALL[(i + step).rem_euclid(By::ALL.len() as isize) as usize]
}

/// What the counts were made from. Rows only appended since (the next page) are added to the
/// counts; anything else (a new walk, a refresh that changed rows in place, the minute turning,
/// which moves ages and staleness) counts the rows again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Source {
    generation: u64,
    revision: u64,
    minute: i64,
    stale_after_secs: i64,
}

/// The pane's state.
#[derive(Debug, Clone)]
pub struct SummaryPane {
    pub by: By,
    pub selected: usize,
    /// The buckets of `by`, largest first, with their labels (aliases used; not sanitised:
    /// the view fits them).
    pub buckets: Vec<(Bucket, String)>,
    summary: Summary,
    source: Option<Source>,
    /// Rows of the tab already in `summary`.
    counted: usize,
    /// Response-time targets counted against (`None`: none set).
    sla: Option<std::sync::Arc<convo_engine::sla::Sla>>,
}

impl SummaryPane {
    /// An empty pane grouped by status; [`SummaryPane::refresh`] counts the rows.
    pub fn new(now: jiff::Timestamp, stale_after_secs: i64) -> SummaryPane {
        let summary = Summary::new(now, stale_after_secs);
        SummaryPane {
            by: By::Status,
            selected: 0,
            buckets: Vec::new(),
            summary,
            source: None,
            counted: 0,
            sla: None,
        }
    }

    /// Also counts imminent and breaching conversations and the wait-time bars against these
    /// targets (when any is set).
    pub fn with_sla(mut self, sla: std::sync::Arc<convo_engine::sla::Sla>) -> SummaryPane {
        if !sla.is_empty() {
            self.summary = Summary::new(self.summary.now(), self.summary.stale_after_secs())
                .with_sla(sla.clone());
            self.sla = Some(sla);
        }
        self
    }

    /// Whether first-response targets are counted.
    pub fn tracks_first_response(&self) -> bool {
        self.sla
            .as_ref()
            .is_some_and(|s| s.is_tracked(convo_engine::sla::Target::FirstResponse))
    }

    /// The counts behind the table.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// All rows counted as one bucket (its key is meaningless).
    pub fn all(&self) -> Bucket {
        self.summary.total()
    }

    /// Rows counted.
    pub fn total(&self) -> usize {
        self.summary.coverage().loaded as usize
    }

    /// Brings the counts up to date with the tab's rows: the new rows only, or all of them
    /// again when the walk, the rows in place or the minute changed. Cheap when nothing
    /// changed; true when the counts changed.
    pub fn refresh(
        &mut self,
        t: &TabState<Conversation, ConversationFilter>,
        now: jiff::Timestamp,
        stale_after_secs: i64,
        aliases: &convo_config::Aliases,
    ) -> bool {
        let rows = t.rows();
        let src = Source {
            generation: t.generation(),
            revision: t.marks().revision(),
            minute: now.as_second().div_euclid(60),
            stale_after_secs,
        };
        if self.source == Some(src) && self.counted == rows.len() {
            return false;
        }
        if self.source != Some(src) || self.counted > rows.len() {
            self.summary = Summary::new(now, stale_after_secs);
            if let Some(sla) = &self.sla {
                self.summary = self.summary.clone().with_sla(sla.clone());
            }
            self.counted = 0;
        }
        for c in &rows[self.counted..] {
            self.summary.add(c);
        }
        self.counted = rows.len();
        self.summary.set_more_available(!t.walk().is_done());
        self.source = Some(src);
        self.regroup(aliases);
        true
    }

    /// The grouping's buckets again, from the counts (no recount).
    pub(crate) fn regroup(&mut self, app_aliases: &convo_config::Aliases) {
        self.buckets = self
            .summary
            .buckets(self.by)
            .into_iter()
            .map(|b| {
                let label = b.key.label(app_aliases, convo_api::short_id);
                (b, label)
            })
            .collect();
        self.selected = self.selected.min(self.buckets.len().saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{self, AGENT_A, SITE_A, conversation};
    use convo_api::{Assignee, Conversation, ConversationFilter, Status};

    fn pane_of(rows: &[Conversation], by: By, stale_after_secs: i64) -> SummaryPane {
        let app = testing::app(120, 40, 50);
        let mut p = SummaryPane::new(app.now(), stale_after_secs);
        for c in rows {
            p.summary.add(c);
        }
        p.by = by;
        p.regroup(&testing::aliases());
        p
    }

    #[test]
    fn buckets_count_sort_and_age() {
        let rows: Vec<Conversation> = (0..12).map(conversation).collect();
        let p = pane_of(&rows, By::Assignee, 3600);
        let counts: Vec<u64> = p.buckets.iter().map(|(b, _)| b.count).collect();
        assert_eq!(counts, [6, 3, 3]);
        assert_eq!(p.buckets[0].1, "unassigned");
        assert_eq!(p.buckets[0].0.key, Key::Assignee(None));
        assert_eq!(p.total(), 12);
        assert_eq!(
            p.buckets[0]
                .0
                .key
                .filter(&Default::default())
                .map(|f| f.assignee),
            Some(Assignee::Unassigned)
        );
        let site = Key::Site(SITE_A).filter(&ConversationFilter {
            assignee: Assignee::Agent(AGENT_A),
            ..Default::default()
        });
        assert_eq!(site.as_ref().and_then(|f| f.site_id), Some(SITE_A));
        assert_eq!(site.map(|f| f.assignee), Some(Assignee::Agent(AGENT_A)));
        // the oldest unassigned: row 11, 78 minutes old
        let b = &p.buckets[0].0;
        assert_eq!(b.oldest_age.map(|s| s / 60), Some(78));
        assert!(b.median_age.is_some());
        assert!(
            Key::Status(Status::Other("x".into()))
                .filter(&Default::default())
                .is_none()
        );
    }
}
