//! The loop: input, answers from fetch tasks and a timer go through `update`; commands are
//! carried out here (fetch tasks tagged with tab and generation, OSC 52, quit); a frame is
//! drawn only when something changed, after a burst of answers has been applied.
//!
//! Generic over the ratatui backend and the input stream, so tests run this very loop on a
//! `TestBackend` with scripted keys.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{Event, MouseEventKind};
use futures::{FutureExt, Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

use super::TuiError;
use super::app::App;
use super::command::{Command, Query};
use super::frames::Frames;
use super::msg::{Loaded, Msg, Task};
use super::terminal::Modes;
use super::update::update;
use super::view;
use crate::api::model::peek_next;
use crate::api::{
    ApiError, Client, Conversation, Limit, ListFilter, Resource, RetryNotice, Visitor,
};

/// How often the timer ticks: countdowns are in seconds, relative times in minutes.
pub const TICK: Duration = Duration::from_secs(1);

/// The shortest time between two frames drawn for answers (pages, refreshes): a walk of
/// thousands of pages (`L`) draws its progress at most this often, not once a page. Input is
/// answered by a frame at once.
pub const ANSWER_FRAME: Duration = Duration::from_millis(16);

/// At most this many keys already waiting are applied before a frame is drawn.
const MAX_KEYS_A_FRAME: usize = 64;

/// The longest the loop applies answers already waiting before it looks at input again and
/// draws (a frame is due every [`ANSWER_FRAME`]).
const ANSWERS_A_TURN: Duration = Duration::from_millis(4);

/// How many pages a walk that wants the whole list (`L`) may have asked for ahead of the
/// pages the app has asked for: each is asked for as soon as the page before it named its
/// cursor (one request in flight at a time, as `convo list` does), whether or not the loop
/// has applied that page yet, so the walk goes at the server's pace while the loop applies
/// and draws; it waits here when the loop falls this far behind.
pub const AHEAD_PAGES: usize = 4;

/// A page of a walk asked for ahead, before the app asked for it: its request, then its
/// decoded answer.
struct Ahead {
    cursor: String,
    task: JoinHandle<()>,
    page: tokio::sync::oneshot::Receiver<Result<Loaded, ApiError>>,
}

/// Per tab, the walk the fetches belong to: its generation, the cursors asked for in it (a
/// cursor seen again is never asked for ahead: the pager will call it a loop) and the pages
/// asked for ahead.
#[derive(Default)]
struct Walk {
    generation: u64,
    asked: HashSet<String>,
    /// Pages asked for ahead, in walk order (the first is the next the app will ask for).
    ahead: VecDeque<Ahead>,
    /// How many pages may be asked for ahead: 0, 1 (a reload read behind the screen), or
    /// [`AHEAD_PAGES`] (the whole list). Set from the app after every update.
    room: usize,
    /// The cursor after the last page asked for ahead, when `room` stopped the walk there.
    paused: Option<String>,
    /// The app asked for the first page asked for ahead before it arrived: its task sends it
    /// to the loop when it has decoded it.
    wanted: Option<String>,
}

impl Walk {
    fn cancel_ahead(&mut self) {
        for a in self.ahead.drain(..) {
            a.task.abort();
        }
        self.paused = None;
        self.wanted = None;
        self.room = 0;
    }
}

/// What a fetch task of a walk needs to ask for the page after its own.
#[derive(Clone)]
struct Asker {
    walks: Walks,
    client: Client,
    query: Query,
    limit: Limit,
    tx: mpsc::UnboundedSender<Msg>,
    tab: Resource,
    generation: u64,
    /// The visitor sync waits while a page asked for ahead is in flight, as for any fetch of
    /// the user's.
    user_fetches: Arc<crate::store::sync::UserFetches>,
}

impl Asker {
    /// The page at `cursor` is asked for ahead (`w` is this walk's): a task fetches it, asks
    /// for the one after it in turn (room permitting), then decodes it.
    fn ask(&self, w: &mut Walk, cursor: String) {
        w.asked.insert(cursor.clone());
        let (put, page) = tokio::sync::oneshot::channel();
        let (me, c) = (self.clone(), cursor.clone());
        let busy = self.user_fetches.begin();
        let task = super::tasks::spawn(
            Task::Page {
                tab: self.tab,
                generation: self.generation,
            },
            &self.tx,
            async move {
                let _busy = busy;
                let on_retry = retry_notices(&me.tx, me.tab, me.generation, false, Some(&c));
                let body = fetch_body(&me.client, &me.query, me.limit, Some(&c), &on_retry).await;
                if let Ok(b) = &body
                    && me.go_on(b)
                {
                    let_it_leave().await;
                }
                let result = decode(&me.client, &me.query, body);
                let mut all = lock(&me.walks);
                match all.get_mut(&me.tab) {
                    // The app asked for it meanwhile: it goes to the loop at once.
                    Some(w) if w.generation == me.generation && w.wanted.as_ref() == Some(&c) => {
                        w.wanted = None;
                        w.ahead.pop_front();
                        me.resume(w);
                        drop(all);
                        let _ = me.tx.send(Msg::PageLoaded {
                            tab: me.tab,
                            generation: me.generation,
                            result,
                        });
                    }
                    // Kept until the app asks for it (under the lock: see `spawn`).
                    _ => {
                        let _ = put.send(result);
                    }
                }
            },
        );
        w.ahead.push_back(Ahead { cursor, task, page });
    }

    /// The first page asked for ahead has gone to the app: its place in the queue is free, and
    /// the walk goes on if it waited for room.
    fn resume(&self, w: &mut Walk) {
        if w.ahead.len() < w.room
            && let Some(next) = w.paused.take()
        {
            self.ask(w, next);
        }
    }

    /// A body of this walk has arrived: the page after it is asked for at once, before this
    /// one is decoded, if the walk wants it and has room; else it waits in `paused`.
    /// True when it asked.
    fn go_on(&self, body: &[u8]) -> bool {
        let Some((true, Some(next))) = peek_next(body) else {
            return false;
        };
        let mut all = lock(&self.walks);
        let Some(w) = all.get_mut(&self.tab) else {
            return false;
        };
        if w.generation != self.generation || next.is_empty() || w.asked.contains(next) {
            return false;
        }
        if w.ahead.len() < w.room {
            self.ask(w, next.to_string());
            return true;
        }
        if w.room > 0 {
            w.paused = Some(next.to_string());
        }
        false
    }
}

type Walks = Arc<Mutex<HashMap<Resource, Walk>>>;

/// Runs commands and the loop. Fetch tasks outlive one call of [`Runtime::run`], so a test
/// can run the loop in phases with the same app.
pub struct Runtime {
    client: Client,
    tx: mpsc::UnboundedSender<Msg>,
    rx: mpsc::UnboundedReceiver<Msg>,
    /// The task in flight per (tab, is-refresh); a newer one aborts the older.
    tasks: HashMap<(Resource, bool), JoinHandle<()>>,
    /// The request in flight per (tab, stream) of a union tab's walk.
    parts: HashMap<(Resource, usize, bool), JoinHandle<()>>,
    /// The export being written (its writer thread).
    exports: super::export::write::Writer,
    /// Each tab's walk, shared with its fetch tasks (they ask for the next page ahead).
    walks: Walks,
    /// Draws frames, moving the table with a scroll region when it scrolls.
    pub frames: Frames,
    tick: Duration,
    /// Test only (`CONVO_TEST_PANIC=1`): panic at the first draw so a pty test can check that
    /// the terminal is restored after a panic.
    pub panic_on_draw: bool,
    /// Test only (`CONVO_TEST_PANIC=fetch`): the next fetch task panics (once), so a pty test
    /// can check that a panicking task becomes an error on screen and `r` recovers.
    pub panic_in_fetch: bool,
    /// Test only (`CONVO_TEST_PANIC=stall`): after the first frame the loop never returns (the
    /// main thread sleeps for ever), so a pty test can check that a stop signal still ends
    /// convo with the terminal restored.
    pub stall_after_draw: bool,
    /// The terminal's modes for Ctrl-Z and `mouse` (none on a `TestBackend`: then
    /// [`Command::Suspend`] and [`Command::SetMouse`] do nothing but redraw).
    pub modes: Option<Box<dyn Modes>>,
    /// Back from a suspend: the next frame clears the screen and redraws everything.
    resumed: bool,
    /// The config file, read again by a profile switch (`P`).
    pub config_path: Option<std::path::PathBuf>,
    /// The local store and its visitor sync, when on.
    store: Option<super::visitor_sync::StoreLink>,
    /// The user's fetches in flight: the visitor sync waits for them.
    user_fetches: std::sync::Arc<crate::store::sync::UserFetches>,
    /// How `y` reaches a clipboard: none in tests (OSC 52), the session's in the app
    /// ([`super::clipboard::Setup::from_env`]).
    pub clipboard: super::clipboard::Setup,
    /// The last look being written at quit.
    pending_look: Option<tokio::sync::oneshot::Receiver<Result<(), crate::store::StoreError>>>,
    /// The board's read in flight.
    board: super::board::read::Reader,
}

impl Runtime {
    /// A runtime that fetches with `client`.
    pub fn new(client: Client) -> Runtime {
        let (tx, rx) = mpsc::unbounded_channel();
        Runtime {
            client,
            tx,
            rx,
            tasks: HashMap::new(),
            parts: HashMap::new(),
            exports: Default::default(),
            walks: Walks::default(),
            frames: Frames::default(),
            tick: TICK,
            panic_on_draw: false,
            panic_in_fetch: false,
            stall_after_draw: false,
            modes: None,
            resumed: false,
            config_path: None,
            store: None,
            user_fetches: Default::default(),
            pending_look: None,
            clipboard: Default::default(),
            board: Default::default(),
        }
    }

    /// Asks for what the first screen needs (its first page) at once, before the terminal is
    /// set up, the store opened and the first frame drawn: the page's connection (TCP, then
    /// TLS) is being opened while that local work is done, not after it. `size` is the
    /// terminal's size as read before raw mode; [`Runtime::run`] reads it again. True means
    /// quit (never, at start).
    pub fn start(&mut self, app: &mut App, size: (u16, u16)) -> Result<bool, TuiError> {
        // Nothing is written to the terminal before it is set up: the first update asks only
        // for fetches.
        self.handle(app, Msg::Resize(size.0, size.1), &mut io::sink())
    }

    /// Runs until a quit command or the end of `input`. Key and terminal errors end it with
    /// an error; request errors never do (they are shown).
    pub async fn run<B, S>(
        &mut self,
        terminal: &mut Terminal<B>,
        app: &mut App,
        mut input: S,
        out: &mut (dyn Write + Send),
    ) -> Result<(), TuiError>
    where
        B: Backend,
        S: Stream<Item = io::Result<Event>> + Unpin,
    {
        let size = terminal.size().map_err(|e| TuiError::Draw(e.to_string()))?;
        if self.handle(app, Msg::Resize(size.width, size.height), out)? {
            return Ok(());
        }
        let mut ticker = tokio::time::interval(self.tick);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        // Input (and the first frame) is drawn at once; answers at most every ANSWER_FRAME.
        let mut urgent = true;
        let mut last_draw = Instant::now();
        loop {
            if std::mem::take(&mut self.resumed) {
                // Back from Ctrl-Z: the screen is not ours any more, and may have a new size.
                // `resize` clears it and forgets the last frame, so the next one is drawn
                // whole (`clear` would ask the terminal for the cursor position first).
                let size = terminal.size().map_err(|e| TuiError::Draw(e.to_string()))?;
                terminal
                    .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
                    .map_err(|e| TuiError::Draw(e.to_string()))?;
                self.frames.forget();
                if self.handle(app, Msg::Resize(size.width, size.height), out)? {
                    return Ok(());
                }
            }
            if app.dirty && (urgent || last_draw.elapsed() >= ANSWER_FRAME) {
                self.draw(terminal, app)?;
                last_draw = Instant::now();
                urgent = false;
            }
            let frame_due = last_draw + ANSWER_FRAME;
            let msg = tokio::select! {
                biased;
                ev = input.next() => match ev {
                    None => None,
                    Some(Err(e)) => return Err(TuiError::Io(e)),
                    Some(Ok(e)) => match event_msg(e) {
                        Some(m) => {
                            urgent = true;
                            Some(m)
                        }
                        None => continue,
                    },
                },
                Some(m) = self.rx.recv() => Some(m),
                _ = ticker.tick() => Some(Msg::Tick(jiff::Timestamp::now())),
                _ = tokio::time::sleep_until(frame_due), if app.dirty => continue,
            };
            let Some(msg) = msg else {
                // The end of input: what the last messages changed is drawn before leaving.
                if app.dirty {
                    self.draw(terminal, app)?;
                }
                return Ok(());
            };
            if self.handle(app, msg, out)? {
                return Ok(());
            }
            // Keys already waiting (a held key repeating faster than frames are drawn) are
            // applied before the next frame: a burst costs one frame, never a queue of them.
            if urgent {
                for _ in 0..MAX_KEYS_A_FRAME {
                    let Some(ev) = input.next().now_or_never() else {
                        break;
                    };
                    match ev {
                        None => {
                            if app.dirty {
                                self.draw(terminal, app)?;
                            }
                            return Ok(());
                        }
                        Some(Err(e)) => return Err(TuiError::Io(e)),
                        Some(Ok(e)) => {
                            if let Some(m) = event_msg(e)
                                && self.handle(app, m, out)?
                            {
                                return Ok(());
                            }
                        }
                    }
                }
            }
            // Apply the answers already waiting before drawing: one frame per burst. For at
            // most ANSWERS_A_TURN: an `L` walk's pages (asked for ahead) can arrive as fast as
            // they are applied, and keys and frames must still have their turn.
            let until = std::time::Instant::now() + ANSWERS_A_TURN;
            while let Ok(m) = self.rx.try_recv() {
                if self.handle(app, m, out)? {
                    return Ok(());
                }
                if std::time::Instant::now() >= until {
                    break;
                }
            }
        }
    }

    /// Test only: a sender of answers into the loop, as its tasks have.
    #[cfg(feature = "testing")]
    pub fn sender(&self) -> mpsc::UnboundedSender<Msg> {
        self.tx.clone()
    }

    /// Test only: the user's fetches in flight (the visitor sync waits while there are any).
    #[cfg(feature = "testing")]
    pub fn user_fetches_in_flight(&self) -> usize {
        self.user_fetches.in_flight()
    }

    /// Aborts every task in flight.
    pub fn shutdown(&mut self) {
        for w in lock(&self.walks).values_mut() {
            w.cancel_ahead();
        }
        for (_, t) in self.tasks.drain() {
            t.abort();
        }
        for (_, t) in self.parts.drain() {
            t.abort();
        }
        self.board.stop();
    }

    fn draw<B: Backend>(
        &mut self,
        terminal: &mut Terminal<B>,
        app: &mut App,
    ) -> Result<(), TuiError> {
        if self.panic_on_draw {
            panic!("CONVO_TEST_PANIC is set: panicking on the first draw (test only)");
        }
        self.frames
            .draw(terminal, |f| view::draw(app, f), app)
            .map_err(|e| TuiError::Draw(e.to_string()))?;
        app.dirty = false;
        if self.stall_after_draw {
            tracing::warn!("CONVO_TEST_PANIC=stall: the loop stops answering (test only)");
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        Ok(())
    }

    /// Updates the app with one message and carries out its commands; true means quit.
    fn handle(
        &mut self,
        app: &mut App,
        msg: Msg,
        out: &mut (dyn Write + Send),
    ) -> Result<bool, TuiError> {
        // A profile's client and store are installed only if the app took that very answer
        // (not refused, not an older switch); its walks start in the same update, and their
        // fetches below use the new client.
        let switch = match &msg {
            Msg::ProfileLoaded { id, result: Ok(sw) } => {
                Some((*id, sw.client.clone(), sw.config.clone()))
            }
            _ => None,
        };
        let cmds = update(app, msg);
        self.settle_walks(app);
        if let Some((id, client, config)) = switch
            && app.profiles.accepted == Some(id)
        {
            if let Some(client) = client {
                self.client = client;
            }
            if let Some(cfg) = config {
                // The old profile's store and its sync go with it (dropping the link stops
                // the sync).
                self.store = None;
                self.start_store(
                    &cfg,
                    false,
                    super::tab::marks::look_key_of(&app.conversations),
                );
            }
        }
        for cmd in cmds {
            match cmd {
                Command::Quit => {
                    self.keep_look(app);
                    return Ok(true);
                }
                Command::ReadView {
                    generation,
                    index,
                    view,
                    pages,
                } => self.board.start(
                    &self.client,
                    &self.user_fetches,
                    &self.tx,
                    (generation, index),
                    view,
                    pages,
                    super::board::read::Setting::of(app),
                ),
                Command::Suspend => {
                    let suspended = match &mut self.modes {
                        Some(modes) => modes.suspend()?,
                        None => true,
                    };
                    if suspended {
                        self.resumed = true;
                    } else {
                        // An answer to the key, not an error to keep: it goes as a notice does.
                        let text = "cannot suspend: no shell with job control started convo \
                                    (setsid, ssh host convo); q quits"
                            .to_string();
                        if self.handle(app, Msg::Notice { text, error: false }, out)? {
                            return Ok(true);
                        }
                    }
                }
                Command::SetMouse(on) => {
                    if let Some(modes) = &mut self.modes {
                        modes.set_mouse(on)?;
                    }
                }
                Command::Cancel { tab } => {
                    if let Some(w) = lock(&self.walks).get_mut(&tab) {
                        w.cancel_ahead();
                    }
                    for head in [false, true] {
                        if let Some(t) = self.tasks.remove(&(tab, head)) {
                            t.abort();
                        }
                    }
                    self.parts.retain(|(t, _, _), task| {
                        if *t == tab {
                            task.abort();
                        }
                        *t != tab
                    });
                }
                Command::Fetch {
                    tab,
                    generation,
                    cursor,
                    query,
                    limit,
                } => {
                    // Only `L` and a reload read behind the rows on screen ask ahead: their next page
                    // is wanted whatever the page brings.
                    let room = with_tab!(ref app, tab, |t| ahead_room(
                        t.wants_whole(generation),
                        t.asks_ahead(generation)
                    ));
                    self.spawn(tab, generation, cursor, query, limit, false, room, false)
                }
                Command::FetchHead {
                    tab,
                    generation,
                    query,
                    limit,
                    cursor,
                } => {
                    // The refresh of a tab not shown is background work: it spends only its
                    // share of the request budget (decisions.md "Errors").
                    let hidden = tab != app.active;
                    self.spawn(tab, generation, cursor, query, limit, true, 0, hidden)
                }
                Command::FetchPart {
                    tab,
                    generation,
                    stream,
                    head,
                    cursor,
                    query,
                    limit,
                } => {
                    let client = self.client_for(head && tab != app.active);
                    self.spawn_part(
                        client,
                        tab,
                        generation,
                        (stream, head),
                        cursor,
                        query,
                        limit,
                    )
                }
                Command::Notify { more } => {
                    out.write_all(super::notify::notification(more).as_bytes())?;
                    out.flush()?;
                }
                Command::NotifyImminent { count } => {
                    out.write_all(super::notify::imminent_notification(count).as_bytes())?;
                    out.flush()?;
                }
                Command::OpenUrl(url) => super::browser::open_url(&url, &self.tx),
                Command::CheckExportPath(path) => {
                    let _ = self.tx.send(super::export::write::check_path(path));
                }
                c @ (Command::Export { .. }
                | Command::ExportRows { .. }
                | Command::ExportEnd { .. }) => self.exports.run(c, &self.tx),
                Command::SwitchProfile { id, name } => super::profiles::load::switch_profile(
                    self.config_path.clone(),
                    id,
                    name,
                    &self.tx,
                ),
                Command::ResolveEmail {
                    ticket,
                    email,
                    base,
                } => {
                    let (client, tx) = (self.client.clone(), self.tx.clone());
                    // Not a walk of a tab: a failure is an answer, a panic a task failure.
                    let handle = tokio::runtime::Handle::current();
                    super::tasks::spawn(Task::Lookup { ticket }, &self.tx, async move {
                        // The lookup writes its notes to a `dyn Write` (not Send): it runs on
                        // a blocking thread of its own.
                        let e = email.clone();
                        let result = tokio::task::spawn_blocking(move || {
                            handle.block_on(crate::query::by_email::visitors_by_email(
                                &client,
                                &e,
                                None,
                                &mut std::io::sink(),
                            ))
                        })
                        .await
                        .map_err(|e| e.to_string())
                        .and_then(|r| r.map_err(|e| e.to_string()));
                        let _ = tx.send(Msg::EmailResolved {
                            ticket,
                            email,
                            base,
                            result,
                        });
                    });
                }
                Command::ResolveQueryEmails {
                    ticket,
                    query,
                    resolved,
                    emails,
                } => {
                    let (client, tx) = (self.client.clone(), self.tx.clone());
                    let handle = tokio::runtime::Handle::current();
                    super::tasks::spawn(Task::Lookup { ticket }, &self.tx, async move {
                        // As `ResolveEmail`: the lookup writes its notes to a `dyn Write`.
                        let result = tokio::task::spawn_blocking(move || {
                            let mut found = crate::query::plan::Emails::new();
                            for e in emails {
                                let ids =
                                    handle.block_on(crate::query::by_email::visitors_by_email(
                                        &client,
                                        &e,
                                        None,
                                        &mut std::io::sink(),
                                    ))?;
                                found.insert(e, ids);
                            }
                            Ok::<_, crate::exit::ListError>(found)
                        })
                        .await
                        .map_err(|e| e.to_string())
                        .and_then(|r| r.map_err(|e| e.to_string()));
                        let _ = tx.send(Msg::QueryEmails {
                            ticket,
                            query,
                            resolved,
                            result,
                        });
                    });
                }
                Command::LookupVisitors(ids) => match &self.store {
                    Some(s) => s.visitors(ids, &self.tx),
                    None => {
                        let _ = self.tx.send(Msg::StoreVisitors {
                            asked: ids,
                            known: Vec::new(),
                            store: false,
                        });
                    }
                },
                Command::LoadVisitor(id) => {
                    if let Some(s) = &self.store {
                        s.attributes(id, &self.tx);
                    }
                }
                Command::KeepLook { key, rows } => {
                    if let Some(s) = &self.store {
                        let now = jiff::Timestamp::now().as_second();
                        s.task.submit(move |st| st.save_look(&key, &rows, now));
                    }
                }
                Command::Samples { key, sample } => {
                    if let Some(s) = &self.store {
                        s.samples(key, sample, &self.tx);
                    }
                }
                Command::SaveView {
                    path,
                    profile,
                    view,
                    replace,
                } => {
                    // File I/O off the loop (a slow or network home directory).
                    let tx = self.tx.clone();
                    tokio::task::spawn_blocking(move || {
                        let result = crate::config::save_view::save(
                            &path,
                            &view,
                            profile.as_deref(),
                            replace,
                        );
                        let _ = tx.send(Msg::ViewSaved { view, result });
                    });
                }
                Command::LoadQueryLine { tab } => {
                    if let Some(s) = &self.store {
                        s.query_line(tab, &self.tx);
                    }
                }
                Command::KeepQuery { tab, text } => {
                    if let Some(s) = &self.store {
                        let now = jiff::Timestamp::now().as_second();
                        s.task.submit(move |st| st.record_query(tab, &text, now));
                    }
                }
                Command::KeepVisitors(rows) => {
                    if let Some(s) = &self.store {
                        s.keep(rows.0, &self.tx);
                    }
                }
                Command::LoadNames(ids) => {
                    super::visitor_sync::load_names(&self.store, ids, &self.tx)
                }
                Command::CopyToClipboard(text) => match self.clipboard.tool.clone() {
                    Some(tool) => {
                        // A program may take its time: on a thread of its own.
                        let tx = self.tx.clone();
                        std::thread::spawn(move || {
                            let how = match super::clipboard::run(&tool, &text) {
                                Ok(()) => super::clipboard::Copied::Tool(tool.name),
                                Err(why) => super::clipboard::Copied::ToolFailed(tool.name, why),
                            };
                            let _ = tx.send(Msg::Copied { text, how });
                        });
                    }
                    None => {
                        out.write_all(super::clipboard::osc52(&text).as_bytes())?;
                        out.flush()?;
                        let how = super::clipboard::Copied::Terminal {
                            tmux: self.clipboard.tmux,
                        };
                        let _ = self.tx.send(Msg::Copied { text, how });
                    }
                },
                Command::CopyByTerminal(text) => {
                    out.write_all(super::clipboard::osc52(&text).as_bytes())?;
                    out.flush()?;
                }
            }
        }
        Ok(false)
    }

    /// Keeps what the Conversations view has loaded (first 5,000 rows) for "since you last
    /// looked"; [`Runtime::store_done`] waits for it.
    fn keep_look(&mut self, app: &App) {
        let Some(s) = &self.store else { return };
        let Some(Command::KeepLook { key, rows }) = super::update::leaving_look(app) else {
            return;
        };
        let now = jiff::Timestamp::now().as_second();
        self.pending_look = Some(s.task.run(move |st| st.save_look(&key, &rows, now)));
    }

    /// Waits (at most a second) for the last look to be written.
    pub async fn store_done(&mut self) {
        if let Some(rx) = self.pending_look.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), rx).await;
        }
    }

    /// Opens the local store (on its own thread) and starts the visitor sync, as the config
    /// says; names then arrive as messages.
    pub fn start_store(&mut self, cfg: &crate::config::Config, demo: bool, look_key: String) {
        self.store = super::visitor_sync::StoreLink::start(
            cfg,
            demo,
            look_key,
            self.client.clone(),
            self.tx.clone(),
            self.user_fetches.clone(),
        );
    }

    /// The client for a fetch: a background one ([`Client::background`]) for work the user
    /// did not ask for now.
    fn client_for(&self, background: bool) -> Client {
        if background {
            self.client.background()
        } else {
            self.client.clone()
        }
    }

    /// The e-mail filter of several visitors: each one's conversations walked whole and merged
    /// newest first, answered as one last page (a refresh: as the head).
    #[allow(clippy::too_many_arguments)]
    fn spawn_merged(
        &mut self,
        client: Client,
        tab: Resource,
        generation: u64,
        base: crate::api::ConversationFilter,
        visitors: Vec<uuid::Uuid>,
        limit: Limit,
        head: bool,
    ) {
        let tx = self.tx.clone();
        let id = if head {
            Task::Head { tab, generation }
        } else {
            Task::Page { tab, generation }
        };
        let busy = self.user_fetches.begin();
        let handle = tokio::runtime::Handle::current();
        let task = super::tasks::spawn(id, &self.tx, async move {
            let _busy = busy;
            // The walks report through a `dyn Write` (not Send): on a blocking thread.
            let result = tokio::task::spawn_blocking(move || {
                handle.block_on(crate::query::by_email::merged_conversations(
                    &client, &base, &visitors, limit,
                ))
            })
            .await
            .unwrap_or_else(|e| Err(crate::exit::ListError::Usage(e.to_string())));
            let result = match result {
                Ok((items, bad)) => Ok(Loaded::Conversations(crate::api::Page {
                    items,
                    has_more: false,
                    next_cursor: None,
                    bad_rows: (0..bad)
                        .map(|index| crate::api::BadRow {
                            index,
                            id: None,
                            reason: "a row of one visitor's conversations could not be read".into(),
                        })
                        .collect(),
                })),
                Err(crate::exit::ListError::Api(e)) => Err(e),
                Err(e) => Err(ApiError::Decode {
                    detail: e.to_string(),
                }),
            };
            let msg = if head {
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
            };
            let _ = tx.send(msg);
        });
        if let Some(old) = self.tasks.insert((tab, head), task) {
            old.abort();
        }
    }

    /// Starts the fetch of one page of one stream of a union tab's walk, through the shared
    /// client (its `max_parallel` and 429 pacing hold for every stream). A newer fetch of the
    /// same stream aborts an older one.
    #[allow(clippy::too_many_arguments)]
    fn spawn_part(
        &mut self,
        client: Client,
        tab: Resource,
        generation: u64,
        (stream, head): (usize, bool),
        cursor: Option<String>,
        query: Query,
        limit: Limit,
    ) {
        let tx = self.tx.clone();
        let busy = self.user_fetches.begin();
        let id = Task::Part {
            tab,
            generation,
            stream,
            head,
        };
        let task = super::tasks::spawn(id, &self.tx, async move {
            let _busy = busy;
            let on_retry = retry_notices(&tx, tab, generation, head, cursor.as_deref());
            let body = fetch_body(&client, &query, limit, cursor.as_deref(), &on_retry).await;
            let result = body.and_then(|b| match &query {
                Query::Conversations(_) => client
                    .decode_page::<Conversation>(&b)
                    .map(Loaded::Conversations),
                Query::Visitors(_) => client.decode_page::<Visitor>(&b).map(Loaded::Visitors),
            });
            if let Err(e) = &result {
                tracing::warn!(?tab, stream, "fetch of a stream failed: {e}");
            }
            let _ = tx.send(Msg::PartLoaded {
                tab,
                generation,
                stream,
                head,
                result,
            });
        });
        if let Some(old) = self.parts.insert((tab, stream, head), task) {
            old.abort();
        }
    }

    /// Starts the fetch of one page. For a walk's page (`head` false), a page this tab's walk
    /// already asked for ahead at the same cursor is used (at once when it has arrived); a
    /// walk with `room` asks for the pages after its own as their cursors arrive (see
    /// [`AHEAD_PAGES`]).
    #[allow(clippy::too_many_arguments)]
    fn spawn(
        &mut self,
        tab: Resource,
        generation: u64,
        cursor: Option<String>,
        query: Query,
        limit: Limit,
        head: bool,
        room: usize,
        background: bool,
    ) {
        let client = self.client_for(background);
        let tx = self.tx.clone();
        if let Query::Conversations(f) = &query
            && let Some(visitors) = f.merged_visitors()
        {
            let visitors = visitors.to_vec();
            return self.spawn_merged(client, tab, generation, f.clone(), visitors, limit, head);
        }
        let asker = Asker {
            walks: self.walks.clone(),
            client: client.clone(),
            query: query.clone(),
            limit,
            tx: tx.clone(),
            tab,
            generation,
            user_fetches: self.user_fetches.clone(),
        };
        if !head {
            let mut all = lock(&self.walks);
            let w = all.entry(tab).or_default();
            if w.generation != generation {
                w.cancel_ahead();
                *w = Walk {
                    generation,
                    ..Walk::default()
                };
            }
            w.room = room;
            if let Some(c) = &cursor {
                w.asked.insert(c.clone());
            }
            if let Some(a) = w.ahead.front_mut() {
                if Some(&a.cursor) == cursor.as_ref() {
                    use tokio::sync::oneshot::error::TryRecvError;
                    match a.page.try_recv() {
                        Ok(result) => {
                            // Already here: applied in this very turn of the loop (it drains
                            // the answers waiting before it draws), no task.
                            w.ahead.pop_front();
                            asker.resume(w);
                            drop(all);
                            if let Some(old) = self.tasks.remove(&(tab, false)) {
                                old.abort();
                            }
                            let _ = self.tx.send(Msg::PageLoaded {
                                tab,
                                generation,
                                result,
                            });
                            return;
                        }
                        Err(TryRecvError::Empty) => {
                            // On its way: its task sends it as soon as it is decoded.
                            w.wanted = cursor;
                            drop(all);
                            if let Some(old) = self.tasks.remove(&(tab, false)) {
                                old.abort();
                            }
                            return;
                        }
                        // Its task ended without it (it panicked): asked for again below.
                        Err(TryRecvError::Closed) => {
                            w.ahead.pop_front();
                        }
                    }
                } else {
                    // Another cursor (a retry after an error, a walk cut short): what was
                    // asked for ahead is not wanted.
                    w.cancel_ahead();
                    w.room = room;
                }
            }
        }
        let panic_now = std::mem::take(&mut self.panic_in_fetch);
        let id = if head {
            Task::Head { tab, generation }
        } else {
            Task::Page { tab, generation }
        };
        // The visitor sync waits while this fetch is in flight (dropped with the task).
        let busy = self.user_fetches.begin();
        let task = super::tasks::spawn(id, &self.tx, async move {
            let _busy = busy;
            if panic_now {
                panic!("CONVO_TEST_PANIC=fetch: this fetch task panics (test only)");
            }
            let on_retry = retry_notices(&tx, tab, generation, head, cursor.as_deref());
            let body = fetch_body(&client, &query, limit, cursor.as_deref(), &on_retry).await;
            if !head
                && let Ok(b) = &body
                && asker.go_on(b)
            {
                let_it_leave().await;
            }
            let result = decode(&client, &query, body);
            if let Err(e) = &result {
                tracing::warn!(?tab, head, "fetch failed: {e}");
            }
            let msg = if head {
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
            };
            let _ = tx.send(msg);
        });
        if let Some(old) = self.tasks.insert((tab, head), task) {
            old.abort();
        }
    }

    /// After every update: a walk that no longer wants pages ahead (`Esc` stopped `L`, the
    /// walk failed or was replaced) stops asking for them.
    fn settle_walks(&mut self, app: &App) {
        let mut all = lock(&self.walks);
        for (tab, w) in all.iter_mut() {
            if w.room == 0 {
                continue;
            }
            let room = with_tab!(ref app, *tab, |t| ahead_room(
                t.wants_whole(w.generation),
                t.asks_ahead(w.generation)
            ));
            if room < w.room {
                w.room = room;
                if room == 0 {
                    w.paused = None;
                }
            }
        }
    }
}

