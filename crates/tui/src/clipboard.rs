//! Copying an id (`y`) or another field of the row (`Y`): to the system clipboard where one
//! is reachable (a clipboard program
//! on PATH for the display in use), else through the terminal with OSC 52, whose fate convo
//! cannot know (tmux's default `set-clipboard external` drops it). The status line says which
//! was done ([`Copied::words`]). Finding and running the program is I/O, done by the runtime
//! on a thread of its own. The text (a value from the service, for `Y`) goes to the
//! program's stdin or as OSC 52's base64: never into a command line or the terminal raw.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a clipboard program may take before it counts as failed.
const TOOL_TIMEOUT: Duration = Duration::from_secs(3);

/// A clipboard program and how to call it (the text goes to its standard input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    /// What the status line calls it, e.g. `xclip`.
    pub name: &'static str,
    pub program: PathBuf,
    pub args: &'static [&'static str],
}

/// How this session reaches a clipboard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Setup {
    /// The system clipboard's program, if one is reachable.
    pub tool: Option<Tool>,
    /// Inside tmux (`TMUX` set): OSC 52 reaches the terminal only with `set-clipboard on`.
    pub tmux: bool,
}

impl Setup {
    /// From the process's environment.
    pub fn from_env() -> Setup {
        Setup {
            tool: find_tool(|k| std::env::var_os(k)),
            tmux: std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()),
        }
    }
}

