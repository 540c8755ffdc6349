//! What the Conversations tab's rows are watched for after a refresh or a walk: a sample of
//! its trend kept in the store, and conversations that became imminent rung for.

use crate::notify;

pub mod update;

/// What the Conversations tab is watched with: the trend the store answered, the walk last
/// sampled (and when), the conversations already rung for. All of it belongs to the service
/// the session talks to (a profile switch forgets it).
#[derive(Debug, Clone, Default)]
pub struct Watch {
    /// The trend of the Conversations filter from the local store: (filter key, samples of
    /// the last 24 h, oldest first). `None` until the store answers (or without a store).
    trend: Option<(String, Vec<convo_store::Sample>)>,
    /// The Conversations walk whose completion was sampled (one sample per walk; refreshes
    /// sample too, at most every [`crate::app::SAMPLE_EVERY_SECS`]).
    sampled: Option<u64>,
    /// When the last sample was taken (unix seconds).
    sampled_at: Option<i64>,
    /// Conversations of a `notify = true` view already rung for as imminent.
    imminent: notify::Imminent,
}

impl Watch {
    /// The samples of the filter of look key `key`, if the store's trend is of it.
    pub fn trend_of(&self, key: &str) -> Option<&[convo_store::Sample]> {
        match &self.trend {
            Some((k, s)) if k == key => Some(s),
            _ => None,
        }
    }

    /// The store's trend of the filter of look key `key`.
    pub fn took_trend(&mut self, key: String, samples: Vec<convo_store::Sample>) {
        self.trend = Some((key, samples));
    }

    /// Another service: nothing watched of the last one is true of it.
    pub fn forget(&mut self) {
        *self = Watch::default();
    }
}
