//! What "since you last looked" does as messages come: asks the store for a view's look,
//! takes its answer, says the count.

use super::SinceLook;
use crate::app::App;
use crate::command::Command;
use crate::message::StatusMessage;
use crate::tab::marks;
use convo_api::Resource;

/// A view just shown (another key than the one asked for last) asks the store what it kept
/// of it, once the store runs.
pub(crate) fn ask(app: &mut App, cmds: &mut Vec<Command>) {
    for tab in [Resource::Conversations, Resource::Visitors] {
        let Some(asked) = app.looks().asked.get(tab) else {
            continue;
        };
        let key = marks::look_key(app, tab);
        if *asked != key {
            *app.looks_mut().asked.get_mut(tab) = Some(key.clone());
            cmds.push(Command::LoadLook(key));
        }
    }
}

/// The store's last look of view `key` (taken at `taken_at`, its `rows`): the tab that shows
/// that view marks its rows against it and says the counts (none: the user has moved on).
pub(crate) fn answered(app: &mut App, key: String, taken_at: i64, rows: Vec<(uuid::Uuid, u64)>) {
    let tab = if key == marks::look_key_of(&app.conversations) {
        Resource::Conversations
    } else if key == marks::visitors_look_key_of(&app.visitors) {
        Resource::Visitors
    } else {
        return;
    };
    let since = with_tab!(app, tab, |t| {
        marks::since_look(t, rows.into_iter().collect());
        SinceLook {
            generation: t.generation(),
            taken_at,
            revision: t.marks().revision(),
            said: None,
        }
    });
    *app.looks_mut().kept.get_mut(tab) = Some(since);
    say(app, tab);
}

/// "12 new, 3 changed since yesterday 17:40" while the first walk is compared with the last
/// look (another walk, or a refresh's own marks, end it); said again when the walk's pages
/// change the counts (a union's parts too), so that it agrees with the footer's `• N new`.
pub(crate) fn say(app: &mut App, tab: Resource) {
    let Some(since) = *app.looks().kept.get(tab) else {
        return;
    };
    let (generation, revision) =
        with_tab!(ref app, tab, |t| (t.generation(), t.marks().revision()));
    if since.generation != generation || since.revision != revision {
        *app.looks_mut().kept.get_mut(tab) = None;
        return;
    }
    // Said on its own tab only: the other tab's would take the line from it and then not show
    // (its footer counts its marks).
    if tab != app.active() {
        return;
    }
    let (new, changed) = with_tab!(ref app, tab, |t| t.marks().counts(generation));
    // Said again only when more came (a mark seen, by selecting its row, is no news).
    if since.said.is_some_and(|(n, c)| new <= n && changed <= c) {
        return;
    }
    if let Some(s) = app.looks_mut().kept.get_mut(tab) {
        s.said = Some((new, changed));
    }
    let taken_at = since.taken_at;
    let when = crate::names::since_words(app.now(), app.settings().tz(), taken_at);
    app.post(StatusMessage {
        text: format!("{new} new, {changed} changed since {when}"),
        error: false,
        life: crate::message::Life::Walk {
            tab,
            generation,
            until: crate::message::later(app.now()),
        },
    });
    app.mark_dirty();
}
