//! The real terminal's modes: raw mode, the alternate screen, the hidden cursor, bracketed
//! paste and (only with
//! `mouse = true`) mouse capture. Entered once by [`TerminalGuard::enter`] and restored on
//! every way out: quit, error, a panic (the hook below), SIGTERM, SIGHUP and SIGQUIT
//! ([`StopSignals`]). Ctrl-Z leaves them for a while ([`Modes::suspend`]).
//!
//! In raw mode the terminal sends Ctrl-Z as a key, not as SIGTSTP (ISIG is off), so suspending
//! is ours to do: restore the terminal, stop ourselves with SIGTSTP, and when the shell's `fg`
//! sends SIGCONT, enter the modes again; the runtime then redraws everything.

use std::io;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen};
use crossterm::{cursor, execute, terminal};

/// True while the terminal is in raw mode / alternate screen (so restore runs once).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// True while mouse capture is on (so it is turned off only when it was turned on).
static MOUSE: AtomicBool = AtomicBool::new(false);

/// Leaves raw mode, mouse capture (if on) and the alternate screen, and shows the cursor.
/// Safe to call from anywhere, any number of times; errors are ignored (after a hang-up
/// there is no terminal left to restore).
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = terminal::disable_raw_mode();
        let mut out = io::stdout();
        if MOUSE.swap(false, Ordering::SeqCst) {
            let _ = execute!(out, DisableMouseCapture);
        }
        // A frame cut short (a panic while drawing) must not leave the terminal holding its
        // output.
        let _ = execute!(
            out,
            terminal::EndSynchronizedUpdate,
            DisableBracketedPaste,
            LeaveAlternateScreen,
            cursor::Show
        );
    }
}

/// Enters raw mode and the alternate screen, hides the cursor, and captures the mouse if asked.
fn enter(mouse: bool) -> io::Result<()> {
    ACTIVE.store(true, Ordering::SeqCst);
    terminal::enable_raw_mode()?;
    let mut out = io::stdout();
    // Bracketed paste: a paste arrives as one event (one search scan), not as keys.
    execute!(
        out,
        EnterAlternateScreen,
        cursor::Hide,
        EnableBracketedPaste
    )?;
    if mouse {
        MOUSE.store(true, Ordering::SeqCst);
        execute!(out, EnableMouseCapture)?;
    }
    Ok(())
}

/// The panic hook, installed once. A panic inside a background task of the runtime (see
/// [`super::tasks`]) is only logged here: the task turns it into a message on screen and the
/// program goes on. Any other panic restores the terminal, prints the usual message on the
/// normal screen, and ends the program (a panic off the main thread would otherwise leave
/// convo running with the terminal restored underneath it). Installed before the first fetch
/// task is spawned (which is before the terminal is entered).
pub fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if super::tasks::in_task() {
                tracing::error!("a background task panicked (shown on screen): {info}");
                return;
            }
            tracing::error!("panic: {info}");
            restore();
            prev(info);
            if std::thread::current().name() != Some("main") {
                std::process::exit(101);
            }
        }));
    });
}

/// Restores the terminal when dropped (quit, error, early return).
pub struct TerminalGuard(());

