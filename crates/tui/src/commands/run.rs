//! The runtime's side of a user's command: the processes. Each is exec'd with its argv (no
//! shell), the row's variables added and `CONVO_API_KEY` taken out of what it inherits (the
//! key is convo's secret, not the program's).
//!
//! - `pane` and `none`: on a thread of its own, stdin empty, in a process group of its own
//!   (the terminal's keys never reach it); stdout (pane) and stderr are read, up to a limit,
//!   and the report comes back as `Msg::ProgramDone`.
//! - `terminal`: [`run_foreground`], with the terminal handed over by the runtime's
//!   `Modes::run_in_terminal` (convo's own screen restored first, taken back after).

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};

use tokio::sync::mpsc::UnboundedSender;

use super::{ProgramRun, RunReport};
use crate::msg::Msg;
use convo_config::commands::{Invocation, Output, expand_home};

/// The most of a command's output the pane keeps.
pub const PANE_LIMIT: u64 = 1 << 20;
/// [`PANE_LIMIT`] as the pane says it.
pub const PANE_LIMIT_TEXT: &str = "1 MiB";
/// The most of stderr kept for the message line of a `none` command.
const STDERR_LIMIT: u64 = 64 << 10;

/// The process of one invocation: the program (`~/` expanded, else looked up on PATH by the
/// OS), its arguments one by one, the row's variables; never a shell.
pub fn command_of(inv: &Invocation) -> Command {
    let mut c = Command::new(expand_home(&inv.program));
    c.args(&inv.args)
        .envs(inv.env.iter().map(|(k, v)| (k, v)))
        .env_remove("CONVO_API_KEY");
    c
}

/// How a process ended, when it did not exit 0.
pub fn failure(status: ExitStatus) -> Option<String> {
    if status.success() {
        return None;
    }
    if let Some(code) = status.code() {
        return Some(format!("exit {code}"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Some(format!("killed by signal {sig}"));
        }
    }
    Some(status.to_string())
}

/// Why a process could not start, as the message line says it.
fn cannot_run(inv: &Invocation, e: &std::io::Error) -> String {
    let what = convo_text::one_line(&inv.program, 60);
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("cannot run {what}: not found (convo doctor checks)")
        }
        std::io::ErrorKind::PermissionDenied => format!("cannot run {what}: not executable"),
        _ => format!("cannot run {what}: {e}"),
    }
}

/// Reads `r` to its end on a thread, keeping the first `limit` bytes (the rest is read and
/// dropped, so the program is never blocked on a full pipe); true when some was dropped.
fn read_limited(
    r: Option<impl Read + Send + 'static>,
    limit: u64,
) -> std::thread::JoinHandle<(Vec<u8>, bool)> {
    std::thread::spawn(move || {
        let Some(mut r) = r else {
            return (Vec::new(), false);
        };
        let mut buf = Vec::new();
        let _ = r.by_ref().take(limit).read_to_end(&mut buf);
        let rest = std::io::copy(&mut r, &mut std::io::sink()).unwrap_or(0);
        (buf, rest > 0)
    })
}

/// Runs `run`'s processes one after the other on a thread of its own, reading their output;
/// the report comes back as `Msg::ProgramDone`.
pub fn spawn_captured(run: ProgramRun, tx: &UnboundedSender<Msg>) {
    let tx = tx.clone();
    std::thread::spawn(move || {
        let report = run_captured(&run.invocations, run.output == Output::Pane);
        let _ = tx.send(Msg::ProgramDone {
            id: run.id,
            name: run.name,
            output: run.output,
            report,
        });
    });
}

/// Runs each invocation with stdin empty; with `pane` its stdout and stderr are kept (up to
/// [`PANE_LIMIT`] in all), else stdout is dropped and stderr kept for the message line.
pub fn run_captured(invocations: &[Invocation], pane: bool) -> RunReport {
    let mut report = RunReport {
        runs: 0,
        failures: Vec::new(),
        text: String::new(),
        cut: false,
    };
    for inv in invocations {
        report.runs += 1;
        let mut c = command_of(inv);
        c.stdin(Stdio::null())
            .stdout(if pane { Stdio::piped() } else { Stdio::null() })
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            // Its own process group: the terminal's signals (a Ctrl-C typed after convo
            // quits) are not its.
            use std::os::unix::process::CommandExt;
            c.process_group(0);
        }
        let mut child: Child = match c.spawn() {
            Ok(ch) => ch,
            Err(e) => {
                report.failures.push(cannot_run(inv, &e));
                continue;
            }
        };
        let left = PANE_LIMIT.saturating_sub(report.text.len() as u64);
        let out = read_limited(child.stdout.take(), left);
        let err = read_limited(child.stderr.take(), if pane { left } else { STDERR_LIMIT });
        let status = child.wait();
        let (out, out_cut) = out.join().unwrap_or_default();
        let (err, err_cut) = err.join().unwrap_or_default();
        report.text.push_str(&String::from_utf8_lossy(&out));
        report.text.push_str(&String::from_utf8_lossy(&err));
        report.cut |= pane && (out_cut || err_cut);
        match status {
            Ok(s) => report.failures.extend(failure(s)),
            Err(e) => report.failures.push(format!("lost: {e}")),
        }
    }
    report
}

/// Runs each invocation in the foreground with the terminal (stdin, stdout and stderr
/// inherited), one after the other; the caller has restored the terminal and taken convo's
/// key reader off it. Ctrl-C typed meanwhile goes to the program (convo ignores it).
pub fn run_foreground(invocations: &[Invocation]) -> RunReport {
    ignore_interrupts();
    let mut report = RunReport {
        runs: 0,
        failures: Vec::new(),
        text: String::new(),
        cut: false,
    };
    for inv in invocations {
        report.runs += 1;
        match command_of(inv).status() {
            Ok(s) => report.failures.extend(failure(s)),
            Err(e) => report.failures.push(cannot_run(inv, &e)),
        }
    }
    report
}

/// While a program has the terminal, a Ctrl-C there sends SIGINT to convo too (the same
/// process group): a handler that does nothing keeps convo alive. A handler, not "ignore":
/// an ignored signal would stay ignored in the programs convo starts.
fn ignore_interrupts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(unix)]
        {
            let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGINT, flag) {
                tracing::warn!("cannot catch SIGINT while a command runs: {e}");
            }
        }
    });
}
