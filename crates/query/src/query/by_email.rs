//! A filter by e-mail, as the service cannot do it in one request: the visitors with the
//! address (every page of `GET /v1/visitors?email=`), then one whole walk of conversations per
//! visitor, merged newest first as docs/design.md "Demo server" orders rows (`createdAt` descending, then `id`
//! descending). `convo list conversations --visitor-email` and the browser's e-mail filter
//! share it.

use std::cmp::Ordering;
use std::io::Write;

use uuid::Uuid;

use super::pages::Pages;
use crate::exit::ListError;
use crate::output::bad_row_line;
use convo_api::{Client, Conversation, ConversationFilter, Limit, Visitor, VisitorFilter};
use convo_engine::walk::Walk;
use convo_store::Store;

/// The visitors (ids) the service has for this e-mail, every page; their rows are kept in the
/// store when there is one. An empty list means no visitor has it.
pub async fn visitors_by_email(
    client: &Client,
    email: &str,
    mut store: Option<&mut Store>,
    err: &mut dyn Write,
) -> Result<Vec<Uuid>, ListError> {
    let filter = VisitorFilter {
        email: Some(email.to_string()),
        external_id: None,
    };
    let mut walk: Pages<_, Visitor> = Pages::new(client, &filter, Limit::MAX, false);
    let mut ids = Vec::new();
    let mut on_retry = |l: &str| tracing::info!(retry = %l, "visitor lookup");
    while let Some(arrived) = walk.next(|_| true, &mut on_retry).await {
        arrived?;
        let rows: Vec<Visitor> = walk.drain_rows().collect();
        if let Some(s) = store.as_deref_mut()
            && let Err(e) = s.upsert_visitors(&rows, jiff::Timestamp::now().as_second())
        {
            let _ = writeln!(err, "convo: warning: {e}");
            store = None;
        }
        ids.extend(rows.iter().map(|v| v.id));
    }
    Ok(ids)
}

/// The conversations of several visitors under `base`'s other filters: one whole walk per
/// visitor, merged newest first (the order of docs/design.md "Demo server"), each id once; and how many rows the
/// service sent that could not be read. The browser's e-mail filter of several visitors.
pub async fn merged_conversations(
    client: &Client,
    base: &ConversationFilter,
    visitors: &[Uuid],
    limit: Limit,
) -> Result<(Vec<Conversation>, usize), ListError> {
    let mut all = Vec::new();
    let mut bad_rows = 0usize;
    for id in visitors {
        let f = ConversationFilter {
            visitor_id: Some(*id),
            by_email: None,
            ..base.clone()
        };
        walk_one(
            client,
            &f,
            limit,
            None,
            &mut bad_rows,
            &mut std::io::sink(),
            &mut |rows| {
                all.extend(rows);
                Ok(true)
            },
        )
        .await?;
    }
    all.sort_by(newest_first);
    all.dedup_by_key(|c| c.id);
    Ok((all, bad_rows))
}

/// The order of docs/design.md "Demo server": `createdAt` descending, then `id` descending;
/// unreadable timestamps after readable ones.
pub fn newest_first(a: &Conversation, b: &Conversation) -> Ordering {
    match (a.created_at.parsed(), b.created_at.parsed()) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
    .then_with(|| b.id.cmp(&a.id))
}

/// Walks one filter's conversations up to `cap` rows (`None`: to the end), handing each page
/// to `on_page`; returns whether more exist past the cap.
pub async fn walk_one(
    client: &Client,
    filter: &ConversationFilter,
    limit: Limit,
    cap: Option<u64>,
    bad_rows: &mut usize,
    err: &mut dyn Write,
    on_page: &mut dyn FnMut(Vec<Conversation>) -> Result<bool, ListError>,
) -> Result<bool, ListError> {
    let mut walk: Pages<_, Conversation> = Pages::new(client, filter, limit, false);
    let mut got = 0u64;
    while cap.is_none_or(|c| got < c) {
        let mut on_retry = |l: &str| {
            let _ = writeln!(err, "{l}");
        };
        let wants_next =
            |p: &Walk<Conversation>| cap.is_none_or(|c| got + (p.rows().len() as u64) < c);
        let Some(arrived) = walk.next(wants_next, &mut on_retry).await else {
            return Ok(false);
        };
        let arrived = arrived?;
        for b in &arrived.bad_rows {
            *bad_rows += 1;
            let _ = writeln!(err, "{}", bad_row_line(b, arrived.page_no));
        }
        let mut rows: Vec<Conversation> = walk.drain_rows().collect();
        if let Some(c) = cap {
            rows.truncate((c - got) as usize);
        }
        got += rows.len() as u64;
        if !on_page(rows)? {
            return Ok(false);
        }
    }
    Ok(walk.walk().has_more())
}
