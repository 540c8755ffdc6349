//! The one-line prompts (search text, export path and scope), the query line and the profile picker, drawn
//! over the status line or centred ([`super::view::prompt`]). One at a time; while one is
//! open it takes every key. Which feature answers which prompt: `update::on_prompt_key`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Longest text a prompt takes.
const PROMPT_MAX: usize = 400;

/// A one-line prompt or the profile picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    /// `\`: the search text as typed.
    Search(String),
    /// `e`: the export path.
    Export(String),
    /// The export path named something that exists (never overwritten): the path again, to
    /// edit (becomes `Export` at the first edit).
    ExportExists(String),
    /// After the path, when more pages exist: loaded rows or the whole walk (to this path).
    ExportScope(String),
    /// The whole walk was chosen: confirm fetching every remaining page (to this path).
    ExportConfirm(String),
    /// `P`: the profile picker with its selected line.
    Profiles(usize),
    /// `:`: the query line over the table.
    Query(Box<super::query_line::QueryLine>),
    /// `w`: the name to save the tab's query as a view under.
    SaveView(Box<super::query_line::SaveView>),
    /// A command with `confirm = true`: y runs it.
    ConfirmCommand(Box<super::commands::ProgramRun>),
}

/// What a key did to a prompt's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEdit {
    /// Esc.
    Cancel,
    /// Enter.
    Submit,
    /// The text was edited (or a key was typed at the length limit).
    Changed,
    /// A key that means nothing here.
    Ignored,
}

/// Adds pasted text to a prompt's text: one line (line breaks and other control characters
/// become spaces, a final line break is dropped), up to the prompt's limit.
pub fn paste_line(text: &mut String, pasted: &str) {
    let room = PROMPT_MAX.saturating_sub(text.chars().count());
    let line = pasted.trim_end_matches(['\r', '\n']);
    text.extend(
        line.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(room),
    );
}

/// Edits a prompt's text with one key: Backspace, Ctrl-U (clear), printable characters (up
/// to a limit).
pub fn edit_line(text: &mut String, k: KeyEvent) -> LineEdit {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Esc => return LineEdit::Cancel,
        KeyCode::Enter => return LineEdit::Submit,
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Char('u') if ctrl => text.clear(),
        KeyCode::Char(c) if !ctrl && !c.is_control() => {
            if text.chars().count() < PROMPT_MAX {
                text.push(c);
            }
        }
        _ => return LineEdit::Ignored,
    }
    LineEdit::Changed
}
