//! How `e` and the export path prompt change the app, and the export of the loaded rows.

use std::path::PathBuf;

use crossterm::event::KeyEvent;

use super::{ExportPart, ExportStream, PART_ROWS};
use crate::api::Resource;
use crate::tui::app::App;
use crate::tui::command::{Command, ExportKind};
use crate::tui::prompt::{LineEdit, Prompt, edit_line};

/// `e`: opens the path prompt with a dated default name.
pub fn open(app: &mut App) {
    let date = app.now.strftime("%Y-%m-%d").to_string();
    let path = format!("./convo-{}-{date}.csv", app.active.name());
    app.prompt = Some(Prompt::Export(path));
}

/// A key in the path prompt.
pub fn on_path_key(app: &mut App, mut text: String, k: KeyEvent, cmds: &mut Vec<Command>) {
    match edit_line(&mut text, k) {
        LineEdit::Cancel => app.prompt = None,
        LineEdit::Submit => {
            app.prompt = None;
            super::walk::after_path(app, text.trim(), cmds);
        }
        LineEdit::Changed => app.prompt = Some(Prompt::Export(text)),
        LineEdit::Ignored => {}
    }
}

/// Exports `tab`'s loaded rows (server order) to a new file: CSV, or JSONL when the path ends
/// in `.jsonl`/`.json`. Nothing is formatted here: the rows go to the runtime's writer a part
/// at a time ([`follow`]), with progress on the status line.
pub fn export(app: &mut App, tab: Resource, path: &str, kind: ExportKind, cmds: &mut Vec<Command>) {
    if path.is_empty() {
        return app.say("export cancelled: no path");
    }
    if let Some(s) = &app.export_stream {
        let text = format!(
            "an export to {} is still being written ({} of {} rows): wait for it",
            crate::text::one_line(&s.path, 200),
            s.written,
            s.total
        );
        return app.say(text);
    }
    let jsonl = path.ends_with(".jsonl") || path.ends_with(".json");
    let (total, generation) = with_tab!(ref app, tab, |t| (t.rows().len(), t.generation));
    if total == 0 {
        return app.say("nothing to export: no rows loaded");
    }
    app.export_ids += 1;
    let id = app.export_ids;
    cmds.push(Command::Export {
        id,
        path: PathBuf::from(path),
        rows: total,
        kind,
        jsonl,
    });
    app.export_stream = Some(ExportStream {
        id,
        tab,
        generation,
        path: path.to_string(),
        total,
        sent: 0,
        written: 0,
    });
    app.message = None;
    send_next(app, cmds);
}

/// Hands the next part of the rows to the writer (and the end after the last part).
fn send_next(app: &mut App, cmds: &mut Vec<Command>) {
    let Some(s) = app.export_stream.as_mut() else {
        return;
    };
    if s.sent >= s.total {
        return;
    }
    let range = s.sent..(s.sent + PART_ROWS).min(s.total);
    let part = match s.tab {
        Resource::Conversations => {
            ExportPart::Conversations(app.conversations.rows()[range.clone()].to_vec())
        }
        Resource::Visitors => ExportPart::Visitors(app.visitors.rows()[range.clone()].to_vec()),
    };
    s.sent = range.end;
    cmds.push(Command::ExportRows { id: s.id, part });
    if s.sent == s.total {
        cmds.push(Command::ExportEnd {
            id: s.id,
            abandon: None,
        });
    }
}

/// The writer has written `rows` rows of export `id`: the next part.
pub fn on_written(app: &mut App, id: u64, rows: usize, cmds: &mut Vec<Command>) {
    if let Some(s) = app.export_stream.as_mut().filter(|s| s.id == id) {
        s.written = rows;
        send_next(app, cmds);
        app.dirty = true;
    }
}

/// Export `id` ended (written, refused, failed or abandoned): its message.
pub fn on_ended(app: &mut App, id: u64, text: String, error: bool) {
    if app.export_stream.as_ref().is_some_and(|s| s.id == id) {
        app.export_stream = None;
    }
    app.post(crate::tui::app::Message::new(text, error, app.now));
    app.dirty = true;
}

/// After every message: an export whose walk started over (new filters, a reload, another
/// profile) is abandoned, its partial file removed; it would no longer be the rows it began
/// with.
pub fn follow(app: &mut App, cmds: &mut Vec<Command>) {
    let Some(s) = &app.export_stream else {
        return;
    };
    let generation = with_tab!(ref app, s.tab, |t| t.generation);
    if generation != s.generation {
        abandon(
            app,
            "the list started over (new filters or a reload)".into(),
            cmds,
        );
    }
}

/// Stops the export being written, removing its partial file; the writer says so.
pub fn abandon(app: &mut App, why: String, cmds: &mut Vec<Command>) {
    if let Some(s) = app.export_stream.take() {
        cmds.push(Command::ExportEnd {
            id: s.id,
            abandon: Some(why),
        });
    }
}

/// Whether an export of `tab` is being written (its rows must not move meanwhile: no
/// refresh merges into them).
pub fn exporting(app: &App, tab: Resource) -> bool {
    app.export_stream.as_ref().is_some_and(|s| s.tab == tab)
}

/// The status line while an export is written, e.g. `exporting to ./x.csv: 5000 of 120000
/// rows written…`.
pub fn progress(app: &App) -> Option<String> {
    let s = app.export_stream.as_ref()?;
    Some(format!(
        " exporting to {}: {} of {} rows written…",
        crate::text::one_line(&s.path, 200),
        s.written,
        s.total
    ))
}
