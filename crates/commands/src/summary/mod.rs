//! Supervisor summaries of conversations (issue 7): counts by status, site or assignee, with
//! share, ages and staleness, accumulated one row at a time.
//!
//! - this module: the arithmetic. Pure: no I/O, no UI, `now` is a parameter.
//! - [`histogram`]: the bounded age histogram behind the medians.
//! - [`report`]: the summary as JSON or CSV, and the legend (pure, returns strings).
//! - [`table`]: the summary as an aligned table, fitted to a terminal (pure).
//! - [`prometheus`]: the summary in the Prometheus text format (pure).
//! - [`command`]: `convo summary conversations`, which walks the list into a [`Summary`].
//! - [`views`]: every view (built-in and `[[views]]`) walked for its counts, one report each.
//!
//! Memory is proportional to the number of buckets, never to the rows: each bucket holds
//! counters, the oldest timestamps and an [`AgeHistogram`], and each grouping holds at most
//! [`MAX_BUCKETS`] buckets (further values share one overflow bucket), so a server that sends a
//! new status on every row cannot grow it either. The summary never claims a total it has not
//! seen: [`Coverage`] says "all N" only after the caller has said the walk is complete.

pub use convo_text::thousands;

pub mod command;
pub mod histogram;
pub mod options;
mod pages;
pub mod prometheus;
pub mod query;
pub mod report;
pub mod table;
pub mod views;
pub mod views_command;
pub mod views_output;
mod walked;

use std::collections::HashMap;

use uuid::Uuid;

use std::sync::Arc;

use convo_api::{Assignee, Conversation, ConversationFilter, Status};
use convo_config::Aliases;
use convo_engine::sla::{Sla, State};
pub use histogram::AgeHistogram;

pub use convo_config::ui::DEFAULT_STALE_AFTER_SECS;

/// Buckets kept per grouping; rows with further values are counted in [`Key::Overflow`].
pub const MAX_BUCKETS: usize = 256;

/// What the buckets group by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum By {
    #[default]
    Status,
    Site,
    Assignee,
}

impl By {
    /// All groupings, in the order a UI would cycle them.
    pub const ALL: [By; 3] = [By::Status, By::Site, By::Assignee];

    /// The lower-case name, as on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            By::Status => "status",
            By::Site => "site",
            By::Assignee => "assignee",
        }
    }

    fn slot(self) -> usize {
        self as usize
    }

    fn key_of(self, c: &Conversation) -> Key {
        match self {
            By::Status => Key::Status(c.status.clone()),
            By::Site => Key::Site(c.site_id),
            By::Assignee => Key::Assignee(c.assignee_id),
        }
    }
}

/// What a bucket holds. Ordered so that ties in count sort the same way every time.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A status; unknown ones verbatim (sanitise before printing).
    Status(Status),
    Site(Uuid),
    /// `None`: unassigned.
    Assignee(Option<Uuid>),
    /// Values beyond [`MAX_BUCKETS`] distinct ones, counted together.
    Overflow,
}

impl Key {
    /// `base` narrowed to this bucket, the other filters kept; `None` when the service has no
    /// such filter (a status it does not name, the overflow bucket).
    pub fn filter(&self, base: &ConversationFilter) -> Option<ConversationFilter> {
        let mut f = base.clone();
        match self {
            Key::Status(Status::Other(_)) | Key::Overflow => return None,
            Key::Status(s) => f.status = Some(s.clone()),
            Key::Site(id) => f.site_id = Some(*id),
            // docs/design.md "Query parameters": one Assignee control; unassigned=true, never with assignee_id.
            Key::Assignee(None) => f.assignee = Assignee::Unassigned,
            Key::Assignee(Some(id)) => f.assignee = Assignee::Agent(*id),
        }
        Some(f)
    }

