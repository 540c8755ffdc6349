//! How `B`, the board's keys, the timer and the answers of its reads change the app. No I/O:
//! reads and samples are asked for as commands.

use crossterm::event::{KeyCode, KeyEvent};

use super::Counts;
use crate::app::App;
use crate::command::Command;
use crate::overlay::Overlay;
use convo_api::Resource;

/// What a key on the board asks of the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Handled here.
    Done,
    /// Enter: open the view of this index of `app.settings().views()` in its tab (the caller applies it,
    /// then [`opened`]).
    Open(usize),
}

/// `B`: shows the board (its rows follow the views, its pace `refresh_secs`), asks the store for every row's trend
/// and starts a round of reads when one is due.
pub fn open(app: &mut App, cmds: &mut Vec<Command>) {
    let views = app.settings().views().to_vec();
    app.board_mut().set_views(&views);
    // What the tabs counted of their views, unless the board has read them since.
    for tab in [Resource::Conversations, Resource::Visitors] {
        from_tab(app, tab);
    }
    let tabs = app.board().tabs.clone();
    for c in [tabs.conversations, tabs.visitors].into_iter().flatten() {
        app.board_mut().take_tab_count(&c.key, &c.counts, c.at);
    }
    // Its rounds keep the lists' pace (`refresh_secs`); a minute when they never refresh.
    app.board_mut().every_secs = app.refresh_period().unwrap_or(super::DEFAULT_EVERY_SECS);
    app.board_mut().back_at = None;
    app.open_overlay(Overlay::Board);
    app.mark_dirty();
    let mut keys: Vec<&String> = app.board().rows.iter().map(|r| &r.key).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        cmds.push(Command::Samples {
            key: key.clone(),
            sample: None,
        });
    }
    on_tick(app, cmds);
}

/// Leaves the board: the round under way stops (its answer in flight is dropped).
pub fn close(app: &mut App) {
    app.board_mut().stop();
    app.close_overlay();
    app.mark_dirty();
}

/// Whether the board is on screen.
pub fn shown(app: &App) -> bool {
    matches!(app.overlay(), Overlay::Board)
}

/// After every tick: a round of reads starts when one is due and the board is on screen.
pub fn on_tick(app: &mut App, cmds: &mut Vec<Command>) {
    start(app, false, cmds);
}

/// Starts a round when one is due and the board is on screen (`all`: every view, `r`).
fn start(app: &mut App, all: bool, cmds: &mut Vec<Command>) {
    if shown(app) && app.board().due(app.now()) {
        app.mark_dirty();
        let now = app.now();
        if let Some(i) = app.board_mut().start_round(now, all) {
            cmds.extend(read(app, i));
        }
    }
}

/// The command that reads row `index` (the view of the same index).
fn read(app: &App, index: usize) -> Option<Command> {
    let view = Box::new(app.settings().views().get(index)?.clone());
    Some(Command::ReadView {
        generation: app.board().generation,
        index,
        view,
        pages: app.settings().refresh_max_pages().max(1),
    })
}

/// The answer of a read: the row's counts (or its error), a sample of them for the trend, and
/// the next row's read.
pub fn on_read(
    app: &mut App,
    generation: u64,
    index: usize,
    result: Result<Counts, String>,
    cmds: &mut Vec<Command>,
) {
    let sample = result.as_ref().ok().cloned();
    let now = app.now();
    let next = match app.board_mut().answer(generation, index, result, now) {
        // An older round's answer, or the board was left: dropped.
        super::Answer::Stale => return,
        super::Answer::Next(n) => Some(n),
        super::Answer::Done => None,
    };
    app.mark_dirty();
    if let (Some(c), Some(row)) = (sample, app.board().rows.get(index))
        && row.tab == Resource::Conversations
    {
        cmds.push(Command::Samples {
            key: row.key.clone(),
            sample: Some(convo_store::Sample {
                at: app.now().as_second(),
                loaded: c.matched,
                complete: c.complete,
                waiting: c.waiting,
                imminent: c.imminent,
                breaching: c.breaching,
            }),
        });
    }
    match next {
        Some(n) if shown(app) => cmds.extend(read(app, n)),
        // Not on screen (another overlay took its place): the round stops here.
        Some(_) => app.board_mut().stop(),
        None => {}
    }
}

/// A key's samples from the store: the rows of that key draw them.
pub fn on_samples(app: &mut App, key: &str, samples: &[convo_store::Sample]) {
    if app.board_mut().take_samples(key, samples) && shown(app) {
        app.mark_dirty();
    }
}

