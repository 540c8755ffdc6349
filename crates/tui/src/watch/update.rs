//! What the watch does as messages come: a sample taken after a refresh or a walk, the
//! conversations that became imminent rung for.

use crate::app::App;
use crate::command::Command;
use crate::notify;

/// Records the Conversations tab's counts in the local store after a refresh, or once when a
/// walk ends; the answer brings the last 24 hours for the summary pane's trend.
///
/// Only counts that mean the same thing from one sample to the next are kept: the whole
/// filter (every page loaded), or the top rows a refresh keeps live when it stops at its page
/// budget (`complete: false`, `loaded` that many; the pane says so). Rows loaded only part of
/// the way are not a sample: their counts grow with the pages loaded, not with the queue.
/// A refresh samples at most every [`crate::app::SAMPLE_EVERY_SECS`].
pub(crate) fn take_sample(
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
pub(crate) fn watch_imminent(app: &mut App, ring: bool, cmds: &mut Vec<Command>) {
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
