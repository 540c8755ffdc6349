//! `[keys]` in the config: action names, key names, and the user's bindings laid over the
//! defaults. An action the user names gets exactly the keys given (`[]` unbinds it); every
//! other action keeps its defaults. Two actions on one key is an error at start that names
//! both and the key.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyModifiers};

use super::{Action, Key, KeyMap};

/// Parses a key as written in `[keys]`: a single character (`r`, `G`, `?`), a name (`F5`,
/// `Enter`, `Esc`, `Tab`, `Shift-Tab`, `Backspace`, `Space`, `Up`, `Down`, `Left`, `Right`,
/// `PageUp`, `PageDown`, `Home`, `End`), optionally after `Ctrl-` and/or `Alt-` (or `+`).
pub fn parse_key(s: &str) -> Result<Key, String> {
    let mut rest = s;
    let mut mods = KeyModifiers::NONE;
    loop {
        let lower = rest.to_ascii_lowercase();
        let strip = |p: &str| {
            [format!("{p}-"), format!("{p}+")]
                .into_iter()
                .find(|x| lower.starts_with(x.as_str()) && rest.len() > x.len())
                .map(|x| x.len())
        };
        if let Some(n) = strip("ctrl") {
            mods |= KeyModifiers::CONTROL;
            rest = &rest[n..];
        } else if let Some(n) = strip("alt") {
            mods |= KeyModifiers::ALT;
            rest = &rest[n..];
        } else {
            break;
        }
    }
    let mut chars = rest.chars();
    let code = match (chars.next(), chars.next()) {
        (Some(c), None) if mods.contains(KeyModifiers::CONTROL) => {
            KeyCode::Char(c.to_ascii_lowercase())
        }
        (Some(c), None) if !c.is_control() => KeyCode::Char(c),
        _ => match rest.to_ascii_lowercase().as_str() {
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "shift-tab" | "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "space" => KeyCode::Char(' '),
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pageup" | "pgup" => KeyCode::PageUp,
            "pagedown" | "pgdn" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "delete" | "del" => KeyCode::Delete,
            "insert" | "ins" => KeyCode::Insert,
            f if f.starts_with('f') && f.len() > 1 => match f[1..].parse::<u8>() {
                Ok(n @ 1..=12) => KeyCode::F(n),
                _ => return Err(unknown_key(s)),
            },
            _ => return Err(unknown_key(s)),
        },
    };
    Ok(Key { code, mods })
}

fn unknown_key(s: &str) -> String {
    format!(
        "{:?} is not a key (a character such as \"r\", or F1-F12, Enter, Esc, Tab, Shift-Tab, \
         Backspace, Space, Up, Down, Left, Right, PageUp, PageDown, Home, End; with Ctrl- or Alt-)",
        convo_text::one_line(s, 40)
    )
}

/// Why `[keys]` cannot be used: the key in the config and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysError {
    /// e.g. `keys.reload` or `keys`.
    pub key: String,
    pub message: String,
}