/// How many pages a walk may ask for ahead: [`AHEAD_PAGES`] when it wants the whole list, one
/// when it wants the next page whatever this one brings, else none.
fn ahead_room(whole: bool, next: bool) -> usize {
    match (whole, next) {
        (true, _) => AHEAD_PAGES,
        (false, true) => 1,
        (false, false) => 0,
    }
}

/// Lets a request just asked for ahead reach the socket before its walk turns to decoding (work
/// that does not yield): a task spawned from a worker waits in that worker's LIFO slot, which
/// no other worker steals, until the spawning task yields (as `convo list` does).
async fn let_it_leave() {
    for _ in 0..4 {
        tokio::task::yield_now().await;
    }
}

/// A page's body decoded as the rows `query` asks for.
fn decode(
    client: &Client,
    query: &Query,
    body: Result<Vec<u8>, ApiError>,
) -> Result<Loaded, ApiError> {
    body.and_then(|b| match query {
        Query::Conversations(_) => client
            .decode_page::<Conversation>(&b)
            .map(Loaded::Conversations),
        Query::Visitors(_) => client.decode_page::<Visitor>(&b).map(Loaded::Visitors),
    })
}

fn lock(walks: &Walks) -> std::sync::MutexGuard<'_, HashMap<Resource, Walk>> {
    walks.lock().unwrap_or_else(|p| p.into_inner())
}

