//! Issue 6, export of the whole filtered walk, at `update` level against the real demo server:
//! the scope choice and its confirmation, progress, the file (every row of the filter, no
//! duplicate, byte for byte what `convo list` writes), Esc (a partial file, said so), a
//! failing page and a restarted walk (nothing written), and no overwrite.

use crate::common;

use std::collections::HashSet;
use std::path::Path;

use common::{Demo, convo_cmd};
use convo::api::{Client, Conversation, Resource, RetryNotice, Visitor};
use convo::demo::Faults;
use convo::tui::app::App;
use convo::tui::command::{Command, ExportKind, RequestFilter};
use convo::tui::msg::{Loaded, Msg};
use convo::tui::prompt::Prompt;
use convo::tui::testing::{self, ch, key};
use convo::tui::update::update;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const W: u16 = 120;
const H: u16 = 30;

/// Runs `update` and answers its fetches with a real client, one at a time as the runtime
/// does; a fetch left unanswered stays pending across calls (the pager has it in flight).
struct Driver {
    d: Demo,
    client: Client,
    pending: Vec<Command>,
    /// Fetches answered so far.
    answered: usize,
}

/// Whether `c` asks for a page of `tab`'s walk (a fetch, or a look-ahead chain's page).
fn fetch_of(c: &Command, tab: Resource) -> bool {
    matches!(c, Command::Fetch { tab: t, .. } | Command::Ahead { tab: t, .. } if *t == tab)
}

impl Driver {
    fn new(d: Demo) -> Driver {
        let client = d.client();
        Driver {
            d,
            client,
            pending: Vec::new(),
            answered: 0,
        }
    }

    /// The answer to a fetch, or to a look-ahead chain's page the app waits on (this driver
    /// asks for nothing ahead).
    fn fetch(&self, c: &Command) -> Msg {
        let asked = c.page_asked().expect("a page asked for");
        let quiet = |_: RetryNotice| {};
        let (cursor, limit) = (asked.cursor, asked.limit);
        let result = self.d.block_on(async {
            match asked.query {
                RequestFilter::Conversations(f) => self
                    .client
                    .list::<_, Conversation>(f, limit, cursor, &quiet)
                    .await
                    .map(Loaded::Conversations),
                RequestFilter::Visitors(f) => self
                    .client
                    .list::<_, Visitor>(f, limit, cursor, &quiet)
                    .await
                    .map(Loaded::Visitors),
            }
        });
        convo::tui::msg::answering(&asked, result)
    }

    /// Feeds `msg`, then answers up to `budget` fetches (all when `None`); returns every
    /// other command.
    fn drive(&mut self, app: &mut App, msg: Msg, budget: Option<usize>) -> Vec<Command> {
        let mut out = Vec::new();
        let mut queue = vec![msg];
        let mut left = budget.unwrap_or(usize::MAX);
        loop {
            while let Some(m) = queue.pop() {
                for c in update(app, m) {
                    match c {
                        Command::Fetch { tab, .. } | Command::Ahead { tab, .. } => {
                            // A newer fetch of a tab replaces an older one, as in the runtime.
                            self.pending.retain(|p| !fetch_of(p, tab));
                            self.pending.push(c);
                        }
                        Command::Cancel { tab } => self.pending.retain(|p| !fetch_of(p, tab)),
                        // Credit for pages ahead: this driver asks for none.
                        Command::Grant { .. } => {}
                        // The runtime's look at the disk, answered at once as it does.
                        Command::CheckExportPath(path) => {
                            queue.push(convo::tui::export::write::check_path(path))
                        }
                        Command::ProposeExportPath(asked) => {
                            let free = convo::tui::export::write::free_path(&asked);
                            queue.push(Msg::ExportPathProposed { asked, free })
                        }
                        other => out.push(other),
                    }
                }
            }
            if left == 0 || self.pending.is_empty() {
                return out;
            }
            let c = self.pending.remove(0);
            left -= 1;
            self.answered += 1;
            assert!(self.answered < 1000, "no end to the fetches");
            queue.push(self.fetch(&c));
        }
    }

