//! `[[views]] query = "…"`: a saved view written as a query. The browser walks one request's
//! filters per tab, so a view's query must be one the service answers alone (one stream, no
//! check left to convo); it then sets the view's filter. Anything more is refused with the
//! reason, naming the view (`convo list -q` runs every query).

use super::plan::{self, Emails};
use super::resolve::{Names, resolve};
use super::{Pred, VisitorRef, parse};
use crate::api::Resource;
use crate::config::View;

/// Sets the filter of every view that has a query; the first view that cannot be is the error
/// (its name, the query with a caret, or why the browser cannot run it).
pub fn apply(views: &mut [View], names: &Names<'_>, max_streams: usize) -> Result<(), String> {
    for v in views.iter_mut() {
        let Some(text) = v.query.clone() else {
            continue;
        };
        let name = crate::text::one_line(&v.name, 60);
        let bad = |why: String| format!("view {name:?}: {why}");
        let parsed =
            parse(&text, v.tab).map_err(|e| bad(format!("bad query\n{}", e.render(&text))))?;
        let q =
            resolve(&parsed, names).map_err(|e| bad(format!("bad query\n{}", e.render(&text))))?;
        let emails = q.terms.iter().any(|t| {
            matches!(&t.pred, Pred::Visitor(vs) if vs.iter().any(|x| matches!(x, VisitorRef::Email(_))))
        });
        if emails {
            return Err(bad(
                "visitor: by e-mail needs a lookup the browser does not do for a view; give the \
                 visitor's UUID"
                    .into(),
            ));
        }
        let (streams, checks) = match v.tab {
            Resource::Conversations => {
                let p = plan::conversations(&q, &Emails::new(), max_streams);
                let n = p.streams.len();
                if let [one] = p.streams.as_slice() {
                    v.conversations = one.clone();
                }
                (
                    n,
                    p.checks.iter().map(|c| c.shown.clone()).collect::<Vec<_>>(),
                )
            }
            Resource::Visitors => {
                let p = plan::visitors(&q, max_streams);
                let n = p.streams.len();
                if let [one] = p.streams.as_slice() {
                    v.visitors = one.clone();
                }
                (
                    n,
                    p.checks.iter().map(|c| c.shown.clone()).collect::<Vec<_>>(),
                )
            }
        };
        if streams != 1 || !checks.is_empty() {
            let mut why = Vec::new();
            if streams != 1 {
                why.push(format!("{streams} requests"));
            }
            if !checks.is_empty() {
                why.push(format!("checks in convo ({})", checks.join(" ")));
            }
            return Err(bad(format!(
                "query {:?} needs {}; a view in the browser runs one request's filters for now \
                 (convo list {} -q runs it all)",
                crate::text::one_line(&parsed.to_string(), 200),
                why.join(" and "),
                v.tab.name()
            )));
        }
        v.query = Some(parsed.to_string());
    }
    Ok(())
}
