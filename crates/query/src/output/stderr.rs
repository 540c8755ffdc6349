//! The lines convo writes on stderr while it walks a list: the same words from `list`,
//! `summary` and the TUI's export.

use convo_api::{BadRow, RetryNotice};
use convo_text as text;

/// Erases the progress line (carriage return, clear to end of line).
pub const CLEAR_LINE: &str = "\r\x1b[K";

/// What to write before a line on stderr: [`CLEAR_LINE`] when a progress line may be showing.
pub fn clear(progress: bool) -> &'static str {
    if progress { CLEAR_LINE } else { "" }
}

/// The stderr line for a request the client is about to retry.
pub fn retry_line(n: &RetryNotice) -> String {
    format!(
        "convo: {}; retrying in {:.1}s (attempt {})",
        n.reason,
        n.wait.as_secs_f32(),
        n.attempt + 1
    )
}

/// The stderr warning for a row of page `page_no` (from 1) that could not be read.
pub fn bad_row_line(b: &BadRow, page_no: usize) -> String {
    format!(
        "convo: warning: row {} of page {page_no}{} could not be read: {}",
        b.index + 1,
        b.id.as_deref()
            .map(|i| format!(" (id {})", text::one_line(i, 40)))
            .unwrap_or_default(),
        text::one_line(&b.reason, 200)
    )
}

/// A warning on stderr (`convo: warning: …`).
pub fn warning_line(w: &str) -> String {
    format!("convo: warning: {w}")
}

/// The note on stderr when a table left columns out to fit the terminal (`None` when none).
pub fn hidden_columns_line(hidden: &[&str], width: Option<usize>) -> Option<String> {
    let width = width.filter(|_| !hidden.is_empty())?;
    Some(format!(
        "convo: {} left out to fit {width} columns (a wider terminal, a pipe, or --format csv \
         or json shows every column)",
        hidden.join(", ")
    ))
}

/// The progress line of a walk, drawn over itself (starts with [`CLEAR_LINE`], no newline):
/// `1,200 rows, 3 pages, more…`. `count` is already formatted; `noun` is plural.
pub fn progress_line(count: &str, noun: &str, pages: usize, more: bool) -> String {
    format!(
        "{CLEAR_LINE}{count} {noun}, {pages} pages{}",
        if more { ", more…" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let b = BadRow {
            index: 2,
            id: Some("abc\u{1b}".into()),
            reason: "bad\nreason".into(),
        };
        let l = bad_row_line(&b, 4);
        assert!(
            l.starts_with("convo: warning: row 3 of page 4 (id abc"),
            "{l}"
        );
        assert!(!l.contains('\u{1b}') && !l.contains('\n'), "{l}");
        assert_eq!(
            progress_line("12", "rows", 2, true),
            "\r\x1b[K12 rows, 2 pages, more…"
        );
        assert_eq!(clear(false), "");
    }
}
