//! What the commands that run a query (`list -q`, `summary -q`) share: the query's text from
//! `-q` and the filter flags, understanding it, resolving `visitor:` e-mails through the
//! service, and the local store's visitors (kept as they stream by, looked up for the checks).

use std::ops::Range;

use uuid::Uuid;

use super::eval::VisitorInfo;
use super::exec::Union;
use super::plan::Emails;
use super::resolve::{Names, resolve};
use super::{Query, QueryError, parse};
use crate::exit::ListError;
use convo_api::{Client, Limit, Resource, Visitor, VisitorFilter};
use convo_store::Store;

/// A flag of `list` or `summary` as the term of the query it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagTerm {
    /// The flag's name, e.g. `--status`.
    pub name: &'static str,
    /// Its value as given (`None` for a switch such as `--breaching`).
    pub value: Option<String>,
    /// The term it means, e.g. `status:open`.
    pub term: String,
}

impl FlagTerm {
    /// The flag as the user gave it, e.g. `--status open`.
    pub fn given(&self) -> String {
        match &self.value {
            Some(v) => format!("{} {v}", self.name),
            None => self.name.to_string(),
        }
    }
}

/// What `--explain` says of the flags: each one's term and the flag, e.g.
/// `from the flags: status:open (--status open), due:breaching (--breaching)`.
pub fn from_the_flags(flags: &[FlagTerm]) -> String {
    let terms: Vec<String> = flags
        .iter()
        .map(|f| format!("{} ({})", f.term, f.given()))
        .collect();
    format!("from the flags: {}", terms.join(", "))
}

/// The query's text: `-q` first, then a term for each filter flag given, with the byte range
/// of each flag's term in it.
pub fn query_text<'f>(
    q: Option<&str>,
    flags: &'f [FlagTerm],
) -> (String, Vec<(Range<usize>, &'f FlagTerm)>) {
    let mut text = q.unwrap_or_default().to_string();
    let mut spans = Vec::new();
    for f in flags {
        if !text.is_empty() {
            text.push(' ');
        }
        let start = text.len();
        text.push_str(&f.term);
        spans.push((start..text.len(), f));
    }
    (text, spans)
}

/// Parses and resolves `-q` with the flags' terms (the query as written, and resolved), or
/// the error with its caret; an error in a flag's term names the flag.
pub fn understood_with(
    q: Option<&str>,
    flags: &[FlagTerm],
    resource: Resource,
    names: &Names<'_>,
) -> Result<(Query, Query), ListError> {
    let (text, spans) = query_text(q, flags);
    let named = |e: QueryError| {
        let flag = spans
            .iter()
            .find(|(span, _)| span.contains(&e.at.start) || e.at.start == span.end);
        let e = match flag {
            Some((_, f)) => from_flag(e, f, flags),
            None => e,
        };
        ListError::Query(e.render(&text))
    };
    let parsed = parse(&text, resource).map_err(named)?;
    let resolved = resolve(&parsed, names).map_err(named)?;
    Ok((parsed, resolved))
}

/// Before any request: the query's cautions said once on `err` (statuses convo does not
/// know, attribute keys the store has never seen); an attribute key's typo refused with its
/// caret; `visitor.*` terms refused when there are no visitors to check them against (no
/// store, or one still empty), saying how to fill it.
pub fn before_any_request(
    q: Option<&str>,
    flags: &[FlagTerm],
    parsed: &Query,
    store: Option<&Store>,
    err: &mut dyn std::io::Write,
) -> Result<(), ListError> {
    let keys = store.and_then(|s| s.attribute_keys().ok());
    let notes = super::cautions(parsed, keys.as_deref())
        .map_err(|e| ListError::Query(e.render(&query_text(q, flags).0)))?;
    if let Some(t) = parsed.terms.iter().find(|t| {
        matches!(
            t.pred,
            super::Pred::VisitorName(_)
                | super::Pred::VisitorEmail(_)
                | super::Pred::VisitorAttr(..)
        )
    }) {
        let field = t.pred.field();
        let why = match store.map(|s| s.visitor_count()) {
            None => Some(
                "there is no local store here (store = false, or it could not be opened)"
                    .to_string(),
            ),
            Some(Ok(0)) => Some(
                "the local store has no visitors yet: fill it with `convo store sync` (one walk \
                 of the visitors list, with progress), or browse with `convo`, which fills it as \
                 it goes"
                    .to_string(),
            ),
            _ => None,
        };
        if let Some(why) = why {
            return Err(ListError::Usage(format!(
                "{field} is checked against the visitors in the local store, and {why}"
            )));
        }
    }
    for n in notes {
        let _ = writeln!(err, "convo: note: {}", convo_text::one_line(&n, 400));
    }
    Ok(())
}

/// An error in a flag's term, naming the flag; a field given twice says to write its values
/// in `-q` instead of the flags that give it (`flags`: all of them).
fn from_flag(mut e: QueryError, f: &FlagTerm, flags: &[FlagTerm]) -> QueryError {
    e.found = format!("{}: {}", f.given(), e.found);
    if let Some(h) = &e.hint
        && h.starts_with("use ")
    {
        let field = |t: &FlagTerm| t.term.split(':').next().map(str::to_string);
        let names: Vec<&str> = flags
            .iter()
            .filter(|t| field(t) == field(f))
            .map(|t| t.name)
            .collect();
        e.hint = Some(format!("{h} in -q instead of {}", names.join(" and ")));
    }
    e
}

/// Keeps visitor rows in the local store, a batch at a time; a store that fails is said once
/// and the command goes on without it.
pub struct Keeper<'a> {
    store: Option<&'a mut Store>,
    batch: Vec<Visitor>,
    failed: Option<convo_store::StoreError>,
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
