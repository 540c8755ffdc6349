//! Answers of fetches: a page of a walk applied (or of the walk read behind the rows on screen,
//! which then takes their place), and a task that panicked taken as failed.

use crate::app::App;
use crate::marks::Watched;
use crate::msg::{Loaded, Task};
use crate::tab::marks;
use convo_api::{ApiError, Page, Resource};

/// A background task panicked (see `tasks`): the app goes on as if it had failed, and says so.
pub(super) fn on_task_failed(app: &mut App, task: Task, message: &str) {
    let bug = format!("internal error (a bug in convo): {message}");
    match task {
        Task::Page { tab, generation } => with_tab!(app, tab, |t| {
            if t.next()
                .as_ref()
                .is_some_and(|n| n.walk.generation() == generation)
            {
                t.next_failed(bug);
            } else if t.generation() == generation && t.walk().is_loading() {
                t.fail(bug);
            }
        }),
        Task::Part {
            tab,
            generation,
            stream,
            head,
        } => crate::tab_query::part_failed(app, tab, (generation, stream, head), bug),
        Task::Head { tab, generation } => with_tab!(app, tab, |t| {
            if t.generation() == generation {
                t.refresh_failed(bug);
            }
        }),
        Task::Export => {
            app.exports_mut().writing_failed();
            app.say_error(format!("export failed: {bug}; the file may be incomplete"));
        }
        Task::Lookup { ticket } => {
            if app.lookup_answered(ticket) {
                app.say_error(format!("the e-mail lookup failed: {bug}"));
            }
        }
        Task::Profile => {
            app.profiles_mut().switching = None;
            app.say_error(format!("profile not switched: {bug}"));
        }
        Task::View { .. } => {} // taken by `update` (the round goes on)
        Task::HeldNow => {}     // the pane keeps the row as last seen
    }
    app.mark_dirty();
}

pub(super) fn conversations_page(
    r: Result<Loaded, ApiError>,
) -> Result<Page<convo_api::Conversation>, ApiError> {
    match r? {
        Loaded::Conversations(p) => Ok(p),
        Loaded::Visitors(_) => Err(ApiError::Decode {
            detail: "a visitors page answered a conversations request".into(),
        }),
    }
}

pub(super) fn visitors_page(
    r: Result<Loaded, ApiError>,
) -> Result<Page<convo_api::Visitor>, ApiError> {
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
fn on_next_page<T: Watched + Clone + PartialEq, F: crate::tab::TabFilter>(
    t: &mut crate::tab::TabState<T, F>,
    generation: u64,
    result: Result<Page<T>, ApiError>,
    body: usize,
) -> bool {
    let Some(n) = t.next().filter(|n| n.walk.generation() == generation) else {
        return false;
    };
    if !n.walk.is_loading() {
        return true; // not asked for: dropped
    }
    let reload = n.why == crate::tab::Replacing::Reload;
    if t.next_page(generation, result) {
        if reload {
            marks::before_reload(t, generation);
        }
        t.take_next(body);
        marks::after_page(t, 0);
    }
    true
}

pub(super) fn on_page(
    app: &mut App,
    tab: Resource,
    generation: u64,
    result: Result<Loaded, ApiError>,
) {
    let body = app.body_height();
    match tab {
        Resource::Conversations => {
            let t = &mut app.conversations;
            if t.next().is_some() {
                if on_next_page(t, generation, conversations_page(result), body) {
                    crate::looks::update::say(app, Resource::Conversations);
                    app.mark_dirty();
                }
                return;
            }
            let start = t.rows().len();
            if !t.apply(generation, conversations_page(result), body) {
                return; // an older walk's answer (or one not asked for): dropped
            }
            marks::after_page(t, start);
            crate::looks::update::say(app, Resource::Conversations);
        }
        Resource::Visitors => {
            let t = &mut app.visitors;
            if t.next().is_some() {
                if on_next_page(t, generation, visitors_page(result), body) {
                    crate::looks::update::say(app, Resource::Visitors);
                    app.mark_dirty();
                }
                return;
            }
            let start = t.rows().len();
            if !t.apply(generation, visitors_page(result), body) {
                return; // an older walk's answer (or one not asked for): dropped
            }
            marks::after_page(t, start);
            crate::looks::update::say(app, Resource::Visitors);
        }
    }
    app.mark_dirty();
}
