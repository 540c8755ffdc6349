//! Running a query on a tab (issue 22): [`run_query`] is what the query line, `convo --query`
//! and a `[[views]] query` call. The query is resolved (names, `me`) and planned; a plan of one
//! request's filters and no check is today's walk of those filters; anything else is a union
//! walk ([`crate::tab::union`]): its streams side by side, merged, its checks applied as rows
//! arrive. The tab keeps the query as written ([`App::query_of`]).

pub mod lookup;
pub mod store_visitors;
pub mod visitors;

use std::cell::Cell;

use crate::app::App;
use crate::command::Command;
use crate::msg::Loaded;
use crate::tab::{TabFilter, TabState, UnionWalk, Verdict};
use crate::update::place::{here, leaving_look};
use convo_api::{ApiError, Page, Resource};
use convo_query::query::eval::{Context, Filter, VisitorInfo};
use convo_query::query::plan::{self, Emails, Plan};
use convo_query::query::resolve::{Names, resolve};
use convo_query::query::{AssigneeRef, Pred, Query, Term};

/// Shows `q` on `tab` (and makes it the active tab). A query that cannot be resolved (an
/// unknown alias, `me` without `agent_id`) is an error on the status line with its caret
/// ([`convo_query::query::QueryError::render`]); the rows stay. `visitor:` e-mails are looked up
/// first (`GET /v1/visitors?email=`), then it runs.
pub fn run_query(app: &mut App, tab: Resource, q: Query) -> Vec<Command> {
    run(app, tab, q, false)
}

/// The query of the view opened at start ([`App::pending_query`]), run as the view's own
/// place: no history entry, nothing said when its filters were set already.
pub fn run_pending(app: &mut App) -> Vec<Command> {
    let Some(q) = app.take_queued_query() else {
        return Vec::new();
    };
    let history = app.history().clone();
    let tab = q.resource;
    let cmds = run(app, tab, q, true);
    *app.history_mut() = history;
    cmds
}

/// Back to a union shown before: run again (no history entry), selecting `row` once it shows
/// up. The tab on screen is the place's, not the query's.
pub fn restore(app: &mut App, q: Query, row: Option<crate::tab::Reselect>) -> Vec<Command> {
    let (active, tab) = (app.active(), q.resource);
    let history = app.history().clone();
    let cmds = run(app, tab, q, true);
    *app.history_mut() = history;
    app.show_tab(active);
    with_tab!(app, tab, |t| if t.union().is_some() {
        t.reselect_when_found(row);
    });
    cmds
}

fn run(app: &mut App, tab: Resource, q: Query, initial: bool) -> Vec<Command> {
    let mut cmds = Vec::new();
    app.mark_dirty();
    let text = q.to_string();
    if q.resource != tab {
        app.say_error(format!(
            "the query {:?} is for the {} list, not {}",
            convo_text::one_line(&text, 200),
            q.resource.name(),
            tab.name()
        ));
        return cmds;
    }
    let names = Names {
        agent_id: app.settings().query_settings().agent_id,
        aliases: app.settings().aliases(),
        sla: app.settings().sla(),
    };
    let resolved = match resolve(&q, &names) {
        Ok(r) => r,
        Err(e) => {
            app.say_error(e.render(&text));
            return cmds;
        }
    };
    let emails = plan::emails_to_resolve(&resolved);
    if tab == Resource::Conversations && !emails.is_empty() {
        let what = format!(
            "the visitors of {} e-mail address{}",
            emails.len(),
            if emails.len() == 1 { "" } else { "es" }
        );
        let ticket = crate::message::update::looking_up(app, what);
        cmds.push(Command::ResolveQueryEmails {
            ticket,
            query: q,
            resolved,
            emails,
        });
        return cmds;
    }
    show(app, tab, q, &resolved, &Emails::new(), initial, &mut cmds);
    first_requests(app, tab, &mut cmds);
    cmds
}

/// The answer to `Command::ResolveQueryEmails`: the query runs with the visitors found (or
/// the lookup's failure is said and the rows stay).
pub fn emails_resolved(
    app: &mut App,
    query: Query,
    resolved: Query,
    result: Result<Emails, String>,
) -> Vec<Command> {
    let mut cmds = Vec::new();
    app.mark_dirty();
    match result {
        Err(e) => app.say_error(format!(
            "query {}: looking up its visitors by e-mail failed: {}; the rows shown stay",
            convo_text::one_line(&query.to_string(), 200),
            convo_text::one_line(&e, 300)
        )),
        Ok(emails) => {
            let tab = query.resource;
            show(app, tab, query, &resolved, &emails, false, &mut cmds);
            first_requests(app, tab, &mut cmds);
        }
    }
    cmds
}

