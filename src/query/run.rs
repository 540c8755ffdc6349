//! What the commands that run a query (`list -q`, `summary -q`) share: the query's text from
//! `-q` and the filter flags, understanding it, resolving `visitor:` e-mails through the
//! service, and the local store's visitors (kept as they stream by, looked up for the checks).

use uuid::Uuid;

use super::eval::VisitorInfo;
use super::exec::Union;
use super::plan::Emails;
use super::resolve::{Names, resolve};
use super::{Query, parse};
use crate::api::{Client, Limit, Resource, Visitor, VisitorFilter};
use crate::exit::ListError;
use crate::store::Store;

/// The query's text: `-q` first, then a term for each filter flag given.
pub fn query_text(q: Option<&str>, flags: Vec<String>) -> String {
    let mut parts: Vec<String> = q.map(str::to_string).into_iter().collect();
    parts.extend(flags);
    parts.join(" ")
}

/// Parses and resolves `text` with the names given (the query as written, and resolved), or
/// the error with its caret.
pub fn understood_with(
    text: &str,
    resource: Resource,
    names: &Names<'_>,
) -> Result<(Query, Query), ListError> {
    let parsed = parse(text, resource).map_err(|e| ListError::Query(e.render(text)))?;
    let resolved = resolve(&parsed, names).map_err(|e| ListError::Query(e.render(text)))?;
    Ok((parsed, resolved))
}

/// Keeps visitor rows in the local store, a batch at a time; a store that fails is said once
/// and the command goes on without it.
pub struct Keeper<'a> {
    store: Option<&'a mut Store>,
    batch: Vec<Visitor>,
    failed: Option<crate::store::StoreError>,
}

impl<'a> Keeper<'a> {
    const BATCH: usize = 100;

    pub fn new(store: Option<&'a mut Store>) -> Keeper<'a> {
        Keeper {
            store,
            batch: Vec::new(),
            failed: None,
        }
    }

    pub fn keep(&mut self, v: &Visitor) {
        if self.store.is_some() {
            self.batch.push(v.clone());
            if self.batch.len() >= Self::BATCH {
                self.flush();
            }
        }
    }

    fn flush(&mut self) {
        if let Some(s) = self.store.as_deref_mut()
            && !self.batch.is_empty()
            && let Err(e) = s.upsert_visitors(&self.batch, jiff::Timestamp::now().as_second())
        {
            self.failed = Some(e);
            self.store = None;
        }
        self.batch.clear();
    }

    /// Writes what is left; says on `err` if the store failed.
    pub fn finish(mut self, err: &mut dyn std::io::Write) {
        self.flush();
        if let Some(e) = self.failed {
            let _ = writeln!(err, "convo: warning: {e}");
        }
    }
}

/// A visitor as the store knows it, for the checks.
pub fn lookup(store: Option<&Store>, id: Uuid) -> Option<VisitorInfo> {
    let v = store?.visitor(id).ok()??;
    Some(VisitorInfo {
        attributes: v.attributes_json(),
        name: v.name,
        email: v.email,
    })
}

/// The visitors the service has for each e-mail (every page of `GET /v1/visitors?email=`),
/// each one kept by `keeper`.
pub async fn resolve_emails(
    client: &Client,
    emails: &[String],
    keeper: &mut Keeper<'_>,
) -> Result<Emails, ListError> {
    let mut out = Emails::new();
    if emails.is_empty() {
        return Ok(out);
    }
    let streams: Vec<VisitorFilter> = emails
        .iter()
        .map(|e| VisitorFilter {
            email: Some(e.clone()),
            external_id: None,
        })
        .collect();
    for e in emails {
        out.insert(e.clone(), Vec::new());
    }
    let mut union: Union<VisitorFilter, Visitor> =
        Union::new(client.clone(), streams, Limit::MAX, true);
    while let Some(v) = union.next().await {
        keeper.keep(&v);
        if let Some(e) = v.email.as_deref().map(|e| e.trim().to_lowercase())
            && let Some(ids) = out.get_mut(&e)
        {
            ids.push(v.id);
        }
    }
    if let Some((_, e)) = union.failures().first() {
        return Err(ListError::Api(e.clone()));
    }
    Ok(out)
}
