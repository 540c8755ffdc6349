//! Refreshes: the timer (`Tick`) starts the periodic one, a head re-read is merged into the
//! rows (a union's once all its streams are), and what changed is said on the status line.

use super::answers::{conversations_page, visitors_page};
use super::live;
use crate::app::App;
use crate::command::Command;
use crate::keys::Action;
use crate::message::StatusMessage;
use crate::message::{Life, after};
use crate::msg::Loaded;
pub use crate::refresh_clock::RefreshClock;
use crate::tab::marks;
use crate::watch::update::take_sample;
use crate::{export, notify};
use convo_api::{ApiError, Resource};

/// The refresh period `R` uses when the config sets none.
pub const DEFAULT_REFRESH_SECS: u64 = 30;

pub(super) fn on_tick(app: &mut App, now: jiff::Timestamp, cmds: &mut Vec<Command>) {
    // Redraw only when something on screen depends on the time that passed: relative
    // times change by the minute, countdowns by the second.
    let minute = |t: jiff::Timestamp| t.as_second().div_euclid(60);
    let counting = app.conversations.retry().is_some() || app.visitors.retry().is_some();
    if minute(now) != minute(app.now()) || (counting && now.as_second() != app.now().as_second()) {
        app.mark_dirty();
    }
    app.set_clock(now);
    if app.refresh_clock().due(app.refresh_period(), now) {
        refresh_now(app, cmds);
    }
}

/// Starts a refresh of the tab on screen now (the period's, or a view opened from the board
/// whose read is newer than its rows). Not while an export of the tab is written (its rows
/// must stay where they are), nor while one is under way (the next period starts when it
/// ends). A reload (or profile) whose walk failed behind the rows on screen is tried again
/// instead.
pub fn refresh_now(app: &mut App, cmds: &mut Vec<Command>) {
    if export::update::exporting(app, app.active()) {
        return;
    }
    let (limit, max_pages) = (app.settings().limit(), app.settings().refresh_max_pages());
    let whole = app.active() == Resource::Conversations && app.shows_oldest_first();
    let union = crate::tab_query::refresh(app, app.active(), cmds);
    let (c, retried) = with_tab!(app, app.active(), |t| {
        if union.is_some() {
            (None, false)
        } else if t.next().is_some_and(|n| n.walk.error().is_some()) {
            (Some(t.reload(max_pages, whole)), true)
        } else {
            (t.head_fetch(limit, max_pages, whole), false)
        }
    });
    if retried {
        app.restart_refresh_period();
    }
    cmds.extend(c);
}

impl App {
    /// The refresh period a config's `refresh_secs` sets, and the periodic refresh on with
    /// it (off without), as a session starts.
    pub fn refresh_every(&mut self, secs: Option<u64>) {
        self.settings_mut().use_refresh_secs(secs);
        let on = self.settings().refresh_secs().is_some();
        self.refresh_clock_mut().switch(on);
    }

    /// A refresh ended, failed or started over now: the next period runs from here.
    pub fn restart_refresh_period(&mut self) {
        let now = self.now();
        self.refresh_clock_mut().restart(now);
    }

    /// The period of the periodic refresh when it is on.
    pub fn refresh_period(&self) -> Option<u64> {
        Some(
            self.settings()
                .refresh_secs()
                .unwrap_or(DEFAULT_REFRESH_SECS),
        )
        .filter(|s| *s > 0)
    }
}

pub(super) fn on_head(
    app: &mut App,
    tab: Resource,
    generation: u64,
    result: Result<Loaded, ApiError>,
    cmds: &mut Vec<Command>,
) -> Option<convo_engine::pager::Merged> {
    let body = app.body_height();
    if export::update::exporting(app, tab) {
        // A refresh that began before the export: its merge would move the rows being read.
        with_tab!(app, tab, |t| if t.generation() == generation {
            t.drop_reread()
        });
        app.restart_refresh_period();
        return None;
    }
    let watching = notify::watching(app.settings().views(), app.conversations.filter());
    let step = match tab {
        Resource::Conversations => {
            let t = &mut app.conversations;
            if t.generation() != generation || !t.refreshing() {
                return None;
            }
            let step = marks::merge_head(t, conversations_page(result), body);
            // A watched view rings for every row new in it, whatever the view holds ("My
            // open": conversations just assigned to me).
            if let marks::HeadMerge::Done(m) = &step
                && watching
                && !m.new_ids.is_empty()
            {
                cmds.push(Command::Notify {
                    more: m.new_ids.len(),
                });
            }
            step
        }
        Resource::Visitors => {
            let t = &mut app.visitors;
            if t.generation() != generation || !t.refreshing() {
                return None;
            }
            marks::merge_head(t, visitors_page(result), body)
        }
    };
    let merged = match step {
        marks::HeadMerge::Next(c) => {
            cmds.push(c);
            return None;
        }
        marks::HeadMerge::Done(m) => m,
        marks::HeadMerge::Failed => {
            // The period runs from the end of one re-read to the start of the next.
            app.restart_refresh_period();
            app.mark_dirty();
            return None;
        }
    };
    said_refreshed(app, tab, &merged);
    if tab == Resource::Conversations {
        cmds.extend(live::look_up_held(app, &merged));
    }
    Some(merged)
}

