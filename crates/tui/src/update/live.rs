//! What a live list did under the user, said on the status line: the selected row that left
//! the view at a refresh (it stays under the cursor, [`crate::tab::Held`]), and Back's
//! row that could not be found again.

use crate::app::App;
use crate::keys::Action;
use crate::tab::{TabFilter, TabState};
use convo_api::Resource;
use convo_api::model::short_id;
use convo_engine::pager::Merged;

/// "the selected 80be9fe2 left this view (now assigned to Ana, open); it stays until you
/// move" when the row under the cursor left at this refresh.
pub fn held_news(app: &App, tab: Resource, merged: &Merged) -> Option<String> {
    let (id, words) = match tab {
        Resource::Conversations => {
            let h = app.conversations.held()?;
            (h.row.id, crate::detail::left_words(app, h))
        }
        Resource::Visitors => {
            let h = app.visitors.held()?;
            (h.row.id, "the service no longer lists it here".to_string())
        }
    };
    merged.left_ids.contains(&id).then(|| {
        format!(
            "the selected {} left this view: {words}; it stays (×) until you move ({}/{})",
            short_id(&id),
            app.keymap.key_of(Action::Down),
            app.keymap.key_of(Action::Up)
        )
    })
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
    let lost = t.lost.take()?;
    let n = t.rows().len();
    Some(if t.pager.is_done() {
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
