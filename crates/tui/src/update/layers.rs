//! Who gets a key: the layers on screen, top first, as helix's compositor does it. Each layer
//! is offered the key in turn and answers [`Answer::Consumed`] or [`Answer::Ignored`]; the
//! first that consumes it ends the walk down. So a key belongs to what the eye sees on top (the
//! summary pane over a running `L`, the help over the summary pane, a prompt over the detail
//! pane), and no order of guards in one long match decides it.
//!
//! The stack ([`stack`]) is read from the state after every key, top first: the prompt or the
//! query line (drawn last, over everything), the overlay (the help over what it was opened
//! from), the detail pane, a whole-walk export that runs, an e-mail lookup, `L` while it
//! still has pages to load, a union's scan, and the table at the bottom, which takes every key the key map names.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{apply_form, apply_view, on_action, scroll_detail};
use crate::app::App;
use crate::command::Command;
use crate::filter_form::FormOutcome;
use crate::keys::Action;
use crate::overlay::Overlay;
use crate::prompt::Prompt;
use crate::{board, commands, export, profiles, query_line, search, summary_pane};

/// One layer of the screen that may take a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The export's path entered, its check not answered yet: every key waits for the
    /// question that comes next (typed ahead).
    TypeAhead,
    /// A one-line prompt, the query line, the profile picker: every key.
    Prompt,
    /// The help, the view picker, the filter pane, the summary pane: every key.
    Overlay,
    /// The detail pane: Esc closes it, the page keys scroll it.
    Detail,
    /// A whole-walk export: Esc stops it (a partial file), `e` says it runs.
    WalkExport,
    /// An e-mail lookup whose answer will set the Conversations tab's filters: Esc drops it.
    Lookup,
    /// `L` with pages still to load: Esc stops it.
    LoadAll,
    /// A union's scan of its streams for rows its checks keep: Esc stops it.
    Scan,
    /// The table: every action of the key map.
    Table,
}

/// What a layer did with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Consumed,
    Ignored,
}

/// The layers on screen now, top first (the table always last).
pub fn stack(app: &App) -> Vec<Layer> {
    let mut layers = Vec::new();
    if app.exports().awaits_check() {
        layers.push(Layer::TypeAhead);
    }
    if app.prompt().is_some() {
        layers.push(Layer::Prompt);
    }
    if !matches!(app.overlay(), Overlay::None) {
        layers.push(Layer::Overlay);
    }
    if app.detail().is_open() {
        layers.push(Layer::Detail);
    }
    if app.exports().walking() {
        layers.push(Layer::WalkExport);
    }
    if app
        .lookups()
        .current(app.conversations.generation())
        .is_some()
    {
        layers.push(Layer::Lookup);
    }
    if with_tab!(ref app, app.active(), |t| t.loading_all()) {
        layers.push(Layer::LoadAll);
    }
    if crate::tab_query::scanning(app) {
        layers.push(Layer::Scan);
    }
    layers.push(Layer::Table);
    layers
}

/// A key: Ctrl-C quits and the suspend key (a Ctrl key) suspends from anywhere, as in every
/// full-screen terminal program; any other goes down the stack until a layer consumes it.
pub fn on_key(app: &mut App, k: KeyEvent, cmds: &mut Vec<Command>) {
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        return cmds.push(Command::Quit);
    }
    if k.modifiers.contains(KeyModifiers::CONTROL)
        && app.settings().keymap().action(&k) == Some(Action::Suspend)
    {
        return cmds.push(Command::Suspend);
    }
    for layer in stack(app) {
        if offer(app, layer, k, cmds) == Answer::Consumed {
            return;
        }
    }
}

/// Offers `k` to `layer`.
fn offer(app: &mut App, layer: Layer, k: KeyEvent, cmds: &mut Vec<Command>) -> Answer {
    let action = app.settings().keymap().action(&k);
    match layer {
        Layer::TypeAhead => {
            app.exports_mut().type_ahead(k);
            Answer::Consumed
        }
        Layer::Prompt => {
            on_prompt_key(app, k, cmds);
            Answer::Consumed
        }
        Layer::Overlay => {
            on_overlay_key(app, k, cmds);
            Answer::Consumed
        }
        Layer::Detail => {
            let body = app.body_height() as isize;
            match action {
                // Back and `q` step out of the pane first, one step at a time.
                Some(Action::Close | Action::Back | Action::Quit) => app.detail_mut().close(),
                Some(Action::PageDown) => scroll_detail(app, body),
                Some(Action::PageUp) => scroll_detail(app, -body),
                _ => return Answer::Ignored,
            }
            Answer::Consumed
        }
        Layer::WalkExport => match action {
            Some(a @ (Action::Export | Action::Close)) => {
                export::walk::on_action(app, a, cmds);
                Answer::Consumed
            }
            _ => Answer::Ignored,
        },
        Layer::Lookup => match action {
            Some(Action::Close) => {
                if let Some(l) = app.lookups_mut().cancel() {
                    app.say(format!("stopped looking up {}; the filters stay", l.what));
                }
                Answer::Consumed
            }
            _ => Answer::Ignored,
        },
        Layer::LoadAll => match action {
            Some(Action::Close) => {
                // A union's scan stops with it.
                with_tab!(app, app.active(), |t| t.stop_loading());
                crate::tab_query::stop(app);
                app.say("stopped loading all pages");
                Answer::Consumed
            }
            _ => Answer::Ignored,
        },
        Layer::Scan => match action {
            Some(Action::Close) => {
                crate::tab_query::stop(app);
                app.say("stopped scanning; L goes on");
                Answer::Consumed
            }
            _ => Answer::Ignored,
        },
        Layer::Table => {
            match action {
                Some(a) => on_action(app, a, cmds),
                // A key of no action may be one of the user's commands.
                None => {
                    commands::update::on_key(app, &k, cmds);
                }
            }
            Answer::Consumed
        }
    }
}

