//! A restart remembers (issue 39 §8): where the browser was when it quit (the tab on screen,
//! and each tab's own view or query and display sort) is kept in the local store, which is
//! per profile, and reopened at the next start. `convo --fresh` starts clean (so does
//! `--view` or `--query`, which say where to start); `store = false` keeps nothing.

use serde::{Deserialize, Serialize};

use crate::app::App;
use crate::columns::Column;
use crate::sort::Sort;
use convo_api::Resource;

/// Where the browser was, as the store keeps it (JSON): the tab on screen and each tab's own
/// place. A place written before the Visitors tab's was kept (no `visitors` key) still reads:
/// its Visitors tab starts unfiltered, as it did then.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// `conversations` or `visitors`: the tab on screen.
    pub tab: String,
    /// The Conversations tab's place (its fields at the top level, where they always were).
    #[serde(flatten)]
    pub conversations: TabPlace,
    /// The Visitors tab's place.
    #[serde(default)]
    pub visitors: TabPlace,
}

/// One tab's place: its view, query and display sort.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabPlace {
    /// The view the tab showed (built-in or `[[views]]`), by name.
    #[serde(default)]
    pub view: Option<String>,
    /// Its query as the query line writes it (`me` for `agent_id`), reopened when the view is
    /// gone; `None`: no filters.
    #[serde(default)]
    pub query: Option<String>,
    /// The tab's display sort: a `[columns]` name, and whether descending.
    #[serde(default)]
    pub sort: Option<String>,
    #[serde(default)]
    pub desc: bool,
}

impl Place {
    /// Where `app` is now.
    pub fn of(app: &App) -> Place {
        Place {
            tab: match app.active() {
                Resource::Conversations => "conversations".into(),
                Resource::Visitors => "visitors".into(),
            },
            conversations: TabPlace::of(app, Resource::Conversations),
            visitors: TabPlace::of(app, Resource::Visitors),
        }
    }

    /// As the store keeps it.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// From the store; `None` for text this convo cannot read (a damaged one).
    pub fn from_text(text: &str) -> Option<Place> {
        serde_json::from_str(text).ok()
    }

    /// Reopens this place in an app not started yet: each tab's view (or query) and sort, and
    /// the tab on screen. What no longer exists (a view removed from the config, a query that
    /// no longer parses) is left out. The status line says what was reopened and how to start
    /// clean.
    pub fn reopen(&self, app: &mut App) {
        let conversations = self.conversations.reopen_conversations(app);
        // The Conversations query may wait for the first `update` (its e-mails are looked up
        // first): the Visitors tab's is placed now, beside it.
        let waiting = app.take_queued_query();
        let visitors = self.visitors.reopen_visitors(app);
        app.queue_query(waiting);
        app.show_tab(if self.tab == "visitors" {
            Resource::Visitors
        } else {
            Resource::Conversations
        });
        let what = match app.active() {
            Resource::Conversations => conversations.or(visitors.map(|w| format!("visitors {w}"))),
            Resource::Visitors => visitors.or(conversations),
        };
        if let Some(w) = what {
            // Whole at 80 columns: the name or query is cut to fit.
            app.say(format!(
                "reopened {w} as you left it · --fresh starts clean"
            ));
        }
    }
}

impl TabPlace {
    /// Where `tab` of `app` is now.
    fn of(app: &App, tab: Resource) -> TabPlace {
        let (query, union, sort) = match tab {
            Resource::Conversations => (
                &app.conversations.query(),
                app.conversations.union().is_some(),
                app.sort().conversations.sort,
            ),
            Resource::Visitors => (
                &app.visitors.query(),
                app.visitors.union().is_some(),
                app.sort().visitors.sort,
            ),
        };
        let text = convo_query::query::named::with_aliases(
            query,
            &convo_config::Aliases::default(),
            app.settings().query_settings().agent_id,
        )
        .to_string();
        let plain = !union;
        let oldest_first = tab == Resource::Conversations && app.shows_oldest_first();
        let view = app
            .settings()
            .views()
            .iter()
            .find(|v| {
                v.tab == tab
                    && v.oldest_first == oldest_first
                    && match &v.query {
                        Some(q) => q.trim() == text || !plain && *q == query.to_string(),
                        None => {
                            plain
                                && match tab {
                                    Resource::Conversations => {
                                        &v.conversations == app.conversations.filter()
                                    }
                                    Resource::Visitors => &v.visitors == app.visitors.filter(),
                                }
                        }
                    }
            })
            .map(|v| v.name.clone());
        // An oldest-first view's order is its own: a display sort over it is not kept.
        let sort = sort.filter(|_| view.is_none() || !oldest_first);
        TabPlace {
            // Kept beside the view's name: a view gone from the config (or `--query`'s own,
            // which lives one run) still reopens as its query.
            query: (!text.is_empty()).then_some(text),
            view,
            sort: sort.map(|s| s.col.key().to_string()),
            desc: sort.is_some_and(|s| s.desc),
        }
    }

