//! What a new browser starts from: the parts of a config `App::new` takes, its clock and its
//! terminal's size (`run` fills it from the config, tests by hand).

use jiff::tz::TimeZone;

use convo_api::Limit;
use convo_config::{Aliases, View};

/// Everything `App::new` needs; `run` fills it from the config, tests by hand.
#[derive(Debug, Clone)]
pub struct AppInit {
    pub page_size: Limit,
    /// Config views; the built-in one is added in front.
    pub views: Vec<View>,
    pub aliases: Aliases,
    /// `None` or 0: no periodic refresh.
    pub refresh_secs: Option<u64>,
    /// Shown in the header (sanitised there): e.g. the base URL's host and the masked key.
    pub endpoint: String,
    pub demo: bool,
    pub now: jiff::Timestamp,
    pub tz: TimeZone,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// `agent_id` (who `me` is): the built-in "My open" view when set.
    pub agent_id: Option<uuid::Uuid>,
    /// `NO_COLOR` is set: no colours at all.
    pub no_color: bool,
}
