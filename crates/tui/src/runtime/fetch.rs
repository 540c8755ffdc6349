//! The fetches the loop starts: one page of a tab (its walk's page or its refresh's head,
//! with the pages asked for ahead used when they match), one stream of a union tab, and the
//! e-mail filter's several visitors merged; each answer is tagged with tab and generation.

use super::Runtime;
use super::request::{decode, fetch_body, retry_notices};
use crate::command::RequestFilter;
use crate::msg::{Loaded, Msg, Task};
use convo_api::{ApiError, Client, Conversation, Limit, Resource, Visitor};

impl Runtime {
    /// The client for a fetch: a background one ([`Client::background`]) for work the user
    /// did not ask for now.
    pub(super) fn client_for(&self, background: bool) -> Client {
        if background {
            self.client.background()
        } else {
            self.client.clone()
        }
    }

    /// The e-mail filter of several visitors: each one's conversations walked whole and merged
    /// newest first, answered as one last page (a refresh: as the head).
    #[allow(clippy::too_many_arguments)]
    fn spawn_merged(
        &mut self,
        client: Client,
        tab: Resource,
        generation: u64,
        base: convo_api::ConversationFilter,
        visitors: Vec<uuid::Uuid>,
        limit: Limit,
        head: bool,
    ) {
        let tx = self.tx.clone();
        let id = if head {
            Task::Head { tab, generation }
        } else {
            Task::Page { tab, generation }
        };
        let busy = self.user_fetches.begin();
        let handle = tokio::runtime::Handle::current();
        let task = crate::tasks::spawn(id, &self.tx, async move {
            let _busy = busy;
            // The walks report through a `dyn Write` (not Send): on a blocking thread.
            let result = tokio::task::spawn_blocking(move || {
                handle.block_on(convo_query::query::by_email::merged_conversations(
                    &client, &base, &visitors, limit,
                ))
            })
            .await
            .unwrap_or_else(|e| Err(convo_query::exit::ListError::Usage(e.to_string())));
            let result = match result {
                Ok((items, bad)) => Ok(Loaded::Conversations(convo_api::Page {
                    items,
                    has_more: false,
                    next_cursor: None,
                    bad_rows: (0..bad)
                        .map(|index| convo_api::BadRow {
                            index,
                            id: None,
                            reason: "a row of one visitor's conversations could not be read".into(),
                        })
                        .collect(),
                })),
                Err(convo_query::exit::ListError::Api(e)) => Err(e),
                Err(e) => Err(ApiError::Decode {
                    detail: e.to_string(),
                }),
            };
            let _ = tx.send(Msg::loaded(head, tab, generation, result));
        });
        if let Some(old) = self.tasks.insert((tab, head), task) {
            old.abort();
        }
    }

    /// Starts the fetch of one page of one stream of a union tab's walk, through the shared
    /// client (its `max_parallel` and 429 pacing hold for every stream). A newer fetch of the
    /// same stream aborts an older one.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn spawn_part(
        &mut self,
        client: Client,
        tab: Resource,
        generation: u64,
        (stream, head): (usize, bool),
        cursor: Option<String>,
        query: RequestFilter,
        limit: Limit,
    ) {
        let tx = self.tx.clone();
        let busy = self.user_fetches.begin();
        let id = Task::Part {
            tab,
            generation,
            stream,
            head,
        };
        let task = crate::tasks::spawn(id, &self.tx, async move {
            let _busy = busy;
            let on_retry = retry_notices(&tx, tab, generation, head, cursor.as_deref());
            let body = fetch_body(&client, &query, limit, cursor.as_deref(), &on_retry).await;
            let result = body.and_then(|b| match &query {
                RequestFilter::Conversations(_) => client
                    .decode_page::<Conversation>(&b)
                    .map(Loaded::Conversations),
                RequestFilter::Visitors(_) => {
                    client.decode_page::<Visitor>(&b).map(Loaded::Visitors)
                }
            });
            if let Err(e) = &result {
                tracing::warn!(?tab, stream, "fetch of a stream failed: {e}");
            }
            let _ = tx.send(Msg::PartLoaded {
                tab,
                generation,
                stream,
                head,
                result,
            });
        });
        if let Some(old) = self.parts.insert((tab, stream, head), task) {
            old.abort();
        }
    }

    /// Starts the fetch of one page (a walk's, or a refresh's head); a newer fetch of the
    /// same tab and kind aborts an older one (a walk's page: its look-ahead chain too).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn spawn(
        &mut self,
        tab: Resource,
        generation: u64,
        cursor: Option<String>,
        query: RequestFilter,
        limit: Limit,
        head: bool,
        background: bool,
    ) {
        let client = self.client_for(background);
        let tx = self.tx.clone();
        if let RequestFilter::Conversations(f) = &query
            && let Some(visitors) = f.merged_visitors()
        {
            let visitors = visitors.to_vec();
            return self.spawn_merged(client, tab, generation, f.clone(), visitors, limit, head);
        }
        if !head && let Some((_, credit)) = self.chains.remove(&tab) {
            credit.stop();
        }
        #[cfg(feature = "testing")]
        let panic_now = self
            .test_fault
            .take_if(|f| *f == convo_query::testing::PanicAt::Fetch)
            .is_some();
        let id = if head {
            Task::Head { tab, generation }
        } else {
            Task::Page { tab, generation }
        };
        // The visitor sync waits while this fetch is in flight (dropped with the task).
        let busy = self.user_fetches.begin();
        let task = crate::tasks::spawn(id, &self.tx, async move {
            let _busy = busy;
            #[cfg(feature = "testing")]
            if panic_now {
                panic!("CONVO_TEST_PANIC=fetch: this fetch task panics (test only)");
            }
            let on_retry = retry_notices(&tx, tab, generation, head, cursor.as_deref());
            let body = fetch_body(&client, &query, limit, cursor.as_deref(), &on_retry).await;
            let result = decode(&client, &query, body);
            if let Err(e) = &result {
                tracing::warn!(?tab, head, "fetch failed: {e}");
            }
            let _ = tx.send(Msg::loaded(head, tab, generation, result));
        });
        if let Some(old) = self.tasks.insert((tab, head), task) {
            old.abort();
        }
    }
}
