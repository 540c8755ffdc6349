//! Notifications: a refresh of a view with `notify = true` that finds new rows in it (more
//! unassigned open ones in "Unassigned open", conversations just assigned to me in "My
//! open") rings the bell and sends a desktop notification with fixed text; so does
//! a conversation of that view that becomes imminent against the first-response target, once
//! per conversation ([`Imminent`]).

use std::collections::HashSet;

use uuid::Uuid;

use convo_api::{Conversation, ConversationFilter, Resource};
use convo_config::View;
use convo_engine::sla::{Sla, State};

/// True when the Conversations tab shows a saved view with `notify = true` (its filters are
/// the tab's filters).
pub fn watching(views: &[View], filter: &ConversationFilter) -> bool {
    views
        .iter()
        .any(|v| v.notify && v.tab == Resource::Conversations && v.conversations == *filter)
}

/// The bytes of a notification: the bell, then OSC 9 (iTerm2, WezTerm, Windows Terminal…)
/// and OSC 777 (rxvt, foot, Ghostty…). Fixed text and a number: nothing from the data.
pub fn notification(more: usize) -> String {
    let text = if more == 1 {
        "1 new conversation in the view".to_string()
    } else {
        format!("{more} new conversations in the view")
    };
    format!("\x07\x1b]9;convo: {text}\x07\x1b]777;notify;convo;{text}\x07")
}

/// The conversations of a watched view already known to be imminent (or breaching), so that
/// each rings once: when time passes (a tick) or a refresh brings it there, not when it was
/// already there as the view was opened or its page arrived.
#[derive(Debug, Default, Clone)]
pub struct Imminent {
    /// The walk the set is for: a new walk (filters, `r`) starts a quiet one.
    generation: Option<u64>,
    rung: HashSet<Uuid>,
}

impl Imminent {
    /// Marks every row imminent or breaching at `now`; returns how many were not marked
    /// before. `quiet` (or a new walk) marks without counting.
    pub fn check(
        &mut self,
        generation: u64,
        rows: &[Conversation],
        sla: &Sla,
        now: jiff::Timestamp,
        quiet: bool,
    ) -> usize {
        let quiet = quiet || self.generation != Some(generation);
        if self.generation != Some(generation) {
            self.rung.clear();
            self.generation = Some(generation);
        }
        let mut new = 0;
        for c in rows {
            let hot = matches!(
                sla.first_response(c, now).map(|d| d.state),
                Some(State::Imminent | State::Breaching)
            );
            if hot && self.rung.insert(c.id) && !quiet {
                new += 1;
            }
        }
        new
    }
}

/// The bytes of an "about to breach" notification (see [`notification`]): fixed text and a
/// number.
pub fn imminent_notification(n: usize) -> String {
    let text = if n == 1 {
        "1 conversation about to breach its first-response target".to_string()
    } else {
        format!("{n} conversations about to breach their first-response target")
    };
    format!("\x07\x1b]9;convo: {text}\x07\x1b]777;notify;convo;{text}\x07")
}