    /// `q` narrowed to this bucket: its terms of the bucket's field replaced by the bucket's
    /// value, the others kept; `None` for the overflow bucket.
    pub fn query(&self, q: &convo_query::query::Query) -> Option<convo_query::query::Query> {
        use convo_query::query::{AssigneeRef, NameRef, Pred, Term};
        let (field, pred) = match self {
            Key::Status(s) => ("status", Pred::Status(vec![s.clone()])),
            Key::Site(id) => ("site", Pred::Site(vec![NameRef::Id(*id)])),
            Key::Assignee(None) => ("assignee", Pred::Assignee(vec![AssigneeRef::None])),
            Key::Assignee(Some(id)) => ("assignee", Pred::Assignee(vec![AssigneeRef::Id(*id)])),
            Key::Overflow => return None,
        };
        let mut out = q.clone();
        out.terms.retain(|t| t.pred.field() != field);
        out.terms.push(Term::new(false, pred));
        Some(out)
    }

    /// The machine form: the status as sent, the full UUID; `None` for unassigned and overflow.
    pub fn id(&self) -> Option<String> {
        match self {
            Key::Status(s) => Some(s.as_str().to_string()),
            Key::Site(id) | Key::Assignee(Some(id)) => Some(id.to_string()),
            Key::Assignee(None) | Key::Overflow => None,
        }
    }

    /// The name for people: the alias of a site or agent if the config has one, else `short`
    /// applied to the UUID. Not sanitised (server text): the formatter does that.
    pub fn label(&self, aliases: &Aliases, short: fn(&Uuid) -> String) -> String {
        match self {
            Key::Status(s) => s.as_str().to_string(),
            Key::Site(id) | Key::Assignee(Some(id)) => match aliases.name(id) {
                Some(name) => name.to_string(),
                None => short(id),
            },
            Key::Assignee(None) => "unassigned".into(),
            Key::Overflow => format!("(more than {MAX_BUCKETS} values)"),
        }
    }
}

/// The counters of one bucket (or of all rows).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Rows counted.
    pub count: u64,
    /// The oldest readable `createdAt`.
    pub oldest_created: Option<jiff::Timestamp>,
    /// Ages (`now - createdAt`) of the rows with a readable `createdAt`.
    pub ages: AgeHistogram,
    /// Rows not closed whose `updatedAt` is older than `stale_after` before `now`.
    pub stale: u64,
    /// Rows open and unassigned: waiting for an agent.
    pub waiting: u64,
    /// The oldest readable `createdAt` of the waiting rows.
    pub oldest_waiting: Option<jiff::Timestamp>,
    /// Rows whose `createdAt` could not be read: counted, left out of the ages.
    pub unreadable_created: u64,
    /// Rows whose `updatedAt` could not be read: counted, never called stale.
    pub unreadable_updated: u64,
    /// Standing against the response-time targets (zero when none are set).
    pub sla: SlaCounts,
}

/// Counts against the response-time targets (see [`convo_engine::sla`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlaCounts {
    /// Waiting rows past `warn_at` of `first_response`, not past it.
    pub imminent: u64,
    /// Waiting rows past `first_response`.
    pub breaching: u64,
    /// The most seconds a waiting row is past `first_response`.
    pub longest_overdue: Option<i64>,
    /// Rows not closed past `warn_at` of `resolution`, not past it.
    pub resolution_imminent: u64,
    /// Rows not closed past `resolution`.
    pub resolution_breaching: u64,
    /// Waiting rows per wait-time bar ([`convo_engine::sla::wait_edges`]): clock time against the
    /// target where one is set, else time since `createdAt`.
    pub waits: [u64; 6],
}

/// What [`Stats::add`] measures against.
struct Measure<'a> {
    now: jiff::Timestamp,
    stale_cutoff: i64,
    sla: Option<&'a Sla>,
    edges: [i64; 5],
}

