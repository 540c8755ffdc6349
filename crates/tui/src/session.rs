//! The one way from a loaded config to the browser's settings: [`Session::of`] reads what the
//! browser takes from a config (and refuses a config whose `[keys]`, `[columns]` or views it
//! cannot use, before anything changes), and [`App::enter_session`] puts it in the app. The
//! start ([`crate::app_from_config`]) and a profile switch
//! ([`crate::profiles::update::profile_loaded`]) both go through them, so a setting added
//! here reaches both.

use crate::app::App;
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

impl App {
    /// Takes a session's settings: look, keys, commands, page size, names, refresh, views
    /// (the built-in ones for its `agent_id` in front), targets, query settings, profiles,
    /// endpoint. What belonged to the service before is the caller's to reset.
    pub fn enter_session(&mut self, s: &Session) {
        self.apply_ui(&s.ui, self.theme.no_color);
        self.keymap = s.keymap.clone();
        self.commands.list = s.ui.commands.clone();
        self.commands.keys = s.command_keys.clone();
        self.limit = s.page_size;
        self.aliases = s.aliases.clone();
        self.stale_after_secs =
            s.ui.stale_after_secs
                .unwrap_or(convo_commands::summary::DEFAULT_STALE_AFTER_SECS);
        self.refresh_secs = s.refresh_secs.filter(|n| *n > 0);
        self.refresh_on = self.refresh_secs.is_some();
        let me = s.config.as_ref().and_then(|c| c.query.agent_id);
        let mut views = convo_config::builtin_views::builtin_views(me);
        views.extend(s.views.iter().cloned());
        self.views = views;
        self.set_sla(s.sla.clone(), s.columns_configured);
        if let Some(c) = &s.config {
            self.query_settings = c.query;
            self.scan_max_pages = c.query.scan_max_pages;
            self.config_file = c.views_file();
        }
        self.profiles.current = s
            .config
            .as_ref()
            .map_or_else(|| Some(s.name.clone()), |c| c.profile.clone());
        self.profiles.names = s.profiles.clone();
        self.endpoint = s.endpoint.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use convo_config::Overrides;

    fn config(text: &str) -> Config {
        let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
        Config::from_toml_str(
            text,
            std::path::Path::new("/t/c.toml"),
            &Overrides::default(),
            &env,
        )
        .unwrap()
    }

    /// What a session sets in the app, as text (every field [`App::enter_session`] owns).
    fn settings(app: &App) -> String {
        let views: Vec<&str> = app.views.iter().map(|v| v.name.as_str()).collect();
        format!(
            "{:?}",
            (
                (
                    app.limit,
                    app.refresh_secs,
                    app.refresh_on,
                    &app.aliases,
                    views
                ),
                (&app.keymap, app.stale_after_secs, &app.theme, &app.columns),
                (&app.web_url, app.mouse, app.refresh_max_pages, &app.sla),
                (app.query_settings, app.scan_max_pages, &app.config_file),
                (&app.commands.list, &app.commands.keys),
                (&app.profiles.current, &app.profiles.names, &app.endpoint),
            )
        )
    }

    const A: &str = r#"
base_url = "https://a.example"
page_size = 40
refresh_secs = 20
stale_after = "3h"
mouse = true
agent_id = "5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60"
scan_max_pages = 7
[aliases.sites]
"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90" = "Web shop"
[[views]]
name = "Mine on the web shop"
query = "assignee:me status:open site:\"Web shop\""
[keys]
reload = ["F5"]
[theme]
preset = "light"
[columns]
conversations = ["status", "due", "site", "id"]
[sla]
first_response = "5m"
"#;

    const B: &str = r#"
base_url = "https://b.example"
page_size = 90
"#;

    /// Starting on a config and switching to it from another give the browser the same
    /// settings: one way from a config to a session.
    #[test]
    fn a_profile_switched_to_sets_what_a_start_on_it_sets() {
        let (a, b) = (config(A), config(B));
        let client = |c: &Config| convo_commands::setup::client_for(c).unwrap();
        let opts = crate::TuiOptions::default();
        let started = crate::app_from_config(&a, &client(&a), &opts).unwrap();
        let mut switched = crate::app_from_config(&b, &client(&b), &opts).unwrap();
        assert_ne!(settings(&started), settings(&switched));
        let name = crate::profiles::TOP_LEVEL.to_string();
        let s = Session::of(&a, name, client(&a)).unwrap();
        let id = switched.profiles.request;
        crate::profiles::update::profile_loaded(&mut switched, id, Ok(Box::new(s)));
        assert_eq!(settings(&started), settings(&switched));
    }
}
