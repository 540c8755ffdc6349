//! The one way from a loaded config to the browser's settings: [`Session::of`] reads what the
//! browser takes from a config (and refuses a config whose `[keys]`, `[columns]` or views it
//! cannot use, before anything changes), and [`App::enter_session`] puts it in the app. The
//! start ([`crate::app_from_config`]) and a profile switch
//! ([`crate::profiles::update::profile_loaded`]) both go through them, so a setting added
//! here reaches both.

use crate::keys::KeyMap;
use crate::keys::config::KeysError;
use convo_api::{Client, Limit};
use convo_config::ui::UiConfig;
use convo_config::{Aliases, Config, View};

/// What the browser takes from one loaded config (a profile, or the top level), with the
/// client built for it. (On a switch, the runtime takes the client and the config.)
#[derive(Clone)]
pub struct Session {
    /// The profile's name as the picker shows it ([`crate::profiles::TOP_LEVEL`] for none).
    pub name: String,
    pub page_size: Limit,
    /// The config's views, their queries resolved (the built-in ones are added in front).
    pub views: Vec<View>,
    pub aliases: Aliases,
    pub refresh_secs: Option<u64>,
    /// The header's endpoint text (host and masked key).
    pub endpoint: String,
    pub ui: UiConfig,
    pub profiles: Vec<String>,
    /// The key map of its `[keys]` (checked).
    pub keymap: KeyMap,
    /// The keys of its `[[commands]]` (checked against `keymap`).
    pub command_keys: Vec<Option<crate::keys::Key>>,
    /// Its response-time targets, and whether its `[columns]` place DUE.
    pub sla: convo_engine::sla::Sla,
    pub columns_configured: bool,
    /// Its client; on a switch, the runtime takes it.
    pub client: Option<Client>,
    /// The whole config (query settings, the file a view is saved to, the local store).
    pub config: Option<Box<Config>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("name", &self.name)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// Why a config cannot become a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// `[keys]` or a `[[commands]]` key the key map refuses.
    Keys(KeysError),
    /// `[columns]` or a view's query refused (the message says which, and where).
    Refused(String),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Keys(e) => write!(f, "{}: {}", e.key, e.message),
            SessionError::Refused(m) => f.write_str(m),
        }
    }
}

/// The header's endpoint text: host (and port) and the masked key.
pub fn endpoint_of(client: &Client) -> String {
    let base = client.base_url();
    let host = match (base.host_str(), base.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => base.to_string(),
    };
    convo_text::one_line(&format!("{host} · {}", client.masked_key()), 80)
}

impl Session {
    /// What the browser takes from `cfg`, called `name`, with its `client`. Everything that
    /// can refuse the config is checked here, before the app takes any of it: a switch is then
    /// all or nothing.
    pub fn of(cfg: &Config, name: String, client: Client) -> Result<Session, SessionError> {
        // `[columns]` as the config's own checks would refuse it (see `main`).
        crate::columns::check(&cfg.ui.columns).map_err(|(key, message)| {
            SessionError::Refused(cfg.invalid(key, message).to_string())
        })?;
        let keymap = KeyMap::with_config(&cfg.ui.keys).map_err(SessionError::Keys)?;
        let command_keys = keymap
            .command_keys(&cfg.ui.commands)
            .map_err(SessionError::Keys)?;
        Ok(Session {
            name,
            page_size: cfg.page_size,
            views: crate::views_of(cfg).map_err(SessionError::Refused)?,
            aliases: cfg.aliases.clone(),
            refresh_secs: cfg.refresh_secs,
            endpoint: endpoint_of(&client),
            ui: cfg.ui.clone(),
            profiles: cfg.profiles.clone(),
            keymap,
            command_keys,
            sla: cfg.sla.clone(),
            columns_configured: cfg.ui.columns.conversations.is_some(),
            client: Some(client),
            config: Some(Box::new(cfg.clone())),
        })
    }
}
