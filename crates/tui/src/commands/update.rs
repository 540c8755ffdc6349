//! What keys do to the commands, the marks, the menus and the output pane; the runs a
//! command's key starts (`Command::RunProgram`), and their answers (`Msg::ProgramDone`).

use std::collections::HashMap;

use crossterm::event::{KeyCode, KeyEvent};
use uuid::Uuid;

use super::{OutputPane, ProgramRun, RunReport, conversation_fields, copyable, visitor_fields};
use crate::app::App;
use crate::command::Command;
use crate::keys::{Action, Key};
use crate::overlay::Overlay;
use crate::prompt::Prompt;
use convo_api::Resource;
use convo_config::commands::{Output, RowFields};

/// The fields of the active tab's selected row.
pub fn selected_fields(app: &App) -> Option<RowFields> {
    let query = crate::query_line::update::query_text(app, app.active());
    match app.active() {
        Resource::Conversations => app
            .conversations
            .selected_row()
            .map(|c| fields_of_conversation(app, c, &query, None)),
        Resource::Visitors => app
            .visitors
            .selected_row()
            .map(|v| visitor_fields(v, &query)),
    }
}

/// A conversation's fields with what convo knows of its visitor (`loaded`: the Visitors
/// tab's rows by id, when the caller has built it).
fn fields_of_conversation(
    app: &App,
    c: &convo_api::Conversation,
    query: &str,
    loaded: Option<&HashMap<Uuid, &convo_api::Visitor>>,
) -> RowFields {
    let visitor = match loaded {
        Some(m) => m.get(&c.visitor_id).copied(),
        None => app.visitors.rows().iter().find(|v| v.id == c.visitor_id),
    };
    let attributes = app.detail().attributes_of(c.visitor_id);
    conversation_fields(
        c,
        visitor,
        app.names().get(&c.visitor_id),
        attributes,
        query,
    )
}

/// Space / `m`: marks the selected row, or unmarks it; false when no row is selected.
pub fn toggle_mark(app: &mut App) -> bool {
    let Some(fields) = selected_fields(app) else {
        crate::message::update::no_row_selected(app);
        return false;
    };
    let Some(id) = app.selected_id() else {
        return false;
    };
    let tab = app.active();
    app.commands_mut().marked.get_mut(tab).toggle(id, fields);
    true
}

/// `M`: clears the active tab's marks.
pub fn clear_marks(app: &mut App) {
    let tab = app.active();
    let m = app.commands_mut().marked.get_mut(tab);
    let n = m.len();
    m.clear();
    app.say(match n {
        0 => "no rows are marked (Space or m marks one)".to_string(),
        1 => "1 mark cleared".to_string(),
        n => format!("{} marks cleared", convo_text::thousands(n as u64)),
    });
}

/// The rows a command runs on: the marked rows of the active tab (their loaded fields when
/// they are still loaded, else as they were when marked), else the selected row.
fn target_rows(app: &App) -> Vec<RowFields> {
    let marked = app.commands().marked.get(app.active());
    if marked.is_empty() {
        return selected_fields(app).into_iter().collect();
    }
    let query = crate::query_line::update::query_text(app, app.active());
    match app.active() {
        Resource::Conversations => {
            let loaded: HashMap<Uuid, &convo_api::Conversation> =
                app.conversations.rows().iter().map(|c| (c.id, c)).collect();
            let visitors: HashMap<Uuid, &convo_api::Visitor> =
                app.visitors.rows().iter().map(|v| (v.id, v)).collect();
            marked
                .rows()
                .map(|(id, then)| match loaded.get(id) {
                    Some(c) => fields_of_conversation(app, c, &query, Some(&visitors)),
                    None => then.clone(),
                })
                .collect()
        }
        Resource::Visitors => {
            let loaded: HashMap<Uuid, &convo_api::Visitor> =
                app.visitors.rows().iter().map(|v| (v.id, v)).collect();
            marked
                .rows()
                .map(|(id, then)| match loaded.get(id) {
                    Some(v) => visitor_fields(v, &query),
                    None => then.clone(),
                })
                .collect()
        }
    }
}

/// A key the key map has no action for: the user's command on that key, if one runs on
/// this tab. True when it was one.
pub fn on_key(app: &mut App, k: &KeyEvent, cmds: &mut Vec<Command>) -> bool {
    match app.commands().by_key(&Key::of(k), app.active()) {
        Some(i) => {
            start(app, i, cmds);
            true
        }
        None => false,
    }
}

