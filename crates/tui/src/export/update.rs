//! How `e` and the export path prompt change the app, and the export of the loaded rows.

use std::path::PathBuf;

use crossterm::event::KeyEvent;

use super::{ExportPart, ExportStream, PART_ROWS, ScreenNames};
use crate::app::App;
use crate::command::{Command, ExportKind};
use crate::prompt::{LineEdit, Prompt, edit_line};
use convo_api::Resource;

/// `e`: opens the path prompt with the path typed last (until an export to it was written),
/// else a dated default name; the runtime is asked whether it is free (a second export the
/// same day is offered `-2`: [`on_proposed`]).
pub fn open(app: &mut App, cmds: &mut Vec<Command>) {
    let path = app.exports().path.clone().unwrap_or_else(|| {
        let date = app.now().strftime("%Y-%m-%d").to_string();
        format!("./convo-{}-{date}.csv", app.active().name())
    });
    app.open_prompt(Prompt::Export(path.clone()));
    app.exports_mut().ahead.proposal = Some(path.clone());
    app.exports_mut().ahead.dropped = 0;
    cmds.push(Command::ProposeExportPath(path));
}

/// The runtime's answer on the proposed name: a taken one is replaced by the free name beside
/// it, unless the user has edited it meanwhile.
pub fn on_proposed(app: &mut App, asked: String, free: String) {
    if app.exports().ahead.proposal.as_ref() == Some(&asked) {
        app.exports_mut().ahead.proposal = None;
    }
    if asked != free && *app.prompt() == Some(Prompt::Export(asked)) {
        app.open_prompt(Prompt::Export(free));
        app.mark_dirty();
    }
}

/// A key in the path prompt: Enter asks the runtime whether the path is free
/// ([`super::walk::on_checked`] goes on) before any other question; keys typed until it
/// answers wait for the question that comes next ([`super::Ahead`]).
pub fn on_path_key(app: &mut App, mut text: String, k: KeyEvent, cmds: &mut Vec<Command>) {
    if k.code == crossterm::event::KeyCode::Tab {
        // With or without the names beside the ids (conversations only: a visitor's row
        // has its name already).
        app.exports_mut().names = !app.exports().names;
        return;
    }
    match edit_line(&mut text, k) {
        LineEdit::Cancel => app.close_prompt(),
        LineEdit::Submit => {
            app.close_prompt();
            let path = text.trim().to_string();
            if path.is_empty() {
                return app.say("export cancelled: no path");
            }
            app.exports_mut().path = Some(path.clone());
            let proposed = app.exports_mut().ahead.proposal.take().as_ref() == Some(&path);
            app.exports_mut().ahead.wait = Some(super::Wait {
                path: path.clone(),
                proposed,
                keys: Vec::new(),
            });
            cmds.push(Command::CheckExportPath(path));
        }
        LineEdit::Changed => app.open_prompt(Prompt::Export(text)),
        LineEdit::Ignored => {}
    }
}

/// Exports `tab`'s loaded rows (server order) to a new file in the format its name ends in
/// ([`super::Format`]). Nothing is formatted here: the rows go to the runtime's writer a part
/// at a time ([`follow`]), with progress on the status line.
pub fn export(app: &mut App, tab: Resource, path: &str, kind: ExportKind, cmds: &mut Vec<Command>) {
    if path.is_empty() {
        return app.say("export cancelled: no path");
    }
    if let Some(s) = &app.exports().stream {
        let text = format!(
            "an export to {} is still being written ({} of {} rows): wait for it",
            convo_text::one_line(&s.path, 200),
            s.written,
            s.total
        );
        return app.say(text);
    }
    let format = super::Format::of_path(path);
    let (total, generation) = with_tab!(ref app, tab, |t| (t.rows().len(), t.generation()));
    if total == 0 {
        return app.say("nothing to export: no rows loaded");
    }
    app.exports_mut().ids += 1;
    let id = app.exports().ids;
    cmds.push(Command::Export {
        id,
        path: PathBuf::from(path),
        rows: total,
        kind,
        format,
    });
    app.exports_mut().stream = Some(ExportStream {
        id,
        tab,
        generation,
        path: path.to_string(),
        total,
        sent: 0,
        written: 0,
        names: app.exports().names,
    });
    app.status_line_mut().clear();
    send_next(app, cmds);
}

