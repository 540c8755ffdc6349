//! The line of a key in the file, for errors found after parsing (a value out of range, a view
//! that filters the wrong tab), so they say where to look as parse errors do.
//!
//! Keys are written as the errors name them: `page_size`, `theme.preset`, `views["v"].notify`
//! (the `[[views]]` entry whose `name` is "v"), `aliases."x"`. A part not found (one shown as
//! `…` because it looked like a secret) gives the line of what holds it.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::text::line_col;

/// One step of a key path.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// A key of a table.
    Key(String),
    /// The entry of an array of tables whose `name` is this.
    Named(String),
}

/// Reads a double-quoted string as `{:?}` writes it; returns it and the rest.
fn quoted(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.strip_prefix('"')?.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &s[i + 2..])),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                // \u{…} and other escapes: such a name is not worth finding.
                'u' => return None,
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// `views["v"].notify` → `[Key(views), Named(v), Key(notify)]`; `None` when it does not read.
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if rest.starts_with('"') {
            let (k, r) = quoted(rest)?;
            out.push(Step::Key(k));
            rest = r;
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            out.push(Step::Key(rest[..end].to_string()));
            rest = &rest[end..];
        }
        while let Some(r) = rest.strip_prefix('[') {
            let (name, r) = quoted(r)?;
            out.push(Step::Named(name));
            rest = r.strip_prefix(']')?;
        }
        if let Some(r) = rest.strip_prefix('.') {
            rest = r;
        } else if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// The span of the deepest part of `steps` found under `table` (a key's span), and how many
/// steps were found.
fn find(table: &DeTable<'_>, steps: &[Step]) -> Option<(std::ops::Range<usize>, usize)> {
    let (Step::Key(first), rest) = steps.split_first()? else {
        return None;
    };
    let (k, value) = table
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == first.as_str())?;
    let found = (k.span(), 1);
    match (rest.split_first(), value.get_ref()) {
        (None, _) => Some(found),
        // A `Named` step picks the entry of the array; the next key is looked for in it.
        (Some((Step::Named(name), after)), DeValue::Array(items)) => {
            let Some((entry, name_span)) = items.iter().find_map(|item| named(item, name)) else {
                return Some(found);
            };
            Some(match find(entry, after) {
                Some((span, n)) => (span, n + 2),
                None => (name_span, 2),
            })
        }
        (Some((Step::Key(_), _)), DeValue::Table(t)) => Some(match find(t, rest) {
            Some((span, n)) => (span, n + 1),
            None => found,
        }),
        _ => Some(found),
    }
}

/// The table `item` and the span of its `name` key when its `name` is `name`.
fn named<'a, 'i>(
    item: &'a Spanned<DeValue<'i>>,
    name: &str,
) -> Option<(&'a DeTable<'i>, std::ops::Range<usize>)> {
    let DeValue::Table(t) = item.get_ref() else {
        return None;
    };
    t.iter().find_map(|(k, v)| {
        (k.get_ref().as_ref() == "name"
            && matches!(v.get_ref(), DeValue::String(s) if s.as_ref() == name))
        .then(|| (t, k.span()))
    })
}

/// The 1-based line of `key` in `text`: first under `[profiles.PROFILE]` when a profile is in
/// use (its keys win), else at the top level. `None` when the key is not written in the file.
pub(super) fn line_of(text: &str, key: &str, profile: Option<&str>) -> Option<usize> {
    let steps = steps(key)?;
    let doc = DeTable::parse(text).ok()?;
    let in_profile = profile.and_then(|p| {
        let mut at = vec![Step::Key("profiles".into()), Step::Key(p.to_string())];
        at.extend(steps.iter().map(|s| match s {
            Step::Key(k) => Step::Key(k.clone()),
            Step::Named(k) => Step::Named(k.clone()),
        }));
        let n = steps.len();
        // Only a full match in the profile counts: a partial one is the profile's header.
        find(doc.get_ref(), &at).filter(|(_, found)| *found == n + 2)
    });
    let (span, _) = in_profile.or_else(|| find(doc.get_ref(), &steps))?;
    Some(line_col(text, span.start).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_read_as_the_errors_write_them() {
        assert_eq!(
            steps("views[\"a.b\"].notify"),
            Some(vec![
                Step::Key("views".into()),
                Step::Named("a.b".into()),
                Step::Key("notify".into())
            ])
        );
        assert_eq!(
            steps("aliases.\"x\""),
            Some(vec![Step::Key("aliases".into()), Step::Key("x".into())])
        );
        assert_eq!(steps("views[\"a\"x"), None);
    }

    #[test]
    fn lines_of_keys_tables_and_named_entries() {
        let text = "page_size = 500\n\n[theme]\npreset = \"neon\"\n\n[[views]]\nname = \"a\"\n\n[[views]]\nname = \"b\"\nnotify = true\n\n[profiles.p]\npage_size = 0\n";
        assert_eq!(line_of(text, "page_size", None), Some(1));
        assert_eq!(line_of(text, "page_size", Some("p")), Some(14));
        assert_eq!(line_of(text, "page_size", Some("q")), Some(1));
        assert_eq!(line_of(text, "theme.preset", None), Some(4));
        assert_eq!(line_of(text, "views[\"b\"].notify", None), Some(11));
        assert_eq!(line_of(text, "views[\"b\"]", None), Some(10));
        // a key not written: the line of what holds it, or none
        assert_eq!(line_of(text, "theme.accent", None), Some(3));
        assert_eq!(line_of(text, "api_key", None), None);
    }
}
