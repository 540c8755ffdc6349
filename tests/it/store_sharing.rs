//! Several convo processes on one store (issue 41): the real binary, two browsers in
//! pseudo-terminals and scripts beside them, one profile, against the demo server. The visitor
//! walk is done once (one holds the store's lease, the others follow it), a killed or stopped
//! walker is taken over from the cursor kept, and no process meets a locked store. Repeated
//! cursors are counted from the demo server's own log of the visitors pages it served.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::pty::{self, Pty};
use common::{Demo, convo_std_cmd};
use convo::demo::DemoOptions;

/// Pace of the walk: fast enough for a test, slow enough that the walk spans the processes'
/// start-ups. Page size 25: the browsers' own visitors pages never share a query with the
/// sync's (limit=100).
const CONFIG: &str = "visitor_sync_rps = 25\npage_size = 25\n";

fn demo(visitors: usize) -> Demo {
    Demo::with(DemoOptions {
        seed: 41,
        conversations: 400,
        visitors,
        ..DemoOptions::default()
    })
}

/// A home shared by every process of the test (one config, one data dir, so one store).
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("a home");
    let dir = home.path().join("config/convo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), CONFIG).unwrap();
    home
}

/// A browser in a wide terminal, in `home`; `env`: test switches.
fn browser(d: &Demo, home: &Path, env: &[(&str, &str)]) -> Pty {
    let mut cmd = pty::command(home);
    cmd.env("CONVO_API_KEY", d.key());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(["--base-url", &d.url()]);
    Pty::run(cmd, 200, 30)
}

