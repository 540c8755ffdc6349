//! Everything that can happen to the app: one message enum, fed to [`super::update::update`].

use crossterm::event::{KeyEvent, MouseEvent};

use convo_api::{ApiError, Conversation, Page, Resource, RetryNotice, Visitor};

/// One page of either list, as a fetch task hands it back.
#[derive(Debug, Clone)]
pub enum Loaded {
    Conversations(Page<Conversation>),
    Visitors(Page<Visitor>),
}

/// A background task of the runtime (see [`super::tasks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// The fetch of a page of a tab's walk.
    Page { tab: Resource, generation: u64 },
    /// The refresh of a tab's first page.
    Head { tab: Resource, generation: u64 },
    /// The fetch of a page of one stream of a union tab's walk.
    Part {
        tab: Resource,
        generation: u64,
        stream: usize,
        head: bool,
    },
    /// Writing an export file.
    Export,
    /// Loading another profile.
    Profile,
    /// An e-mail lookup (`tui::tab_query::lookup`).
    Lookup { ticket: u64 },
    /// A board's read of one view.
    View { generation: u64, index: usize },
    /// The look-up of what a held conversation is now (`Command::LookUpHeld`).
    HeldNow,
}

/// A message for [`super::update::update`].
#[derive(Debug, Clone)]
pub enum Msg {
    /// What the held conversation `id` is now, as its visitor's conversations list it
    /// (`None`: not found, or the look-up failed).
    HeldNow {
        id: uuid::Uuid,
        row: Option<Box<convo_api::Conversation>>,
    },
    /// A key press (releases are ignored).
    Key(KeyEvent),
    Mouse(MouseEvent),
    /// The terminal's new size in cells (columns, rows).
    Resize(u16, u16),
    /// Text pasted into the terminal (bracketed paste), as one message.
    Paste(String),
    /// Export `id` has written `rows` rows so far (the writer wants the next part).
    ExportWritten {
        id: u64,
        rows: usize,
    },
    /// The answer to `Command::CheckExportPath`: something is at `path` already; `free` is
    /// the first name beside it that is free (`x-2.csv`, …).
    ExportPathChecked {
        path: String,
        exists: bool,
        free: String,
    },
    /// The answer to `Command::ProposeExportPath`: `free` is `asked` or the first free name
    /// beside it.
    ExportPathProposed {
        asked: String,
        free: String,
    },
    /// Export `id` ended: written, refused, failed or abandoned, as `text` says.
    ExportEnded {
        id: u64,
        text: String,
        error: bool,
    },
    /// The timer: countdowns, periodic refresh, relative times. Carries the current time so
    /// that `update` stays free of clocks (tests pass a fixed instant).
    Tick(jiff::Timestamp),
    /// The answer to a [`super::command::Command::Fetch`].
    PageLoaded {
        tab: Resource,
        generation: u64,
        result: Result<Loaded, ApiError>,
    },
    /// A page of a look-ahead chain ([`super::command::Command::Ahead`]), in walk order;
    /// `update` applies it as a [`Msg::PageLoaded`] when the walk waits on it
    /// ([`super::ahead::update::arrived`]).
    AheadLoaded {
        tab: Resource,
        generation: u64,
        chain: u64,
        result: Result<Loaded, ApiError>,
    },
    /// The answer to a [`super::command::Command::FetchPart`].
    PartLoaded {
        tab: Resource,
        generation: u64,
        stream: usize,
        head: bool,
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
    /// A user's command ended (`Command::RunProgram` with the same id): how each process
    /// ended, and its output for the pane.
    ProgramDone {
        id: u64,
        name: String,
        output: convo_config::commands::Output,
        report: super::commands::RunReport,
    },
    /// How [`super::command::Command::CopyToClipboard`] copied `text`.
    Copied {
        text: String,
        how: super::clipboard::Copied,
    },
    /// The answer to a [`super::command::Command::SwitchProfile`].
    ProfileLoaded {
        /// The switch's id (`Command::SwitchProfile`).
        id: u64,
        result: Result<Box<super::session::Session>, String>,
    },
    /// The client is about to wait before trying a request again (429 or backoff).
    Retrying {
        tab: Resource,
        generation: u64,
        /// The page's cursor (`None`: the first page): a page asked for ahead that the app
        /// does not wait on yet retries without a word.
        cursor: Option<String>,
        notice: RetryNotice,
    },
    /// Visitors' labels from a page of the background sync (`None`: no name to show).
    VisitorNames(Vec<(uuid::Uuid, Option<super::names::VisitorLabel>)>),
    /// The store's answer to `Command::LoadNames`: which of `asked` it knows.
    NamesLoaded {
        asked: Vec<uuid::Uuid>,
        found: Vec<(uuid::Uuid, Option<super::names::VisitorLabel>)>,
    },
    /// Where the background visitor sync stands ("names: 1,200 of ≥20,000 visitors");
    /// `None` when it is done or stopped.
    VisitorSync(Option<String>),
    /// Another convo on the same store wrote visitors (its walk went on): the names the
    /// store did not know are asked again.
    NamesWritten,
    /// What the Conversations view `key` had loaded when convo last quit (unix seconds,
    /// ids with watch hashes).
    /// The answer to `Command::LookupVisitors`: the visitors asked, those the store knows,
    /// and whether there is a store at all (`false`: off, or it failed).
    StoreVisitors {
        asked: Vec<uuid::Uuid>,
        known: Vec<(uuid::Uuid, convo_query::query::eval::VisitorInfo)>,
        store: bool,
    },
    /// A visitor's attributes from the local store (`Null` when it has none or is unknown).
    VisitorAttributes {
        id: uuid::Uuid,
        attributes: serde_json::Value,
    },
    /// The answer to a `Command::ResolveEmail`: the visitors with that e-mail (or why not).
    EmailResolved {
        ticket: u64,
        email: String,
        base: convo_api::ConversationFilter,
        result: Result<Vec<uuid::Uuid>, String>,
    },
    /// The answer to `Command::ResolveQueryEmails`: each e-mail's visitors (or why not).
    QueryEmails {
        ticket: u64,
        query: convo_query::query::Query,
        resolved: convo_query::query::Query,
        result: Result<convo_query::query::plan::Emails, String>,
    },
    /// The trend of a filter key: its samples of the last 24 hours (oldest first).
    Samples {
        key: String,
        samples: Vec<convo_store::Sample>,
    },
    LastLook {
        key: String,
        taken_at: i64,
        rows: Vec<(uuid::Uuid, u64)>,
    },
    /// The answer to `Command::SaveView`.
    ViewSaved {
        view: convo_config::save_view::NewView,
        result: Result<convo_config::save_view::Saved, convo_config::save_view::SaveError>,
    },
    /// The answer to `Command::LoadQueryLine`: the tab's earlier queries (oldest first) and
    /// the attribute keys of the visitors kept.
    QueryLineLoaded {
        tab: Resource,
        history: Vec<String>,
        attr_keys: Vec<String>,
    },
    /// The answer to `Command::ReadView`: the counts of row `index` of the board's round
    /// `generation`, or why they could not be read (sanitised).
    ViewRead {
        generation: u64,
        index: usize,
        result: Result<super::board::Counts, String>,
    },
    /// A background task panicked (a bug): its message, to be shown; the app recovers.
    TaskFailed {
        task: Task,
        message: String,
    },
}

/// The answer `result` to the page `asked` (as the runtime sends it).
pub fn answering(asked: &crate::command::PageAsked<'_>, result: Result<Loaded, ApiError>) -> Msg {
    use crate::command::PageKind;
    let (tab, generation) = (asked.tab, asked.generation);
    match asked.kind {
        PageKind::Walk => Msg::loaded(false, tab, generation, result),
        PageKind::Head => Msg::loaded(true, tab, generation, result),
        PageKind::Chain(chain) => Msg::AheadLoaded {
            tab,
            generation,
            chain,
            result,
        },
        PageKind::Part { stream, head } => Msg::PartLoaded {
            tab,
            generation,
            stream,
            head,
            result,
        },
    }
}

impl Msg {
    /// The answer to a page fetch of one list: a refresh's head ([`Msg::HeadLoaded`]) or the
    /// walk's next page ([`Msg::PageLoaded`]).
    pub fn loaded(
        head: bool,
        tab: Resource,
        generation: u64,
        result: Result<Loaded, ApiError>,
    ) -> Msg {
        if head {
            Msg::HeadLoaded {
                tab,
                generation,
                result,
            }
        } else {
            Msg::PageLoaded {
                tab,
                generation,
                result,
            }
        }
    }
}
