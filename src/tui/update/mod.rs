//! `update(&mut App, Msg) -> Vec<Command>`: every state change happens here. No I/O, no
//! clocks, no `await`: the runtime carries out the commands and feeds back the answers.

use crossterm::event::MouseEventKind;
use crossterm::event::{KeyEventKind, MouseButton, MouseEvent};

use super::app::{App, Message, Overlay};
use super::command::Command;
use super::filter_form::FilterForm;
use super::keys::Action;
use super::layout::tab_titles;
use super::marks::Watched;
use super::message::{Life, after};
use super::msg::{Loaded, Msg, Task};
use super::prompt::Prompt;
use super::tab::marks;
use super::tab::{Retry, ScreenLine};
use super::{board, browser, export, notify, profiles, query_line, search, sort, summary_pane};
use crate::api::{ApiError, Assignee, ConversationFilter, Page, Resource, Status, VisitorFilter};

pub mod layers;
mod live;
pub mod place;
pub use place::{here, leaving_look, set_conversations_from};
use place::{set_conversations, set_visitors, set_visitors_from};

/// Rows the mouse wheel moves.
const WHEEL_ROWS: isize = 3;
/// The refresh period `R` uses when the config sets none.
pub const DEFAULT_REFRESH_SECS: u64 = 30;

