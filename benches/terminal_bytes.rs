//! Bytes to the terminal (issue 14, section 4): the Conversations tab at 200x50 drawn through
//! the real crossterm backend into a counting writer. A full frame (the first draw), a
//! one-row scroll (Down with the selection on the last line) and a
//! page scroll (PageDown), each through `update` and a frame, as the runtime does them; plus
//! the time of one such frame with 1,000,000 rows loaded.
//!
//! `cargo bench --bench terminal_bytes` measures (release build); `cargo test --benches` runs
//! it on 1,000 rows in the debug build as a smoke test.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use convo::api::{Conversation, Page};
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
const PAGE: usize = 100;

/// Counts the bytes written (shared with the bench); keeps none.
#[derive(Clone, Default)]
struct Counting {
    bytes: Arc<AtomicUsize>,
}

impl Counting {
    fn get(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes.fetch_add(buf.len(), Ordering::Relaxed);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn app_with(rows: usize) -> App {
    let mut app = testing::app(W, H, PAGE as i64);
    let body = app.body_height();
    let pages = (0..rows).step_by(PAGE).map(|n| {
        let items: Vec<Conversation> = (n..(n + PAGE).min(rows)).map(conversation).collect();
        Page {
            has_more: true,
            next_cursor: Some((n + items.len()).to_string()),
            items,
            bad_rows: Vec::new(),
        }
    });
    testing::load(&mut app.conversations, pages, body);
    app
}

type Term = Terminal<CrosstermBackend<Counting>>;

fn terminal(out: Counting) -> Term {
    Terminal::with_options(
        CrosstermBackend::new(out),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, W, H)),
        },
    )
    .expect("terminal")
}

/// Bytes written by one key and the frame after it, as the runtime draws it.
fn key_bytes(
    term: &mut Term,
    out: &Counting,
    frames: &mut Frames,
    app: &mut App,
    code: KeyCode,
) -> usize {
    let before = out.get();
    let _ = update(app, key(code));
    frames
        .draw(term, |f| view::draw(app, f), app)
        .expect("draw");
    out.get() - before
}

struct Costs {
    full: usize,
    one: usize,
    page: usize,
    frame: Vec<Duration>,
}

fn costs(rows: usize, mut frames: Frames, n: usize) -> Costs {
    let mut app = app_with(rows);
    let body = app.body_height();
    let out = Counting::default();
    let mut term = terminal(out.clone());
    frames
        .draw(&mut term, |f| view::draw(&app, f), &app)
        .expect("draw");
    // The first frame writes every cell that is not blank: a full frame.
    let full = out.get();
    // The selection to the last line on screen, then one-row scrolls.
    app.conversations.select(body - 1, body);
    frames
        .draw(&mut term, |f| view::draw(&app, f), &app)
        .expect("draw");
    let mut one = Vec::new();
    let mut frame = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        one.push(key_bytes(
            &mut term,
            &out,
            &mut frames,
            &mut app,
            KeyCode::Down,
        ));
        frame.push(t.elapsed());
    }
    let mut page: Vec<usize> = (0..n.min(20))
        .map(|_| key_bytes(&mut term, &out, &mut frames, &mut app, KeyCode::PageDown))
        .collect();
    one.sort();
    page.sort();
    frame.sort();
    Costs {
        full,
        one: one[one.len() / 2],
        page: page[page.len() / 2],
        frame,
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let rows = if full { 1_000_000 } else { 1_000 };
    let n = if full { 200 } else { 5 };
    let with = costs(rows, Frames::default(), n);
    let plain = costs(rows, Frames::plain(), n);
    let pct = |b: usize| 100.0 * b as f64 / with.full as f64;
    println!("terminal bytes at {W}x{H}, {rows} rows loaded, crossterm backend");
    println!("| draw | scroll region | plain diff |");
    println!("|---|---|---|");
    println!(
        "| full frame (the first) | {} B (100%) | {} B |",
        with.full, plain.full
    );
    println!(
        "| one-row scroll (Down), median of {n} | {} B ({:.1}%) | {} B ({:.1}%) |",
        with.one,
        pct(with.one),
        plain.one,
        pct(plain.one)
    );
    println!(
        "| page scroll (PageDown), median | {} B ({:.1}%) | {} B ({:.1}%) |",
        with.page,
        pct(with.page),
        plain.page,
        pct(plain.page)
    );
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    for (name, c) in [("scroll region", &with), ("plain diff", &plain)] {
        println!(
            "one-row scroll, key + frame ({name}): median {:.0} µs, max {:.0} µs",
            us(c.frame[c.frame.len() / 2]),
            us(c.frame[c.frame.len() - 1])
        );
    }
}
