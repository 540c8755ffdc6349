//! Shared test support, `mod common;` in a test file. Here: a real demo server on a random
//! loopback port (`Demo`), clients for it, the real binary with a clean environment
//! (`convo_cmd`, `convo_std_cmd`), and small helpers (`demo_and_home`, `assert_has`, `file`,
//! `words`, `jsonl_ids`, `parse_csv`, `SmallDisk`).
//! Beside it: `pty` (the binary in a pseudo-terminal), `runtime` (the real loop on a
//! `TestBackend`) and `app` (pieces for tests that feed `update()` directly).
#![allow(dead_code)]

pub mod app;
pub mod exporter;
pub mod pty;
pub mod runtime;
pub mod svg;

use std::time::Duration;

use convo::api::client::RetryPolicy;
use convo::api::clock::ManualClock;
use convo::api::{ApiKey, Client, ClientSettings, KeySource};
use convo::demo::{DemoOptions, DemoServer, Faults};

/// A demo server with its own runtime, so sync tests (and the real binary) can use it.
pub struct Demo {
    pub server: Option<DemoServer>,
    pub rt: tokio::runtime::Runtime,
}

impl Demo {
    pub fn start(conversations: usize, visitors: usize, faults: Faults) -> Demo {
        Demo::start_with(conversations, visitors, faults, None)
    }

    /// [`Demo::start`] with the faults `set` gives (`|f| f.fail_always = true`).
    pub fn faulty(conversations: usize, visitors: usize, set: impl FnOnce(&mut Faults)) -> Demo {
        Demo::start(conversations, visitors, faults(set))
    }

    /// [`Demo::start`] with the newest row at `anchor` (as `convo --demo` has it: the clock,
    /// so times carry fractions of a second).
    pub fn start_at(conversations: usize, visitors: usize, anchor: jiff::Timestamp) -> Demo {
        Demo::start_with(conversations, visitors, Faults::default(), Some(anchor))
    }

    fn start_with(
        conversations: usize,
        visitors: usize,
        faults: Faults,
        anchor: Option<jiff::Timestamp>,
    ) -> Demo {
        Demo::with(DemoOptions {
            seed: 7,
            conversations,
            visitors,
            latency: Duration::ZERO,
            faults,
            anchor,
            ..DemoOptions::default()
        })
    }

    /// A demo server with `options`, on a random loopback port whatever `options.addr` says.
    pub fn with(options: DemoOptions) -> Demo {
        Demo::launch(options, false)
    }

    /// [`Demo::with`] over HTTPS, with a CA of its own (`ca_pem()`).
    pub fn with_tls(options: DemoOptions) -> Demo {
        Demo::launch(options, true)
    }

    fn launch(options: DemoOptions, tls: bool) -> Demo {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let options = DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            ..options
        };
        let server = if tls {
            rt.block_on(DemoServer::start_tls(options))
        } else {
            rt.block_on(DemoServer::start(options))
        }
        .expect("demo server starts");
        Demo {
            server: Some(server),
            rt,
        }
    }

    pub fn s(&self) -> &DemoServer {
        self.server.as_ref().expect("server running")
    }

    pub fn url(&self) -> String {
        self.s().base_url()
    }

    pub fn key(&self) -> String {
        self.s().api_key()
    }

    pub fn requests(&self) -> u64 {
        self.s().request_count()
    }

    /// A client with fast retries, so fault tests take milliseconds, not seconds.
    pub fn client(&self) -> Client {
        client_for(&self.url(), &self.key(), fast_settings)
    }

    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }
}

/// A `Demo` is its server: `demo.base_url()`, `demo.data()`, ….
impl std::ops::Deref for Demo {
    type Target = DemoServer;
    fn deref(&self) -> &DemoServer {
        self.s()
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        if let Some(s) = self.server.take() {
            self.rt.block_on(s.shutdown());
        }
    }
}

/// How many of `server`'s conversations `keep` holds for (`|c| c.status == "open"`).
pub fn count(server: &DemoServer, keep: impl Fn(&convo::demo::DemoConversation) -> bool) -> usize {
    server
        .data()
        .conversations
        .iter()
        .filter(|c| keep(c))
        .count()
}

/// Faults where the first request is answered 429 with `Retry-After: retry_after`.
pub fn rate_limited_once(retry_after: &str) -> impl FnOnce(&mut Faults) + '_ {
    move |f| {
        f.rate_limit_first = 1;
        f.retry_after = retry_after.into();
    }
}

