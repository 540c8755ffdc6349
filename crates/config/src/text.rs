//! Where a byte of the config's text is (line and column), and what of a token from it an
//! error may show (never what looks like a key pasted in the wrong place). Below every part
//! of `config` that reads the text: `file`, `locate`, `sla`, `secret`.

/// 1-based line and column (in characters) of a byte offset; never panics.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Could this token be a key pasted in the wrong place? Long, with letters and digits: field
/// names have no digits, and short literals are harmless.
pub(super) fn looks_secret(token: &str) -> bool {
    token.chars().count() >= 16
        && token.chars().any(|c| c.is_ascii_digit())
        && token.chars().any(|c| c.is_alphabetic())
}

/// Shows a token from the file, or `…` when it [`looks_secret`].
pub(super) fn shown(token: &str) -> String {
    if looks_secret(token) {
        "…".to_string()
    } else {
        format!("{token:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_and_never_splits_one() {
        let t = "a = 1\né = x\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, 9), (2, 3));
        // Inside the two bytes of `é`, and past the end.
        assert_eq!(line_col(t, 7), (2, 1));
        assert_eq!(line_col(t, 999), (3, 1));
    }
}
