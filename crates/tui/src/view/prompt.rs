//! The search and export prompts (over the status line: path, then loaded rows or whole
//! walk, then its confirmation) and the profile picker.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::app::App;
use crate::export::Format;
use crate::prompt::Prompt;
use convo_text::{fit, one_line, width};

/// Draws the open prompt, if any.
pub fn draw(app: &App, frame: &mut Frame) {
    let Some(p) = app.prompt() else {
        return;
    };
    match p {
        Prompt::Search(text) => {
            let label = if app.search_history().entries().is_empty() {
                "search (Enter keeps, Esc clears): "
            } else {
                "search (Enter keeps, Esc clears, ↑ earlier): "
            };
            edit_line(app, frame, label, text)
        }
        Prompt::Export(text) => {
            let f = Format::of_path(text).name();
            let labels = [
                format!("export {f} to (Enter writes, Esc cancels): "),
                format!("export {f} to: "),
            ];
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            export_guidance(app, frame, false);
            edit_line(app, frame, fitting(app, &labels, text), text)
        }
        Prompt::ExportExists(text) => {
            let f = Format::of_path(text).name();
            let labels = [
                format!("that file exists: export {f} to this new name (Esc cancels): "),
                format!("file exists; export {f} to: "),
                format!("exists; {f} to: "),
            ];
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            export_guidance(app, frame, true);
            edit_line(app, frame, fitting(app, &labels, text), text)
        }
        Prompt::ExportScope(path) => {
            let n = with_tab!(ref app, app.active(), |t| t.rows().len());
            let labels = [
                format!(
                    "export: l the {n} loaded rows · w the whole walk (all pages of the current \
                     filters) · Esc cancels "
                ),
                format!(
                    "export: l the {n} loaded rows · w all pages of the filters · Esc cancels "
                ),
                format!("export: l the {n} loaded rows · w all pages · Esc cancels "),
                format!("l {n} loaded rows · w all pages · Esc cancels "),
            ];
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            line(app, frame, keys_whole(app, &labels, path), path)
        }
        Prompt::ExportConfirm(path) => {
            let labels = [
                "whole walk: fetches EVERY remaining page of the current filters (y starts · Esc \
                 cancels), then writes them all to ",
                "whole walk: fetches EVERY remaining page (y starts · Esc cancels), then writes to ",
                "fetch EVERY remaining page? y starts · Esc cancels · writes to ",
                "EVERY page? y starts · Esc cancels · to ",
            ];
            line(app, frame, keys_whole(app, &labels, path), path)
        }
        Prompt::Profiles(sel) => picker(app, *sel, frame),
        Prompt::Query(line) => super::query_line::draw(app, line, frame),
        Prompt::SaveView(s) => save_view(app, s, frame),
        Prompt::ConfirmCommand(run) => {
            let name = one_line(&run.name, 40);
            let what = crate::commands::update::what(run);
            let labels = [
                format!("run {name} on {what}? y runs · any other key cancels "),
                format!("run {name} on {what}? y/n "),
                format!("{name}: {} row(s)? y/n ", run.rows),
            ];
            let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
            line(app, frame, keys_whole(app, &labels, ""), "")
        }
    }
}

/// `w`: the view's name being typed, or the question whether to replace a view of that name.
fn save_view(app: &App, s: &crate::query_line::SaveView, frame: &mut Frame) {
    let file = app
        .settings()
        .config_file()
        .as_ref()
        .map(|p| one_line(&p.display().to_string(), 200))
        .unwrap_or_default();
    if s.confirm {
        let name = one_line(&s.name, 60);
        let labels = [
            format!("a view named {name:?} exists in {file}: y replaces it · Esc edits the name "),
            format!("view {name:?} exists: y replaces it · Esc edits the name "),
            format!("{name:?} exists: y replaces · Esc "),
        ];
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        return line(app, frame, keys_whole(app, &labels, ""), "");
    }
    let query = one_line(&s.query, 60);
    let labels = [
        format!("save {query} as the view (into {file}; Esc cancels): "),
        format!("save {query} as the view: "),
        "save as view: ".to_string(),
    ];
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    edit_line(app, frame, fitting(app, &labels, &s.name), &s.name)
}

/// On the Conversations tab: whether the export carries names beside the ids, and the key
/// that changes it (long and short).
fn names_note(app: &App) -> [&'static str; 2] {
    match (app.active(), app.exports().with_names()) {
        (convo_api::Resource::Conversations, true) => {
            ["with names, Tab: ids only · ", "Tab: ids only · "]
        }
        (convo_api::Resource::Conversations, false) => {
            ["ids only, Tab: names too · ", "Tab: names too · "]
        }
        _ => ["", ""],
    }
}

