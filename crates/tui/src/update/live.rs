//! What a live list did under the user, said on the status line: the selected row that left
//! the view at a refresh (it stays under the cursor, [`crate::tab::Held`]), and Back's
//! row that could not be found again.

use crate::app::App;
use crate::command::Command;
use crate::keys::Action;
use crate::tab::{TabFilter, TabState};
use convo_api::model::short_id;
use convo_api::{Resource, Row};
use convo_engine::pager::Merged;

/// "80be9fe2 (selected) left this view: now assigned to Ana, open" when the row under the
/// cursor left at this refresh (it stays there, marked ×, until the user moves).
pub fn held_news(app: &App, tab: Resource, merged: &Merged) -> Option<String> {
    let (id, words) = match tab {
        Resource::Conversations => {
            let h = app.conversations.held()?;
            (h.row.id, crate::detail::left_words(app, h))
        }
        Resource::Visitors => {
            let h = app.visitors.held()?;
            (h.row.id, "no longer listed here".to_string())
        }
    };
    merged
        .left_ids
        .contains(&id)
        .then(|| format!("{} (selected) left this view: {words}", short_id(&id)))
}

/// The conversation held under the cursor left at this refresh and the refresh did not read
/// what it is now (one request's filters: the service no longer lists it here): asks its
/// visitor's conversations, so that the pane shows it as it is now.
pub fn look_up_held(app: &App, merged: &Merged) -> Option<Command> {
    let h = app.conversations.held()?;
    (h.now.is_none() && merged.left_ids.contains(&h.row.id)).then_some(Command::LookUpHeld {
        id: h.row.id,
        visitor_id: h.row.visitor_id,
    })
}

/// The answer of [`look_up_held`].
pub fn held_now(app: &mut App, id: uuid::Uuid, row: Option<convo_api::Conversation>) {
    if let Some(c) = row.filter(|c| c.id == id) {
        app.conversations.held_now(id, c);
        // The refresh's news said it was no longer listed: now it can say what it is.
        let words = app
            .conversations
            .held()
            .filter(|h| h.row.id == id)
            .map(|h| crate::detail::left_words(app, h));
        let was = format!(
            "{} (selected) left this view: no longer listed here",
            short_id(&id)
        );
        if let Some(words) = words {
            let now = format!("{} (selected) left this view: {words}", short_id(&id));
            app.status_line_mut().reword(&was, &now);
        }
        app.mark_dirty();
    }
}

/// The rows that left at this refresh other than the one held under the cursor, said with
/// which (their ids, the first three) and the key that shows where: "1a2b3c4d left the list
/// (' shows where)", "5 rows left the list: 1a2b3c4d, 5e6f7a8b, 9c0d1e2f and 2 more".
pub fn left_news(app: &App, tab: Resource, merged: &Merged) -> Option<String> {
    let held = with_tab!(ref app, tab, |t| t.held().map(|h| h.row.id()));
    let others: Vec<_> = merged
        .left_ids
        .iter()
        .filter(|id| Some(**id) != held)
        .collect();
    // Where they were shows in the service's order only (a display sort hides them).
    let key = app.settings().keymap().key_of(Action::JumpLeft);
    let hint = if app.sort().get(tab).sorted() {
        String::new()
    } else {
        format!(" ({key} shows where)")
    };
    let named = |ids: &[&uuid::Uuid]| {
        ids.iter()
            .take(3)
            .map(|id| short_id(id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match others.as_slice() {
        [] => None,
        few @ [_, ..] if few.len() <= 3 => Some(format!("{} left the list{hint}", named(few))),
        more => Some(format!(
            "{} rows left the list: {} and {} more{hint}",
            more.len(),
            named(more),
            more.len() - 3
        )),
    }
}

/// The jump key: the cursor goes to where the next row that left at the last refresh with
/// departures was (the row that took its place; until the next refresh the row that left
/// shows there, marked ×, just above it), the next one at each press. Said when none left.
pub fn jump_to_left(app: &mut App) {
    let body = app.body_height();
    let found = with_tab!(app, app.active(), |t| {
        let rows = t.rows();
        let held = t.held().map(|h| h.row.id());
        // Where each row that left shows: before the loaded row at this index.
        let mut places: Vec<(usize, uuid::Uuid)> = t
            .left_places()
            .iter()
            .filter(|(id, _)| Some(*id) != held)
            .map(|(id, after)| {
                let at = match after {
                    None => 0,
                    Some(a) => rows.iter().position(|r| r.id() == *a).map_or(0, |p| p + 1),
                };
                (at, *id)
            })
            .collect();
        places.sort();
        let next = places
            .iter()
            .find(|(at, _)| *at > t.selected())
            .or(places.first())
            .copied();
        if let Some((at, _)) = next {
            let last = rows.len().saturating_sub(1);
            t.select(at.min(last), body);
            // The row that left shows above the cursor: keep it on screen.
            if t.offset() == at.min(last) && t.offset() > 0 {
                t.reveal_above();
            }
        }
        next.map(|(_, id)| (id, places.len()))
    });
    // Shown × above the cursor until the next refresh; after it, only the place is left.
    let shown = with_tab!(ref app, app.active(), |t| t.walk().gone().count() > 0);
    let how = if shown {
        "×, above the cursor"
    } else {
        "from above the cursor"
    };
    match found {
        Some((id, n)) => app.say(format!(
            "{} left the list here ({how}){}",
            short_id(&id),
            if n > 1 {
                format!(
                    "; {n} left, {} goes to the next",
                    app.settings().keymap().key_of(Action::JumpLeft)
                )
            } else {
                String::new()
            }
        )),
        None => app.say("no row left the list at the last refresh"),
    }
}

/// A row Back (or a reload) was to select again and did not find, said once: "80be9fe2 is
/// no longer in this view" (the walk ended without it), or not within the rows looked
/// through. The cursor is where it was.
pub fn say_lost(app: &mut App) {
    let said = [
        lost_words(&mut app.conversations),
        lost_words(&mut app.visitors),
    ];
    for text in said.into_iter().flatten() {
        app.say(text);
    }
}

fn lost_words<T: convo_api::Row + Clone + PartialEq, F: TabFilter>(
    t: &mut TabState<T, F>,
) -> Option<String> {
    let lost = t.take_lost()?;
    let n = t.rows().len();
    Some(if t.walk().is_done() {
        format!(
            "{} is no longer in this view (all {} rows looked through); the cursor is where it was",
            short_id(&lost.id),
            convo_text::thousands(n as u64)
        )
    } else {
        format!(
            "{} was not found again in the first {} rows (it left this view or moved further \
             down); the cursor is where it was",
            short_id(&lost.id),
            convo_text::thousands(n as u64)
        )
    })
}
