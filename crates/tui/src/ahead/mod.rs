//! The look-ahead of a walk (`L`, or a walk read behind the screen), as the app keeps it: per
//! tab, one chain of pages the runtime may ask for before the app asks for each, and the
//! credits the app has granted it.
//!
//! A fetch of a walk that wants its next pages whatever they bring ([`room`]) starts a chain
//! ([`Command::Ahead`]) with credit for its own page and [`AHEAD_PAGES`] more. The runtime's
//! task asks for the next page the moment a body names its cursor, before the loop sees that
//! page, while it holds credit; it sends each page in walk order ([`Msg::AheadLoaded`]). Each
//! fetch the app then asks for is the chain's next page: no request of its own, a top-up
//! (the same command, for the same chain) that keeps the chain [`AHEAD_PAGES`] ahead. A walk
//! that no longer wants pages ahead (`Esc`, an error, the depth it wanted) holds the chain to
//! the page it waits on ([`Command::Grant`]); a page it no longer waits on ends the chain;
//! another generation, `Cancel`, or a fetch the chain does not bring starts afresh (the
//! runtime aborts the old task, and its pages still on their way are dropped by their
//! chain's number).

/// How many pages a walk that wants the whole list (`L`) may have asked for ahead of the
/// page the app waits on: each is asked for as soon as the page before it named its cursor
/// (one request in flight at a time, as `convo list` does), whether or not the loop has
/// applied that page yet, so the walk goes at the server's pace while the loop applies and
/// draws; the chain waits for credit when the loop falls this far behind.
pub const AHEAD_PAGES: usize = 4;

/// How many pages a walk may ask for ahead of the page it waits on: [`AHEAD_PAGES`] when it
/// wants the whole list, one when it wants the next page whatever this one brings, else none.
pub fn room(whole: bool, next: bool) -> usize {
    match (whole, next) {
        (true, _) => AHEAD_PAGES,
        (false, true) => 1,
        (false, false) => 0,
    }
}

/// One tab's look-ahead: the chain in flight, if any.
#[derive(Debug, Clone, Default)]
pub struct Credits {
    chain: Option<Chain>,
    /// The number of the last chain started (a chain's pages carry it).
    last: u64,
}

/// A chain of pages of one walk, from the page at `from` on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Chain {
    id: u64,
    generation: u64,
    /// The cursor of the page the chain brings next; `None` once it has brought the last
    /// page, or an error (it asks for nothing more).
    expected: Option<Option<String>>,
    /// Pages the runtime may ask for in all, from `from` on.
    granted: usize,
    /// Pages received.
    received: usize,
}

impl Credits {
    /// Pages granted and received by the chain of walk `generation` (tests, and what the
    /// runtime is told).
    pub fn of(&self, generation: u64) -> Option<(usize, usize)> {
        self.chain
            .as_ref()
            .filter(|c| c.generation == generation)
            .map(|c| (c.granted, c.received))
    }

    /// True while a chain is in flight.
    pub fn active(&self) -> bool {
        self.chain.is_some()
    }
}

pub mod update;
