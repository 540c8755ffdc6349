//! Filters and views applied: the filter pane's form, a saved view, a drill-down from the
//! selected row, Back, and the oldest-first view kept for each walk of its filters.

use super::place::{
    here, leaving_look, set_conversations, set_conversations_from, set_visitors, set_visitors_from,
};
use crate::app::App;
use crate::command::Command;
use crate::filter_form::FilterForm;
use crate::keys::Action;
use crate::sort;
use convo_api::{Assignee, ConversationFilter, Resource};

/// Back: to the tab the user was on before the last move, each tab with its filters then (a
/// new walk where they differ from now) on the row that was selected.
pub(super) fn go_back(app: &mut App, cmds: &mut Vec<Command>) {
    let Some(place) = app.history_mut().pop() else {
        return app.say("nothing to go back to");
    };
    let body = app.body_height();
    app.show_tab(place.active);
    let walks = (app.conversations.generation(), app.visitors.generation());
    let (c, v) = (place.conversations, place.visitors);
    // A union shown then is run again (unless it is on screen now), on the row selected then.
    let mut c = c;
    if let Some(q) = c.union.take() {
        let now = app.conversations.union().map(|_| app.conversations.query());
        if now != Some(&q) {
            cmds.extend(leaving_look(app, Resource::Conversations));
            app.open_oldest_first(place.oldest_first);
            cmds.extend(crate::tab_query::restore(app, q, c.selected));
        } else if let Some(row) = c
            .selected
            .filter(|_| place.active == Resource::Conversations)
        {
            app.conversations.reselect_now(row, body);
        }
    } else if &c.filter != app.conversations.filter() || app.conversations.union().is_some() {
        cmds.extend(leaving_look(app, Resource::Conversations));
        app.open_oldest_first(place.oldest_first);
        cmds.push(app.conversations.restore(c.filter, c.selected));
    } else if let Some(row) = c
        .selected
        .filter(|_| place.active == Resource::Conversations)
    {
        app.conversations.reselect_now(row, body);
    }
    let mut v = v;
    if let Some(q) = v.union.take() {
        let now = app.visitors.union().map(|_| app.visitors.query());
        if now != Some(&q) {
            cmds.extend(leaving_look(app, Resource::Visitors));
            cmds.extend(crate::tab_query::restore(app, q, v.selected));
        } else if let Some(row) = v.selected.filter(|_| place.active == Resource::Visitors) {
            app.visitors.reselect_now(row, body);
        }
    } else if &v.filter != app.visitors.filter() || app.visitors.union().is_some() {
        cmds.extend(leaving_look(app, Resource::Visitors));
        cmds.push(app.visitors.restore(v.filter, v.selected));
    } else if let Some(row) = v.selected.filter(|_| place.active == Resource::Visitors) {
        app.visitors.reselect_now(row, body);
    }
    // A tab whose walk started again is shown in the display sort it had then (a new walk
    // clears the sort): Back returns to what the user saw, its order too.
    for (tab, sort, before) in [
        (Resource::Conversations, c.sort, walks.0),
        (Resource::Visitors, v.sort, walks.1),
    ] {
        let generation = with_tab!(ref app, tab, |t| t.generation());
        if let Some(sort) = sort
            && generation != before
        {
            app.sort_mut().get_mut(tab).preset(sort, generation);
        }
    }
}

pub(super) fn apply_form(app: &mut App, form: &FilterForm, cmds: &mut Vec<Command>) {
    match form.tab {
        Resource::Conversations => {
            let Some(mut f) = form.conversation_filter() else {
                return;
            };
            match form.visitor_email() {
                None => set_conversations(app, f, cmds),
                // The same e-mail as now: its visitors as resolved then.
                Some(email)
                    if app
                        .conversations
                        .filter()
                        .by_email
                        .as_ref()
                        .is_some_and(|b| b.email == email) =>
                {
                    f.by_email = app.conversations.filter().by_email.clone();
                    f.visitor_id = app.conversations.filter().visitor_id;
                    set_conversations(app, f, cmds);
                }
                Some(email) => {
                    let what = format!(
                        "the visitors with e-mail {}",
                        convo_text::one_line(&email, 60)
                    );
                    let ticket = crate::message::update::looking_up(app, what);
                    cmds.push(Command::ResolveEmail {
                        ticket,
                        email,
                        base: f,
                    });
                }
            }
        }
        Resource::Visitors => set_visitors(app, form.visitor_filter(), cmds),
    }
}

