//! The real runtime loop (`convo::tui::runtime::Runtime`) on a ratatui `TestBackend`, fed
//! scripted keys: `Harness::on(&demo(options).await, (120, 30), 50)` (or `Harness::new` with a
//! runtime and app of your own), then `h.keys(keys)`, `h.wait_for("text on screen")`,
//! `h.wait(keys, "what", |screen| condition)` or `h.until(keys, "text")` (keys pressed again
//! until the text shows). Every wait is for a condition, with a deadline ([`DEADLINE`]); none
//! runs the loop for a fixed time.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use futures::Stream;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use convo::api::ClientSettings;
use convo::demo::{DemoOptions, DemoServer};
use convo::tui::app::App;
use convo::tui::runtime::Runtime;

/// Keys 30 ms apart, then `idle` of nothing, then the end of input (which ends the loop).
/// For a caller that means the pause itself (the real binary's first frame, a bench); tests
/// of the loop wait for a condition ([`Harness::wait`]).
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

/// The longest a test waits for a condition before it fails (with the screen).
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A `TestBackend` the test can read while the loop draws on it (the loop holds the
/// `Terminal`; a wait's condition reads the screen through the other handle).
#[derive(Clone)]
pub struct Screen(Arc<Mutex<TestBackend>>);

impl Screen {
    fn new(cols: u16, rows: u16) -> Screen {
        Screen(Arc::new(Mutex::new(TestBackend::new(cols, rows))))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TestBackend> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The screen as text, a line a row.
    pub fn text(&self) -> String {
        self.lock().to_string()
    }
}

/// Frames reach the screen whole already (the loop draws under the lock): nothing to say.
impl convo::tui::frames::Synchronized for Screen {
    fn begin_frame(&mut self) -> std::io::Result<()> {
        Ok(())
    }
    fn end_frame(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Backend for Screen {
    type Error = std::convert::Infallible;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.lock().draw(content)
    }
    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        self.lock().append_lines(n)
    }
    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.lock().hide_cursor()
    }
    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.lock().show_cursor()
    }
    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.lock().get_cursor_position()
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.lock().set_cursor_position(position)
    }
    fn clear(&mut self) -> Result<(), Self::Error> {
        self.lock().clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.lock().clear_region(clear_type)
    }
    fn size(&self) -> Result<Size, Self::Error> {
        self.lock().size()
    }
    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.lock().window_size()
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.lock().flush()
    }
    fn scroll_region_up(
        &mut self,
        region: std::ops::Range<u16>,
        line_count: u16,
    ) -> Result<(), Self::Error> {
        self.lock().scroll_region_up(region, line_count)
    }
    fn scroll_region_down(
        &mut self,
        region: std::ops::Range<u16>,
        line_count: u16,
    ) -> Result<(), Self::Error> {
        self.lock().scroll_region_down(region, line_count)
    }
}