/// Retry notices of a walk's fetch become messages (a refresh retries quietly).
fn retry_notices(
    tx: &mpsc::UnboundedSender<Msg>,
    tab: Resource,
    generation: u64,
    head: bool,
    cursor: Option<&str>,
) -> impl Fn(RetryNotice) + Send + Sync + 'static {
    let tx = tx.clone();
    let cursor = cursor.map(str::to_string);
    move |notice: RetryNotice| {
        if !head {
            let _ = tx.send(Msg::Retrying {
                tab,
                generation,
                cursor: cursor.clone(),
                notice,
            });
        }
    }
}

/// The body of one page of `query`, with retries.
async fn fetch_body(
    client: &Client,
    query: &Query,
    limit: Limit,
    cursor: Option<&str>,
    on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
) -> Result<Vec<u8>, ApiError> {
    let url = match query {
        Query::Conversations(f) => {
            client.page_url(Resource::Conversations, &f.query_pairs(), limit, cursor)
        }
        Query::Visitors(f) => client.page_url(Resource::Visitors, &f.query_pairs(), limit, cursor),
    };
    client.get_body(url, on_retry).await
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The message for a terminal event; mouse moves and drags are ignored (nothing to redraw).
pub fn event_msg(e: Event) -> Option<Msg> {
    match e {
        Event::Key(k) => Some(Msg::Key(k)),
        Event::Mouse(m) => match m.kind {
            MouseEventKind::Moved | MouseEventKind::Drag(_) => None,
            _ => Some(Msg::Mouse(m)),
        },
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::Paste(text) => Some(Msg::Paste(text)),
        _ => None,
    }
}
