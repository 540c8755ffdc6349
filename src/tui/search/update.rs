//! How `\`, typing in the search prompt, `n` and `N` change the app.

use crossterm::event::KeyEvent;

use crate::api::Resource;
use crate::tui::app::App;
use crate::tui::keys::Action;
use crate::tui::prompt::{LineEdit, Prompt, edit_line};
use crate::tui::sort::update::{select_row, selected};

/// `\`: opens the search prompt with the tab's query.
pub fn open(app: &mut App) {
    let q = app.search.get(app.active).query.clone();
    app.prompt = Some(Prompt::Search(q));
}

/// A key in the search prompt (search as you type).
pub fn on_prompt_key(app: &mut App, mut text: String, k: KeyEvent) {
    match edit_line(&mut text, k) {
        LineEdit::Cancel => {
            app.prompt = None;
            set_query(app, String::new());
            app.say("search cleared");
        }
        LineEdit::Submit => {
            app.prompt = None;
            let n = app.search.get(app.active).matches.len();
            if text.is_empty() {
                app.message = None;
            } else {
                app.say(format!(
                    "{n} match{} · {} next · {} previous",
                    if n == 1 { "" } else { "es" },
                    app.keymap.key_of(Action::SearchNext),
                    app.keymap.key_of(Action::SearchPrev)
                ));
            }
        }
        LineEdit::Changed => {
            set_query(app, text.clone());
            app.prompt = Some(Prompt::Search(text));
            jump_to_first_match(app);
        }
        LineEdit::Ignored => {}
    }
}

/// Text pasted into the search prompt: added at once, one scan of the rows (not one per
/// character, as typing it would).
pub fn on_paste(app: &mut App, mut text: String, pasted: &str) {
    crate::tui::prompt::paste_line(&mut text, pasted);
    app.prompt = Some(Prompt::Search(text.clone()));
    set_query(app, text);
    jump_to_first_match(app);
}

/// After every message: recomputes the matches of both tabs when their rows changed (or of
/// the active tab when `force`). Cheap when nothing changed.
pub fn refresh(app: &mut App, force: bool) {
    let now = app.now;
    for tab in [Resource::Conversations, Resource::Visitors] {
        let force = force && tab == app.active;
        let s = app.search.get_mut(tab);
        let columns = app.columns.of(tab);
        with_tab!(ref app, tab, |t| s.refresh(
            t.rows(),
            (t.generation, t.marks.revision()),
            columns,
            now,
            &app.aliases,
            &app.names,
            force
        ));
    }
}

fn set_query(app: &mut App, q: String) {
    app.search.get_mut(app.active).query = q;
    refresh(app, true);
}

fn jump_to_first_match(app: &mut App) {
    let (s, order) = (app.search.get(app.active), app.sort.get(app.active));
    let from = order.pos(selected(app));
    if let Some((i, _)) = s.first_match_from(order, from) {
        select_row(app, i);
    }
}

/// `n` / `N`: the next or previous match, wrapping.
pub fn step_match(app: &mut App, back: bool) {
    let (s, order) = (app.search.get(app.active), app.sort.get(app.active));
    if s.query.is_empty() {
        return app.say(format!(
            "no search: {} searches the loaded rows",
            app.keymap.key_of(Action::Search)
        ));
    }
    let total = s.matches.len();
    let from = order.pos(selected(app));
    match s.next_match(order, from, back) {
        Some((i, k)) => {
            select_row(app, i);
            app.say(format!("match {k} of {total}"));
        }
        None => {
            let q = crate::text::one_line(&s.query, 40);
            app.say(format!("no match for {q:?} in the loaded rows"));
        }
    }
}