/// The filters of a plan of one stream and no check (today's walk), if it is one.
fn single<F: Clone>(p: &Plan<F>) -> Option<F> {
    match p.streams.as_slice() {
        [one] if p.checks.is_empty() => Some(one.clone()),
        _ => None,
    }
}

/// Puts `walk`'s plan on tab `t`: the filters when one request does, else a union walk.
fn place<T, F>(
    t: &mut TabState<T, F>,
    q: Query,
    p: Plan<F>,
    app_now: jiff::Timestamp,
) -> Option<Command>
where
    T: convo_api::Row + Clone + PartialEq,
    F: TabFilter,
{
    if let Some(f) = single(&p) {
        return t.set_query(q, f);
    }
    let limit = convo_api::Limit::new(t.walk().limit() as i64).unwrap_or(convo_api::Limit::MAX);
    let terms: Vec<Term> = p.terms();
    let shown = p.checks.iter().map(|c| c.shown.clone()).collect();
    Some(t.set_union(q, UnionWalk::new(p.streams, terms, shown, limit, app_now)))
}

fn show(
    app: &mut App,
    tab: Resource,
    q: Query,
    resolved: &Query,
    emails: &Emails,
    initial: bool,
    cmds: &mut Vec<Command>,
) {
    let from = here(app);
    let max = app.settings().query_settings().max_streams;
    let now = app.now();
    let (changed, notes) = match tab {
        Resource::Conversations => {
            let p = plan::conversations(resolved, emails, max);
            let notes = p.notes.clone();
            cmds.extend(leaving_look(app, Resource::Conversations));
            (place(&mut app.conversations, q, p, now), notes)
        }
        Resource::Visitors => {
            let p = plan::visitors(resolved, max);
            let notes = p.notes.clone();
            cmds.extend(leaving_look(app, Resource::Visitors));
            (place(&mut app.visitors, q, p, now), notes)
        }
    };
    app.show_tab(tab);
    if tab == Resource::Conversations {
        visitors::query_shown(app);
    }
    match changed {
        Some(c) => {
            app.history_mut().push(from);
            cmds.push(c);
        }
        None if from.active != tab => app.history_mut().push(from),
        None if initial => {}
        None => app.say("query unchanged"),
    }
    // A note on how the query is sent is true of this walk only: it goes with it.
    if let Some(n) = notes.last() {
        let generation = with_tab!(ref app, tab, |t| t.generation());
        app.post(crate::message::StatusMessage {
            text: format!("query: {}", convo_text::one_line(n, 300)),
            error: false,
            life: crate::message::Life::OfWalk {
                tab,
                generation,
                until: crate::message::later(app.now()),
            },
        });
    }
}

/// The first requests of the query just shown, at once (called inside `update`, its own fill
/// then finds them in flight and asks nothing twice).
fn first_requests(app: &mut App, tab: Resource, cmds: &mut Vec<Command>) {
    if let Pumped::NotUnion = pump(app, tab, cmds) {
        let (body, limit) = (app.body_height(), app.settings().limit());
        cmds.extend(with_tab!(app, tab, |t| t.next_fetch(body, limit)));
    }
}

/// The query of the view opened at start, placed on its tab before the browser starts (so
/// that "since you last looked" and the trend are asked for under its key); left for the
/// first `update` when it needs e-mails looked up first, or does not resolve (it says why).
pub fn place_pending(app: &mut App) {
    let Some(q) = app.queued_query().cloned() else {
        return;
    };
    let names = Names {
        agent_id: app.settings().query_settings().agent_id,
        aliases: app.settings().aliases(),
        sla: app.settings().sla(),
    };
    let Ok(resolved) = resolve(&q, &names) else {
        return;
    };
    if !plan::emails_to_resolve(&resolved).is_empty() {
        return;
    }
    app.queue_query(None);
    let tab = q.resource;
    let history = app.history().clone();
    // Nothing is loaded or in flight yet: the commands (a cancel) have nothing to do.
    show(
        app,
        tab,
        q,
        &resolved,
        &Emails::new(),
        true,
        &mut Vec::new(),
    );
    *app.history_mut() = history;
}

