//! A ratatui `Buffer` drawn as an SVG picture: each cell's background, its text in its colour
//! and weight, in a monospace font. For the README's picture (`assets/screenshot.svg`); test
//! support only, never in the release binary.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// Cell size in pixels at the picture's font size (a monospace advance is 0.6 em).
const FONT_PX: f64 = 14.0;
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 18.0;
/// The terminal's own colours, for `Color::Reset`.
const DEFAULT_FG: &str = "#d8dee9";
const DEFAULT_BG: &str = "#1d2129";

/// A dark terminal's sixteen colours (black, red, green, yellow, blue, magenta, cyan, gray,
/// then their bright forms).
const ANSI: [&str; 16] = [
    "#2e3440", "#d56c6c", "#8fbc6a", "#e2b75e", "#6b9bd2", "#b48ead", "#5fb3b3", "#c0c5ce",
    "#6b7385", "#f07d7d", "#a8d589", "#f2cd7a", "#89b4e8", "#c9a3c2", "#7fd1d1", "#eceff4",
];

fn hex(c: Color, default: &str) -> String {
    let ansi = |i: usize| ANSI[i].to_string();
    match c {
        Color::Reset => default.to_string(),
        Color::Black => ansi(0),
        Color::Red => ansi(1),
        Color::Green => ansi(2),
        Color::Yellow => ansi(3),
        Color::Blue => ansi(4),
        Color::Magenta => ansi(5),
        Color::Cyan => ansi(6),
        Color::Gray => ansi(7),
        Color::DarkGray => ansi(8),
        Color::LightRed => ansi(9),
        Color::LightGreen => ansi(10),
        Color::LightYellow => ansi(11),
        Color::LightBlue => ansi(12),
        Color::LightMagenta => ansi(13),
        Color::LightCyan => ansi(14),
        Color::White => ansi(15),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(i) => indexed(i),
    }
}

/// xterm's 256 colours.
fn indexed(i: u8) -> String {
    match i {
        0..=15 => ANSI[i as usize].to_string(),
        16..=231 => {
            let i = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(i / 36),
                level(i / 6 % 6),
                level(i % 6)
            )
        }
        232..=255 => {
            let v = 8 + 10 * (i - 232);
            format!("#{v:02x}{v:02x}{v:02x}")
        }
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One cell's look, as the picture draws it (reversed video already applied).
#[derive(PartialEq, Clone)]
struct Look {
    fg: String,
    bg: String,
    bold: bool,
    italic: bool,
    dim: bool,
    underline: bool,
    crossed: bool,
}

fn look(cell: &ratatui::buffer::Cell) -> Look {
    let m = cell.modifier;
    let (mut fg, mut bg) = (hex(cell.fg, DEFAULT_FG), hex(cell.bg, DEFAULT_BG));
    if m.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    Look {
        fg,
        bg,
        bold: m.contains(Modifier::BOLD),
        italic: m.contains(Modifier::ITALIC),
        dim: m.contains(Modifier::DIM),
        underline: m.contains(Modifier::UNDERLINED),
        crossed: m.contains(Modifier::CROSSED_OUT),
    }
}

/// The buffer as an SVG document. Text is drawn in runs of one look; a run is stretched to
/// exactly its cells (`textLength`), and a wide character (CJK, emoji) is a run of its own
/// over its two cells, so columns line up whatever font the viewer picks.
pub fn render(buf: &Buffer) -> String {
    let area = buf.area;
    let (w, h) = (area.width as f64 * CELL_W, area.height as f64 * CELL_H);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
         viewBox=\"0 0 {w:.1} {h:.1}\" font-family=\"'DejaVu Sans Mono', Menlo, Consolas, \
         monospace\" font-size=\"{FONT_PX}\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"{DEFAULT_BG}\"/>\n"
    );
    for y in 0..area.height {
        let y0 = y as f64 * CELL_H;
        // Backgrounds: runs of one colour.
        let mut x = 0;
        while x < area.width {
            let bg = look(&buf[(area.x + x, area.y + y)]).bg;
            let start = x;
            while x < area.width && look(&buf[(area.x + x, area.y + y)]).bg == bg {
                x += 1;
            }
            if bg != DEFAULT_BG {
                out.push_str(&format!(
                    "<rect x=\"{:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{CELL_H}\" \
                     fill=\"{bg}\"/>\n",
                    start as f64 * CELL_W,
                    (x - start) as f64 * CELL_W
                ));
            }
        }
        // Text: runs of one look, a wide character alone.
        let mut x = 0;
        while x < area.width {
            let cell = &buf[(area.x + x, area.y + y)];
            let l = look(cell);
            let start = x;
            let mut text = String::new();
            let mut cells = 0u16;
            loop {
                let cell = &buf[(area.x + x, area.y + y)];
                let sym = cell.symbol();
                let wide = unicode_width::UnicodeWidthStr::width(sym) > 1;
                if cells > 0 && (wide || look(cell) != l) {
                    break;
                }
                text.push_str(if sym.is_empty() { " " } else { sym });
                let width = if wide { 2 } else { 1 };
                cells += width;
                x += width;
                if wide || x >= area.width {
                    break;
                }
            }
            if text.trim().is_empty() && !l.underline && !l.crossed {
                continue;
            }
            let mut attrs = format!("fill=\"{}\"", l.fg);
            if l.bold {
                attrs.push_str(" font-weight=\"bold\"");
            }
            if l.italic {
                attrs.push_str(" font-style=\"italic\"");
            }
            if l.dim {
                attrs.push_str(" fill-opacity=\"0.6\"");
            }
            match (l.underline, l.crossed) {
                (true, true) => attrs.push_str(" text-decoration=\"underline line-through\""),
                (true, false) => attrs.push_str(" text-decoration=\"underline\""),
                (false, true) => attrs.push_str(" text-decoration=\"line-through\""),
                (false, false) => {}
            }
            out.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" textLength=\"{:.1}\" \
                 lengthAdjust=\"spacingAndGlyphs\" xml:space=\"preserve\" {attrs}>{}</text>\n",
                start as f64 * CELL_W,
                y0 + CELL_H * 0.75,
                cells as f64 * CELL_W,
                escape(&text)
            ));
        }
    }
    out.push_str("</svg>\n");
    out
}