/// What the screen shows for a conversation's ids: its visitor's name and e-mail as known
/// (the local store, the sync, the Visitors tab), its site's and assignee's aliases.
fn screen_names(app: &App, c: &convo_api::Conversation) -> ScreenNames {
    let label = app.names().get(&c.visitor_id);
    let text = |s: Option<&str>| s.filter(|s| !s.trim().is_empty()).map(str::to_string);
    ScreenNames {
        visitor_name: text(label.and_then(|l| l.name.as_deref())),
        visitor_email: text(label.and_then(|l| l.email.as_deref())),
        site: text(app.settings().aliases().name(&c.site_id)),
        assignee: text(
            c.assignee_id
                .as_ref()
                .and_then(|a| app.settings().aliases().name(a)),
        ),
    }
}

/// Hands the next part of the rows to the writer (and the end after the last part).
fn send_next(app: &mut App, cmds: &mut Vec<Command>) {
    let Some(s) = app.exports().stream.as_ref() else {
        return;
    };
    if s.sent >= s.total {
        return;
    }
    let (id, tab, names, total) = (s.id, s.tab, s.names, s.total);
    let range = s.sent..(s.sent + PART_ROWS).min(total);
    // Names the store has not answered yet (the walk's last pages): the part waits for them
    // (`follow` hands it on after the answer).
    if tab == Resource::Conversations
        && names
        && app.conversations.rows()[range.clone()]
            .iter()
            .any(|c| app.names().pending(&c.visitor_id))
    {
        return;
    }
    let part = match tab {
        Resource::Conversations if names => {
            let rows = &app.conversations.rows()[range.clone()];
            let names = rows.iter().map(|c| screen_names(app, c)).collect();
            ExportPart::ConversationsNamed(rows.to_vec(), names)
        }
        Resource::Conversations => {
            ExportPart::Conversations(app.conversations.rows()[range.clone()].to_vec())
        }
        Resource::Visitors => ExportPart::Visitors(app.visitors.rows()[range.clone()].to_vec()),
    };
    if let Some(s) = app.exports_mut().stream.as_mut() {
        s.sent = range.end;
    }
    cmds.push(Command::ExportRows { id, part });
    if range.end == total {
        cmds.push(Command::ExportEnd { id, abandon: None });
    }
}

/// The writer has written `rows` rows of export `id`: the next part.
pub fn on_written(app: &mut App, id: u64, rows: usize, cmds: &mut Vec<Command>) {
    if let Some(s) = app.exports_mut().stream.as_mut().filter(|s| s.id == id) {
        s.written = rows;
        send_next(app, cmds);
        app.mark_dirty();
    }
}

/// Export `id` ended (written, refused, failed or abandoned): its message.
pub fn on_ended(app: &mut App, id: u64, text: String, error: bool) {
    if let Some(s) = app.exports_mut().stream.take_if(|s| s.id == id)
        && !error
        && app.exports().path.as_deref() == Some(s.path.as_str())
    {
        // Written: `e` offers a new name again, not the one now taken.
        app.exports_mut().path = None;
    }
    app.post(crate::message::StatusMessage::new(text, error, app.now()));
    app.mark_dirty();
}

/// After every message: an export whose walk started over (new filters, a reload, another
/// profile) is abandoned, its partial file removed; it would no longer be the rows it began
/// with.
pub fn follow(app: &mut App, cmds: &mut Vec<Command>) {
    let Some(s) = &app.exports().stream else {
        return;
    };
    let generation = with_tab!(ref app, s.tab, |t| t.generation());
    if generation != s.generation {
        abandon(
            app,
            "the list started over (new filters or a reload)".into(),
            cmds,
        );
    } else if s.sent == s.written && s.sent < s.total {
        // Nothing at the writer: a part waiting for names goes once they are in.
        send_next(app, cmds);
    }
}

/// Stops the export being written, removing its partial file; the writer says so.
pub fn abandon(app: &mut App, why: String, cmds: &mut Vec<Command>) {
    if let Some(s) = app.exports_mut().stream.take() {
        cmds.push(Command::ExportEnd {
            id: s.id,
            abandon: Some(why),
        });
    }
}

/// Whether an export of `tab` is being written (its rows must not move meanwhile: no
/// refresh merges into them).
pub fn exporting(app: &App, tab: Resource) -> bool {
    app.exports().stream.as_ref().is_some_and(|s| s.tab == tab)
}

/// The status line while an export is written, e.g. `exporting to ./x.csv: 5000 of 120000
/// rows written…`.
pub fn progress(app: &App) -> Option<String> {
    let s = app.exports().stream.as_ref()?;
    Some(format!(
        " exporting to {}: {} of {} rows written…",
        convo_text::one_line(&s.path, 200),
        s.written,
        s.total
    ))
}
