//! Frames through the real crossterm backend, read back by a `vt100` terminal: a table moved
//! by a scroll region must leave exactly the screen a fresh full frame gives, every cell and
//! every attribute, and cost far fewer bytes than a full frame.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use convo::api::Conversation;
use convo::tui::app::App;
use convo::tui::frames::Frames;
use convo::tui::testing::{self, conversation, key};
use convo::tui::{update::update, view};
use crossterm::event::KeyCode;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

const W: u16 = 200;
const H: u16 = 50;

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn terminal(out: Shared) -> Terminal<CrosstermBackend<Shared>> {
    Terminal::with_options(
        CrosstermBackend::new(out),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, W, H)),
        },
    )
    .unwrap()
}

fn app_with(rows: usize, has_more: bool) -> App {
    let mut app = testing::app(W, H, 100);
    let all: Vec<Conversation> = (0..rows).map(conversation).collect();
    let body = app.body_height();
    let pages = (0..rows).step_by(100).map(|n| {
        let mut page = testing::page(&all, n, 100);
        if has_more {
            page.has_more = true;
            page.next_cursor = Some(format!("c{n}"));
        }
        page
    });
    testing::load(&mut app.conversations, pages, body);
    app
}

fn parser() -> vt100::Parser {
    use std::num::NonZeroU16;
    vt100::Parser::new(NonZeroU16::new(H).unwrap(), NonZeroU16::new(W).unwrap(), 0)
}

/// The screen a fresh terminal shows after one full frame of `app`.
fn fresh(app: &App) -> vt100::Parser {
    let out = Shared::default();
    let mut t = terminal(out.clone());
    t.draw(|f| view::draw(app, f)).unwrap();
    let mut p = parser();
    p.process(&out.0.lock().unwrap());
    p
}

fn assert_same(seen: &vt100::Screen, want: &vt100::Screen, what: &str) {
    for y in 0..H {
        for x in 0..W {
            let (a, b) = (seen.cell(y, x).unwrap(), want.cell(y, x).unwrap());
            // A cell written as a space and one never written look the same.
            let look = |c: &vt100::Cell| {
                let t = c.contents();
                (
                    if t.is_empty() { " " } else { t }.to_string(),
                    c.fgcolor(),
                    c.bgcolor(),
                    (c.bold(), c.dim(), c.italic(), c.underline(), c.inverse()),
                )
            };
            assert!(
                look(a) == look(b),
                "{what}: cell ({x},{y}) is {:?} {:?}, a fresh frame has {:?} {:?}\n{}",
                a.contents(),
                a.bgcolor(),
                b.contents(),
                b.bgcolor(),
                seen.contents()
            );
        }
    }
}

/// Keys through `update`, a frame after each, as the runtime draws them.
fn walk(frames: &mut Frames, plain: bool) -> (Vec<(String, usize)>, usize) {
    let mut app = app_with(1_000, false);
    let out = Shared::default();
    let mut term = terminal(out.clone());
    let mut vt = parser();
    let mut sent = 0;
    let mut draw =
        |app: &App, term: &mut Terminal<CrosstermBackend<Shared>>, vt: &mut vt100::Parser| {
            frames.draw(term, |f| view::draw(app, f), app).unwrap();
            let bytes = std::mem::take(&mut *out.0.lock().unwrap());
            vt.process(&bytes);
            bytes.len()
        };
    let full = draw(&app, &mut term, &mut vt);
    let mut costs = Vec::new();
    let keys: Vec<(KeyCode, usize)> = if plain {
        vec![(KeyCode::Down, 56)]
    } else {
        vec![
            (KeyCode::Down, 56),
            (KeyCode::PageDown, 2),
            (KeyCode::Up, 20),
            (KeyCode::PageUp, 1),
            (KeyCode::End, 1),
            (KeyCode::Up, 3),
            (KeyCode::Home, 1),
            (KeyCode::Enter, 1),
            (KeyCode::Char('j'), 5),
            (KeyCode::Esc, 1),
            (KeyCode::Char('k'), 2),
        ]
    };
    for (code, times) in keys {
        for i in 0..times {
            let _ = update(&mut app, key(code));
            let n = draw(&app, &mut term, &mut vt);
            sent += n;
            costs.push((format!("{code:?} #{i}"), n));
            assert_same(
                vt.screen(),
                fresh(&app).screen(),
                &format!("{code:?} #{i} (plain: {plain})"),
            );
        }
    }
    let _ = sent;
    (costs, full)
}

#[test]
fn a_scrolled_table_is_exactly_a_fresh_frame_at_a_fraction_of_the_bytes() {
    let (costs, full) = walk(&mut Frames::default(), false);
    let (plain_costs, plain_full) = walk(&mut Frames::plain(), true);
    assert_eq!(full, plain_full, "the first frame is the same");
    // A one-row scroll at the bottom of the screen (the 50th Down and on).
    let one_row = |c: &[(String, usize)]| {
        let mut v: Vec<usize> = c
            .iter()
            .filter(|(k, _)| k.starts_with("Down #") && k[6..].parse::<usize>().unwrap() >= 48)
            .map(|(_, n)| *n)
            .collect();
        v.sort();
        v[v.len() / 2]
    };
    let (with, without) = (one_row(&costs), one_row(&plain_costs));
    assert!(
        with * 4 <= full,
        "a one-row scroll writes {with} bytes, a full frame {full} (plain diff: {without})"
    );
    assert!(
        without > with * 2,
        "the plain diff writes {without}, the scroll {with}"
    );
}

#[test]
fn rows_loading_below_the_screen_do_not_move_the_table() {
    // A table with more to come, scrolled to its end: the "loading" line and new rows.
    let mut app = app_with(100, true);
    let out = Shared::default();
    let mut term = terminal(out.clone());
    let mut vt = parser();
    let mut frames = Frames::default();
    let body = app.body_height();
    app.conversations.select(100 - body, body);
    for _ in 0..body + 5 {
        let _ = update(&mut app, key(KeyCode::Down));
        frames
            .draw(&mut term, |f| view::draw(&app, f), &app)
            .unwrap();
        vt.process(&std::mem::take(&mut *out.0.lock().unwrap()));
        assert_same(
            vt.screen(),
            fresh(&app).screen(),
            "scrolling to the loading line",
        );
    }
}

/// Each frame, its table scroll and its diff, is one synchronized update (DEC mode 2026): a
/// terminal that knows the mode never shows a frame half drawn. Seen red: without it, the
/// bytes of a frame began with the scroll region's own sequence.
#[test]
fn every_frame_is_one_synchronized_update() {
    const BEGIN: &[u8] = b"\x1b[?2026h";
    const END: &[u8] = b"\x1b[?2026l";
    let mut app = app_with(1_000, false);
    let out = Shared::default();
    let mut term = terminal(out.clone());
    let mut frames = Frames::default();
    for k in [
        None,
        Some(KeyCode::Down),
        Some(KeyCode::PageDown),
        Some(KeyCode::End),
    ] {
        if let Some(k) = k {
            let _ = update(&mut app, key(k));
        }
        frames
            .draw(&mut term, |f| view::draw(&app, f), &app)
            .unwrap();
        let bytes = std::mem::take(&mut *out.0.lock().unwrap());
        assert!(
            bytes.starts_with(BEGIN),
            "{k:?}: {:?}",
            &bytes[..bytes.len().min(40)]
        );
        assert!(bytes.ends_with(END), "{k:?}");
        let count = |m: &[u8]| bytes.windows(m.len()).filter(|w| *w == m).count();
        assert_eq!((count(BEGIN), count(END)), (1, 1), "{k:?}");
    }
}
