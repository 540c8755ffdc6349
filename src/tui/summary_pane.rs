//! The summary pane (`S`, issue 7): the Conversations tab's loaded walk counted by status,
//! site or assignee, like VisiData's frequency table; Enter on a bucket filters the tab by it
//! (server-side, with Back history).
//!
//! The buckets are recomputed only when the rows change (a page, a refresh, a new walk), the
//! grouping changes, or the minute turns (ages and staleness); never per frame.

use crossterm::event::{KeyCode, KeyEvent};
use uuid::Uuid;

use super::app::{App, Overlay};
use super::command::Command;
use crate::api::{Assignee, Conversation, ConversationFilter, Status};
use crate::config::Aliases;
use crate::tui::format::id_label;

/// The default `stale_after`: a conversation not closed and not updated for this long is stale.
pub const DEFAULT_STALE_AFTER_SECS: u64 = 2 * 3600;

/// What the buckets group by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Status,
    Site,
    Assignee,
}

impl By {
    /// All groupings, in the order Tab cycles them.
    pub const ALL: [By; 3] = [By::Status, By::Site, By::Assignee];

    pub fn name(self) -> &'static str {
        match self {
            By::Status => "status",
            By::Site => "site",
            By::Assignee => "assignee",
        }
    }

    fn next(self, step: isize) -> By {
        let i = By::ALL.iter().position(|b| *b == self).unwrap_or(0) as isize;
        By::ALL[(i + step).rem_euclid(By::ALL.len() as isize) as usize]
    }
}

/// What a bucket holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BucketKey {
    Status(Status),
    Site(Uuid),
    /// `None`: unassigned.
    Assignee(Option<Uuid>),
}

impl BucketKey {
    /// The tab's filter narrowed to this bucket (the other filters kept); `None` when the
    /// service has no such filter (a status it does not name).
    pub fn filter(&self, base: &ConversationFilter) -> Option<ConversationFilter> {
        let mut f = base.clone();
        match self {
            BucketKey::Status(Status::Other(_)) => return None,
            BucketKey::Status(s) => f.status = Some(s.clone()),
            BucketKey::Site(id) => f.site_id = Some(*id),
            BucketKey::Assignee(None) => f.assignee = Assignee::Unassigned,
            BucketKey::Assignee(Some(id)) => f.assignee = Assignee::Agent(*id),
        }
        Some(f)
    }

    /// The label shown (aliases used; not yet sanitised: the view fits it).
    pub fn label(&self, aliases: &Aliases) -> String {
        match self {
            BucketKey::Status(s) => s.as_str().to_string(),
            BucketKey::Site(id) => id_label(aliases, id),
            BucketKey::Assignee(None) => "unassigned".into(),
            BucketKey::Assignee(Some(id)) => id_label(aliases, id),
        }
    }
}

/// One line of the frequency table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bucket {
    pub key: BucketKey,
    pub label: String,
    pub count: usize,
    /// The oldest and the median `createdAt` (rows with an unreadable time left out).
    pub oldest: Option<jiff::Timestamp>,
    pub median: Option<jiff::Timestamp>,
    /// Rows not closed whose `updatedAt` is older than `stale_after`.
    pub stale: usize,
}

/// Groups `rows`: buckets sorted by count (largest first), then label.
pub fn buckets(
    rows: &[Conversation],
    by: By,
    aliases: &Aliases,
    now: jiff::Timestamp,
    stale_after_secs: u64,
) -> Vec<Bucket> {
    let mut groups: std::collections::HashMap<BucketKey, (usize, Vec<jiff::Timestamp>, usize)> =
        std::collections::HashMap::new();
    let cutoff = now.as_second().saturating_sub(stale_after_secs as i64);
    for c in rows {
        let key = match by {
            By::Status => BucketKey::Status(c.status.clone()),
            By::Site => BucketKey::Site(c.site_id),
            By::Assignee => BucketKey::Assignee(c.assignee_id),
        };
        let g = groups.entry(key).or_default();
        g.0 += 1;
        if let Some(t) = c.created_at.parsed() {
            g.1.push(t);
        }
        if c.status != Status::Closed
            && c.updated_at
                .parsed()
                .is_some_and(|u| u.as_second() < cutoff)
        {
            g.2 += 1;
        }
    }
    let mut out: Vec<Bucket> = groups
        .into_iter()
        .map(|(key, (count, mut created, stale))| {
            created.sort_unstable();
            Bucket {
                label: key.label(aliases),
                key,
                count,
                oldest: created.first().copied(),
                median: created.get(created.len().saturating_sub(1) / 2).copied(),
                stale,
            }
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.label.cmp(&b.label)));
    out
}

/// What the buckets were computed from; when it changes they are computed again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Source {
    generation: u64,
    rows: usize,
    revision: u64,
    by: By,
    minute: i64,
}