/// The overlay on top takes every key: `q` closes it as Esc does (the filter pane takes it
/// as text), the quit-now key (`Q`) quits.
fn on_overlay_key(app: &mut App, k: KeyEvent, cmds: &mut Vec<Command>) {
    let typing = matches!(app.overlay(), Overlay::Filter(_));
    if !typing && app.settings().keymap().action(&k) == Some(Action::QuitNow) {
        return cmds.push(Command::Quit);
    }
    let k = if !typing && app.settings().keymap().action(&k) == Some(Action::Quit) {
        KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)
    } else {
        k
    };
    let views = app.settings().views().len();
    match app.overlay_mut() {
        Overlay::Filter(form) => match form.key(k) {
            FormOutcome::Editing => {}
            FormOutcome::Cancel => app.close_overlay(),
            FormOutcome::Apply => {
                let form = form.clone();
                app.close_overlay();
                apply_form(app, &form, cmds);
            }
        },
        Overlay::Help { .. } => on_help_key(app, k),
        Overlay::Views { selected } => {
            let n = views;
            match k.code {
                KeyCode::Esc | KeyCode::Char('v') => app.close_overlay(),
                KeyCode::Char('?') => help_over(app),
                KeyCode::Down | KeyCode::Char('j') => *selected = (*selected + 1) % n.max(1),
                KeyCode::Up | KeyCode::Char('k') => *selected = (*selected + n - 1) % n.max(1),
                KeyCode::Enter => {
                    let i = *selected;
                    app.close_overlay();
                    apply_view(app, i, cmds);
                }
                _ => {}
            }
        }
        Overlay::Summary(_) if k.code == KeyCode::Char('?') => help_over(app),
        Overlay::Summary(_) => summary_pane::update::on_key(app, k, cmds),
        Overlay::Board if k.code == KeyCode::Char('?') => help_over(app),
        Overlay::Board => {
            if let board::update::Outcome::Open(i) = board::update::on_key(app, k, cmds) {
                apply_view(app, i, cmds);
                board::update::opened(app, i, cmds);
            }
        }
        Overlay::Commands { selected } => {
            let selected = *selected;
            commands::update::on_menu_key(app, selected, k, cmds)
        }
        Overlay::CopyField { .. } => commands::update::on_copy_key(app, k, cmds),
        Overlay::Output(_) => commands::update::on_pane_key(app, k),
        Overlay::None => {}
    }
}

/// `?` from an overlay: the help opens over it, and closing the help shows it again.
fn help_over(app: &mut App) {
    let under = std::mem::take(app.overlay_mut());
    app.open_overlay(Overlay::Help {
        scroll: 0,
        under: Some(Box::new(under)),
    });
}

/// The help overlay's keys: Esc, `q` or `?` close it (back to the overlay it was opened
/// over, if any); the move keys in effect (and the arrows, PgUp/PgDn, Home/End) scroll it,
/// never past its last line.
fn on_help_key(app: &mut App, k: KeyEvent) {
    if !matches!(app.overlay(), Overlay::Help { .. }) {
        return;
    }
    let g = crate::view::help_lines::geometry(
        &crate::view::help_lines::Source {
            keymap: app.settings().keymap(),
            last_error: app.status_line().last_error(),
            last_message: app.status_line().last_message(),
            tz: app.settings().tz(),
            commands: app.commands(),
        },
        ratatui::layout::Rect::new(0, 0, app.size().0, app.size().1),
    );
    let (max, page) = (g.max_scroll(), g.page());
    let keymap = app.settings().keymap().clone();
    let Overlay::Help { scroll, under } = app.overlay_mut() else {
        return;
    };
    let now = (*scroll).min(max);
    let to = match (k.code, keymap.action(&k)) {
        (KeyCode::Esc | KeyCode::Char('?'), _) => {
            let under = under.take().map_or(Overlay::None, |o| *o);
            app.open_overlay(under);
            return;
        }
        (KeyCode::Down, _) | (_, Some(Action::Down)) => now + 1,
        (KeyCode::Up, _) | (_, Some(Action::Up)) => now.saturating_sub(1),
        (KeyCode::PageDown | KeyCode::Char(' '), _) | (_, Some(Action::PageDown)) => now + page,
        (KeyCode::PageUp, _) | (_, Some(Action::PageUp)) => now.saturating_sub(page),
        (KeyCode::Home, _) | (_, Some(Action::Top)) => 0,
        (KeyCode::End, _) | (_, Some(Action::Bottom)) => max,
        _ => now,
    };
    *scroll = to.min(max);
}

/// The prompt takes every key.
fn on_prompt_key(app: &mut App, k: KeyEvent, cmds: &mut Vec<Command>) {
    let Some(prompt) = app.prompt().clone() else {
        return;
    };
    match prompt {
        Prompt::Profiles(sel) => profiles::update::on_picker_key(app, sel, k, cmds),
        Prompt::ExportScope(ref path) | Prompt::ExportConfirm(ref path) => {
            export::walk::on_prompt_key(app, &prompt, path.clone(), k, cmds)
        }
        Prompt::Search(text) => search::update::on_prompt_key(app, text, k),
        Prompt::Query(line) => query_line::update::on_key(app, *line, k, cmds),
        Prompt::SaveView(s) => query_line::save::on_key(app, *s, k, cmds),
        Prompt::Export(text) | Prompt::ExportExists(text) => {
            export::update::on_path_key(app, text, k, cmds)
        }
        Prompt::ConfirmCommand(run) => commands::update::on_confirm_key(app, *run, k, cmds),
    }
}
