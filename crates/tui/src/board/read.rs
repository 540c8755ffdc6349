//! The runtime's side of the board: one view read at a time, as background work (it starts
//! only once the user's own fetches are done), answered by `Msg::ViewRead` with the round's
//! generation and the row's index. A newer read aborts the one in flight.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::Counts;
use crate::msg::{Msg, Task};
use convo_api::Client;
use convo_config::View;

/// What a read needs from the app besides the view.
#[derive(Clone)]
pub struct Setting {
    pub sla: Arc<convo_engine::sla::Sla>,
    pub aliases: convo_config::Aliases,
    pub stale_after_secs: i64,
    pub page_size: convo_api::Limit,
    pub query: convo_config::QuerySettings,
}

/// The read in flight, if any: dropping (or sending on) its sender ends it.
#[derive(Default)]
pub struct Reader {
    cancel: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Reader {
    /// Reads row `index` of round `generation`: at most `pages` pages of `view`, counted.
    ///
    /// The walk (`summary::views`, shared with `convo summary --views` and the exporter)
    /// borrows the store and writes its notices to a plain writer, so its future is not
    /// `Send`: it runs on a blocking thread of the runtime (`Handle::block_on`), ended at
    /// once (its requests dropped) by [`Reader::stop`].
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        &mut self,
        client: &Client,
        user: &Arc<convo_store::sync::UserFetches>,
        tx: &UnboundedSender<Msg>,
        (generation, index): (u64, usize),
        view: Box<View>,
        pages: usize,
        setting: Setting,
    ) {
        self.stop();
        let (cancel, cancelled) = tokio::sync::oneshot::channel();
        self.cancel = Some(cancel);
        let (client, user, answer) = (client.clone(), user.clone(), tx.clone());
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            let _ = tx.send(Msg::ViewRead {
                generation,
                index,
                result: Err("no async runtime to read with (a bug in convo)".into()),
            });
            return;
        };
        crate::tasks::spawn_blocking(Task::View { generation, index }, tx, move || {
            handle.block_on(async move {
                let read = async {
                    // Background work: the user's own fetches first.
                    user.idle().await;
                    count(&client, &view, pages, &setting).await
                };
                tokio::select! {
                    result = read => {
                        let _ = answer.send(Msg::ViewRead {
                            generation,
                            index,
                            result,
                        });
                    }
                    _ = cancelled => {}
                }
            })
        });
    }

    /// Ends the read in flight (its answer never comes).
    pub fn stop(&mut self) {
        if let Some(c) = self.cancel.take() {
            let _ = c.send(());
        }
    }
}

/// Walks at most `pages` pages of `view` into its counts (the walk `convo summary --views`
/// and the exporter make: `summary::views`), or says why it could not. The client is the
/// background one: its requests spend only the background share of the service's budget.
async fn count(
    client: &Client,
    view: &View,
    pages: usize,
    setting: &Setting,
) -> Result<Counts, String> {
    let walk = convo_commands::summary::views::ViewsWalk {
        client: &client.background(),
        page_size: setting.page_size,
        max_pages: Some(pages as u64),
        stale_after_secs: setting.stale_after_secs,
        aliases: &setting.aliases,
        sla: &setting.sla,
        settings: setting.query,
    };
    // Without the store: the browser's is its worker thread's (checks on visitors' fields
    // then say the field is unknown, as `summary -q` does without a store).
    let report = walk.walk(view, jiff::Timestamp::now(), None).await;
    let c = report.outcome.map_err(|e| convo_text::one_line(&e, 400))?;
    Ok(Counts {
        matched: c.matched,
        complete: c.complete,
        waiting: c.waiting().unwrap_or(0),
        oldest_waiting: c.oldest_waiting_secs(),
        imminent: c.imminent().unwrap_or(0),
        breaching: c.breaching().unwrap_or(0),
    })
}

impl Setting {
    /// The app's settings a read counts with.
    pub fn of(app: &crate::app::App) -> Setting {
        Setting {
            sla: app.settings().sla().clone(),
            aliases: (**app.settings().aliases()).clone(),
            stale_after_secs: app.settings().stale_after_secs(),
            page_size: app.settings().limit(),
            query: app.settings().query_settings(),
        }
    }
}
