//! One page's request, shared by every fetch of a page: its body with retries (the retry
//! notices of a walk's fetch become messages) and that body decoded as the rows asked for.

use tokio::sync::mpsc;

use crate::command::RequestFilter;
use crate::msg::{Loaded, Msg};
use convo_api::ListFilter;
use convo_api::{ApiError, Client, Conversation, Limit, Resource, RetryNotice, Visitor};

/// A page's body decoded as the rows `query` asks for.
pub(super) fn decode(
    client: &Client,
    query: &RequestFilter,
    body: Result<Vec<u8>, ApiError>,
) -> Result<Loaded, ApiError> {
    body.and_then(|b| match query {
        RequestFilter::Conversations(_) => client
            .decode_page::<Conversation>(&b)
            .map(Loaded::Conversations),
        RequestFilter::Visitors(_) => client.decode_page::<Visitor>(&b).map(Loaded::Visitors),
    })
}

/// Retry notices of a walk's fetch become messages (a refresh retries quietly).
pub(super) fn retry_notices(
    tx: &mpsc::UnboundedSender<Msg>,
    tab: Resource,
    generation: u64,
    head: bool,
    cursor: Option<&str>,
) -> impl Fn(RetryNotice) + Send + Sync + 'static {
    let tx = tx.clone();
    let cursor = cursor.map(str::to_string);
    move |notice: RetryNotice| {
        if !head {
            let _ = tx.send(Msg::Retrying {
                tab,
                generation,
                cursor: cursor.clone(),
                notice,
            });
        }
    }
}

/// The body of one page of `query`, with retries.
pub(super) async fn fetch_body(
    client: &Client,
    query: &RequestFilter,
    limit: Limit,
    cursor: Option<&str>,
    on_retry: &(dyn Fn(RetryNotice) + Send + Sync),
) -> Result<Vec<u8>, ApiError> {
    let url = match query {
        RequestFilter::Conversations(f) => {
            client.page_url(Resource::Conversations, &f.query_pairs(), limit, cursor)
        }
        RequestFilter::Visitors(f) => {
            client.page_url(Resource::Visitors, &f.query_pairs(), limit, cursor)
        }
    };
    client.get_body(url, on_retry).await
}
