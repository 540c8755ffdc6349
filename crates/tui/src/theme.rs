//! Colours: `[theme]` (a preset and per-role colours) and `NO_COLOR`.
//!
//! The widgets draw with a fixed base palette where each colour stands for one role (cyan the
//! accent, green good/open, yellow warnings/pending/unassigned, red errors, dark grey muted,
//! grey secondary text, black the bars, magenta other). After a frame is drawn,
//! [`Theme::apply`] maps each cell's colours to the theme's: one pass over the buffer, so every
//! widget (present and future) follows the theme without knowing about it. With `NO_COLOR`
//! every colour is removed; meaning is carried by text and modifiers (the `>` and reverse
//! video of the selected row, the status words, "unassigned" in italics).

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use convo_config::ui::{ThemeConfig, ThemePreset};

/// The base colour of each role, as the widgets draw it.
const ROLES: [(&str, Color); 8] = [
    ("accent", Color::Cyan),
    ("good", Color::Green),
    ("warning", Color::Yellow),
    ("error", Color::Red),
    ("muted", Color::DarkGray),
    ("secondary", Color::Gray),
    ("bar", Color::Black),
    ("other", Color::Magenta),
];

/// How colours are shown.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Theme {
    /// `NO_COLOR` is set (non-empty): no colours at all.
    pub no_color: bool,
    /// Remove `DIM` (high contrast).
    pub undim: bool,
    /// Base colour → shown colour; colours not listed stay.
    map: Vec<(Color, Color)>,
}

impl Theme {
    /// The default theme (no `[theme]`), with `NO_COLOR` or not.
    pub fn plain(no_color: bool) -> Theme {
        Theme {
            no_color,
            ..Theme::default()
        }
    }

    /// The theme of a `[theme]` section; `no_color` from the `NO_COLOR` environment variable.
    pub fn new(cfg: &ThemeConfig, no_color: bool) -> Theme {
        use Color as C;
        let preset: Vec<(Color, Color)> = match cfg.preset {
            ThemePreset::Dark => Vec::new(),
            ThemePreset::Light => vec![
                (C::Cyan, C::Blue),
                (C::Green, C::Green),
                (C::Yellow, C::Rgb(0x8a, 0x5a, 0x00)),
                (C::Gray, C::DarkGray),
                (C::DarkGray, C::Gray),
                (C::Black, C::White),
            ],
            ThemePreset::HighContrast => vec![
                (C::Cyan, C::LightCyan),
                (C::Green, C::LightGreen),
                (C::Yellow, C::LightYellow),
                (C::Red, C::LightRed),
                (C::DarkGray, C::White),
                (C::Gray, C::White),
                (C::Magenta, C::LightMagenta),
            ],
        };
        let mut map = preset;
        for (role, base) in ROLES {
            if let Some(c) = cfg.roles.get(role).and_then(|s| s.parse::<Color>().ok()) {
                map.retain(|(b, _)| *b != base);
                map.push((base, c));
            }
        }
        map.retain(|(b, c)| b != c);
        Theme {
            no_color,
            undim: cfg.preset == ThemePreset::HighContrast,
            map,
        }
    }

    /// True when drawing needs no pass over the buffer.
    pub fn is_plain(&self) -> bool {
        !self.no_color && !self.undim && self.map.is_empty()
    }

    fn colour(&self, c: Color) -> Color {
        if self.no_color {
            return Color::Reset;
        }
        self.map
            .iter()
            .find(|(b, _)| *b == c)
            .map_or(c, |(_, to)| *to)
    }

    /// Maps the colours of every cell of a drawn frame.
    pub fn apply(&self, buf: &mut Buffer) {
        if self.is_plain() {
            return;
        }
        for cell in buf.content.iter_mut() {
            cell.fg = self.colour(cell.fg);
            cell.bg = self.colour(cell.bg);
            if self.no_color {
                cell.underline_color = Color::Reset;
            }
            if self.undim {
                cell.modifier.remove(Modifier::DIM);
            }
        }
    }
}

/// `NO_COLOR` as <https://no-color.org> defines it: set and not empty.
pub fn no_color_from_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}
