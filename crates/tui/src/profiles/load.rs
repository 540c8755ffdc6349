//! Loading another profile, run by the runtime: the config is read again with the profile
//! and its client built; the answer comes back as `Msg::ProfileLoaded`.

use std::path::PathBuf;

use tokio::sync::mpsc::UnboundedSender;

use crate::msg::{Msg, Task};
use crate::session::Session;
use convo_config::{Config, Overrides};

/// What the app takes from a loaded config: its session, with a client built for it; a
/// refusal in one line.
pub fn switch_of(cfg: &Config, name: String) -> Result<Session, String> {
    // The config's own checks first (`[columns]`, `[keys]`, views), then the client.
    let client = convo_commands::setup::client_for(cfg).map_err(|e| e.to_string())?;
    Session::of(cfg, name, client).map_err(|e| e.to_string())
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
