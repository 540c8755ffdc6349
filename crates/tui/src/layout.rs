//! Screen geometry, pure: the view draws into these areas and `update` uses the same numbers
//! for paging and mouse hits.

use ratatui::layout::Rect;

use convo_api::Resource;

/// The brand at the left of the header.
pub const BRAND: &str = " convo ";

/// The smallest screen convo draws in (columns, lines): header, filter chips, the table's
/// column titles and one row, footer and status line. Below it, one line says so.
pub const MIN_SIZE: (u16, u16) = (20, 6);

/// Whether the terminal is below [`MIN_SIZE`] in either direction.
pub fn too_small(size: (u16, u16)) -> bool {
    size.0 < MIN_SIZE.0 || size.1 < MIN_SIZE.1
}

/// Where each part of the screen goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    pub chips: Rect,
    /// The table, its column header row included.
    pub table: Rect,
    pub detail: Option<Rect>,
    pub footer: Rect,
    pub status: Rect,
}

impl Areas {
    /// The areas of `full` with or without the detail pane.
    pub fn new(full: Rect, detail: bool) -> Areas {
        let line = |y: u16| Rect::new(full.x, y, full.width, 1.min(full.height));
        let h = full.height;
        let top = full.y;
        let header = line(top);
        let chips = line(top + 1.min(h));
        let footer = line(top + h.saturating_sub(2));
        let status = line(top + h.saturating_sub(1));
        let main_y = top + 2.min(h);
        let main_h = h.saturating_sub(4);
        let main = Rect::new(full.x, main_y, full.width, main_h);
        let (table, detail) = if !detail {
            (main, None)
        } else if full.width >= 120 {
            // Wide enough for a full UUID after its label (11 + 1 + 36 + borders).
            let dw = (full.width * 2 / 5).max(52);
            // One blank cell between the table's scrollbar and the pane's border.
            (
                Rect::new(main.x, main.y, main.width - dw - 1, main.height),
                Some(Rect::new(main.x + main.width - dw, main.y, dw, main.height)),
            )
        } else {
            let dh = main.height / 2;
            (
                Rect::new(main.x, main.y, main.width, main.height - dh),
                Some(Rect::new(main.x, main.y + main.height - dh, main.width, dh)),
            )
        };
        Areas {
            header,
            chips,
            table,
            detail,
            footer,
            status,
        }
    }

    /// Table rows on screen (the column header excluded); at least 1.
    pub fn body_height(&self) -> usize {
        (self.table.height.saturating_sub(1) as usize).max(1)
    }

    /// The first screen row of the table body.
    pub fn body_top(&self) -> u16 {
        self.table.y + 1
    }
}

/// A tab title in the header: its tab, the label and the columns it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabTitle {
    pub tab: Resource,
    pub label: String,
    pub x: u16,
    pub width: u16,
}

/// The tab titles as the header draws them (used for mouse clicks too).
pub fn tab_titles() -> Vec<TabTitle> {
    let mut x = BRAND.len() as u16 + 1;
    Resource::ALL
        .iter()
        .enumerate()
        .map(|(i, tab)| {
            let label = format!(" {} {} ", i + 1, tab.title());
            let width = label.chars().count() as u16;
            let t = TabTitle {
                tab: *tab,
                label,
                x,
                width,
            };
            x += width + 1;
            t
        })
        .collect()
}
