//! CSV fields and records (RFC 4180).

use crate::text;

/// One CSV field, quoted when needed (RFC 4180). On a terminal, cells are sanitised too.
pub fn csv_field(s: &str, to_terminal: bool) -> String {
    let s = if to_terminal {
        text::sanitize(s)
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("plain", false), "plain");
        assert_eq!(csv_field("a,b", false), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\"", false), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("x\u{1b}[2J", true), "x␛[2J");
    }
}
