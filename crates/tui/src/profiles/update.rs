//! How `P`, the picker's keys and a loaded profile change the app.

use crossterm::event::{KeyCode, KeyEvent};

use crate::app::App;
use crate::command::Command;
use crate::prompt::Prompt;
use crate::session::Session;

/// `P`: opens the picker on the profile in use.
pub fn open_picker(app: &mut App) {
    if app.profiles().names.is_empty() {
        app.say("no profiles: add [profiles.NAME] sections to the config");
    } else {
        let cur = app
            .profiles()
            .entries()
            .iter()
            .position(|e| *e == app.profiles().current)
            .unwrap_or(0);
        app.open_prompt(Prompt::Profiles(cur));
    }
}

/// A key while the picker is open on line `sel`.
pub fn on_picker_key(app: &mut App, sel: usize, k: KeyEvent, cmds: &mut Vec<Command>) {
    let entries = app.profiles().entries();
    let n = entries.len().max(1);
    match k.code {
        KeyCode::Esc | KeyCode::Char('P') => app.close_prompt(),
        KeyCode::Down | KeyCode::Char('j') => app.open_prompt(Prompt::Profiles((sel + 1) % n)),
        KeyCode::Up | KeyCode::Char('k') => app.open_prompt(Prompt::Profiles((sel + n - 1) % n)),
        KeyCode::Enter => {
            app.close_prompt();
            if let Some(name) = entries.get(sel).cloned() {
                let label = name.as_deref().unwrap_or(super::TOP_LEVEL);
                app.profiles_mut().switching = Some(label.to_string());
                app.profiles_mut().request += 1;
                app.say(match &name {
                    Some(n) => format!("loading profile {}…", convo_text::one_line(n, 40)),
                    None => "loading the config's top level (no profile)…".into(),
                });
                cmds.push(Command::SwitchProfile {
                    id: app.profiles().request,
                    name,
                });
            }
        }
        _ => {}
    }
}

/// A loaded profile: the new settings, both tabs restarted (new generations, older answers
/// dropped), search and sort cleared. All or nothing: a refused profile leaves the old one
/// whole; the answer to an older switch than the last one asked for is dropped.
pub fn profile_loaded(
    app: &mut App,
    id: u64,
    result: Result<Box<Session>, String>,
) -> Vec<Command> {
    if id != app.profiles().request {
        return Vec::new();
    }
    app.profiles_mut().switching = None;
    let sw = match result {
        Ok(sw) => sw,
        Err(e) => {
            app.say_error(format!(
                "profile not switched: {}",
                convo_text::one_line(&e, 300)
            ));
            return Vec::new();
        }
    };
    let mouse_before = app.settings().mouse();
    app.enter_session(&sw);
    app.profiles_mut().switching = None;
    app.profiles_mut().request = id;
    app.profiles_mut().accepted = Some(id);
    let current = app.profiles().current.clone();
    app.close_prompt();
    *app.search_mut() = Default::default();
    *app.sort_mut() = Default::default();
    // An export under way belonged to the old profile's rows: abandoned, and said so.
    let mut ended = Vec::new();
    let name = convo_text::one_line(&sw.name, 40);
    crate::export::update::abandon(app, format!("profile switched to {name}"), &mut ended);
    let walk_dropped = app.exports_mut().drop_walk().map(|path| {
        format!(
            " · the whole-walk export to {} was abandoned: nothing written",
            convo_text::one_line(&path, 200)
        )
    });
    // The marks were rows of the old profile's service.
    app.commands_mut().marked = Default::default();
    // What belonged to the old service: its visitor names, trend, rung conversations, view.
    *app.names_mut() = Default::default();
    app.watch_mut().forget();
    app.end_oldest_first();
    app.detail_mut().forget();
    app.close_overlay();
    // Ids in filters belong to the old service: both tabs start unfiltered. Their rows stay
    // on screen until the new service has answered with its first page.
    let limit = sw.page_size.get();
    let mut cmds = ended;
    cmds.push(
        app.conversations
            .switch_service(Default::default(), limit, sw.name.clone()),
    );
    cmds.push(
        app.visitors
            .switch_service(Default::default(), limit, sw.name.clone()),
    );
    if app.settings().mouse() != mouse_before {
        cmds.push(Command::SetMouse(app.settings().mouse()));
    }
    app.history_mut().clear();
    let now = match current {
        Some(_) => format!("profile {name}"),
        None => "the config's top level (no profile)".into(),
    };
    app.say(format!("{now}{}", walk_dropped.unwrap_or_default()));
    cmds
}