/// Applies one message; returns the I/O to do.
pub fn update(app: &mut App, msg: Msg) -> Vec<Command> {
    let mut cmds = super::query_run::run_pending(app);
    // Time passing and refreshes ring for conversations that became imminent; rows arriving
    // by paging are only taken note of.
    // A refresh, or the end of a walk, of the Conversations tab is a sample of its trend.
    let mut sample = match &msg {
        Msg::PageLoaded {
            tab: Resource::Conversations,
            ..
        }
        | Msg::PartLoaded {
            tab: Resource::Conversations,
            ..
        } => Some(None),
        _ => None,
    };
    let imminent = match &msg {
        Msg::Tick(_) | Msg::HeadLoaded { .. } => Some(true),
        Msg::PageLoaded {
            tab: Resource::Conversations,
            ..
        }
        | Msg::PartLoaded {
            tab: Resource::Conversations,
            ..
        } => Some(false),
        _ => None,
    };
    let head_of = match &msg {
        Msg::HeadLoaded { tab, .. } => Some(*tab),
        _ => None,
    };
    match msg {
        Msg::Key(k) => {
            if k.kind != KeyEventKind::Release {
                app.dirty = true;
                let before = app.selected_id();
                layers::on_key(app, k, &mut cmds);
                seen_selection(app, before);
            }
        }
        Msg::Mouse(m) => {
            let before = app.selected_id();
            on_mouse(app, m);
            seen_selection(app, before);
        }
        Msg::Resize(w, h) => {
            app.size = (w, h);
            let body = app.body_height();
            app.conversations.scroll_into_view(body);
            app.visitors.scroll_into_view(body);
            app.dirty = true;
        }
        Msg::Tick(now) => {
            on_tick(app, now, &mut cmds);
            board::update::on_tick(app, &mut cmds);
        }
        Msg::ViewRead {
            generation,
            index,
            result,
        } => board::update::on_read(app, generation, index, result, &mut cmds),
        Msg::ExportWritten { id, rows } => export::update::on_written(app, id, rows, &mut cmds),
        Msg::ExportEnded { id, text, error } => export::update::on_ended(app, id, text, error),
        Msg::ExportPathChecked { path, exists } => {
            export::walk::on_checked(app, path, exists, &mut cmds)
        }
        Msg::Paste(text) => {
            on_paste(app, &text);
            app.dirty = true;
        }
        Msg::PageLoaded {
            tab,
            generation,
            result,
        } => {
            super::names_wanted::page_arrived(app, (tab, generation), &result, &mut cmds);
            on_page(app, tab, generation, result)
        }
        Msg::PartLoaded {
            tab,
            generation,
            stream,
            head,
            result,
        } => {
            super::names_wanted::page_arrived(app, (tab, generation), &result, &mut cmds);
            super::query_visitors::page_arrived(app, tab, generation, &result, &mut cmds);
            super::query_run::part_loaded(app, tab, (generation, stream, head), result);
            // Its rows reach the table now, so that what follows a page (an export's walk,
            // the summary pane, samples) sees them, as after a page of one request.
            pump_union(app, tab, &mut cmds);
        }
        Msg::QueryEmails {
            ticket,
            query,
            resolved,
            result,
        } => {
            // A newer key replaced what it was asked for (another filter, `x`, Esc): dropped.
            if app.lookups.answered(ticket, app.conversations.generation) {
                cmds.extend(super::query_run::emails_resolved(
                    app, query, resolved, result,
                ))
            }
        }
        Msg::HeadLoaded {
            tab,
            generation,
            result,
        } => {
            super::names_wanted::page_arrived(app, (tab, generation), &result, &mut cmds);
            let merged = on_head(app, tab, generation, result, &mut cmds);
            if tab == Resource::Conversations && merged.is_some() {
                sample = Some(merged);
            }
        }
        Msg::VisitorNames(labels) => super::names_wanted::offered(app, labels),
        Msg::NamesLoaded { asked, found } => super::names_wanted::answered(app, asked, found),
        Msg::EmailResolved {
            ticket,
            email,
            base,
            result,
        } if app.lookups.answered(ticket, app.conversations.generation) => {
            let shown = crate::text::one_line(&email, 60);
            match result {
                Err(e) => app.say_error(format!(
                    "visitor email {shown}: the lookup failed: {}",
                    crate::text::one_line(&e, 200)
                )),
                Ok(ids) if ids.is_empty() => {
                    app.say_error(crate::exit::no_visitor_with_email(&email))
                }
                Ok(ids) => {
                    let f = ConversationFilter {
                        visitor_id: (ids.len() == 1).then(|| ids[0]),
                        by_email: Some(crate::api::filter::ByEmail {
                            email,
                            visitors: ids,
                        }),
                        ..base
                    };
                    let from = here(app);
                    app.active = Resource::Conversations;
                    set_conversations_from(app, from, f, &mut cmds);
                }
            }
            app.dirty = true;
        }
        // A lookup a newer key replaced: dropped.
        Msg::EmailResolved { .. } => {}
        Msg::StoreVisitors {
            asked,
            known,
            store,
        } => {
            super::query_visitors::answered(app, asked, known, store);
            pump_union(app, Resource::Conversations, &mut cmds);
        }
        Msg::VisitorAttributes { id, attributes } => {
            if app.detail_visitor.as_ref().is_some_and(|(v, _)| *v == id) {
                app.detail_visitor = Some((id, Some(attributes)));
                app.dirty = true;
            }
        }
        Msg::Samples { key, samples } => {
            board::update::on_samples(app, &key, &samples);
            if key == super::tab::marks::look_key_of(&app.conversations) {
                app.trend = Some((key, samples));
                app.dirty = true;
            }
        }
        Msg::LastLook {
            key,
            taken_at,
            rows,
        } => {
            if key == super::tab::marks::look_key_of(&app.conversations) {
                marks::since_look(&mut app.conversations, rows.into_iter().collect());
                app.since_look = Some((app.conversations.generation, taken_at));
                since_look_message(app);
            }
        }
        Msg::VisitorSync(line) => {
            app.names.sync_line = line;
            app.dirty = true;
        }
        Msg::Notice { text, error } => {
            app.post(Message::new(text, error, app.now));
            app.dirty = true;
        }
        Msg::Copied { text, how } => {
            if matches!(how, super::clipboard::Copied::ToolFailed(..)) {
                cmds.push(Command::CopyByTerminal(text.clone()));
            }
            let (words, error) = how.words(&text);
            app.post(Message::new(words, error, app.now));
        }
        Msg::ProfileLoaded { id, result } => {
            cmds.extend(profiles::update::profile_loaded(app, id, result));
            app.dirty = true;
        }
        Msg::Retrying {
            tab,
            generation,
            cursor,
            notice,
        } => {
            let now = app.now;
            with_tab!(app, tab, |t| {
                // Not a page asked for ahead while the app waits on an earlier one.
                if t.waits_on(generation, cursor.as_deref()) {
                    t.retry = Some(Retry {
                        until: now.checked_add(notice.wait).unwrap_or(now),
                        attempt: notice.attempt,
                        reason: crate::text::one_line(&notice.reason, 200),
                        rate_limited: notice.rate_limited,
                        budget: notice.budget,
                    });
                    app.dirty = true;
                }
            })
        }
        Msg::ViewSaved { view, result } => query_line::save::on_saved(app, view, result),
        Msg::QueryLineLoaded {
            tab,
            history,
            attr_keys,
        } => query_line::update::on_loaded(app, tab, history, attr_keys),
        // A board's read that panicked is that view's error; the round goes on.
        Msg::TaskFailed {
            task: Task::View { generation, index },
            message,
        } => board::update::on_read(
            app,
            generation,
            index,
            Err(format!("internal error (a bug in convo): {message}")),
            &mut cmds,
        ),
        Msg::TaskFailed { task, message } => on_task_failed(app, task, &message),
    }
    keep_oldest_first(app);
    ask_detail_visitor(app, &mut cmds);
    // A page of a refresh that goes on is not yet a sample, nor a moment to ring.
    let (sample, imminent) = match head_of {
        Some(tab) if with_tab!(ref app, tab, |t| t.head_in_flight) => (None, None),
        _ => (sample, imminent),
    };
    if let Some(refreshed) = sample {
        take_sample(app, refreshed.as_ref(), &mut cmds);
    }
    if let Some(ring) = imminent {
        watch_imminent(app, ring, &mut cmds);
    }
    export::walk::step(app, &mut cmds);
    export::update::follow(app, &mut cmds);
    app.conversations.sync_query();
    app.visitors.sync_query();
    fill(app, &mut cmds);
    live::say_lost(app);
    summary_pane::update::refresh(app);
    search::update::refresh(app, false);
    sort::update::refresh(app, false);
    super::message::update::settle(app);
    cmds
}

/// "12 new, 3 changed since yesterday 17:40" while the first walk is compared with the last
/// look (another walk ends it).
fn since_look_message(app: &mut App) {
    let Some((generation, taken_at)) = app.since_look else {
        return;
    };
    if generation != app.conversations.generation {
        app.since_look = None;
        return;
    }
    let (new, changed) = app.conversations.marks.counts(generation);
    let when = super::names::since_words(app.now, &app.tz, taken_at);
    app.post(Message {
        text: format!("{new} new, {changed} changed since {when}"),
        error: false,
        life: super::message::Life::Walk {
            tab: Resource::Conversations,
            generation,
            until: super::message::later(app.now),
        },
    });
    app.dirty = true;
}

