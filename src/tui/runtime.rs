//! The loop: input, answers from fetch tasks and a timer go through `update`; commands are
//! carried out here (fetch tasks tagged with tab and generation, OSC 52, quit); a frame is
//! drawn only when something changed, after a burst of answers has been applied.
//!
//! Generic over the ratatui backend and the input stream, so tests run this very loop on a
//! `TestBackend` with scripted keys.

use std::collections::HashMap;
use std::io::{self, Write};
use std::time::Duration;

use base64::Engine as _;
use crossterm::event::{Event, MouseEventKind};
use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use super::TuiError;
use super::app::App;
use super::command::{Command, Query};
use super::msg::{Loaded, Msg, Task};
use super::terminal::Modes;
use super::update::update;
use super::view;
use crate::api::{Client, Conversation, Resource, RetryNotice, Visitor};

/// How often the timer ticks: countdowns are in seconds, relative times in minutes.
pub const TICK: Duration = Duration::from_secs(1);

/// Runs commands and the loop. Fetch tasks outlive one call of [`Runtime::run`], so a test
/// can run the loop in phases with the same app.
pub struct Runtime {
    client: Client,
    tx: mpsc::UnboundedSender<Msg>,
    rx: mpsc::UnboundedReceiver<Msg>,
    /// The task in flight per (tab, is-refresh); a newer one aborts the older.
    tasks: HashMap<(Resource, bool), JoinHandle<()>>,
    tick: Duration,
    /// Test only (`CONVO_TEST_PANIC=1`): panic at the first draw so a pty test can check that
    /// the terminal is restored after a panic.
    pub panic_on_draw: bool,
    /// Test only (`CONVO_TEST_PANIC=fetch`): the next fetch task panics (once), so a pty test
    /// can check that a panicking task becomes an error on screen and `r` recovers.
    pub panic_in_fetch: bool,
    /// The terminal's modes for Ctrl-Z and `mouse` (none on a `TestBackend`: then
    /// [`Command::Suspend`] and [`Command::SetMouse`] do nothing but redraw).
    pub modes: Option<Box<dyn Modes>>,
    /// Back from a suspend: the next frame clears the screen and redraws everything.
    resumed: bool,
    /// The config file, read again by a profile switch (`P`).
    pub config_path: Option<std::path::PathBuf>,
    /// The program `o` runs with the URL (default `xdg-open`, `open` on macOS).
    pub opener: String,
    /// The local store and its visitor sync, when on.
    store: Option<super::visitor_sync::StoreLink>,
    /// The user's fetches in flight: the visitor sync waits for them.
    user_fetches: std::sync::Arc<crate::store::sync::UserFetches>,
    /// The last look being written at quit.
    pending_look: Option<tokio::sync::oneshot::Receiver<Result<(), crate::store::StoreError>>>,
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
            tick: TICK,
            panic_on_draw: false,
            panic_in_fetch: false,
            modes: None,
            resumed: false,
            config_path: None,
            opener: if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            },
            store: None,
            user_fetches: Default::default(),
            pending_look: None,
        }
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
        loop {
            if std::mem::take(&mut self.resumed) {
                // Back from Ctrl-Z: the screen is not ours any more, and may have a new size.
                // `resize` clears it and forgets the last frame, so the next one is drawn
                // whole (`clear` would ask the terminal for the cursor position first).
                let size = terminal.size().map_err(|e| TuiError::Draw(e.to_string()))?;
                terminal
                    .resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
                    .map_err(|e| TuiError::Draw(e.to_string()))?;
                if self.handle(app, Msg::Resize(size.width, size.height), out)? {
                    return Ok(());
                }
            }
            if app.dirty {
                self.draw(terminal, app)?;
            }
            let msg = tokio::select! {
                biased;
                Some(m) = self.rx.recv() => m,
                ev = input.next() => match ev {
                    None => return Ok(()),
                    Some(Err(e)) => return Err(TuiError::Io(e)),
                    Some(Ok(e)) => match event_msg(e) {
                        Some(m) => m,
                        None => continue,
                    },
                },
                _ = ticker.tick() => Msg::Tick(jiff::Timestamp::now()),
            };
            if self.handle(app, msg, out)? {
                return Ok(());
            }
            // Apply every answer already waiting before drawing: one frame per burst.
            while let Ok(m) = self.rx.try_recv() {
                if self.handle(app, m, out)? {
                    return Ok(());
                }
            }
        }
    }

    /// Aborts every task in flight.
    pub fn shutdown(&mut self) {
        for (_, t) in self.tasks.drain() {
            t.abort();
        }
    }

    fn draw<B: Backend>(
        &mut self,
        terminal: &mut Terminal<B>,
        app: &mut App,
    ) -> Result<(), TuiError> {
        if self.panic_on_draw {
            panic!("CONVO_TEST_PANIC is set: panicking on the first draw (test only)");
        }
        terminal
            .draw(|f| view::draw(app, f))
            .map_err(|e| TuiError::Draw(e.to_string()))?;
        app.dirty = false;
        Ok(())
    }

    /// Updates the app with one message and carries out its commands; true means quit.
    fn handle(
        &mut self,
        app: &mut App,
        msg: Msg,
        out: &mut (dyn Write + Send),
    ) -> Result<bool, TuiError> {
        if let Msg::ProfileLoaded { result: Ok(sw) } = &msg
            && let Some(client) = &sw.client
        {
            // The new profile's walks start in this very update; their fetches use it.
            self.client = client.clone();
        }
        for cmd in update(app, msg) {
            match cmd {
                Command::Quit => {
                    self.keep_look(app);
                    return Ok(true);
                }
                Command::Suspend => {
                    let suspended = match &mut self.modes {
                        Some(modes) => modes.suspend()?,
                        None => true,
                    };
                    if suspended {
                        self.resumed = true;
                    } else {
                        let text = "cannot suspend: no shell with job control started convo \
                                    (setsid, ssh host convo); q quits"
                            .to_string();
                        if self.handle(app, Msg::Notice { text, error: true }, out)? {
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
                    for head in [false, true] {
                        if let Some(t) = self.tasks.remove(&(tab, head)) {
                            t.abort();
                        }
                    }
                }
                Command::Fetch {
                    tab,
                    generation,
                    cursor,
                    query,
                    limit,
                } => self.spawn(tab, generation, cursor, query, limit, false),
                Command::FetchHead {
                    tab,
                    generation,
                    query,
                    limit,
                } => self.spawn(tab, generation, None, query, limit, true),
                Command::Notify { more } => {
                    out.write_all(super::notify::notification(more).as_bytes())?;
                    out.flush()?;
                }
                Command::OpenUrl(url) => super::browser::open_url(&self.opener, &url, &self.tx),
                Command::Export {
                    path,
                    contents,
                    rows,
                    kind,
                } => super::export::write::export(path, contents, rows, kind, &self.tx),
                Command::SwitchProfile(name) => {
                    super::profiles::load::switch_profile(self.config_path.clone(), name, &self.tx)
                }
                Command::KeepVisitors(rows) => {
                    if let Some(s) = &self.store {
                        s.keep(rows.0, &self.tx);
                    }
                }
                Command::CopyToClipboard(text) => {
                    // OSC 52: only the base64 of the text (a UUID) goes out, so nothing from
                    // data can end the sequence early.
                    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                    write!(out, "\x1b]52;c;{b64}\x07")?;
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
        use super::marks::Watched;
        use crate::api::Row;
        let rows: Vec<crate::store::LookRow> = app
            .conversations
            .rows()
            .iter()
            .take(crate::store::looks::LOOK_CAP)
            .map(|r| crate::store::LookRow {
                id: r.id(),
                watched: r.watch_hash(),
            })
            .collect();
        let key = super::names::look_key(&app.conversations.filter);
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

    fn spawn(
        &mut self,
        tab: Resource,
        generation: u64,
        cursor: Option<String>,
        query: Query,
        limit: crate::api::Limit,
        head: bool,
    ) {
        let client = self.client.clone();
        let tx = self.tx.clone();
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
            let notices = tx.clone();
            let on_retry = move |notice: RetryNotice| {
                if !head {
                    let _ = notices.send(Msg::Retrying {
                        tab,
                        generation,
                        notice,
                    });
                }
            };
            let c = cursor.as_deref();
            let result = match &query {
                Query::Conversations(f) => client
                    .list::<_, Conversation>(f, limit, c, &on_retry)
                    .await
                    .map(Loaded::Conversations),
                Query::Visitors(f) => client
                    .list::<_, Visitor>(f, limit, c, &on_retry)
                    .await
                    .map(Loaded::Visitors),
            };
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
        _ => None,
    }
}