/// A page (or failure) of one stream of a union tab's walk: taken, a failed stream named on
/// the status line (the others go on).
pub fn part_loaded(
    app: &mut App,
    tab: Resource,
    (generation, stream, head): (u64, usize, bool),
    result: Result<Loaded, ApiError>,
) {
    let failed = match tab {
        Resource::Conversations => {
            let page = result.and_then(|l| match l {
                Loaded::Conversations(p) => Ok(p),
                Loaded::Visitors(_) => Err(mismatch()),
            });
            app.conversations.union_page(generation, stream, head, page)
        }
        Resource::Visitors => {
            let page: Result<Page<_>, _> = result.and_then(|l| match l {
                Loaded::Visitors(p) => Ok(p),
                Loaded::Conversations(_) => Err(mismatch()),
            });
            app.visitors.union_page(generation, stream, head, page)
        }
    };
    if let Some(why) = failed {
        app.say_error(why);
    }
    app.mark_dirty();
}

fn mismatch() -> ApiError {
    ApiError::Decode {
        detail: "a page of the other list answered a stream's request".into(),
    }
}

/// A stream's fetch task panicked: that stream failed, the others go on.
pub fn part_failed(
    app: &mut App,
    tab: Resource,
    (generation, stream, head): (u64, usize, bool),
    bug: String,
) {
    let e = ApiError::Network {
        detail: bug,
        attempts: 1,
    };
    let failed = match tab {
        Resource::Conversations => app
            .conversations
            .union_page(generation, stream, head, Err(e)),
        Resource::Visitors => app.visitors.union_page(generation, stream, head, Err(e)),
    };
    if let Some(why) = failed {
        app.say_error(why);
    }
}

/// What [`pump`] found.
pub enum Pumped {
    /// The tab walks one request's filters.
    NotUnion,
    /// A union tab; `Some` when its refresh was merged now.
    Union(Option<convo_engine::pager::Merged>),
}

/// For a union tab: hands its rows that pass the checks to the table and asks for the
/// streams' pages the merge (and a refresh under way) needs.
pub fn pump(app: &mut App, tab: Resource, cmds: &mut Vec<Command>) -> Pumped {
    let body = app.body_height();
    let scan = app.settings().scan_max_pages();
    let now = app.now();
    let (tz, sla, aliases) = (
        app.settings().tz().clone(),
        app.settings().sla().clone(),
        app.settings().aliases().clone(),
    );
    let (sla, aliases) = (&*sla, &*aliases);
    let stale_after_secs = app.settings().stale_after_secs();
    let ctx = |at| Context {
        now: at,
        tz: tz.clone(),
        sla,
        stale_after_secs,
        aliases,
    };
    let notices = match tab {
        Resource::Conversations => {
            let (t, names, store_visitors) = app.conversations_with_visitors();
            let Some((checks, since)) = t.union_checks(now) else {
                return Pumped::NotUnion;
            };
            let f = Filter::new(&checks, ctx(since));
            // Attributes come from the local store, as `list -q` reads them; names and
            // e-mails are known on screen already.
            let store = &*store_visitors;
            let reads_store = !store.absent && visitors::attr_field(&checks).is_some();
            let waiting: Cell<Option<uuid::Uuid>> = Cell::new(None);
            let label = |c: &convo_api::Conversation| {
                names.get(&c.visitor_id).map(|l| VisitorInfo {
                    name: l.name.as_deref().map(str::to_string),
                    email: l.email.as_deref().map(str::to_string),
                    attributes: serde_json::Value::Null,
                })
            };
            let pass = |c: &convo_api::Conversation| -> Verdict {
                if f.is_empty() {
                    return Verdict::Pass;
                }
                if !reads_store {
                    return f.conversation(c, label(c).as_ref()).into();
                }
                match store.get(&c.visitor_id) {
                    None => {
                        waiting.set(Some(c.visitor_id));
                        Verdict::Wait
                    }
                    Some(Some(v)) => f.conversation(c, Some(v)).into(),
                    // Not in the store: its attributes are unknown, the check fails.
                    Some(None) => f.conversation(c, label(c).as_ref()).into(),
                }
            };
            let (c, merged) = t.pump(body, scan, &pass);
            cmds.extend(c);
            let notices = t.take_union_notices();
            // A row waits for a visitor no page asked for (a walk restarted after `forget`).
            if let Some(id) = waiting.get() {
                cmds.extend(store_visitors.ask([id]));
            }
            (merged, notices)
        }
        Resource::Visitors => {
            let t = &mut app.visitors;
            let Some((checks, since)) = t.union_checks(now) else {
                return Pumped::NotUnion;
            };
            let f = Filter::new(&checks, ctx(since));
            let pass = |v: &convo_api::Visitor| Verdict::from(f.is_empty() || f.visitor(v));
            let (c, merged) = t.pump(body, scan, &pass);
            cmds.extend(c);
            (merged, t.take_union_notices())
        }
    };
    let (merged, notices) = notices;
    for n in notices {
        app.say(n);
    }
    Pumped::Union(merged)
}