    /// Carries out the export commands among `cmds` as the runtime does (the writer's answers
    /// fed to `update`, part after part); returns the ending message (applied).
    fn write(&mut self, app: &mut App, cmds: &[Command]) -> (String, bool) {
        let (text, error, _) = self.d.block_on(testing::run_export(app, cmds));
        (text, error)
    }
}

fn exports(cmds: &[Command]) -> Vec<Command> {
    cmds.iter()
        .filter(|c| matches!(c, Command::Export { .. }))
        .cloned()
        .collect()
}

/// A driver on a demo server with `n` conversations and an app that loaded the open ones
/// (`s` once: status open) as far as the screen wants.
fn open_conversations(n: usize, faults: Faults) -> (Driver, App) {
    let mut dr = Driver::new(Demo::start(n, 40, faults));
    let mut app = testing::app(W, H, 50);
    dr.drive(&mut app, Msg::Resize(W, H), None);
    dr.drive(&mut app, ch('s'), None);
    assert!(!app.conversations.walk().is_done());
    (dr, app)
}

/// `e`, the path, Enter: the scope prompt.
fn export_to(dr: &mut Driver, app: &mut App, path: &Path) -> Vec<Command> {
    let mut cmds = dr.drive(app, ch('e'), Some(0));
    let ctrl_u = Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    dr.drive(app, ctrl_u, Some(0));
    for c in path.to_str().unwrap().chars() {
        dr.drive(
            app,
            Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
            Some(0),
        );
    }
    cmds.extend(dr.drive(app, key(KeyCode::Enter), Some(0)));
    cmds
}

/// Scope `w`, then the confirmation: asserts what it says, answers `y`.
fn start_whole_walk(dr: &mut Driver, app: &mut App, path: &Path, budget: usize) -> Vec<Command> {
    let cmds = export_to(dr, app, path);
    assert!(exports(&cmds).is_empty());
    assert!(matches!(app.prompt(), Some(Prompt::ExportScope(_))));
    let screen = testing::render(app);
    assert!(
        screen.contains(
            "l the 100 loaded rows · w the whole walk (all pages of the current filters)"
        ),
        "{screen}"
    );
    let cmds = dr.drive(app, ch('w'), Some(0));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert!(matches!(app.prompt(), Some(Prompt::ExportConfirm(_))));
    let screen = testing::render(app);
    assert!(
        screen.contains("whole walk: fetches EVERY remaining page")
            && screen.contains("y starts · Esc cancels"),
        "{screen}"
    );
    assert!(
        dr.pending.is_empty(),
        "nothing fetched before the confirmation"
    );
    dr.drive(app, ch('y'), Some(budget))
}

fn csv_ids(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap_or_default().to_string())
        .collect()
}

/// What `convo list conversations --status open --all` writes in `format`.
fn convo_list(dr: &Driver, tmp: &Path, format: &str) -> Vec<u8> {
    let o = convo_cmd(tmp)
        .env("CONVO_API_KEY", dr.d.key())
        .args(["--base-url", &dr.d.url(), "list", "conversations"])
        .args(["--status", "open", "--all", "--format", format])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o.stdout
}

