//! Untrusted text on its way to a terminal.
//!
//! docs/design.md "Display safety": C0 and C1 control characters, DEL, and bidi overrides and
//! isolates are replaced by a visible stand-in, so nothing from data can move the cursor,
//! clear the screen or set the window title. Zero-width and other invisible format characters
//! are shown too, so that what is measured is what the terminal draws. Widths are measured in
//! cells and long values are cut with `…`.

pub mod fold;

use std::borrow::Cow;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The visible stand-in for a character that must not reach the terminal, or `None` when the
/// character is safe as it is.
fn stand_in(c: char) -> Option<Cow<'static, str>> {
    let cp = c as u32;
    match cp {
        // C0: the Control Pictures block has one glyph per code (␀ … ␟).
        0x00..=0x1f => char::from_u32(0x2400 + cp).map(|p| Cow::Owned(p.to_string())),
        0x7f => Some(Cow::Borrowed("␡")),
        // C1 (8-bit CSI, OSC, …), bidi embeddings/overrides/isolates/marks, zero-width and
        // invisible format characters, line/paragraph separators, BOM, interlinear annotation,
        // tag characters, variation selectors stand alone do no harm but are invisible:
        // only the dangerous or width-confusing ones are listed.
        0x80..=0x9f
        | 0x00ad
        | 0x061c
        | 0x180e
        | 0x200b..=0x200f
        | 0x2028..=0x202e
        | 0x2060..=0x206f
        | 0xfeff
        | 0xfff9..=0xfffb
        | 0xe0000..=0xe007f => Some(Cow::Owned(format!("\\u{{{cp:x}}}"))),
        _ => None,
    }
}

/// True when `s` holds nothing that [`sanitize`] would replace.
pub fn is_clean(s: &str) -> bool {
    // Fast path: printable ASCII is always clean (the common case for ids, JSON, e-mails).
    s.bytes().all(|b| (0x20..0x7f).contains(&b)) || s.chars().all(|c| stand_in(c).is_none())
}

/// Replaces every unsafe character with a visible stand-in. Borrowed when nothing changed.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if is_clean(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match stand_in(c) {
            Some(rep) => out.push_str(&rep),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// As [`sanitize`], but newlines and tabs are kept (a CSV file's multi-line cells stay as
