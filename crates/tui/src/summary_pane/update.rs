//! How `S` and the keys of the open pane change the app.

use crossterm::event::{KeyCode, KeyEvent};

use super::{Key, SummaryPane, cycle};
use crate::app::App;
use crate::command::Command;
use crate::overlay::Overlay;

/// `S`: opens the pane (Conversations only).
pub fn open(app: &mut App) {
    if app.active() != convo_api::Resource::Conversations {
        app.say("the summary is for conversations: press 1 for that tab, then S");
        return;
    }
    let pane = SummaryPane::new(app.now(), app.settings().stale_after_secs())
        .with_sla(app.settings().sla().clone());
    app.open_overlay(Overlay::Summary(Box::new(pane)));
    refresh(app);
}

/// The Conversations tab's rows (or the minute) changed: an open pane's counts are brought up to
/// date with them ([`crate::update::derive`]).
pub fn refresh(app: &mut App) {
    let (stale_after, aliases, now) = (
        app.settings().stale_after_secs(),
        app.settings().aliases().clone(),
        app.now(),
    );
    if !matches!(app.overlay(), Overlay::Summary(_)) {
        return;
    }
    // Taken out while the tab's rows are read, then put back.
    let mut o = std::mem::replace(app.overlay_mut(), Overlay::None);
    let changed = match &mut o {
        Overlay::Summary(p) => p.refresh(&app.conversations, now, stale_after, &aliases),
        _ => false,
    };
    *app.overlay_mut() = o;
    if changed {
        app.mark_dirty();
    }
}

/// A key while the pane is open.
pub fn on_key(app: &mut App, k: KeyEvent, cmds: &mut Vec<Command>) {
    let aliases = app.settings().aliases().clone();
    let Overlay::Summary(p) = app.overlay_mut() else {
        return;
    };
    let n = p.buckets.len();
    match k.code {
        KeyCode::Esc | KeyCode::Char('S') => app.close_overlay(),
        KeyCode::Down | KeyCode::Char('j') => {
            p.selected = (p.selected + 1).min(n.saturating_sub(1))
        }
        KeyCode::Up | KeyCode::Char('k') => p.selected = p.selected.saturating_sub(1),
        KeyCode::Home | KeyCode::Char('g') => p.selected = 0,
        KeyCode::End | KeyCode::Char('G') => p.selected = n.saturating_sub(1),
        KeyCode::Tab | KeyCode::Char('b') => {
            p.by = cycle(p.by, 1);
            p.selected = 0;
            p.regroup(&aliases);
            app.mark_dirty();
        }
        KeyCode::BackTab => {
            p.by = cycle(p.by, -1);
            p.selected = 0;
            p.regroup(&aliases);
            app.mark_dirty();
        }
        KeyCode::Char('L') => {
            let t = &mut app.conversations;
            t.load_whole();
        }
        KeyCode::Enter => {
            let Some((key, label)) = p
                .buckets
                .get(p.selected)
                .map(|(b, label)| (b.key.clone(), label.clone()))
            else {
                return;
            };
            // A union tab narrows its query: the bucket's field replaced, the rest kept.
            if app.conversations.union().is_some() {
                match key.query(app.query_of(convo_api::Resource::Conversations)) {
                    None => {
                        app.say("the overflow bucket holds many values: no single filter for it")
                    }
                    Some(q) => {
                        app.close_overlay();
                        let tab = convo_api::Resource::Conversations;
                        cmds.extend(crate::tab_query::run_query(app, tab, q));
                    }
                }
                return refresh(app);
            }
            match key.filter(app.conversations.filter()) {
                None if key == Key::Overflow => {
                    app.say("the overflow bucket holds many values: no single filter for it")
                }
                None => app.say(format!(
                    "the service has no filter for status {:?}",
                    convo_text::one_line(&label, 40)
                )),
                Some(f) => {
                    app.close_overlay();
                    let from = crate::update::place::here(app);
                    crate::update::place::set_conversations_from(app, from, f, cmds);
                }
            }
        }
        _ => {}
    }
    refresh(app);
}
