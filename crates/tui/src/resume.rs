//! A restart remembers (issue 39 §8): where the browser was when it quit (the tab on screen,
//! the Conversations tab's view or query, its display sort) is kept in the local store, which
//! is per profile, and reopened at the next start. `convo --fresh` starts clean (so does
//! `--view` or `--query`, which say where to start); `store = false` keeps nothing.

use serde::{Deserialize, Serialize};

use crate::app::App;
use crate::columns::Column;
use crate::sort::Sort;
use convo_api::Resource;

/// Where the browser was, as the store keeps it (JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// `conversations` or `visitors`: the tab on screen.
    pub tab: String,
    /// The view the Conversations tab showed (built-in or `[[views]]`), by name.
    pub view: Option<String>,
    /// Its query as the query line writes it (`me` for `agent_id`), reopened when the view is
    /// gone; `None`: no filters.
    pub query: Option<String>,
    /// The display sort of the Conversations tab: a `[columns]` name, and whether descending.
    pub sort: Option<String>,
    pub desc: bool,
}

impl Place {
    /// Where `app` is now.
    pub fn of(app: &App) -> Place {
        let t = &app.conversations;
        let text = convo_query::query::named::with_aliases(
            &t.query,
            &convo_config::Aliases::default(),
            app.query_settings.agent_id,
        )
        .to_string();
        let plain = t.union.is_none();
        let view = app
            .views
            .iter()
            .find(|v| {
                v.tab == Resource::Conversations
                    && v.oldest_first == app.oldest_first.is_some()
                    && match &v.query {
                        Some(q) => q.trim() == text || !plain && *q == t.query.to_string(),
                        None => plain && v.conversations == t.filter,
                    }
            })
            .map(|v| v.name.clone());
        let sort = app
            .sort
            .conversations
            .sort
            .filter(|_| view.is_none() || app.oldest_first.is_none());
        Place {
            tab: match app.active {
                Resource::Conversations => "conversations".into(),
                Resource::Visitors => "visitors".into(),
            },
            // Kept beside the view's name: a view gone from the config (or `--query`'s own,
            // which lives one run) still reopens as its query.
            query: (!text.is_empty()).then_some(text),
            view,
            sort: sort.map(|s| s.col.key().to_string()),
            desc: sort.is_some_and(|s| s.desc),
        }
    }

    /// As the store keeps it.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// From the store; `None` for text this convo cannot read (an older or damaged one).
    pub fn from_text(text: &str) -> Option<Place> {
        serde_json::from_str(text).ok()
    }

    /// Reopens this place in an app not started yet: its view (or query), sort and tab. What
    /// no longer exists (a view removed from the config, a query that no longer parses) is
    /// left out. The status line says what was reopened and how to start clean.
    pub fn reopen(&self, app: &mut App) {
        let mut what = None;
        if let Some(i) = self.view.as_deref().and_then(|n| app.view_index(n)) {
            app.open_view_initially(i);
            what = Some(format!(
                "{:?}",
                convo_text::one_line(&app.views[i].name, 26)
            ));
        } else if let Some(q) = self
            .query
            .as_deref()
            .and_then(|q| convo_query::query::parse(q, Resource::Conversations).ok())
        {
            what = Some(convo_text::one_line(&q.to_string(), 28));
            app.pending_query = Some(q);
        }
        crate::tab_query::place_pending(app);
        if let Some(col) = self
            .sort
            .as_deref()
            .and_then(|k| Column::parse(Resource::Conversations, k))
        {
            let generation = app.conversations.generation;
            app.sort.conversations.preset(
                Sort {
                    col,
                    desc: self.desc,
                },
                generation,
            );
            what.get_or_insert_with(|| "the list".into());
        }
        if self.tab == "visitors" {
            app.active = Resource::Visitors;
        }
        if let Some(w) = what {
            // Whole at 80 columns: the name or query is cut to fit.
            app.say(format!(
                "reopened {w} as you left it · --fresh starts clean"
            ));
        }
    }
}

/// Reads the place kept in the store of `config`'s profile and reopens it in `app` (before
/// the browser starts). Nothing when there is none, or the store cannot be read (it says so
/// itself once it runs).
pub fn reopen_from_store(app: &mut App, config: &convo_config::Config) {
    let Ok(path) = convo_store::path_for(config) else {
        return;
    };
    let Ok(store) = convo_store::Store::open(&path) else {
        return;
    };
    if let Ok(Some(text)) = store.place()
        && let Some(p) = Place::from_text(&text)
    {
        p.reopen(app);
    }
}