/// Starts command `i` on the marked rows (or the selected row): asks first when it says
/// `confirm = true`.
pub fn start(app: &mut App, i: usize, cmds: &mut Vec<Command>) {
    let Some(c) = app.commands().list.get(i).cloned() else {
        return;
    };
    if !c.on(app.active()) {
        return app.say(format!(
            "{} runs on the {} tab",
            convo_text::one_line(&c.name, 40),
            if c.conversations {
                "Conversations"
            } else {
                "Visitors"
            }
        ));
    }
    let rows = target_rows(app);
    if rows.is_empty() {
        return crate::message::update::no_row_selected(app);
    }
    app.commands_mut().last_id += 1;
    let run = ProgramRun {
        id: app.commands().last_id,
        name: c.name.clone(),
        output: c.output,
        rows: rows.len(),
        invocations: c.invocations(&rows),
    };
    if c.confirm {
        app.open_prompt(Prompt::ConfirmCommand(Box::new(run)));
    } else {
        go(app, run, cmds);
    }
}

/// How many rows and processes a run is, for the prompt and the messages.
pub fn what(run: &ProgramRun) -> String {
    let rows = match run.rows {
        1 => "1 row".to_string(),
        n => format!("{} marked rows", convo_text::thousands(n as u64)),
    };
    match (run.rows, run.invocations.len()) {
        (1, _) => rows,
        (_, 1) => format!("{rows} (once, with all of them)"),
        (_, n) => format!("{rows} (once per row: {n} runs)"),
    }
}

/// Hands `run` to the runtime and says so.
fn go(app: &mut App, run: ProgramRun, cmds: &mut Vec<Command>) {
    let name = convo_text::one_line(&run.name, 40);
    app.say(format!("running {name} on {}…", what(&run)));
    app.commands_mut().running.push((run.id, run.name.clone()));
    cmds.push(Command::RunProgram(Box::new(run)));
}

/// The confirmation's keys: `y` runs, anything else (Esc, `n`) does not.
pub fn on_confirm_key(app: &mut App, run: ProgramRun, k: KeyEvent, cmds: &mut Vec<Command>) {
    app.close_prompt();
    match k.code {
        KeyCode::Char('y') | KeyCode::Char('Y') => go(app, run, cmds),
        _ => app.say(format!("{} not run", convo_text::one_line(&run.name, 40))),
    }
}

/// A run ended: its exit status on the message line, its output in the pane (`pane`).
pub fn done(app: &mut App, id: u64, name: String, output: Output, report: RunReport) {
    app.commands_mut().running.retain(|(r, _)| *r != id);
    let shown = convo_text::one_line(&name, 40);
    let how = match (report.runs, report.failures.as_slice()) {
        (1, []) => "exit 0".to_string(),
        (n, []) => format!("{n} runs, each exit 0"),
        (1, [f]) => f.clone(),
        (n, fs) => format!(
            "{} of {n} runs failed (first: {})",
            fs.len(),
            fs.first().map(String::as_str).unwrap_or_default()
        ),
    };
    if output == Output::Pane {
        app.open_overlay(Overlay::Output(Box::new(OutputPane::new(
            format!("{shown} · {how}"),
            &report.text,
            report.cut,
        ))));
    }
    if report.failures.is_empty() {
        app.say(format!("{shown}: {how}"));
    } else {
        // What the program said on stderr, its first line, when the pane does not show it.
        let said = match output {
            Output::None => report
                .text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| format!(": {}", convo_text::one_line(l, 120)))
                .unwrap_or_default(),
            _ => String::new(),
        };
        app.say_error(format!("{shown}: {how}{said}"));
    }
    app.mark_dirty();
}

/// `!`: the menu of the commands that run on this tab.
pub fn open_menu(app: &mut App) {
    if app.commands().on(app.active()).is_empty() {
        let more = if app.commands().list.is_empty() {
            "no [[commands]] in the config (docs/commands.md)"
        } else {
            "no [[commands]] run on this tab (their tabs = …)"
        };
        return app.say(more);
    }
    app.open_overlay(Overlay::Commands { selected: 0 });
}

/// The menu's keys: ↑↓ / j k choose, Enter (or a command's own key) runs, Esc closes.
pub fn on_menu_key(app: &mut App, selected: usize, k: KeyEvent, cmds: &mut Vec<Command>) {
    let on = app.commands().on(app.active());
    let n = on.len().max(1);
    let action = app.settings().keymap().action(&k);
    match (k.code, action) {
        (KeyCode::Esc, _) | (_, Some(Action::Commands)) => app.close_overlay(),
        (KeyCode::Down, _) | (_, Some(Action::Down)) => app.open_overlay(Overlay::Commands {
            selected: (selected + 1) % n,
        }),
        (KeyCode::Up, _) | (_, Some(Action::Up)) => app.open_overlay(Overlay::Commands {
            selected: (selected + n - 1) % n,
        }),
        (KeyCode::Enter, _) => {
            app.close_overlay();
            if let Some(&i) = on.get(selected) {
                start(app, i, cmds);
            }
        }
        _ => {
            if let Some(i) = app.commands().by_key(&Key::of(&k), app.active()) {
                app.close_overlay();
                start(app, i, cmds);
            }
        }
    }
}

