//! `convo store path|stats|clear|sync`: where the store is, what it holds, wiping it, and the
//! visitor walk from the command line (with a progress bar on a terminal).

use std::path::Path;

use convo_api::Client;
use convo_config::Config;
use convo_query::exit;
use convo_query::output::{Output, stderr};
use convo_store::sync::{self, Pace, Progress};
use convo_store::{self as store, Store, StoreError, StoreTask, open_for_command};
use convo_text::thousands;

/// What `convo store` was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Path,
    Stats,
    Clear,
    /// The walk; `None`: the config's pace.
    Sync {
        rps: Option<u32>,
        unpaced: bool,
    },
}

fn human_bytes(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / 1024.0),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}

/// Removes `FILE.corrupt-*` files left beside the store.
fn remove_asides(path: &Path) -> std::io::Result<usize> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(0);
    };
    let prefix = format!("{}.corrupt-", name.to_string_lossy());
    let mut n = 0;
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            std::fs::remove_file(e.path())?;
            n += 1;
        }
    }
    Ok(n)
}

/// Runs `convo store ACTION`; returns the exit code.
pub async fn run(action: Action, cfg: &Config, client: &Client, o: &mut Output<'_>) -> u8 {
    let path = match store::path_for(cfg) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(o.err, "convo: {e}");
            return if matches!(e, StoreError::Disabled) {
                exit::OK
            } else {
                1
            };
        }
    };
    match action {
        Action::Path => {
            let _ = writeln!(o.out, "{}", path.display());
            exit::OK
        }
        Action::Stats => {
            let Some(s) = open_for_command(cfg, o.err) else {
                return 1;
            };
            let _ = s.checkpoint();
            let st = match s.stats() {
                Ok(st) => st,
                Err(e) => {
                    let _ = writeln!(o.err, "convo: {e}");
                    return 1;
                }
            };
            let sync = s.sync_state().unwrap_or_default();
            let words = store::SyncWords::of(&sync, s.unknown().unwrap_or_default());
            let _ = writeln!(o.out, "path:      {}", path.display());
            let _ = writeln!(
                o.out,
                "size:      {} ({} bytes)",
                human_bytes(st.bytes),
                st.bytes
            );
            let _ = writeln!(o.out, "visitors:  {}", thousands(st.visitors));
            let _ = writeln!(o.out, "sync:      {}", words.walk);
            let _ = writeln!(o.out, "order:     {}", words.order);
            let _ = writeln!(o.out, "unknown:   {}", words.unknown);
            let _ = writeln!(o.out, "last looks: {} views", thousands(st.looks));
            let _ = writeln!(o.out, "samples:   {}", thousands(st.samples));
            let _ = writeln!(o.out, "schema:    version {}", store::SCHEMA_VERSION);
            exit::OK
        }
        Action::Clear => {
            let cleared = match Store::open(&path) {
                Ok(mut s) => s.clear().map(|()| "emptied"),
                // A file convo cannot use is removed whole.
                Err(StoreError::Locked { .. }) => {
                    let _ = writeln!(
                        o.err,
                        "convo: error: the store is busy (another convo is writing); quit it and try again"
                    );
                    return 1;
                }
                Err(_) => {
                    store::remove_files(&path)
                        .map(|()| "removed")
                        .map_err(|e| StoreError::Other {
                            path: path.display().to_string(),
                            reason: e.to_string(),
                        })
                }
            };
            match cleared {
                Ok(how) => {
                    let asides = remove_asides(&path).unwrap_or(0);
                    let extra = if asides > 0 {
                        format!(" and {asides} damaged copies removed")
                    } else {
                        String::new()
                    };
                    let _ = writeln!(o.out, "{how} {}{extra}", path.display());
                    exit::OK
                }
                Err(e) => {
                    let _ = writeln!(o.err, "convo: error: {e}");
                    1
                }
            }
        }
        Action::Sync { rps, unpaced } => {
            let Some(s) = open_for_command(cfg, o.err) else {
                return 1;
            };
            let task = match StoreTask::spawn(s) {
                Ok(t) => t,
                Err(e) => {
                    let _ = writeln!(o.err, "convo: error: cannot start the store thread: {e}");
                    return 1;
                }
            };
            let pace = if unpaced {
                Pace::Unpaced
            } else {
                Pace::PerSecond(rps.unwrap_or(cfg.store.visitor_sync_rps))
            };
            let bar = o.err_is_terminal;
            let start = std::time::Instant::now();
            let err = &mut *o.err;
            let mut last = None;
            let mut on_progress = |p: Progress, _: &[convo_api::Visitor]| {
                last = Some(p);
                if bar {
                    let _ = write!(err, "{}{}", stderr::CLEAR_LINE, progress_bar(&p));
                    let _ = err.flush();
                }
            };
            // Other convos on this store share the walk: one walks, the others follow.
            let sharing = store::sharing::Sharing::new(lease_for_tests());
            let result =
                store::sharing::walk_shared(client, &task, pace, &sharing, &mut on_progress).await;
            let _ = write!(o.err, "{}", stderr::clear(bar));
            match result {
                Ok(out) => {
                    let secs = start.elapsed().as_secs_f64();
                    let _ = writeln!(
                        o.err,
                        "convo: {} ({} requests in {secs:.1} s)",
                        out.progress.line(),
                        out.requests
                    );
                    exit::OK
                }
                Err(e) => {
                    if let Some(p) = last {
                        let _ = writeln!(
                            o.err,
                            "convo: {}; kept, the next sync resumes there",
                            p.line()
                        );
                    }
                    let _ = writeln!(o.err, "convo: error: {e}");
                    match e {
                        sync::SyncError::Api(e) => exit::exit_code(&e),
                        _ => 1,
                    }
                }
            }
        }
    }
}

/// The walk's lease: a test build may shorten it (`CONVO_TEST_LEASE_MS`).
fn lease_for_tests() -> Option<std::time::Duration> {
    #[cfg(feature = "testing")]
    return convo_query::testing::lease();
    #[cfg(not(feature = "testing"))]
    None
}

/// `names: 1,200 of ≥20,000 visitors [#####·····]` (the bar only when a total is known).
fn progress_bar(p: &Progress) -> String {
    let mut s = p.line();
    if let Some(t) = p.last_total.filter(|t| *t > 0) {
        let filled = ((p.walked.min(t) * 20) / t) as usize;
        s.push_str(&format!(
            " [{}{}]",
            "#".repeat(filled),
            "·".repeat(20 - filled)
        ));
    }
    s
}