/// No faults but those `set` gives.
pub fn faults(set: impl FnOnce(&mut Faults)) -> Faults {
    let mut f = Faults::default();
    set(&mut f);
    f
}

pub fn fast_settings(s: &mut ClientSettings) {
    s.retry = RetryPolicy {
        backoff: vec![Duration::from_millis(10); 3],
        ..RetryPolicy::default()
    };
    s.request_timeout = Duration::from_secs(5);
}

pub fn client_for(url: &str, key: &str, tweak: impl FnOnce(&mut ClientSettings)) -> Client {
    let key = ApiKey::new(key, KeySource::Env, "sk_").expect("demo key has the prefix");
    let mut s = ClientSettings::new(url, key);
    tweak(&mut s);
    Client::new(s).expect("client")
}

/// A demo server with `conversations` and `visitors` and no faults, and a clean home to run
/// convo in (removed when dropped).
pub fn demo_and_home(conversations: usize, visitors: usize) -> (Demo, tempfile::TempDir) {
    let d = Demo::start(conversations, visitors, Faults::default());
    (d, tempfile::tempdir().expect("a home"))
}

/// The real binary with a clean environment: no config file, a temp log, no inherited key.
pub fn convo_cmd(tmp: &std::path::Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::from_std(convo_std_cmd(tmp));
    c.timeout(Duration::from_secs(60));
    c
}

/// [`convo_cmd`] as a `std::process::Command` (to spawn and read as it runs), no timeout.
pub fn convo_std_cmd(tmp: &std::path::Path) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_convo"));
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", tmp)
        .env("XDG_CONFIG_HOME", tmp.join("config"))
        .env("XDG_DATA_HOME", tmp.join("data"))
        .env("CONVO_LOG_FILE", tmp.join("convo.log"))
        .env("CONVO_CONFIG", tmp.join("no-config.toml"));
    c
}

/// Asserts that `text` (a screen, a line, what a run said) holds `part`; the failure shows
/// `text` whole and points at the caller.
#[track_caller]
pub fn assert_has(text: &str, part: &str) {
    assert!(text.contains(part), "no {part:?} in:\n{text}");
}

/// [`assert_has`] for each of `parts`.
#[track_caller]
pub fn assert_has_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert_has(text, part);
    }
}

/// Writes `text` to `dir/name`; the path.
pub fn file(dir: &std::path::Path, name: &str, text: impl AsRef<[u8]>) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write a test file");
    path
}

/// The `id` of every line of JSON Lines output, in order.
pub fn jsonl_ids(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("each line is JSON");
            v["id"].as_str().expect("an id").to_string()
        })
        .collect()
}

/// The ids of `server`'s conversations, in API order.
pub fn conversation_ids(server: &DemoServer) -> Vec<String> {
    server
        .data()
        .conversations
        .iter()
        .map(|c| c.id.to_string())
        .collect()
}

/// A command line's words: `words("list conversations --limit 10")`.
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

pub fn ignore_retry(_: convo::api::RetryNotice) {}

/// Parses RFC 4180 CSV (quoted fields may hold `,`, `"` doubled, CR and LF) into records.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
        } else {
            match c {
                '"' if field.is_empty() => quoted = true,
                ',' => record.push(std::mem::take(&mut field)),
                '\n' => {
                    record.push(std::mem::take(&mut field));
                    records.push(std::mem::take(&mut record));
                }
                _ => field.push(c),
            }
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}

/// A tmpfs of `size` (e.g. "64k") mounted on a new temporary directory, unmounted on drop: a
/// real full disk. `None` when mounting is not allowed here (it needs root).
pub struct SmallDisk {
    pub dir: tempfile::TempDir,
}

impl SmallDisk {
    pub fn mount(size: &str) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("SKIPPED: cannot mount a tmpfs here (not root?): disk full not tested");
            return None;
        }
        Some(SmallDisk { dir })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

// In this file, not in pty.rs: the benches include pty.rs alone, without `Demo`.
impl pty::Pty {
    /// Runs `convo --base-url URL ARGS` against `demo` (its key in CONVO_API_KEY) in a
    /// `cols` x `rows` terminal, in a clean home of its own ([`command`]: no config file).
    pub fn against(demo: &Demo, args: &[&str], cols: u16, rows: u16) -> pty::Pty {
        let home = tempfile::tempdir().expect("a home");
        let mut cmd = pty::command(home.path());
        cmd.env("CONVO_API_KEY", demo.key());
        cmd.args(["--base-url", &demo.url()]);
        cmd.args(args);
        pty::Pty::run(cmd, cols, rows).owning(home)
    }
}