/// The pane's state.
#[derive(Debug, Clone)]
pub struct SummaryPane {
    pub by: By,
    pub selected: usize,
    pub buckets: Vec<Bucket>,
    /// Rows counted.
    pub total: usize,
    source: Option<Source>,
}

impl SummaryPane {
    fn new() -> SummaryPane {
        SummaryPane {
            by: By::Status,
            selected: 0,
            buckets: Vec::new(),
            total: 0,
            source: None,
        }
    }
}

/// `S`: opens the pane (Conversations only).
pub fn open(app: &mut App) {
    if app.active != crate::api::Resource::Conversations {
        app.say("the summary is for conversations: press 1 for that tab, then S");
        return;
    }
    app.overlay = Overlay::Summary(Box::new(SummaryPane::new()));
    refresh(app);
}

/// Computes the buckets again if the rows, the grouping or the minute changed.
pub fn refresh(app: &mut App) {
    let Overlay::Summary(p) = &mut app.overlay else {
        return;
    };
    let t = &app.conversations;
    let src = Source {
        generation: t.generation,
        rows: t.rows().len(),
        revision: t.marks.revision(),
        by: p.by,
        minute: app.now.as_second().div_euclid(60),
    };
    if p.source == Some(src) {
        return;
    }
    p.source = Some(src);
    p.buckets = buckets(t.rows(), p.by, &app.aliases, app.now, app.stale_after_secs);
    p.total = t.rows().len();
    p.selected = p.selected.min(p.buckets.len().saturating_sub(1));
    app.dirty = true;
}

/// A key while the pane is open.
pub fn on_key(app: &mut App, k: KeyEvent, cmds: &mut Vec<Command>) {
    let Overlay::Summary(p) = &mut app.overlay else {
        return;
    };
    let n = p.buckets.len();
    match k.code {
        KeyCode::Esc if app.conversations.load_all => {
            app.conversations.load_all = false;
            app.say("stopped loading all pages");
        }
        KeyCode::Esc | KeyCode::Char('S') => app.overlay = Overlay::None,
        KeyCode::Char('q') => cmds.push(Command::Quit),
        KeyCode::Down | KeyCode::Char('j') => {
            p.selected = (p.selected + 1).min(n.saturating_sub(1))
        }
        KeyCode::Up | KeyCode::Char('k') => p.selected = p.selected.saturating_sub(1),
        KeyCode::Home | KeyCode::Char('g') => p.selected = 0,
        KeyCode::End | KeyCode::Char('G') => p.selected = n.saturating_sub(1),
        KeyCode::Tab | KeyCode::Char('b') => {
            p.by = p.by.next(1);
            p.selected = 0;
        }
        KeyCode::BackTab => {
            p.by = p.by.next(-1);
            p.selected = 0;
        }
        KeyCode::Char('L') => {
            let t = &mut app.conversations;
            t.load_all = true;
            t.error = None;
        }
        KeyCode::Enter => {
            let Some((key, label)) = p
                .buckets
                .get(p.selected)
                .map(|b| (b.key.clone(), b.label.clone()))
            else {
                return;
            };
            match key.filter(&app.conversations.filter) {
                None => app.say(format!(
                    "the service has no filter for status {:?}",
                    crate::text::one_line(&label, 40)
                )),
                Some(f) => {
                    app.overlay = Overlay::None;
                    match app.conversations.set_filter(f) {
                        Some(c) => cmds.push(c),
                        None => app.say("filters unchanged"),
                    }
                }
            }
        }
        _ => {}
    }
    refresh(app);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::testing::{AGENT_A, SITE_A, aliases, conversation, now};

    #[test]
    fn buckets_count_sort_and_age() {
        let rows: Vec<Conversation> = (0..12).map(conversation).collect();
        let b = buckets(&rows, By::Assignee, &aliases(), now(), 3600);
        let counts: Vec<usize> = b.iter().map(|b| b.count).collect();
        assert_eq!(counts, [6, 3, 3]);
        assert_eq!(b[0].label, "unassigned");
        assert_eq!(b[2].label, "Ana (EU desk)", "same count: by label");
        assert_eq!(
            b[0].key.filter(&Default::default()).map(|f| f.assignee),
            Some(Assignee::Unassigned)
        );
        let site = BucketKey::Site(SITE_A).filter(&ConversationFilter {
            assignee: Assignee::Agent(AGENT_A),
            ..Default::default()
        });
        assert_eq!(site.as_ref().and_then(|f| f.site_id), Some(SITE_A));
        assert_eq!(site.map(|f| f.assignee), Some(Assignee::Agent(AGENT_A)));
        // oldest of the unassigned: row 11 (78 min), median: row 4 or 7
        let age = |t: Option<jiff::Timestamp>| t.map(|t| (now().as_second() - t.as_second()) / 60);
        assert_eq!(age(b[0].oldest), Some(78));
        assert_eq!(age(b[0].median), Some(50));
        assert!(
            BucketKey::Status(Status::Other("x".into()))
                .filter(&Default::default())
                .is_none()
        );
    }
}