/// A background task panicked (see `tasks`): the app goes on as if it had failed, and says so.
fn on_task_failed(app: &mut App, task: Task, message: &str) {
    let bug = format!("internal error (a bug in convo): {message}");
    match task {
        Task::Page { tab, generation } => with_tab!(app, tab, |t| {
            if t.next.as_ref().is_some_and(|n| n.generation == generation) {
                t.next_failed(bug);
            } else if t.generation == generation && t.pager.is_loading() {
                t.fail(bug);
            }
        }),
        Task::Part {
            tab,
            generation,
            stream,
            head,
        } => super::query_run::part_failed(app, tab, (generation, stream, head), bug),
        Task::Head { tab, generation } => with_tab!(app, tab, |t| {
            if t.generation == generation {
                t.head_in_flight = false;
                t.refresh_error = Some(bug);
            }
        }),
        Task::Export => {
            app.export_stream = None;
            app.say_error(format!("export failed: {bug}; the file may be incomplete"));
        }
        Task::Lookup { ticket } => {
            if app.lookups.answered(ticket, app.conversations.generation) {
                app.say_error(format!("the e-mail lookup failed: {bug}"));
            }
        }
        Task::Profile => {
            app.profiles.switching = None;
            app.say_error(format!("profile not switched: {bug}"));
        }
        Task::View { .. } => {} // taken by `update` (the round goes on)
    }
    app.dirty = true;
}

/// The user moved the selection to another row: that row's mark goes, and the selection no
/// longer follows the first row of an oldest-first view.
fn seen_selection(app: &mut App, before: Option<uuid::Uuid>) {
    if app.selected_id() != before {
        with_tab!(app, app.active, |t| marks::selected(t));
        sort::update::stop_following(app, app.active);
    }
}

/// Asks for the next page of each tab that wants one (at most one in flight per tab: the
/// pager hands out nothing while a request is pending).
fn fill(app: &mut App, cmds: &mut Vec<Command>) {
    let body = app.body_height();
    let limit = app.limit;
    for tab in [app.active, other(app.active)] {
        if pump_union(app, tab, cmds) {
            continue;
        }
        if let Some(c) = with_tab!(app, tab, |t| t.next_fetch(body, limit)) {
            app.dirty = true;
            cmds.push(c);
        }
    }
}

fn other(tab: Resource) -> Resource {
    match tab {
        Resource::Conversations => Resource::Visitors,
        Resource::Visitors => Resource::Conversations,
    }
}

fn conversations_page(
    r: Result<Loaded, ApiError>,
) -> Result<Page<crate::api::Conversation>, ApiError> {
    match r? {
        Loaded::Conversations(p) => Ok(p),
        Loaded::Visitors(_) => Err(ApiError::Decode {
            detail: "a visitors page answered a conversations request".into(),
        }),
    }
}

fn visitors_page(r: Result<Loaded, ApiError>) -> Result<Page<crate::api::Visitor>, ApiError> {
    match r? {
        Loaded::Visitors(p) => Ok(p),
        Loaded::Conversations(_) => Err(ApiError::Decode {
            detail: "a conversations page answered a visitors request".into(),
        }),
    }
}

/// A page of a walk read behind the rows on screen (a reload, another profile): once it has
/// read deep enough, it takes their place, a reload's rows compared with them for marks. True
/// when the page was that walk's.
fn on_next_page<T: Watched + Clone + PartialEq, F: super::tab::TabFilter>(
    t: &mut super::tab::TabState<T, F>,
    generation: u64,
    result: Result<Page<T>, ApiError>,
    body: usize,
) -> bool {
    let Some(n) = t.next.as_ref().filter(|n| n.generation == generation) else {
        return false;
    };
    if !n.pager.is_loading() {
        return true; // not asked for: dropped
    }
    let reload = n.why == super::tab::Replacing::Reload;
    if t.next_page(result) {
        if reload {
            marks::before_reload(t, generation);
        }
        t.take_next(body);
        marks::after_page(t, 0);
    }
    true
}

fn on_page(app: &mut App, tab: Resource, generation: u64, result: Result<Loaded, ApiError>) {
    let body = app.body_height();
    match tab {
        Resource::Conversations => {
            let t = &mut app.conversations;
            if t.next.is_some() {
                if on_next_page(t, generation, conversations_page(result), body) {
                    since_look_message(app);
                    app.dirty = true;
                }
                return;
            }
            if t.generation != generation || !t.pager.is_loading() {
                return; // an older walk's answer: dropped
            }
            let start = t.rows().len();
            t.apply(conversations_page(result), body);
            marks::after_page(t, start);
            since_look_message(app);
        }
        Resource::Visitors => {
            let t = &mut app.visitors;
            if t.next.is_some() {
                if on_next_page(t, generation, visitors_page(result), body) {
                    app.dirty = true;
                }
                return;
            }
            if t.generation != generation || !t.pager.is_loading() {
                return;
            }
            let start = t.rows().len();
            t.apply(visitors_page(result), body);
            marks::after_page(t, start);
        }
    }
    app.dirty = true;
}

