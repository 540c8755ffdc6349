//! The config's look-and-habits keys: `[keys]`, `[theme]`, `[columns]`, `web_url`,
//! `stale_after` and `mouse`.
//!
//! Parsed and checked here (theme names, colours, the URL template). Key bindings are checked
//! by the TUI at start (`tui::keys::KeyMap::with_config`), which knows the actions; its errors
//! name the file and key like every config error. Column names are checked against the TUI's
//! column table (`tui::columns::check`) by `main` once the config is read, for every command,
//! with the config's own error.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The default `stale_after`: 2 hours without an update.
pub const DEFAULT_STALE_AFTER_SECS: i64 = 2 * 3600;

/// Colour roles a `[theme]` can override.
pub const THEME_ROLES: &[&str] = &[
    "accent",
    "good",
    "warning",
    "error",
    "muted",
    "secondary",
    "bar",
    "other",
];

/// One key or several: `quit = "q"` or `reload = ["r", "F5"]` (`[]` unbinds).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum KeyList {
    One(String),
    Many(Vec<String>),
}

impl KeyList {
    fn into_vec(self) -> Vec<String> {
        match self {
            KeyList::One(s) => vec![s],
            KeyList::Many(v) => v,
        }
    }
}

/// `[theme]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileTheme {
    preset: Option<String>,
    accent: Option<String>,
    good: Option<String>,
    warning: Option<String>,
    error: Option<String>,
    muted: Option<String>,
    secondary: Option<String>,
    bar: Option<String>,
    other: Option<String>,
}

/// `[columns]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileColumns {
    conversations: Option<Vec<String>>,
    visitors: Option<Vec<String>>,
}

/// The built-in palettes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ThemePreset {
    /// For dark backgrounds (the default).
    #[default]
    Dark,
    /// For light backgrounds.
    Light,
    /// Bright colours, no dimmed text.
    HighContrast,
}

/// Checked `[theme]`: a preset and per-role colours (`Color` names as ratatui parses them:
/// `red`, `lightblue`, `#rrggbb`, an index `0`..`255`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThemeConfig {
    pub preset: ThemePreset,
    /// Role → colour text, only roles set in the file.
    pub roles: BTreeMap<String, String>,
}

/// `[columns]`: column names in display order per tab, as written; `None` keeps the default.
/// The names are the TUI's column table's: `tui::columns::check` checks them, and `main`
/// refuses a config it rejects as the config's own checks do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnsConfig {
    pub conversations: Option<Vec<String>>,
    pub visitors: Option<Vec<String>>,
}

/// The look-and-habits part of the config.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UiConfig {
    /// `[keys]`: action name → keys as written (`[]` unbinds); checked by the TUI at start.
    pub keys: BTreeMap<String, Vec<String>>,
    pub theme: ThemeConfig,
    pub columns: ColumnsConfig,
    /// `web_url`: where `o` opens the selected row; `{id}` is its UUID, `{tab}` (or
    /// `{resource}`) `conversations` or `visitors`.
    pub web_url: Option<String>,
    /// `stale_after`: the summary calls a conversation that is not closed stale after this
    /// many seconds without an update; `None`: the default (2 hours).
    pub stale_after_secs: Option<i64>,
    /// `mouse = true`: the TUI captures the mouse (clicks select, the wheel scrolls). Off by
    /// default, as in k9s: with capture on, most terminals no longer let the user select text.
    pub mouse: bool,
    /// `refresh_max_pages`: how many pages a refresh re-reads at most (`None`: 10). Rows
    /// loaded past them stay as they were.
    pub refresh_max_pages: Option<usize>,
    /// `[[commands]]`: the user's commands on a row, in file order (a profile's after the
    /// shared ones). Their keys are checked by the TUI against its key map.
    pub commands: Vec<super::commands::UserCommand>,
}

/// The raw parts, as `FileConfig` holds them.
pub(crate) struct RawUi {
    pub keys: BTreeMap<String, KeyList>,
    pub theme: Option<FileTheme>,
    pub columns: Option<FileColumns>,
    pub web_url: Option<String>,
    pub stale_after: Option<DurationValue>,
    pub mouse: Option<bool>,
    pub refresh_max_pages: Option<i64>,
}

/// A duration as the file may write it: seconds, or text such as `"2h"` or `"1h30m"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum DurationValue {
    Secs(i64),
    Text(String),
}

