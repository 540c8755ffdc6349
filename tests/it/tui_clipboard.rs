//! Issue 25 §6: `y` copies to the system clipboard where one is reachable (a clipboard
//! program on PATH for the display in use), else with OSC 52, and the status line says which
//! was done. The real binary in a pty against the demo server, with fake clipboard programs
//! on PATH (as tui_signals does with BROWSER for `o`).
#![cfg(unix)]

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use base64::Engine as _;
use common::Demo;
use common::pty::Pty;
use convo::demo::Faults;

const WITHIN: Duration = Duration::from_secs(20);

/// A script `name` in `dir` that runs `body` (sh).
fn script(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let f = dir.join(name);
    std::fs::write(&f, format!("#!/bin/sh\n{body}\n")).expect("script");
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).expect("+x");
}

/// A fake `name` in `dir` that writes its arguments, what it reads and `<end>` into the file
/// `dir/name.txt`; that file's path.
fn recorder(dir: &Path, name: &str) -> std::path::PathBuf {
    let into = dir.join(format!("{name}.txt"));
    let body = format!(
        "{{ printf '%s\\n' \"$*\"; cat; printf '\\n<end>\\n'; }} > '{}'",
        into.display()
    );
    script(dir, name, &body);
    into
}

/// `y`, then the screen once the status line says `said`, and the one id sent by OSC 52.
fn y_by_osc52(p: &mut Pty, said: &str) -> (String, String) {
    p.send(b"y");
    let screen = p.wait_until(WITHIN, |s| status_line(s).contains(said));
    let mut sent = osc52_payloads(&p.raw());
    assert_eq!(sent.len(), 1, "one OSC 52 sequence: {sent:?}");
    (screen, sent.remove(0))
}

/// A demo server, a home, and an empty `bin` directory in it for fake programs.
fn demo_home_bin() -> (Demo, tempfile::TempDir, std::path::PathBuf) {
    let demo = Demo::start(300, 20, Faults::default());
    let tmp = tempfile::tempdir().expect("tmp");
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).expect("bin");
    (demo, tmp, bin)
}

/// A PATH that finds the programs in `bin` first, then the system's.
fn path_first(bin: &Path) -> String {
    format!("{}:/usr/bin:/bin", bin.display())
}

/// convo at 200x30 with only `env` (and HOME, the key, a log file) against `demo`, its first
/// page on screen.
fn start(demo: &Demo, tmp: &Path, env: &[(&str, &str)]) -> Pty {
    start_sized(demo, tmp, env, (200, 30))
}

fn start_sized(demo: &Demo, tmp: &Path, env: &[(&str, &str)], (w, h): (u16, u16)) -> Pty {
    let cfg = common::file(
        tmp,
        "config.toml",
        format!("base_url = {:?}\nstore = false\n", demo.url()),
    );
    let home = tmp.to_string_lossy().to_string();
    let log = tmp.join("convo.log").to_string_lossy().to_string();
    let key = demo.key();
    let mut all = vec![
        ("HOME", home.as_str()),
        ("CONVO_API_KEY", key.as_str()),
        ("CONVO_LOG_FILE", log.as_str()),
    ];
    all.extend_from_slice(env);
    let p = Pty::spawn(&["--config", cfg.to_str().expect("path")], &all, w, h);
    p.wait_until(WITHIN, |s| s.contains("more available"));
    p
}

fn status_line(screen: &str) -> String {
    screen.lines().last().unwrap_or_default().trim().to_string()
}

