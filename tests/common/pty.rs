//! The real binary in a pseudo-terminal: the screen as `vt100` reads it, the raw bytes, keys,
//! and the exit status. (The older TUI tests carry their own copy of this.)

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

pub struct Pty {
    parser: Arc<Mutex<(vt100::Parser, Vec<u8>)>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    _master: Box<dyn MasterPty + Send>,
}

impl Pty {
    /// Runs `convo ARGS` in a `cols` x `rows` terminal with only PATH, TERM and `env`.
    pub fn spawn(args: &[&str], env: &[(&str, &str)], cols: u16, rows: u16) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_convo"));
        cmd.env_clear();
        cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
        cmd.env("TERM", "xterm-256color");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.args(args);
        let child = pair.slave.spawn_command(cmd).expect("spawn convo");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let nz = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal of some size");
        let parser = Arc::new(Mutex::new((
            vt100::Parser::new(nz(rows), nz(cols), 0),
            Vec::new(),
        )));
        let feed = parser.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            // The read error once the child has exited is the end of output.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                let mut p = feed.lock().unwrap_or_else(|e| e.into_inner());
                p.0.process(&buf[..n]);
                p.1.extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            parser,
            writer,
            child,
            _master: pair.master,
        }
    }

    pub fn screen(&self) -> String {
        let p = self.parser.lock().unwrap_or_else(|e| e.into_inner());
        p.0.screen().contents()
    }

    pub fn raw(&self) -> Vec<u8> {
        let p = self.parser.lock().unwrap_or_else(|e| e.into_inner());
        p.1.clone()
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

    pub fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).expect("write keys");
        self.writer.flush().expect("flush keys");
    }

    /// The exit code, waiting at most `within`.
    pub fn wait_exit(&mut self, within: Duration) -> Option<u32> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st.exit_code());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        None
    }
}