/// Checks the raw parts; `Err((key, message))` names the offending key.
pub(crate) fn check(raw: RawUi) -> Result<UiConfig, (String, String)> {
    let keys = raw
        .keys
        .into_iter()
        .map(|(k, v)| (k, v.into_vec()))
        .collect();
    let mut theme = ThemeConfig::default();
    if let Some(t) = raw.theme {
        theme.preset = match t.preset.as_deref().map(str::trim) {
            None | Some("dark") => ThemePreset::Dark,
            Some("light") => ThemePreset::Light,
            Some("high-contrast") => ThemePreset::HighContrast,
            Some(other) => {
                return Err((
                    "theme.preset".into(),
                    format!("{other:?} is not \"dark\", \"light\" or \"high-contrast\""),
                ));
            }
        };
        let given = [
            ("accent", t.accent),
            ("good", t.good),
            ("warning", t.warning),
            ("error", t.error),
            ("muted", t.muted),
            ("secondary", t.secondary),
            ("bar", t.bar),
            ("other", t.other),
        ];
        for (role, value) in given {
            if let Some(v) = value {
                if v.trim().parse::<ratatui::style::Color>().is_err() {
                    return Err((
                        format!("theme.{role}"),
                        format!(
                            "{:?} is not a colour (a name such as \"lightblue\", \"#rrggbb\" or 0-255)",
                            convo_text::one_line(&v, 40)
                        ),
                    ));
                }
                theme.roles.insert(role.to_string(), v.trim().to_string());
            }
        }
    }
    let columns = raw
        .columns
        .map(|c| ColumnsConfig {
            conversations: c.conversations,
            visitors: c.visitors,
        })
        .unwrap_or_default();
    let web_url = raw
        .web_url
        .map(|u| u.trim().to_string())
        .filter(|u| !u.is_empty());
    if let Some(u) = &web_url {
        if !(u.starts_with("https://") || u.starts_with("http://")) {
            return Err((
                "web_url".into(),
                "must start with https:// or http://".into(),
            ));
        }
        if !u.contains("{id}") {
            return Err((
                "web_url".into(),
                "must contain {id} (the selected row's UUID)".into(),
            ));
        }
        if u.chars().any(char::is_whitespace) || !convo_text::is_clean(u) {
            return Err((
                "web_url".into(),
                "must not contain spaces or control characters".into(),
            ));
        }
    }
    let stale_after_secs = match raw.stale_after {
        None => None,
        Some(v) => {
            let secs = match v {
                DurationValue::Secs(n) if n >= 0 => Ok(n),
                DurationValue::Secs(n) => Err(format!("{n} is negative")),
                DurationValue::Text(t) => parse_duration(&t),
            }
            .map_err(|m| ("stale_after".to_string(), m))?;
            if secs == 0 || secs > 365 * 86_400 {
                return Err((
                    "stale_after".into(),
                    "must be between 1 second and a year (e.g. \"30m\", \"2h\", \"1d\")".into(),
                ));
            }
            Some(secs)
        }
    };
    let refresh_max_pages = match raw.refresh_max_pages {
        None => None,
        Some(n) if (1..=1000).contains(&n) => Some(n as usize),
        Some(n) => {
            return Err((
                "refresh_max_pages".into(),
                format!("{n} is outside 1..=1000 (pages a refresh re-reads from the top)"),
            ));
        }
    };
    Ok(UiConfig {
        refresh_max_pages,
        keys,
        theme,
        columns,
        web_url,
        stale_after_secs,
        mouse: raw.mouse.unwrap_or(false),
        commands: Vec::new(),
    })
}

/// Parses a duration such as `2h`, `90m`, `1h30m`, `1d`, `45s` or `3600` (seconds) into seconds.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let t = s.trim();
    let bad = || format!("{s:?} is not a duration (e.g. 2h, 90m, 1h30m, 1d)");
    // A bare number is seconds (jiff's formats need a unit).
    if let Ok(n) = t.parse::<i64>() {
        return if n >= 0 { Ok(n) } else { Err(bad()) };
    }
    // jiff's friendly format ("2h", "1h30m", "1h 30m", "2 hours", "1w") or ISO 8601 ("PT2H").
    let span: jiff::Span = t.parse().map_err(|_| bad())?;
    if span.is_negative() {
        return Err(bad());
    }
    if span.get_years() != 0 || span.get_months() != 0 {
        return Err(format!(
            "{s:?}: months and years have no fixed length; use days or weeks (e.g. 30d)"
        ));
    }
    // Days and weeks are 24 hours and 7 days here: this is an age, not a calendar date.
    let d = span
        .to_duration(jiff::SpanRelativeTo::days_are_24_hours())
        .map_err(|_| bad())?;
    if d.subsec_nanos() != 0 {
        return Err(format!("{s:?}: a duration here is whole seconds"));
    }
    Ok(d.as_secs())
}

/// Builds the `{id}` URL of a row: only the template and a UUID go in.
pub fn web_url_for(template: &str, tab: &str, id: &uuid::Uuid) -> String {
    template
        .replace("{id}", &id.to_string())
        .replace("{tab}", tab)
        .replace("{resource}", tab)
}

#[cfg(test)]
mod tests {
    use crate::{Config, Overrides};
    use std::path::Path;

    fn load(text: &str) -> Result<Config, String> {
        let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
        Config::from_toml_str(text, Path::new("/t/c.toml"), &Overrides::default(), &env)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_example_sets_keys_theme_and_columns() {
        let c = load(include_str!("../../../config.example.toml")).unwrap();
        assert_eq!(c.ui.keys["reload"], vec!["r".to_string(), "F5".to_string()]);
        assert!(c.ui.columns.conversations.is_some());
    }

    #[test]
    fn bad_values_name_their_key() {
        let base = "base_url = \"https://x.example\"\n";
        // (`[columns]` names: `tui::columns`'s tests.)
        let e = load(&format!("{base}[theme]\npreset = \"neon\"\n")).unwrap_err();
        assert!(e.contains("theme.preset"), "{e}");
        let e = load(&format!("{base}[theme]\naccent = \"blurple\"\n")).unwrap_err();
        assert!(e.contains("theme.accent"), "{e}");
        let e = load(&format!("{base}web_url = \"https://app.example/x\"\n")).unwrap_err();
        assert!(e.contains("web_url") && e.contains("{id}"), "{e}");
        let c = load(&format!("{base}web_url = \"https://app.example/{{tab}}/{{id}}\"\n[keys]\nquit = \"q\"\ncopy = []\n")).unwrap();
        assert_eq!(c.ui.keys["copy"], Vec::<String>::new());
        assert!(c.ui.web_url.is_some());
    }
}
