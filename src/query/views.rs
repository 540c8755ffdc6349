//! `[[views]] query = "…"`: a saved view written as a query. A query the service answers alone
//! (one stream, no check left to convo) sets the view's filter; anything more is kept as the
//! view's query and run by the browser as a union (`tui::query_run::run_query`). A bad query,
//! or one with `visitor:` e-mails, is refused with the reason, naming the view.

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
        // One request's filters and no check: the view's filter. Anything more: no filter,
        // the browser runs the query itself.
        match v.tab {
            Resource::Conversations => {
                let p = plan::conversations(&q, &Emails::new(), max_streams);
                if let ([one], true) = (p.streams.as_slice(), p.checks.is_empty()) {
                    v.conversations = one.clone();
                }
            }
            Resource::Visitors => {
                let p = plan::visitors(&q, max_streams);
                if let ([one], true) = (p.streams.as_slice(), p.checks.is_empty()) {
                    v.visitors = one.clone();
                }
            }
        }
        v.query = Some(parsed.to_string());
    }
    Ok(())
}