/// The path prompt's guidance, whole, on the line above it (the keys' line): the formats the
/// name picks, the names beside the ids, what CSV does to terminal controls in the data.
/// Written to fit 80 columns; shorter forms below that.
fn export_guidance(app: &App, frame: &mut Frame, exists: bool) {
    let area = app.areas().footer;
    let [names, names_short] = names_note(app);
    let (first, first_short) = match (exists, app.exports().keys_dropped()) {
        (true, 0) => ("a file is never overwritten · ", "never overwritten · "),
        // Keys typed before this question (an `l` meant for the next one) were not taken.
        (true, 1) => (
            "the key typed before this question was not taken · ",
            "typed-ahead key not taken · ",
        ),
        (true, _) => (
            "the keys typed before this question were not taken · ",
            "typed-ahead keys not taken · ",
        ),
        (false, _) => ("", ""),
    };
    let formats = ".csv CSV · .json JSON · .jsonl JSON Lines";
    let csv = " · CSV: ESC shown as ␛";
    let candidates = [
        format!(" {first}{names}{formats}{csv}"),
        format!(" {first_short}{names_short}{formats}{csv}"),
        format!(" {first_short}{names_short}{formats}"),
        format!(" {first_short}{names_short}.csv · .json · .jsonl"),
    ];
    let w = area.width as usize;
    let text = candidates
        .iter()
        .find(|t| width(t) <= w)
        .unwrap_or(&candidates[3]);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(Span::styled(
            fit(text, w).into_owned(),
            Style::new().fg(Color::Cyan),
        )),
        area,
    );
}

/// The first label that leaves room for the whole text typed (else the last, the shortest,
/// which [`edit_line`] cuts if even it does not fit).
fn fitting<'a>(app: &App, labels: &[&'a str], text: &str) -> &'a str {
    let w = app.areas().status.width as usize;
    let needed = width(&one_line(text, 400)) + 2;
    labels
        .iter()
        .copied()
        .find(|l| width(l) + 1 + needed <= w)
        .or(labels.last().copied())
        .unwrap_or_default()
}

/// For a prompt that asks for a key: the first label that fits whole with the path after it,
/// or at least with its last 16 cells (`…` and the file's name); else the last, the shortest.
/// Its keys (Esc cancels) are never cut while a shorter label would show them.
fn keys_whole<'a>(app: &App, labels: &[&'a str], path: &str) -> &'a str {
    let w = app.areas().status.width as usize;
    let needed = (width(&one_line(path, 400)) + 2).min(16);
    labels
        .iter()
        .copied()
        .find(|l| width(l) + 1 + needed <= w)
        .or(labels.last().copied())
        .unwrap_or_default()
}

/// A prompt whose text is being typed (the search, the export path): when the label and the
/// text do not both fit, the label is cut first, so what is typed stays in view.
fn edit_line(app: &App, frame: &mut Frame, label: &str, text: &str) {
    let w = app.areas().status.width as usize;
    let full = width(label) + 1;
    let needed = width(&one_line(text, 400)) + 2;
    let room = if full + needed <= w {
        full
    } else {
        // The label keeps at least a third of the line (its start says what is asked).
        w.saturating_sub(needed).max(full.min(w / 3))
    };
    if room >= full {
        return line(app, frame, label, text);
    }
    let cut = format!("{} ", fit(&format!(" {label}"), room.saturating_sub(1)));
    draw_line(app, frame, &cut, text);
}

/// A prompt over the status line: the label, then as much of the text's end as fits.
fn line(app: &App, frame: &mut Frame, label: &str, text: &str) {
    let w = app.areas().status.width as usize;
    draw_line(app, frame, &fit(&format!(" {label}"), w), text);
}

fn draw_line(app: &App, frame: &mut Frame, label: &str, text: &str) {
    let area = app.areas().status;
    let w = area.width as usize;
    let shown = one_line(text, 400);
    // Keep the end of a long text (where the cursor is) on screen.
    let room = w.saturating_sub(width(label) + 1);
    let tail: String = if width(&shown) > room {
        let chars: Vec<char> = shown.chars().collect();
        let mut s = String::new();
        for c in chars.iter().rev() {
            if width(&s) + 2 > room {
                break;
            }
            s.insert(0, *c);
        }
        format!("…{s}")
    } else {
        shown
    };
    let spans = vec![
        Span::styled(label.to_string(), Style::new().fg(Color::Cyan).bold()),
        Span::raw(tail),
        Span::styled(" ", Style::new().add_modifier(Modifier::REVERSED)),
    ];
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn picker(app: &App, selected: usize, frame: &mut Frame) {
    let entries = app.profiles().entries();
    let lines: Vec<Line> = entries
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let current = app.profiles().current == *n;
            let name = match n {
                Some(n) => one_line(n, 40),
                None => format!("({})", crate::profiles::TOP_LEVEL),
            };
            let text = format!(
                "{} {}{}",
                if i == selected { ">" } else { " " },
                name,
                if current { " (current)" } else { "" }
            );
            if i == selected {
                Line::from(Span::styled(
                    text,
                    Style::new().add_modifier(Modifier::REVERSED),
                ))
            } else {
                Line::from(text)
            }
        })
        .collect();
    let w = lines.iter().map(Line::width).max().unwrap_or(0).max(30) as u16 + 4;
    let area: Rect = super::centered(frame.area(), w, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(Color::Cyan))
                .title(" Profile · Enter switches · Esc "),
        ),
        area,
    );
}
