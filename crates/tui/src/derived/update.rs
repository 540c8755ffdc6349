//! The recomputation of what is derived from a tab's rows, when its basis changed.

use super::Basis;
use crate::app::App;
use crate::{board, search, sort, summary_pane};
use convo_api::Resource;

fn basis(app: &App, tab: Resource) -> Basis {
    let (names, body, active) = (
        app.names().revision(),
        app.body_height(),
        app.active() == tab,
    );
    with_tab!(ref app, tab, |t| Basis {
        generation: t.generation(),
        rows: t.rows().len(),
        revision: t.marks().revision(),
        done: t.walk().is_done(),
        loading: t.load_all() && t.walk().has_more() && t.error().is_none(),
        selected: t.selected(),
        held: t.held().is_some(),
        names,
        body,
        active,
    })
}

/// Brings the derived state of each tab whose basis changed up to date: the board's count
/// of its view, its search's matches, its display order, the summary pane (the
/// Conversations tab's, also when the minute turns) and the "since you last looked" line.
pub(crate) fn recompute(app: &mut App) {
    let minute = app.now().as_second().div_euclid(60);
    let new_minute = app.derived().minute != Some(minute);
    app.derived_mut().minute = Some(minute);
    for tab in [Resource::Conversations, Resource::Visitors] {
        let now = basis(app, tab);
        let changed = *app.derived().of.get(tab) != Some(now);
        let rows = (now.generation, now.rows, now.revision);
        if app
            .derived()
            .rows_at
            .get(tab)
            .is_none_or(|(r, _)| r != rows)
        {
            let at = app.now();
            *app.derived_mut().rows_at.get_mut(tab) = Some((rows, at));
        }
        if changed && board::update::shown(app) {
            // Counted when the board shows it (or opens): a whole walk of 300,000 rows
            // counted at its last page delayed the frame that says it is done.
            board::update::from_tab(app, tab);
        }
        if changed {
            search::update::refresh_tab(app, tab, false);
            sort::update::refresh_tab(app, tab, false);
            crate::looks::update::say(app, tab);
        }
        if tab == Resource::Conversations && (changed || new_minute) {
            summary_pane::update::refresh(app);
        }
        // The order may select another row (the top one, followed): its basis is after.
        *app.derived_mut().of.get_mut(tab) = Some(basis(app, tab));
    }
}
