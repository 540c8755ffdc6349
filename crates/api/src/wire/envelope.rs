//! A page body cut into its rows without parsing them: each row's raw bytes, the envelope's
//! other members, the next cursor read ahead of the rows, and lone UTF-16 surrogates repaired
//! so that one bad escape does not lose a page.

use serde::Deserialize;
use serde_json::value::RawValue;

/// Cuts a page body into the raw bytes of each row of its top-level `data` array, and the
/// envelope's other members with `"data":[]` in place of the rows. Strings are skipped with
/// their escapes and brackets counted, so any byte inside a string is carried, not judged.
/// `None` when the body is not one object with a `data` array that ends where it should.
pub(crate) fn split_rows(body: &[u8]) -> Option<(Vec<&[u8]>, Vec<u8>)> {
    let ws = |mut i: usize| {
        while body.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = ws(0);
    (body.get(i) == Some(&b'{')).then_some(())?;
    i += 1;
    let (mut rows, mut rest, mut data) = (Vec::new(), b"{".to_vec(), false);
    loop {
        i = ws(i);
        if body.get(i) == Some(&b'}') && rest.len() == 1 && !data {
            break;
        }
        (body.get(i) == Some(&b'"')).then_some(())?;
        let key_end = end_of_value(body, i)?;
        let key = &body[i..key_end];
        i = ws(key_end);
        (body.get(i) == Some(&b':')).then_some(())?;
        i = ws(i + 1);
        if rest.len() > 1 {
            rest.push(b',');
        }
        rest.extend_from_slice(key);
        rest.push(b':');
        if key == b"\"data\"" && body.get(i) == Some(&b'[') && !data {
            data = true;
            rest.extend_from_slice(b"[]");
            i = ws(i + 1);
            if body.get(i) == Some(&b']') {
                i += 1;
            } else {
                loop {
                    let end = end_of_value(body, i)?;
                    rows.push(&body[i..end]);
                    i = ws(end);
                    match body.get(i)? {
                        b',' => i = ws(i + 1),
                        b']' => {
                            i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
        } else {
            let end = end_of_value(body, i)?;
            rest.extend_from_slice(&body[i..end]);
            i = end;
        }
        i = ws(i);
        match body.get(i)? {
            b',' => i += 1,
            b'}' => break,
            _ => return None,
        }
    }
    rest.push(b'}');
    (data && ws(i + 1) == body.len()).then_some((rows, rest))
}

/// The end (exclusive) of the JSON value starting at `i`: a string with its escapes, an
/// object or array by bracket depth (strings inside skipped), or a scalar up to the next
/// delimiter. Bytes inside strings are not checked.
pub(crate) fn end_of_value(body: &[u8], i: usize) -> Option<usize> {
    let string_end = |mut j: usize| -> Option<usize> {
        j += 1;
        loop {
            match body.get(j)? {
                b'\\' => j += 2,
                b'"' => return Some(j + 1),
                _ => j += 1,
            }
        }
    };
    match body.get(i)? {
        b'"' => string_end(i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match body.get(j)? {
                    b'"' => {
                        j = string_end(j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while body
                .get(j)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// The `id` of a row that could not be decoded, read from its bytes made readable (invalid
/// UTF-8 replaced, raw control characters turned into spaces).
pub(crate) fn id_of_bytes(row: &[u8]) -> Option<String> {
    let text: String = String::from_utf8_lossy(row)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let raw: &RawValue = serde_json::from_str(&text).ok()?;
    row_id_of(raw)
}

/// The next page a body points to, read from its end without reading its rows: `has_more`
/// and `next_cursor` when they are the envelope's last two keys (in either order) and the
/// cursor is a plain string (no escape, no control character). `None` otherwise.
///
/// A guess, to ask for the next page before this one is decoded: only [`Page::decode`] says
/// what the page holds, and a walk checks the guess against it (a body that ends in this form
/// but is not a page, or holds these keys twice, can fool it).
pub fn peek_next(body: &[u8]) -> Option<(bool, Option<&str>)> {
    // Bytes are read backwards from `end` (exclusive).
    let mut end = body.len();
    let ws = |end: &mut usize| {
        while *end > 0 && body[*end - 1].is_ascii_whitespace() {
            *end -= 1;
        }
    };
    let byte = |end: &mut usize, want: u8| -> Option<()> {
        ws(end);
        (*end > 0 && body[*end - 1] == want).then(|| *end -= 1)
    };
    // A plain string ending at `end` (its closing quote at `end - 1`).
    let string = |end: &mut usize| -> Option<&[u8]> {
        byte(end, b'"')?;
        let close = *end;
        let open = body[..close].iter().rposition(|&b| b == b'"')?;
        let s = &body[open + 1..close];
        if s.iter().any(|&b| b == b'\\' || b < 0x20) {
            return None;
        }
        *end = open;
        Some(s)
    };
    byte(&mut end, b'}')?;
    let (mut has_more, mut cursor) = (None, None);
    for _ in 0..2 {
        ws(&mut end);
        let value_end = end;
        let value: Option<&[u8]> = if end > 0 && body[end - 1] == b'"' {
            Some(string(&mut end)?)
        } else {
            let start = body[..end]
                .iter()
                .rposition(|b| !b.is_ascii_lowercase())
                .map_or(0, |p| p + 1);
            end = start;
            None
        };
        let word = &body[end..value_end];
        byte(&mut end, b':')?;
        let key = string(&mut end)?;
        byte(&mut end, b',')?;
        match (key, value) {
            (b"has_more", None) if has_more.is_none() => {
                has_more = Some(match word {
                    b"true" => true,
                    b"false" => false,
                    _ => return None,
                });
            }
            (b"next_cursor", Some(c)) if cursor.is_none() => {
                cursor = Some(Some(std::str::from_utf8(c).ok()?));
            }
            (b"next_cursor", None) if cursor.is_none() && word == b"null" => cursor = Some(None),
            _ => return None,
        }
    }
    Some((has_more?, cursor?))
}

/// Replaces `\uXXXX` escapes of unpaired UTF-16 surrogates with `\ufffd`. serde_json rejects
/// them, which would lose a whole row (or page) over one bad character; docs/design.md "Data" wants the
/// row kept and the bad text shown.
pub fn repair_lone_surrogates(body: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    fn unit_at(b: &[u8], i: usize) -> Option<u16> {
        if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    }
    let is_high = |u: u16| (0xd800..0xdc00).contains(&u);
    let is_low = |u: u16| (0xdc00..0xe000).contains(&u);
    // Fast paths: most bodies hold no backslash (a vectorised scan), or no surrogate escape.
    if !body.contains(&b'\\') {
        return std::borrow::Cow::Borrowed(body);
    }
    if !body.windows(3).any(|w| {
        w[0] == b'u'
            && (w[1] == b'd' || w[1] == b'D')
            && matches!(w[2], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
    }) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'\\' {
            out.push(body[i]);
            i += 1;
            continue;
        }
        match unit_at(body, i) {
            Some(u) if is_high(u) && unit_at(body, i + 6).is_some_and(is_low) => {
                out.extend_from_slice(&body[i..i + 12]);
                i += 12;
            }
            Some(u) if is_high(u) || is_low(u) => {
                out.extend_from_slice(b"\\ufffd");
                i += 6;
            }
            _ => {
                // Any other escape (including `\\`): copy it whole so `\\ud800` stays text.
                out.extend_from_slice(&body[i..(i + 2).min(body.len())]);
                i += 2;
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

pub(crate) fn row_id_of(raw: &RawValue) -> Option<String> {
    #[derive(Deserialize)]
    struct IdOnly {
        id: serde_json::Value,
    }
    let v: IdOnly = serde_json::from_str(raw.get()).ok()?;
    match v.id {
        serde_json::Value::String(s) => Some(s.chars().take(64).collect()),
        serde_json::Value::Null => None,
        other => Some(other.to_string().chars().take(64).collect()),
    }
}
