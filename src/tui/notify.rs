//! Notifications: a refresh of a saved view with `notify = true` that finds more unassigned
//! open conversations rings the bell and sends a desktop notification with fixed text.

use crate::api::{Conversation, ConversationFilter, Resource, Status};
use crate::config::View;

/// Loaded conversations that are open and unassigned.
pub fn unassigned_open(rows: &[Conversation]) -> usize {
    rows.iter()
        .filter(|c| c.status == Status::Open && c.assignee_id.is_none())
        .count()
}

/// True when the Conversations tab shows a saved view with `notify = true` (its filters are
/// the tab's filters).
pub fn watching(views: &[View], filter: &ConversationFilter) -> bool {
    views
        .iter()
        .any(|v| v.notify && v.tab == Resource::Conversations && v.conversations == *filter)
}

/// The bytes of a notification: the bell, then OSC 9 (iTerm2, WezTerm, Windows Terminal…)
/// and OSC 777 (rxvt, foot, Ghostty…). Fixed text and a number: nothing from the data.
pub fn notification(more: usize) -> String {
    let text = format!("{more} more unassigned open");
    format!("\x07\x1b]9;convo: {text}\x07\x1b]777;notify;convo;{text}\x07")
}