pub(super) fn apply_view(app: &mut App, index: usize, cmds: &mut Vec<Command>) {
    let Some(v) = app.settings().views().get(index).cloned() else {
        return;
    };
    // A view written as a query runs it (a union, checks, e-mails looked up), its text kept.
    if let Some(q) = v
        .query
        .as_deref()
        .and_then(|t| convo_query::query::parse(t, v.tab).ok())
    {
        app.open_oldest_first(v.oldest_first);
        cmds.extend(crate::tab_query::run_query(app, v.tab, q));
        app.say(format!("view: {}", convo_text::one_line(&v.name, 60)));
        return;
    }
    let from = here(app);
    app.open_oldest_first(v.oldest_first);
    app.show_tab(v.tab);
    match v.tab {
        Resource::Conversations => set_conversations_from(app, from, v.conversations, cmds),
        Resource::Visitors => set_visitors_from(app, from, v.visitors, cmds),
    }
    app.say(format!("view: {}", convo_text::one_line(&v.name, 60)));
}

pub(super) fn drill(app: &mut App, action: Action, cmds: &mut Vec<Command>) {
    let filter = match app.active() {
        Resource::Conversations => {
            let Some(row) = app.conversations.selected_row() else {
                return crate::message::update::no_row_selected(app);
            };
            match action {
                Action::DrillVisitor => ConversationFilter {
                    visitor_id: Some(row.visitor_id),
                    ..Default::default()
                },
                Action::DrillSite => ConversationFilter {
                    site_id: Some(row.site_id),
                    ..Default::default()
                },
                _ => ConversationFilter {
                    assignee: row
                        .assignee_id
                        .map_or(Assignee::Unassigned, Assignee::Agent),
                    ..Default::default()
                },
            }
        }
        Resource::Visitors => {
            let Some(row) = app.visitors.selected_row() else {
                return crate::message::update::no_row_selected(app);
            };
            if action != Action::DrillVisitor {
                return app.say("from a visitor: V shows their conversations");
            }
            ConversationFilter {
                visitor_id: Some(row.id),
                ..Default::default()
            }
        }
    };
    let from = here(app);
    app.show_tab(Resource::Conversations);
    set_conversations_from(app, from, filter, cmds);
}

/// An oldest-first view ("Breaching") loads every page and sorts by creation, oldest on top,
/// for each new walk of its filters (a reload, `r`); other filters end it. A sort the user
/// chooses meanwhile is kept until the next walk.
pub(super) fn keep_oldest_first(app: &mut App) {
    let Some(set_for) = app.oldest_first() else {
        return;
    };
    // Its query ("Breaching": `due:breaching`) or, for a view of filters, its filters.
    let shown = app
        .settings()
        .views()
        .iter()
        .find(|v| v.oldest_first)
        .is_some_and(|v| match &v.query {
            Some(q) => convo_query::query::parse(q, Resource::Conversations)
                .is_ok_and(|q| q.to_string() == app.conversations.query().to_string()),
            None => &v.conversations == app.conversations.filter(),
        });
    if !shown {
        app.end_oldest_first();
        sort::update::stop_following(app, Resource::Conversations);
        return;
    }
    let generation = app.conversations.generation();
    if set_for != generation {
        // Just opened: on its first (oldest) row, whatever order the pages come in. A
        // reload keeps where the user was (on their row, or still on the first).
        preset_oldest_first(app, set_for == u64::MAX);
    }
}

/// The oldest-first order of the "Breaching" view for the tab's walk, every page loaded;
/// `follow_top`: on its first row as rows come.
pub(super) fn preset_oldest_first(app: &mut App, follow_top: bool) {
    let generation = app.conversations.generation();
    app.conversations.load_whole();
    let s = app.sort_mut().get_mut(Resource::Conversations);
    s.preset(
        crate::sort::Sort {
            col: crate::columns::Column::Created,
            desc: false,
        },
        generation,
    );
    if follow_top {
        s.follow_top = true;
    }
    app.oldest_first_set_for(generation);
}