/// `convo ARGS` in `home` (its config), to the end: (exit code, stdout, stderr).
fn script(d: &Demo, home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = convo_std_cmd(home)
        .env("CONVO_CONFIG", home.join("config/convo/config.toml"))
        .env("CONVO_API_KEY", d.key())
        .args(["--base-url", &d.url()])
        .args(args)
        .output()
        .expect("convo runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn store_path(d: &Demo, home: &Path) -> PathBuf {
    let (code, out, err) = script(d, home, &["store", "path"]);
    assert_eq!(code, 0, "{err}");
    PathBuf::from(out.trim())
}

/// Where the walk stands, as the store says (the test is one more process on it).
fn state(path: &Path) -> Option<convo::store::SyncState> {
    if !path.exists() {
        return None;
    }
    convo::store::Store::open(path).ok()?.sync_state().ok()
}

/// Polls `done` (every 50 ms, at most `within`), with the screens of `ptys` when it fails.
fn wait(within: Duration, what: &str, ptys: &[&Pty], mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !done() {
        if Instant::now() > deadline {
            let screens: Vec<String> = ptys.iter().map(|p| p.screen()).collect();
            panic!(
                "{what}: not within {within:?}; screens:\n{}",
                screens.join("\n----\n")
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Nothing any process said mentions a locked or busy store.
#[track_caller]
fn no_store_trouble(text: &str) {
    for bad in ["locked", "busy", "warning"] {
        assert!(!text.contains(bad), "{bad:?} in:\n{text}");
    }
}

/// Pages of one walk of `visitors` (100 a page).
fn pages(visitors: usize) -> usize {
    visitors.div_ceil(100)
}

#[test]
fn two_browsers_and_scripts_walk_the_visitors_once() {
    const VISITORS: usize = 15_000;
    let d = demo(VISITORS);
    let home = home();
    let path = store_path(&d, home.path());
    let a = browser(&d, home.path(), &[]);
    let b = browser(&d, home.path(), &[]);
    a.wait_for("quit");
    b.wait_for("quit");
    // Scripts beside them for as long as the walk goes: one that reads names from the store,
    // one that writes visitors into it.
    let mut followed = false;
    let mut runs = 0;
    let deadline = Instant::now() + Duration::from_secs(90);
    while state(&path).is_none_or(|s| s.finished_at.is_none()) {
        assert!(
            Instant::now() < deadline,
            "the walk never ended:\n{}\n----\n{}",
            a.screen(),
            b.screen()
        );
        for args in [
            &["list", "conversations", "--with-visitor", "--limit", "50"][..],
            &["list", "visitors", "--limit", "30"][..],
        ] {
            let (code, out, err) = script(&d, home.path(), args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert!(!out.is_empty(), "{args:?}");
            no_store_trouble(&err);
            runs += 1;
        }
        followed |= [&a, &b]
            .iter()
            .any(|p| p.screen().contains("walked by another convo"));
    }
    let (repeated, with_cursor) = d.repeated_visitor_cursors();
    let sync_pages = d
        .visitor_requests()
        .iter()
        .filter(|q| q.contains("limit=100"))
        .count();
    eprintln!(
        "two browsers + {runs} script runs: {sync_pages} visitors pages of 100 for a walk of {}, \
         {repeated} of {with_cursor} cursors repeated",
        pages(VISITORS)
    );
    assert!(followed, "neither browser followed the other's walk");
    assert!(
        repeated * 10 <= with_cursor,
        "{repeated} of {with_cursor} cursors asked twice: the walk was repeated"
    );
    // One walk, and the checks of its new end (a first page each), not two walks.
    assert!(
        sync_pages <= pages(VISITORS) + pages(VISITORS) / 2,
        "{sync_pages} pages for a walk of {}",
        pages(VISITORS)
    );
    for mut p in [a, b] {
        let screen = p.screen();
        no_store_trouble(&screen);
        p.quit_with_0();
    }
    let log = std::fs::read_to_string(home.path().join("convo.log")).unwrap_or_default();
    assert!(!log.contains("database is locked"), "{log}");
}

#[test]
fn a_killed_walker_is_taken_over_from_its_cursor() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    const VISITORS: usize = 20_000;
    let d = demo(VISITORS);
    let home = home();
    let path = store_path(&d, home.path());
    let a = browser(&d, home.path(), &[]);
    wait(Duration::from_secs(30), "a walks", &[&a], || {
        state(&path).is_some_and(|s| s.walked >= 1000)
    });
    let mut b = browser(&d, home.path(), &[]);
    b.wait_for_in("walked by another convo", Duration::from_secs(20));
    kill(Pid::from_raw(a.pid() as i32), Signal::SIGKILL).unwrap();
    let served = d.visitor_requests().len();
    let at_kill = state(&path).unwrap().walked;
    // B takes over: it asks for the next page itself, and its line is its own walk's.
    wait(Duration::from_secs(60), "b takes over", &[&b], || {
        d.visitor_requests().len() > served + 1
            && state(&path).is_some_and(|s| s.walked > at_kill + 100)
    });
    b.wait_gone("walked by another convo", Duration::from_secs(10));
    wait(Duration::from_secs(60), "the walk ends", &[&b], || {
        state(&path).is_some_and(|s| s.finished_at.is_some())
    });
    let (repeated, with_cursor) = d.repeated_visitor_cursors();
    eprintln!("SIGKILL of the walker: {repeated} of {with_cursor} cursors repeated");
    assert!(repeated <= 2, "{repeated} cursors asked twice");
    let s = state(&path).unwrap();
    assert_eq!(
        s.last_total,
        Some(VISITORS as u64),
        "the walk resumed, not restarted"
    );
    no_store_trouble(&b.screen());
    b.quit_with_0();
}

/// A walker that stops answering (SIGSTOP, or a laptop lid closed) keeps its pid: its lease
/// expires (short here, `CONVO_TEST_LEASE_MS`) and the other takes over; woken, the old
/// walker finds its turn gone, writes no stale cursor and follows.
#[test]
fn a_stopped_walker_loses_its_lease_and_then_follows() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    const VISITORS: usize = 20_000;
    let lease = [("CONVO_TEST_LEASE_MS", "1500")];
    let d = demo(VISITORS);
    let home = home();
    let path = store_path(&d, home.path());
    let mut a = browser(&d, home.path(), &lease);
    wait(Duration::from_secs(30), "a walks", &[&a], || {
        state(&path).is_some_and(|s| s.walked >= 1000)
    });
    let mut b = browser(&d, home.path(), &lease);
    b.wait_for_in("walked by another convo", Duration::from_secs(20));
    let pid = Pid::from_raw(a.pid() as i32);
    // Stopped inside a write transaction, a process holds the store's write lock for as long
    // as it is stopped (SQLite's, for every process; nothing convo can take over): stopped
    // again until it is stopped outside one.
    let probe = convo::store::lease::Holder::this_process();
    loop {
        kill(pid, Signal::SIGSTOP).unwrap();
        let opts = convo::store::OpenOptions {
            busy_timeout: Duration::from_millis(300),
            max_pages: None,
            ..convo::store::OpenOptions::default()
        };
        let writable = convo::store::Store::open_with(&path, opts)
            .is_ok_and(|mut s| s.release_lease(&probe).is_ok());
        if writable {
            break;
        }
        kill(pid, Signal::SIGCONT).unwrap();
        std::thread::sleep(Duration::from_millis(30));
    }
    let at_stop = state(&path).unwrap().walked;
    wait(Duration::from_secs(30), "b takes over", &[&b], || {
        state(&path).is_some_and(|s| s.walked > at_stop + 200)
    });
    kill(pid, Signal::SIGCONT).unwrap();
    a.wait_for_in("walked by another convo", Duration::from_secs(20));
    wait(Duration::from_secs(60), "the walk ends", &[&a, &b], || {
        state(&path).is_some_and(|s| s.finished_at.is_some())
    });
    let (repeated, with_cursor) = d.repeated_visitor_cursors();
    eprintln!("SIGSTOP of the walker (lease 1.5 s): {repeated} of {with_cursor} cursors repeated");
    assert!(repeated <= 2, "{repeated} cursors asked twice");
    assert_eq!(state(&path).unwrap().last_total, Some(VISITORS as u64));
    for p in [&mut a, &mut b] {
        no_store_trouble(&p.screen());
        p.quit_with_0();
    }
}

/// Three browsers on one key and one store against a service that allows 20 requests in 10
/// seconds (a minute's budget, shrunk so the test waits seconds, not a minute) and says nothing
/// of it but 429s. The limit is known from an earlier run (the store
/// keeps what a 429 taught; the ledger's own tests show one process's 429 teaching all). The
/// walker's background work takes its share of the minute; then `L` in another window needs
/// more pages than are left: it waits on the budget (what all three sent is counted), and
/// nothing anywhere meets a 429.
#[test]
fn three_processes_on_one_key_the_users_l_meets_no_429() {
    use convo::api::budget::{Learned, Source};
    use convo::demo::{LimitHeaders, RequestBudget};
    const CONVERSATIONS: usize = 350;
    let d = Demo::with(DemoOptions {
        seed: 41,
        conversations: CONVERSATIONS,
        visitors: 30_000,
        budget: Some(RequestBudget {
            limit: 20,
            window: Duration::from_secs(10),
            headers: LimitHeaders::None,
        }),
        ..DemoOptions::default()
    });
    let home = tempfile::tempdir().expect("a home");
    let dir = home.path().join("config/convo");
    std::fs::create_dir_all(&dir).unwrap();
    // 25 a page: `L` is 14 pages, more than the window has left once the walk took its share.
    std::fs::write(
        dir.join("config.toml"),
        "visitor_sync_rps = 50\npage_size = 25\n",
    )
    .unwrap();
    let path = store_path(&d, home.path());
    let learned = Learned {
        limit: 20,
        window: Duration::from_secs(10),
        source: Source::TooManyRequests,
    };
    convo::store::Store::open(&path)
        .unwrap()
        .keep_budget(&learned, jiff::Timestamp::now().as_second())
        .unwrap();
    let mut ptys: Vec<Pty> = (0..3).map(|_| browser(&d, home.path(), &[])).collect();
    for p in &ptys {
        p.wait_for("quit");
    }
    // The others idle: the walk (background) takes its share of the window.
    let refs: Vec<&Pty> = ptys.iter().collect();
    wait(Duration::from_secs(30), "the walk spends", &refs, || {
        d.limit_counts().visitors >= 9
    });
    let l = &mut ptys[1];
    l.send("L");
    let waited = std::cell::Cell::new(false);
    l.wait_until(Duration::from_secs(150), |s| {
        waited.set(waited.get() | s.contains("waiting on the request budget"));
        s.contains("all 350 loaded")
    });
    let waited = waited.get();
    let counts = d.limit_counts();
    eprintln!(
        "three processes, 20 in 10 s, no headers: L waited on the budget: {waited}; served \
         {counts:?}"
    );
    assert_eq!(
        (counts.conversations_refused, counts.visitors_refused),
        (0, 0),
        "429s: {counts:?}"
    );
    assert!(counts.conversations >= 14, "{counts:?}");
    for mut p in ptys {
        no_store_trouble(&p.screen());
        p.quit_with_0();
    }
}

/// `convo store sync` twice at once on one store: one walks, the other follows it to the end
/// (no second walk), and both say every visitor is named.
#[test]
fn two_store_syncs_at_once_walk_once() {
    const VISITORS: usize = 5000;
    let d = demo(VISITORS);
    let home = home();
    let spawn = || {
        convo_std_cmd(home.path())
            .env("CONVO_CONFIG", home.path().join("config/convo/config.toml"))
            .env("CONVO_API_KEY", d.key())
            .args(["--base-url", &d.url(), "store", "sync", "--rps", "25"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("convo store sync")
    };
    let (a, b) = (spawn(), spawn());
    for p in [a, b] {
        let o = p.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        common::assert_has(&err, "names: all 5,000 visitors");
        no_store_trouble(&err);
    }
    let served = d
        .visitor_requests()
        .iter()
        .filter(|q| q.contains("limit=100"))
        .count();
    let (repeated, with_cursor) = d.repeated_visitor_cursors();
    assert_eq!(served, pages(VISITORS), "one walk, not two");
    assert_eq!(repeated, 0, "of {with_cursor}");
}
