//! How `e` and the export path prompt change the app, and the export of the loaded rows.

use std::path::PathBuf;

use crossterm::event::KeyEvent;

use super::format_rows;
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

/// Formats `tab`'s loaded rows (server order) as CSV, or JSONL when the path ends in
/// `.jsonl`/`.json`, and asks the runtime to write them to a new file.
pub fn export(app: &mut App, tab: Resource, path: &str, kind: ExportKind, cmds: &mut Vec<Command>) {
    if path.is_empty() {
        return app.say("export cancelled: no path");
    }
    let jsonl = path.ends_with(".jsonl") || path.ends_with(".json");
    let (contents, rows) = with_tab!(ref app, tab, |t| format_rows(t.rows(), jsonl));
    if rows == 0 {
        return app.say("nothing to export: no rows loaded");
    }
    app.say(format!(
        "exporting {rows} rows to {}…",
        crate::text::one_line(path, 200)
    ));
    cmds.push(Command::Export {
        path: PathBuf::from(path),
        contents,
        rows,
        kind,
    });
}