/// they were; nothing else a terminal would act on is left, so `cat` of the file is safe).
pub fn sanitize_keeping_lines(s: &str) -> Cow<'_, str> {
    let kept = |c: char| c == '\n' || c == '\t';
    if s.chars().all(|c| kept(c) || stand_in(c).is_none()) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match stand_in(c).filter(|_| !kept(c)) {
            Some(rep) => out.push_str(&rep),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Display width in terminal cells of already-sanitised text.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Sanitises `s` and cuts it to at most `max` cells, ending in `…` when cut.
pub fn fit(s: &str, max: usize) -> Cow<'_, str> {
    let clean = sanitize(s);
    // Zero-width characters (combining marks) cost no cells; cap them too, so a megabyte of
    // them cannot pass through a cell of ten.
    let char_cap = max.saturating_mul(4).max(8);
    if width(&clean) <= max && clean.chars().nth(char_cap).is_none() {
        return clean;
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let budget = max - 1; // room for the ellipsis
    let mut used = 0;
    let mut out = String::with_capacity(max * 2);
    for (n, c) in clean.chars().enumerate() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > budget || n + 1 >= char_cap {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    // The width of a string is not always the sum of its characters' widths (U+FE0F makes the
    // character before it two cells wide): trim until the measured width fits.
    while width(&out) > max {
        out.pop(); // the ellipsis
        if out.pop().is_none() {
            out.push('…');
            break;
        }
        out.push('…');
    }
    Cow::Owned(out)
}

/// As [`fit`], but a cut text ends after a whole word (then `…`), never in the middle of one
/// (unless its first word alone is wider than half of `max`). For sentences: messages, hints.
pub fn fit_words(s: &str, max: usize) -> Cow<'_, str> {
    let cut = fit(s, max);
    let Some(body) = cut.strip_suffix('…') else {
        return cut;
    };
    if width(&sanitize(s)) <= max {
        return cut;
    }
    // Where the cut fell inside a word: back to the space before it.
    match body.rfind(' ') {
        Some(at) if width(&body[..at]) * 2 >= max => {
            let kept = body[..at].trim_end_matches([' ', '·', ',', ';', ':', '(', '-']);
            Cow::Owned(format!("{kept}…"))
        }
        _ => cut,
    }
}

/// Sanitises and fits one line for a CSV/table cell or a status line: newlines become stand-ins too.
pub fn one_line(s: &str, max: usize) -> String {
    fit(s, max).into_owned()
}

/// Lines a wrapped text takes at most ([`wrap`]); the last is cut with `…`.
const WRAP_MAX_LINES: usize = 12;

/// `s`, sanitised, in lines of at most `max` cells: broken at spaces, a word longer than a
/// line broken where it must; at most a dozen lines.
pub fn wrap(s: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let clean = sanitize(s);
    let mut lines: Vec<String> = Vec::new();
    let (mut line, mut used) = (String::new(), 0);
    for word in clean.split(' ').filter(|w| !w.is_empty()) {
        let w = width(word);
        if used > 0 && used + 1 + w <= max {
            line.push(' ');
            line.push_str(word);
            used += 1 + w;
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        for c in word.chars() {
            let cw = UnicodeWidthChar::width(c).unwrap_or(0);
            if used + cw > max {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += cw;
        }
    }
    if used > 0 {
        lines.push(line);
    }
    if lines.len() > WRAP_MAX_LINES {
        lines.truncate(WRAP_MAX_LINES);
        if let Some(last) = lines.last_mut() {
            *last = format!(
                "{}…",
                fit(last, max.saturating_sub(1)).trim_end_matches('…')
            );
        }
    }
    lines
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_words_cuts_after_a_whole_word() {
        assert_eq!(
            fit_words("the selected row left this view", 20),
            "the selected row…"
        );
        assert_eq!(fit_words("short", 20), "short");
        assert_eq!(fit_words("left: now assigned", 13), "left: now…");
        assert_eq!(fit_words("abcdefghijklmnop qr", 10), "abcdefghi…");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_inside_long_words() {
        assert_eq!(
            wrap("is the base URL right? abcdefghij", 10),
            ["is the", "base URL", "right?", "abcdefghij"]
        );
        assert_eq!(wrap("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
        assert_eq!(wrap("a\u{1b}[2J b", 20), ["a␛[2J b"]);
        assert_eq!(wrap(&"word ".repeat(100), 10).len(), 12);
    }

    #[test]
    fn escapes_become_visible() {
        assert_eq!(sanitize("a\u{1b}[2Jb"), "a␛[2Jb");
        assert_eq!(sanitize("\u{1b}]0;t\u{7}"), "␛]0;t␇");
        assert_eq!(sanitize("x\u{9b}31m"), "x\\u{9b}31m");
        assert_eq!(sanitize("\u{202e}abc"), "\\u{202e}abc");
        assert_eq!(sanitize("r\rn\n\u{8}"), "r␍n␊␈");
        assert!(matches!(sanitize("plain 王小明 🌸"), Cow::Borrowed(_)));
    }

    #[test]
    fn fit_counts_cells() {
        assert_eq!(fit("王小明", 6), "王小明");
        assert_eq!(fit("王小明", 5), "王小…");
        assert_eq!(fit("王小明", 4), "王…");
        assert!(width(&fit("abcdef", 4)) <= 4);
        assert_eq!(fit("abc", 0), "");
        assert_eq!(fit("abcdef", 1), "…");
        let marks = format!("a{}", "\u{301}".repeat(100_000));
        assert!(fit(&marks, 10).chars().count() <= 40);
    }
}
