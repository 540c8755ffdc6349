//! The I/O that [`super::update::update`] asks for; the runtime carries it out.

use convo_api::{ConversationFilter, Limit, Resource, VisitorFilter};

/// The filters of one request, frozen when the request is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestFilter {
    Conversations(ConversationFilter),
    Visitors(VisitorFilter),
}

impl RequestFilter {
    /// The tab this query lists.
    pub fn tab(&self) -> Resource {
        match self {
            RequestFilter::Conversations(_) => Resource::Conversations,
            RequestFilter::Visitors(_) => Resource::Visitors,
        }
    }
}

/// Something for the runtime to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Keep these visitor rows in the local store (its thread does it; nothing waits).
    KeepVisitors(super::names::VisitorRows),
    /// Read the names of these visitors (with how many loaded rows have each) from the store;
    /// answered by `Msg::NamesLoaded`. Those it does not know are noted and the visitor sync
    /// checks the list's new end.
    LoadNames(Vec<(uuid::Uuid, u32)>),
    /// Fetch one page of a tab's walk; the answer comes back as `Msg::PageLoaded` with the
    /// same tab and generation. A newer fetch of the same tab replaces (aborts) an older one.
    Fetch {
        tab: Resource,
        generation: u64,
        cursor: Option<String>,
        query: RequestFilter,
        limit: Limit,
    },
    /// The app waits on the page at `from` of a tab's walk, brought by look-ahead chain `chain`
    /// ([`super::ahead`]), which may ask for `pages` pages in all (counted from its first).
    /// A chain the runtime does not run yet starts at `from`, replacing (aborting) the tab's
    /// fetch or chain in flight: it asks for the page at `from`, then for each next page as
    /// soon as a body names its cursor, while its credit lasts. The chain it runs takes
    /// `pages` as its credit (a top-up). Each page comes back as `Msg::AheadLoaded` with the
    /// same tab, generation and chain, in walk order.
    Ahead {
        tab: Resource,
        generation: u64,
        chain: u64,
        from: Option<String>,
        query: RequestFilter,
        limit: Limit,
        pages: usize,
    },
    /// The chain `chain` of this tab may ask for `pages` pages in all (counted from its
    /// first): fewer than it had stops it there (what it has asked for still comes).
    Grant {
        tab: Resource,
        chain: u64,
        pages: usize,
    },
    /// Fetch one page of stream `stream` of a union tab's walk (a query that needs several
    /// requests); answered by `Msg::PartLoaded` with the same tab, generation and stream.
    /// Streams are fetched side by side, each with at most one request in flight. `head`: a
    /// page of the union's refresh (its streams re-read from the top), not of its walk.
    FetchPart {
        tab: Resource,
        generation: u64,
        stream: usize,
        head: bool,
        cursor: Option<String>,
        query: RequestFilter,
        limit: Limit,
    },
    /// Fetch a page of a refresh's re-read from the top (`cursor` `None`: the first);
    /// answered by `Msg::HeadLoaded`.
    FetchHead {
        tab: Resource,
        generation: u64,
        query: RequestFilter,
        limit: Limit,
        cursor: Option<String>,
    },
    /// Abort whatever is in flight for this tab (its walk was replaced and nothing new is asked).
    Cancel { tab: Resource },
    /// A refresh found `more` unassigned open conversations than before in a view with
    /// `notify = true`: ring the bell and send a desktop notification with fixed text.
    Notify { more: usize },
    /// Ask the service which visitors have this e-mail (the filter pane's "visitor email");
    /// answered by `Msg::EmailResolved` with `base`, the rest of the form's filters.
    ResolveEmail {
        /// The lookup's ticket (`tui::tab_query::lookup`), carried back by the answer.
        ticket: u64,
        email: String,
        base: ConversationFilter,
    },
    /// Look up the visitors of each e-mail of a query's `visitor:` terms (every page of
    /// `GET /v1/visitors?email=`); answered by `Msg::QueryEmails` with the query.
    ResolveQueryEmails {
        /// The lookup's ticket (`tui::tab_query::lookup`), carried back by the answer.
        ticket: u64,
        query: convo_query::query::Query,
        resolved: convo_query::query::Query,
        emails: Vec<String>,
    },
    /// Keep what a Conversations view had loaded, as it is left for another (the next start
    /// on that view marks what changed since).
    /// "Since you last looked" of a view just shown: what the store kept of it, answered by
    /// `Msg::LastLook` (each view has its own).
    LoadLook(String),
    KeepLook {
        key: String,
        rows: Vec<convo_store::LookRow>,
    },
    /// Read one visitor's attributes from the local store (the detail pane of a
    /// conversation); answered by `Msg::VisitorAttributes`. Nothing without a store.
    LoadVisitor(uuid::Uuid),
    /// What the conversation `id` that left the view under the cursor is now: one page of its
    /// visitor's conversations (`visitor_id`), read as background work; answered by
    /// `Msg::HeldNow` (`None` on a failure, or when that page does not have it).
    LookUpHeld {
        id: uuid::Uuid,
        visitor_id: uuid::Uuid,
    },
    /// Read these visitors from the local store for a union's checks on their attributes;
    /// answered by `Msg::StoreVisitors` (at once, with `store: false`, without a store).
    LookupVisitors(Vec<uuid::Uuid>),
    /// Record `sample` (when given) in the local store under `key`, then load the key's last
    /// 24 hours (answered by `Msg::Samples`). Nothing without a store.
    Samples {
        key: String,
        sample: Option<convo_store::Sample>,
    },
    /// Ring and notify: `count` conversations of a watched view became imminent.
    NotifyImminent { count: usize },
    /// Put this text on the clipboard: the system's where reachable, else the terminal's
    /// (OSC 52); answered by `Msg::Copied`. A row's id or another of its fields (`Y`): it
    /// goes to the clipboard program's stdin or as OSC 52's base64, never into a command line.
    CopyToClipboard(String),
    /// Put this text on the terminal's clipboard with OSC 52 (the system's failed).
    CopyByTerminal(String),
    /// Run a user's command (`[[commands]]`): each process exec'd with its argv, never a
    /// shell. `pane` and `none` on a thread (answered by `Msg::ProgramDone`); `terminal` in
    /// the foreground with the terminal handed over (as Ctrl-Z does), then a redraw.
    RunProgram(Box<super::commands::ProgramRun>),
    /// Open this URL in the browser (`$BROWSER`, else the platform's). Built only from the config's
    /// `web_url` template and a row's UUID.
    OpenUrl(String),
    /// Start export `id`: `rows` rows to a new file at `path` (never overwrites), CSV or
    /// `format`. The rows follow in `ExportRows`, then `ExportEnd`; each part is answered by
    /// `Msg::ExportWritten`, the end by `Msg::ExportEnded` (which says what `kind` it was).
    Export {
        id: u64,
        path: std::path::PathBuf,
        rows: usize,
        kind: ExportKind,
        format: crate::export::Format,
    },
    /// Is something at this export path already? Answered by `Msg::ExportPathChecked`, so
    /// that an existing file is said at once, before any scope question or fetch.
    CheckExportPath(String),
    /// `e` proposes this name: is it free, else which `-2`, `-3`… is? Answered by
    /// `Msg::ExportPathProposed`.
    ProposeExportPath(String),
    /// The next rows of export `id`.
    ExportRows {
        id: u64,
        part: super::export::ExportPart,
    },
    /// Export `id` has had all its rows: finish the file; or, with `abandon`, remove the
    /// partial file and say why.
    ExportEnd { id: u64, abandon: Option<String> },
    /// Load the config again for this profile (`None`: its top level) and rebuild the
    /// client; answered by `Msg::ProfileLoaded`.
    SwitchProfile { id: u64, name: Option<String> },
    /// Ctrl-Z: restore the terminal and stop (job control); on `fg`, take the terminal
    /// again and redraw everything.
    Suspend,
    /// Turn mouse capture on or off (`mouse` in the config; a profile may change it).
    SetMouse(bool),
    /// Read the query line's history of `tab` and the visitors' attribute keys from the
    /// local store; answered by `Msg::QueryLineLoaded`. Nothing without a store.
    LoadQueryLine { tab: Resource },
    /// Keep a query run from the query line in `tab`'s history in the local store.
    KeepQuery { tab: Resource, text: String },
    /// Write `view` into the config file at `path` (`profile`'s views when one is in use),
    /// replacing a view of that name only with `replace`; answered by `Msg::ViewSaved`.
    SaveView {
        path: std::path::PathBuf,
        profile: Option<String>,
        view: convo_config::save_view::NewView,
        replace: bool,
    },
    /// The board's read of one view (background work: the user's fetches go first): at most
    /// `pages` pages of it counted; answered by `Msg::ViewRead` with the same generation and
    /// index. A newer read replaces (aborts) an older one.
    ReadView {
        generation: u64,
        index: usize,
        view: Box<convo_config::View>,
        pages: usize,
    },
    /// Leave the app.
    Quit,
}

