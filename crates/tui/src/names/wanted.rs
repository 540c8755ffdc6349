//! Which visitors' names the screen needs, and what to do when they come: a page of
//! conversations asks the store for the visitors the cache has nothing for, in one command
//! ([`Command::LoadNames`], answered by `Msg::NamesLoaded`); the store's answer and the
//! visitor sync's pages fill the cache ([`crate::names::VisitorNames`]), which keeps only the
//! visitors of loaded rows once it grows.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use crate::app::App;
use crate::command::Command;
use crate::msg::Loaded;
use crate::names::VisitorLabel;
use crate::search;
use convo_api::{ApiError, Resource};

/// Rows just loaded for `tab`'s walk `generation`: a conversations page of a walk still
/// wanted asks for its visitors' names; visitor rows put theirs on screen at once and go into
/// the store.
pub fn page_arrived(
    app: &mut App,
    (tab, generation): (Resource, u64),
    result: &Result<Loaded, ApiError>,
    cmds: &mut Vec<Command>,
) {
    let t = &app.conversations;
    let wanted = tab == Resource::Conversations
        && (t.generation() == generation
            || t.next()
                .as_ref()
                .is_some_and(|n| n.walk.generation() == generation));
    match result {
        Ok(Loaded::Conversations(p)) if wanted => {
            // One look-up a row in the cache (each visitor asked once, in the page's order);
            // rows are counted only for the visitors asked about, which after the first pages
            // of a walk (`L`) are none: no map built per page.
            let want = app.names_mut().want(p.items.iter().map(|c| c.visitor_id));
            if !want.is_empty() {
                let ids = want
                    .into_iter()
                    .map(|id| {
                        let n = p.items.iter().filter(|c| c.visitor_id == id).count();
                        (id, n as u32)
                    })
                    .collect();
                cmds.push(Command::LoadNames(ids));
            }
        }
        Ok(Loaded::Visitors(p)) if !p.items.is_empty() => {
            app.names_mut().learn(&p.items);
            cmds.push(Command::KeepVisitors(crate::names::VisitorRows(
                p.items.clone(),
            )));
            prune(app);
            app.mark_dirty();
        }
        _ => {}
    }
}

/// The store's answer to [`Command::LoadNames`].
pub fn answered(app: &mut App, asked: Vec<Uuid>, found: Vec<(Uuid, Option<VisitorLabel>)>) {
    app.names_mut().answered(&asked, found);
    prune(app);
    changed(app);
}

/// A page of the visitor sync: the visitors the cache holds take their labels.
pub fn offered(app: &mut App, labels: Vec<(Uuid, Option<VisitorLabel>)>) {
    if app.names_mut().offer(labels) {
        changed(app);
    }
}

/// Another convo wrote visitors into the store: the visitors of loaded rows the store did not
/// know are asked again (with their rows, as a page asks).
pub fn written(app: &mut App, cmds: &mut Vec<Command>) {
    let mut rows: HashMap<Uuid, u32> = HashMap::new();
    for c in app.conversations.rows() {
        if app.names().is_unknown(&c.visitor_id) {
            *rows.entry(c.visitor_id).or_default() += 1;
        }
    }
    if rows.is_empty() {
        return;
    }
    app.names_mut().ask_again(rows.keys().copied());
    cmds.push(Command::LoadNames(rows.into_iter().collect()));
}

/// Names changed: a search may now match rows it could not before.
fn changed(app: &mut App) {
    if !app.search().get(Resource::Conversations).query.is_empty() {
        let active = std::mem::replace(&mut app.active(), Resource::Conversations);
        search::update::refresh(app, true);
        app.show_tab(active);
    }
    app.mark_dirty();
}

/// Past its limit, the cache keeps only the visitors of the rows loaded.
fn prune(app: &mut App) {
    if !app.names().over_limit() {
        return;
    }
    let live: HashSet<Uuid> = app
        .conversations
        .rows()
        .iter()
        .map(|c| c.visitor_id)
        .chain(app.visitors.rows().iter().map(|v| v.id))
        .collect();
    app.names_mut().retain(&live);
}
