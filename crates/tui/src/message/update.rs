//! Keeping the status line's message true: after every message to `update`, [`settle`] drops
//! the one whose lifetime ended, re-words a search's count, and keeps the last error whole.

use super::{Life, StatusMessage};
use crate::app::App;
use crate::tab::Replacing;

/// Drops the message whose lifetime has ended, re-words a search's count, and remembers the
/// error on the status line. A notice that covered a search's count gives it back when it
/// ends (not when Esc dismissed it).
pub fn settle(app: &mut App) {
    if let Some(m) = app.status_line_mut().shown.take() {
        let timed = !matches!(m.life, Life::Sticky | Life::Search { .. });
        let kept = still_true(app, m);
        let gone = kept.is_none();
        app.status_line_mut().shown = kept;
        if gone {
            app.mark_dirty();
            if timed {
                app.status_line_mut().shown = crate::search::update::search_message(app, false);
            }
        }
    }
    if let Some(e) = shown_error(app) {
        let now = app.now();
        super::remember(&mut app.status_line_mut().last_error, &e, now);
    }
}

/// An e-mail lookup begins over the Conversations tab's walk (any lookup in flight is
/// replaced), said on the status line for as long as it runs; its ticket.
pub fn looking_up(app: &mut App, what: String) -> u64 {
    let generation = app.conversations.generation();
    let ticket = app.lookups_mut().begin(generation, what.clone());
    app.post(StatusMessage {
        text: format!("looking up {what}… (Esc stops)"),
        error: false,
        life: Life::Lookup { ticket },
    });
    ticket
}

/// "no row selected" (a key that needs one): said until a row is selected.
pub fn no_row_selected(app: &mut App) {
    app.post(StatusMessage {
        text: "no row selected".into(),
        error: false,
        life: Life::NoRow {
            tab: app.active(),
            until: super::later(app.now()),
        },
    });
}

/// The message as it should read now, or `None` once it is no longer true.
fn still_true(app: &App, mut m: StatusMessage) -> Option<StatusMessage> {
    let now = app.now();
    let walk_of = |tab| with_tab!(ref app, tab, |t| (t.generation(), t.rows().len()));
    let alive = match &m.life {
        Life::Sticky => true,
        Life::Until(until) => now < *until,
        Life::Walk {
            tab,
            generation,
            until,
        }
        | Life::OfWalk {
            tab,
            generation,
            until,
        } => now < *until && app.active() == *tab && walk_of(*tab).0 == *generation,
        Life::Cut {
            tab,
            generation,
            live,
            until,
        } => {
            let (g, n) = walk_of(*tab);
            now < *until && app.active() == *tab && g == *generation && n > *live
        }
        Life::NoRow { tab, until } => {
            now < *until && with_tab!(ref app, *tab, |t| t.selected_row().is_none())
        }
        Life::Lookup { ticket } => app
            .lookups()
            .current(app.conversations.generation())
            .is_some_and(|l| l.ticket == *ticket),
        Life::Search {
            tab,
            query,
            stepped,
        } => {
            if app.active() != *tab || app.search().get(*tab).query != *query {
                return None;
            }
            let text = crate::search::update::search_words(app, *stepped);
            if text != m.text {
                m.text = text;
            }
            true
        }
    };
    alive.then_some(m)
}

/// The error the status line shows for the active tab, whole: a failed page, a failed
/// refresh, a retry's reason, an error message.
fn shown_error(app: &App) -> Option<String> {
    let (error, refresh_error, retry, next) = with_tab!(ref app, app.active(), |t| (
        t.error().map(str::to_string),
        t.refresh_error().map(str::to_string),
        t.retry().as_ref().map(|r| r.reason.clone()),
        t.next()
            .as_ref()
            .and_then(|n| Some((n.why.clone(), n.walk.error()?.to_string())))
    ));
    // A reload or profile switch read behind the rows that failed: the status line shows it
    // before any other error.
    let next = next.map(|(why, e)| match why {
        Replacing::Reload => format!("reload failed: {e}"),
        Replacing::Profile(name) => format!(
            "profile {} not loaded: {e}",
            convo_text::one_line(&name, 40)
        ),
    });
    next.or(error)
        .or_else(|| retry.map(|r| format!("{r} (retrying)")))
        .or_else(|| {
            app.status_line()
                .shown()
                .filter(|m| m.error)
                .map(|m| m.text.clone())
        })
        .or_else(|| refresh_error.map(|e| format!("refresh failed: {e}")))
}