impl Stats {
    fn add(&mut self, c: &Conversation, m: &Measure<'_>) {
        let (now, stale_cutoff) = (m.now, m.stale_cutoff);
        self.count += 1;
        let waiting = c.status == Status::Open && c.assignee_id.is_none();
        if waiting {
            self.waiting += 1;
        }
        match c.created_at.parsed() {
            Some(t) => {
                self.ages.add(now.as_second() - t.as_second());
                older(&mut self.oldest_created, t);
                if waiting {
                    older(&mut self.oldest_waiting, t);
                }
            }
            None => self.unreadable_created += 1,
        }
        match c.updated_at.parsed() {
            // A closed conversation is not waiting for anyone, however old its last update.
            Some(u) if c.status != Status::Closed && u.as_second() < stale_cutoff => {
                self.stale += 1
            }
            Some(_) => {}
            None => self.unreadable_updated += 1,
        }
        let Some(sla) = m.sla else { return };
        let first = sla.first_response(c, now);
        if let Some(d) = first {
            match d.state {
                State::Ok => {}
                State::Imminent => self.sla.imminent += 1,
                State::Breaching => {
                    self.sla.breaching += 1;
                    let over = d.due_secs.saturating_neg();
                    if self.sla.longest_overdue.is_none_or(|o| over > o) {
                        self.sla.longest_overdue = Some(over);
                    }
                }
            }
        }
        if waiting {
            let wait = first.map(|d| d.elapsed_secs).or_else(|| {
                c.created_at
                    .parsed()
                    .map(|t| (now.as_second() - t.as_second()).max(0))
            });
            if let Some(w) = wait {
                self.sla.waits[convo_engine::sla::wait_bin(w, &m.edges)] += 1;
            }
        }
        match sla.resolution(c, now).map(|d| d.state) {
            Some(State::Imminent) => self.sla.resolution_imminent += 1,
            Some(State::Breaching) => self.sla.resolution_breaching += 1,
            _ => {}
        }
    }
}

fn older(slot: &mut Option<jiff::Timestamp>, t: jiff::Timestamp) {
    if slot.is_none_or(|o| t < o) {
        *slot = Some(t);
    }
}

/// One line of a summary, computed from a bucket's [`Stats`].
#[derive(Debug, Clone, PartialEq)]
pub struct Bucket {
    pub key: Key,
    pub count: u64,
    /// Share of the rows counted, 0.0..=1.0.
    pub share: f64,
    /// Seconds from the oldest readable `createdAt` to `now`.
    pub oldest_age: Option<i64>,
    /// The median age in seconds, within the bound of [`histogram`].
    pub median_age: Option<i64>,
    pub stale: u64,
    pub waiting: u64,
    /// Seconds from the oldest waiting row's `createdAt` to `now` ("oldest unassigned open").
    pub oldest_waiting_age: Option<i64>,
    pub unreadable_created: u64,
    pub unreadable_updated: u64,
    /// Standing against the response-time targets.
    pub sla: SlaCounts,
}

impl Bucket {
    fn new(key: Key, s: &Stats, total: u64, now: jiff::Timestamp) -> Bucket {
        let age = |t: Option<jiff::Timestamp>| t.map(|t| now.as_second() - t.as_second());
        Bucket {
            key,
            count: s.count,
            share: if total == 0 {
                0.0
            } else {
                s.count as f64 / total as f64
            },
            oldest_age: age(s.oldest_created),
            median_age: s.ages.median(),
            stale: s.stale,
            waiting: s.waiting,
            oldest_waiting_age: age(s.oldest_waiting),
            unreadable_created: s.unreadable_created,
            unreadable_updated: s.unreadable_updated,
            sla: s.sla.clone(),
        }
    }

    /// `base` narrowed to this bucket (see [`Key::filter`]).
    pub fn filter(&self, base: &ConversationFilter) -> Option<ConversationFilter> {
        self.key.filter(base)
    }
}

/// How much of the walk a summary covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coverage {
    /// Rows counted.
    pub loaded: u64,
    /// The walk reached the end of the list.
    pub complete: bool,
    /// Rows the service sent that could not be read (not counted).
    pub unreadable_rows: u64,
}

