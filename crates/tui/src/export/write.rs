//! Writing an export, run by the runtime, off the UI thread, with [`convo_query::output::file`]'s
//! rules: a new file (an existing one is never replaced), mode 0600, a failed write removes the
//! partial file. The rows come in parts ([`super::ExportPart`]); each written part is
//! answered by `Msg::ExportWritten`, the end by `Msg::ExportEnded`.

use std::path::PathBuf;
use std::sync::mpsc;

use tokio::sync::mpsc::UnboundedSender;

use super::ExportPart;
use crate::command::{Command, ExportKind};
use crate::msg::{Msg, Task};
use convo_query::output::file::{ExportError, ExportFile};

/// The answer to `Command::CheckExportPath`: whether anything (a file, a directory, a link,
/// even a dangling one) is at `path`, which the export would then refuse to write.
pub fn check_path(path: String) -> Msg {
    let exists = std::fs::symlink_metadata(&path).is_ok();
    Msg::ExportPathChecked { path, exists }
}

/// What the writer thread of an export is handed.
enum Part {
    Rows(ExportPart),
    End(Option<String>),
}

/// The export being written: its id and the way to its writer thread.
#[derive(Default)]
pub struct Writer {
    current: Option<(u64, mpsc::Sender<Part>)>,
}

impl Writer {
    /// Carries out an export command (others are ignored). A new export ends one still open
    /// (its partial file removed).
    pub fn run(&mut self, cmd: Command, tx: &UnboundedSender<Msg>) {
        match cmd {
            Command::Export {
                id,
                path,
                rows,
                kind,
                jsonl,
            } => {
                let (parts, rx) = mpsc::channel();
                self.current = Some((id, parts));
                start(id, path, rows, kind, jsonl, rx, tx);
            }
            Command::ExportRows { id, part } => self.send(id, Part::Rows(part)),
            Command::ExportEnd { id, abandon } => {
                self.send(id, Part::End(abandon));
                if self.current.as_ref().is_some_and(|(c, _)| *c == id) {
                    self.current = None;
                }
            }
            _ => {}
        }
    }

    fn send(&self, id: u64, part: Part) {
        if let Some((c, parts)) = &self.current
            && *c == id
        {
            // A writer that has ended (a failed write) has said so already.
            let _ = parts.send(part);
        }
    }
}

fn ended(tx: &UnboundedSender<Msg>, id: u64, text: String, error: bool) {
    let _ = tx.send(Msg::ExportEnded { id, text, error });
}

/// The writer thread: creates the file, writes the parts as they come, finishes or removes it.
fn start(
    id: u64,
    path: PathBuf,
    total: usize,
    kind: ExportKind,
    jsonl: bool,
    parts: mpsc::Receiver<Part>,
    tx: &UnboundedSender<Msg>,
) {
    let tx_done = tx.clone();
    crate::tasks::spawn_blocking(Task::Export, tx, move || {
        let tx = tx_done;
        let shown = convo_text::one_line(&path.display().to_string(), 200);
        let mut file = match ExportFile::create(&path) {
            Ok(f) => f,
            Err(ExportError::Exists { .. }) => {
                let text =
                    format!("{shown} exists: not overwritten; e opens its name again to edit");
                return ended(&tx, id, text, true);
            }
            Err(e) => return ended(&tx, id, format!("export failed: {e}"), true),
        };
        let mut written = 0usize;
        let mut header = None;
        loop {
            match parts.recv() {
                Ok(Part::Rows(part)) => {
                    header = header.or_else(|| Some(part.csv_header()));
                    let (bytes, n) = part.format(jsonl, written == 0);
                    if let Err(e) = file.write_all(bytes.as_bytes()) {
                        return ended(&tx, id, format!("export failed: {e}"), true);
                    }
                    written += n;
                    let _ = tx.send(Msg::ExportWritten { id, rows: written });
                }
                Ok(Part::End(None)) => {
                    if written == 0
                        && !jsonl
                        && let Some(h) = &header
                        && let Err(e) = file.write_all(h.as_bytes())
                    {
                        return ended(&tx, id, format!("export failed: {e}"), true);
                    }
                    return match file.finish() {
                        Ok(_) => {
                            let (text, warn) = done_text(&kind, written.min(total), &shown);
                            ended(&tx, id, text, warn)
                        }
                        Err(e) => ended(&tx, id, format!("export failed: {e}"), true),
                    };
                }
                Ok(Part::End(Some(why))) => {
                    let removal = file.abandon();
                    let text = format!("export to {shown} abandoned: {why}; {removal}");
                    return ended(&tx, id, text, true);
                }
                // The runtime went away (quit) or started another export: nothing half-written
                // stays behind.
                Err(mpsc::RecvError) => {
                    let removal = file.abandon();
                    let text = format!("export to {shown} abandoned; {removal}");
                    return ended(&tx, id, text, true);
                }
            }
        }
    });
}

/// The message of a finished export.
fn done_text(kind: &ExportKind, rows: usize, shown: &str) -> (String, bool) {
    match kind {
        ExportKind::Loaded => (format!("exported {rows} rows to {shown}"), false),
        ExportKind::WholeWalk { warnings } if warnings.is_empty() => (
            format!("exported the whole walk, all {rows} rows, to {shown}"),
            false,
        ),
        ExportKind::WholeWalk { warnings } => (
            format!(
                "exported {rows} rows to {shown}, but the walk may be incomplete: {}",
                warnings.join("; ")
            ),
            true,
        ),
        ExportKind::PartialWalk => (
            format!(
                "PARTIAL export: {rows} rows written to {shown}; the walk was stopped before \
                 its end and more rows exist"
            ),
            true,
        ),
    }
}
