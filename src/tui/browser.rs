//! Opening the selected row in the web app (`o`): the URL is built from the config's
//! `web_url` template and the row's UUID only (nothing the server sent goes into it), and
//! started with the platform's opener (I/O, run by the runtime).

use std::process::{Command as Process, Stdio};

use tokio::sync::mpsc::UnboundedSender;
use uuid::Uuid;

use super::msg::Msg;
use crate::api::Resource;

/// The URL to open for row `id` of `tab`, or what is missing.
pub fn url_for(
    web_url: Option<&str>,
    tab: Resource,
    id: Option<Uuid>,
) -> Result<String, &'static str> {
    let Some(template) = web_url else {
        return Err(
            "set web_url in the config (e.g. \"https://app.example.com/conversations/{id}\") to open rows",
        );
    };
    let Some(id) = id else {
        return Err("no row selected");
    };
    // Only the template and a UUID: nothing the server sent goes into the URL.
    Ok(crate::ui_config::web_url_for(template, tab.name(), &id))
}

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
