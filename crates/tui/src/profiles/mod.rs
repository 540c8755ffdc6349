//! Profiles (`P`): the picker, and switching to another `[profiles.NAME]` of the config. How
//! keys and the loaded profile change the app: [`update`]; loading a profile (I/O, run by the
//! runtime): [`load`].

pub mod load;
pub mod update;

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

/// What the picker calls the config's top level (the settings outside every
/// `[profiles.NAME]`, used when convo starts without `--profile`).
pub const TOP_LEVEL: &str = "top level";

impl Profiles {
    /// The profiles a config defines and the one in use (`None`: the top level).
    pub fn offer(&mut self, names: Vec<String>, current: Option<String>) {
        self.names = names;
        self.current = current;
    }

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