/// `r` or the periodic refresh on a union tab: its streams are read again behind the rows.
/// `None` when the tab walks one request's filters; `Some(false)` when a refresh is under way
/// already (or nothing is loaded yet).
pub fn refresh(app: &mut App, tab: Resource, cmds: &mut Vec<Command>) -> Option<bool> {
    // The oldest-first view ("Breaching": `due:breaching`) shows its oldest rows first, the
    // end of its streams: a refresh re-reads all of them (its walk loads every page anyway),
    // so that a breach taken by a colleague leaves it and a new one comes.
    let whole = tab == Resource::Conversations && app.shows_oldest_first();
    let max_pages = if whole {
        usize::MAX
    } else {
        app.settings().refresh_max_pages()
    };
    let now = app.now();
    let (started, c) = with_tab!(app, tab, |t| match t.union().is_some() {
        true => t.union_refresh(now, max_pages),
        false => return None,
    });
    if c.is_some() {
        // Started over: the period runs from now.
        app.refresh_clock_mut().restart(now);
    }
    if started && tab == Resource::Conversations {
        // Attributes may have changed since: the store is read again for the re-read rows.
        app.store_visitors_mut().forget();
    }
    cmds.extend(c);
    Some(started)
}

/// `L` or `G` on a union tab: its scan goes on past its page budget.
pub fn go_on(app: &mut App) {
    with_tab!(app, app.active(), |t| t.go_on_scan());
}

/// The active tab is a union whose streams are scanned for rows its checks keep (Esc stops
/// the scan where it is).
pub fn scanning(app: &App) -> bool {
    with_tab!(ref app, app.active(), |t| t.scanning())
}

/// Esc while the active union tab scans ([`scanning`]): it stops until `L`; true if it did.
pub fn stop(app: &mut App) -> bool {
    with_tab!(app, app.active(), |t| t.stop_scan())
}

/// The Conversations tab's query with its terms of `field` replaced by `term` (none: dropped).
fn with_term(app: &App, field: &str, term: Option<Pred>) -> Query {
    let mut q = app.query_of(Resource::Conversations).clone();
    q.terms.retain(|t| t.pred.field() != field);
    q.terms.extend(term.map(|p| Term::new(false, p)));
    q
}

/// `s` on a union tab: its status term cycles open → pending → closed → none (from any other
/// status term, open), the rest of the query kept.
pub fn cycle_status(app: &mut App) -> Vec<Command> {
    use convo_api::Status;
    let now = app
        .query_of(Resource::Conversations)
        .terms
        .iter()
        .find_map(|t| match &t.pred {
            Pred::Status(v) if !t.negated && v.len() == 1 => Some(v[0].clone()),
            _ => None,
        });
    let next = match now {
        Some(Status::Open) => Some(Status::Pending),
        Some(Status::Pending) => Some(Status::Closed),
        Some(Status::Closed) => None,
        _ => Some(Status::Open),
    };
    let q = with_term(app, "status", next.map(|s| Pred::Status(vec![s])));
    run_query(app, Resource::Conversations, q)
}

/// `u` on a union tab: `assignee:none` on (replacing its assignee term) or off, the rest of
/// the query kept.
pub fn toggle_unassigned(app: &mut App) -> Vec<Command> {
    let on = app
        .query_of(Resource::Conversations)
        .terms
        .iter()
        .any(|t| !t.negated && t.pred == Pred::Assignee(vec![AssigneeRef::None]));
    let term = (!on).then(|| Pred::Assignee(vec![AssigneeRef::None]));
    let q = with_term(app, "assignee", term);
    run_query(app, Resource::Conversations, q)
}
