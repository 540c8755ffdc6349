//! Where the key lives outside the file: `api_key_command`, and the file's permissions when it
//! holds the key itself (docs/design.md "Authentication").

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use super::ConfigError;
use super::text::looks_secret;

/// How long `api_key_command` may run.
const KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// How long to wait for the command's output to close once it has exited (a background child
/// may hold it open; what the command printed is in the pipe already).
const OUTPUT_GRACE: Duration = Duration::from_millis(500);
/// More than any key: output past this is read and dropped.
const MAX_OUTPUT: usize = 64 * 1024;

/// Reads a pipe on its own thread into a shared buffer (capped), and says when it is done.
fn drain(pipe: Option<impl Read + Send + 'static>) -> (Arc<Mutex<Vec<u8>>>, mpsc::Receiver<()>) {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    let shared = Arc::clone(&buf);
    std::thread::spawn(move || {
        if let Some(mut pipe) = pipe {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                let mut b = shared.lock().unwrap_or_else(|p| p.into_inner());
                let room = MAX_OUTPUT.saturating_sub(b.len());
                b.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
        let _ = tx.send(());
    });
    (buf, rx)
}

fn text_of(buf: &Mutex<Vec<u8>>) -> String {
    String::from_utf8_lossy(&buf.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
}

/// Removes from the command's error output its own words (a key pasted as the command comes
/// back in the shell's "not found" line) and anything else that looks like a key.
fn redact_command(line: &str, cmd: &str) -> String {
    let mut out = line.replace(cmd.trim(), "…");
    for word in cmd.split_whitespace().filter(|w| w.len() >= 8) {
        out = out.replace(word, "…");
    }
    out.split(' ')
        .map(|w| if looks_secret(w) { "…" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `api_key_command` with `sh -c` (stdin null, 10 s at most), returning its trimmed
/// stdout. Its output is never shown, even in errors: a failure names the exit status and the
/// first line of stderr.
pub(super) fn run_key_command(cmd: &str, path: &str) -> Result<String, ConfigError> {
    let fail = |reason: String| ConfigError::KeyCommand {
        path: path.to_string(),
        reason,
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot run it with sh: {e}")))?;
    let (out, out_done) = drain(child.stdout.take());
    let (err, err_done) = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > KEY_COMMAND_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(format!(
                    "it did not finish within {} s",
                    KEY_COMMAND_TIMEOUT.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(fail(format!("cannot wait for it: {e}"))),
        }
    };
    let _ = out_done.recv_timeout(OUTPUT_GRACE);
    let _ = err_done.recv_timeout(OUTPUT_GRACE);
    if !status.success() {
        let stderr = text_of(&err);
        let first = stderr.lines().map(str::trim).find(|l| !l.is_empty());
        let how = match status.code() {
            Some(code) => format!("it exited with status {code}"),
            None => "it was ended by a signal".to_string(),
        };
        return Err(fail(match first {
            Some(line) => format!(
                "{how} ({})",
                convo_text::one_line(&redact_command(line, cmd), 200)
            ),
            None => how,
        }));
    }
    let key = text_of(&out).trim().to_string();
    if key.is_empty() {
        return Err(fail("it printed nothing".into()));
    }
    if key.contains('\n') {
        // pass(1) prints metadata after the first line; say so rather than guess.
        return Err(fail(
            "it printed more than one line; print only the key (e.g. `pass show NAME | head -n 1`)"
                .into(),
        ));
    }
    Ok(key)
}

/// The file's mode when group or others may read or write it (unix only).
#[cfg(unix)]
pub(super) fn readable_by_others(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
    (mode & 0o077 != 0).then_some(mode)
}

/// The file's mode when group or others may read or write it (unix only).
#[cfg(not(unix))]
pub(super) fn readable_by_others(_: &Path) -> Option<u32> {
    None
}

/// The file's mode when group or others may change it (unix only): such a file must not
/// choose a command convo runs (ssh refuses its config files in that case too).
#[cfg(unix)]
pub(super) fn writable_by_others(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
    (mode & 0o022 != 0).then_some(mode)
}

/// The file's mode when group or others may change it (unix only).
#[cfg(not(unix))]
pub(super) fn writable_by_others(_: &Path) -> Option<u32> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_command_prints_the_key() {
        assert_eq!(
            run_key_command("printf ' sk_x \\n'", "/c").ok().as_deref(),
            Some("sk_x")
        );
    }

    #[test]
    fn a_failure_names_the_status_and_hides_the_command_and_keys() {
        let e = run_key_command("echo oops sk_live_0123456789abcdef >&2; exit 4", "/c")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("status 4") && e.contains("oops"), "{e}");
        assert!(!e.contains("0123456789abcdef"), "{e}");
        let e = run_key_command("sk_live_0123456789abcdef", "/c")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("127") && !e.contains("0123456789"), "{e}");
    }

    #[test]
    fn huge_or_multi_line_output_is_refused() {
        let r = run_key_command("yes sk_x | head -c 1000000", "/c");
        assert!(r.is_err_and(|e| e.to_string().contains("more than one line")));
        let r = run_key_command("head -c 1000000 /dev/zero | tr '\\0' x", "/c");
        assert!(r.is_ok_and(|k| k.len() == MAX_OUTPUT));
    }
}
