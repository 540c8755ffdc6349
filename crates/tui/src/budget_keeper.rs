//! Keeps the service's request budget across runs: what the store kept is handed to the client
//! at start (so background work is paced from its first request), and what the client learns
//! is written back when it changes.

use std::time::Duration;

use convo_api::Client;
use convo_store::StoreTask;

/// How often the client's budget is looked at for something new to keep.
const EVERY: Duration = Duration::from_secs(10);

/// Seeds `client`'s budget from the store, then keeps what it learns; stopped by aborting the
/// task (with the store link).
pub fn spawn(task: StoreTask, client: Client) -> tokio::task::AbortHandle {
    tokio::spawn(async move {
        if let Ok(Some((learned, _))) = task.call(|s| s.budget()).await {
            client.budget().seed(learned);
        }
        let mut kept = client.budget().learned().1;
        loop {
            tokio::time::sleep(EVERY).await;
            let (learned, version) = client.budget().learned();
            if version == kept {
                continue;
            }
            kept = version;
            // Shared with other processes, the ledger keeps what is learned (from every
            // process's requests) as it is learned.
            if client.budget().is_shared() {
                continue;
            }
            if let Some(l) = learned {
                let now = jiff::Timestamp::now().as_second();
                // A failing store is said by the link's other jobs; this one gives up quietly.
                if task.call(move |s| s.keep_budget(&l, now)).await.is_err() {
                    return;
                }
            }
        }
    })
    .abort_handle()
}
