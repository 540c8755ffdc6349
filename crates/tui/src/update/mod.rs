//! `update(&mut App, Msg) -> Vec<Command>`: every state change happens here. No I/O, no
//! clocks, no `await`: the runtime carries out the commands and feeds back the answers.
//!
//! Here `update` itself and [`on_action`] (what an action does on the table); what they call
//! is in files of their own: `answers` (a page arrived, a task failed), `refresh` (the
//! timer, refreshes merged and said), `watch` (trend samples, imminent conversations),
//! `filters` (filters and views applied, drill-downs, Back), `moves` (the selection moved,
//! the mouse), [`layers`] (which layer takes a key), `place`, `live`.

use crossterm::event::KeyEventKind;

use super::app::App;
use super::command::Command;
use super::filter_form::FilterForm;
use super::keys::Action;
use super::message::StatusMessage;
use super::msg::{Msg, Task};
use super::overlay::Overlay;
use super::prompt::Prompt;
use super::tab::Retry;
use super::{board, browser, commands, export, profiles, query_line, search, sort, summary_pane};
use convo_api::{Assignee, ConversationFilter, Resource, Status, VisitorFilter};

mod answers;
mod filters;
pub mod layers;
mod live;
mod moves;
pub mod place;
pub mod refresh;
pub use place::{here, leaving_look, set_conversations_from};
use place::{set_conversations, set_visitors};
pub use refresh::DEFAULT_REFRESH_SECS;

use crate::watch::update::{take_sample, watch_imminent};
use answers::{on_page, on_task_failed};
use filters::{apply_form, apply_view, drill, go_back, keep_oldest_first};
use moves::{move_by, on_mouse, scroll_detail, seen_selection};
use refresh::{on_head, on_tick, pump_union};

