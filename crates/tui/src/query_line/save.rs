//! Saving the tab's query as a view (`w`): asks for the name, asks before replacing a view of
//! that name, then the runtime writes a `[[views]]` table into the config file in use
//! ([`convo_config::save_view`]); the view is in `v`'s list as soon as it is written. Errors
//! (a read-only or broken file) are said and change nothing.

use crossterm::event::{KeyCode, KeyEvent};

use super::SaveView;
use crate::app::App;
use crate::command::Command;
use crate::keys::Action;
use crate::prompt::{LineEdit, Prompt, edit_line, paste_line};
use convo_config::View;
use convo_config::builtin_views::builtin_views;
use convo_config::save_view::{NewView, SaveError, Saved};

/// `w`: asks for the name of a view holding the active tab's query.
pub fn open(app: &mut App) {
    let tab = app.active();
    let query = super::update::query_text(app, tab);
    if query.is_empty() {
        return app.say(format!(
            "no query to save: {} or {} sets one",
            app.settings().keymap().key_of(Action::Query),
            app.settings().keymap().key_of(Action::Filter)
        ));
    }
    if app.settings().config_file().is_none() {
        return app.say_error(
            "no place for a config file on this platform: set CONVO_CONFIG to a file to keep views in",
        );
    }
    app.open_prompt(Prompt::SaveView(Box::new(SaveView {
        name: String::new(),
        tab,
        query,
        confirm: false,
    })));
}

/// A key while the name is asked for (or the replacement confirmed).
pub fn on_key(app: &mut App, mut s: SaveView, k: KeyEvent, cmds: &mut Vec<Command>) {
    if s.confirm {
        match k.code {
            KeyCode::Char('y') => return write(app, s, true, cmds),
            KeyCode::Esc | KeyCode::Char('n') => s.confirm = false,
            _ => {}
        }
        app.open_prompt(Prompt::SaveView(Box::new(s)));
        return;
    }
    match edit_line(&mut s.name, k) {
        LineEdit::Cancel => {
            app.close_prompt();
            return app.say("view not saved");
        }
        LineEdit::Submit => {
            let name = s.name.trim().to_string();
            if name.is_empty() {
                app.say_error("a view needs a name");
            } else if builtin_views(app.settings().query_settings().agent_id)
                .iter()
                .any(|v| v.name.eq_ignore_ascii_case(&name))
            {
                app.say_error(format!(
                    "{:?} is a built-in view: choose another name",
                    convo_text::one_line(&name, 60)
                ));
            } else if app.view_index(&name).is_some() {
                s.confirm = true;
            } else {
                return write(app, s, false, cmds);
            }
        }
        LineEdit::Changed | LineEdit::Ignored => {}
    }
    app.open_prompt(Prompt::SaveView(Box::new(s)));
}

/// Text pasted into the name.
pub fn on_paste(app: &mut App, mut s: SaveView, pasted: &str) {
    if !s.confirm {
        paste_line(&mut s.name, pasted);
    }
    app.open_prompt(Prompt::SaveView(Box::new(s)));
}

fn write(app: &mut App, s: SaveView, replace: bool, cmds: &mut Vec<Command>) {
    app.close_prompt();
    let Some(path) = app.settings().config_file().map(|p| p.to_path_buf()) else {
        return;
    };
    cmds.push(Command::SaveView {
        path,
        profile: app.profiles().current.clone(),
        view: NewView {
            name: s.name.trim().to_string(),
            tab: s.tab,
            query: s.query,
        },
        replace,
    });
}

/// The runtime's answer: the view joins `v`'s list (or replaces the one of its name), or
/// the error is said; a view found in the file under that name asks to replace it.
pub fn on_saved(app: &mut App, view: NewView, result: Result<Saved, SaveError>) {
    app.mark_dirty();
    let saved = match result {
        Ok(s) => s,
        Err(SaveError::Exists(_)) => {
            app.open_prompt(Prompt::SaveView(Box::new(SaveView {
                name: view.name,
                tab: view.tab,
                query: view.query,
                confirm: true,
            })));
            return;
        }
        Err(e) => return app.say_error(format!("view not saved: {e}")),
    };
    let mut v = View {
        name: view.name.clone(),
        tab: view.tab,
        conversations: Default::default(),
        visitors: Default::default(),
        notify: false,
        oldest_first: false,
        query: Some(view.query.clone()),
    };
    let names = convo_query::query::resolve::Names {
        agent_id: app.settings().query_settings().agent_id,
        aliases: app.settings().aliases(),
        sla: app.settings().sla(),
    };
    // One request's filters: set as a view's filters are; more is run as a query by `v`.
    let _ = convo_query::query::views::apply(
        std::slice::from_mut(&mut v),
        &names,
        app.settings().query_settings().max_streams,
    );
    v.query = Some(view.query.clone());
    app.settings_mut().save_view(v);
    let shown = convo_text::one_line(&view.name, 60);
    let path = convo_text::one_line(&saved.path.display().to_string(), 200);
    let v_key = app.settings().keymap().key_of(Action::Views);
    app.say(match (saved.created, saved.replaced) {
        (true, _) => format!(
            "view {shown:?} saved: created {path} for it ({v_key} lists it; your service's \
             settings can go there too, convo doctor checks the file)"
        ),
        (false, true) => format!("view {shown:?} replaced in {path} ({v_key} lists it)"),
        (false, false) => format!("view {shown:?} saved in {path} ({v_key} lists it)"),
    });
}
