//! A union tab's checks on a visitor's attributes (`visitor.plan:pro`), from the local store as
//! `convo list -q` reads them: the visitors of each stream page are asked of the store in one
//! command ([`Command::LookupVisitors`], answered by `Msg::StoreVisitors`); a row whose visitor
//! has no answer yet holds the walk at that row (in order, nothing after it shows first); a
//! visitor the store does not know fails the check, as in `list -q`. Without a store it is
//! said once on the status line, and the check passes no row.

use uuid::Uuid;

use crate::app::App;
use crate::command::Command;
use crate::msg::Loaded;
use convo_api::{ApiError, Resource};
use convo_query::query::eval::VisitorInfo;
use convo_query::query::{Pred, Term};

/// The first check on a visitor attribute (`visitor.plan`), when `checks` have one.
pub fn attr_field(checks: &[Term]) -> Option<String> {
    checks.iter().find_map(|t| match &t.pred {
        Pred::VisitorAttr(k, _) => Some(format!("visitor.{k}")),
        _ => None,
    })
}

/// The attribute field the Conversations union's checks read (`visitor.plan`), if any.
fn union_attr_field(app: &App) -> Option<String> {
    app.conversations
        .union()
        .as_ref()
        .and_then(|u| attr_field(&u.checks))
}

/// Whether the Conversations union's checks read the store (and there is one to read).
pub fn reads_store(app: &App) -> bool {
    !app.store_visitors().absent && union_attr_field(app).is_some()
}

/// A page of a stream of walk `generation` arrived: the visitors of its rows are asked of the
/// store at once (one command a page, not one a row).
pub fn page_arrived(
    app: &mut App,
    tab: Resource,
    generation: u64,
    result: &Result<Loaded, ApiError>,
    cmds: &mut Vec<Command>,
) {
    if tab != Resource::Conversations
        || generation != app.conversations.generation()
        || !reads_store(app)
    {
        return;
    }
    if let Ok(Loaded::Conversations(p)) = result {
        let ids = p.items.iter().map(|c| c.visitor_id);
        cmds.extend(app.store_visitors_mut().ask(ids));
    }
}

/// The store's answer to `Command::LookupVisitors`: what it knows of `asked` (`store`: false
/// when there is none). The caller then pumps the union on.
pub fn answered(app: &mut App, asked: Vec<Uuid>, known: Vec<(Uuid, VisitorInfo)>, store: bool) {
    let unknown = app.store_visitors_mut().answer(asked, known);
    if !store {
        app.store_visitors_mut().absent = true;
        say_missing(app);
    } else if unknown > 0 && !app.store_visitors().unknown_said {
        say_unknown(app, unknown);
    }
    app.mark_dirty();
}

/// Says once per query that its attribute check needs the store (when it has one).
pub fn say_missing(app: &mut App) {
    if app.store_visitors().said || !app.store_visitors().absent {
        return;
    }
    if let Some(field) = union_attr_field(app) {
        app.store_visitors_mut().said = true;
        app.say_error(format!(
            "{field} needs the local store (it is off or failed here): no row passes the check"
        ));
    }
}

/// Says once per query that visitors the store does not know (yet) do not match.
fn say_unknown(app: &mut App, unknown: usize) {
    if let Some(field) = union_attr_field(app) {
        app.store_visitors_mut().unknown_said = true;
        app.say(format!(
            "{field}: {unknown} visitor{} not in the local store yet and do{} not match; \
             r checks again after the sync",
            if unknown == 1 { " is" } else { "s are" },
            if unknown == 1 { "es" } else { "" }
        ));
    }
}

/// A query was shown: the store is read afresh for it (a missing one is said once again).
pub fn query_shown(app: &mut App) {
    // The store may be back (another profile): the first answer says again.
    app.store_visitors_mut().forget();
    app.store_visitors_mut().said = false;
    app.store_visitors_mut().unknown_said = false;
    app.store_visitors_mut().absent = false;
}