/// For a union tab, its rows to the table and its streams' next requests (a refresh merged
/// when complete); false for a tab of one request's filters.
pub(super) fn pump_union(app: &mut App, tab: Resource, cmds: &mut Vec<Command>) -> bool {
    match crate::tab_query::pump(app, tab, cmds) {
        crate::tab_query::Pumped::NotUnion => false,
        crate::tab_query::Pumped::Union(None) => true,
        crate::tab_query::Pumped::Union(Some(merged)) => {
            union_refreshed(app, tab, &merged, cmds);
            true
        }
    }
}

/// A union tab's refresh was merged: said as a refresh is, and a watched view rings for its
/// new rows.
fn union_refreshed(
    app: &mut App,
    tab: Resource,
    merged: &convo_engine::pager::Merged,
    cmds: &mut Vec<Command>,
) {
    if tab == Resource::Conversations {
        let text = app.conversations.query().to_string();
        let watching = app
            .settings()
            .views()
            .iter()
            .any(|v| v.notify && v.tab == tab && v.query.as_deref() == Some(text.as_str()));
        let more = merged.new_ids.len();
        if watching && more > 0 {
            cmds.push(Command::Notify { more });
        }
        take_sample(app, Some(merged), cmds);
    }
    said_refreshed(app, tab, merged);
}

/// What a merged refresh changed, said on the status line (news that does not cover an
/// error), and the period starts again.
fn said_refreshed(app: &mut App, tab: Resource, merged: &convo_engine::pager::Merged) {
    app.restart_refresh_period();
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut said = Vec::new();
    if !merged.new_ids.is_empty() {
        let n = merged.new_ids.len();
        said.push(format!("{n} new row{}", plural(n)));
    }
    said.extend(live::held_news(app, tab, merged));
    said.extend(live::left_news(app, tab, merged));
    if merged.cut && merged.from_end {
        // An oldest-first view: the oldest rows, shown first, are the ones re-read.
        said.push(format!(
            "oldest {} rows kept live (refresh_max_pages = {}); newer as loaded: {} rereads",
            convo_text::thousands(merged.live as u64),
            app.settings().refresh_max_pages(),
            app.settings().keymap().key_of(Action::Reload),
        ));
    } else if merged.cut {
        // The budget, or the rows loaded when the refresh began, whichever was fewer. A union
        // reads each of its streams up to the budget.
        let each = with_tab!(ref app, tab, |t| t.union().is_some()).then_some(" a stream");
        let budget = app
            .settings()
            .refresh_max_pages()
            .saturating_mul(app.settings().limit().get());
        let why = if merged.live < budget && each.is_none() {
            "the rest loaded after the refresh began".to_string()
        } else {
            format!(
                "refresh_max_pages = {}{}",
                app.settings().refresh_max_pages(),
                each.unwrap_or_default()
            )
        };
        said.push(format!(
            "top {} rows kept live ({why}); rows below as loaded",
            convo_text::thousands(merged.live as u64)
        ));
    }
    // News from the background: it does not cover an error the user has not dealt with or
    // a search's count (the footer counts the marks anyway), and goes when it stops being
    // true: after a while, with another walk, or once no more rows than the live ones are
    // loaded.
    if !said.is_empty() {
        let generation = with_tab!(ref app, tab, |t| t.generation());
        let until = after(app.now(), crate::message::NEWS_SECS);
        let life = if merged.cut {
            Life::Cut {
                tab,
                generation,
                live: merged.live,
                until,
            }
        } else {
            Life::Walk {
                tab,
                generation,
                until,
            }
        };
        app.post(StatusMessage {
            text: said.join(" · "),
            error: false,
            life,
        });
    }
    app.mark_dirty();
}
