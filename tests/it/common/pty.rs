//! The real binary in a pseudo-terminal: the screen as `vt100` reads it, the raw bytes, keys,
//! the terminal's modes, and the exit status.
//!
//! `Pty::spawn(args, env, cols, rows)` runs `convo ARGS` with only PATH, TERM and `env`;
//! `Pty::run(command(home), cols, rows)` runs a command built on [`command`]'s clean
//! environment (HOME, XDG dirs and the log under `home`), for tests that need more.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::termios::LocalFlags;
use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

/// How long the waits without their own limit wait.
pub const WAIT: Duration = Duration::from_secs(20);

/// The output so far: the terminal it draws and the bytes themselves.
struct Output {
    parser: vt100::Parser,
    raw: Vec<u8>,
}

pub struct Pty {
    output: Arc<Mutex<Output>>,
    /// Set by the reader thread at the end of output.
    eof: Arc<AtomicBool>,
    /// Set, the reader thread lets go of its copy of the master after its next read.
    stop: Arc<AtomicBool>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    /// Kept open for the whole run: dropping it hangs up the child.
    master: Box<dyn MasterPty + Send>,
    /// The pty's local modes before the child started.
    initial: LocalFlags,
    /// A directory that lives as long as the run (see [`Pty::owning`]).
    home: Option<tempfile::TempDir>,
    cols: u16,
    rows: u16,
}

/// `convo` with a clean environment: PATH, TERM, HOME = `home`, XDG_CONFIG_HOME and
/// XDG_DATA_HOME below it, CONVO_LOG_FILE = `home/convo.log`; it runs in `home`.
pub fn command(home: &Path) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_convo"));
    clean_env(&mut cmd, home);
    cmd
}

/// [`command`]'s environment for any program (a shell that starts convo, say).
pub fn clean_env(cmd: &mut CommandBuilder, home: &Path) {
    cmd.env_clear();
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", home);
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    cmd.env("XDG_DATA_HOME", home.join("data"));
    cmd.env("CONVO_LOG_FILE", home.join("convo.log"));
    cmd.cwd(home);
}

impl Pty {
    /// Runs `convo ARGS` in a `cols` x `rows` terminal with only PATH, TERM and `env`.
    pub fn spawn(args: &[&str], env: &[(&str, &str)], cols: u16, rows: u16) -> Pty {
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_convo"));
        cmd.env_clear();
        cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        cmd.env("TERM", "xterm-256color");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.args(args);
        Pty::run(cmd, cols, rows)
    }

