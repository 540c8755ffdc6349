//! How `\`, typing in the search prompt, `n` and `N` change the app.

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::App;
use crate::keys::Action;
use crate::message::Life;
use crate::message::StatusMessage;
use crate::prompt::{LineEdit, Prompt, edit_line};
use crate::sort::update::{select_row, selected};
use convo_api::Resource;

/// `\`: opens the search prompt empty, as less, vim and shells do (↑ brings back earlier
/// queries); the tab's search stays on screen until the prompt's text is edited.
pub fn open(app: &mut App) {
    app.search_history_mut().start();
    let origin = with_tab!(ref app, app.active(), |t| (!t.rows().is_empty())
        .then_some(t.selected()));
    let active = app.active();
    app.search_mut().get_mut(active).origin = origin;
    app.open_prompt(Prompt::Search(String::new()));
}

/// A key in the search prompt (search as you type; ↑ / ↓ walk the earlier queries).
pub fn on_prompt_key(app: &mut App, mut text: String, k: KeyEvent) {
    if matches!(k.code, KeyCode::Up | KeyCode::Down) {
        if let Some(recalled) = app.search_history_mut().step(&text, k.code == KeyCode::Up) {
            set_query(app, recalled.clone());
            app.open_prompt(Prompt::Search(recalled));
            jump_to_first_match(app);
        }
        return;
    }
    match edit_line(&mut text, k) {
        LineEdit::Cancel => {
            app.close_prompt();
            set_query(app, String::new());
            app.say("search cleared");
        }
        LineEdit::Submit => {
            app.close_prompt();
            if text.is_empty() {
                // Nothing typed: the prompt's (empty) text is the search.
                if !app.search().get(app.active()).query.is_empty() {
                    set_query(app, String::new());
                    app.say("search cleared");
                }
                return;
            }
            app.search_history_mut().push(&text);
            say_search(app, false);
        }
        LineEdit::Changed => {
            set_query(app, text.clone());
            app.open_prompt(Prompt::Search(text));
            jump_to_first_match(app);
        }
        LineEdit::Ignored => {}
    }
}

/// Text pasted into the search prompt: added at once, one scan of the rows (not one per
/// character, as typing it would).
pub fn on_paste(app: &mut App, mut text: String, pasted: &str) {
    crate::prompt::paste_line(&mut text, pasted);
    app.open_prompt(Prompt::Search(text.clone()));
    set_query(app, text);
    jump_to_first_match(app);
}

/// The search text changed (or the names it also looks in): the matches of the active tab
/// are recomputed now, the other tab's when its rows change.
pub fn refresh(app: &mut App, force: bool) {
    for tab in [Resource::Conversations, Resource::Visitors] {
        let force = force && tab == app.active();
        refresh_tab(app, tab, force);
    }
}

/// `tab`'s rows (or its filters) changed: a search of other filters ends, the matches are
/// recomputed (unless `force`, only when the rows differ from those last scanned).
pub fn refresh_tab(app: &mut App, tab: Resource, force: bool) {
    end_stale(app, tab);
    let now = app.now();
    let columns = app.settings().columns().of(tab).to_vec();
    let aliases = app.settings().aliases().clone();
    // Taken out while the tab's rows and the names are read, then put back.
    let mut s = std::mem::take(app.search_mut().get_mut(tab));
    with_tab!(ref app, tab, |t| s.refresh(
        t.rows(),
        (t.generation(), t.marks().revision()),
        &columns,
        now,
        &aliases,
        app.names(),
        force
    ));
    *app.search_mut().get_mut(tab) = s;
}

fn set_query(app: &mut App, q: String) {
    let over = app.query_of(app.active()).to_string();
    let active = app.active();
    let s = app.search_mut().get_mut(active);
    s.query = q;
    s.over = over;
    refresh(app, true);
}

/// Search as you type: to the first match from the row the prompt opened on; no match, back
/// to that row.
fn jump_to_first_match(app: &mut App) {
    let (s, order) = (app.search().get(app.active()), app.sort().get(app.active()));
    let origin = s.origin;
    let from = order.pos(origin.unwrap_or_else(|| selected(app)));
    match s.first_match_from(order, from) {
        Some((i, _)) => select_row(app, i),
        None => {
            let rows = with_tab!(ref app, app.active(), |t| t.rows().len());
            if let Some(o) = origin.filter(|o| *o < rows) {
                select_row(app, o);
            }
        }
    }
}

/// A search typed over other filters than the tab's now (a drill-down, a view, a query,
/// Back) ends: it would look for the same text in other rows. Said on the active tab.
fn end_stale(app: &mut App, tab: Resource) {
    let s = app.search().get(tab);
    if s.query.is_empty() || app.query_of(tab).to_string() == s.over {
        return;
    }
    let text = convo_text::one_line(&s.query, 60);
    let s = app.search_mut().get_mut(tab);
    s.query.clear();
    s.matches.clear();
    s.origin = None;
    if tab == app.active() {
        app.say(format!("search \"{text}\" ended: the filters changed"));
    }
}

/// `n` / `N`: the next or previous match, wrapping.
pub fn step_match(app: &mut App, back: bool) {
    let (s, order) = (app.search().get(app.active()), app.sort().get(app.active()));
    if s.query.is_empty() {
        return app.say(format!(
            "no search: {} searches the loaded rows",
            app.settings().keymap().key_of(Action::Search)
        ));
    }
    let from = order.pos(selected(app));
    if let Some((i, _)) = s.next_match(order, from, back) {
        select_row(app, i);
    }
    say_search(app, true);
}

/// Puts the search's words on the status line: they stay while the search does, and follow
/// its matches (rows that arrive, a refresh) meanwhile.
fn say_search(app: &mut App, stepped: bool) {
    if let Some(m) = search_message(app, stepped) {
        app.post(m);
    }
}

/// The active tab's search's words as a message that lasts while the search does; `None`
/// without a search.
pub fn search_message(app: &App, stepped: bool) -> Option<StatusMessage> {
    let query = &app.search().get(app.active()).query;
    (!query.is_empty()).then(|| StatusMessage {
        text: search_words(app, stepped),
        error: false,
        life: Life::Search {
            tab: app.active(),
            query: query.clone(),
            stepped,
        },
    })
}

/// The words of the active tab's search now: "match k of n" after `n`/`N` (`stepped`) while
/// the selected row is a match, else the count and the keys that step through the matches,
/// or that nothing matched.
pub fn search_words(app: &App, stepped: bool) -> String {
    let (s, order) = (app.search().get(app.active()), app.sort().get(app.active()));
    let total = s.matches.len();
    if stepped
        && total > 0
        && let Some(k) = s.rank(order, selected(app))
    {
        return format!("match {k} of {total}");
    }
    match_count(app)
}

/// The active tab's match count and the keys that step through the matches, or that
/// nothing matched.
fn match_count(app: &App) -> String {
    let n = app.search().get(app.active()).matches.len();
    if n == 0 {
        return no_match(app);
    }
    format!(
        "{n} match{} · {} next · {} previous",
        if n == 1 { "" } else { "es" },
        app.settings().keymap().key_of(Action::SearchNext),
        app.settings().keymap().key_of(Action::SearchPrev)
    )
}

/// e.g. `no match for "Mia" in 100 loaded rows`.
fn no_match(app: &App) -> String {
    let q = convo_text::one_line(&app.search().get(app.active()).query, 40);
    let n = with_tab!(ref app, app.active(), |t| t.rows().len());
    format!(
        "no match for \"{q}\" in {n} loaded row{}",
        if n == 1 { "" } else { "s" }
    )
}
