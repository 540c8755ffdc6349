//! Loading another profile, run by the runtime: the config is read again with the profile
//! and its client built; the answer comes back as `Msg::ProfileLoaded`.

use std::path::PathBuf;

use tokio::sync::mpsc::UnboundedSender;

use super::ProfileSwitch;
use crate::msg::{Msg, Task};
use convo_api::Client;
use convo_config::{Config, Overrides};

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

/// What the app takes from a loaded config (with its client).
pub fn switch_of(cfg: &Config, name: String) -> Result<ProfileSwitch, String> {
    // Everything that can refuse the profile is checked here, before the app or the runtime
    // takes any of it: the switch is then all or nothing.
    // `[columns]` as the config's own checks would refuse it (see `main`).
    crate::columns::check(&cfg.ui.columns)
        .map_err(|(key, message)| cfg.invalid(key, message).to_string())?;
    let keymap = crate::keys::KeyMap::with_config(&cfg.ui.keys)
        .map_err(|e| format!("{}: {}", e.key, e.message))?;
    let command_keys = keymap
        .command_keys(&cfg.ui.commands)
        .map_err(|e| format!("{}: {}", e.key, e.message))?;
    let client = convo_commands::setup::client_for(cfg).map_err(|e| e.to_string())?;
    Ok(ProfileSwitch {
        name,
        page_size: cfg.page_size,
        views: crate::views_of(cfg)?,
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

/// Loads the config again with the profile `name` (`None`: its top level, whatever
/// `CONVO_PROFILE` says; it may run `api_key_command`, hence a blocking task) and builds its
/// client.
pub fn switch_profile(
    config_path: Option<PathBuf>,
    id: u64,
    name: Option<String>,
    tx: &UnboundedSender<Msg>,
) {
    let tx_done = tx.clone();
    crate::tasks::spawn_blocking(Task::Profile, tx, move || {
        let tx = tx_done;
        let ov = Overrides {
            config_path,
            base_url: None,
            profile: name.clone(),
            proxy: None,
        };
        let env = |k: &str| {
            let v = std::env::var(k).ok().filter(|v| !v.is_empty());
            v.filter(|_| name.is_some() || k != "CONVO_PROFILE")
        };
        let label = name.clone().unwrap_or_else(|| super::TOP_LEVEL.to_string());
        let result = Config::load_with(&ov, &env)
            .map_err(|e| e.to_string())
            .and_then(|cfg| switch_of(&cfg, label))
            .map(Box::new);
        let _ = tx.send(Msg::ProfileLoaded { id, result });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use convo_config::Overrides;

    /// A profile whose `[columns]` the column table refuses is refused whole, with the
    /// config's own error (before, `Config::load` refused it; the names are the TUI's now).
    #[test]
    fn a_profile_with_an_unknown_column_is_refused_with_the_config_error() {
        let env = |k: &str| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string());
        let text = "base_url = \"https://x.example\"\n[columns]\nvisitors = [\"site\"]\n";
        let path = std::path::Path::new("/t/c.toml");
        let cfg = Config::from_toml_str(text, path, &Overrides::default(), &env).unwrap();
        let e = switch_of(&cfg, "p".into()).err().unwrap();
        assert_eq!(
            e,
            "config error in /t/c.toml: columns.visitors: unknown column \"site\"; known: name, \
             email, external_id, created, attributes, id"
        );
    }
}
