//! Profiles (`P`): the picker, and switching to another `[profiles.NAME]` of the config. How
//! keys and the loaded profile change the app: [`update`]; loading a profile (I/O, run by the
//! runtime): [`load`].

pub mod load;
pub mod update;

use convo_api::Limit;
use convo_config::ui::UiConfig;
use convo_config::{Aliases, View};

/// The profiles the config defines and the one in use.
#[derive(Debug, Clone, Default)]
pub struct Profiles {
    /// The profile in use, shown in the header.
    pub current: Option<String>,
    /// Profiles the config defines (for `P`).
    pub names: Vec<String>,
    /// A profile switch is being loaded.
    pub switching: Option<String>,
    /// The id of the last switch asked for: an answer with another id is older and dropped,
    /// so two quick switches cannot land out of order.
    pub request: u64,
    /// The id of the switch the app took: the runtime installs that answer's client and
    /// store, and no other.
    pub accepted: Option<u64>,
}

/// A profile loaded by the runtime: what the app takes from the new config. (The runtime
/// keeps the new client itself.)
#[derive(Clone)]
pub struct ProfileSwitch {
    pub name: String,
    pub page_size: Limit,
    pub views: Vec<View>,
    pub aliases: Aliases,
    pub refresh_secs: Option<u64>,
    /// The header's endpoint text (host and masked key).
    pub endpoint: String,
    pub ui: UiConfig,
    pub profiles: Vec<String>,
    /// The key map of the new profile's `[keys]` (checked when the profile was loaded).
    pub keymap: crate::keys::KeyMap,
    /// The keys of the new profile's `[[commands]]` (checked against `keymap`).
    pub command_keys: Vec<Option<crate::keys::Key>>,
    /// The new profile's response-time targets, and whether its `[columns]` place DUE.
    pub sla: convo_engine::sla::Sla,
    pub columns_configured: bool,
    /// The client of the new profile; the runtime takes it.
    pub client: Option<convo_api::Client>,
    /// The whole config, for the runtime to open the new profile's local store.
    pub config: Option<Box<convo_config::Config>>,
}

/// What the picker calls the config's top level (the settings outside every
/// `[profiles.NAME]`, used when convo starts without `--profile`).
pub const TOP_LEVEL: &str = "top level";

impl Profiles {
    /// The picker's lines: the top level, then each profile (none without profiles).
    pub fn entries(&self) -> Vec<Option<String>> {
        if self.names.is_empty() {
            return Vec::new();
        }
        std::iter::once(None)
            .chain(self.names.iter().cloned().map(Some))
            .collect()
    }
}

impl std::fmt::Debug for ProfileSwitch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfileSwitch")
            .field("name", &self.name)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}
