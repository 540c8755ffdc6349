//! `[[views]] query = "…"`: a saved view written as a query. Every query the planner can plan
//! runs in the browser: one that a single request answers (one stream, no check left to convo)
//! sets the view's filters, as the filter keys would; anything else (several streams, checks,
//! `visitor:` e-mails looked up when the view opens) leaves them empty and the browser runs
//! the query itself (`tui::tab_query`). A query that does not parse or resolve is refused with
//! the view's name and a caret.

use super::plan::{self, Emails};
use super::resolve::{Names, resolve};
use super::{Query, parse};
use convo_api::Resource;
use convo_config::View;

/// Whether one request's filters answer `q` (resolved): one stream, no check, no e-mail to
/// look up.
pub fn one_request(q: &Query, max_streams: usize) -> bool {
    match q.resource {
        Resource::Conversations => {
            plan::emails_to_resolve(q).is_empty() && {
                let p = plan::conversations(q, &Emails::new(), max_streams);
                p.streams.len() == 1 && p.checks.is_empty()
            }
        }
        Resource::Visitors => {
            let p = plan::visitors(q, max_streams);
            p.streams.len() == 1 && p.checks.is_empty()
        }
    }
}

/// `text` parsed and resolved for `tab` (as written, and resolved), or `bad query` with the
/// text and a caret under the error (`--query` and `[[views]] query` say it so).
pub fn understood(text: &str, tab: Resource, names: &Names<'_>) -> Result<(Query, Query), String> {
    let bad = |e: super::QueryError| format!("bad query\n{}", e.render(text));
    let parsed = parse(text, tab).map_err(bad)?;
    let q = resolve(&parsed, names).map_err(bad)?;
    Ok((parsed, q))
}

/// Checks the query of every view that has one and keeps its canonical text; sets the filters
/// of those one request answers. The first view whose query is bad is the error (its name,
/// the query with a caret).
pub fn apply(views: &mut [View], names: &Names<'_>, max_streams: usize) -> Result<(), String> {
    for v in views.iter_mut() {
        let Some(text) = v.query.clone() else {
            continue;
        };
        let name = convo_text::one_line(&v.name, 60);
        let (parsed, q) =
            understood(&text, v.tab, names).map_err(|e| format!("view {name:?}: {e}"))?;
        if one_request(&q, max_streams) {
            match v.tab {
                Resource::Conversations => {
                    let p = plan::conversations(&q, &Emails::new(), max_streams);
                    if let [one] = p.streams.as_slice() {
                        v.conversations = one.clone();
                    }
                }
                Resource::Visitors => {
                    let p = plan::visitors(&q, max_streams);
                    if let [one] = p.streams.as_slice() {
                        v.visitors = one.clone();
                    }
                }
            }
        }
        v.query = Some(parsed.to_string());
    }
    Ok(())
}
