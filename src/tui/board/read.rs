//! The runtime's side of the board: one view read at a time, as background work (it starts
//! only once the user's own fetches are done), answered by `Msg::ViewRead` with the round's
//! generation and the row's index. A newer read aborts the one in flight.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;

use super::Counts;
use crate::api::Client;
use crate::config::View;
use crate::tui::msg::{Msg, Task};

/// What a read needs from the app besides the view.
#[derive(Clone)]
pub struct Setting {
    pub sla: Arc<crate::sla::Sla>,
    pub aliases: crate::config::Aliases,
    pub stale_after_secs: i64,
    pub page_size: crate::api::Limit,
    pub query: crate::config::QuerySettings,
}

/// The read in flight, if any.
#[derive(Default)]
pub struct Reader {
    task: Option<JoinHandle<()>>,
}

impl Reader {
    /// Reads row `index` of round `generation`: at most `pages` pages of `view`, counted.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        &mut self,
        client: &Client,
        user: &Arc<crate::store::sync::UserFetches>,
        tx: &UnboundedSender<Msg>,
        (generation, index): (u64, usize),
        view: Box<View>,
        pages: usize,
        setting: Setting,
    ) {
        self.stop();
        let (client, user, answer) = (client.clone(), user.clone(), tx.clone());
        self.task = Some(crate::tui::tasks::spawn(
            Task::View { generation, index },
            tx,
            async move {
                // Background work: the user's own fetches first.
                user.idle().await;
                let result = count(&client, &view, pages, &setting).await;
                let _ = answer.send(Msg::ViewRead {
                    generation,
                    index,
                    result,
                });
            },
        ));
    }

    /// Aborts the read in flight.
    pub fn stop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

/// Walks at most `pages` pages of `view` into its counts, or says why it could not.
async fn count(
    client: &Client,
    view: &View,
    pages: usize,
    setting: &Setting,
) -> Result<Counts, String> {
    let _ = (client, view, pages, setting);
    Err("not read yet".into())
}

impl Setting {
    /// The app's settings a read counts with.
    pub fn of(app: &crate::tui::app::App) -> Setting {
        Setting {
            sla: app.sla.clone(),
            aliases: app.aliases.clone(),
            stale_after_secs: app.stale_after_secs,
            page_size: app.limit,
            query: app.query_settings,
        }
    }
}