/// The UUIDs OSC 52 sequences in `raw` asked the terminal to copy.
fn osc52_payloads(raw: &[u8]) -> Vec<String> {
    let raw = String::from_utf8_lossy(raw);
    raw.split("\u{1b}]52;c;")
        .skip(1)
        .filter_map(|rest| rest.split('\u{7}').next())
        .filter_map(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
        .filter_map(|b| String::from_utf8(b).ok())
        .collect()
}

fn wait_file(path: &Path) -> String {
    let start = Instant::now();
    while start.elapsed() < WITHIN {
        if let Ok(s) = std::fs::read_to_string(path)
            && s.ends_with("<end>\n")
        {
            return s;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("{} was not written", path.display());
}

/// With a display and xclip on PATH, `y` gives xclip the id (clipboard selection) and says
/// so; no OSC 52 goes to the terminal.
#[test]
fn y_copies_with_xclip_when_there_is_a_display_and_says_so() {
    let (demo, tmp, bin) = demo_home_bin();
    let got = recorder(&bin, "xclip");
    let path = path_first(&bin);
    let mut p = start(&demo, tmp.path(), &[("PATH", &path), ("DISPLAY", ":0")]);
    p.send(b"y");
    let text = wait_file(&got);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("-selection clipboard"), "{text:?}");
    let id = lines.next().unwrap_or_default().to_string();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{text:?}");
    let screen = p.wait_until(WITHIN, |s| status_line(s).contains("system clipboard"));
    assert_eq!(
        status_line(&screen),
        format!("copied {}… to the system clipboard (xclip)", &id[..8])
    );
    assert!(osc52_payloads(&p.raw()).is_empty());
    p.quit_with_0();
}

/// xclip that cannot reach the display: the id goes by OSC 52 instead, and the status line
/// says both.
#[test]
fn y_falls_back_to_osc52_when_xclip_fails_and_says_why() {
    let (demo, tmp, bin) = demo_home_bin();
    script(
        &bin,
        "xclip",
        "cat > /dev/null; echo \"Error: Can't open display: :0\" >&2; exit 1",
    );
    let path = path_first(&bin);
    let mut p = start(&demo, tmp.path(), &[("PATH", &path), ("DISPLAY", ":0")]);
    let (screen, sent) = y_by_osc52(&mut p, "instead");
    assert_eq!(
        status_line(&screen),
        format!(
            "xclip failed (Error: Can't open display: :0): {}… sent to the terminal's clipboard (OSC 52) instead",
            &sent[..8]
        )
    );
    p.quit_with_0();
}

/// No clipboard program reachable, inside tmux: OSC 52, and the status line says that it was
/// sent to the terminal and what tmux needs to pass it on, not "copied".
#[test]
fn y_without_a_clipboard_program_says_it_was_sent_to_the_terminal() {
    let (demo, tmp, empty) = demo_home_bin();
    let path = empty.display().to_string();
    let mut p = start(
        &demo,
        tmp.path(),
        &[
            ("PATH", &path),
            ("DISPLAY", ":0"),
            ("TMUX", "/tmp/tmux-1000/default,1,0"),
        ],
    );
    let (screen, sent) = y_by_osc52(&mut p, "OSC 52");
    assert!(uuid::Uuid::parse_str(&sent).is_ok());
    assert_eq!(
        status_line(&screen),
        format!(
            "{}… sent by OSC 52; tmux passes it on only with `set-clipboard on`",
            &sent[..8]
        )
    );
    assert!(!screen.contains("copied"), "{screen}");
    p.quit_with_0();
}

/// Inside tmux with no display, at 80 columns: `y` gives tmux's buffer the whole id, and the
/// status line says so whole, naming the id short (notices are not kept for the help overlay,
/// so a cut one could not be read).
#[test]
fn y_inside_tmux_at_80_columns_says_it_whole_with_the_short_id() {
    let (demo, tmp, bin) = demo_home_bin();
    let got = recorder(&bin, "tmux");
    let path = path_first(&bin);
    let mut p = start_sized(
        &demo,
        tmp.path(),
        &[("PATH", &path), ("TMUX", "/tmp/tmux-1000/default,1,0")],
        (80, 24),
    );
    p.send(b"y");
    let text = wait_file(&got);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("load-buffer -w -"), "{text:?}");
    let id = lines.next().unwrap_or_default().to_string();
    assert!(
        uuid::Uuid::parse_str(&id).is_ok(),
        "the whole id is copied: {text:?}"
    );
    let screen = p.wait_until(WITHIN, |s| status_line(s).contains("paste buffer"));
    assert_eq!(
        status_line(&screen),
        format!(
            "put {}… in tmux's paste buffer; tmux sends it on to the terminal",
            &id[..8]
        ),
        "{screen}"
    );
    p.quit_with_0();
}