/// What copying did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Copied {
    /// The program took the text.
    Tool(&'static str),
    /// The program failed (why); the text was then sent with OSC 52.
    ToolFailed(&'static str, String),
    /// No clipboard program for this session: sent with OSC 52 (`tmux`: inside tmux).
    Terminal { tmux: bool },
}

impl Copied {
    /// The status line's words for copying `text` this way, and whether it is an error. The
    /// id is named short (`2c1c719d…`; the whole id was copied) so that each of these fits
    /// 80 columns: a notice is not kept for the help overlay, so a cut one could not be read.
    pub fn words(&self, text: &str) -> (String, bool) {
        let id = shown(text);
        match self {
            // tmux's buffer is not the system clipboard: `load-buffer -w` asks tmux to pass
            // it on to the terminal's.
            Copied::Tool("tmux") => (
                format!("put {id} in tmux's paste buffer; tmux sends it on to the terminal"),
                false,
            ),
            Copied::Tool(name) => (
                format!("copied {id} to the system clipboard ({name})"),
                false,
            ),
            Copied::ToolFailed(name, why) => (
                format!(
                    "{name} failed ({}): {id} sent to the terminal's clipboard (OSC 52) instead",
                    convo_text::one_line(why, 120),
                ),
                true,
            ),
            Copied::Terminal { tmux: false } => (
                format!("{id} sent to the terminal's clipboard (OSC 52)"),
                false,
            ),
            Copied::Terminal { tmux: true } => (
                format!("{id} sent by OSC 52; tmux passes it on only with `set-clipboard on`"),
                false,
            ),
        }
    }
}

/// How the status line names a copied id: its first 8 hex digits and `…`.
fn shown(text: &str) -> String {
    match uuid::Uuid::parse_str(text) {
        Ok(id) => format!("{}…", convo_api::short_id(&id)),
        Err(_) => convo_text::one_line(text, 40),
    }
}

/// The clipboard program for this session, as `var` reads the environment: wl-copy under
/// Wayland, xclip or xsel under X, pbcopy on macOS, clip.exe under WSL, tmux's own buffer
/// (sent on to the terminal by `load-buffer -w`) inside tmux; `None` for none of these.
pub fn find_tool(var: impl Fn(&str) -> Option<OsString>) -> Option<Tool> {
    let set = |k: &str| var(k).is_some_and(|v| !v.is_empty());
    let path = var("PATH").unwrap_or_default();
    let on_path = |program: &str| {
        std::env::split_paths(&path)
            .map(|d| d.join(program))
            .find(|p| is_executable(p))
    };
    let tool = |name, args, ok: bool| {
        ok.then(|| on_path(name)).flatten().map(|program| Tool {
            name,
            program,
            args,
        })
    };
    let wsl = set("WSL_DISTRO_NAME") || set("WSL_INTEROP");
    tool("wl-copy", &[][..], set("WAYLAND_DISPLAY"))
        .or_else(|| tool("xclip", &["-selection", "clipboard"][..], set("DISPLAY")))
        .or_else(|| tool("xsel", &["--clipboard", "--input"][..], set("DISPLAY")))
        .or_else(|| tool("pbcopy", &[][..], cfg!(target_os = "macos")))
        .or_else(|| tool("clip.exe", &[][..], wsl))
        .or_else(|| tool("tmux", &["load-buffer", "-w", "-"][..], set("TMUX")))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// Runs `tool` with `text` on its standard input; `Err` says why it did not take it.
/// Blocks (at most [`TOOL_TIMEOUT`]): call it on a thread of its own.
pub fn run(tool: &Tool, text: &str) -> Result<(), String> {
    let mut child = Command::new(&tool.program)
        .args(tool.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string())?;
    }
    let start = Instant::now();
    loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) if status.success() => return Ok(()),
            Some(status) => {
                // Read on a thread, briefly: a child the program left behind (xclip and
                // wl-copy stay to serve the selection) may hold the pipe open.
                let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
                if let Some(mut e) = child.stderr.take() {
                    std::thread::spawn(move || {
                        use std::io::Read;
                        let mut buf = [0u8; 1024];
                        while let Ok(n @ 1..) = e.read(&mut buf) {
                            if tx.send(buf[..n].to_vec()).is_err() {
                                break;
                            }
                        }
                    });
                }
                let deadline = Instant::now() + Duration::from_millis(300);
                let mut bytes = Vec::new();
                while let Some(left) = deadline.checked_duration_since(Instant::now())
                    && let Ok(chunk) = rx.recv_timeout(left)
                {
                    bytes.extend(chunk);
                }
                let err = String::from_utf8_lossy(&bytes);
                let err = err.trim();
                return Err(if err.is_empty() {
                    status.to_string()
                } else {
                    err.to_string()
                });
            }
            None if start.elapsed() > TOOL_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer in {}s", TOOL_TIMEOUT.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// The OSC 52 sequence that asks the terminal to put `text` on its clipboard: only its
/// base64 goes out, so nothing in it can end the sequence early.
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_say_where_the_text_went() {
        let id = "2c1c719d-2c17-4759-8001-000000000042";
        let w = |c: Copied| c.words(id).0;
        assert_eq!(
            w(Copied::Tool("xclip")),
            "copied 2c1c719d… to the system clipboard (xclip)"
        );
        // tmux's buffer is not the system clipboard
        let tmux = w(Copied::Tool("tmux"));
        assert!(
            tmux.starts_with("put 2c1c719d… in tmux's paste buffer"),
            "{tmux}"
        );
        assert!(!tmux.contains("system clipboard"), "{tmux}");
        assert_eq!(
            w(Copied::Terminal { tmux: false }),
            "2c1c719d… sent to the terminal's clipboard (OSC 52)"
        );
        // Each notice fits the 79 cells an 80-column status line has after its space.
        for c in [
            Copied::Tool("tmux"),
            Copied::Tool("wl-copy"),
            Copied::Terminal { tmux: false },
            Copied::Terminal { tmux: true },
        ] {
            let words = w(c);
            assert!(convo_text::width(&words) <= 79, "{words}");
        }
    }

    #[cfg(unix)]
    fn tool_running(body: &str) -> (tempfile::TempDir, Tool) {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tmp");
        let f = dir.path().join("fake-copy");
        std::fs::write(&f, format!("#!/bin/sh\n{body}\n")).expect("write");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).expect("+x");
        let tool = Tool {
            name: "fake-copy",
            program: f,
            args: &[],
        };
        (dir, tool)
    }

    /// A failing program's stderr is the reason; one that left a child holding the pipe
    /// (as xclip's selection server does) is not waited for; one that hangs is given up on.
    #[cfg(unix)]
    #[test]
    fn a_failing_or_hanging_program_is_an_error_soon() {
        let (_d, ok) = tool_running("cat > /dev/null");
        assert_eq!(run(&ok, "id"), Ok(()));
        let (_d, fails) =
            tool_running("cat > /dev/null; (sleep 20 &); echo 'no display' >&2; exit 1");
        let t = Instant::now();
        assert_eq!(run(&fails, "id"), Err("no display".into()));
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        let (_d, hangs) = tool_running("sleep 20");
        let t = Instant::now();
        assert_eq!(run(&hangs, "id"), Err("no answer in 3s".into()));
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }

    #[cfg(unix)]
    #[test]
    fn the_program_follows_the_display_in_use() {
        let dir = tempfile::tempdir().expect("tmp");
        for p in ["wl-copy", "xclip", "xsel", "tmux"] {
            let f = dir.path().join(p);
            std::fs::write(&f, "#!/bin/sh\n").expect("write");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).expect("+x");
        }
        let path = dir.path().as_os_str().to_owned();
        let with = |vars: &[(&str, &str)]| {
            let path = path.clone();
            let vars: Vec<(String, OsString)> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.into()))
                .collect();
            find_tool(move |k| {
                if k == "PATH" {
                    return Some(path.clone());
                }
                vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
            })
            .map(|t| t.name)
        };
        assert_eq!(
            with(&[("WAYLAND_DISPLAY", "wayland-0"), ("DISPLAY", ":0")]),
            Some("wl-copy")
        );
        assert_eq!(with(&[("DISPLAY", ":0")]), Some("xclip"));
        assert_eq!(
            with(&[("DISPLAY", ":0"), ("TMUX", "/tmp/t,1,0")]),
            Some("xclip")
        );
        assert_eq!(with(&[("TMUX", "/tmp/t,1,0")]), Some("tmux"));
        // over ssh, no display, no tmux: the terminal
        assert_eq!(with(&[("DISPLAY", "")]), None);
        assert_eq!(with(&[]), None);
    }
}