/// Waits (polling every 5 ms, from an async test) until `done` holds; past
/// [`runtime::DEADLINE`] the test fails naming `what`. For conditions outside the loop's
/// screen and app (a server's request count, requests in flight).
pub async fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + runtime::DEADLINE;
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "waited {:?} for {what}",
            runtime::DEADLINE
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The property tests' configuration: `cases` cases, and no regression files in the tree
/// (a failure found is turned into a named case).
pub fn cases(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// A tool a test needs beyond Rust.
pub struct Tool {
    /// What is missing, in the skip line (`prometheus`).
    pub name: &'static str,
    /// The suffix of the variable that makes it required: `CONVO_REQUIRE_<require>`.
    pub require: &'static str,
    /// A command that succeeds when the tool is here.
    pub probe: &'static [&'static str],
    /// How to get it.
    pub how: &'static str,
}

/// Prometheus (`prometheus --version`): tests/it/prometheus_real.rs.
pub const PROMETHEUS: Tool = Tool {
    name: "prometheus",
    require: "PROMETHEUS",
    probe: &["prometheus", "--version"],
    how: "apt-get install prometheus",
};

/// promtool (with Prometheus): the exporter's text checked by `promtool check metrics`.
pub const PROMTOOL: Tool = Tool {
    name: "promtool",
    require: "PROMTOOL",
    probe: &["promtool", "--version"],
    how: "apt-get install prometheus",
};

/// Python 3 with the Prometheus client's text parser: `convo summary --format prometheus`.
pub const PROMETHEUS_CLIENT: Tool = Tool {
    name: "python3 with prometheus_client",
    require: "PROMETHEUS_CLIENT",
    probe: &["python3", "-c", "import prometheus_client"],
    how: "pip install prometheus_client",
};

/// Whether `tool` is here. When it is not: the test fails if CI is `true` or
/// `CONVO_REQUIRE_<tool.require>` is set; else one line `SKIPPED <test>: needs <tool>` goes to
/// the real stdout (not libtest's capture, so `cargo test` shows it) and the test returns.
#[track_caller]
pub fn have(tool: &Tool) -> bool {
    let here = std::process::Command::new(tool.probe[0])
        .args(&tool.probe[1..])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if here {
        return true;
    }
    let var = format!("CONVO_REQUIRE_{}", tool.require);
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !ci && std::env::var_os(&var).is_none(),
        "{} is missing ({}), and {} requires it",
        tool.name,
        tool.how,
        if ci { "CI=true".to_string() } else { var }
    );
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    use std::io::Write;
    let _ = writeln!(
        std::io::stdout().lock(),
        "SKIPPED {test}: needs {} ({}; {var}=1 makes it required)",
        tool.name,
        tool.how
    );
    false
}

/// A client of `d` (fast retries, as [`Demo::client`]) on `clock`, and the clock.
pub fn client_on_clock(d: &Demo) -> (Client, std::sync::Arc<ManualClock>) {
    let clock = ManualClock::new();
    let c = clock.clone();
    let client = client_for(&d.url(), &d.key(), move |s| {
        fast_settings(s);
        s.clock = c;
    });
    (client, clock)
}

/// Runs `fut` on `d`'s runtime on `clock` ([`ManualClock::run`]: the clock moves only while
/// the code sleeps on it, to the earliest instant it sleeps until). Returns its output and the
/// virtual time (since the clock's start) at which `d` saw each request: exact, since a
/// request seen while the clock stands at T was sent at T.
pub fn on_clock<F: std::future::Future>(
    d: &Demo,
    clock: &ManualClock,
    fut: F,
) -> (F::Output, Vec<Duration>) {
    let deadline = std::time::Instant::now() + runtime::DEADLINE;
    let mut seen = d.requests();
    let mut times = Vec::new();
    let out = d.block_on(clock.run(fut, || {
        let n = d.requests();
        times.extend((seen..n).map(|_| clock.elapsed()));
        seen = n;
        assert!(
            std::time::Instant::now() < deadline,
            "waited {:?} for the code on the clock to end; requests at {times:?}",
            runtime::DEADLINE
        );
    }));
    (out, times)
}
