//! The real runtime loop (`convo::tui::runtime::Runtime`) on a ratatui `TestBackend`, fed
//! scripted keys: `Harness::on(&demo(options).await, (120, 30), 50)` (or `Harness::new` with a
//! runtime and app of your own), then `h.phase(keys, idle_ms)` or `h.until(keys, "text on screen")`.

use std::io;
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use futures::Stream;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use convo::api::ClientSettings;
use convo::demo::{DemoOptions, DemoServer};
use convo::tui::app::App;
use convo::tui::runtime::Runtime;

/// Keys 30 ms apart, then `idle` of nothing, then the end of input (which ends the loop).
pub fn script(keys: Vec<KeyCode>, idle: Duration) -> impl Stream<Item = io::Result<Event>> + Unpin {
    let keys = keys
        .into_iter()
        .map(|code| {
            let mods = match code {
                KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
                _ => KeyModifiers::NONE,
            };
            KeyEvent::new(code, mods)
        })
        .collect();
    script_events(keys, idle)
}

/// As [`script`], with the modifiers given (Ctrl-Z).
pub fn script_events(
    keys: Vec<KeyEvent>,
    idle: Duration,
) -> impl Stream<Item = io::Result<Event>> + Unpin {
    let mut items: Vec<Option<KeyEvent>> = keys.into_iter().map(Some).collect();
    items.push(None);
    Box::pin(futures::stream::unfold(
        (items.into_iter(), idle),
        |(mut it, idle)| async move {
            match it.next()? {
                Some(k) => {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    Some((Ok(Event::Key(k)), (it, idle)))
                }
                None => {
                    tokio::time::sleep(idle).await;
                    None
                }
            }
        },
    ))
}

/// A demo server with `options` on a random loopback port, from inside an async test.
pub async fn demo(options: DemoOptions) -> DemoServer {
    let options = DemoOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        ..options
    };
    DemoServer::start(options).await.expect("demo server")
}

/// A runtime with a client of `server` (settings as `tweak` leaves them).
pub fn runtime(server: &DemoServer, tweak: impl FnOnce(&mut ClientSettings)) -> Runtime {
    Runtime::new(super::client_for(
        &server.base_url(),
        &server.api_key(),
        tweak,
    ))
}

pub struct Harness {
    pub rt: Runtime,
    pub terminal: Terminal<TestBackend>,
    pub app: App,
    /// What the loop wrote besides frames (bell, OSC notifications, clipboard).
    pub out: Vec<u8>,
}

impl Harness {
    /// `rt` running `app` on a `size` (columns, rows) `TestBackend`.
    pub fn new(rt: Runtime, size: (u16, u16), app: App) -> Harness {
        Harness {
            rt,
            terminal: Terminal::new(TestBackend::new(size.0, size.1)).expect("terminal"),
            app,
            out: Vec::new(),
        }
    }

    /// A client of `server` running `testing::app(cols, rows, page)` on a `size` backend.
    pub fn on(server: &DemoServer, size: (u16, u16), page: i64) -> Harness {
        let app = convo::tui::testing::app(size.0, size.1, page);
        Harness::new(runtime(server, |_| {}), size, app)
    }

    /// Runs the loop on `keys`, then `idle_ms` of nothing; the screen then.
    pub async fn phase(&mut self, keys: Vec<KeyCode>, idle_ms: u64) -> String {
        self.rt
            .run(
                &mut self.terminal,
                &mut self.app,
                script(keys, Duration::from_millis(idle_ms)),
                &mut self.out,
            )
            .await
            .expect("loop runs");
        self.terminal.backend().to_string()
    }

    /// As [`Harness::phase`], with keys that carry modifiers (Ctrl-Z).
    pub async fn phase_events(&mut self, keys: Vec<KeyEvent>, idle_ms: u64) -> String {
        self.rt
            .run(
                &mut self.terminal,
                &mut self.app,
                script_events(keys, Duration::from_millis(idle_ms)),
                &mut self.out,
            )
            .await
            .expect("loop runs");
        self.terminal.backend().to_string()
    }

    /// Repeats `keys` until the screen contains `want` (at most ~20 s).
    pub async fn until(&mut self, keys: Vec<KeyCode>, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.phase(keys.clone(), 100).await;
            if screen.contains(want) {
                return screen;
            }
            assert!(Instant::now() < deadline, "never saw {want:?}:\n{screen}");
        }
    }
}