    /// Reopens the Conversations tab's place; what was reopened, in words.
    fn reopen_conversations(&self, app: &mut App) -> Option<String> {
        let mut what = None;
        if let Some(i) = self.view.as_deref().and_then(|n| app.view_index(n))
            && app.settings().views()[i].tab == Resource::Conversations
        {
            app.open_view_initially(i);
            what = Some(format!(
                "{:?}",
                convo_text::one_line(&app.settings().views()[i].name, 26)
            ));
        } else if let Some(q) = self.parsed(Resource::Conversations) {
            what = Some(convo_text::one_line(&q.to_string(), 28));
            app.queue_query(Some(q));
        }
        crate::tab_query::place_pending(app);
        self.reopen_sort(app, Resource::Conversations, &mut what);
        what
    }

    /// Reopens the Visitors tab's place (its view's filters or query, its sort); what was
    /// reopened, in words. The Conversations tab is left as it is.
    fn reopen_visitors(&self, app: &mut App) -> Option<String> {
        let mut what = None;
        let view = self
            .view
            .as_deref()
            .and_then(|n| app.view_index(n))
            .filter(|i| app.settings().views()[*i].tab == Resource::Visitors);
        let query = match view {
            Some(i) => {
                let v = app.settings().views()[i].clone();
                what = Some(format!("{:?}", convo_text::one_line(&v.name, 26)));
                match v.query.as_deref() {
                    Some(t) => convo_query::query::parse(t, Resource::Visitors).ok(),
                    None => {
                        app.visitors.start_with(v.visitors);
                        None
                    }
                }
            }
            None => self.parsed(Resource::Visitors).inspect(|q| {
                what = Some(convo_text::one_line(&q.to_string(), 28));
            }),
        };
        if let Some(q) = query {
            app.queue_query(Some(q));
            crate::tab_query::place_pending(app);
            // A visitors query needs no look-up: placed, or it does not resolve (left out).
            app.queue_query(None);
        }
        self.reopen_sort(app, Resource::Visitors, &mut what);
        what
    }

    /// This place's query, parsed for `tab`, if it still parses.
    fn parsed(&self, tab: Resource) -> Option<convo_query::query::Query> {
        self.query
            .as_deref()
            .and_then(|q| convo_query::query::parse(q, tab).ok())
    }

    fn reopen_sort(&self, app: &mut App, tab: Resource, what: &mut Option<String>) {
        let Some(col) = self.sort.as_deref().and_then(|k| Column::parse(tab, k)) else {
            return;
        };
        let sort = Sort {
            col,
            desc: self.desc,
        };
        let generation = with_tab!(ref app, tab, |t| t.generation());
        let sorting = app.sort_mut().get_mut(tab);
        sorting.preset(sort, generation);
        // A fresh start is on the first row of the order shown (not on the row the service
        // lists first, wherever the sort puts it), until the user moves.
        sorting.follow_top = true;
        what.get_or_insert_with(|| "the list".into());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_kept_before_the_visitors_tab_had_one_still_reads() {
        // What the convo before this one wrote: the Conversations tab's fields only.
        let old = r#"{"tab":"visitors","view":"My open","query":"assignee:me status:open","sort":"updated","desc":true}"#;
        let p = Place::from_text(old).expect("an older place reads");
        assert_eq!(p.tab, "visitors");
        assert_eq!(p.conversations.view.as_deref(), Some("My open"));
        assert_eq!(
            p.conversations.query.as_deref(),
            Some("assignee:me status:open")
        );
        assert_eq!(p.conversations.sort.as_deref(), Some("updated"));
        assert!(p.conversations.desc);
        assert_eq!(p.visitors, TabPlace::default());
        // and what this one writes keeps both, the Conversations part where it was
        let mut q = p.clone();
        q.visitors.query = Some("name:ana".into());
        q.visitors.sort = Some("email".into());
        let text = q.to_text();
        assert!(
            text.contains(r#""query":"assignee:me status:open""#),
            "{text}"
        );
        assert_eq!(Place::from_text(&text), Some(q));
    }
}
