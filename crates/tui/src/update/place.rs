//! Moving between filters with Back remembered: where the user is now ([`here`]), showing other
//! filters on a tab (the place left goes on the history), and the look kept of the
//! Conversations view being left. `update` and features that drill down (the summary pane)
//! share it, so it imports neither.

use crate::app::App;
use crate::command::Command;
use crate::history::{Place, TabPlace};
use crate::tab::marks;
use convo_api::{ConversationFilter, VisitorFilter};

/// The look of `tab`'s view being left for other filters (see [`marks::look_of`]).
pub fn leaving_look(app: &App, tab: convo_api::Resource) -> Option<Command> {
    let key = marks::look_key(app, tab);
    match tab {
        convo_api::Resource::Conversations => marks::look_of(&app.conversations, key),
        convo_api::Resource::Visitors => marks::look_of(&app.visitors, key),
    }
}

/// The store has started (at start, or a profile's): each tab's "since you last looked" is
/// asked for. The Conversations view's key, which the store's link asks for at once; the
/// Visitors view's is asked for by the next `update`.
pub fn store_started(app: &mut App) -> String {
    let key = marks::look_key_of(&app.conversations);
    app.looks_mut().store_started(key.clone());
    key
}

/// Where the user is now (the tab on screen, each tab's filters and selected row), for Back.
pub fn here(app: &App) -> Place {
    Place {
        active: app.active(),
        conversations: TabPlace {
            filter: app.conversations.filter().clone(),
            selected: app.conversations.selection(),
            union: app
                .conversations
                .union()
                .as_ref()
                .map(|_| app.conversations.query().clone()),
            sort: app.sort().conversations.sort,
        },
        visitors: TabPlace {
            filter: app.visitors.filter().clone(),
            selected: app.visitors.selection(),
            union: app
                .visitors
                .union()
                .as_ref()
                .map(|_| app.visitors.query().clone()),
            sort: app.sort().visitors.sort,
        },
        oldest_first: app.shows_oldest_first(),
    }
}

pub(super) fn set_conversations(app: &mut App, f: ConversationFilter, cmds: &mut Vec<Command>) {
    let from = here(app);
    set_conversations_from(app, from, f, cmds);
}

/// Shows `f` on the Conversations tab; `from` (where the user was before, perhaps on the
/// other tab) is remembered for Back when something changed.
pub fn set_conversations_from(
    app: &mut App,
    from: Place,
    f: ConversationFilter,
    cmds: &mut Vec<Command>,
) {
    if &f != app.conversations.filter() {
        cmds.extend(leaving_look(app, convo_api::Resource::Conversations));
    }
    match app.conversations.set_filter(f) {
        Some(c) => {
            app.history_mut().push(from);
            cmds.push(c);
        }
        // The same filters, reached from the other tab: going back is still a move.
        None if from.active != app.active() => app.history_mut().push(from),
        None => app.say("filters unchanged"),
    }
}

pub(super) fn set_visitors(app: &mut App, f: VisitorFilter, cmds: &mut Vec<Command>) {
    let from = here(app);
    set_visitors_from(app, from, f, cmds);
}

pub(super) fn set_visitors_from(
    app: &mut App,
    from: Place,
    f: VisitorFilter,
    cmds: &mut Vec<Command>,
) {
    if &f != app.visitors.filter() {
        cmds.extend(leaving_look(app, convo_api::Resource::Visitors));
    }
    match app.visitors.set_filter(f) {
        Some(c) => {
            app.history_mut().push(from);
            cmds.push(c);
        }
        None if from.active != app.active() => app.history_mut().push(from),
        None => app.say("filters unchanged"),
    }
}