fn on_head(
    app: &mut App,
    tab: Resource,
    generation: u64,
    result: Result<Loaded, ApiError>,
    cmds: &mut Vec<Command>,
) -> Option<crate::pager::Merged> {
    let body = app.body_height();
    if export::update::exporting(app, tab) {
        // A refresh that began before the export: its merge would move the rows being read.
        with_tab!(app, tab, |t| if t.generation == generation {
            t.drop_reread()
        });
        app.last_refresh = app.now;
        return None;
    }
    let watching = notify::watching(&app.views, &app.conversations.filter);
    let step = match tab {
        Resource::Conversations => {
            let t = &mut app.conversations;
            if t.generation != generation || !t.head_in_flight {
                return None;
            }
            let before = watching.then(|| notify::unassigned_open(t.rows()));
            let step = marks::merge_head(t, conversations_page(result), body);
            if let (marks::HeadMerge::Done(_), Some(more)) = (
                &step,
                before
                    .map(|b| notify::unassigned_open(t.rows()).saturating_sub(b))
                    .filter(|n| *n > 0),
            ) {
                cmds.push(Command::Notify { more });
            }
            step
        }
        Resource::Visitors => {
            let t = &mut app.visitors;
            if t.generation != generation || !t.head_in_flight {
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
            app.last_refresh = app.now;
            app.dirty = true;
            return None;
        }
    };
    said_refreshed(app, tab, &merged);
    Some(merged)
}

/// For a union tab, its rows to the table and its streams' next requests (a refresh merged
/// when complete); false for a tab of one request's filters.
fn pump_union(app: &mut App, tab: Resource, cmds: &mut Vec<Command>) -> bool {
    match super::query_run::pump(app, tab, cmds) {
        super::query_run::Pumped::NotUnion => false,
        super::query_run::Pumped::Union(None) => true,
        super::query_run::Pumped::Union(Some(merged)) => {
            union_refreshed(app, tab, &merged, cmds);
            true
        }
    }
}

/// A union tab's refresh was merged: said as a refresh is, and a watched view rings for the
/// new rows that are unassigned and open.
fn union_refreshed(
    app: &mut App,
    tab: Resource,
    merged: &crate::pager::Merged,
    cmds: &mut Vec<Command>,
) {
    if tab == Resource::Conversations {
        let text = app.conversations.query.to_string();
        let watching = app
            .views
            .iter()
            .any(|v| v.notify && v.tab == tab && v.query.as_deref() == Some(text.as_str()));
        let new: std::collections::HashSet<_> = merged.new_ids.iter().collect();
        let more = app
            .conversations
            .rows()
            .iter()
            .filter(|c| new.contains(&c.id) && crate::sla::is_waiting(c))
            .count();
        if watching && more > 0 {
            cmds.push(Command::Notify { more });
        }
        take_sample(app, Some(merged), cmds);
    }
    said_refreshed(app, tab, merged);
}

/// What a merged refresh changed, said on the status line (news that does not cover an
/// error), and the period starts again.
fn said_refreshed(app: &mut App, tab: Resource, merged: &crate::pager::Merged) {
    app.last_refresh = app.now;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut said = Vec::new();
    if !merged.new_ids.is_empty() {
        let n = merged.new_ids.len();
        said.push(format!("{n} new row{}", plural(n)));
    }
    if !merged.left_ids.is_empty() {
        let n = merged.left_ids.len();
        said.push(format!("{n} row{} left the list", plural(n)));
    }
    said.extend(live::held_news(app, tab, merged));
    if merged.cut && merged.from_end {
        // An oldest-first view: the oldest rows, shown first, are the ones re-read.
        said.push(format!(
            "only the oldest {} rows (shown first) are kept live; newer ones are as loaded, \
             {} reads them again (refresh_max_pages = {})",
            merged.live,
            app.keymap.key_of(Action::Reload),
            app.refresh_max_pages
        ));
    } else if merged.cut {
        // The budget, or the rows loaded when the refresh began, whichever was fewer. A union
        // reads each of its streams up to the budget.
        let each = with_tab!(ref app, tab, |t| t.union.is_some()).then_some(" a stream");
        let budget = app.refresh_max_pages.saturating_mul(app.limit.get());
        let why = if merged.live < budget && each.is_none() {
            "the rest were loaded after the refresh began".to_string()
        } else {
            format!(
                "refresh_max_pages = {}{}",
                app.refresh_max_pages,
                each.unwrap_or_default()
            )
        };
        said.push(format!(
            "only the top {} rows are kept live ({why}); the rows after them are as loaded",
            crate::text::thousands(merged.live as u64)
        ));
    }
    // News from the background: it does not cover an error the user has not dealt with or
    // a search's count (the footer counts the marks anyway), and goes when it stops being
    // true: after a while, with another walk, or once no more rows than the live ones are
    // loaded.
    if !said.is_empty() {
        let generation = with_tab!(ref app, tab, |t| t.generation);
        let until = after(app.now, super::message::NEWS_SECS);
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
        app.post(Message {
            text: said.join(" · "),
            error: false,
            life,
        });
    }
    app.dirty = true;
}

fn on_tick(app: &mut App, now: jiff::Timestamp, cmds: &mut Vec<Command>) {
    // Redraw only when something on screen depends on the time that passed: relative
    // times change by the minute, countdowns by the second.
    let minute = |t: jiff::Timestamp| t.as_second().div_euclid(60);
    let counting = app.conversations.retry.is_some() || app.visitors.retry.is_some();
    if minute(now) != minute(app.now) || (counting && now.as_second() != app.now.as_second()) {
        app.dirty = true;
    }
    app.now = now;
    if let (true, Some(secs)) = (app.refresh_on, app.refresh_period()) {
        let due = app.last_refresh.as_second().saturating_add(secs as i64);
        // Not while an export of the tab is written: its rows must stay where they are.
        if now.as_second() >= due && !export::update::exporting(app, app.active) {
            // Not while one is under way; the next period starts when it ends. A reload
            // (or profile) whose walk failed behind the rows on screen is tried again instead.
            let (limit, max_pages) = (app.limit, app.refresh_max_pages);
            let whole = app.active == Resource::Conversations && app.oldest_first.is_some();
            let union = super::query_run::refresh(app, app.active, cmds);
            let (c, retried) = with_tab!(app, app.active, |t| {
                if union.is_some() {
                    (None, false)
                } else if t.next.as_ref().is_some_and(|n| n.error.is_some()) {
                    (Some(t.reload(max_pages, whole)), true)
                } else {
                    (t.head_fetch(limit, max_pages, whole), false)
                }
            });
            if retried {
                app.last_refresh = now;
            }
            cmds.extend(c);
        }
    }
}

impl App {
    /// The period of the periodic refresh when it is on.
    pub fn refresh_period(&self) -> Option<u64> {
        Some(self.refresh_secs.unwrap_or(DEFAULT_REFRESH_SECS)).filter(|s| *s > 0)
    }
}

/// Pasted text: into the open prompt's text or the filter pane's focused field; elsewhere it
/// is not a key press and does nothing.
fn on_paste(app: &mut App, pasted: &str) {
    match app.prompt.clone() {
        Some(Prompt::Search(text)) => return search::update::on_paste(app, text, pasted),
        Some(Prompt::Query(line)) => return query_line::update::on_paste(app, *line, pasted),
        Some(Prompt::SaveView(s)) => return query_line::save::on_paste(app, *s, pasted),
        Some(Prompt::Export(mut path) | Prompt::ExportExists(mut path)) => {
            super::prompt::paste_line(&mut path, pasted);
            app.prompt = Some(Prompt::Export(path));
            return;
        }
        Some(_) => return,
        None => {}
    }
    if let Overlay::Filter(form) = &mut app.overlay {
        form.paste(pasted);
    }
}

/// `o`: opens the selected row in the web app.
fn open_in_browser(app: &mut App, cmds: &mut Vec<Command>) {
    let id = app.selected_id();
    match browser::url_for(app.web_url.as_deref(), app.active, id) {
        Ok(url) => {
            app.say(format!("opening {}", crate::text::one_line(&url, 200)));
            cmds.push(Command::OpenUrl(url));
        }
        Err(why) => app.say(why),
    }
}

/// What an action does on the table, the bottom layer (what is over it took its keys first:
/// [`layers`]). The guarded arms come first: they are the table's modes (sorted, a union).
pub(super) fn on_action(app: &mut App, action: Action, cmds: &mut Vec<Command>) {
    let body = app.body_height() as isize;
    let sorted = app.sort.get(app.active).sorted();
    match action {
        // Sorted: moves follow the display order.
        Action::Down if sorted => sort::update::move_sorted(app, 1),
        Action::Up if sorted => sort::update::move_sorted(app, -1),
        Action::PageDown if sorted => sort::update::move_sorted(app, body),
        Action::PageUp if sorted => sort::update::move_sorted(app, -body),
        Action::Top if sorted => sort::update::move_sorted(app, isize::MIN / 2),
        Action::Bottom if sorted => sort::update::move_sorted(app, isize::MAX / 2),
        Action::Down => move_by(app, 1),
        Action::Up => move_by(app, -1),
        Action::PageDown => move_by(app, body),
        Action::PageUp => move_by(app, -body),
        Action::Top => move_by(app, isize::MIN / 2),
        Action::Bottom => {
            super::query_run::go_on(app);
            move_by(app, isize::MAX / 2)
        }
        Action::NextTab | Action::PrevTab => app.active = other(app.active),
        Action::FirstTab => app.active = Resource::Conversations,
        Action::SecondTab => app.active = Resource::Visitors,
        Action::Filter => {
            let mut form = match app.active {
                Resource::Conversations => {
                    FilterForm::conversations(&app.conversations.filter).with_aliases(&app.aliases)
                }
                Resource::Visitors => FilterForm::visitors(&app.visitors.filter),
            };
            // A query the fields cannot hold (a union, checks in convo): said in the pane.
            if with_tab!(ref app, app.active, |t| t.union.is_some()) {
                form.query_note = Some(query_line::update::query_text(app, app.active));
            }
            app.overlay = Overlay::Filter(Box::new(form));
        }
        // The tab's query (filters set by the pane, or a query from `:`) is what is cleared,
        // and an e-mail filter still being looked up.
        Action::ClearFilters
            if app.query_of(app.active).is_empty()
                && (app.active != Resource::Conversations || app.lookups.cancel().is_none()) =>
        {
            app.say("no filters to clear")
        }
        Action::ClearFilters if app.query_of(app.active).is_empty() => {
            app.say("filters cleared: the e-mail lookup was dropped")
        }
        Action::ClearFilters => match app.active {
            Resource::Conversations => set_conversations(app, ConversationFilter::default(), cmds),
            Resource::Visitors => set_visitors(app, VisitorFilter::default(), cmds),
        },
        Action::ToggleUnassigned | Action::CycleStatus if app.active != Resource::Conversations => {
            app.say("u and s filter conversations: press 1 for that tab");
        }
        // A union tab: its query's term is what changes, the rest of the query stays.
        Action::ToggleUnassigned if app.conversations.union.is_some() => {
            cmds.extend(super::query_run::toggle_unassigned(app))
        }
        Action::CycleStatus if app.conversations.union.is_some() => {
            cmds.extend(super::query_run::cycle_status(app))
        }
        Action::ToggleUnassigned => {
            let mut f = app.conversations.filter.clone();
            f.assignee = match f.assignee {
                Assignee::Unassigned => Assignee::Any,
                _ => Assignee::Unassigned,
            };
            set_conversations(app, f, cmds);
        }
        Action::CycleStatus => {
            let mut f = app.conversations.filter.clone();
            f.status = match f.status {
                None => Some(Status::Open),
                Some(Status::Open) => Some(Status::Pending),
                Some(Status::Pending) => Some(Status::Closed),
                _ => None,
            };
            set_conversations(app, f, cmds);
        }
        // The view opened from the board is on screen as it opened: Back is the board.
        Action::Back if board::update::takes_back(app) => board::update::open(app, cmds),
        Action::Back => go_back(app, cmds),
        Action::Board => board::update::open(app, cmds),
        Action::Views => app.overlay = Overlay::Views { selected: 0 },
        Action::Query => query_line::update::open(app, cmds),
        Action::SaveView => query_line::save::open(app),
        Action::Detail => app.detail = if app.detail.is_some() { None } else { Some(0) },
        Action::DetailDown => scroll_detail(app, 1),
        Action::DetailUp => scroll_detail(app, -1),
        Action::DrillVisitor | Action::DrillSite | Action::DrillAssignee => {
            drill(app, action, cmds)
        }
        Action::Copy => match app.selected_id() {
            // Only a UUID's text is ever copied (a program's input, an OSC 52 sequence).
            // The runtime says how it was copied (Msg::Copied).
            Some(id) => {
                cmds.push(Command::CopyToClipboard(id.to_string()));
                app.say(format!("copying {}…", crate::api::short_id(&id)));
            }
            None => super::message::update::no_row_selected(app),
        },
        Action::Reload => {
            let max_pages = app.refresh_max_pages;
            // An oldest-first view reads the whole list again before it shows it: its first
            // rows are the list's last.
            let whole = app.active == Resource::Conversations && app.oldest_first.is_some();
            let union = with_tab!(ref app, app.active, |t| t.union.is_some()
                && t.error.is_none());
            if union {
                // A union is read again behind its rows, as a refresh (•, ~, × follow).
                if super::query_run::refresh(app, app.active, cmds) == Some(false) {
                    app.say("the streams are being read already");
                }
                return;
            }
            let c = with_tab!(app, app.active, |t| {
                if t.error.is_some() && t.next.is_none() {
                    t.error = None; // retry the failed page; loaded rows stay
                    None
                } else {
                    Some(t.reload(max_pages, whole))
                }
            });
            cmds.extend(c);
            app.message = None;
        }
        Action::ToggleRefresh => {
            app.refresh_on = !app.refresh_on;
            app.last_refresh = app.now;
            let text = match (app.refresh_on, app.refresh_period()) {
                (true, Some(s)) => format!("auto refresh every {s}s"),
                _ => "auto refresh off".to_string(),
            };
            app.say(text);
        }
        Action::LoadAll => {
            // The walk on screen waits while a reload (or another profile) is read behind
            // it: L would load nothing, and say it does.
            let (waiting, done, n) = with_tab!(ref app, app.active, |t| (
                t.next.is_some(),
                t.pager.is_done(),
                t.rows().len()
            ));
            if done && !waiting {
                app.say(format!(
                    "all {} rows are loaded: L has nothing to load",
                    crate::text::thousands(n as u64)
                ));
            } else if waiting {
                // Said as an error: the status line shows the failed reload's error before a
                // notice, and this is what L met.
                app.message = Some(Message::error(format!(
                    "L waits for the reload: it loads the rest once the reload has answered \
                     ({} tries it again)",
                    app.keymap.key_of(Action::Reload)
                )));
            } else {
                with_tab!(app, app.active, |t| {
                    t.load_all = true;
                    t.error = None;
                });
                super::query_run::go_on(app);
            }
        }
        Action::Summary => {
            summary_pane::update::open(app);
            if matches!(app.overlay, Overlay::Summary(_)) {
                cmds.push(Command::Samples {
                    key: super::tab::marks::look_key_of(&app.conversations),
                    sample: None,
                });
            }
        }
        Action::Help => {
            app.overlay = Overlay::Help {
                scroll: 0,
                under: None,
            }
        }
        // What is over the table (a pane, a running `L`) took Esc before it came here.
        Action::Close => app.message = None,
        Action::Quit => cmds.push(Command::Quit),
        Action::Suspend => cmds.push(Command::Suspend),
        Action::Search => search::update::open(app),
        Action::SearchNext => search::update::step_match(app, false),
        Action::SearchPrev => search::update::step_match(app, true),
        Action::SortNext => sort::update::cycle_sort(app, false),
        Action::SortPrev => sort::update::cycle_sort(app, true),
        Action::SortReverse => sort::update::reverse(app),
        Action::Export => export::update::open(app),
        Action::Open => open_in_browser(app, cmds),
        Action::Profiles => profiles::update::open_picker(app),
    }
}

fn move_by(app: &mut App, delta: isize) {
    let body = app.body_height();
    let moved = with_tab!(app, app.active, |t| {
        let n = t.rows().len();
        if n == 0 {
            false
        } else {
            let target = t.move_target(delta);
            if delta > 0 && target == n - 1 && t.error.is_some() {
                t.error = None; // scrolling to the end retries
            }
            let before = (t.selected, t.held().is_some());
            t.select(target, body);
            (t.selected, false) != before
        }
    });
    if moved && let Some(s) = app.detail.as_mut() {
        *s = 0;
    }
}

pub(super) fn scroll_detail(app: &mut App, delta: isize) {
    if app.detail.is_none() {
        let open = app.keymap.key_of(Action::Detail);
        return app.say(format!("no detail pane to scroll: {open} opens it"));
    }
    let lines = super::detail::line_count(app);
    let height = app
        .areas()
        .detail
        .map_or(1, |r| r.height.saturating_sub(2) as usize);
    if let Some(s) = app.detail.as_mut() {
        let max = lines.saturating_sub(height);
        *s = (*s as isize).saturating_add(delta).clamp(0, max as isize) as usize;
    }
}

/// Back: to the tab the user was on before the last move, each tab with its filters then (a
/// new walk where they differ from now) on the row that was selected.
fn go_back(app: &mut App, cmds: &mut Vec<Command>) {
    let Some(place) = app.history.pop() else {
        return app.say("nothing to go back to");
    };
    let body = app.body_height();
    app.active = place.active;
    let (c, v) = (place.conversations, place.visitors);
    // A union shown then is run again (unless it is on screen now), on the row selected then.
    let mut c = c;
    if let Some(q) = c.union.take() {
        let now = app
            .conversations
            .union
            .as_ref()
            .map(|_| &app.conversations.query);
        if now != Some(&q) {
            cmds.extend(leaving_look(app));
            app.oldest_first = place.oldest_first.then_some(u64::MAX);
            cmds.extend(super::query_run::restore(app, q, c.selected));
        } else if let Some(row) = c
            .selected
            .filter(|_| place.active == Resource::Conversations)
        {
            app.conversations.reselect_now(row, body);
        }
    } else if c.filter != app.conversations.filter || app.conversations.union.is_some() {
        cmds.extend(leaving_look(app));
        app.oldest_first = place.oldest_first.then_some(u64::MAX);
        cmds.push(app.conversations.restore(c.filter, c.selected));
    } else if let Some(row) = c
        .selected
        .filter(|_| place.active == Resource::Conversations)
    {
        app.conversations.reselect_now(row, body);
    }
    let mut v = v;
    if let Some(q) = v.union.take() {
        let now = app.visitors.union.as_ref().map(|_| &app.visitors.query);
        if now != Some(&q) {
            cmds.extend(super::query_run::restore(app, q, v.selected));
        } else if let Some(row) = v.selected.filter(|_| place.active == Resource::Visitors) {
            app.visitors.reselect_now(row, body);
        }
    } else if v.filter != app.visitors.filter || app.visitors.union.is_some() {
        cmds.push(app.visitors.restore(v.filter, v.selected));
    } else if let Some(row) = v.selected.filter(|_| place.active == Resource::Visitors) {
        app.visitors.reselect_now(row, body);
    }
}

pub(super) fn apply_form(app: &mut App, form: &FilterForm, cmds: &mut Vec<Command>) {
    match form.tab {
        Resource::Conversations => {
            let Some(mut f) = form.conversation_filter() else {
                return;
            };
            match form.visitor_email() {
                None => set_conversations(app, f, cmds),
                // The same e-mail as now: its visitors as resolved then.
                Some(email)
                    if app
                        .conversations
                        .filter
                        .by_email
                        .as_ref()
                        .is_some_and(|b| b.email == email) =>
                {
                    f.by_email = app.conversations.filter.by_email.clone();
                    f.visitor_id = app.conversations.filter.visitor_id;
                    set_conversations(app, f, cmds);
                }
                Some(email) => {
                    let what = format!(
                        "the visitors with e-mail {}",
                        crate::text::one_line(&email, 60)
                    );
                    let ticket = super::message::update::looking_up(app, what);
                    cmds.push(Command::ResolveEmail {
                        ticket,
                        email,
                        base: f,
                    });
                }
            }
        }
        Resource::Visitors => set_visitors(app, form.visitor_filter(), cmds),
    }
}

pub(super) fn apply_view(app: &mut App, index: usize, cmds: &mut Vec<Command>) {
    let Some(v) = app.views.get(index).cloned() else {
        return;
    };
    // A view written as a query runs it (a union, checks, e-mails looked up), its text kept.
    if let Some(q) = v
        .query
        .as_deref()
        .and_then(|t| crate::query::parse(t, v.tab).ok())
    {
        app.oldest_first = v.oldest_first.then_some(u64::MAX);
        cmds.extend(super::query_run::run_query(app, v.tab, q));
        app.say(format!("view: {}", crate::text::one_line(&v.name, 60)));
        return;
    }
    let from = here(app);
    app.oldest_first = v.oldest_first.then_some(u64::MAX);
    app.active = v.tab;
    match v.tab {
        Resource::Conversations => set_conversations_from(app, from, v.conversations, cmds),
        Resource::Visitors => set_visitors_from(app, from, v.visitors, cmds),
    }
    app.say(format!("view: {}", crate::text::one_line(&v.name, 60)));
}

/// With the detail pane open on a conversation, asks the store once for its visitor's
/// attributes (the pane shows them when they come).
fn ask_detail_visitor(app: &mut App, cmds: &mut Vec<Command>) {
    if app.detail.is_none() || app.active != Resource::Conversations {
        return;
    }
    let Some(id) = app.conversations.selected_row().map(|c| c.visitor_id) else {
        return;
    };
    if app.detail_visitor.as_ref().is_none_or(|(v, _)| *v != id) {
        app.detail_visitor = Some((id, None));
        cmds.push(Command::LoadVisitor(id));
    }
}

/// Records the Conversations tab's counts in the local store after a refresh, or once when a
/// walk ends; the answer brings the last 24 hours for the summary pane's trend.
///
/// Only counts that mean the same thing from one sample to the next are kept: the whole
/// filter (every page loaded), or the top rows a refresh keeps live when it stops at its page
/// budget (`complete: false`, `loaded` that many; the pane says so). Rows loaded only part of
/// the way are not a sample: their counts grow with the pages loaded, not with the queue.
/// A refresh samples at most every [`crate::tui::app::SAMPLE_EVERY_SECS`].
fn take_sample(app: &mut App, refreshed: Option<&crate::pager::Merged>, cmds: &mut Vec<Command>) {
    let t = &app.conversations;
    let ended = t.pager.is_done() && app.sampled != Some(t.generation);
    // This walk was sampled less than a minute ago: a refresh is no new sample yet.
    let recent = app.sampled == Some(t.generation)
        && app.sampled_at.is_some_and(|at| {
            app.now.as_second().saturating_sub(at) < crate::tui::app::SAMPLE_EVERY_SECS
        });
    if refreshed.is_some() && recent {
        return;
    }
    let rows = match refreshed {
        Some(m) if m.cut => &t.rows()[..m.live.min(t.rows().len())],
        Some(_) if t.pager.is_done() => t.rows(),
        None if ended => t.rows(),
        _ => return,
    };
    app.sampled = Some(t.generation);
    app.sampled_at = Some(app.now.as_second());
    let (mut waiting, mut imminent, mut breaching) = (0u64, 0u64, 0u64);
    for c in rows {
        if crate::sla::is_waiting(c) {
            waiting += 1;
        }
        match app.sla.first_response(c, app.now).map(|d| d.state) {
            Some(crate::sla::State::Imminent) => imminent += 1,
            Some(crate::sla::State::Breaching) => breaching += 1,
            _ => {}
        }
    }
    let complete = t.pager.is_done() && rows.len() == t.rows().len();
    cmds.push(Command::Samples {
        key: super::tab::marks::look_key_of(t),
        sample: Some(crate::store::Sample {
            at: app.now.as_second(),
            loaded: rows.len() as u64,
            complete,
            waiting,
            imminent,
            breaching,
        }),
    });
}

/// In a `notify = true` view with a first-response target: rings once for each conversation
/// that became imminent (or breaching) since it was last looked at.
fn watch_imminent(app: &mut App, ring: bool, cmds: &mut Vec<Command>) {
    if !app.sla.is_tracked(crate::sla::Target::FirstResponse)
        || !notify::watching(&app.views, &app.conversations.filter)
    {
        return;
    }
    let t = &app.conversations;
    let count = app
        .imminent
        .check(t.generation, t.rows(), &app.sla, app.now, !ring);
    if count > 0 {
        cmds.push(Command::NotifyImminent { count });
    }
}

/// An oldest-first view ("Breaching") loads every page and sorts by creation, oldest on top,
/// for each new walk of its filters (a reload, `r`); other filters end it. A sort the user
/// chooses meanwhile is kept until the next walk.
fn keep_oldest_first(app: &mut App) {
    let Some(set_for) = app.oldest_first else {
        return;
    };
    let filters = app
        .views
        .iter()
        .find(|v| v.oldest_first)
        .map(|v| v.conversations.clone());
    if filters.as_ref() != Some(&app.conversations.filter) {
        app.oldest_first = None;
        sort::update::stop_following(app, Resource::Conversations);
        return;
    }
    let generation = app.conversations.generation;
    if set_for != generation {
        app.conversations.load_all = true;
        let s = app.sort.get_mut(Resource::Conversations);
        s.preset(
            crate::tui::sort::Sort {
                col: crate::tui::columns::Column::Created,
                desc: false,
            },
            generation,
        );
        // Just opened: on its first (oldest) row, whatever order the pages come in. A
        // reload keeps where the user was (on their row, or still on the first).
        if set_for == u64::MAX {
            s.follow_top = true;
        }
        app.oldest_first = Some(generation);
    }
}

fn drill(app: &mut App, action: Action, cmds: &mut Vec<Command>) {
    let filter = match app.active {
        Resource::Conversations => {
            let Some(row) = app.conversations.selected_row() else {
                return super::message::update::no_row_selected(app);
            };
            match action {
                Action::DrillVisitor => ConversationFilter {
                    visitor_id: Some(row.visitor_id),
                    ..Default::default()
                },
                Action::DrillSite => ConversationFilter {
                    site_id: Some(row.site_id),
                    ..Default::default()
                },
                _ => ConversationFilter {
                    assignee: row
                        .assignee_id
                        .map_or(Assignee::Unassigned, Assignee::Agent),
                    ..Default::default()
                },
            }
        }
        Resource::Visitors => {
            let Some(row) = app.visitors.selected_row() else {
                return super::message::update::no_row_selected(app);
            };
            if action != Action::DrillVisitor {
                return app.say("from a visitor: V shows their conversations");
            }
            ConversationFilter {
                visitor_id: Some(row.id),
                ..Default::default()
            }
        }
    };
    let from = here(app);
    app.active = Resource::Conversations;
    set_conversations_from(app, from, filter, cmds);
}

fn on_mouse(app: &mut App, m: MouseEvent) {
    // An overlay, or the query line over the table (and its save prompt), takes no clicks:
    // what is under it is not what the click would reach.
    if !matches!(app.overlay, Overlay::None)
        || matches!(app.prompt, Some(Prompt::Query(_) | Prompt::SaveView(_)))
    {
        return;
    }
    match m.kind {
        MouseEventKind::ScrollDown => move_by(app, WHEEL_ROWS),
        MouseEventKind::ScrollUp => move_by(app, -WHEEL_ROWS),
        MouseEventKind::Down(MouseButton::Left) => {
            let areas = app.areas();
            if m.row == areas.header.y {
                if let Some(t) = tab_titles()
                    .into_iter()
                    .find(|t| m.column >= t.x && m.column < t.x + t.width)
                {
                    app.active = t.tab;
                }
            } else if m.row >= areas.body_top()
                && m.row < areas.table.y + areas.table.height
                && m.column < areas.table.x + areas.table.width
            {
                // The row on that line as drawn: in the display order when sorted; a row
                // that left (shown for one refresh) cannot be selected.
                let line = (m.row - areas.body_top()) as usize;
                let body = areas.body_height();
                let order = app.sort.get(app.active);
                let n = with_tab!(ref app, app.active, |t| t.rows().len());
                let row = if order.sorted() {
                    let p = order.offset + line;
                    (p < n).then(|| order.row_at(p))
                } else {
                    with_tab!(ref app, app.active, |t| {
                        match t.screen_lines(body, true).get(line) {
                            Some(ScreenLine::Row(i)) => Some(*i),
                            _ => None,
                        }
                    })
                };
                if let Some(i) = row {
                    sort::update::select_row(app, i);
                }
            }
        }
        _ => return,
    }
    app.dirty = true;
}
