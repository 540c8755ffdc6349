//! An e-mail lookup in flight (the filter pane's visitor e-mail, a query's `visitor:` terms):
//! each carries a ticket and the Conversations walk it was asked over, and its answer lands
//! only while it is still the newest and that walk is still the one on screen. A key that
//! changed the tab's filters meanwhile (`s`, `u`, `x`, another query) made it stale: it is
//! dropped, as an older walk's page is. Esc cancels it (a layer of its own while it runs).

/// The lookup in flight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// Which lookup this is (each asked for gets a new one).
    pub ticket: u64,
    /// The Conversations tab's walk when it was asked for.
    pub generation: u64,
    /// What it looks up, for the status line ("the visitors with e-mail a@b.c").
    pub what: String,
}

/// The app's e-mail lookups: the last ticket given, and the one in flight.
#[derive(Debug, Clone, Default)]
pub struct Lookups {
    last: u64,
    pending: Option<Lookup>,
}

impl Lookups {
    /// A new lookup over walk `generation` replaces any in flight; its ticket.
    pub fn begin(&mut self, generation: u64, what: String) -> u64 {
        self.last += 1;
        self.pending = Some(Lookup {
            ticket: self.last,
            generation,
            what,
        });
        self.last
    }

    /// The lookup in flight, while walk `generation` (the one on screen) is the one it was
    /// asked over.
    pub fn current(&self, generation: u64) -> Option<&Lookup> {
        self.pending.as_ref().filter(|l| l.generation == generation)
    }

    /// The answer of lookup `ticket` came: true (and it is no longer in flight) when it is
    /// the one in flight and walk `generation` is still the one it was asked over.
    pub fn answered(&mut self, ticket: u64, generation: u64) -> bool {
        let current = self.current(generation).is_some_and(|l| l.ticket == ticket);
        if self.pending.as_ref().is_some_and(|l| l.ticket == ticket) {
            self.pending = None;
        }
        current
    }

    /// Drops the lookup in flight (its answer will be dropped); what it looked up.
    pub fn cancel(&mut self) -> Option<Lookup> {
        self.pending.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_lookup_over_the_same_walk_lands() {
        let mut l = Lookups::default();
        let a = l.begin(3, "a".into());
        let b = l.begin(3, "b".into());
        assert!(!l.answered(a, 3), "replaced by b");
        assert!(l.current(4).is_none(), "another walk: stale");
        assert!(!l.answered(b, 4));
        let c = l.begin(4, "c".into());
        assert!(l.answered(c, 4));
        assert!(l.current(4).is_none(), "answered: no longer in flight");
        let d = l.begin(4, "d".into());
        assert_eq!(l.cancel().map(|x| x.ticket), Some(d));
        assert!(!l.answered(d, 4));
    }
}
