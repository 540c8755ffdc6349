//! The loop: input, answers from fetch tasks and a timer go through `update`; commands are
//! carried out here (fetch tasks tagged with tab and generation, OSC 52, quit); a frame is
//! drawn only when something changed, after a burst of answers has been applied.
//!
//! Generic over the ratatui backend and the input stream, so tests run this very loop on a
//! `TestBackend` with scripted keys.
//!
//! The fetches it starts are in `fetch` (one page's request in `request`); the look-ahead
//! chains the app grants (`L`, `crate::ahead`) in `look_ahead`.

mod fetch;
mod look_ahead;
mod request;

use std::collections::HashMap;
use std::io::{self, Write};
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
use super::command::Command;
use super::frames::Frames;
use super::msg::{Msg, Task};
use super::terminal::Modes;
use super::update::update;
use super::view;
use convo_api::{Client, Resource};
pub use look_ahead::AHEAD_PAGES;

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

/// Test only: a condition of the app that ends [`Runtime::run`] ([`Runtime::stop_when`]).
#[cfg(feature = "testing")]
pub type StopWhen = Box<dyn Fn(&App) -> bool + Send>;

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
    /// Each tab's look-ahead chain: its number and its credit (the grant the app sets, and
    /// its tasks, stopped with it).
    chains: HashMap<Resource, (u64, std::sync::Arc<look_ahead::Credit>)>,
    /// Draws frames, moving the table with a scroll region when it scrolls.
    pub frames: Frames,
    tick: Duration,
    /// Test builds only (the `testing` feature, `CONVO_TEST_PANIC`): where the loop fails on
    /// purpose, so that a pty test can check what the user gets (the terminal restored after a
    /// panic at the first draw; a panicking fetch task shown as an error that `r` recovers
    /// from; a stop signal that still ends a loop stalled after its first frame).
    #[cfg(feature = "testing")]
    test_fault: Option<convo_query::testing::PanicAt>,
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
    user_fetches: std::sync::Arc<convo_store::sync::UserFetches>,
    /// How `y` reaches a clipboard: none in tests (OSC 52), the session's in the app
    /// ([`super::clipboard::Setup::from_env`]).
    pub clipboard: super::clipboard::Setup,
    /// The last look being written at quit.
    pending_look: Option<tokio::sync::oneshot::Receiver<Result<(), convo_store::StoreError>>>,
    /// The board's read in flight.
    board: super::board::read::Reader,
    /// Test only: [`Runtime::run`] returns as soon as this holds of the app (checked after
    /// each message), so a test waits for a state, not for a time.
    #[cfg(feature = "testing")]
    pub stop_when: Option<StopWhen>,
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
            chains: HashMap::new(),
            frames: Frames::default(),
            tick: TICK,
            #[cfg(feature = "testing")]
            test_fault: None,
            modes: None,
            resumed: false,
            config_path: None,
            store: None,
            user_fetches: Default::default(),
            pending_look: None,
            clipboard: Default::default(),
            board: Default::default(),
            #[cfg(feature = "testing")]
            stop_when: None,
        }
    }

    /// Test builds only: makes the loop fail on purpose at `at` (see `test_fault`).
    #[cfg(feature = "testing")]
    pub fn set_test_fault(&mut self, at: Option<convo_query::testing::PanicAt>) {
        self.test_fault = at;
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
        B: Backend + crate::frames::Synchronized,
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
        let mut done = walk_done(app);
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
            if app.is_dirty() && (urgent || last_draw.elapsed() >= ANSWER_FRAME) {
                self.draw(terminal, app)?;
                last_draw = Instant::now();
                urgent = false;
            }
            #[cfg(feature = "testing")]
            if self.stop_when.as_ref().is_some_and(|done| done(app)) {
                if app.is_dirty() {
                    self.draw(terminal, app)?;
                }
                return Ok(());
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
                _ = tokio::time::sleep_until(frame_due), if app.is_dirty() => continue,
            };
            let Some(msg) = msg else {
                // The end of input: what the last messages changed is drawn before leaving.
                if app.is_dirty() {
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
                            if app.is_dirty() {
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
            // The page that ends the shown tab's walk (`all N loaded`) is drawn at once, not
            // up to ANSWER_FRAME later: once a walk, and the moment a user waits for.
            let now_done = walk_done(app);
            if now_done && !done {
                urgent = true;
            }
            done = now_done;
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
        for (_, (_, credit)) in self.chains.drain() {
            credit.stop();
        }
        for (_, t) in self.tasks.drain() {
            t.abort();
        }
        for (_, t) in self.parts.drain() {
            t.abort();
        }
        self.board.stop();
    }

    fn draw<B: Backend + crate::frames::Synchronized>(
        &mut self,
        terminal: &mut Terminal<B>,
        app: &mut App,
    ) -> Result<(), TuiError> {
        #[cfg(feature = "testing")]
        if self.test_fault == Some(convo_query::testing::PanicAt::Draw) {
            panic!("CONVO_TEST_PANIC is set: panicking on the first draw (test only)");
        }
        self.frames
            .draw(terminal, |f| view::draw(app, f), app)
            .map_err(|e| TuiError::Draw(e.to_string()))?;
        app.drawn();
        #[cfg(feature = "testing")]
        if self.test_fault == Some(convo_query::testing::PanicAt::Stall) {
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
        if let Some((id, client, config)) = switch
            && app.profiles().accepted == Some(id)
        {
            if let Some(client) = client {
                self.client = client;
            }
            if let Some(cfg) = config {
                // The old profile's store and its sync go with it (dropping the link stops
                // the sync).
                self.store = None;
                let look = super::update::place::store_started(app);
                self.start_store(&cfg, false, look);
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
                Command::RunProgram(run) => {
                    if run.output == convo_config::commands::Output::Terminal
                        && let Some(modes) = &mut self.modes
                        && let Some(report) = modes.run_in_terminal(&run.invocations)?
                    {
                        // The screen is not ours any more: drawn whole again.
                        self.resumed = true;
                        let msg = Msg::ProgramDone {
                            id: run.id,
                            name: run.name,
                            output: run.output,
                            report,
                        };
                        if self.handle(app, msg, out)? {
                            return Ok(true);
                        }
                    } else {
                        super::commands::run::spawn_captured(*run, &self.tx);
                    }
                }
                Command::SetMouse(on) => {
                    if let Some(modes) = &mut self.modes {
                        modes.set_mouse(on)?;
                    }
                }
                Command::Cancel { tab } => {
                    if let Some((_, credit)) = self.chains.remove(&tab) {
                        credit.stop();
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
                } => self.spawn(tab, generation, cursor, query, limit, false, false),
                Command::Ahead {
                    tab,
                    generation,
                    chain,
                    from,
                    query,
                    limit,
                    pages,
                } => {
                    // A top-up of the chain in flight, or a chain to start.
                    if let Some((_, credit)) = self.chains.get(&tab).filter(|(id, _)| *id == chain)
                    {
                        credit.set(pages);
                        continue;
                    }
                    let credit = std::sync::Arc::new(look_ahead::Credit::default());
                    credit.set(pages);
                    let chain = look_ahead::Chain {
                        client: self.client_for(false),
                        query,
                        limit,
                        tab,
                        generation,
                        chain,
                        credit,
                        tx: self.tx.clone(),
                        user_fetches: self.user_fetches.clone(),
                    };
                    self.spawn_chain(chain, from)
                }
                Command::Grant { tab, chain, pages } => {
                    if let Some((_, credit)) = self.chains.get(&tab).filter(|(id, _)| *id == chain)
                    {
                        credit.set(pages);
                    }
                }
                Command::FetchHead {
                    tab,
                    generation,
                    query,
                    limit,
                    cursor,
                } => {
                    // The refresh of a tab not shown is background work: it spends only its
                    // share of the request budget (docs/design.md "Request budget").
                    let hidden = tab != app.active();
                    self.spawn(tab, generation, cursor, query, limit, true, hidden)
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
                    let client = self.client_for(head && tab != app.active());
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
                Command::ProposeExportPath(asked) => {
                    let free = super::export::write::free_path(&asked);
                    let _ = self.tx.send(Msg::ExportPathProposed { asked, free });
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
                            handle.block_on(convo_query::query::by_email::visitors_by_email(
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
                            let mut found = convo_query::query::plan::Emails::new();
                            for e in emails {
                                let ids = handle.block_on(
                                    convo_query::query::by_email::visitors_by_email(
                                        &client,
                                        &e,
                                        None,
                                        &mut std::io::sink(),
                                    ),
                                )?;
                                found.insert(e, ids);
                            }
                            Ok::<_, convo_query::exit::ListError>(found)
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
                Command::LookUpHeld { id, visitor_id } => {
                    // Background work (the user did not ask for it): its share of the budget.
                    let (client, tx) = (self.client.background(), self.tx.clone());
                    super::tasks::spawn(Task::HeldNow, &self.tx, async move {
                        let filter = convo_api::ConversationFilter {
                            visitor_id: Some(visitor_id),
                            ..Default::default()
                        };
                        let page: Result<convo_api::Page<convo_api::Conversation>, _> = client
                            .list(&filter, convo_api::Limit::MAX, None, &|_| {})
                            .await;
                        let row = page
                            .ok()
                            .and_then(|p| p.items.into_iter().find(|c| c.id == id))
                            .map(Box::new);
                        let _ = tx.send(Msg::HeldNow { id, row });
                    });
                }
                Command::LoadVisitor(id) => {
                    if let Some(s) = &self.store {
                        s.attributes(id, &self.tx);
                    }
                }
                Command::LoadLook(key) => {
                    if let Some(s) = &self.store {
                        let (k, tx) = (key.clone(), self.tx.clone());
                        let rx = s.task.run(move |st| st.look(&k));
                        tokio::spawn(async move {
                            if let Ok(Ok(Some(snap))) = rx.await {
                                let _ = tx.send(Msg::LastLook {
                                    key,
                                    taken_at: snap.taken_at,
                                    rows: snap.rows.iter().map(|r| (r.id, r.watched)).collect(),
                                });
                            }
                        });
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
                        let result = convo_config::save_view::save(
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

    /// Keeps what each tab's view has loaded (first 5,000 rows) for "since you last looked";
    /// [`Runtime::store_done`] waits for it.
    /// Keeps where the browser is too (each tab's view, query and sort, the tab on screen:
    /// reopened at the next start, `super::resume`).
    pub(crate) fn keep_look(&mut self, app: &App) {
        let Some(s) = &self.store else { return };
        let looks: Vec<Command> = [Resource::Conversations, Resource::Visitors]
            .into_iter()
            .filter_map(|tab| super::update::leaving_look(app, tab))
            .collect();
        let place = super::resume::Place::of(app).to_text();
        let now = jiff::Timestamp::now().as_second();
        self.pending_look = Some(s.task.run(move |st| {
            st.save_place(&place, now)?;
            for look in looks {
                if let Command::KeepLook { key, rows } = look {
                    st.save_look(&key, &rows, now)?;
                }
            }
            Ok(())
        }));
    }

    /// Waits (at most a second) for the last look to be written.
    pub async fn store_done(&mut self) {
        if let Some(rx) = self.pending_look.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), rx).await;
        }
    }

    /// Opens the local store (on its own thread) and starts the visitor sync, as the config
    /// says; names then arrive as messages.
    pub fn start_store(&mut self, cfg: &convo_config::Config, demo: bool, look_key: String) {
        self.store = super::visitor_sync::StoreLink::start(
            cfg,
            demo,
            look_key,
            self.client.clone(),
            self.tx.clone(),
            self.user_fetches.clone(),
        );
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Whether the shown tab's walk has reached the end of its list.
fn walk_done(app: &App) -> bool {
    with_tab!(ref app, app.active(), |t| t.walk().is_done())
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