impl std::fmt::Display for Coverage {
    /// "all 1,234 conversations", or "1,200 of ≥1,200 loaded; more available".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = thousands(self.loaded);
        if self.complete {
            write!(f, "all {n} conversations")?;
        } else {
            write!(f, "{n} of ≥{n} loaded; more available")?;
        }
        if self.unreadable_rows > 0 {
            write!(
                f,
                "; {} unreadable rows not counted",
                thousands(self.unreadable_rows)
            )?;
        }
        Ok(())
    }
}

/// Counts conversations by status, site and assignee at once (so a UI can switch grouping
/// without walking again), one row at a time.
#[derive(Debug, Clone)]
pub struct Summary {
    now: jiff::Timestamp,
    stale_after_secs: i64,
    groups: [HashMap<Key, Stats>; 3],
    total: Stats,
    more_available: bool,
    unreadable_rows: u64,
    sla: Option<Arc<Sla>>,
    wait_edges: [i64; 5],
}

impl Summary {
    /// An empty summary: ages are measured to `now`; a row not closed is stale after
    /// `stale_after_secs` without an update. It claims more may exist until told otherwise.
    pub fn new(now: jiff::Timestamp, stale_after_secs: i64) -> Summary {
        Summary {
            now,
            stale_after_secs,
            groups: Default::default(),
            total: Stats::default(),
            more_available: true,
            unreadable_rows: 0,
            sla: None,
            wait_edges: convo_engine::sla::wait_edges(None, convo_engine::sla::DEFAULT_WARN_AT),
        }
    }

    /// Also counts each row's standing against these targets (before any row is added).
    pub fn with_sla(mut self, sla: Arc<Sla>) -> Summary {
        self.wait_edges = convo_engine::sla::wait_edges(sla.base.first_response, sla.base.warn_at);
        self.sla = Some(sla);
        self
    }

    /// The targets counted against, if any.
    pub fn sla(&self) -> Option<&Sla> {
        self.sla.as_deref()
    }

    /// The edges of the wait-time bars ([`convo_engine::sla::wait_edges`]).
    pub fn wait_edges(&self) -> [i64; 5] {
        self.wait_edges
    }

    /// Counts one conversation (the caller de-duplicates; the pager does).
    pub fn add(&mut self, c: &Conversation) {
        let m = Measure {
            now: self.now,
            stale_cutoff: self.now.as_second().saturating_sub(self.stale_after_secs),
            sla: self.sla.as_deref(),
            edges: self.wait_edges,
        };
        self.total.add(c, &m);
        for by in By::ALL {
            let group = &mut self.groups[by.slot()];
            let key = by.key_of(c);
            let key = if group.len() >= MAX_BUCKETS && !group.contains_key(&key) {
                Key::Overflow
            } else {
                key
            };
            group.entry(key).or_default().add(c, &m);
        }
    }

    /// Says whether rows beyond those added exist (the walk was cut short) or not (it ended).
    pub fn set_more_available(&mut self, more: bool) {
        self.more_available = more;
    }

    /// Counts rows the service sent that could not be read; they are reported, not counted.
    pub fn add_unreadable(&mut self, n: u64) {
        self.unreadable_rows += n;
    }

    pub fn coverage(&self) -> Coverage {
        Coverage {
            loaded: self.total.count,
            complete: !self.more_available,
            unreadable_rows: self.unreadable_rows,
        }
    }

    pub fn now(&self) -> jiff::Timestamp {
        self.now
    }

    pub fn stale_after_secs(&self) -> i64 {
        self.stale_after_secs
    }

    /// The buckets of one grouping: count descending, then key.
    pub fn buckets(&self, by: By) -> Vec<Bucket> {
        let n = self.total.count;
        let mut out: Vec<Bucket> = self.groups[by.slot()]
            .iter()
            .map(|(k, s)| Bucket::new(k.clone(), s, n, self.now))
            .collect();
        out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
        out
    }

    /// All rows counted as one bucket (its key is [`Key::Overflow`]; ignore it).
    pub fn total(&self) -> Bucket {
        Bucket::new(Key::Overflow, &self.total, self.total.count, self.now)
    }
}

pub use convo_config::ui::parse_duration;

#[cfg(test)]
mod tests;
