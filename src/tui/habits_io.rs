//! The I/O of [`super::habits`], run by the runtime: write an export, start the browser,
//! load another profile. Each reports back with a message.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command as Process, Stdio};

use tokio::sync::mpsc::UnboundedSender;

use super::command::ExportKind;
use super::habits::ProfileSwitch;
use super::msg::Msg;
use crate::api::Client;
use crate::config::{Config, Overrides};

fn notice(tx: &UnboundedSender<Msg>, text: String, error: bool) {
    let _ = tx.send(Msg::Notice { text, error });
}

/// Starts `opener URL` without waiting for it (a thread reaps it). The URL comes from the
/// `web_url` template and a UUID only, and is passed as one argument (no shell).
pub fn open_url(opener: &str, url: &str, tx: &UnboundedSender<Msg>) {
    let spawned = Process::new(opener)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match spawned {
        Ok(mut child) => {
            std::thread::spawn(move || {
                let _ = child.wait();
            });
        }
        Err(e) => notice(
            tx,
            format!("cannot start {opener}: {e}; the URL is {url}"),
            true,
        ),
    }
}

/// Writes an export to a new file: an existing file is never replaced.
pub fn export(
    path: PathBuf,
    contents: String,
    rows: usize,
    kind: ExportKind,
    tx: &UnboundedSender<Msg>,
) {
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        let shown = crate::text::one_line(&path.display().to_string(), 200);
        let result = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| {
                f.write_all(contents.as_bytes())?;
                f.flush()
            });
        match result {
            Ok(()) => {
                let (text, warn) = match kind {
                    ExportKind::Loaded => (format!("exported {rows} rows to {shown}"), false),
                    ExportKind::WholeWalk { warnings } if warnings.is_empty() => (
                        format!("exported the whole walk, all {rows} rows, to {shown}"),
                        false,
                    ),
                    ExportKind::WholeWalk { warnings } => (
                        format!(
                            "exported {rows} rows to {shown}, but the walk may be incomplete: {}",
                            warnings.join("; ")
                        ),
                        true,
                    ),
                    ExportKind::PartialWalk => (
                        format!(
                            "PARTIAL export: {rows} rows written to {shown}; the walk was \
                             stopped before its end and more rows exist"
                        ),
                        true,
                    ),
                };
                notice(&tx, text, warn)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => notice(
                &tx,
                format!("{shown} exists: not overwritten; press e again and choose another name"),
                true,
            ),
            Err(e) => notice(&tx, format!("export to {shown} failed: {e}"), true),
        }
    });
}

/// The header's endpoint text: host (and port) and the masked key.
pub fn endpoint_of(client: &Client) -> String {
    let base = client.base_url();
    let host = match (base.host_str(), base.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => base.to_string(),
    };
    crate::text::one_line(&format!("{host} · {}", client.masked_key()), 80)
}

/// What the app takes from a loaded config (with its client).
pub fn switch_of(cfg: &Config, name: String) -> Result<ProfileSwitch, String> {
    let client = crate::setup::client_for(cfg).map_err(|e| e.to_string())?;
    Ok(ProfileSwitch {
        name,
        page_size: cfg.page_size,
        views: cfg.views.clone(),
        aliases: cfg.aliases.clone(),
        refresh_secs: cfg.refresh_secs,
        endpoint: endpoint_of(&client),
        ui: cfg.ui.clone(),
        profiles: cfg.profiles.clone(),
        client: Some(client),
    })
}

/// Loads the config again with `profile` (it may run `api_key_command`, hence a blocking
/// task) and builds its client.
pub fn switch_profile(config_path: Option<PathBuf>, name: String, tx: &UnboundedSender<Msg>) {
    let tx = tx.clone();
    tokio::task::spawn_blocking(move || {
        let ov = Overrides {
            config_path,
            base_url: None,
            profile: Some(name.clone()),
        };
        let result = Config::load(&ov)
            .map_err(|e| e.to_string())
            .and_then(|cfg| switch_of(&cfg, name))
            .map(Box::new);
        let _ = tx.send(Msg::ProfileLoaded { result });
    });
}
