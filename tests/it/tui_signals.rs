//! Signals, job control, task panics and mouse capture, end to end: the real binary in a
//! pseudo-terminal against a demo server on a random loopback port, with real signals
//! (SIGTERM, SIGHUP, SIGQUIT, Ctrl-Z under a real interactive bash) and the bytes the binary
//! writes read back (vt100 for the screen, the raw bytes for the mode sequences, the pty's
//! termios for raw mode).
#![cfg(unix)]

use std::path::Path;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::sys::termios::LocalFlags;
use nix::unistd::Pid;
use portable_pty::CommandBuilder;

use convo::demo::{DemoOptions, DemoServer};

use crate::common;
use common::Demo;
use common::pty::{Pty, WAIT, clean_env};

const ROWS: u16 = 30;
const COLS: u16 = 120;

/// Mouse modes crossterm's `EnableMouseCapture` turns on (and `DisableMouseCapture` off).
const MOUSE_MODES: [&str; 5] = ["?1000", "?1002", "?1003", "?1015", "?1006"];

fn demo() -> Demo {
    Demo::with(DemoOptions {
        seed: 5,
        conversations: 120,
        visitors: 30,
        ..DemoOptions::default()
    })
}

/// The environment and arguments of a convo run against `server` with `config` as its file.
fn convo_env(cmd: &mut CommandBuilder, server: &DemoServer, tmp: &Path, extra: &[(&str, &str)]) {
    clean_env(cmd, tmp);
    cmd.env("CONVO_API_KEY", server.api_key());
    for (k, v) in extra {
        cmd.env(k, v);
    }
}

/// `tmp/convo.toml` holding the demo server's URL and `config`.
fn config_file(server: &DemoServer, tmp: &Path, config: &str) -> std::path::PathBuf {
    let text = format!("base_url = \"{}\"\n{config}", server.base_url());
    common::file(tmp, "convo.toml", text)
}

/// Starts convo itself as the pty's process, with a config file holding `config` (plus the
/// demo server's URL).
fn start(server: &DemoServer, tmp: &Path, config: &str, extra: &[(&str, &str)]) -> Pty {
    let file = config_file(server, tmp, config);
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_convo"));
    convo_env(&mut cmd, server, tmp, extra);
    cmd.arg("--config");
    cmd.arg(&file);
    Pty::run(cmd, COLS, ROWS)
}

/// [`start`] against a new [`demo`] in a new home, once the table shows; the demo and home
/// live as long as the caller keeps them.
fn started(config: &str) -> (Pty, Demo, tempfile::TempDir) {
    let server = demo();
    let tmp = tempfile::tempdir().expect("tmp");
    let p = start(&server, tmp.path(), config, &[]);
    p.wait_for("more available");
    (p, server, tmp)
}

/// The log convo wrote in `home` (empty when none).
fn log(home: &Path) -> String {
    std::fs::read_to_string(home.join("convo.log")).unwrap_or_default()
}

fn raw_mode_is_on(flags: LocalFlags) -> bool {
    !flags.intersects(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG)
}

fn sane(flags: LocalFlags) -> bool {
    flags.contains(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG)
}