/// Applies one message; returns the I/O to do.
pub fn update(app: &mut App, msg: Msg) -> Vec<Command> {
    // A page of a look-ahead chain is the walk's page when the walk waits on it.
    let msg = match super::ahead::update::arrived(app, msg) {
        Ok(msg) => msg,
        Err(cmds) => return cmds,
    };
    // A refresh this message merges follows the top for a watcher (no pane open on the rows,
    // in server order), holds still for a reader.
    for tab in [Resource::Conversations, Resource::Visitors] {
        let pane = app.detail().is_open() && app.active() == tab;
        let watching = !pane && !app.sort().get(tab).sorted();
        with_tab!(app, tab, |t| t.set_watching(watching));
    }
    sort::update::before(app);
    let mut cmds = super::tab_query::run_pending(app);
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
                app.mark_dirty();
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
        Msg::Resize(w, h) => app.resize(w, h),
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
        Msg::ExportPathChecked { path, exists, free } => {
            for k in export::walk::on_checked(app, path, exists, free, &mut cmds) {
                layers::on_key(app, k, &mut cmds);
            }
        }
        Msg::ExportPathProposed { asked, free } => export::update::on_proposed(app, asked, free),
        Msg::Paste(text) => {
            on_paste(app, &text);
            app.mark_dirty();
        }
        Msg::PageLoaded {
            tab,
            generation,
            result,
        } => {
            super::names::wanted::page_arrived(app, (tab, generation), &result, &mut cmds);
            on_page(app, tab, generation, result)
        }
        Msg::PartLoaded {
            tab,
            generation,
            stream,
            head,
            result,
        } => {
            super::names::wanted::page_arrived(app, (tab, generation), &result, &mut cmds);
            super::tab_query::visitors::page_arrived(app, tab, generation, &result, &mut cmds);
            super::tab_query::part_loaded(app, tab, (generation, stream, head), result);
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
            if app.lookup_answered(ticket) {
                cmds.extend(super::tab_query::emails_resolved(
                    app, query, resolved, result,
                ))
            }
        }
        Msg::HeadLoaded {
            tab,
            generation,
            result,
        } => {
            super::names::wanted::page_arrived(app, (tab, generation), &result, &mut cmds);
            let merged = on_head(app, tab, generation, result, &mut cmds);
            if tab == Resource::Conversations && merged.is_some() {
                sample = Some(merged);
            }
        }
        Msg::HeldNow { id, row } => live::held_now(app, id, row.map(|r| *r)),
        Msg::VisitorNames(labels) => super::names::wanted::offered(app, labels),
        Msg::NamesLoaded { asked, found } => super::names::wanted::answered(app, asked, found),
        Msg::EmailResolved {
            ticket,
            email,
            base,
            result,
        } if app.lookup_answered(ticket) => {
            let shown = convo_text::one_line(&email, 60);
            match result {
                Err(e) => app.say_error(format!(
                    "visitor email {shown}: the lookup failed: {}",
                    convo_text::one_line(&e, 200)
                )),
                Ok(ids) if ids.is_empty() => {
                    app.say_error(convo_query::exit::no_visitor_with_email(&email))
                }
                Ok(ids) => {
                    let f = ConversationFilter {
                        visitor_id: (ids.len() == 1).then(|| ids[0]),
                        by_email: Some(convo_api::filter::ByEmail {
                            email,
                            visitors: ids,
                        }),
                        ..base
                    };
                    let from = here(app);
                    app.show_tab(Resource::Conversations);
                    set_conversations_from(app, from, f, &mut cmds);
                }
            }
            app.mark_dirty();
        }
        // A lookup a newer key replaced: dropped.
        Msg::EmailResolved { .. } => {}
        Msg::StoreVisitors {
            asked,
            known,
            store,
        } => {
            super::tab_query::visitors::answered(app, asked, known, store);
            pump_union(app, Resource::Conversations, &mut cmds);
        }
        Msg::VisitorAttributes { id, attributes } => {
            if app.detail_mut().visitor_answered(id, attributes) {
                app.mark_dirty();
            }
        }
        Msg::Samples { key, samples } => {
            board::update::on_samples(app, &key, &samples);
            if key == super::tab::marks::look_key_of(&app.conversations) {
                app.watch_mut().took_trend(key, samples);
                app.mark_dirty();
            }
        }
        Msg::LastLook {
            key,
            taken_at,
            rows,
        } => crate::looks::update::answered(app, key, taken_at, rows),
        Msg::VisitorSync(line) => {
            app.names_mut().sync_line = line;
            app.mark_dirty();
        }
        Msg::NamesWritten => super::names::wanted::written(app, &mut cmds),
        Msg::Notice { text, error } => {
            app.post(StatusMessage::new(text, error, app.now()));
            app.mark_dirty();
        }
        Msg::Copied { text, how } => {
            if matches!(how, super::clipboard::Copied::ToolFailed(..)) {
                cmds.push(Command::CopyByTerminal(text.clone()));
            }
            let (words, error) = how.words(&text);
            app.post(StatusMessage::new(words, error, app.now()));
        }
        Msg::ProgramDone {
            id,
            name,
            output,
            report,
        } => commands::update::done(app, id, name, output, report),
        Msg::ProfileLoaded { id, result } => {
            cmds.extend(profiles::update::profile_loaded(app, id, result));
            app.mark_dirty();
        }
        Msg::Retrying {
            tab,
            generation,
            cursor,
            notice,
        } => {
            let now = app.now();
            with_tab!(app, tab, |t| {
                // Not a page asked for ahead while the app waits on an earlier one.
                if t.waits_on(generation, cursor.as_deref()) {
                    t.retrying(Retry {
                        until: now.checked_add(notice.wait).unwrap_or(now),
                        attempt: notice.attempt,
                        reason: convo_text::one_line(&notice.reason, 200),
                        rate_limited: notice.rate_limited,
                        budget: notice.budget,
                    });
                    app.mark_dirty();
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
        // Made a `PageLoaded` (or dropped) by `ahead::update::arrived` above.
        Msg::AheadLoaded { .. } => {}
    }
    // While an oldest-first view is shown: its order and load-all set for each new walk of
    // its filters (before `fill`, which then asks for every page), or it ends.
    keep_oldest_first(app);
    // A page of a refresh that goes on is not yet a sample, nor a moment to ring.
    let (sample, imminent) = match head_of {
        Some(tab) if with_tab!(ref app, tab, |t| t.refreshing()) => (None, None),
        _ => (sample, imminent),
    };
    ask_for_now(app, sample, imminent, &mut cmds);
    // What is computed from the rows, for a tab whose rows (or how they are shown) changed:
    // the board's count, the search's matches, the order, the summary pane, the "since you
    // last looked" line (a union's parts mark rows as they come: the line follows the footer).
    crate::derived::update::recompute(app);
    // What the message and the tabs leave to say, and the status line kept true.
    live::say_lost(app);
    super::message::update::settle(app);
    // The walks' fetches go to their look-ahead chains (after every pass that asks for one).
    super::ahead::update::grant(app, &mut cmds);
    cmds
}

/// What to ask the runtime for now the message is applied (the steps that issue commands):
/// the detail pane's visitor, a sample of the trend and a ring (`sample`, `imminent`: what
/// the message was a moment for), the export's next step, the views' last looks, the tabs'
/// next pages (a union's rows handed to its table). Each asks only when there is something
/// to ask for; `fill` last, after everything that may want more pages (an export's walk, a
/// view's load-all).
fn ask_for_now(
    app: &mut App,
    sample: Option<Option<convo_engine::pager::Merged>>,
    imminent: Option<bool>,
    cmds: &mut Vec<Command>,
) {
    ask_detail_visitor(app, cmds);
    if let Some(refreshed) = sample {
        take_sample(app, refreshed.as_ref(), cmds);
    }
    if let Some(ring) = imminent {
        watch_imminent(app, ring, cmds);
    }
    export::walk::step(app, cmds);
    export::update::follow(app, cmds);
    // The tabs' query as their filters write it (the look keys and the chips read it).
    app.conversations.sync_query();
    app.visitors.sync_query();
    crate::looks::update::ask(app, cmds);
    fill(app, cmds);
}

/// Asks for the next page of each tab that wants one (at most one in flight per tab: the
/// pager hands out nothing while a request is pending).
fn fill(app: &mut App, cmds: &mut Vec<Command>) {
    let body = app.body_height();
    let limit = app.settings().limit();
    for tab in [app.active(), other(app.active())] {
        if pump_union(app, tab, cmds) {
            continue;
        }
        if let Some(c) = with_tab!(app, tab, |t| t.next_fetch(body, limit)) {
            app.mark_dirty();
            cmds.push(c);
        }
    }
}

/// Shows `tab`: a step Back takes back (to the tab left, on its row), as every other move.
fn switch_tab(app: &mut App, tab: Resource) {
    if tab != app.active() {
        let from = here(app);
        app.history_mut().push(from);
        app.show_tab(tab);
    }
}

fn other(tab: Resource) -> Resource {
    match tab {
        Resource::Conversations => Resource::Visitors,
        Resource::Visitors => Resource::Conversations,
    }
}

/// Pasted text: into the open prompt's text or the filter pane's focused field; elsewhere it
/// is not a key press and does nothing.
fn on_paste(app: &mut App, pasted: &str) {
    match app.prompt().clone() {
        Some(Prompt::Search(text)) => return search::update::on_paste(app, text, pasted),
        Some(Prompt::Query(line)) => return query_line::update::on_paste(app, *line, pasted),
        Some(Prompt::SaveView(s)) => return query_line::save::on_paste(app, *s, pasted),
        Some(Prompt::Export(mut path) | Prompt::ExportExists(mut path)) => {
            super::prompt::paste_line(&mut path, pasted);
            app.open_prompt(Prompt::Export(path));
            return;
        }
        Some(_) => return,
        None => {}
    }
    if let Overlay::Filter(form) = app.overlay_mut() {
        form.paste(pasted);
    }
}

/// `o`: opens the selected row in the web app.
fn open_in_browser(app: &mut App, cmds: &mut Vec<Command>) {
    let id = app.selected_id();
    match browser::url_for(app.settings().web_url(), app.active(), id) {
        Ok(url) => {
            app.say(format!("opening {}", convo_text::one_line(&url, 200)));
            cmds.push(Command::OpenUrl(url));
        }
        Err(why) => app.say(why),
    }
}

/// What an action does on the table, the bottom layer (what is over it took its keys first:
/// [`layers`]). The guarded arms come first: they are the table's modes (sorted, a union).
pub(super) fn on_action(app: &mut App, action: Action, cmds: &mut Vec<Command>) {
    let body = app.body_height() as isize;
    let sorted = app.sort().get(app.active()).sorted();
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
        Action::JumpLeft => live::jump_to_left(app),
        Action::Bottom => {
            super::tab_query::go_on(app);
            move_by(app, isize::MAX / 2)
        }
        Action::NextTab | Action::PrevTab => switch_tab(app, other(app.active())),
        Action::FirstTab => switch_tab(app, Resource::Conversations),
        Action::SecondTab => switch_tab(app, Resource::Visitors),
        Action::Filter => {
            let mut form = match app.active() {
                Resource::Conversations => FilterForm::conversations(app.conversations.filter())
                    .with_me(app.settings().query_settings().agent_id)
                    .with_aliases(app.settings().aliases()),
                Resource::Visitors => FilterForm::visitors(app.visitors.filter()),
            };
            // A query the fields cannot hold (a union, checks in convo): said in the pane.
            if with_tab!(ref app, app.active(), |t| t.union().is_some()) {
                form.query_note = Some(query_line::update::query_text(app, app.active()));
            }
            app.open_overlay(Overlay::Filter(Box::new(form)));
        }
        // The tab's query (filters set by the pane, or a query from `:`) is what is cleared,
        // and an e-mail filter still being looked up.
        Action::ClearFilters
            if app.query_of(app.active()).is_empty()
                && (app.active() != Resource::Conversations
                    || app.lookups_mut().cancel().is_none()) =>
        {
            app.say("no filters to clear")
        }
        Action::ClearFilters if app.query_of(app.active()).is_empty() => {
            app.say("filters cleared: the e-mail lookup was dropped")
        }
        Action::ClearFilters => match app.active() {
            Resource::Conversations => set_conversations(app, ConversationFilter::default(), cmds),
            Resource::Visitors => set_visitors(app, VisitorFilter::default(), cmds),
        },
        Action::ToggleUnassigned | Action::CycleStatus
            if app.active() != Resource::Conversations =>
        {
            app.say("u and s filter conversations: press 1 for that tab");
        }
        // A union tab: its query's term is what changes, the rest of the query stays.
        Action::ToggleUnassigned if app.conversations.union().is_some() => {
            cmds.extend(super::tab_query::toggle_unassigned(app))
        }
        Action::CycleStatus if app.conversations.union().is_some() => {
            cmds.extend(super::tab_query::cycle_status(app))
        }
        Action::ToggleUnassigned => {
            let mut f = app.conversations.filter().clone();
            f.assignee = match f.assignee {
                Assignee::Unassigned => Assignee::Any,
                _ => Assignee::Unassigned,
            };
            set_conversations(app, f, cmds);
        }
        Action::CycleStatus => {
            let mut f = app.conversations.filter().clone();
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
        Action::Views => app.open_overlay(Overlay::Views { selected: 0 }),
        Action::Query => query_line::update::open(app, cmds),
        Action::SaveView => query_line::save::open(app),
        Action::Detail => app.detail_mut().toggle(),
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
                app.say(format!("copying {}…", convo_api::short_id(&id)));
            }
            None => super::message::update::no_row_selected(app),
        },
        Action::Reload => {
            let max_pages = app.settings().refresh_max_pages();
            // An oldest-first view reads the whole list again before it shows it: its first
            // rows are the list's last.
            let whole = app.active() == Resource::Conversations && app.shows_oldest_first();
            let union = with_tab!(ref app, app.active(), |t| t.union().is_some()
                && t.error().is_none());
            if union {
                // The oldest-first view ("Breaching", a query) takes its order back.
                if whole {
                    filters::preset_oldest_first(app, false);
                }
                // A union is read again behind its rows, as a refresh (•, ~, × follow).
                if super::tab_query::refresh(app, app.active(), cmds) == Some(false) {
                    app.say("the streams are being read already");
                }
                return;
            }
            let c = with_tab!(app, app.active(), |t| {
                if t.error().is_some() && t.next().is_none() {
                    t.clear_error(); // retry the failed page; loaded rows stay
                    None
                } else {
                    Some(t.reload(max_pages, whole))
                }
            });
            cmds.extend(c);
            app.status_line_mut().clear();
        }
        Action::ToggleRefresh => {
            let now = app.now();
            let on = app.refresh_clock_mut().toggle(now);
            let text = match (on, app.refresh_period()) {
                (true, Some(s)) => format!("auto refresh every {s}s"),
                _ => "auto refresh off".to_string(),
            };
            app.say(text);
        }
        Action::LoadAll => {
            // The walk on screen waits while a reload (or another profile) is read behind
            // it: L would load nothing, and say it does.
            let (waiting, done, n) = with_tab!(ref app, app.active(), |t| (
                t.next().is_some(),
                t.walk().is_done(),
                t.rows().len()
            ));
            if done && !waiting {
                app.say(format!(
                    "all {} rows are loaded: L has nothing to load",
                    convo_text::thousands(n as u64)
                ));
            } else if waiting {
                // Said as an error: the status line shows the failed reload's error before a
                // notice, and this is what L met.
                app.post(StatusMessage::error(format!(
                    "L waits for the reload: it loads the rest once the reload has answered \
                     ({} tries it again)",
                    app.settings().keymap().key_of(Action::Reload)
                )));
            } else {
                with_tab!(app, app.active(), |t| t.load_whole());
                super::tab_query::go_on(app);
            }
        }
        Action::Summary => {
            summary_pane::update::open(app);
            if matches!(app.overlay(), Overlay::Summary(_)) {
                cmds.push(Command::Samples {
                    key: super::tab::marks::look_key_of(&app.conversations),
                    sample: None,
                });
            }
        }
        Action::Help => app.open_overlay(Overlay::Help {
            scroll: 0,
            under: None,
        }),
        // What is over the table (a pane, a running `L`) took Esc before it came here.
        Action::Close => app.status_line_mut().clear(),
        // The table is the top: nothing is over it to close.
        Action::Quit | Action::QuitNow => cmds.push(Command::Quit),
        Action::Suspend => cmds.push(Command::Suspend),
        Action::Search => search::update::open(app),
        Action::SearchNext => search::update::step_match(app, false),
        Action::SearchPrev => search::update::step_match(app, true),
        Action::SortNext => sort::update::cycle_sort(app, false),
        Action::SortPrev => sort::update::cycle_sort(app, true),
        Action::SortReverse => sort::update::reverse(app),
        Action::Export => export::update::open(app, cmds),
        Action::Open => open_in_browser(app, cmds),
        Action::CopyField => commands::update::open_copy_menu(app),
        Action::OpenVisitor => commands::update::open_visitor(app, cmds),
        // Marked, then on to the next row (as file managers do).
        Action::Mark => {
            if commands::update::toggle_mark(app) {
                on_action(app, Action::Down, cmds);
            }
        }
        Action::ClearMarks => commands::update::clear_marks(app),
        Action::Commands => commands::update::open_menu(app),
        Action::Profiles => profiles::update::open_picker(app),
    }
}

/// With the detail pane open on a conversation, asks the store once for its visitor's
/// attributes (the pane shows them when they come).
fn ask_detail_visitor(app: &mut App, cmds: &mut Vec<Command>) {
    if !app.detail().is_open() || app.active() != Resource::Conversations {
        return;
    }
    let Some(id) = app.conversations.selected_row().map(|c| c.visitor_id) else {
        return;
    };
    if app.detail_mut().ask_visitor(id) {
        cmds.push(Command::LoadVisitor(id));
    }
}