    /// Runs `cmd` in a new `cols` x `rows` terminal.
    pub fn run(cmd: CommandBuilder, cols: u16, rows: u16) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let initial = pair.master.get_termios().expect("termios").local_flags;
        let child = pair.slave.spawn_command(cmd).expect("spawn");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let nz = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal of some size");
        let output = Arc::new(Mutex::new(Output {
            parser: vt100::Parser::new(nz(rows), nz(cols), 0),
            raw: Vec::new(),
        }));
        let eof = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (feed, eof_set, stopped) = (output.clone(), eof.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            // Bytes of a frame not yet whole: the screen shows frames whole, as a terminal
            // that knows synchronized updates does (a frame is often more than one read).
            let mut pending: Vec<u8> = Vec::new();
            // The read error once the child has exited is the end of output.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                pending.extend_from_slice(&buf[..n]);
                let whole = whole_frames(&pending);
                let mut o = feed.lock().unwrap_or_else(|e| e.into_inner());
                o.parser.process(&pending[..whole]);
                o.raw.extend_from_slice(&buf[..n]);
                drop(o);
                pending.drain(..whole);
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
            }
            let mut o = feed.lock().unwrap_or_else(|e| e.into_inner());
            o.parser.process(&pending);
            drop(o);
            eof_set.store(true, Ordering::SeqCst);
        });
        Pty {
            output,
            eof,
            stop,
            writer,
            child,
            master: pair.master,
            initial,
            home: None,
            cols,
            rows,
        }
    }

    /// Keeps `home` (removed when the run is dropped); [`Pty::log`] reads its `convo.log`.
    pub fn owning(mut self, home: tempfile::TempDir) -> Pty {
        self.home = Some(home);
        self
    }

    /// The log file the run wrote into the home it owns (empty when none).
    pub fn log(&self) -> String {
        self.home
            .as_ref()
            .and_then(|h| std::fs::read_to_string(h.path().join("convo.log")).ok())
            .unwrap_or_default()
    }

    /// The screen now.
    pub fn screen(&self) -> String {
        let o = self.output.lock().unwrap_or_else(|e| e.into_inner());
        o.parser.screen().contents()
    }

    /// Every byte the child wrote so far.
    pub fn raw(&self) -> Vec<u8> {
        let o = self.output.lock().unwrap_or_else(|e| e.into_inner());
        o.raw.clone()
    }

    /// Forgets the bytes read so far (the screen stays): a long run's memory stays bounded.
    pub fn clear_raw(&self) {
        let mut o = self.output.lock().unwrap_or_else(|e| e.into_inner());
        o.raw = Vec::new();
    }

    /// [`Pty::raw`] as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw()).into_owned()
    }

    /// The screen a terminal of this size shows after only `bytes`.
    pub fn screen_of(&self, bytes: &[u8]) -> String {
        let nz = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal of some size");
        let mut p = vt100::Parser::new(nz(self.rows), nz(self.cols), 0);
        p.process(bytes);
        p.screen().contents()
    }

    /// Polls until `done(screen)` holds (at most `within`); the screen then.
    pub fn wait_until(&self, within: Duration, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + within;
        loop {
            let s = self.screen();
            if done(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "not seen in {within:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Waits (at most [`WAIT`]) until the screen holds `what`; the screen then.
    pub fn wait_for(&self, what: &str) -> String {
        self.wait_for_in(what, WAIT)
    }

    /// Waits at most `within` until the screen holds `what`; the screen then.
    pub fn wait_for_in(&self, what: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let s = self.screen();
            if s.contains(what) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "never saw {what:?} in {within:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Waits at most `within` until the screen no longer holds `what`; the screen then.
    pub fn wait_gone(&self, what: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let s = self.screen();
            if !s.contains(what) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "{what:?} still on screen after {within:?}:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Types `keys` (a `&str` or bytes).
    pub fn send(&mut self, keys: impl AsRef<[u8]>) {
        self.writer.write_all(keys.as_ref()).expect("write keys");
        self.writer.flush().expect("flush keys");
    }

    /// Sends `keys` every 300 ms until the screen holds `want` (at most [`WAIT`]).
    pub fn press_until(&mut self, keys: &str, want: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            self.send(keys);
            let step = Instant::now() + Duration::from_millis(300);
            while Instant::now() < step {
                let s = self.screen();
                if s.contains(want) {
                    return s;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            assert!(
                Instant::now() < deadline,
                "never saw {want:?}; screen:\n{}",
                self.screen()
            );
        }
    }

    /// The exit code, waiting at most `within`, once the output is read to its end (at most
    /// 3 s more); `None` (and the child killed) if it did not exit in time.
    pub fn wait_exit(&mut self, within: Duration) -> Option<u32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(st)) = self.child.try_wait() {
                let drained = Instant::now() + Duration::from_secs(3);
                while !self.eof.load(Ordering::SeqCst) && Instant::now() < drained {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return Some(st.exit_code());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        None
    }

    /// The exit code (waiting at most [`WAIT`]); panics with the screen if there is none.
    pub fn exit_code(&mut self) -> u32 {
        match self.wait_exit(WAIT) {
            Some(code) => code,
            None => panic!("the child did not exit; screen:\n{}", self.screen()),
        }
    }

    /// Quits with `q` and asserts that it exits with 0 (waiting at most [`WAIT`]).
    pub fn quit_with_0(&mut self) {
        self.send(b"q");
        assert_eq!(self.exit_code(), 0, "the exit code after q");
    }

    /// Quits with `q` and waits (at most 10 s) for the exit.
    pub fn quit(mut self) {
        self.send(b"q");
        assert!(
            self.wait_exit(Duration::from_secs(10)).is_some(),
            "convo did not quit on q"
        );
    }

    /// Whether the child is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("try_wait").is_none()
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("pid")
    }

    /// The pty's local modes now (ICANON, ECHO, ISIG are off in raw mode).
    pub fn local_flags(&self) -> LocalFlags {
        self.master.get_termios().expect("termios").local_flags
    }

    /// The pty's local modes before the child started.
    pub fn initial_flags(&self) -> LocalFlags {
        self.initial
    }

    /// Closes every copy of the master (a closed window, a dropped SSH connection): the
    /// reader thread lets go of its copy after its next read, which `nudge` (keys that make
    /// convo draw) brings; the child, to wait for.
    pub fn hang_up(mut self, nudge: &[u8]) -> Box<dyn Child + Send + Sync> {
        self.stop.store(true, Ordering::SeqCst);
        self.send(nudge);
        let deadline = Instant::now() + WAIT;
        while !self.eof.load(Ordering::SeqCst) {
            assert!(Instant::now() < deadline, "the reader did not stop");
            std::thread::sleep(Duration::from_millis(10));
        }
        let Pty {
            child,
            master,
            writer,
            ..
        } = self;
        drop(writer);
        drop(master);
        child
    }
}

/// Where a synchronized update (DEC mode 2026) begins and ends.
const BEGIN_FRAME: &[u8] = b"\x1b[?2026h";
const END_FRAME: &[u8] = b"\x1b[?2026l";

/// How many of `bytes` a terminal that knows synchronized updates shows now: everything but
/// a frame begun and not yet ended (and a marker cut between two reads).
fn whole_frames(bytes: &[u8]) -> usize {
    let (mut i, mut shown, mut open) = (0, 0, false);
    while i < bytes.len() {
        if bytes[i..].starts_with(BEGIN_FRAME) {
            open = true;
            i += BEGIN_FRAME.len();
        } else if bytes[i..].starts_with(END_FRAME) {
            open = false;
            i += END_FRAME.len();
            shown = i;
        } else {
            i += 1;
            if !open {
                shown = i;
            }
        }
    }
    if !open {
        // The start of a marker at the very end waits for the rest of it.
        let cut = (1..BEGIN_FRAME.len())
            .rev()
            .find(|&k| bytes.ends_with(&BEGIN_FRAME[..k]) || bytes.ends_with(&END_FRAME[..k]))
            .unwrap_or(0);
        shown = shown.min(bytes.len() - cut);
    }
    shown
}

#[test]
fn a_frame_reaches_the_screen_whole() {
    let f = |s: &[u8]| whole_frames(s);
    assert_eq!(f(b"abc"), 3);
    assert_eq!(f(b"ab\x1b[?2026hcd"), 2, "a frame begun");
    assert_eq!(f(b"ab\x1b[?2026hcd\x1b[?2026lef"), 22);
    assert_eq!(f(b"ab\x1b[?20"), 2, "a marker cut between reads");
    assert_eq!(f(b"ab\x1b[?2026l"), 10);
}
