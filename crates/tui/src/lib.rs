//! The interactive browser (`convo`, `convo --demo`, `convo --view NAME`).
//!
//! Elm architecture (CONTRIBUTING.md, "Where things are"), by concept:
//! - the core: [`app`] (the state: two [`tab::TabState`]s and each feature's own state side by
//!   side), [`msg`] (everything that can happen), [`command`] (the I/O `update` asks for),
//!   [`update`] (`update(&mut App, Msg) -> Vec<Command>`, no I/O; the order of key dispatch),
//!   [`runtime`] (the loop, generic over backend and input), [`view`] (drawing only);
//! - the list: [`tab`] (one tab's walk and selection), [`history`] (Back, one for both tabs),
//!   [`columns`] (each column declared once: name, widths, text, sort key, cell; which and
//!   in what order), [`format`] (display text),
//!   [`layout`] (screen geometry), [`theme`] (colours and `NO_COLOR`);
//! - features, each a file or folder with its state (and an `update` for how keys change it):
//!   [`search`], [`sort`], [`export`] (loaded rows and the whole walk), [`profiles`],
//!   [`marks`] (change marks; `tab::marks` feeds them from a walk), [`notify`],
//!   [`summary_pane`], [`filter_form`], [`query_line`] (`:`), [`browser`] (`o`), [`clipboard`] (`y`, `Y`), [`commands`] (`[[commands]]`, marks, `!`, `Y`, `i`), [`keys`] (the
//!   key map, help, and `[keys]` in [`keys::config`]), [`message`] (the status line's message
//!   and how long it stays true);
//! - what covers the table: [`overlay`]; the one-line prompts: [`prompt`].
//! - the terminal: [`terminal`] (raw mode, alternate screen, mouse; restored on every way out,
//!   signals included; left and taken again on Ctrl-Z), [`tasks`] (background tasks whose
//!   panic becomes a message), [`input`] (the key stream, polled only when it woke the loop).

/// Runs `$body` with `$t` bound to the state of tab `$tab` (either row type): `&mut`, or `&`
/// with `ref`. Defined before the modules so that each of them can use it.
macro_rules! with_tab {
    ($app:expr, $tab:expr, |$t:ident| $body:expr) => {
        match $tab {
            convo_api::Resource::Conversations => {
                let $t = &mut $app.conversations;
                $body
            }
            convo_api::Resource::Visitors => {
                let $t = &mut $app.visitors;
                $body
            }
        }
    };
    (ref $app:expr, $tab:expr, |$t:ident| $body:expr) => {
        match $tab {
            convo_api::Resource::Conversations => {
                let $t = &$app.conversations;
                $body
            }
            convo_api::Resource::Visitors => {
                let $t = &$app.visitors;
                $body
            }
        }
    };
}

pub mod ahead;
pub mod app;
pub mod board;
pub mod browser;
pub mod budget_keeper;
pub mod clipboard;
pub mod columns;
pub mod command;
pub mod commands;
pub mod derived;
pub mod detail;
pub mod detail_pane;
pub mod export;
pub mod filter_form;
pub mod format;
pub mod frames;
pub mod history;
pub mod init;
pub mod input;
pub mod keys;
pub mod layout;
pub mod looks;
pub mod marks;
pub mod message;
pub mod msg;
pub mod names;
pub mod notify;
pub mod overlay;
pub mod profiles;
pub mod prompt;
pub mod query_line;
pub mod refresh_clock;
pub mod resume;
pub mod runtime;
pub mod search;
pub mod session;
pub mod settings;
pub mod sort;
pub mod summary_pane;
pub mod tab;
pub mod tab_query;
pub mod tasks;
pub mod terminal;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod theme;
pub mod update;
pub mod view;
pub mod visitor_sync;
pub mod watch;

use std::io::{self, IsTerminal};

use crossterm::event::EventStream;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use app::{App, AppInit};
use convo_api::Client;
use convo_config::Config;
use runtime::Runtime;
use terminal::{StopSignals, TerminalGuard};

/// How `convo` opens the browser.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// `--view NAME`: open on this saved view.
    pub initial_view: Option<String>,
    /// Show "demo" in the header (`--demo`).
    pub demo: bool,
    /// `--fresh`: start on the unfiltered list, not where the last session quit.
    pub fresh: bool,
}

/// Why the browser could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("no saved view named {name:?}; available views: {}", available.join(", "))]
    UnknownView {
        name: String,
        available: Vec<String>,
    },
    #[error("the interactive browser needs a terminal; in scripts and pipes use `convo list`")]
    NotATerminal,
    /// A `[[views]]` query that does not parse or resolve (the message names the view).
    #[error("{0}")]
    View(String),
    #[error("terminal error: {0}")]
    Io(#[from] io::Error),
    #[error("cannot draw: {0}")]
    Draw(String),
    #[error("config error in {path}: {key}: {message}")]
    Keys {
        path: String,
        key: String,
        message: String,
    },
}

