//! Test support shared by the unit, snapshot and runtime tests: a fixed clock, hand-built
//! rows, a fake page server for `update` tests and a `TestBackend` renderer. Not for
//! production code.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use uuid::Uuid;

use super::app::{App, AppInit};
use super::command::{Command, RequestFilter};
use super::msg::{Loaded, Msg};
use convo_api::{Assignee, Conversation, Limit, Page, Status, Timestamp, Visitor};
use convo_config::Aliases;

/// The fixed "now" of tests (the demo data's reference time).
pub const NOW: &str = "2026-11-22T12:00:00Z";

/// The fixed clock.
pub fn now() -> jiff::Timestamp {
    NOW.parse().unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

/// A site id with an alias ("Web shop") in [`aliases`].
pub const SITE_A: Uuid = Uuid::from_u128(0x0b6f2d4c_6a51_4d0e_9c1a_3f6e2b7d8a90);
/// A site id without alias.
pub const SITE_B: Uuid = Uuid::from_u128(0x7c1e9a2b_3d4f_4a5b_8c6d_7e8f9a0b1c2d);
/// An agent with an alias ("Ana (EU desk)").
pub const AGENT_A: Uuid = Uuid::from_u128(0x5d2e8f17_3c4b_4a69_8e0d_1b2c3d4e5f60);
/// An agent without alias.
pub const AGENT_B: Uuid = Uuid::from_u128(0x9f8e7d6c_5b4a_4392_8170_6f5e4d3c2b1a);

/// The aliases of test apps.
pub fn aliases() -> Aliases {
    let mut a = Aliases::default();
    a.insert(SITE_A, "Web shop".into());
    a.insert(AGENT_A, "Ana (EU desk)".into());
    a
}

/// An app of `w` x `h` cells with page size `limit`, UTC, the fixed clock, no config views.
pub fn app(w: u16, h: u16, limit: i64) -> App {
    App::new(AppInit {
        page_size: Limit::new(limit).unwrap_or(Limit::DEFAULT),
        views: Vec::new(),
        aliases: aliases(),
        refresh_secs: None,
        endpoint: "127.0.0.1:8787 · sk_…abcd".into(),
        demo: false,
        now: now(),
        tz: jiff::tz::TimeZone::UTC,
        size: (w, h),
        agent_id: None,
        no_color: false,
    })
}

/// A stable, random-looking UUID for test row `i` of kind `kind` (unique per `i`).
pub fn test_id(kind: u64, i: usize) -> Uuid {
    let mut z = (i as u64).wrapping_add(kind.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let hi = (z & 0xffff_ffff_ffff_0fff) | 0x4000;
    let lo = 0x8000_0000_0000_0000 | (kind << 48) | i as u64;
    Uuid::from_u64_pair(hi, lo)
}

/// Conversation number `i` (ids count down so that the order looks like the server's).
pub fn conversation(i: usize) -> Conversation {
    let minutes = (i as i64) * 7 + 1;
    let t = now()
        .checked_sub(jiff::SignedDuration::from_mins(minutes))
        .unwrap_or(now());
    Conversation {
        id: test_id(1, i),
        site_id: if i.is_multiple_of(3) { SITE_A } else { SITE_B },
        visitor_id: test_id(2, i % 17),
        status: Status::KNOWN[i % 3].clone(),
        assignee_id: match i % 4 {
            0 => None,
            1 => Some(AGENT_A),
            2 => Some(AGENT_B),
            _ => None,
        },
        created_at: Timestamp::Parsed(t),
        updated_at: Timestamp::Parsed(
            t.checked_add(jiff::SignedDuration::from_mins(i as i64 % 5))
                .unwrap_or(t),
        ),
    }
}

/// Visitor number `i`, with a few missing fields and attributes of several kinds.
pub fn visitor(i: usize) -> Visitor {
    let names = [
        "Ana Souza",
        "王小明",
        "Liam O'Brien",
        "Zoë 🌸 Müller",
        "Kwame Mensah",
    ];
    let t = now()
        .checked_sub(jiff::SignedDuration::from_hours(i as i64 * 5 + 1))
        .unwrap_or(now());
    Visitor {
        id: test_id(2, i),
        external_id: (i % 4 != 3).then(|| format!("cust-{:05}", 1000 + i)),
        email: (i % 5 != 4).then(|| format!("visitor{i}@example.com")),
        name: (i % 6 != 5).then(|| names[i % names.len()].to_string()),
        attributes: match i % 3 {
            0 => {
                serde_json::json!({"plan": "pro", "seats": 5, "beta": true, "region": "eu", "tags": ["a", "b"]})
            }
            1 => serde_json::json!({"plan": "free"}),
            _ => serde_json::Value::Null,
        },
        created_at: (i % 7 != 6).then_some(Timestamp::Parsed(t)),
    }
}

/// A page of rows `range` of `rows`, with the next cursor being the next index.
pub fn page<T: Clone>(rows: &[T], start: usize, limit: usize) -> Page<T> {
    let end = (start + limit).min(rows.len());
    let start = start.min(end);
    Page {
        items: rows[start..end].to_vec(),
        has_more: end < rows.len(),
        next_cursor: (end < rows.len()).then(|| end.to_string()),
        bad_rows: Vec::new(),
    }
}

/// Loads `pages` into `tab` as its walk does: each page asked for (the tab's next fetch, as
/// with `L`) and answered, the selection kept where it is.
pub fn load<T, F>(
    tab: &mut crate::tab::TabState<T, F>,
    pages: impl IntoIterator<Item = Page<T>>,
    body: usize,
) where
    T: convo_api::Row + Clone + PartialEq,
    F: crate::tab::TabFilter,
{
    let (whole, limit) = (tab.load_all(), Limit::new(100).expect("a limit"));
    tab.load_whole();
    for page in pages {
        if tab.next_fetch(body, limit).is_none() {
            break;
        }
        let generation = tab.generation();
        tab.apply(generation, Ok(page), body);
    }
    if !whole {
        tab.stop_loading();
    }
}

/// A stand-in for the service in `update` tests: answers fetch commands from fixed rows,
/// applying the status and assignee filters.
#[derive(Debug, Clone)]
pub struct FakeServer {
    pub conversations: Vec<Conversation>,
    pub visitors: Vec<Visitor>,
}

impl FakeServer {
    /// `c` conversations and `v` visitors.
    pub fn new(c: usize, v: usize) -> FakeServer {
        FakeServer {
            conversations: (0..c).map(conversation).collect(),
            visitors: (0..v).map(visitor).collect(),
        }
    }

    /// The answer to a fetch command (a look-ahead chain's: the page the app waits on), or to
    /// an export path check (`None` for other commands).
    pub fn answer(&self, cmd: &Command) -> Option<Msg> {
        if let Command::CheckExportPath(path) = cmd {
            // Not the service's: the runtime's own look at the disk, done for real.
            return Some(super::export::write::check_path(path.clone()));
        }
        if let Command::LoadNames(ids) = cmd {
            // As the runtime without a store: nobody is known.
            return Some(Msg::NamesLoaded {
                asked: ids.iter().map(|(id, _)| *id).collect(),
                found: Vec::new(),
            });
        }
        // A look-ahead chain's page is the one the app waits on (the stand-in asks for nothing
        // ahead).
        let asked = cmd.page_asked()?;
        let result = self.page(asked.query, asked.cursor, asked.limit);
        Some(super::msg::answering(&asked, result))
    }

    /// The page of `query` at `cursor`.
    pub fn page(
        &self,
        query: &RequestFilter,
        cursor: Option<&str>,
        limit: Limit,
    ) -> Result<Loaded, convo_api::ApiError> {
        let start = cursor.and_then(|c| c.parse().ok()).unwrap_or(0);
        Ok(match query {
            RequestFilter::Conversations(f) => {
                let rows: Vec<Conversation> = self
                    .conversations
                    .iter()
                    .filter(|c| f.status.as_ref().is_none_or(|s| *s == c.status))
                    .filter(|c| match f.assignee {
                        Assignee::Any => true,
                        Assignee::Unassigned => c.assignee_id.is_none(),
                        Assignee::Anyone => c.assignee_id.is_some(),
                        Assignee::Agent(a) => c.assignee_id == Some(a),
                    })
                    .filter(|c| f.visitor_id.is_none_or(|v| v == c.visitor_id))
                    .filter(|c| f.site_id.is_none_or(|v| v == c.site_id))
                    .cloned()
                    .collect();
                Loaded::Conversations(page(&rows, start, limit.get()))
            }
            RequestFilter::Visitors(_) => {
                Loaded::Visitors(page(&self.visitors, start, limit.get()))
            }
        })
    }

    /// Runs `update` with `msg`, then answers every fetch at once until none is left.
    /// Returns all commands seen.
    pub fn settle(&self, app: &mut App, msg: Msg) -> Vec<Command> {
        let mut seen = Vec::new();
        let mut queue = vec![msg];
        while let Some(m) = queue.pop() {
            for c in super::update::update(app, m) {
                if let Some(answer) = self.answer(&c) {
                    queue.push(answer);
                }
                seen.push(c);
            }
        }
        seen
    }
}

/// Runs `update` with `msg` and answers the export path checks it asks for as the runtime
/// does (looking at the disk); returns the other commands and those the answers led to.
pub fn update_checked(app: &mut App, msg: Msg) -> Vec<Command> {
    let mut out = Vec::new();
    for c in super::update::update(app, msg) {
        match c {
            Command::CheckExportPath(path) => {
                out.extend(update_checked(app, super::export::write::check_path(path)))
            }
            other => out.push(other),
        }
    }
    out
}

/// A key press message.
pub fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// A character key press message (Shift implied by the character).
pub fn ch(c: char) -> Msg {
    let mods = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    Msg::Key(KeyEvent::new(KeyCode::Char(c), mods))
}

/// The screen as text (one quoted line per row), as `TestBackend` shows it.
pub fn render(app: &App) -> String {
    let (w, h) = app.size();
    match Terminal::new(TestBackend::new(w, h)) {
        Ok(mut t) => {
            let _ = t.draw(|f| super::view::draw(app, f));
            t.backend().to_string()
        }
        Err(e) => match e {},
    }
}

/// The screen's cells.
pub fn render_buffer(app: &App) -> ratatui::buffer::Buffer {
    let (w, h) = app.size();
    match Terminal::new(TestBackend::new(w, h)) {
        Ok(mut t) => {
            let _ = t.draw(|f| super::view::draw(app, f));
            t.backend().buffer().clone()
        }
        Err(e) => match e {},
    }
}

/// The runtime's export writer, for tests: carries out export commands as the runtime does.
pub type ExportWriter = super::export::write::Writer;

/// Carries out the export commands among `cmds` as the runtime does, feeding the writer's
/// answers to `update` (which hands it the next parts) until the export ends. Returns the
/// ending message (applied to `app`) and how many parts were written.
pub async fn run_export(app: &mut App, cmds: &[Command]) -> (String, bool, usize) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut writer = ExportWriter::default();
    for c in cmds {
        writer.run(c.clone(), &tx);
    }
    let mut parts = 0;
    while let Some(m) = rx.recv().await {
        match m {
            Msg::ExportWritten { .. } => {
                parts += 1;
                for c in super::update::update(app, m) {
                    writer.run(c, &tx);
                }
            }
            Msg::ExportEnded { id, text, error } => {
                super::update::update(
                    app,
                    Msg::ExportEnded {
                        id,
                        text: text.clone(),
                        error,
                    },
                );
                return (text, error, parts);
            }
            other => panic!("not an export's answer: {other:?}"),
        }
    }
    panic!("the export writer went away")
}
