//! What the Conversations tab's rows are watched for after a refresh or a walk: a sample of
//! its trend kept in the store, and conversations that became imminent rung for.

use crate::app::App;
use crate::command::Command;
use crate::notify;

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

/// Records the Conversations tab's counts in the local store after a refresh, or once when a
/// walk ends; the answer brings the last 24 hours for the summary pane's trend.
///
/// Only counts that mean the same thing from one sample to the next are kept: the whole
/// filter (every page loaded), or the top rows a refresh keeps live when it stops at its page
/// budget (`complete: false`, `loaded` that many; the pane says so). Rows loaded only part of
/// the way are not a sample: their counts grow with the pages loaded, not with the queue.
/// A refresh samples at most every [`crate::app::SAMPLE_EVERY_SECS`].
pub(super) fn take_sample(
    app: &mut App,
    refreshed: Option<&convo_engine::pager::Merged>,
    cmds: &mut Vec<Command>,
) {
    let t = &app.conversations;
    let w = app.watch();
    let ended = t.walk().is_done() && w.sampled != Some(t.generation());
    // This walk was sampled less than a minute ago: a refresh is no new sample yet.
    let recent = w.sampled == Some(t.generation())
        && w.sampled_at.is_some_and(|at| {
            app.now().as_second().saturating_sub(at) < crate::app::SAMPLE_EVERY_SECS
        });
    if refreshed.is_some() && recent {
        return;
    }
    let rows = match refreshed {
        Some(m) if m.cut => &t.rows()[..m.live.min(t.rows().len())],
        Some(_) if t.walk().is_done() => t.rows(),
        None if ended => t.rows(),
        _ => return,
    };

    let (mut waiting, mut imminent, mut breaching) = (0u64, 0u64, 0u64);
    for c in rows {
        if convo_engine::sla::is_waiting(c) {
            waiting += 1;
        }
        match app
            .settings()
            .sla()
            .first_response(c, app.now())
            .map(|d| d.state)
        {
            Some(convo_engine::sla::State::Imminent) => imminent += 1,
            Some(convo_engine::sla::State::Breaching) => breaching += 1,
            _ => {}
        }
    }
    let complete = t.walk().is_done() && rows.len() == t.rows().len();
    cmds.push(Command::Samples {
        key: crate::tab::marks::look_key_of(t),
        sample: Some(convo_store::Sample {
            at: app.now().as_second(),
            loaded: rows.len() as u64,
            complete,
            waiting,
            imminent,
            breaching,
        }),
    });
    let (generation, now) = (t.generation(), app.now().as_second());
    let w = app.watch_mut();
    w.sampled = Some(generation);
    w.sampled_at = Some(now);
}

/// In a `notify = true` view with a first-response target: rings once for each conversation
/// that became imminent (or breaching) since it was last looked at.
pub(super) fn watch_imminent(app: &mut App, ring: bool, cmds: &mut Vec<Command>) {
    if !app
        .settings()
        .sla()
        .is_tracked(convo_engine::sla::Target::FirstResponse)
        || !notify::watching(app.settings().views(), app.conversations.filter())
    {
        return;
    }
    let sla = app.settings().sla().clone();
    // Taken out while the tab's rows are read (the tab is not the watch's to borrow).
    let mut rung = std::mem::take(&mut app.watch_mut().imminent);
    let t = &app.conversations;
    let count = rung.check(t.generation(), t.rows(), &sla, app.now(), !ring);
    app.watch_mut().imminent = rung;
    if count > 0 {
        cmds.push(Command::NotifyImminent { count });
    }
}