impl TuiError {
    /// The process's exit code for it: 2 for what the user can fix in the command line or the
    /// config (as for `convo list`), 1 for the rest.
    pub fn exit_code(&self) -> u8 {
        match self {
            TuiError::UnknownView { .. } | TuiError::View(_) | TuiError::Keys { .. } => 2,
            TuiError::NotATerminal | TuiError::Io(_) | TuiError::Draw(_) => 1,
        }
    }
}

/// The config's views with their queries applied (`convo_query::query::views`).
pub fn views_of(config: &Config) -> Result<Vec<convo_config::View>, String> {
    let mut views = config.views.clone();
    let names = convo_query::query::resolve::Names {
        agent_id: config.query.agent_id,
        aliases: &config.aliases,
        sla: &config.sla,
    };
    convo_query::query::views::apply(&mut views, &names, config.query.max_streams)?;
    Ok(views)
}

/// Builds the app from the config, resolving `--view` (before the terminal is touched).
pub fn app_from_config(
    config: &Config,
    client: &Client,
    opts: &TuiOptions,
) -> Result<App, TuiError> {
    let keys_error = |e: keys::config::KeysError| {
        // The line of the key, as for the config's own errors (the file is read again: the
        // key map works on parsed values).
        let file = config.path.as_ref().or(config.demo_file.as_ref());
        let line = file
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| convo_config::line_of_key(&t, &e.key, config.profile.as_deref()))
            .map(|n| format!(", line {n}"))
            .unwrap_or_default();
        TuiError::Keys {
            path: file.map_or_else(
                || "(no file)".to_string(),
                |p| format!("{}{line}", p.display()),
            ),
            key: e.key,
            message: e.message,
        }
    };
    let name = config
        .profile
        .clone()
        .unwrap_or_else(|| profiles::TOP_LEVEL.to_string());
    let session = session::Session::of(config, name, client.clone()).map_err(|e| match e {
        session::SessionError::Keys(k) => keys_error(k),
        session::SessionError::Refused(m) => TuiError::View(m),
    })?;
    let mut app = App::new(AppInit {
        page_size: config.page_size,
        views: Vec::new(),
        aliases: config.aliases.clone(),
        refresh_secs: config.refresh_secs,
        endpoint: session.endpoint.clone(),
        demo: opts.demo,
        now: jiff::Timestamp::now(),
        tz: jiff::tz::TimeZone::system(),
        size: (80, 24),
        agent_id: config.query.agent_id,
        no_color: theme::no_color_from_env(),
    });
    app.enter_session(&session);
    if let Some(name) = &opts.initial_view {
        let i = app.view_index(name).ok_or_else(|| TuiError::UnknownView {
            name: convo_text::one_line(name, 80),
            available: app
                .settings()
                .views()
                .iter()
                .map(|v| format!("{:?}", convo_text::one_line(&v.name, 80)))
                .collect(),
        })?;
        app.open_view_initially(i);
        tab_query::place_pending(&mut app);
    }
    Ok(app)
}

/// What the TUI's tables refuse in the config's look-and-habits part (`[columns]`, which `main`
/// refuses for every command, then `[keys]`, which [`app_from_config`] refuses), as
/// `(config key, what is wrong)`; `convo doctor` reports these.
pub fn ui_problems(ui: &convo_config::ui::UiConfig) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = columns::check(&ui.columns)
        .err()
        .into_iter()
        .chain(
            keys::KeyMap::problems(&ui.keys)
                .into_iter()
                .map(|e| (e.key, e.message)),
        )
        .collect();
    // The keys of `[[commands]]`, against the key map `[keys]` makes.
    if let Ok(map) = keys::KeyMap::with_config(&ui.keys)
        && let Err(e) = map.command_keys(&ui.commands)
    {
        out.push((e.key, e.message));
    }
    out
}

/// How long a failed terminal read or write waits for the SIGHUP that usually explains it.
const HANGUP_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// How long the browser loop has to answer a stop signal before the signal's own task restores
/// the terminal and ends convo. The loop polls the terminal's reader on the main thread, and
/// crossterm's reader retries a read that returns end-of-file or EIO without end: when the
/// terminal hangs up while the loop is in there, the loop never comes back (seen in a pty
/// test, about 1 run in 20 on a loaded machine), so the signal cannot wait for it.
const STUCK_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// How the browser ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The user quit.
    Quit,
    /// SIGTERM, SIGHUP or SIGQUIT (its number): the terminal was restored; exit 128 + it.
    Signal(i32),
}