/// Waits (briefly) for the pty's local modes to satisfy `ok`.
fn wait_flags(p: &Pty, ok: fn(LocalFlags) -> bool) -> LocalFlags {
    let start = Instant::now();
    loop {
        let f = p.local_flags();
        if ok(f) || start.elapsed() > Duration::from_secs(5) {
            return f;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_sighup_and_sigquit_restore_the_terminal_and_exit_128_plus_the_signal() {
    let server = demo();
    for (signal, code) in [
        (Signal::SIGTERM, 143),
        (Signal::SIGHUP, 129),
        (Signal::SIGQUIT, 131),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut p = start(&server, tmp.path(), "mouse = true\n", &[]);
        assert!(sane(p.initial_flags()), "a new pty starts in cooked mode");
        p.wait_for("more available");
        assert!(
            raw_mode_is_on(wait_flags(&p, raw_mode_is_on)),
            "{signal}: raw mode is on while convo runs"
        );
        let pid = Pid::from_raw(p.pid() as i32);
        kill(pid, signal).expect("kill");
        assert_eq!(p.exit_code(), code, "{signal}: exit status 128 + signal");
        let out = p.text();
        // Mouse reporting off after it was turned on, then the main screen and the cursor,
        // and nothing after that.
        for mode in MOUSE_MODES {
            let on = out.rfind(&format!("\u{1b}[{mode}h")).expect("mouse was on");
            let off = out.rfind(&format!("\u{1b}[{mode}l"));
            assert!(
                off.is_some_and(|off| off > on),
                "{signal}: mouse mode {mode} turned off"
            );
        }
        let on = out.rfind("\u{1b}[?2004h").expect("bracketed paste was on");
        assert!(
            out.rfind("\u{1b}[?2004l").is_some_and(|off| off > on),
            "{signal}: bracketed paste turned off"
        );
        assert!(
            out.ends_with("\u{1b}[?1049l\u{1b}[?25h"),
            "{signal}: the output ends by leaving the alternate screen and showing the cursor: {:?}",
            &out[out.len().saturating_sub(120)..]
        );
        let flags = wait_flags(&p, sane);
        assert!(
            sane(flags),
            "{signal}: the terminal is cooked again (ICANON, ECHO, ISIG): {flags:?}"
        );
    }
}

/// A stop signal does not wait for the browser loop: when the loop never comes back (here it
/// is made to sleep after its first frame; in the field crossterm's reader can spin for ever
/// on a terminal that hung up), the signal's own task restores the terminal and exits.
#[test]
fn a_stop_signal_ends_convo_even_when_the_loop_does_not_answer() {
    let server = demo();
    let tmp = tempfile::tempdir().expect("tmp");
    let mut p = start(&server, tmp.path(), "", &[("CONVO_TEST_PANIC", "stall")]);
    p.wait_for("STATUS");
    assert!(
        raw_mode_is_on(wait_flags(&p, raw_mode_is_on)),
        "raw mode is on while convo runs"
    );
    let log = tmp.path().join("convo.log");
    let start = Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("stops answering")
    {
        assert!(start.elapsed() < WAIT, "the loop never stalled");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = Pid::from_raw(p.pid() as i32);
    kill(pid, Signal::SIGTERM).expect("kill");
    assert_eq!(p.exit_code(), 143, "exit status 128 + SIGTERM");
    let out = p.text();
    assert!(
        out.ends_with("\u{1b}[?1049l\u{1b}[?25h"),
        "the output ends by leaving the alternate screen and showing the cursor: {:?}",
        &out[out.len().saturating_sub(120)..]
    );
    let flags = wait_flags(&p, sane);
    assert!(sane(flags), "the terminal is cooked again: {flags:?}");
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(log.contains("did not answer the signal"), "{log}");
}

/// The children of `pid` (Linux: /proc/PID/task/PID/children).
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// The state letter of /proc/PID/stat (`T`: stopped by job control).
fn state(pid: u32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // "pid (comm) S ...": the state follows the last ')'.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next())
        .unwrap_or('?')
}

/// The id shown in a row's line (the `ID` column, the last one), if any: whole, or its first 8
/// hex digits when the terminal has no room for all of it.
fn row_id(line: &str) -> Option<String> {
    let short = |w: &str| w.len() == 8 && w.bytes().all(|b| b.is_ascii_hexdigit());
    line.split_whitespace()
        .rev()
        .find(|w| uuid::Uuid::parse_str(w).is_ok() || short(w))
        .map(str::to_string)
}

/// The line of the selected row (the one the table marks with `>`).
fn selected_line(screen: &str) -> Option<String> {
    screen
        .lines()
        .find(|l| l.starts_with('>'))
        .map(|l| l.trim_end().to_string())
}

#[test]
fn ctrl_z_suspends_to_the_shell_and_fg_resumes_with_a_full_redraw_and_the_same_state() {
    if !Path::new("/proc/self/stat").exists() {
        eprintln!("skipped: needs /proc to see the stopped state");
        return;
    }
    let server = demo();
    let tmp = tempfile::tempdir().expect("tmp");
    let file = config_file(&server, tmp.path(), "");
    // A real interactive shell with job control owns the terminal; convo is its job.
    let mut cmd = CommandBuilder::new("bash");
    cmd.args(["--norc", "--noprofile", "-i"]);
    convo_env(&mut cmd, &server, tmp.path(), &[("PS1", "shell$ ")]);
    let mut p = Pty::run(cmd, COLS, ROWS);
    p.wait_for("shell$");
    let bash = p.pid();
    p.send(
        format!(
            "{} --config {}\r",
            env!("CARGO_BIN_EXE_convo"),
            file.display()
        )
        .as_bytes(),
    );
    p.wait_for("more available");
    let convo = children(bash).into_iter().next().expect("convo runs");

    // Some state: a status filter and a selection a few rows down.
    p.send(b"s");
    p.wait_for(" status:open ");
    // The filtered walk's first page must be on screen first: a j pressed while it loads
    // has no row to move to.
    let start = Instant::now();
    while !selected_line(&p.screen()).is_some_and(|l| l.contains("open")) {
        assert!(start.elapsed() < WAIT, "no open rows:\n{}", p.screen());
        std::thread::sleep(Duration::from_millis(30));
    }
    p.send(b"jjj");
    let start = Instant::now();
    let before = loop {
        let s = p.screen();
        let line = selected_line(&s);
        if line
            .as_ref()
            .is_some_and(|l| s.lines().nth(6) == Some(l.as_str()))
        {
            break line.expect("selected");
        }
        assert!(start.elapsed() < WAIT, "the selection did not move:\n{s}");
        std::thread::sleep(Duration::from_millis(30));
    };
    let id = row_id(&before).expect("the selected row shows its id");
    assert!(raw_mode_is_on(wait_flags(&p, raw_mode_is_on)));

    // Ctrl-Z: the terminal is restored, then the process stops and the shell takes over.
    let mark = p.raw().len();
    p.send(b"\x1a");
    p.wait_for("Stopped");
    let start = Instant::now();
    while state(convo) != 'T' {
        assert!(
            start.elapsed() < WAIT,
            "convo is not stopped: {}",
            state(convo)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let suspend = String::from_utf8_lossy(&p.raw()[mark..]).into_owned();
    let at = |what: &str, seq: &str| {
        suspend
            .find(seq)
            .unwrap_or_else(|| panic!("{what}: {suspend:?}"))
    };
    let left = at(
        "the alternate screen is left before stopping",
        "\u{1b}[?1049l",
    );
    let shown = at("the cursor is shown before stopping", "\u{1b}[?25h");
    let stopped = at("the shell's job message", "Stopped");
    assert!(left < stopped && shown < stopped, "{suspend:?}");
    let screen = p.screen();
    assert!(
        !screen.contains("STATUS"),
        "the shell's screen, not convo's:\n{screen}"
    );

    // fg: convo takes the terminal again, in raw mode, and draws everything anew.
    let mark = p.raw().len();
    p.send(b"fg\r");
    p.wait_for(" status:open ");
    let start = Instant::now();
    loop {
        // Only what convo wrote after fg, on a blank terminal: a full frame, same state.
        let redrawn = p.screen_of(&p.raw()[mark..]);
        if redrawn.contains("STATUS") && selected_line(&redrawn).is_some() {
            assert!(redrawn.contains("Conversations"), "{redrawn}");
            assert!(
                redrawn.contains(" status:open "),
                "filters kept:\n{redrawn}"
            );
            let line = selected_line(&redrawn).expect("selected");
            assert_eq!(
                row_id(&line),
                Some(id.clone()),
                "same selection:\n{redrawn}"
            );
            assert_eq!(
                redrawn.lines().position(|l| l.starts_with('>')),
                Some(6),
                "on the same screen line:\n{redrawn}"
            );
            break;
        }
        assert!(
            start.elapsed() < WAIT,
            "no full redraw after fg; from fg on, the screen is:\n{redrawn}"
        );
        std::thread::sleep(Duration::from_millis(30));
    }
    assert_ne!(state(convo), 'T');
    assert!(
        raw_mode_is_on(wait_flags(&p, raw_mode_is_on)),
        "raw mode again after fg"
    );
    // Keys work again, and quitting gives the shell a clean terminal.
    p.send(b"j");
    let start = Instant::now();
    while selected_line(&p.screen()).and_then(|l| row_id(&l)) == Some(id.clone()) {
        assert!(start.elapsed() < WAIT, "j did nothing after fg");
        std::thread::sleep(Duration::from_millis(30));
    }
    p.send(b"q");
    p.wait_for("shell$");
    p.send(b"echo convo-exit=$?\r");
    p.wait_for("convo-exit=0");
    p.send(b"exit\r");
    p.exit_code();
}

#[test]
fn a_panic_in_a_fetch_task_is_an_error_on_screen_and_r_recovers() {
    let server = demo();
    let tmp = tempfile::tempdir().expect("tmp");
    let mut p = start(&server, tmp.path(), "", &[("CONVO_TEST_PANIC", "fetch")]);
    let screen = p.wait_for("internal error (a bug in convo)");
    assert!(
        screen.contains("CONVO_TEST_PANIC=fetch"),
        "the panic's message is shown:\n{screen}"
    );
    assert!(p.running(), "convo goes on");
    let out = p.text();
    assert!(
        !out.contains("panicked"),
        "the panic is not printed over the screen: {out:?}"
    );
    assert!(
        !out.contains("\u{1b}[?1049l"),
        "the terminal was not restored underneath a running convo"
    );
    assert!(raw_mode_is_on(p.local_flags()));
    // r retries the page that failed: the rows arrive and the error goes.
    p.send(b"r");
    let screen = p.wait_until(WAIT, |s| {
        s.contains("0 loaded · more available") && !s.contains("internal error")
    });
    assert!(screen.contains("STATUS"), "{screen}");
    p.quit_with_0();
    let log = log(tmp.path());
    assert!(
        log.contains("CONVO_TEST_PANIC=fetch"),
        "the panic is in the log: {log}"
    );
}

#[test]
fn without_mouse_true_no_mouse_capture_sequence_is_sent() {
    let (mut p, _server, _tmp) = started("");
    p.quit_with_0();
    let out = p.text();
    assert!(out.contains("\u{1b}[?1049h"), "it did draw: {out:?}");
    for mode in MOUSE_MODES {
        assert!(
            !out.contains(&format!("\u{1b}[{mode}")),
            "mouse mode {mode} was touched without mouse = true"
        );
    }
}

#[test]
fn with_mouse_true_capture_is_on_and_a_click_selects_a_row() {
    let (mut p, _server, _tmp) = started("mouse = true\n");
    let screen = p.wait_for("ago");
    let out = p.text();
    for mode in MOUSE_MODES {
        assert!(
            out.contains(&format!("\u{1b}[{mode}h")),
            "mouse mode {mode} on"
        );
    }
    // The fifth row (screen line 7): an SGR left click there, as the terminal sends it.
    let target = screen.lines().nth(7).expect("a row").trim_end().to_string();
    let id = row_id(&target).unwrap_or_else(|| panic!("a row on line 7:\n{screen}"));
    p.send(b"\x1b[<0;10;8M\x1b[<0;10;8m");
    let start = Instant::now();
    loop {
        let s = p.screen();
        if selected_line(&s).and_then(|l| row_id(&l)) == Some(id.clone()) {
            assert_eq!(s.lines().position(|l| l.starts_with('>')), Some(7), "{s}");
            break;
        }
        assert!(start.elapsed() < WAIT, "the click did not select:\n{s}");
        std::thread::sleep(Duration::from_millis(30));
    }
    p.quit_with_0();
}

/// Closes every copy of the pty's master (a closed window, a dropped SSH connection) once
/// convo shows its table, and waits for the pty's process to end.
fn close_the_terminal(p: Pty, tmp: &Path) -> portable_pty::ExitStatus {
    p.wait_for("more available");
    // Every copy of the master must go for the terminal to hang up: the reader thread lets go
    // of its copy after the next read (a key makes convo draw).
    let mut child = p.hang_up(b"j");
    let start = Instant::now();
    loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            return st;
        }
        if start.elapsed() > WAIT {
            let why = process_report(child.process_id());
            let _ = child.kill();
            let log = log(tmp);
            panic!("convo kept running after its terminal was closed\n{why}\nlog:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn closing_the_terminal_ends_convo_with_129() {
    let server = demo();
    let tmp = tempfile::tempdir().expect("tmp");
    let p = start(&server, tmp.path(), "", &[]);
    // convo leads the pty's session: the kernel hangs the session up and sends it SIGHUP.
    let status = close_the_terminal(p, tmp.path());
    let log = log(tmp.path());
    assert_eq!(status.exit_code(), 129, "{status:?}; log:\n{log}");
}

/// Started by a shell that ignores SIGHUP (or by any parent that leads the session and does
/// not pass the hang-up on), convo hears no signal when its terminal goes: it notices the
/// hang-up itself and ends as if SIGHUP had come, instead of running on with nobody to see.
#[test]
fn a_hang_up_without_sighup_still_ends_convo_with_129() {
    let server = demo();
    let tmp = tempfile::tempdir().expect("tmp");
    let file = config_file(&server, tmp.path(), "");
    let code = tmp.path().join("code");
    let mut cmd = CommandBuilder::new("sh");
    convo_env(&mut cmd, &server, tmp.path(), &[]);
    cmd.arg("-c");
    // The shell leads the session and ignores the hang-up; convo runs as its child (not
    // exec'd: a command follows), so the kernel's SIGHUP never reaches it.
    cmd.arg(format!(
        "trap '' HUP; '{}' --config '{}'; echo $? > '{}'",
        env!("CARGO_BIN_EXE_convo"),
        file.display(),
        code.display()
    ));
    let status = close_the_terminal(Pty::run(cmd, COLS, ROWS), tmp.path());
    assert!(status.success(), "the shell: {status:?}");
    let log = log(tmp.path());
    assert_eq!(
        std::fs::read_to_string(&code)
            .expect("convo's exit code")
            .trim(),
        "129",
        "log:\n{log}"
    );
    assert!(log.contains("the terminal hung up"), "log:\n{log}");
}

#[test]
fn ctrl_z_without_a_shell_to_return_to_says_so_and_keeps_the_screen() {
    // Started directly in the pty, convo leads its own session: no shell could resume it.
    let (mut p, _server, _tmp) = started("");
    let pid = p.pid();
    p.send(b"\x1a");
    let screen = p.wait_for("cannot suspend");
    assert!(screen.contains("STATUS"), "the table stays:\n{screen}");
    assert_ne!(state(pid), 'T');
    assert!(
        !p.text().contains("\u{1b}[?1049l"),
        "the terminal was not left"
    );
    assert!(raw_mode_is_on(p.local_flags()));
    p.quit_with_0();
}

/// Bracketed paste: text pasted into the search prompt arrives as one piece (its line break
/// does not submit the search), and the mode is turned off at quit.
#[test]
fn a_paste_into_the_search_prompt_is_one_piece_and_the_mode_is_restored() {
    let (mut p, _server, _tmp) = started("");
    p.send(b"\\");
    p.send(b"\x1b[200~pending\r\n\x1b[201~");
    // Still in the prompt (the pasted line break did not submit), the text in one line.
    p.wait_for("search (Enter keeps, Esc clears): pending");
    p.send(b"\x1b");
    p.wait_for("search cleared");
    p.quit_with_0();
    let out = p.text();
    let on = out.find("\u{1b}[?2004h").expect("bracketed paste on");
    assert!(out.rfind("\u{1b}[?2004l").is_some_and(|off| off > on));
}

/// `o` opens the selected row's web URL with the browser `$BROWSER` names (as the
/// `webbrowser` crate honours it; xdg-open, macOS and WSL otherwise), the URL one argument.
#[test]
fn o_opens_the_selected_row_in_the_browser_that_browser_names() {
    let server = demo();
    let tmp = tempfile::tempdir().expect("tmp");
    let opened = tmp.path().join("opened.txt");
    let script = common::file(
        tmp.path(),
        "browser.sh",
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n",
            opened.display()
        ),
    );
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("+x");
    }
    let browser = script.to_str().expect("path").to_string();
    let mut p = start(
        &server,
        tmp.path(),
        "web_url = \"https://app.example.com/{tab}/{id}\"\n",
        &[("BROWSER", &browser)],
    );
    p.wait_for("more available");
    let screen = p.wait_until(WAIT, |s| {
        selected_line(s).and_then(|l| row_id(&l)).is_some()
    });
    let id = selected_line(&screen)
        .and_then(|l| row_id(&l))
        .unwrap_or_else(|| panic!("a selected row:\n{screen}"));
    p.send(b"o");
    let start = Instant::now();
    // The fake browser writes the URL and a newline: until the line is whole.
    let whole = || std::fs::read_to_string(&opened).is_ok_and(|t| t.ends_with('\n'));
    while !whole() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let got = std::fs::read_to_string(&opened).expect("the browser was started");
    // The whole id goes into the URL, whatever part of it the table has room for.
    let tail = got
        .strip_prefix("https://app.example.com/conversations/")
        .and_then(|t| t.strip_suffix('\n'))
        .unwrap_or_else(|| panic!("{got:?}"));
    assert!(uuid::Uuid::parse_str(tail).is_ok(), "{got:?}");
    assert!(
        tail.starts_with(&id),
        "{got:?} is not the selected row {id}"
    );
    p.quit_with_0();
}

/// What a process that did not end is doing: its signal masks and each thread's state and
/// kernel wait channel, for the failure message.
fn process_report(pid: Option<u32>) -> String {
    let Some(pid) = pid else {
        return "no pid".into();
    };
    let mut out = String::new();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    for l in status.lines() {
        if l.starts_with("State") || l.starts_with("Sig") || l.starts_with("ShdPnd") {
            out.push_str(l);
            out.push('\n');
        }
    }
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            let p = t.path();
            let read = |f: &str| std::fs::read_to_string(p.join(f)).unwrap_or_default();
            out.push_str(&format!(
                "thread {:?} {} wchan={} {}\n",
                t.file_name(),
                read("comm").trim(),
                read("wchan").trim(),
                read("stat").split(' ').nth(2).unwrap_or("?"),
            ));
            out.push_str(&read("stack"));
        }
    }
    out
}
