//! Text as quick search and queries compare it: without regard to case or accents, so `bjorn` finds
//! "Björn", `lukasiewicz` "Łukasiewicz" and `strasse` "Straße".
//!
//! A character is lower-cased, then decomposed (Unicode NFKD, by `icu_normalizer`, which
//! `url` already builds: no crate is added to the build) and its combining marks dropped.
//! Letters that carry their stroke or ligature in the letter itself do not decompose (ø, ł,
//! đ, ħ, æ, œ, ß, þ…): a short table spells them as a reader of Latin script would type them.
//! ASCII text, the usual case, is only lower-cased; a scratch buffer reused for a whole scan
//! holds the folded text, so a scan does not allocate per row.

use icu_normalizer::DecomposingNormalizerBorrowed;

const NFKD: DecomposingNormalizerBorrowed<'static> = DecomposingNormalizerBorrowed::new_nfkd();

/// The folded form of a search query, ready to look for in row texts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needle {
    folded: String,
}

impl Needle {
    /// Folds `query`.
    pub fn new(query: &str) -> Needle {
        let mut folded = String::with_capacity(query.len());
        fold_into(query, &mut folded);
        Needle { folded }
    }

    /// True for a query with nothing to look for.
    pub fn is_empty(&self) -> bool {
        self.folded.is_empty()
    }

    /// True if `hay`, folded, contains the needle. `buf` is scratch space reused between
    /// calls.
    pub fn is_in(&self, hay: &str, buf: &mut String) -> bool {
        buf.clear();
        if hay.is_ascii() {
            // Folding ASCII only lower-cases it (std's routines, then std's substring search).
            buf.push_str(hay);
            buf.make_ascii_lowercase();
        } else {
            fold_into(hay, buf);
        }
        buf.contains(self.folded.as_str())
    }
}

/// `text` folded (see the module's notes).
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    fold_into(text, &mut out);
    out
}

/// Appends `text`, folded, to `out`.
pub fn fold_into(text: &str, out: &mut String) {
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
            continue;
        }
        for l in c.to_lowercase() {
            if let Some(s) = spelled(l) {
                out.push_str(s);
            } else {
                out.extend(
                    NFKD.normalize_iter(std::iter::once(l))
                        .filter(|d| !is_combining_mark(*d))
                        // NFKD may give capitals (e.g. ℌ → H): fold those as well.
                        .flat_map(char::to_lowercase),
                );
            }
        }
    }
}

/// Lower-case letters that do not decompose, spelled in plain Latin letters.
fn spelled(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "ss",
        'æ' => "ae",
        'œ' => "oe",
        'ø' | 'ǿ' => "o",
        'ł' | 'ŀ' => "l",
        'đ' | 'ð' => "d",
        'ħ' => "h",
        'ŧ' => "t",
        'þ' => "th",
        'ı' => "i",
        'ŋ' => "n",
        'ĸ' => "k",
        'ſ' => "s",
        _ => return None,
    })
}

/// Combining diacritical marks (accents, cedillas, rings, dots, strokes that combine); not
/// the Japanese voicing marks, which change the sound rather than decorate the letter.
fn is_combining_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finds(query: &str, hay: &str) -> bool {
        Needle::new(query).is_in(hay, &mut String::new())
    }

    #[test]
    fn case_and_accents_do_not_matter() {
        for (q, hay) in [
            ("bjorn", "Björn Ångström"),
            ("BJÖRN", "bjorn"),
            ("angstrom", "Björn Ångström"),
            ("lukasiewicz", "Jan Łukasiewicz"),
            ("strasse", "Hauptstraße 5"),
            ("STRASSE", "HAUPTSTRAẞE"),
            ("soren", "Søren Kierkegaard"),
            ("aesir", "Æsir"),
            ("francois", "François"),
            ("zoe", "Zoë 🌸 Müller"),
            ("muller", "Zoë 🌸 Müller"),
            ("dang", "Đặng Thị"),
            ("istanbul", "İstanbul"),
            ("thorn", "Þorn"),
            ("fire", "ﬁre"),
            ("ab12", "ＡＢ１２"),
            ("王小", "王小明"),
        ] {
            assert!(finds(q, hay), "{q:?} should find {hay:?}");
        }
    }

    #[test]
    fn different_letters_still_differ() {
        for (q, hay) in [
            ("bjarn", "Björn"),
            ("mia", "Kai"),
            ("ö", "plain ascii"),
            ("王大", "王小明"),
        ] {
            assert!(!finds(q, hay), "{q:?} should not find {hay:?}");
        }
    }

    #[test]
    fn folding_keeps_plain_text_and_drops_accents() {
        let mut buf = String::new();
        assert!(Needle::new("ell").is_in("HELLO", &mut buf));
        assert_eq!(buf, "hello");
        assert_eq!(fold("Crème BRÛLÉE"), "creme brulee");
    }
}