/// Waits for a stop signal (or a terminal that hung up, taken as SIGHUP) on a task of its own
/// (a worker thread, not the main one): passes it
/// on to the browser loop, and if the loop has not taken over the way out within
/// [`STUCK_GRACE`] (it aborts the returned task), restores the terminal and exits with
/// 128 + the signal itself.
fn watch_signals(
    mut signals: StopSignals,
) -> (
    tokio::sync::oneshot::Receiver<i32>,
    tokio::task::JoinHandle<()>,
) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let watchdog = tokio::spawn(async move {
        let n = tokio::select! {
            n = signals.recv() => n,
            () = terminal::hung_up() => {
                tracing::warn!("the terminal hung up (no SIGHUP came): taken as one");
                signal_hook::consts::signal::SIGHUP
            }
        };
        let _ = tx.send(n);
        tokio::time::sleep(STUCK_GRACE).await;
        tracing::warn!(
            signal = n,
            "the browser loop did not answer the signal: terminal restored, exiting"
        );
        terminal::restore();
        std::process::exit(128 + n);
    });
    (rx, watchdog)
}

/// Opens the browser and runs it until the user quits or a signal stops it.
pub async fn run(config: Config, client: Client, opts: TuiOptions) -> Result<Exit, TuiError> {
    let mut app = app_from_config(&config, &client, &opts)?;
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    if !opts.fresh && opts.initial_view.is_none() {
        resume::reopen_from_store(&mut app, &config);
    }
    let mut rt = Runtime::new(client);
    rt.config_path = config.path.clone();
    let keys = input::Handover::new(EventStream::new());
    rt.modes = Some(Box::new(terminal::Crossterm {
        keys: Some(keys.clone()),
    }));
    rt.clipboard = clipboard::Setup::from_env();
    #[cfg(feature = "testing")]
    rt.set_test_fault(convo_query::testing::panic_at());
    if std::env::var_os("CONVO_NO_SCROLL_REGION").is_some_and(|v| !v.is_empty()) {
        rt.frames = frames::Frames::plain();
    }
    // The config, the key and the views have passed their checks: the first page is asked for
    // now, so that its connection's handshakes (a round trip for TCP, one for TLS) overlap
    // the terminal's set-up, the store's opening and the first frame. The panic hook first:
    // a fetch task that panics is an error on screen, never text over it.
    terminal::install_panic_hook();
    rt.start(&mut app, crossterm::terminal::size()?)?;
    #[cfg(feature = "testing")]
    if let Some(wait) = convo_query::testing::slow_start() {
        tokio::time::sleep(wait).await;
    }
    let signals = StopSignals::catch()?;
    let guard = TerminalGuard::enter(config.ui.mouse)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let look = update::place::store_started(&mut app);
    rt.start_store(&config, opts.demo, look);
    let (mut stop, watchdog) = watch_signals(signals);
    let mut out = io::stdout();
    let mut result = tokio::select! {
        r = rt.run(&mut terminal, &mut app, input::Input::new(keys), &mut out) => r.map(|()| Exit::Quit),
        Ok(n) = &mut stop => Ok(Exit::Signal(n)),
    };
    if let Err(e) = &result {
        // The terminal went away (a closed window, a dropped SSH connection): reading or
        // drawing fails just before or after the SIGHUP that says so. Let the signal speak if
        // it comes.
        // A terminal that hung up with no SIGHUP on its way (convo is not the session's
        // leader) ends convo as SIGHUP would.
        tracing::warn!("the browser stopped: {e}");
        if terminal::is_hung_up() {
            tracing::warn!("the terminal hung up: taken as SIGHUP");
            result = Ok(Exit::Signal(signal_hook::consts::signal::SIGHUP));
        } else if let Ok(Ok(n)) = tokio::time::timeout(HANGUP_GRACE, &mut stop).await {
            result = Ok(Exit::Signal(n));
        }
    }
    // The loop is back: the rest of the way out is ours.
    watchdog.abort();
    if let Ok(Exit::Signal(n)) = result {
        tracing::info!(signal = n, "stopped by a signal; terminal restored");
        // A closed window (SIGHUP), `kill` or Ctrl-C's SIGINT from outside: where the browser
        // was is kept as `q` keeps it (the next start reopens it).
        rt.keep_look(&app);
    }
    rt.store_done().await;
    rt.shutdown();
    // Not dropped: ratatui's drop shows the cursor and, if that fails (no terminal any more
    // after a hang-up), prints to stderr, which panics when stderr is gone too. The guard
    // below shows the cursor itself and ignores such errors.
    std::mem::forget(terminal);
    drop(guard);
    result
}