#[test]
fn the_whole_walk_is_confirmed_fetched_with_progress_and_written_as_convo_list_writes_it() {
    let (mut dr, mut app) = open_conversations(900, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("open.csv");
    let cmds = start_whole_walk(&mut dr, &mut app, &path, 2);
    assert!(exports(&cmds).is_empty());
    // progress: rows fetched so far, more available, how to stop
    let n = app.conversations.rows().len();
    assert!(n >= 150, "{n}");
    let screen = testing::render(&app);
    common::assert_has(
        &screen,
        &format!(
            "exporting the whole walk of conversations to {}: {n} rows fetched · more available · Esc stops",
            path.display()
        ),
    );
    assert!(!path.exists(), "nothing written before the walk ends");
    // `e` while it runs says so and starts nothing
    dr.drive(&mut app, ch('e'), Some(0));
    assert!(app.prompt().is_none());
    // the rest of the walk, then one export of every row
    let cmds = dr.drive(&mut app, Msg::Resize(W, H), None);
    assert!(app.conversations.walk().is_done());
    assert!(!app.exports().walking());
    let ex = exports(&cmds);
    assert_eq!(ex.len(), 1, "{cmds:?}");
    let Command::Export { rows, kind, .. } = &ex[0] else {
        unreachable!()
    };
    assert_eq!(*kind, ExportKind::WholeWalk { warnings: vec![] });
    let (text, error) = dr.write(&mut app, &cmds);
    assert!(!error, "{text}");
    common::assert_has(&text, &format!("exported the whole walk, all {rows} rows"));
    let written = std::fs::read_to_string(&path).unwrap();
    // every open conversation of the server, once
    let want = convo::demo::dataset(7, 900, 40)
        .conversations
        .iter()
        .filter(|c| c.status == "open")
        .count();
    let ids = csv_ids(&written);
    assert_eq!(ids.len(), want);
    assert_eq!(*rows, want);
    assert_eq!(
        ids.iter().collect::<HashSet<_>>().len(),
        want,
        "no duplicates"
    );
    // what `convo list` writes, each line followed by the names the screen shows
    let list = String::from_utf8(convo_list(&dr, tmp.path(), "csv")).unwrap();
    assert_eq!(written.lines().count(), list.lines().count());
    for (ours, theirs) in written.lines().zip(list.lines()) {
        assert!(ours.starts_with(&format!("{theirs},")), "{ours}\n{theirs}");
    }
    assert!(written.starts_with(&format!(
        "{},visitorName,visitorEmail,siteName,assigneeName\n",
        list.lines().next().unwrap()
    )));
    // Tab in the path prompt: ids only, byte for byte what `convo list` writes
    dr.drive(&mut app, ch('e'), Some(0));
    dr.drive(&mut app, key(KeyCode::Tab), Some(0));
    assert!(testing::render(&app).contains("ids only, Tab: names too"));
    dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    let ids_only = tmp.path().join("open-ids.csv");
    let all = export_to(&mut dr, &mut app, &ids_only);
    dr.write(&mut app, &all);
    assert_eq!(
        std::fs::read(&ids_only).unwrap(),
        convo_list(&dr, tmp.path(), "csv")
    );
    // the walk is loaded now: JSONL of it needs no scope question, and matches too
    let jsonl = tmp.path().join("open.jsonl");
    let all = export_to(&mut dr, &mut app, &jsonl);
    let ex = exports(&all);
    assert_eq!(ex.len(), 1);
    dr.write(&mut app, &all);
    assert_eq!(
        std::fs::read(&jsonl).unwrap(),
        convo_list(&dr, tmp.path(), "jsonl")
    );
}

/// At 80 columns the scope prompt and the confirmation say their keys whole, Esc included
/// (the long labels cut "· Esc cancels" and "(y starts · Esc cancels)").
#[test]
fn the_scope_and_confirm_prompts_say_their_keys_whole_at_80_columns() {
    let (mut dr, mut app) = open_conversations(300, Faults::default());
    dr.drive(&mut app, Msg::Resize(80, 24), None);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("open-conversations.csv");
    export_to(&mut dr, &mut app, &path);
    assert!(matches!(app.prompt(), Some(Prompt::ExportScope(_))));
    let screen = testing::render(&app);
    let status = screen.lines().last().unwrap_or_default().to_string();
    for keys in ["l the 100 loaded rows", "w all pages", "Esc cancels"] {
        assert!(status.contains(keys), "{keys:?} in {status}");
    }
    assert!(
        status.contains(".csv"),
        "the file's name is in view: {status}"
    );
    dr.drive(&mut app, ch('w'), Some(0));
    assert!(matches!(app.prompt(), Some(Prompt::ExportConfirm(_))));
    let screen = testing::render(&app);
    let status = screen.lines().last().unwrap_or_default().to_string();
    for keys in ["EVERY", "y starts", "Esc cancels"] {
        assert!(status.contains(keys), "{keys:?} in {status}");
    }
    assert!(
        status.contains(".csv"),
        "the file's name is in view: {status}"
    );
}

/// The detail pane over a running whole-walk export (`tui::update::layers`): Esc closes the
/// pane, what is on top; the export goes on, and the next Esc stops it.
#[test]
fn esc_closes_the_detail_pane_over_a_running_export_first() {
    let (mut dr, mut app) = open_conversations(900, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("part.csv");
    start_whole_walk(&mut dr, &mut app, &path, 1);
    dr.drive(&mut app, key(KeyCode::Enter), Some(0));
    assert_eq!(app.detail().scroll(), Some(0));
    let cmds = dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    assert!(exports(&cmds).is_empty(), "{cmds:?}");
    assert_eq!(app.detail().scroll(), None);
    assert!(app.exports().walking(), "the export goes on");
    let cmds = dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    assert_eq!(exports(&cmds).len(), 1, "{cmds:?}");
    assert!(!app.exports().walking());
}

#[test]
fn esc_stops_the_walk_and_writes_the_rows_so_far_said_to_be_partial() {
    let (mut dr, mut app) = open_conversations(900, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("part.csv");
    start_whole_walk(&mut dr, &mut app, &path, 1);
    assert_eq!(dr.pending.len(), 1, "the next page is in flight");
    let n = app.conversations.rows().len();
    let cmds = dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    let ex = exports(&cmds);
    assert_eq!(ex.len(), 1, "{cmds:?}");
    assert!(matches!(
        &ex[0],
        Command::Export { rows, kind: ExportKind::PartialWalk, .. } if *rows == n
    ));
    assert!(!app.conversations.load_all());
    let (text, _) = dr.write(&mut app, &cmds);
    assert!(
        text.contains(&format!("PARTIAL export: {n} rows written"))
            && text.contains("more rows exist"),
        "{text}"
    );
    assert!(testing::render(&app).contains("PARTIAL export"));
    let ids = csv_ids(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(ids.len(), n);
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), n);
    // the page in flight still lands in the tab, but the walk stops and nothing more is written
    let cmds = dr.drive(&mut app, Msg::Resize(W, H), None);
    assert!(exports(&cmds).is_empty());
    assert!(dr.pending.is_empty());
    assert!(!app.conversations.walk().is_done());
    assert_eq!(csv_ids(&std::fs::read_to_string(&path).unwrap()).len(), n);
}

#[test]
fn a_page_failing_mid_walk_writes_nothing_and_says_so() {
    // 5 requests succeed (the first pages of both tabs, then open ones), then every one fails
    let (mut dr, mut app) = open_conversations(
        900,
        Faults {
            fail_after: Some(5),
            ..Faults::default()
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("never.csv");
    let cmds = start_whole_walk(&mut dr, &mut app, &path, usize::MAX);
    assert!(exports(&cmds).is_empty(), "{cmds:?}");
    assert!(app.conversations.error().is_some());
    assert!(!app.exports().walking());
    let m = app.status_line().shown().unwrap();
    assert!(m.error, "{m:?}");
    assert!(
        m.text
            .contains("stopped after 100 rows, a page failed: nothing written"),
        "{m:?}"
    );
    // on screen first, with the page's error after it
    let screen = testing::render(&app);
    assert!(
        screen
            .contains(" whole-walk export stopped after 100 rows, a page failed: nothing written"),
        "{screen}"
    );
    assert!(
        app.conversations
            .error()
            .unwrap_or_default()
            .contains("HTTP 500"),
        "{:?}",
        app.conversations.error()
    );
    assert!(!path.exists());
    // no file appears later either
    let cmds = dr.drive(&mut app, Msg::Resize(W, H), None);
    assert!(exports(&cmds).is_empty());
    assert!(!path.exists());
}

#[test]
fn a_walk_that_starts_over_writes_nothing() {
    let (mut dr, mut app) = open_conversations(900, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("never.csv");
    start_whole_walk(&mut dr, &mut app, &path, 1);
    // new filters while a page is in flight
    let cmds = dr.drive(&mut app, ch('u'), Some(0));
    assert!(exports(&cmds).is_empty());
    assert!(!app.exports().walking());
    let m = app.status_line().shown().unwrap();
    assert!(
        m.error && m.text.contains("abandoned") && m.text.contains("nothing written"),
        "{m:?}"
    );
    let cmds = dr.drive(&mut app, Msg::Resize(W, H), None);
    assert!(exports(&cmds).is_empty());
    assert!(!app.conversations.load_all());
    assert!(!path.exists());
}

#[test]
fn the_prompts_cancel_without_fetching_and_an_existing_file_is_never_overwritten() {
    let (mut dr, mut app) = open_conversations(400, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("free.csv");
    // Esc at the scope question, n at the confirmation: nothing fetched, nothing written
    export_to(&mut dr, &mut app, &path);
    assert!(matches!(app.prompt(), Some(Prompt::ExportScope(_))));
    let cmds = dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    assert!(cmds.is_empty() && app.prompt().is_none());
    export_to(&mut dr, &mut app, &path);
    dr.drive(&mut app, ch('w'), Some(0));
    let cmds = dr.drive(&mut app, ch('n'), Some(0));
    assert!(cmds.is_empty() && dr.pending.is_empty());
    assert!(!app.exports().walking() && !app.conversations.load_all());
    assert!(
        app.status_line()
            .shown()
            .as_ref()
            .unwrap()
            .text
            .contains("nothing written"),
        "{:?}",
        app.status_line().shown()
    );
    // the whole walk to a file that appears while it runs: walked, then refused, the file
    // untouched
    let cmds = start_whole_walk(&mut dr, &mut app, &path, 0);
    std::fs::write(&path, "mine\n").unwrap();
    let mut cmds = cmds;
    cmds.extend(dr.drive(&mut app, Msg::Resize(W, H), None));
    let ex = exports(&cmds);
    assert_eq!(ex.len(), 1);
    let (text, error) = dr.write(&mut app, &cmds);
    assert!(error && text.contains("not overwritten"), "{text}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n");
    assert!(app.conversations.walk().is_done());
    assert_eq!(app.active(), Resource::Conversations);
    // e again: the refused name is taken now; the free one beside it is proposed
    dr.drive(&mut app, ch('e'), Some(0));
    assert_eq!(
        *app.prompt(),
        Some(Prompt::Export(
            tmp.path().join("free-2.csv").to_str().unwrap().into()
        ))
    );
}

#[test]
fn an_existing_file_is_said_at_once_and_a_free_name_proposed() {
    let (mut dr, mut app) = open_conversations(400, Faults::default());
    let tmp = tempfile::tempdir().unwrap();
    let taken = common::file(tmp.path(), "taken.csv", "mine\n");
    common::file(tmp.path(), "taken-2.csv", "mine too\n");
    let typed = taken.to_str().unwrap().to_string();
    let free = tmp.path().join("taken-3.csv").to_str().unwrap().to_string();
    // Enter on a name that exists: said at once, the first free name beside it proposed
    let cmds = export_to(&mut dr, &mut app, &taken);
    assert!(exports(&cmds).is_empty() && dr.pending.is_empty());
    assert_eq!(*app.prompt(), Some(Prompt::ExportExists(free.clone())));
    let screen = testing::render(&app);
    common::assert_has(&screen, "that file exists: export CSV to this new name");
    common::assert_has(&screen, "never overwritten · Tab: ids only");
    // Enter writes there: the scope question
    dr.drive(&mut app, key(KeyCode::Enter), Some(0));
    assert_eq!(*app.prompt(), Some(Prompt::ExportScope(free.clone())));
    dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    // editing it: the plain prompt again with the edited name; a free name goes on to the
    // scope question
    export_to(&mut dr, &mut app, &taken);
    dr.drive(&mut app, key(KeyCode::Backspace), Some(0));
    let edited = free[..free.len() - 1].to_string();
    assert_eq!(*app.prompt(), Some(Prompt::Export(edited.clone())));
    for c in "2.csv".chars() {
        dr.drive(&mut app, ch(c), Some(0));
    }
    dr.drive(&mut app, key(KeyCode::Enter), Some(0));
    assert!(matches!(app.prompt(), Some(Prompt::ExportScope(_))));
    // cancelled there: e offers the name typed, not the default
    dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    dr.drive(&mut app, ch('e'), Some(0));
    assert_eq!(
        *app.prompt(),
        Some(Prompt::Export(format!("{edited}2.csv")))
    );
    // Esc in the "exists" prompt cancels, the file untouched
    dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    export_to(&mut dr, &mut app, &taken);
    assert_eq!(*app.prompt(), Some(Prompt::ExportExists(free)));
    assert_ne!(typed, edited);
    dr.drive(&mut app, key(KeyCode::Esc), Some(0));
    assert!(app.prompt().is_none());
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "mine\n");
}

#[test]
fn an_export_of_hostile_visitors_guards_formulas_and_is_for_the_owner_only() {
    let mut dr = Driver::new(Demo::faulty(10, 30, |f| f.hostile = true));
    let mut app = testing::app(W, H, 50);
    dr.drive(&mut app, Msg::Resize(W, H), None);
    dr.drive(&mut app, key(KeyCode::Tab), None);
    assert_eq!(app.visitors.rows().len(), 30);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("visitors.csv");
    let all = export_to(&mut dr, &mut app, &path);
    let ex = exports(&all);
    assert_eq!(ex.len(), 1, "all loaded: no scope question");
    let (text, error) = dr.write(&mut app, &all);
    assert!(!error, "{text}");
    let written = std::fs::read_to_string(&path).unwrap();
    let rows = common::parse_csv(&written);
    assert_eq!(rows.len(), 31);
    let mut guarded = 0;
    for r in &rows[1..] {
        for cell in &r[1..4] {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{cell:?}"
            );
            guarded += usize::from(cell.starts_with('\''));
        }
    }
    assert!(guarded >= 6, "{guarded}");
    // Issue 39 §11: terminal controls from the data are shown, not kept: `cat` of the file
    // replays nothing (ESC, CR, C1, bidi overrides); newlines stay inside quoted cells.
    for bad in ['\u{1b}', '\r', '\u{9b}', '\u{202e}', '\u{7}'] {
        assert!(!written.contains(bad), "{bad:?} in the file");
    }
    assert!(written.contains('␛') && written.contains("\\u{202e}"));
    // The same bytes as `convo list visitors --all --format csv` (one implementation).
    let o = convo_cmd(tmp.path())
        .env("CONVO_API_KEY", dr.d.key())
        .args(["--base-url", &dr.d.url(), "list", "visitors", "--all"])
        .args(["--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(written.as_bytes(), o.stdout);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "personal data: owner only");
    }
}

#[tokio::test]
async fn an_export_onto_a_full_disk_removes_the_partial_file_says_so_and_the_path_works_again() {
    let Some(disk) = common::SmallDisk::mount("64k") else {
        return;
    };
    let path = disk.dir.path().join("big.csv");
    // 2,000 conversations of a visitor with a long name are far more than 64 KiB
    let mut app = testing::app(W, H, 100);
    let server = testing::FakeServer::new(2_000, 5);
    server.settle(&mut app, Msg::Resize(W, H));
    server.settle(&mut app, ch('L'));
    assert_eq!(app.conversations.rows().len(), 2_000);
    let cmds = export_cmds(&mut app, &path);
    let (text, error, _) = testing::run_export(&mut app, &cmds).await;
    assert!(error, "{text}");
    common::assert_has(&text, "No space left on device");
    common::assert_has(&text, "the partial file was removed");
    assert!(!path.exists(), "no partial file left");
    assert!(!app.exports().writing());
    // the same path works again with fewer rows
    let mut small = testing::app(W, H, 10);
    testing::FakeServer::new(10, 5).settle(&mut small, Msg::Resize(W, H));
    let cmds = export_cmds(&mut small, &path);
    let (text, error, _) = testing::run_export(&mut small, &cmds).await;
    assert!(!error && text.contains("all 10 rows"), "{text}");
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 11);
}

/// `e`, the path, Enter (and `l` when more pages exist): the commands that start the export.
fn export_cmds(app: &mut App, path: &Path) -> Vec<Command> {
    update(app, ch('e'));
    update(
        app,
        Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    );
    for c in path.to_str().unwrap().chars() {
        update(
            app,
            Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        );
    }
    let mut cmds = testing::update_checked(app, key(KeyCode::Enter));
    if matches!(app.prompt(), Some(Prompt::ExportScope(_))) {
        cmds = update(app, ch('l'));
    }
    cmds
}

/// Issue 39 §11, on the real loop against the demo server at 80x24 and 120x35: the path
/// prompt's guidance whole on the line above it; the name picks the format (`.json` a JSON
/// array that parses, `.jsonl` JSON Lines) and the prompt says which; a name taken proposes
/// the free one beside it (`-2`), which Enter writes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_name_picks_the_format_and_a_second_export_gets_a_name_of_its_own() {
    use common::runtime::{Harness, demo};
    let server = demo(convo::demo::DemoOptions {
        conversations: 30,
        visitors: 20,
        ..Default::default()
    })
    .await;
    for (w, h) in [(80u16, 24u16), (120, 35)] {
        let tmp = tempfile::tempdir().unwrap();
        let mut h = Harness::on(&server, (w, h), 50);
        h.until(vec![], "all 30 loaded").await;
        let screen = h.press(vec![KeyCode::Char('e')], "export CSV to").await;
        common::assert_has(
            &screen,
            "Tab: ids only · .csv CSV · .json JSON · .jsonl JSON Lines · CSV: ESC shown as ␛",
        );
        // a name: what is typed replaces the proposal
        let typed = |name: &str| {
            let mut keys = vec![KeyCode::Backspace; 80];
            keys.extend(
                tmp.path()
                    .join(name)
                    .to_str()
                    .unwrap()
                    .chars()
                    .map(KeyCode::Char),
            );
            keys
        };
        let screen = h.until(typed("mine.json"), "export JSON to").await;
        assert!(!screen.contains("…mine.json"), "the name whole: {screen}");
        h.press(vec![KeyCode::Enter], "exported").await;
        let json = std::fs::read_to_string(tmp.path().join("mine.json")).unwrap();
        let rows: Vec<serde_json::Value> = serde_json::from_str(&json).expect("a JSON array");
        assert_eq!(rows.len(), 30);
        // the same name again: the free one beside it, written by Enter
        h.press(vec![KeyCode::Char('e')], "export").await;
        h.until(typed("mine.json"), "export JSON to").await;
        h.press(vec![KeyCode::Enter], "file exists").await;
        let free = tmp.path().join("mine-2.json");
        assert_eq!(
            *h.app.prompt(),
            Some(Prompt::ExportExists(free.to_str().unwrap().into()))
        );
        // Written once it says so (the prompt named the free name already).
        h.wait(vec![KeyCode::Enter], "mine-2.json exported", |s| {
            s.contains("exported") && s.contains("mine-2.json")
        })
        .await;
        let json = std::fs::read_to_string(&free).unwrap();
        assert_eq!(
            serde_json::from_str::<Vec<serde_json::Value>>(&json)
                .unwrap()
                .len(),
            30
        );
        // .jsonl: one object a line
        h.press(vec![KeyCode::Char('e')], "export").await;
        h.until(typed("mine.jsonl"), "export JSON Lines to").await;
        h.wait(vec![KeyCode::Enter], "mine.jsonl exported", |s| {
            s.contains("exported") && s.contains("mine.jsonl")
        })
        .await;
        let lines = std::fs::read_to_string(tmp.path().join("mine.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), 30);
        for l in lines.lines() {
            serde_json::from_str::<serde_json::Value>(l).expect("a JSON line");
        }
    }
    server.shutdown().await;
}

/// The export prompts' answers typed ahead, each burst in one write to the real binary in a
/// pseudo-terminal (issue 39 §11): `e`, Enter and `l` before any prompt is drawn export the
/// loaded rows to the day's free name, also when the day's first name is taken; the `l`
/// never lands in a path.
#[test]
fn export_keys_typed_ahead_in_one_write_go_to_the_questions_they_answer() {
    use common::pty::{self, Pty};
    let d = Demo::start(300, 20, Faults::default());
    for size in [(80u16, 24u16), (120, 35)] {
        let home = tempfile::tempdir().unwrap();
        let mut cmd = pty::command(home.path());
        cmd.env("CONVO_API_KEY", d.key());
        cmd.args([
            "--config",
            "/nonexistent-dir/none.toml",
            "--base-url",
            &d.url(),
        ]);
        let mut p = Pty::run(cmd, size.0, size.1);
        // The first page (50 rows) and the one the look-ahead reads after it: the loaded
        // rows stay 100 while the keys are typed (an export of 50 said "100 loaded" once the
        // second page had come meanwhile, on a loaded machine).
        p.wait_until(std::time::Duration::from_secs(20), |s| {
            s.contains("100 loaded · more available")
        });
        let files = |home: &Path| -> Vec<String> {
            let mut v: Vec<String> = std::fs::read_dir(home)
                .unwrap()
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("convo-"))
                .collect();
            v.sort();
            v
        };
        let mut before = files(home.path());
        for suffix in ["", "-2", "-3"] {
            p.send("e\rl");
            let want = format!("{suffix}.csv");
            let s = p.wait_until(std::time::Duration::from_secs(20), |s| {
                s.contains("exported ") && s.contains(&want) || s.contains("csvl")
            });
            assert!(!s.contains("csvl"), "the l went into the path:\n{s}");
            let now = files(home.path());
            let new: Vec<&String> = now.iter().filter(|n| !before.contains(n)).collect();
            assert_eq!(new.len(), 1, "one new file: {now:?}\n{s}");
            assert!(new[0].ends_with(&want), "{new:?}\n{s}");
            let text = std::fs::read_to_string(home.path().join(new[0])).unwrap();
            let rows = csv_ids(&text).len();
            common::assert_has(&s, &format!("exported {rows} rows to ./{}", new[0]));
            assert!(rows > 0 && s.contains(&format!("{rows} loaded")), "{s}");
            assert!(
                !s.contains("export to") && !s.contains("l the "),
                "no prompt left:\n{s}"
            );
            before = now;
        }
        // `e` and Enter in one write, then `l` once a question shows: the day's name is taken,
        // and the question is the scope's (the name the prompt was about to propose), never
        // the taken name's, where the `l` would land in the path (`…csvl`)
        p.send("e\r");
        let s = p.wait_until(std::time::Duration::from_secs(20), |s| {
            s.contains("l the ") || s.contains("exists")
        });
        assert!(!s.contains("exists"), "the taken name's prompt:\n{s}");
        p.send("l");
        let s = p.wait_until(std::time::Duration::from_secs(20), |s| {
            s.contains("exported ") && s.contains("-4.csv") || s.contains("csvl")
        });
        assert!(!s.contains("csvl"), "the l went into the path:\n{s}");
        assert!(
            files(home.path()).iter().any(|n| n.ends_with("-4.csv")),
            "{s}"
        );
        // A name typed that exists: its question holds the keyboard, the `l` typed ahead of it
        // is not taken (the guidance says so) and the path is the free one, untouched
        p.send("e\x15mine.csv\rl");
        p.wait_until(std::time::Duration::from_secs(20), |s| {
            s.contains("exported ") && s.contains("mine.csv")
        });
        p.send("e\x15mine.csv\rl");
        let s = p.wait_for("mine-2.csv");
        assert!(!s.contains("mine-2.csvl"), "{s}");
        common::assert_has(&s, "not taken");
        p.send("\x1b");
        p.wait_gone("mine-2.csv", std::time::Duration::from_secs(20));
        p.quit_with_0();
    }
}
