//! The status line's message: what it says, and how long it stays true ([`Life`]). A message
//! is dropped when its lifetime ends: a notice after [`NOTICE_SECS`] of the `Tick` clock, a
//! refresh's news after [`NEWS_SECS`] or when its walk is replaced, "only the top N rows are kept live" when no
//! more than N rows are loaded, a search's match count when the search changes (its words
//! follow the matches meanwhile). An error stays until Esc or a newer message. News from the
//! background (a refresh) never covers an error or a search's count. How the app keeps
//! them: [`update`].

pub mod update;

use convo_api::Resource;

/// Seconds a notice (an answer to a key) stays on the status line.
pub const NOTICE_SECS: i64 = 10;

/// Seconds a refresh's news stays: refreshes come often, and the footer counts the marks.
pub const NEWS_SECS: i64 = 5;

/// How long a message stays true.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Life {
    /// Until Esc or a newer message: errors, which the user must see.
    Sticky,
    /// Until this time: a notice about something done.
    Until(jiff::Timestamp),
    /// While `tab` is on screen and shows walk `generation`, and at most until `until`: a
    /// refresh's news ("2 new rows"), "12 new since yesterday".
    Walk {
        tab: Resource,
        generation: u64,
        until: jiff::Timestamp,
    },
    /// As `Walk`, but an answer to the user's key (how a query is sent): it covers what a
    /// notice covers.
    OfWalk {
        tab: Resource,
        generation: u64,
        until: jiff::Timestamp,
    },
    /// While `tab` has no row selected, and at most until `until`: "no row selected".
    NoRow {
        tab: Resource,
        until: jiff::Timestamp,
    },
    /// While `tab` is on screen and its walk `generation` has more than `live` rows loaded
    /// (so a refresh keeps only the top ones live), and at most until `until`.
    Cut {
        tab: Resource,
        generation: u64,
        live: usize,
        until: jiff::Timestamp,
    },
    /// While the e-mail lookup `ticket` runs (`tui::tab_query::lookup`): "looking up the visitors…".
    Lookup { ticket: u64 },
    /// While `tab` is on screen and its search is `query`: the match count (or "match k of
    /// n" after `n`/`N`: `stepped`), re-worded as the matches change.
    Search {
        tab: Resource,
        query: String,
        stepped: bool,
    },
}

impl Life {
    /// A notice from `now` on.
    pub fn notice(now: jiff::Timestamp) -> Life {
        Life::Until(later(now))
    }

    /// News from the background (a refresh): it does not cover what the user asked for.
    pub fn is_background(&self) -> bool {
        matches!(self, Life::Walk { .. } | Life::Cut { .. })
    }
}

/// `now` plus [`NOTICE_SECS`].
pub fn later(now: jiff::Timestamp) -> jiff::Timestamp {
    after(now, NOTICE_SECS)
}

/// `now` plus `secs` seconds.
pub fn after(now: jiff::Timestamp, secs: i64) -> jiff::Timestamp {
    now.checked_add(jiff::SignedDuration::from_secs(secs))
        .unwrap_or(now)
}

/// A one-line message in the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusMessage {
    pub text: String,
    pub error: bool,
    pub life: Life,
}

impl StatusMessage {
    /// A notice that lasts [`NOTICE_SECS`] from `now`.
    pub fn notice(text: impl Into<String>, now: jiff::Timestamp) -> StatusMessage {
        StatusMessage {
            text: text.into(),
            error: false,
            life: Life::notice(now),
        }
    }

    /// An error: it stays until Esc or a newer message.
    pub fn error(text: impl Into<String>) -> StatusMessage {
        StatusMessage {
            text: text.into(),
            error: true,
            life: Life::Sticky,
        }
    }

    /// A notice, or an error when `error`.
    pub fn new(text: impl Into<String>, error: bool, now: jiff::Timestamp) -> StatusMessage {
        if error {
            StatusMessage::error(text)
        } else {
            StatusMessage::notice(text, now)
        }
    }

    /// True if `self` may take the place of `shown`: news from the background does not
    /// cover an error or a search's count.
    pub fn may_replace(&self, shown: &StatusMessage) -> bool {
        !(self.life.is_background() && (shown.error || matches!(shown.life, Life::Search { .. })))
    }
}

/// The status line: the message it shows, and the last error and the last message it was
/// given, whole (the help overlay shows them). A message is put by [`StatusLine::post`]
/// (news does not cover an error or a search's count) and kept true by [`update::settle`].
#[derive(Debug, Clone, Default)]
pub struct StatusLine {
    shown: Option<StatusMessage>,
    last_error: Option<LastError>,
    last_message: Option<LastError>,
}

impl StatusLine {
    /// The message on the line now.
    pub fn shown(&self) -> Option<&StatusMessage> {
        self.shown.as_ref()
    }

    /// The last error the line showed, whole.
    pub fn last_error(&self) -> Option<&LastError> {
        self.last_error.as_ref()
    }

    /// The last message the line was given (an error or not), whole.
    pub fn last_message(&self) -> Option<&LastError> {
        self.last_message.as_ref()
    }

    /// Puts `m` on the line unless it may not cover what is shown (news from the background
    /// does not cover an error or a search's count); remembers it whole. Says whether it is
    /// shown.
    pub fn post(&mut self, m: StatusMessage, now: jiff::Timestamp) -> bool {
        if !self.shown.as_ref().is_none_or(|shown| m.may_replace(shown)) {
            return false;
        }
        if m.error {
            remember(&mut self.last_error, &m.text, now);
        }
        remember(&mut self.last_message, &m.text, now);
        self.shown = Some(m);
        true
    }

    /// Esc, or a key whose answer is on screen: the line says nothing.
    pub fn clear(&mut self) {
        self.shown = None;
    }

    /// Re-words the message shown where it says `was` (a row that left the view, once it is
    /// known why).
    pub fn reword(&mut self, was: &str, now: &str) {
        if let Some(m) = self.shown.as_mut()
            && m.text.contains(was)
        {
            m.text = m.text.replace(was, now);
        }
    }
}

/// The last error the status line showed, whole (the line cuts it at the terminal's edge):
/// the help overlay shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastError {
    pub text: String,
    pub at: jiff::Timestamp,
}

/// Keeps `text` as the last error (a new one from `now`; the same one keeps its time).
pub fn remember(last: &mut Option<LastError>, text: &str, now: jiff::Timestamp) {
    if last.as_ref().is_none_or(|e| e.text != text) {
        *last = Some(LastError {
            text: text.to_string(),
            at: now,
        });
    }
}