impl TerminalGuard {
    /// Installs the panic hook, then enters the modes (`mouse`: capture the mouse).
    pub fn enter(mouse: bool) -> io::Result<TerminalGuard> {
        install_panic_hook();
        let guard = TerminalGuard(());
        enter(mouse)?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// What the runtime asks of the terminal besides drawing. The real one is [`Crossterm`];
/// tests on a `TestBackend` pass their own (or none: then these commands do nothing).
pub trait Modes: Send {
    /// Restores the terminal, stops the process (job control), and once continued enters the
    /// modes again. Returns after the resume (`true`; the caller redraws everything), or at once
    /// with `false` when there is no shell to return to (nothing was touched).
    fn suspend(&mut self) -> io::Result<bool>;
    /// Turns mouse capture on or off (a profile switch may change `mouse`).
    fn set_mouse(&mut self, on: bool) -> io::Result<()>;
    /// A user's command with `output = "terminal"`: restores the terminal and lets go of it
    /// (the key reader too), runs the processes in the foreground one after the other, then
    /// enters the modes again (the caller redraws everything). `None` when there is no
    /// terminal to hand over (a test's backend): the caller runs them as `none`.
    fn run_in_terminal(
        &mut self,
        _invocations: &[convo_config::commands::Invocation],
    ) -> io::Result<Option<super::commands::RunReport>> {
        Ok(None)
    }
}

/// The terminal convo runs in (stdout), and its key stream, let go of while a program of
/// the user's has the terminal.
pub struct Crossterm {
    pub keys: Option<super::input::Handover<crossterm::event::EventStream>>,
}

impl Modes for Crossterm {
    fn run_in_terminal(
        &mut self,
        invocations: &[convo_config::commands::Invocation],
    ) -> io::Result<Option<super::commands::RunReport>> {
        let mouse = MOUSE.load(Ordering::SeqCst);
        // The key reader first: while it waits it reads the terminal, and would take the
        // program's keys.
        if let Some(k) = &self.keys {
            k.release();
        }
        restore();
        let report = super::commands::run::run_foreground(invocations);
        enter(mouse)?;
        if let Some(k) = &self.keys {
            k.give_back(crossterm::event::EventStream::new());
        }
        Ok(Some(report))
    }

    fn suspend(&mut self) -> io::Result<bool> {
        if !job_control() {
            return Ok(false);
        }
        let mouse = MOUSE.load(Ordering::SeqCst);
        restore();
        // Stops every thread here until SIGCONT. Without job control (an orphaned process
        // group, e.g. started by `setsid`) the kernel drops the signal and this returns at once.
        #[cfg(unix)]
        signal_hook::low_level::raise(signal_hook::consts::signal::SIGTSTP)?;
        enter(mouse)?;
        Ok(true)
    }

    fn set_mouse(&mut self, on: bool) -> io::Result<()> {
        if MOUSE.swap(on, Ordering::SeqCst) == on {
            return Ok(());
        }
        if on {
            execute!(io::stdout(), EnableMouseCapture)
        } else {
            execute!(io::stdout(), DisableMouseCapture)
        }
    }
}

/// Whether a stop would return to a shell. A session leader (started by `setsid`, or as the
/// command of `ssh host convo`) is alone in an orphaned process group: the kernel drops SIGTSTP
/// there, so Ctrl-Z would only flash the screen. Read from `/proc/self/stat` (process group and
/// session); where that cannot be read, assume job control.
fn job_control() -> bool {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return true;
    };
    // "pid (comm) state ppid pgrp session ...": the fields after the last ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    match (fields.get(2), fields.get(3)) {
        (Some(pgrp), Some(session)) => pgrp != session,
        _ => true,
    }
}

/// How often [`hung_up`] looks at the terminal.
const HANGUP_CHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether the terminal on stdin has hung up (its other end closed: a closed window, a dropped
/// SSH connection). A poll(2) with no wait: it reads nothing, so no key is taken from the
/// browser. False when it cannot be known.
pub fn is_hung_up() -> bool {
    #[cfg(unix)]
    {
        use rustix::event::{PollFd, PollFlags, poll};
        let zero = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let stdin = io::stdin();
        let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
        poll(&mut fds, Some(&zero)).is_ok() && fds[0].revents().contains(PollFlags::HUP)
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Returns once the terminal on stdin has hung up ([`is_hung_up`], looked at every
/// [`HANGUP_CHECK`]). The kernel sends SIGHUP only to the session's leader: convo started by
/// a shell that ignores SIGHUP or does not pass it on hears nothing, while crossterm's reader
/// spins on the dead terminal.
pub async fn hung_up() {
    let mut every = tokio::time::interval(HANGUP_CHECK);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if is_hung_up() {
            return;
        }
    }
}

/// SIGTERM, SIGHUP and SIGQUIT, caught for as long as the browser runs so that each one
/// restores the terminal before convo exits with 128 + the signal's number.
pub struct StopSignals {
    #[cfg(unix)]
    signals: Vec<(i32, tokio::signal::unix::Signal)>,
}

impl StopSignals {
    /// Starts catching the signals (before the terminal is touched, so there is no moment
    /// when a `kill` would leave it raw).
    pub fn catch() -> io::Result<StopSignals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let kinds = [
                SignalKind::terminate(),
                SignalKind::hangup(),
                SignalKind::quit(),
            ];
            let signals = kinds
                .into_iter()
                .map(|k| Ok((k.as_raw_value(), signal(k)?)))
                .collect::<io::Result<_>>()?;
            Ok(StopSignals { signals })
        }
        #[cfg(not(unix))]
        Ok(StopSignals {})
    }

    /// Waits for one of the signals and returns its number.
    pub async fn recv(&mut self) -> i32 {
        #[cfg(unix)]
        {
            let waits = self.signals.iter_mut().map(|(n, s)| {
                let n = *n;
                Box::pin(async move {
                    if s.recv().await.is_none() {
                        // The stream cannot end while we hold it; never take it for a signal.
                        std::future::pending::<()>().await;
                    }
                    n
                })
            });
            futures::future::select_all(waits).await.0
        }
        #[cfg(not(unix))]
        std::future::pending().await
    }
}
