//! Export of the whole filtered walk (issue 6). After the export path, when more pages exist,
//! the user chooses the loaded rows or the whole walk; the whole walk asks for confirmation
//! (it fetches every remaining page), then runs as `L` does: the tab's own walk, so every
//! fetch carries the tab and its generation and an answer of an older walk is dropped. When
//! the walk ends, the rows are written in one go through the same CSV/JSONL formatting as
//! `convo list` ([`super::format_rows`]), to a new file (never overwritten). The runtime's answer
//! on the path typed ([`on_checked`]: taken or free) leads here.
//!
//! Esc stops the walk and writes the rows fetched so far, said to be partial. A failed page,
//! or a walk that starts over (new filters, reload, another profile), writes nothing: no file
//! ever looks complete when it is not.

use crossterm::event::{KeyCode, KeyEvent};

use super::WalkExport;
use super::update::export;
use crate::app::App;
use crate::command::{Command, ExportKind};
use crate::keys::Action;
use crate::prompt::Prompt;
use convo_api::Resource;
use convo_text::one_line;

/// Where a tab's walk stands.
struct Walk {
    generation: u64,
    loaded: usize,
    done: bool,
    failed: bool,
    load_all: bool,
    warnings: Vec<String>,
}

fn walk_of(app: &App, tab: Resource) -> Walk {
    with_tab!(ref app, tab, |t| Walk {
        // A walk read behind the rows (a reload) is a walk started over.
        generation: t
            .next()
            .as_ref()
            .map_or(t.generation(), |n| n.walk.generation()),
        loaded: t.walk().loaded(),
        done: t.walk().is_done(),
        failed: t.error().is_some(),
        load_all: t.load_all(),
        warnings: t.walk().warnings().messages(),
    })
}

fn fail(app: &mut App, text: String) {
    app.say_error(text);
}

fn shown(path: &str) -> String {
    one_line(path, 200)
}

/// The runtime looked at the path typed: taken, the prompt opens again at once with the free
/// name beside it (`-2`) to write or edit; free, the export goes on (the scope question, or
/// the file). `e`'s own proposal entered before the runtime had said it was taken goes on
/// under the free name (what the prompt was about to show). An answer for a path no longer
/// wanted (another prompt open meanwhile) is dropped.
///
/// The keys typed while the runtime looked: to be replayed (by the caller, through the
/// layers) to the question that comes now. None when the question is the taken path's: those
/// keys were typed before it could be seen (an `l` meant for the scope question must not land
/// in a path), so they are dropped, and said so.
pub fn on_checked(
    app: &mut App,
    path: String,
    exists: bool,
    free: String,
    cmds: &mut Vec<Command>,
) -> Vec<KeyEvent> {
    let wait = app.exports_mut().ahead.wait.take_if(|w| w.path == path);
    if app.prompt().is_some() || app.exports().path.as_deref() != Some(path.as_str()) {
        return Vec::new();
    }
    app.mark_dirty();
    let (proposed, keys) = wait.map_or((false, Vec::new()), |w| (w.proposed, w.keys));
    if exists && !proposed {
        app.exports_mut().path = Some(free.clone());
        app.open_prompt(Prompt::ExportExists(free));
        app.exports_mut().ahead.dropped = keys.len();
        Vec::new()
    } else {
        let path = if exists { free } else { path };
        app.exports_mut().path = Some(path.clone());
        after_path(app, &path, cmds);
        keys
    }
}

/// The export path was entered: when the whole walk is loaded already, write it; otherwise
/// ask loaded rows or whole walk.
pub fn after_path(app: &mut App, path: &str, cmds: &mut Vec<Command>) {
    if path.is_empty() {
        return app.say("export cancelled: no path");
    }
    let w = walk_of(app, app.active());
    if w.done {
        let kind = ExportKind::WholeWalk {
            warnings: w.warnings,
        };
        return export(app, app.active(), path, kind, cmds);
    }
    app.open_prompt(Prompt::ExportScope(path.to_string()));
}

