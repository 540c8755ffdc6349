//! Opening the selected row in the web app (`o`): the URL is built from the config's
//! `web_url` template and the row's UUID only (nothing the server sent goes into it), and
//! started with the user's browser (`$BROWSER`, the platform's opener, WSL; I/O, run by the
//! runtime).

use tokio::sync::mpsc::UnboundedSender;
use uuid::Uuid;

use super::msg::Msg;
use convo_api::Resource;

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
    Ok(convo_config::ui::web_url_for(template, tab.name(), &id))
}

fn notice(tx: &UnboundedSender<Msg>, text: String, error: bool) {
    let _ = tx.send(Msg::Notice { text, error });
}

/// Opens `url` in the user's browser, as the `webbrowser` crate finds it: `$BROWSER` first,
/// then the platform's way (xdg-open and the desktops' openers, `open` on macOS, the Windows
/// side under WSL). Only http(s) URLs are opened (its `hardened` feature); the URL comes from
/// the `web_url` template and a UUID only, and is passed as one argument (no shell). Run on a
/// thread of its own: a text browser would block until it exits.
pub fn open_url(url: &str, tx: &UnboundedSender<Msg>) {
    let (url, tx) = (url.to_string(), tx.clone());
    std::thread::spawn(move || {
        let options = webbrowser::BrowserOptions::new()
            .with_suppress_output(true)
            .clone();
        if let Err(e) =
            webbrowser::open_browser_with_options(webbrowser::Browser::Default, &url, &options)
        {
            notice(
                &tx,
                format!(
                    "cannot open a browser: {}; set BROWSER, or open {url} yourself",
                    convo_text::one_line(&e.to_string(), 200)
                ),
                true,
            );
        }
    });
}