/// `Y`: the menu of the selected row's fields to copy.
pub fn open_copy_menu(app: &mut App) {
    match selected_fields(app) {
        Some(f) => app.open_overlay(Overlay::CopyField {
            selected: 0,
            fields: copyable(&f),
        }),
        None => crate::message::update::no_row_selected(app),
    }
}

/// The copy menu's keys: ↑↓ / j k choose, Enter or the line's number copies, Esc closes.
pub fn on_copy_key(app: &mut App, k: KeyEvent, cmds: &mut Vec<Command>) {
    let action = app.settings().keymap().action(&k);
    let Overlay::CopyField { selected, fields } = app.overlay_mut() else {
        return;
    };
    let n = fields.len().max(1);
    let pick = match (k.code, action) {
        (KeyCode::Esc, _) | (_, Some(Action::CopyField)) => {
            app.close_overlay();
            return;
        }
        (KeyCode::Down, _) | (_, Some(Action::Down)) => {
            *selected = (*selected + 1) % n;
            return;
        }
        (KeyCode::Up, _) | (_, Some(Action::Up)) => {
            *selected = (*selected + n - 1) % n;
            return;
        }
        (KeyCode::Enter, _) => *selected,
        (KeyCode::Char(c @ '1'..='9'), _) => c as usize - '1' as usize,
        _ => return,
    };
    let Some((what, value)) = fields.get(pick).cloned() else {
        return;
    };
    app.close_overlay();
    app.say(format!("copying the {what}…"));
    // The runtime says how it was copied (Msg::Copied); the text goes to a clipboard
    // program's stdin or as OSC 52's base64, never into a command line.
    cmds.push(Command::CopyToClipboard(value));
}

/// The output pane's keys: the move keys scroll it, Esc or `q` close it.
pub fn on_pane_key(app: &mut App, k: KeyEvent) {
    let page = app.body_height().max(2) - 1;
    let action = app.settings().keymap().action(&k);
    let Overlay::Output(pane) = app.overlay_mut() else {
        return;
    };
    let max = pane.lines.len().saturating_sub(page);
    let now = pane.scroll.min(max);
    pane.scroll = match (k.code, action) {
        (KeyCode::Esc | KeyCode::Char('q'), _) => {
            app.close_overlay();
            return;
        }
        (KeyCode::Down, _) | (_, Some(Action::Down)) => now + 1,
        (KeyCode::Up, _) | (_, Some(Action::Up)) => now.saturating_sub(1),
        (KeyCode::PageDown | KeyCode::Char(' '), _) | (_, Some(Action::PageDown)) => now + page,
        (KeyCode::PageUp, _) | (_, Some(Action::PageUp)) => now.saturating_sub(page),
        (_, Some(Action::Top)) | (KeyCode::Home, _) => 0,
        (_, Some(Action::Bottom)) | (KeyCode::End, _) => max,
        _ => now,
    }
    .min(max);
}

/// `i` on a conversation: its visitor's record, on the Visitors tab with the detail pane
/// open. The visitor's row when it is loaded there; else the Visitors tab filtered by the
/// visitor's external id (or e-mail) as convo knows it, the row selected once it arrives.
/// Back returns to the conversation.
pub fn open_visitor(app: &mut App, cmds: &mut Vec<Command>) {
    if app.active() != Resource::Conversations {
        return match app.visitors.selected_row() {
            Some(_) => {
                app.detail_mut().open();
            }
            None => crate::message::update::no_row_selected(app),
        };
    }
    let Some(visitor) = app.conversations.selected_row().map(|c| c.visitor_id) else {
        return crate::message::update::no_row_selected(app);
    };
    let from = crate::update::place::here(app);
    let body = app.body_height();
    if let Some(i) = app.visitors.rows().iter().position(|v| v.id == visitor) {
        app.history_mut().push(from);
        app.show_tab(Resource::Visitors);
        app.visitors.select(i, body);
        app.detail_mut().open();
        return;
    }
    let label = app.names().get(&visitor);
    let filter = match (
        label.and_then(|l| l.external_id.as_deref()),
        label.and_then(|l| l.email.as_deref()),
    ) {
        (Some(x), _) if !x.is_empty() => convo_api::VisitorFilter {
            external_id: Some(x.to_string()),
            email: None,
        },
        (_, Some(e)) if !e.is_empty() => convo_api::VisitorFilter {
            external_id: None,
            email: Some(e.to_string()),
        },
        _ => {
            return app.say(format!(
                "visitor {}… is not loaded in the Visitors tab and convo knows no external id \
                 or e-mail for them yet; {} lists their conversations",
                convo_api::short_id(&visitor),
                app.settings().keymap().key_of(Action::DrillVisitor)
            ));
        }
    };
    app.history_mut().push(from);
    app.show_tab(Resource::Visitors);
    cmds.push(app.visitors.restore(
        filter,
        Some(crate::tab::Reselect {
            id: visitor,
            index: 0,
        }),
    ));
    app.detail_mut().open();
}
