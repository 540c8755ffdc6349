//! JSON on its way to stdout or a file: exact, and safe to `cat` on a terminal.

use convo_text as text;

/// Escapes, in serialised JSON, the characters serde_json leaves raw but a terminal could act
/// on (DEL, C1 controls, bidi and invisible format characters). They can only stand inside
/// JSON strings, so `\uXXXX` keeps the output valid and lossless.
pub fn json_terminal_safe(json: String) -> String {
    if text::is_clean(&json) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if text::is_clean(c.encode_utf8(&mut [0; 4])) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// True when a byte is 0x7f or above (DEL or part of a non-ASCII character), eight at a time.
/// JSON without such a byte needs no [`json_terminal_safe`] pass (serde_json escapes C0).
pub fn has_byte_from_7f(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    // A byte's high bit, or its low seven bits all set (+1 carries into the high bit).
    let hit = words.any(|c| {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        (w | ((w & !HIGH) + ONES)) & HIGH != 0
    });
    hit || words.remainder().iter().any(|&c| c >= 0x7f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_terminal_controls_losslessly() {
        let s = json_terminal_safe(serde_json::to_string("a\u{9b}b\u{202e}c\u{7f}").unwrap());
        assert_eq!(s, r#""a\u009bb\u202ec\u007f""#);
        let back: String = serde_json::from_str(&s).unwrap();
        assert_eq!(back, "a\u{9b}b\u{202e}c\u{7f}");
        assert!(serde_json::to_string("\u{1b}").unwrap().contains("\\u001b"));
    }

    #[test]
    fn bytes_from_7f_found_anywhere() {
        for len in 0..20 {
            let clean = vec![b'~'; len];
            assert!(!has_byte_from_7f(&clean), "{len}");
            for at in 0..len {
                for bad in [0x7f, 0x80, 0xc3, 0xff] {
                    let mut v = clean.clone();
                    v[at] = bad;
                    assert!(has_byte_from_7f(&v), "{len} {at} {bad:#x}");
                }
                let mut v = clean.clone();
                v[at] = 0;
                assert!(!has_byte_from_7f(&v));
            }
        }
        assert!(!has_byte_from_7f(&(0u8..0x7f).collect::<Vec<_>>()));
    }
}