/// What an export holds, for the message once it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportKind {
    /// The rows the tab had loaded.
    Loaded,
    /// Every page of the tab's filters (see [`super::export::walk`]), with what the walk
    /// noticed about the server's answers (a stopped walk, dropped or unreadable rows): the
    /// message then says the file may be incomplete.
    WholeWalk { warnings: Vec<String> },
    /// A whole-walk export stopped with Esc: the rows fetched until then; more exist.
    PartialWalk,
}

/// What kind of page a command asks for ([`Command::page_asked`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKind {
    /// A page of the tab's walk.
    Walk,
    /// The first page of a look-ahead chain.
    Chain(u64),
    /// A page of a refresh.
    Head,
    /// A page of one stream of a union (`head`: of its refresh).
    Part { stream: usize, head: bool },
}

/// The page a command asks of the service, whatever its kind: what answers it needs.
#[derive(Debug, Clone, Copy)]
pub struct PageAsked<'a> {
    pub tab: Resource,
    pub generation: u64,
    pub cursor: Option<&'a str>,
    pub query: &'a RequestFilter,
    pub limit: Limit,
    pub kind: PageKind,
}

impl Command {
    /// The page this command asks of the service, if it asks for one.
    pub fn page_asked(&self) -> Option<PageAsked<'_>> {
        let (tab, generation, cursor, query, limit, kind) = match self {
            Command::Fetch {
                tab,
                generation,
                cursor,
                query,
                limit,
            } => (tab, generation, cursor, query, limit, PageKind::Walk),
            Command::Ahead {
                tab,
                generation,
                chain,
                from,
                query,
                limit,
                ..
            } => (tab, generation, from, query, limit, PageKind::Chain(*chain)),
            Command::FetchHead {
                tab,
                generation,
                query,
                limit,
                cursor,
            } => (tab, generation, cursor, query, limit, PageKind::Head),
            Command::FetchPart {
                tab,
                generation,
                stream,
                head,
                cursor,
                query,
                limit,
            } => {
                let kind = PageKind::Part {
                    stream: *stream,
                    head: *head,
                };
                (tab, generation, cursor, query, limit, kind)
            }
            _ => return None,
        };
        Some(PageAsked {
            tab: *tab,
            generation: *generation,
            cursor: cursor.as_deref(),
            query,
            limit: *limit,
            kind,
        })
    }
}
