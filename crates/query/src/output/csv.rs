//! CSV fields and records (RFC 4180), safe to open in a spreadsheet.
//!
//! Visitor names, e-mails, external ids and attribute values are typed by strangers in a chat
//! widget. A spreadsheet runs a cell that begins with `=`, `+`, `-` or `@` (and, in some, a
//! tab or carriage return before one) as a formula, so such a cell gets a leading single
//! quote, as OWASP advises ("CSV Injection"). A plain number (`-5`, `12.5`) is left alone:
//! every spreadsheet reads it as the number it is, and summary ages stay exact. Scripts that
//! need the bytes as sent ask for [`CsvStyle::RAW`] (`convo list --csv-raw`).
//!
//! The same strangers can type terminal controls (ESC sequences that clear the screen or set
//! the window title, CR that overwrites a line, C1 codes, bidi overrides). A CSV file or pipe
//! gets them as visible stand-ins (`␛`, `␍`, `\u{202e}`), newlines and tabs kept, so `cat`
//! or `less -R` of an export cannot replay them ([`CsvStyle::FILE`]); `--csv-raw` keeps the
//! bytes as sent, for pipelines; JSON keeps the exact strings, escaped.

use std::borrow::Cow;

use super::Printable;
use convo_text as text;

/// How CSV cells are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvStyle {
    /// Replace characters a terminal would act on with visible stand-ins, newlines and tabs
    /// included (stdout is a terminal: a cell stays on its line).
    pub sanitize: bool,
    /// Replace terminal controls with visible stand-ins but keep newlines and tabs (a file or
    /// a pipe: `cat` of it replays nothing; multi-line cells stay).
    pub controls: bool,
    /// Prefix a cell that a spreadsheet would run as a formula with `'`.
    pub guard_formulas: bool,
}

impl CsvStyle {
    /// For a file (the TUI's export) or a pipe: formulas guarded, terminal controls shown.
    pub const FILE: CsvStyle = CsvStyle {
        sanitize: false,
        controls: true,
        guard_formulas: true,
    };
    /// The bytes as the service sent them (`--csv-raw`), for pipelines.
    pub const RAW: CsvStyle = CsvStyle {
        sanitize: false,
        controls: false,
        guard_formulas: false,
    };

    /// For stdout: sanitised on a terminal; elsewhere terminal controls shown and formulas
    /// guarded, unless `raw`.
    pub fn stdout(is_terminal: bool, raw: bool) -> Self {
        CsvStyle {
            sanitize: is_terminal,
            controls: !raw,
            guard_formulas: !raw,
        }
    }
}

/// True when a spreadsheet could read the cell as a formula: it begins with `=`, `+`, `-`,
/// `@`, a tab or a carriage return, and is not a plain decimal number.
pub fn is_formula_risk(s: &str) -> bool {
    match s.as_bytes().first() {
        Some(b'=' | b'@' | b'\t' | b'\r') => true,
        Some(b'+' | b'-') => !is_plain_number(&s[1..]),
        _ => false,
    }
}

/// Digits, optionally with one `.` between digits: `5`, `12.25`.
fn is_plain_number(s: &str) -> bool {
    let (int, frac) = s.split_once('.').unwrap_or((s, "1"));
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    digits(int) && digits(frac)
}

/// One CSV field: formula-guarded and sanitised as `style` says, quoted when needed
/// (RFC 4180). Borrowed when nothing changed.
pub fn csv_field(s: &str, style: CsvStyle) -> Cow<'_, str> {
    let mut cell = if style.sanitize {
        text::sanitize(s)
    } else if style.controls {
        text::sanitize_keeping_lines(s)
    } else {
        Cow::Borrowed(s)
    };
    // Checked on the text as sent: a sanitised tab no longer looks like one.
    if style.guard_formulas && is_formula_risk(s) {
        cell = Cow::Owned(format!("'{cell}"));
    }
    if cell.contains([',', '"', '\n', '\r']) || cell.starts_with(' ') || cell.ends_with(' ') {
        Cow::Owned(format!("\"{}\"", cell.replace('"', "\"\"")))
    } else {
        cell
    }
}

/// Appends one CSV record (fields joined by `,`, then `\n`) to `out`.
pub fn push_record<S: AsRef<str>>(out: &mut String, fields: &[S], style: CsvStyle) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&csv_field(f.as_ref(), style));
    }
    out.push('\n');
}

/// Appends the header line of `T`'s CSV to `out`.
pub fn push_header<T: Printable>(out: &mut String) {
    push_record(out, T::CSV_HEADER, CsvStyle::RAW);
}

/// Appends one row of `T` as a CSV record to `out`.
pub fn push_row<T: Printable>(out: &mut String, row: &T, style: CsvStyle) {
    push_record(out, &row.csv_fields(), style);
}

#[cfg(test)]
mod tests {
    use super::*;

    const TERM: CsvStyle = CsvStyle {
        sanitize: true,
        controls: true,
        guard_formulas: true,
    };

    #[test]
    fn csv_quoting() {
        let f = |s, st| csv_field(s, st).into_owned();
        assert_eq!(f("plain", CsvStyle::FILE), "plain");
        assert_eq!(f("a,b", CsvStyle::FILE), "\"a,b\"");
        assert_eq!(f("say \"hi\"", CsvStyle::FILE), "\"say \"\"hi\"\"\"");
        assert_eq!(f("x\u{1b}[2J", TERM), "x␛[2J");
        assert!(matches!(
            csv_field("plain", CsvStyle::FILE),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn formulas_get_a_quote_unless_raw() {
        let f = |s| csv_field(s, CsvStyle::FILE).into_owned();
        assert_eq!(
            f("=HYPERLINK(\"http://x\")"),
            "\"'=HYPERLINK(\"\"http://x\"\")\""
        );
        assert_eq!(f("+1+cmd|' /C calc'!A0"), "'+1+cmd|' /C calc'!A0");
        assert_eq!(f("-2+3"), "'-2+3");
        assert_eq!(f("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(f("\t=1"), "'\t=1");
        // a CR is shown (a file's `cat` must not overwrite the line), the cell still guarded
        assert_eq!(f("\r=1"), "'␍=1");
        assert_eq!(f("a\u{1b}[2Jb\nc\td"), "\"a␛[2Jb\nc\td\"");
        assert_eq!(csv_field("\r=1\u{1b}", CsvStyle::RAW), "\"\r=1\u{1b}\"");
        assert_eq!(f("-"), "'-");
        assert_eq!(f("+"), "'+");
        // Plain numbers are numbers in every spreadsheet.
        for n in ["-5", "+5", "-12.25", "0", "5"] {
            assert_eq!(f(n), n);
        }
        for s in ["-1.", "-.5", "-1.2.3", "-1e5"] {
            assert_eq!(f(s), format!("'{s}"), "{s}");
        }
        // Not at the start: not a formula.
        assert_eq!(f("a=b"), "a=b");
        assert_eq!(f(" =1"), "\" =1\"");
        assert_eq!(csv_field("=1", CsvStyle::RAW), "=1");
        assert_eq!(csv_field("\t=1", TERM), "'␉=1");
        assert_eq!(
            csv_field("=1", CsvStyle::stdout(false, true)),
            csv_field("=1", CsvStyle::RAW)
        );
    }

    #[test]
    fn records() {
        let mut out = String::new();
        push_record(&mut out, &["a", "=b", "c,d"], CsvStyle::FILE);
        assert_eq!(out, "a,'=b,\"c,d\"\n");
    }
}
