//! A new walk read behind the rows on screen (a reload, another profile): the rows of the walk
//! before stay in place, selectable, until it has answered; then it takes their place at once.

use super::{Reselect, TabFilter, TabState};
use crate::command::Command;
use convo_api::{ApiError, Page, Row};
use convo_engine::walk::{Answered, Walk};

/// Why a new walk is read behind the rows on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replacing {
    /// `r`: the same filters, read again from the top.
    Reload,
    /// Another profile (its name): its service, unfiltered, from its first page.
    Profile(String),
}

/// A new walk read behind the rows on screen (a reload, another profile): the rows of the walk
/// before stay in place, selectable, until this one has read as deep as they went (`depth`
/// rows, or the whole list); then it takes their place at once. If it fails, they stay, and
/// `r` (or the periodic refresh) tries again.
#[derive(Debug, Clone)]
pub struct NextWalk<T, F> {
    pub filter: F,
    /// Its walk (the engine's, with its own generation); when its last request failed, the
    /// rows on screen stay.
    pub walk: Walk<T>,
    /// Rows to read before it takes the screen (`usize::MAX`: the whole list).
    pub depth: usize,
    pub why: Replacing,
}

impl<T: Row, F> NextWalk<T, F> {
    /// It has read as deep as it should (or the whole list): it can take the screen.
    pub fn ready(&self) -> bool {
        self.walk.deep_enough(self.depth)
    }
}

impl<T: Row + Clone + PartialEq, F: TabFilter> TabState<T, F> {
    /// `r`: a new walk of the same filters, read behind the rows on screen as deep as they
    /// go (at most `max_pages` pages, but down to the selected row; the whole list with
    /// `whole`); it takes their place, keeping the selected row, once it has. With nothing on
    /// screen, a plain new walk. With a walk already read behind them (failed, or waiting to
    /// retry), that one starts again.
    pub fn reload(&mut self, max_pages: usize, whole: bool) -> Command {
        if let Some(n) = self.next.take() {
            let limit = n.walk.limit();
            return self.read_behind(n.filter, limit, n.depth, n.why);
        }
        if self.walk.pages() == 0 {
            return self.restart(true);
        }
        let depth = if whole {
            usize::MAX
        } else {
            // At least down to the selected row: it is found when the new walk takes the
            // screen, never looked for below it.
            self.walk
                .rows()
                .len()
                .min(max_pages.max(1) * self.walk.limit())
                .max(self.selected + 1)
        };
        let (filter, limit) = (self.filter.clone(), self.walk.limit());
        self.read_behind(filter, limit, depth, Replacing::Reload)
    }

    /// Another profile: its walk of `filter` (pages of `limit`) is read behind the rows on
    /// screen and takes their place with its first page; with nothing on screen, at once.
    /// (Earlier filters belong to the old service: the app's one history forgets them.)
    pub fn switch_service(&mut self, filter: F, limit: usize, name: String) -> Command {
        // A query belongs to the old service (its names, its `me`): the new one is unfiltered.
        self.union = None;
        if self.walk.pages() == 0 && self.next.is_none() {
            self.filter = filter;
            self.walk = Walk::new(limit, self.walk.generation());
            return self.restart(false);
        }
        self.read_behind(filter, limit, 1, Replacing::Profile(name))
    }

    /// Starts `next`; the walk on screen stops where it is (its request in flight and its
    /// refresh are cancelled), its rows stay.
    fn read_behind(&mut self, filter: F, limit: usize, depth: usize, why: Replacing) -> Command {
        if self.walk.is_loading() {
            self.walk.stop();
        }
        self.retry = None;
        self.load_all = false;
        self.walk.drop_refresh();
        let generation = self.new_generation();
        self.next = Some(NextWalk {
            filter,
            walk: Walk::new(limit, generation),
            depth,
            why,
        });
        Command::Cancel { tab: self.tab }
    }

    /// Whether a request of walk `generation` (this one's or `next`'s) is in flight.
    pub fn loading(&self, generation: u64) -> bool {
        [Some(&self.walk), self.next.as_ref().map(|n| &n.walk)]
            .into_iter()
            .flatten()
            .any(|w| w.generation() == generation && w.is_loading())
    }

    /// Whether the app waits on the page at `cursor` of walk `generation` (the walk on screen
    /// or the one read behind it); a union's streams count as one request in flight.
    pub fn waits_on(&self, generation: u64, cursor: Option<&str>) -> bool {
        if self.union.is_some() {
            return self.loading(generation);
        }
        [Some(&self.walk), self.next.as_ref().map(|n| &n.walk)]
            .into_iter()
            .flatten()
            .any(|w| w.generation() == generation && w.in_flight() == Some(cursor))
    }

    /// Whether the fetch of walk `generation` should ask for the page after its own at once:
    /// `L`, or a walk read behind the screen that wants more than one more page.
    pub fn asks_ahead(&self, generation: u64) -> bool {
        match &self.next {
            Some(n) if n.walk.generation() == generation => {
                n.depth > n.walk.rows().len().saturating_add(2 * n.walk.limit())
            }
            _ => self.load_all,
        }
    }

    /// Whether walk `generation` wants every page that is left (`L` on the walk on screen, or
    /// a walk of the whole list read behind it): its fetches may go several pages ahead of
    /// the pages applied, one request after the other, without waiting for each to be asked.
    pub fn wants_whole(&self, generation: u64) -> bool {
        match &self.next {
            Some(n) if n.walk.generation() == generation => n.depth == usize::MAX,
            Some(_) => false,
            None => {
                self.walk.generation() == generation && self.load_all && self.walk.error().is_none()
            }
        }
    }

    /// A page for the walk read behind the screen, of walk `generation` (another's is
    /// dropped). True when it is ready to take the screen ([`TabState::take_next`]).
    pub fn next_page(&mut self, generation: u64, result: Result<Page<T>, ApiError>) -> bool {
        let Some(n) = self.next.as_mut() else {
            return false;
        };
        let result = result.map_err(|e| convo_text::one_line(&e.cause(), 2000));
        match n.walk.answer(generation, result) {
            Answered::Stale => false,
            Answered::Page(_) => {
                self.retry = None;
                n.ready()
            }
            Answered::Failed => {
                self.retry = None;
                false
            }
        }
    }

    /// The walk read behind the screen failed with `why` (a task that panicked).
    pub fn next_failed(&mut self, why: String) {
        self.retry = None;
        if let Some(n) = self.next.as_mut() {
            n.walk.fail(convo_text::one_line(&why, 2000));
        }
    }

    /// The walk read behind the screen takes its place: its rows replace the ones shown at
    /// once; after a reload the selected row stays selected (found by id), after a profile
    /// switch the first row is.
    pub fn take_next(&mut self, body: usize) {
        let Some(n) = self.next.take() else {
            return;
        };
        self.reselect = match n.why {
            Replacing::Reload => self.selected_row().map(|r| Reselect {
                id: r.id(),
                index: self.selected,
            }),
            Replacing::Profile(_) => {
                self.selected = 0;
                self.offset = 0;
                None
            }
        };
        self.filter = n.filter;
        self.walk = n.walk;
        self.retry = None;
        self.load_all = false;
        self.held = None;
        self.after_page(body);
    }
}