impl KeyMap {
    /// The defaults with `[keys]` laid over them; conflicts are errors naming both actions
    /// and the key.
    pub fn with_config(user: &BTreeMap<String, Vec<String>>) -> Result<KeyMap, KeysError> {
        let mut map = KeyMap::default();
        for (name, keys) in user {
            let at = format!("keys.{name}");
            let action = Action::from_name(name).ok_or_else(|| KeysError {
                key: at.clone(),
                message: format!(
                    "no action named {:?}; actions: {}",
                    convo_text::one_line(name, 40),
                    Action::ALL
                        .iter()
                        .map(|a| a.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })?;
            let mut parsed = Vec::new();
            for k in keys {
                let key = parse_key(k).map_err(|message| KeysError {
                    key: at.clone(),
                    message,
                })?;
                if !parsed.contains(&key) {
                    parsed.push(key);
                }
            }
            for b in map.bindings.iter_mut().filter(|b| b.action == action) {
                b.keys = std::mem::take(&mut parsed);
            }
        }
        map.check()?;
        Ok(map)
    }

    /// Every problem `[keys]` has, for `convo doctor`: each entry with an unknown action or
    /// key on its own, then (when every entry reads) the first key bound to two actions.
    /// Empty when [`KeyMap::with_config`] would accept it.
    pub fn problems(user: &BTreeMap<String, Vec<String>>) -> Vec<KeysError> {
        let mut out: Vec<KeysError> = user
            .iter()
            .filter_map(|(name, keys)| {
                let one = BTreeMap::from([(name.clone(), keys.clone())]);
                KeyMap::with_config(&one).err()
            })
            .filter(|e| e.key != "keys")
            .collect();
        if out.is_empty()
            && let Err(e) = KeyMap::with_config(user)
        {
            out.push(e);
        }
        out
    }

    /// The keys of the user's `[[commands]]` (`None` for one with no key), checked against
    /// this map and each other: a key an action has, or another command has, is an error
    /// that names the command and the key (`commands["CRM"].key`).
    pub fn command_keys(
        &self,
        commands: &[convo_config::commands::UserCommand],
    ) -> Result<Vec<Option<Key>>, KeysError> {
        let mut out: Vec<Option<Key>> = Vec::new();
        for c in commands {
            let at = format!("commands[{:?}].key", c.name);
            let Some(written) = &c.key else {
                out.push(None);
                continue;
            };
            let key = parse_key(written).map_err(|message| KeysError {
                key: at.clone(),
                message,
            })?;
            if let Some(b) = self.bindings.iter().find(|b| b.keys.contains(&key)) {
                return Err(KeysError {
                    key: at,
                    message: format!(
                        "{:?} is the key of {} ({}): choose another key, or unbind it with {} = [] in [keys]",
                        key.label(),
                        b.action.name(),
                        b.help,
                        b.action.name()
                    ),
                });
            }
            if let Some(j) = out.iter().position(|k| *k == Some(key)) {
                return Err(KeysError {
                    key: at,
                    message: format!(
                        "{:?} is also the key of the command {:?}: give one another key",
                        key.label(),
                        commands[j].name
                    ),
                });
            }
            out.push(Some(key));
        }
        Ok(out)
    }

    /// Fails on the first key bound to two actions.
    pub fn check(&self) -> Result<(), KeysError> {
        let mut seen: Vec<(Key, Action)> = Vec::new();
        for b in &self.bindings {
            for k in &b.keys {
                if let Some((_, other)) = seen.iter().find(|(x, a)| x == k && *a != b.action) {
                    return Err(KeysError {
                        key: "keys".into(),
                        message: format!(
                            "{:?} is bound to both {} and {}: unbind one (e.g. {} = [] or give it another key)",
                            k.label(),
                            other.name(),
                            b.action.name(),
                            other.name(),
                        ),
                    });
                }
                seen.push((*k, b.action));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_its_own_name_and_the_defaults_do_not_clash() {
        let mut names: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
        for a in Action::ALL {
            assert_eq!(Action::from_name(a.name()), Some(*a));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names.len(),
            Action::ALL.len(),
            "two actions share a [keys] name"
        );
        assert_eq!(KeyMap::default().check(), Ok(()));
    }

    #[test]
    fn key_names_parse() {
        assert_eq!(parse_key("r"), Ok(Key::ch('r')));
        assert_eq!(parse_key("G"), Ok(Key::ch('G')));
        assert_eq!(parse_key("F5"), Ok(Key::plain(KeyCode::F(5))));
        assert_eq!(parse_key("pgdn"), Ok(Key::plain(KeyCode::PageDown)));
        let ctrl_r = parse_key("Ctrl-R").unwrap();
        assert_eq!(ctrl_r.code, KeyCode::Char('r'));
        assert_eq!(ctrl_r.mods, KeyModifiers::CONTROL);
        assert_eq!(parse_key("ctrl+r"), Ok(ctrl_r));
        assert_eq!(parse_key("-"), Ok(Key::ch('-')));
        assert!(parse_key("F13").is_err());
        assert!(parse_key("nope").is_err());
        assert!(parse_key("").is_err());
    }

    #[test]
    fn every_default_key_label_parses_back() {
        for b in KeyMap::default().bindings {
            for k in b.keys {
                let label = match k.code {
                    KeyCode::Up => "Up".to_string(),
                    KeyCode::Down => "Down".to_string(),
                    KeyCode::Left => "Left".to_string(),
                    KeyCode::Right => "Right".to_string(),
                    _ => k.label(),
                };
                assert_eq!(parse_key(&label), Ok(k), "{label}");
            }
        }
    }
}
