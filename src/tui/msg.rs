//! Everything that can happen to the app: one message enum, fed to [`super::update::update`].

use crossterm::event::{KeyEvent, MouseEvent};

use crate::api::{ApiError, Conversation, Page, Resource, RetryNotice, Visitor};

/// One page of either list, as a fetch task hands it back.
#[derive(Debug, Clone)]
pub enum Loaded {
    Conversations(Page<Conversation>),
    Visitors(Page<Visitor>),
}

/// A message for [`super::update::update`].
#[derive(Debug, Clone)]
pub enum Msg {
    /// A key press (releases are ignored).
    Key(KeyEvent),
    Mouse(MouseEvent),
    /// The terminal's new size in cells (columns, rows).
    Resize(u16, u16),
    /// The timer: countdowns, periodic refresh, relative times. Carries the current time so
    /// that `update` stays free of clocks (tests pass a fixed instant).
    Tick(jiff::Timestamp),
    /// The answer to a [`super::command::Command::Fetch`].
    PageLoaded {
        tab: Resource,
        generation: u64,
        result: Result<Loaded, ApiError>,
    },
    /// The answer to a [`super::command::Command::FetchHead`] (periodic refresh).
    HeadLoaded {
        tab: Resource,
        generation: u64,
        result: Result<Loaded, ApiError>,
    },
    /// The runtime finished something it was asked to do (export written, browser not
    /// started): a status line message.
    Notice {
        text: String,
        error: bool,
    },
    /// The answer to a [`super::command::Command::SwitchProfile`].
    ProfileLoaded {
        result: Result<Box<super::profiles::ProfileSwitch>, String>,
    },
    /// The client is about to wait before trying a request again (429 or backoff).
    Retrying {
        tab: Resource,
        generation: u64,
        notice: RetryNotice,
    },
}
