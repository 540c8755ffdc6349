//! Writing an export, run by the runtime, off the UI thread, with [`crate::output::file`]'s
//! rules: a new file (an existing one is never replaced), mode 0600, a failed write removes the
//! partial file. The outcome comes back as `Msg::Notice`.

use std::path::PathBuf;

use tokio::sync::mpsc::UnboundedSender;

use crate::output::file::{self, ExportError};
use crate::tui::command::ExportKind;
use crate::tui::msg::{Msg, Task};

fn notice(tx: &UnboundedSender<Msg>, text: String, error: bool) {
    let _ = tx.send(Msg::Notice { text, error });
}

/// Writes an export to a new file: an existing file is never replaced.
pub fn export(
    path: PathBuf,
    contents: String,
    rows: usize,
    kind: ExportKind,
    tx: &UnboundedSender<Msg>,
) {
    let tx_done = tx.clone();
    crate::tui::tasks::spawn_blocking(Task::Export, tx, move || {
        let tx = tx_done;
        let shown = crate::text::one_line(&path.display().to_string(), 200);
        match file::write_new(&path, contents.as_bytes()) {
            Ok(_) => {
                let (text, warn) = match kind {
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
                            "PARTIAL export: {rows} rows written to {shown}; the walk was \
                             stopped before its end and more rows exist"
                        ),
                        true,
                    ),
                };
                notice(&tx, text, warn)
            }
            Err(ExportError::Exists { .. }) => notice(
                &tx,
                format!("{shown} exists: not overwritten; press e again and choose another name"),
                true,
            ),
            Err(e) => notice(&tx, format!("export failed: {e}"), true),
        }
    });
}