/// A key while the board is shown.
pub fn on_key(app: &mut App, k: KeyEvent, cmds: &mut Vec<Command>) -> Outcome {
    let n = app.board().rows.len();
    let b = app.board_mut();
    match k.code {
        KeyCode::Esc | KeyCode::Char('B') => close(app),
        KeyCode::Down | KeyCode::Char('j') => {
            b.selected = (b.selected + 1).min(n.saturating_sub(1))
        }
        KeyCode::Up | KeyCode::Char('k') => b.selected = b.selected.saturating_sub(1),
        KeyCode::Home | KeyCode::Char('g') => b.selected = 0,
        KeyCode::End | KeyCode::Char('G') => b.selected = n.saturating_sub(1),
        KeyCode::Char('r') => {
            // A new round now, from the top; the one under way (if any) is dropped.
            b.reading = None;
            b.round_ended = None;
            start(app, true, cmds);
        }
        KeyCode::Enter if n > 0 => return Outcome::Open(app.board().selected),
        _ => {}
    }
    app.mark_dirty();
    Outcome::Done
}

/// The view opened from the board (row `index`) is on screen: the board steps aside, and Back
/// (Backspace) comes back to it while the history is as the opening left it. A view that was
/// on its tab already, and read by the board since its rows came (and counted otherwise), is
/// refreshed now: the two counts become one again.
pub fn opened(app: &mut App, index: usize, cmds: &mut Vec<Command>) {
    app.board_mut().stop();
    if shown(app) {
        app.close_overlay();
    }
    app.board_mut().back_at = Some(app.history().len());
    let Some(row) = app.board().rows.get(index) else {
        return;
    };
    let tab = row.tab;
    // The board's own read is newer than the tab's count whenever it is the row's: a newer
    // count of the tab would have replaced it.
    let older = !row.by_tab
        && app.board().tabs.get(tab).as_ref().is_some_and(|c| {
            c.key == row.key
                && row
                    .counts
                    .as_ref()
                    .is_some_and(|r| !r.same_figures(&c.counts))
        });
    // (A new walk of the view, begun by the opening, is newer than the read already.)
    let same_walk = app
        .board()
        .tabs
        .get(tab)
        .as_ref()
        .is_some_and(|c| c.basis.0 == with_tab!(ref app, tab, |t| t.generation()));
    if older && same_walk && app.active() == tab {
        crate::update::refresh::refresh_now(app, cmds);
    }
}

/// `tab`'s rows changed while the board is shown, or the board opens: when its walk has
/// loaded the whole view it shows it counts it (again only when its rows changed), and the
/// board's rows of that view take the count unless their own read is newer. O(rows) only
/// when the rows changed.
pub fn from_tab(app: &mut App, tab: Resource) {
    let (done, basis) = with_tab!(ref app, tab, |t| (
        t.walk().is_done(),
        (t.generation(), t.rows().len(), t.marks().revision())
    ));
    if !done {
        return;
    }
    let key = crate::tab::marks::look_key(app, tab);
    if app
        .board()
        .tabs
        .get(tab)
        .as_ref()
        .is_some_and(|c| c.basis == basis && c.key == key)
    {
        return;
    }
    let counts = match tab {
        Resource::Conversations => conversations_counts(app),
        Resource::Visitors => Counts {
            matched: basis.1 as u64,
            complete: true,
            waiting: 0,
            oldest_waiting: None,
            imminent: 0,
            breaching: 0,
        },
    };
    // As of when the tab's rows became what they are (its last page or refresh), also when
    // counted later, as the board opens.
    let at = app.derived().rows_at(tab).unwrap_or(app.now());
    if app.board_mut().take_tab_count(&key, &counts, at) && shown(app) {
        app.mark_dirty();
    }
    *app.board_mut().tabs.get_mut(tab) = Some(super::TabCount {
        key,
        basis,
        counts,
        at,
    });
}

/// The Conversations tab's rows counted as a read of the view counts them (`summary::views`:
/// waiting, the oldest wait, imminent and breaching against the first-response target).
fn conversations_counts(app: &App) -> Counts {
    use convo_engine::sla::Target;
    let mut s = crate::summary_pane::Summary::new(app.now(), app.settings().stale_after_secs());
    let tracked = app.settings().sla().is_tracked(Target::FirstResponse);
    if !app.settings().sla().is_empty() {
        s = s.with_sla(app.settings().sla().clone());
    }
    for c in app.conversations.rows() {
        s.add(c);
    }
    let total = s.total();
    Counts {
        matched: app.conversations.rows().len() as u64,
        complete: true,
        waiting: total.waiting,
        oldest_waiting: total.oldest_waiting_age,
        imminent: if tracked { total.sla.imminent } else { 0 },
        breaching: if tracked { total.sla.breaching } else { 0 },
    }
}

/// Whether Back returns to the board now (the view opened from it is on screen, nothing
/// moved since, or what moved was undone).
pub fn takes_back(app: &App) -> bool {
    !shown(app) && app.board().back_at == Some(app.history().len())
}
