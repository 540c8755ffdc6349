//! The built-in views every profile has, before the config's `[[views]]`: the browser's view
//! picker, the board and `convo summary --views` / `convo exporter` list them first.

use super::View;
use convo_api::{Assignee, ConversationFilter, Resource, Status, VisitorFilter};
use uuid::Uuid;

/// The name of the built-in view.
pub const BUILTIN_VIEW: &str = "Unassigned open";

/// The name of the built-in view of the conversations past their first-response target.
pub const BREACHING_VIEW: &str = "Breaching";

/// The query of the "Breaching" view: waiting (open, unassigned) past the first-response target.
pub const BREACHING_QUERY: &str = "due:breaching";

/// The built-in view: open conversations nobody is assigned to.
pub fn builtin_view() -> View {
    View {
        name: BUILTIN_VIEW.into(),
        tab: Resource::Conversations,
        conversations: ConversationFilter {
            status: Some(Status::Open),
            assignee: Assignee::Unassigned,
            ..ConversationFilter::default()
        },
        visitors: VisitorFilter::default(),
        notify: false,
        oldest_first: false,
        query: None,
    }
}

/// The name of the built-in view of the agent's own open conversations.
pub const MY_OPEN_VIEW: &str = "My open";

/// The built-in views, in the picker's order; "My open" when `agent_id` (who `me` is) is set.
pub fn builtin_views(agent_id: Option<Uuid>) -> Vec<View> {
    let mut v = vec![builtin_view(), breaching_view()];
    v.extend(agent_id.map(my_open_view));
    v
}

/// The built-in "My open" view: open conversations assigned to `me` (`agent_id`), newest
/// first; the chips and the picker write it `status:open assignee:me`. It notifies: a
/// conversation just assigned to me rings the bell while it is open.
pub fn my_open_view(me: Uuid) -> View {
    View {
        name: MY_OPEN_VIEW.into(),
        notify: true,
        conversations: ConversationFilter {
            status: Some(Status::Open),
            assignee: Assignee::Agent(me),
            ..ConversationFilter::default()
        },
        ..builtin_view()
    }
}

/// The built-in "Breaching" view: the waiting conversations past their first-response target
/// (`due:breaching`: open, unassigned, past the target of their site), every page loaded,
/// oldest first. Its rows are its count: the board, `summary --views` and the exporter count
/// the same query. Only with a first-response target ([`needs_missing_target`]).
pub fn breaching_view() -> View {
    View {
        name: BREACHING_VIEW.into(),
        oldest_first: true,
        // The query is the view (as for a `[[views]]` query the service alone cannot
        // answer): no filters beside it, so the board keys it by its query.
        conversations: ConversationFilter::default(),
        query: Some(BREACHING_QUERY.into()),
        ..builtin_view()
    }
}

/// Whether `v` is the built-in view on the first-response target while `sla` sets none (its
/// `due:` query could not run): it is left out of the picker, the board,
/// `summary --views` and the exporter.
pub fn needs_missing_target(v: &View, sla: &convo_engine::sla::Sla) -> bool {
    let on_target =
        v.name == BREACHING_VIEW && v.query.as_deref().is_some_and(|q| q.starts_with("due:"));
    on_target && !sla.is_tracked(convo_engine::sla::Target::FirstResponse)
}
