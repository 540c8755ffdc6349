//! The built-in views every profile has, before the config's `[[views]]`: the browser's view
//! picker, the board and `convo summary --views` / `convo exporter` list them first.

use super::View;
use convo_api::{Assignee, ConversationFilter, Resource, Status, VisitorFilter};

/// The name of the built-in view.
pub const BUILTIN_VIEW: &str = "Unassigned open";

/// The name of the built-in view of the queue against its first-response target.
pub const BREACHING_VIEW: &str = "Breaching";

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

/// The built-in views, in the picker's order.
pub fn builtin_views() -> Vec<View> {
    vec![builtin_view(), breaching_view()]
}

/// The built-in "Breaching" view: open unassigned conversations, every page loaded, oldest
/// first, with the breaching and imminent counts in its title (the chips line).
pub fn breaching_view() -> View {
    View {
        name: BREACHING_VIEW.into(),
        oldest_first: true,
        ..builtin_view()
    }
}
