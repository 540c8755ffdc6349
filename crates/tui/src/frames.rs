//! Frames to the terminal: ratatui's diff, plus table scrolls shown by moving lines.
//!
//! When the table scrolls by fewer lines than it shows (a `j` at the bottom, a page of a
//! long list less than a screen), the terminal moves the table's lines itself (a scroll
//! region: a dozen bytes) and ratatui is told that the screen now holds the previous frame
//! moved alike, so the frame writes only the lines that came into view and the cells that
//! really changed, instead of every cell of the table. Correct whatever the guess: the frame
//! is a diff against exactly what the terminal shows. A backend that cannot scroll a region
//! gets the plain diff.
//!
//! Each frame (its scroll and its diff) is one synchronized update (DEC mode 2026): a
//! terminal that knows the mode shows the frame whole, never half drawn; one that does not
//! ignores it.

use std::io;
use std::ops::Range;

use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::backend::{Backend, CrosstermBackend, TestBackend};
use ratatui::buffer::{Buffer, Cell};
use ratatui::{Frame, Terminal};

use super::app::App;
use super::overlay::Overlay;
use convo_api::Resource;

/// A backend whose terminal can be told that a frame begins and ends (a synchronized update);
/// a backend of no terminal does nothing.
pub trait Synchronized {
    /// The frame begins: the terminal holds what follows until [`Synchronized::end_frame`].
    fn begin_frame(&mut self) -> io::Result<()>;
    /// The frame is whole: the terminal shows it (and the bytes are flushed).
    fn end_frame(&mut self) -> io::Result<()>;
}

impl<W: io::Write> Synchronized for CrosstermBackend<W> {
    fn begin_frame(&mut self) -> io::Result<()> {
        crossterm::queue!(self, BeginSynchronizedUpdate)
    }
    fn end_frame(&mut self) -> io::Result<()> {
        crossterm::execute!(self, EndSynchronizedUpdate)
    }
}

impl Synchronized for TestBackend {
    fn begin_frame(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn end_frame(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The last frame drawn and where its table was.
#[derive(Default)]
pub struct Frames {
    shown: Option<Buffer>,
    view: Option<TableView>,
    /// Off: every frame is a plain diff (`CONVO_NO_SCROLL_REGION`, for a terminal that
    /// mishandles scroll regions).
    pub plain: bool,
}

impl Frames {
    /// Frames that never use a scroll region.
    pub fn plain() -> Frames {
        Frames {
            plain: true,
            ..Frames::default()
        }
    }

    /// Forgets the last frame (the screen was cleared or is not ours): the next is drawn
    /// without a scroll.
    pub fn forget(&mut self) {
        self.shown = None;
        self.view = None;
    }

    /// Draws one frame of `app` with `render`.
    pub fn draw<B: Backend + Synchronized>(
        &mut self,
        terminal: &mut Terminal<B>,
        render: impl FnOnce(&mut Frame),
        app: &App,
    ) -> Result<(), B::Error> {
        // A terminal that cannot be told is drawn on all the same.
        let _ = terminal.backend_mut().begin_frame();
        let drawn = self.draw_frame(terminal, render, app);
        let _ = terminal.backend_mut().end_frame();
        drawn
    }

    fn draw_frame<B: Backend>(
        &mut self,
        terminal: &mut Terminal<B>,
        render: impl FnOnce(&mut Frame),
        app: &App,
    ) -> Result<(), B::Error> {
        let now = TableView::of(app);
        if !self.plain
            && let (Some(shown), Some(before), Some(now)) = (&self.shown, &self.view, &now)
            && let Some(lines) = before.scroll_to(now)
        {
            scroll_table(terminal, shown, now.body.clone(), lines);
        }
        let frame = terminal.draw(render)?;
        if !self.plain {
            // Kept for the next frame's scroll (a copy of the cells, tens of µs at 200x50).
            match &mut self.shown {
                Some(b) if b.area == frame.buffer.area => {
                    b.content.clone_from(&frame.buffer.content)
                }
                _ => self.shown = Some(frame.buffer.clone()),
            }
        }
        self.view = now;
        Ok(())
    }
}

/// The table's body on screen: which tab, the first row shown and the screen lines it fills.
/// Only when the table spans the whole width (a scroll region moves whole lines) and no
/// overlay covers it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TableView {
    tab: Resource,
    top: usize,
    body: Range<u16>,
}

impl TableView {
    fn of(app: &App) -> Option<TableView> {
        let areas = app.areas();
        if !matches!(app.overlay(), Overlay::None)
            || super::layout::too_small(app.size())
            || areas.table.x != 0
            || areas.table.width != app.size().0
            || areas.table.height < 3
        {
            return None;
        }
        let order = app.sort().get(app.active());
        let top = if order.sorted() {
            order.offset
        } else {
            with_tab!(ref app, app.active(), |t| t.offset())
        };
        let body = areas.body_top()..areas.body_top() + areas.body_height() as u16;
        Some(TableView {
            tab: app.active(),
            top,
            body,
        })
    }

    /// Lines the table moved up (negative: down) from `self` to `now`, when a scroll region
    /// can show it: same tab and place, and by less than the body's height.
    fn scroll_to(&self, now: &TableView) -> Option<i32> {
        let d = now.top as i64 - self.top as i64;
        let h = (now.body.end - now.body.start) as i64;
        (self.tab == now.tab && self.body == now.body && d != 0 && d.abs() < h).then_some(d as i32)
    }
}

/// Moves the lines of `body` by `lines` (up when positive) on the terminal, and tells ratatui
/// that the screen now holds `shown` moved alike, so the next frame writes only what differs
/// from that: the lines that came into view and the cells that really changed. Correct
/// whatever the guess: the frame after it is a diff against exactly what the terminal shows.
/// If the backend cannot scroll a region, nothing is moved and the frame is a plain diff.
fn scroll_table<B: Backend>(
    terminal: &mut Terminal<B>,
    shown: &Buffer,
    body: Range<u16>,
    lines: i32,
) {
    if shown.area != terminal.current_buffer_mut().area {
        return;
    }
    let n = lines.unsigned_abs() as u16;
    let moved = if lines > 0 {
        terminal.backend_mut().scroll_region_up(body.clone(), n)
    } else {
        terminal.backend_mut().scroll_region_down(body.clone(), n)
    };
    if moved.is_err() {
        return;
    }
    let buf = terminal.current_buffer_mut();
    buf.clone_from(shown);
    let (w, y0) = (buf.area.width as usize, buf.area.y);
    let cells = &mut buf.content;
    let row = |y: u16| (y - y0) as usize * w;
    // Line y of the moved screen shows line y + lines of `shown`, or nothing.
    let mut put = |y: u16| {
        let from = y as i32 + lines;
        let dst = row(y);
        if (body.start as i32..body.end as i32).contains(&from) {
            let src = row(from as u16);
            for i in 0..w {
                cells[dst + i] = cells[src + i].clone();
            }
        } else {
            cells[dst..dst + w].fill(Cell::EMPTY);
        }
    };
    // Up: read below before overwriting it (top first); down: the other way.
    if lines > 0 {
        (body.start..body.end).for_each(&mut put);
    } else {
        (body.start..body.end).rev().for_each(&mut put);
    }
    // The moved screen becomes ratatui's previous frame (no bytes are written here).
    terminal.swap_buffers();
}