/// Keys in the scope and confirmation prompts.
pub fn on_prompt_key(
    app: &mut App,
    prompt: &Prompt,
    path: String,
    k: KeyEvent,
    cmds: &mut Vec<Command>,
) {
    match (prompt, k.code) {
        (Prompt::ExportScope(_), KeyCode::Char('l') | KeyCode::Enter) => {
            app.close_prompt();
            export(app, app.active(), &path, ExportKind::Loaded, cmds);
        }
        (Prompt::ExportScope(_), KeyCode::Char('w')) => {
            app.open_prompt(Prompt::ExportConfirm(path));
        }
        (Prompt::ExportConfirm(_), KeyCode::Char('y') | KeyCode::Enter) => {
            app.close_prompt();
            start(app, path);
        }
        (_, KeyCode::Esc | KeyCode::Char('n')) => {
            app.close_prompt();
            app.say("export cancelled: nothing fetched, nothing written");
        }
        _ => {}
    }
}

/// Starts the whole walk of the active tab (as `L`: load every page, a failed page retried).
fn start(app: &mut App, path: String) {
    let tab = app.active();
    if with_tab!(ref app, tab, |t| t.next().is_some()) {
        // Its walk would start over when the reload takes the screen.
        return fail(
            app,
            format!(
                "whole-walk export not started: a reload is under way or failed ({} tries it \
                 again); nothing fetched, nothing written",
                app.settings().keymap().key_of(Action::Reload)
            ),
        );
    }
    let generation = with_tab!(app, tab, |t| {
        t.load_whole();
        t.generation()
    });
    app.exports_mut().walk = Some(WalkExport {
        tab,
        generation,
        path,
    });
    app.status_line_mut().clear();
}

/// After every message, before the next fetches are asked for: follows the walk, writes the
/// rows once it is complete, gives up (writing nothing) when it failed or started over.
pub fn step(app: &mut App, cmds: &mut Vec<Command>) {
    let Some(we) = app.exports().walk.clone() else {
        return;
    };
    let w = walk_of(app, we.tab);
    if w.generation != we.generation {
        app.exports_mut().walk = None;
        return fail(
            app,
            format!(
                "whole-walk export to {} abandoned: the {} walk started over (new filters, \
                 reload or profile); nothing written",
                shown(&we.path),
                we.tab.name()
            ),
        );
    }
    if w.failed {
        app.exports_mut().walk = None;
        let k = |a| app.settings().keymap().key_of(a);
        let text = format!(
            "whole-walk export stopped after {} rows, a page failed: nothing written to {} \
             ({} retries the page, then {} exports)",
            w.loaded,
            shown(&we.path),
            k(Action::Reload),
            k(Action::Export)
        );
        return fail(app, text);
    }
    if w.done {
        app.exports_mut().walk = None;
        let kind = ExportKind::WholeWalk {
            warnings: w.warnings,
        };
        return export(app, we.tab, &we.path, kind, cmds);
    }
    if !w.load_all {
        with_tab!(app, we.tab, |t| t.load_whole());
    }
}

/// `e` and Esc while the walk runs: `e` says what runs; Esc stops it and writes the rows
/// fetched so far, said to be partial.
pub fn on_action(app: &mut App, action: Action, cmds: &mut Vec<Command>) {
    let Some(we) = app.exports().walk.clone() else {
        return;
    };
    let w = walk_of(app, we.tab);
    if action != Action::Close {
        let stop = app.settings().keymap().key_of(Action::Close);
        return app.say(format!(
            "a whole-walk export is running ({} rows so far): {stop} stops it",
            w.loaded
        ));
    }
    app.exports_mut().walk = None;
    with_tab!(app, we.tab, |t| t.stop_loading());
    if w.loaded == 0 {
        return app.say("whole-walk export stopped: no rows fetched yet; nothing written");
    }
    export(app, we.tab, &we.path, ExportKind::PartialWalk, cmds);
    app.say(format!(
        "stopped: writing the {} rows fetched so far to {}, a PARTIAL export…",
        w.loaded,
        shown(&we.path)
    ));
}

/// The status line while the walk runs, e.g. `exporting the whole walk of conversations to
/// ./x.csv: 150 rows fetched · more available · Esc stops (writes them, marked partial)`.
pub fn progress(app: &App) -> Option<String> {
    let we = app.exports().walk.as_ref()?;
    let w = walk_of(app, we.tab);
    Some(format!(
        " exporting the whole walk of {} to {}: {} rows fetched · more available · {} stops \
         (writes them as a partial export)",
        we.tab.name(),
        shown(&we.path),
        w.loaded,
        app.settings().keymap().key_of(Action::Close)
    ))
}
