//! Frame time (issue 5, target 1): one frame at 200x50 of the Conversations tab on a
//! `TestBackend`, with 100 and with 1,000,000 rows loaded (and 1M with 100,000 visitor names
//! from the local store resolved in the VISITOR column, issue 12). Targets: under 1 ms median, and
//! 1M within 1.5x of 100 (only the visible slice is built). Plus scrolling one row: a Down (or
//! Up) key through `update`, then a frame; it must not rebuild or clone the row list.
//!
//! And a frame of a visitor's detail with a 2 MB attribute (`frame/2MB_attribute_detail`).
//!
//! The terminal is kept between frames, as the runtime keeps it, so each frame includes
//! ratatui's diff against the previous one. Run: `nice cargo bench --bench render`.

use std::hint::black_box;
use std::time::Duration;

use convo::api::{Conversation, Page};
use convo::tui::app::App;
use convo::tui::names::VisitorLabel;
use convo::tui::testing::{self, conversation, key};
use convo::tui::{update::update, view};
use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const W: u16 = 200;
const H: u16 = 50;
const PAGE: usize = 100;

/// An app of 200x50 with `rows` conversations loaded (in pages of 100, as the walk loads
/// them), more still to come, and the selection in the middle of the screen.
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
    let body = app.body_height();
    app.conversations.select(body / 2, body);
    app
}

fn frame(c: &mut Criterion) {
    let mut g = c.benchmark_group("render_200x50");
    g.measurement_time(Duration::from_secs(4));
    for (label, rows, names) in [
        ("100_rows", 100usize, false),
        ("1M_rows", 1_000_000, false),
        ("1M_rows_100k_names", 1_000_000, true),
    ] {
        let mut app = app_with(rows);
        assert_eq!(app.conversations.rows().len(), rows);
        if names {
            // The local store's directory as the screen reads it: 100,000 visitors named,
            // the rows' visitors among them (the VISITOR column shows names, not ids).
            let found: Vec<_> = (0..100_000)
                .map(|i| {
                    (
                        testing::test_id(2, i),
                        Some(VisitorLabel {
                            name: Some(format!("Visitor Number {i}").into()),
                            email: Some(format!("v{i}@example.com").into()),
                            external_id: None,
                        }),
                    )
                })
                .collect();
            let asked: Vec<_> = found.iter().map(|(id, _)| *id).collect();
            app.names_mut().answered(&asked, found);
            let first = app.conversations.rows()[0].visitor_id;
            assert!(app.names().shown(&first).is_some(), "names resolve");
        }
        let mut term = Terminal::new(TestBackend::new(W, H)).expect("terminal");
        g.bench_function(format!("frame/{label}"), |b| {
            b.iter(|| {
                term.draw(|f| view::draw(&app, f)).expect("draw");
            });
        });
        // Scrolling one row: a Down key with the selection on the last line on screen, then
        // an Up key with it on the first line, alternately; between them the selection jumps
        // back by a selection (no frame). Every measured frame shows the table moved by one
        // row against the previous frame, and no page is asked for.
        let body = app.body_height();
        let mut down = true;
        g.bench_function(format!("scroll_one_row/{label}"), |b| {
            b.iter(|| {
                let t = &mut app.conversations;
                let k = if down {
                    t.select(body - 1, body); // the screen starts at row 0 here
                    KeyCode::Down
                } else {
                    t.select(1, body); // the screen starts at row 1 here
                    KeyCode::Up
                };
                down = !down;
                black_box(update(&mut app, key(k)));
                term.draw(|f| view::draw(&app, f)).expect("draw");
            });
        });
        let t = &app.conversations;
        assert!(
            t.offset() <= 1 && t.rows().len() == rows,
            "scrolled in place"
        );
    }
    g.finish();
}

/// Search as you type (issue 25): one key typed in the search prompt with 5,000 rows loaded
/// (what `L` brings in a busy queue) and their visitors named, i.e. one scan of every row's
/// shown text, folded for case and accents; then the same query with an accent.
fn search_keystroke(c: &mut Criterion) {
    let mut g = c.benchmark_group("search_5000_rows");
    g.measurement_time(Duration::from_secs(4));
    let mut app = app_with(5_000);
    let found: Vec<_> = (0..17)
        .map(|i| {
            (
                testing::test_id(2, i),
                Some(VisitorLabel {
                    name: Some(["Björn Ångström", "Ana Souza", "王小明"][i % 3].into()),
                    email: Some(format!("v{i}@example.com").into()),
                    external_id: None,
                }),
            )
        })
        .collect();
    let asked: Vec<_> = found.iter().map(|(id, _)| *id).collect();
    app.names_mut().answered(&asked, found);
    for query in ["angstr", "ångstr"] {
        update(&mut app, testing::ch('\\'));
        for ch in query.chars() {
            update(&mut app, testing::ch(ch));
        }
        assert!(
            !app.search().conversations.matches.is_empty(),
            "{query} matches"
        );
        g.bench_function(format!("keystroke/{query}"), |b| {
            // Backspace and the last letter again: two scans of every row.
            let last = query.chars().last().unwrap_or('r');
            b.iter(|| {
                black_box(update(&mut app, key(KeyCode::Backspace)));
                black_box(update(&mut app, testing::ch(last)));
            });
        });
        update(&mut app, key(KeyCode::Esc));
    }
    g.finish();
}

/// A visitor with a 2 MB attribute, its detail open (issue 37: the frame time is a figure
/// here; tests/it/reliability_tui.rs keeps that the value is cut on screen). Goal: a frame
/// under 1 ms, as any other (only what fits is cut and drawn, not the whole value).
fn big_attribute(c: &mut Criterion) {
    let mut v = testing::visitor(0);
    v.attributes = serde_json::json!({ "blob": "x".repeat(2 * 1024 * 1024), "plan": "pro" });
    let mut app = testing::app(W, H, PAGE as i64);
    let body = app.body_height();
    let page = Page {
        items: vec![v],
        has_more: false,
        next_cursor: None,
        bad_rows: Vec::new(),
    };
    testing::load(&mut app.visitors, [page], body);
    update(&mut app, testing::ch('2'));
    update(&mut app, key(KeyCode::Enter));
    assert!(app.detail().is_open(), "the detail is open");
    let mut term = Terminal::new(TestBackend::new(W, H)).expect("terminal");
    let mut g = c.benchmark_group("render_200x50");
    g.bench_function("frame/2MB_attribute_detail", |b| {
        b.iter(|| {
            term.draw(|f| view::draw(&app, f)).expect("draw");
        });
    });
    g.finish();
}

criterion_group!(benches, frame, search_keystroke, big_attribute);
criterion_main!(benches);