/// Keys (as [`script`] sends them), then the end of input as soon as `done` holds of the
/// screen; past [`DEADLINE`] the test fails, naming `what` and showing the screen.
fn keys_then_until<'a>(
    keys: Vec<KeyEvent>,
    screen: Screen,
    what: &'a str,
    done: &'a dyn Fn(&str) -> bool,
) -> impl Stream<Item = io::Result<Event>> + Unpin + 'a {
    Box::pin(futures::stream::unfold(
        (keys.into_iter(), None::<Instant>, screen),
        move |(mut keys, mut deadline, screen)| async move {
            if deadline.is_none() {
                if let Some(k) = keys.next() {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    return Some((Ok(Event::Key(k)), (keys, None, screen)));
                }
                deadline = Some(Instant::now() + DEADLINE);
            }
            loop {
                // At once: `keys` ends the loop right after the last key, before any answer.
                let text = screen.text();
                if done(&text) {
                    return None;
                }
                assert!(
                    Instant::now() < deadline.expect("set"),
                    "waited {DEADLINE:?} for {what}; the screen:\n{text}"
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        },
    ))
}

fn with_mods(keys: Vec<KeyCode>) -> Vec<KeyEvent> {
    keys.into_iter()
        .map(|code| {
            let mods = match code {
                KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
                _ => KeyModifiers::NONE,
            };
            KeyEvent::new(code, mods)
        })
        .collect()
}

pub struct Harness {
    pub rt: Runtime,
    pub terminal: Terminal<Screen>,
    /// The screen the loop draws on, readable while it runs.
    pub screen: Screen,
    pub app: App,
    /// What the loop wrote besides frames (bell, OSC notifications, clipboard).
    pub out: Vec<u8>,
}

impl Harness {
    /// `rt` running `app` on a `size` (columns, rows) `TestBackend`.
    pub fn new(rt: Runtime, size: (u16, u16), app: App) -> Harness {
        let screen = Screen::new(size.0, size.1);
        Harness {
            rt,
            terminal: Terminal::new(screen.clone()).expect("terminal"),
            screen,
            app,
            out: Vec::new(),
        }
    }

    /// A client of `server` running `testing::app(cols, rows, page)` on a `size` backend.
    pub fn on(server: &DemoServer, size: (u16, u16), page: i64) -> Harness {
        let app = convo::tui::testing::app(size.0, size.1, page);
        Harness::new(runtime(server, |_| {}), size, app)
    }

    /// Runs the loop on `keys`, then until `done` holds of the screen (`what` names it for the
    /// failure at [`DEADLINE`]); the screen then.
    pub async fn wait(
        &mut self,
        keys: Vec<KeyCode>,
        what: &str,
        done: impl Fn(&str) -> bool,
    ) -> String {
        self.wait_events(with_mods(keys), what, done).await
    }

    /// As [`Harness::wait`], with keys that carry modifiers (Ctrl-Z).
    pub async fn wait_events(
        &mut self,
        keys: Vec<KeyEvent>,
        what: &str,
        done: impl Fn(&str) -> bool,
    ) -> String {
        let input = keys_then_until(keys, self.screen.clone(), what, &done);
        self.rt
            .run(&mut self.terminal, &mut self.app, input, &mut self.out)
            .await
            .expect("loop runs");
        self.screen.text()
    }

    /// Runs the loop until `done` holds of the app (checked after each message the loop
    /// handles: `Runtime::stop_when`); past [`DEADLINE`] the test fails naming `what`.
    pub async fn wait_app(
        &mut self,
        what: &str,
        done: impl Fn(&App) -> bool + Send + 'static,
    ) -> String {
        self.rt.stop_when = Some(Box::new(done));
        let screen = self.screen.clone();
        let what = what.to_string();
        let input = Box::pin(futures::stream::once(async move {
            tokio::time::sleep(DEADLINE).await;
            panic!(
                "waited {DEADLINE:?} for {what}; the screen:\n{}",
                screen.text()
            );
        }));
        self.rt
            .run(&mut self.terminal, &mut self.app, input, &mut self.out)
            .await
            .expect("loop runs");
        self.rt.stop_when = None;
        self.screen.text()
    }

    /// Runs the loop until it has handled its next message (an answer, a tick: at most the
    /// timer's second); the screen then. For a test that checks a condition of its own
    /// between messages (`while !cond { h.step().await }` under a deadline).
    pub async fn step(&mut self) -> String {
        let seen = std::sync::atomic::AtomicUsize::new(0);
        // Called at the loop's top: once at start, again after the next message.
        self.wait_app("the next message", move |_| {
            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 1
        })
        .await
    }

    /// Runs the loop until both tabs have their first rows and none of the user's fetches is
    /// in flight (the pages asked for ahead of the screen included): the loop at rest.
    pub async fn settled(&mut self) -> String {
        self.wait_app("the first pages", |app| {
            let (c, v) = (&app.conversations, &app.visitors);
            !c.rows().is_empty()
                && !c.refreshing()
                && !c.walk().is_loading()
                && !v.rows().is_empty()
                && !v.refreshing()
                && !v.walk().is_loading()
        })
        .await;
        // A fetch ends before its answer is applied: a step after the last one ends, so that
        // what it asked for next (if anything) is in flight or done too.
        let deadline = Instant::now() + DEADLINE;
        loop {
            let screen = self.step().await;
            if self.rt.user_fetches_in_flight() == 0 {
                return screen;
            }
            assert!(Instant::now() < deadline, "fetches never ended:\n{screen}");
        }
    }

    /// Runs the loop on `keys` until each has been handled; the screen then.
    pub async fn keys(&mut self, keys: Vec<KeyCode>) -> String {
        self.wait(keys, "the keys", |_| true).await
    }

    /// Runs the loop until the screen shows `want`.
    pub async fn wait_for(&mut self, want: &str) -> String {
        self.wait(vec![], &format!("{want:?} on screen"), |s| s.contains(want))
            .await
    }

    /// Presses `keys` once, then runs the loop until the screen shows `want` (at most
    /// [`DEADLINE`]): for keys that must act once (Back, a sort's toggle, an export's Enter),
    /// which [`Harness::until`] would press again on a machine slow to show their effect.
    pub async fn press(&mut self, keys: Vec<KeyCode>, want: &str) -> String {
        self.wait(keys, &format!("{want:?} on screen"), |s| s.contains(want))
            .await
    }

    /// Presses `keys` until the screen shows `want` (for a second after each press; in all at
    /// most [`DEADLINE`]): for keys a user presses again until they see it (End until all is
    /// loaded). Keys that must act once go through [`Harness::press`].
    pub async fn until(&mut self, keys: Vec<KeyCode>, want: &str) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let again = Instant::now() + Duration::from_secs(1);
            let screen = self
                .wait(keys.clone(), want, |s| {
                    s.contains(want) || Instant::now() >= again.min(deadline)
                })
                .await;
            if screen.contains(want) {
                return screen;
            }
            assert!(Instant::now() < deadline, "never saw {want:?}:\n{screen}");
        }
    }
}
