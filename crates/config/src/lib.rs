//! The config file (TOML), with env and flag overrides.
//!
//! Where it is: `--config PATH`, else `CONVO_CONFIG`, else `<config dir>/convo/config.toml`.
//! `CONVO_BASE_URL` and `--base-url` override `base_url`; the key comes from `CONVO_API_KEY`,
//! then `api_key_command`, then `api_key` (docs/design.md "Authentication"). Unknown keys and wrong types are
//! errors naming the file, line and key; no error, warning or `Debug` output shows the key.
//!
//! - [`file`]: the format as serde reads it, parse errors, views and aliases.
//! - `sla`: `[sla]`, response-time targets and their per-site overrides.
//! - [`secret`]: `api_key_command` and the file-permission check.
//! - `locate`: the line of a key in the file, for errors found after parsing.
//! - `text`: line and column of an offset, and what of a token an error may show; below the
//!   others.
//! - [`commands`]: `[[commands]]`, the user's commands on a row (kept in `ui.commands`): the
//!   format, placeholders and what a run gets (argv and variables, never a shell line).
//! - [`ui`]: the look-and-habits keys (`[keys]`, `[theme]`, `[columns]`, `web_url`,
//!   `stale_after`, `mouse`), which the TUI reads.
//!
//! A value from `CONVO_API_KEY`, `CONVO_BASE_URL`, `CONVO_PROFILE` or a flag that cannot be
//! used is a [`ConfigError::Setting`], which names it and not the file.

pub mod builtin_views;
pub mod commands;
mod file;
mod locate;
pub mod save_view;
mod secret;
pub mod settings;
mod sla;
mod text;
pub mod ui;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use uuid::Uuid;

use convo_api::{
    ApiKey, ConversationFilter, KeyError, KeySource, Limit, ProxySetting, Resource, VisitorFilter,
};
use file::{Extras, FileConfig, extras, parse_file};

/// Longest request or connect timeout: more is a typo (and would overflow timers).
const MAX_TIMEOUT_SECS: u64 = 3600;
/// Most requests in flight at once that `max_parallel` may ask for.
const MAX_PARALLEL: i64 = 32;

/// Command-line overrides, filled by main from the command line.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--config PATH`: the file to read instead of `CONVO_CONFIG` or the default path.
    pub config_path: Option<PathBuf>,
    /// `--base-url URL`: wins over `CONVO_BASE_URL` and the file.
    pub base_url: Option<String>,
    /// `--profile NAME` (else `CONVO_PROFILE`).
    pub profile: Option<String>,
    /// `--proxy URL|none`: wins over the profile, the file and the environment.
    pub proxy: Option<String>,
}

/// A saved view: a name, a tab and its filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// Unique among the views of the file.
    pub name: String,
    /// The tab it opens on; only that tab's filter is set.
    pub tab: Resource,
    /// Filters of a conversations view (default for a visitors view).
    pub conversations: ConversationFilter,
    /// Filters of a visitors view (default for a conversations view).
    pub visitors: VisitorFilter,
    /// `notify = true`: a bell and a desktop notification (fixed text) when a refresh finds
    /// new conversations in this view (any view: in "My open", those just assigned to me).
    /// Conversations views only.
    pub notify: bool,
    /// Every page loaded and shown oldest first (the built-in "Breaching" view): the queue as a
    /// supervisor works it, the longest waiting on top.
    pub oldest_first: bool,
    /// `query = "…"`: the view's query as written in the file; the browser sets the filter
    /// above from it (`convo_query::query::views`), in its canonical text once applied.
    pub query: Option<String>,
}

/// Names for site and agent UUIDs (one namespace), from `[aliases]`, each of a kind when
/// it is known (`[aliases.sites]`, `[aliases.agents]`, the demo's names): a site's name is
/// then never taken for an agent's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases(BTreeMap<Uuid, (String, Option<AliasKind>)>);

/// What an alias names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AliasKind {
    Site,
    Agent,
}

impl AliasKind {
    /// `site` or `agent`.
    pub fn as_str(self) -> &'static str {
        match self {
            AliasKind::Site => "site",
            AliasKind::Agent => "agent",
        }
    }
}

impl Aliases {
    /// The name given to this UUID, if any.
    pub fn name(&self, id: &Uuid) -> Option<&str> {
        self.0.get(id).map(|(n, _)| n.as_str())
    }
    /// What this UUID's alias names, when it is known.
    pub fn kind(&self, id: &Uuid) -> Option<AliasKind> {
        self.0.get(id).and_then(|(_, k)| *k)
    }
    /// Whether no alias is defined.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Every UUID named `name` (exactly, else ignoring ASCII case).
    pub fn ids_named(&self, name: &str) -> Vec<Uuid> {
        let exact: Vec<Uuid> = self
            .0
            .iter()
            .filter(|(_, (n, _))| *n == name)
            .map(|(id, _)| *id)
            .collect();
        if !exact.is_empty() {
            return exact;
        }
        self.0
            .iter()
            .filter(|(_, (n, _))| n.eq_ignore_ascii_case(name))
            .map(|(id, _)| *id)
            .collect()
    }
    /// Every (UUID, name), in UUID order.
    pub fn iter(&self) -> impl Iterator<Item = (Uuid, &str)> {
        self.0.iter().map(|(id, (n, _))| (*id, n.as_str()))
    }
    /// Every (UUID, name, kind when known), in UUID order.
    pub fn iter_kinds(&self) -> impl Iterator<Item = (Uuid, &str, Option<AliasKind>)> {
        self.0.iter().map(|(id, (n, k))| (*id, n.as_str(), *k))
    }
    /// Names `id`, of no known kind (a later name for the same UUID wins).
    pub fn insert(&mut self, id: Uuid, name: String) {
        self.0.insert(id, (name, None));
    }
    /// Gives a name of no known kind the kind the data shows it to be (a site's id in a row).
    pub fn learn(&mut self, id: Uuid, kind: AliasKind) {
        if let Some((_, k @ None)) = self.0.get_mut(&id) {
            *k = Some(kind);
        }
    }
    /// Names `id` as a site or an agent (a later name for the same UUID wins).
    pub fn insert_as(&mut self, id: Uuid, name: String, kind: AliasKind) {
        self.0.insert(id, (name, Some(kind)));
    }
}

/// The local store's settings (`store`, `visitor_sync`, `visitor_sync_rps`,
/// `visitor_rewalk`; per profile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreSettings {
    /// `store = false`: nothing is kept on disk.
    pub enabled: bool,
    /// What names the store's file with the profile: the base URL, or `demo` for `--demo`
    /// (whose port changes every run).
    pub key_url: String,
    /// The background walk of the visitors list.
    pub visitor_sync: bool,
    /// Its pace: at most this many requests in any second.
    pub visitor_sync_rps: u32,
    /// A complete walk is done again when it is older than this (names and e-mails change;
    /// new visitors come in between by the checks of the list's new end).
    pub visitor_rewalk_secs: i64,
    /// Where the store files are: `None` is the data dir's `stores` (`store::default_dir`).
    /// Not read from the file; a test (or an embedding program) gives its own place.
    pub dir: Option<std::path::PathBuf>,
}

impl StoreSettings {
    /// Default pace of the background walk.
    pub const DEFAULT_RPS: u32 = 2;
    /// Highest pace accepted in the file.
    pub const MAX_RPS: u32 = 50;
    /// Default age of a complete walk before the next: one day.
    pub const DEFAULT_REWALK_SECS: i64 = 86_400;
}

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings {
            enabled: true,
            key_url: String::new(),
            visitor_sync: true,
            visitor_sync_rps: StoreSettings::DEFAULT_RPS,
            visitor_rewalk_secs: StoreSettings::DEFAULT_REWALK_SECS,
            dir: None,
        }
    }
}

/// Fully resolved settings. `Debug` shows the key masked (through [`ApiKey`]'s `Debug`).
#[derive(Debug, Clone)]
pub struct Config {
    /// The file actually read; `None` when running on env and flags alone, or `--demo`.
    pub path: Option<PathBuf>,
    /// `--demo`: the file its views, aliases and look were read from, if one was (`path`
    /// stays `None`: the demo is not that file's service).
    pub demo_file: Option<PathBuf>,
    /// Base URL of the service, before `/v1/...`.
    pub base_url: String,
    /// The key, resolved in order (env, command, file) and prefix-checked.
    pub key: ApiKey,
    /// Header the key is sent in; default `Authorization`.
    pub auth_header: String,
    /// Scheme before the key; default `Bearer`; `""` sends the bare key.
    pub auth_scheme: String,
    /// Rows per request; default 50.
    pub page_size: Limit,
    /// Whole-request timeout; default 15 s.
    pub request_timeout: Duration,
    /// Connect timeout; default 5 s.
    pub connect_timeout: Duration,
    /// `max_parallel`: requests in flight to the service at once; default 4.
    pub max_parallel: usize,
    /// Plain http:// to a host that is not loopback (the key then travels in clear text).
    pub allow_insecure_http: bool,
    /// `--proxy`, else the profile's or the file's `proxy`, else the environment.
    pub proxy: ProxySetting,
    /// `ca_file`, `~` expanded, relative paths from the config file's directory.
    pub ca_file: Option<PathBuf>,
    /// Periodic refresh of the TUI; `None` (or 0 in the file) means never.
    pub refresh_secs: Option<u64>,
    /// `exporter_interval`: how often `convo exporter` walks every view (`None`: its default).
    pub exporter_interval_secs: Option<u64>,
    /// The views `convo exporter` leaves out, by name (`exporter_exclude`, `[[views]]
    /// exporter = false`).
    pub exporter_exclude: Vec<String>,
    /// Saved views (`[[views]]`), in file order.
    pub views: Vec<View>,
    /// Names for site and agent UUIDs.
    pub aliases: Aliases,
    /// Things to tell the user on stderr (e.g. a readable key file); the caller prints them.
    pub warnings: Vec<String>,
    /// The profile in use (`--profile`, `CONVO_PROFILE`), if any.
    pub profile: Option<String>,
    /// Every profile the file defines, for switching.
    pub profiles: Vec<String>,
    /// `[keys]`, `[theme]`, `[columns]`, `web_url`.
    pub ui: ui::UiConfig,
    /// `[sla]`: response-time targets (empty: none tracked).
    pub sla: convo_engine::sla::Sla,
    /// `store`, `visitor_sync`, `visitor_sync_rps`.
    pub store: StoreSettings,
    /// `agent_id`, `max_streams`: what queries need.
    pub query: QuerySettings,
}

/// The config's keys for queries (top level or per profile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuerySettings {
    /// `agent_id`: the user's own agent UUID, what `assignee:me` means.
    pub agent_id: Option<Uuid>,
    /// `max_streams` (default 16): a union of more streams is one wider walk filtered in convo.
    pub max_streams: usize,
    /// `scan_max_pages` (default 50): stream pages the browser reads for rows a query's checks
    /// let through before it waits for `L`.
    pub scan_max_pages: usize,
    /// `agent_id` was chosen by `--demo` (its agent with the most open conversations), not
    /// given in the config.
    pub demo_me: bool,
}

impl QuerySettings {
    pub const DEFAULT_MAX_STREAMS: usize = 16;
    pub const DEFAULT_SCAN_MAX_PAGES: usize = 50;
    /// Highest `scan_max_pages` accepted.
    pub const MAX_SCAN_MAX_PAGES: usize = 100_000;
    /// Highest `max_streams` accepted (each stream is a walk of its own).
    pub const MAX_MAX_STREAMS: usize = 256;
}

impl Default for QuerySettings {
    fn default() -> Self {
        QuerySettings {
            agent_id: None,
            max_streams: QuerySettings::DEFAULT_MAX_STREAMS,
            scan_max_pages: QuerySettings::DEFAULT_SCAN_MAX_PAGES,
            demo_me: false,
        }
    }
}

/// Why the config cannot be used. Messages name the file and, for parse errors, line and key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// No file, and env and flags do not give both a base URL and a key.
    #[error(
        "no config file at {path}{also}, and no {what}.\n\
         To start: run `convo config init` (asks for the base URL and the key, checks them and \
         writes {path}), or copy config.example.toml to {path} and set base_url and the key \
         (or set CONVO_BASE_URL and CONVO_API_KEY), or try `convo --demo` to see convo on demo data."
    )]
    Missing {
        /// The path tried.
        path: String,
        /// How that path was chosen.
        also: String,
        /// What env and flags lack.
        what: &'static str,
    },
    /// The file exists but cannot be read as text.
    #[error("cannot read config {path}: {reason}")]
    Unreadable { path: String, reason: String },
    /// Not TOML, an unknown key or a wrong type.
    #[error("config error in {path}, line {line}, column {column}: {message}")]
    Parse {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A value that parses but is not allowed, where the line is known.
    #[error("config error in {path}, line {line}: {key}: {message}")]
    InvalidAt {
        path: String,
        line: usize,
        key: String,
        message: String,
    },
    /// A value that parses but is not allowed, or a required one that is missing.
    #[error("config error in {path}: {key}: {message}")]
    Invalid {
        path: String,
        key: String,
        message: String,
    },
    /// The key was found but refused (empty, wrong prefix, not header-safe).
    #[error("config error in {path}{}: {source}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Key {
        path: String,
        /// The line of `api_key` or `api_key_command`, when known.
        line: Option<usize>,
        #[source]
        source: KeyError,
    },
    /// A value from an environment variable or a flag cannot be used: the file is not at
    /// fault (it may not even exist).
    #[error("{message}")]
    Setting {
        /// Where the value came from: `CONVO_API_KEY`, `CONVO_BASE_URL`, `--base-url`, `--proxy`.
        from: &'static str,
        /// What is wrong, naming `from`.
        message: String,
    },
    /// `api_key_command` failed, timed out or printed nothing usable.
    #[error("api_key_command in {path} failed: {reason}. The command must print the key on stdout")]
    KeyCommand { path: String, reason: String },
    /// `api_key_command` in a file that group or others can write: not run.
    #[error(
        "api_key_command in {path} is refused: group or others can change the file \
         (mode {mode:04o}), so they could choose the command convo runs; run: chmod go-w {path}"
    )]
    UnsafeKeyCommand { path: String, mode: u32 },
    /// `[[commands]]` in a file that group or others can write: refused as
    /// `api_key_command` is (they could choose the programs convo runs on a key).
    #[error(
        "[[commands]] in {path} is refused: group or others can change the file \
         (mode {mode:04o}), so they could choose the programs convo runs; run: chmod go-w {path}"
    )]
    UnsafeCommands { path: String, mode: u32 },
}

/// The 1-based line of `key` (as errors name it: `keys.reload`, `views["v"].tab`) in the
/// config text, the profile's first when one is in use; `None` when it is not written there.
pub fn line_of_key(text: &str, key: &str, profile: Option<&str>) -> Option<usize> {
    locate::line_of(text, key, profile)
}

impl ConfigError {
    /// An [`ConfigError::Invalid`] key written in `text` becomes [`ConfigError::InvalidAt`]
    /// its line (the chosen profile's, when it sets the key).
    fn located(self, text: &str, profile: Option<&str>) -> ConfigError {
        match self {
            ConfigError::Invalid { path, key, message } => {
                match locate::line_of(text, &key, profile) {
                    Some(line) => ConfigError::InvalidAt {
                        path,
                        line,
                        key,
                        message,
                    },
                    None => ConfigError::Invalid { path, key, message },
                }
            }
            ConfigError::Key {
                path,
                line: None,
                source,
            } => {
                let key = match source.origin() {
                    KeySource::Command(_) => "api_key_command",
                    _ => "api_key",
                };
                ConfigError::Key {
                    path,
                    line: locate::line_of(text, key, profile),
                    source,
                }
            }
            e => e,
        }
    }
}

/// `--demo` refreshes every 10 s unless the config says otherwise: the queue is live.
const DEMO_REFRESH_SECS: u64 = 10;

/// `<config dir>/convo/config.toml` (e.g. `~/.config/convo/config.toml`); the directory may
/// not exist.
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "convo").map(|d| d.config_dir().join("config.toml"))
}

/// Where the config file is, the one place this is decided: `--config`, else `CONVO_CONFIG`
/// (read through `env`), else [`default_path`]; with the words that say which, for messages.
pub fn locate(
    ov: &Overrides,
    env: &dyn Fn(&str) -> Option<String>,
) -> (Option<PathBuf>, &'static str) {
    match (&ov.config_path, env("CONVO_CONFIG")) {
        (Some(p), _) => (Some(p.clone()), " (from --config)"),
        (None, Some(p)) => (Some(PathBuf::from(p)), " (from CONVO_CONFIG)"),
        (None, None) => (
            default_path(),
            " (the default path; no --config or CONVO_CONFIG)",
        ),
    }
}

/// [`locate`] with the process's environment: the config file `init`, `doctor`, the demo and
/// a saved view talk about.
pub fn path_for(ov: &Overrides) -> Option<PathBuf> {
    locate(ov, &|k| {
        std::env::var_os(k).map(|v| v.to_string_lossy().into_owned())
    })
    .0
}

/// Checks `base_url`: http or https with a host. The transport rule (https except loopback)
/// is the client's. `from` names where the value came from; the URL itself is not repeated
/// (it may hold credentials).
fn check_base_url(url: &str, from: &str) -> Result<(), String> {
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
        return Err(format!(
            "{from} must start with https:// (or http:// for loopback), e.g. https://api.chat.example.com"
        ));
    }
    match url::Url::parse(url) {
        Ok(u) if u.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        Ok(_) => Err(format!("{from} has no host")),
        Err(e) => Err(format!("{from} is not a URL ({e})")),
    }
}

/// `~/x` is under the home directory; a relative path is taken from the config file's
/// directory (so the file works from any working directory).
fn expand_path(p: &str, config_file: &Path) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/").or_else(|| (p == "~").then_some(""))
        && let Some(home) = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf())
    {
        return home.join(rest);
    }
    let path = PathBuf::from(p);
    if path.is_relative()
        && let Some(dir) = config_file.parent().filter(|d| !d.as_os_str().is_empty())
    {
        return dir.join(path);
    }
    path
}

/// An HTTP token (RFC 9110): what a header name or an auth scheme may be made of.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

impl Config {
    /// Where views are written (`w` in the browser): the config file in use (for the demo,
    /// the file its views are read from), else where convo looks for one.
    pub fn views_file(&self) -> Option<PathBuf> {
        self.path
            .clone()
            .or_else(|| self.demo_file.clone())
            .or_else(|| path_for(&Overrides::default()))
    }

    /// Finds, reads and resolves the config (the normal path), with the process environment.
    pub fn load(ov: &Overrides) -> Result<Config, ConfigError> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Config::load_with(ov, &env)
    }

    /// A value of the file refused by a part above the config that knows its names (today
    /// `[columns]`, whose names are the TUI's column table's), as the config's own checks say
    /// it: the file, the key's line when it is written there, the message.
    pub fn invalid(&self, key: String, message: String) -> ConfigError {
        let file = self.path.as_ref().or(self.demo_file.as_ref());
        let e = ConfigError::Invalid {
            path: file.map_or_else(|| "(no file)".to_string(), |p| p.display().to_string()),
            key,
            message,
        };
        match file.and_then(|p| std::fs::read_to_string(p).ok()) {
            Some(text) => e.located(&text, self.profile.as_deref()),
            None => e,
        }
    }

    /// [`Config::load`] with the environment given (testable).
    pub fn load_with(
        ov: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let (path, how) = locate(ov, env);
        let bytes = match &path {
            Some(p) => match std::fs::read(p) {
                Ok(b) => Some(b),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => {
                    return Err(ConfigError::Unreadable {
                        path: p.display().to_string(),
                        reason: e.to_string(),
                    });
                }
            },
            None => None,
        };
        let shown = path.as_ref().map_or_else(
            || "(no config directory on this platform; use --config PATH)".to_string(),
            |p| p.display().to_string(),
        );
        let Some(bytes) = bytes else {
            // No file: fine when env and flags give everything that has no default.
            let base = ov.base_url.is_some() || env("CONVO_BASE_URL").is_some();
            let key = env("CONVO_API_KEY").is_some();
            if !(base && key) {
                return Err(ConfigError::Missing {
                    path: shown,
                    also: how.to_string(),
                    what: if base {
                        "API key in CONVO_API_KEY"
                    } else {
                        "base URL in --base-url or CONVO_BASE_URL"
                    },
                });
            }
            let mut cfg = Config::resolve(FileConfig::default(), &shown, ov, env)?;
            cfg.path = None;
            return Ok(cfg);
        };
        let text = String::from_utf8(bytes).map_err(|_| ConfigError::Unreadable {
            path: shown.clone(),
            reason: "it is not UTF-8 text".into(),
        })?;
        let f = parse_file(&text, &shown)?;
        if f.runs_key_command()
            && let Some(p) = &path
            && let Some(mode) = secret::writable_by_others(p)
        {
            // Checked before anything runs: whoever can write the file could make convo run
            // their command (and read the key it prints).
            return Err(ConfigError::UnsafeKeyCommand {
                path: shown.clone(),
                mode,
            });
        }
        if f.runs_commands()
            && let Some(p) = &path
            && let Some(mode) = secret::writable_by_others(p)
        {
            return Err(ConfigError::UnsafeCommands {
                path: shown.clone(),
                mode,
            });
        }
        let holds_key = f.holds_key();
        let mut cfg = Config::resolve(f, &shown, ov, env)?;
        cfg.path = path.clone();
        if holds_key
            && let Some(p) = &path
            && let Some(mode) = secret::readable_by_others(p)
        {
            cfg.warnings.push(format!(
                "{shown} holds an API key and is readable by others (mode {mode:04o}); run: chmod 600 {shown}"
            ));
        }
        Ok(cfg)
    }

    /// Resolves a config from its text; `env` looks up environment variables. No file is read
    /// (so no permission check).
    pub fn from_toml_str(
        text: &str,
        path: &Path,
        ov: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let f = parse_file(text, &shown)?;
        let mut cfg = Config::resolve(f, &shown, ov, env)?;
        cfg.path = Some(path.to_path_buf());
        Ok(cfg)
    }

    /// Lays the chosen profile over the top level; returns its name and every profile's name.
    /// `wanted` is the name asked for and where it came from (`--profile`, `CONVO_PROFILE`).
    fn choose_profile(
        mut f: FileConfig,
        shown: &str,
        wanted: Option<(String, &'static str)>,
    ) -> Result<(FileConfig, Option<String>, Vec<String>), ConfigError> {
        let invalid = |key: String, message: String| ConfigError::Invalid {
            path: shown.to_string(),
            key,
            message,
        };
        let mut in_file = std::mem::take(&mut f.profiles);
        let names: Vec<String> = in_file.keys().cloned().collect();
        if let Some((name, _)) = in_file.iter().find(|(_, p)| !p.profiles.is_empty()) {
            return Err(invalid(
                format!("profiles.{name}.profiles"),
                "profiles cannot hold profiles".into(),
            ));
        }
        let (profile, from) = match wanted.filter(|(p, _)| !p.is_empty()) {
            Some((p, from)) => (Some(p), from),
            None => (None, "--profile"),
        };
        if let Some(name) = &profile {
            let p = in_file.remove(name).ok_or_else(|| {
                let defined = if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                };
                // The flag or the variable asks for what the file does not have: the file is
                // not wrong, but it is where the names are.
                ConfigError::Setting {
                    from,
                    message: format!(
                        "{from}: no profile named {:?}; {shown} defines: {defined}",
                        convo_text::one_line(name, 80)
                    ),
                }
            })?;
            let sets_proxy = p.proxy.is_some();
            f = f.overlay(p);
            if sets_proxy {
                f.proxy_profile = Some(name.clone());
            }
        }
        Ok((f, profile, names))
    }

    /// Applies env and flags to the parsed file, checks every value and fills in defaults; an
    /// error about a key of the file gets the key's line.
    fn resolve(
        f: FileConfig,
        shown: &str,
        ov: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let text = f.text.clone();
        let profile = ov.profile.clone().or_else(|| env("CONVO_PROFILE"));
        Config::resolve_values(f, shown, ov, env).map_err(|e| e.located(&text, profile.as_deref()))
    }

    /// [`Config::resolve`] without the line numbers.
    fn resolve_values(
        f: FileConfig,
        shown: &str,
        ov: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            path: shown.to_string(),
            key: key.to_string(),
            message,
        };
        let wanted = match (ov.profile.clone(), env("CONVO_PROFILE")) {
            (Some(p), _) => Some((p, "--profile")),
            (None, Some(p)) => Some((p, "CONVO_PROFILE")),
            (None, None) => None,
        };
        let (mut f, profile, profiles) = Config::choose_profile(f, shown, wanted)?;
        let (base_url, from) = match (ov.base_url.clone(), env("CONVO_BASE_URL")) {
            (Some(u), _) => (Some(u), "--base-url"),
            (None, Some(u)) => (Some(u), "CONVO_BASE_URL"),
            (None, None) => (f.base_url.take(), "base_url"),
        };
        let base_url = base_url
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                invalid(
                    "base_url",
                    "not set (set base_url, CONVO_BASE_URL or --base-url)".into(),
                )
            })?;
        check_base_url(&base_url, from).map_err(|m| match from {
            "base_url" => invalid("base_url", m),
            from => ConfigError::Setting { from, message: m },
        })?;
        let prefix = f.key_prefix.clone().unwrap_or_else(|| "sk_".into());
        let (secret, source) = if let Some(k) = env("CONVO_API_KEY") {
            (k, KeySource::Env)
        } else if let Some(cmd) = f
            .api_key_command
            .as_deref()
            .filter(|c| !c.trim().is_empty())
        {
            (
                secret::run_key_command(cmd, shown)?,
                KeySource::Command(shown.to_string()),
            )
        } else if let Some(k) = f.api_key.clone() {
            (k, KeySource::File(shown.to_string()))
        } else {
            return Err(invalid(
                "api_key",
                "no API key: set CONVO_API_KEY, api_key_command or api_key".into(),
            ));
        };
        let key =
            ApiKey::new(&secret, source, &prefix).map_err(|source| match source.origin() {
                // The variable is at fault, not the file.
                KeySource::Env => ConfigError::Setting {
                    from: "CONVO_API_KEY",
                    message: source.to_string(),
                },
                _ => ConfigError::Key {
                    path: shown.to_string(),
                    line: None,
                    source,
                },
            })?;
        let secs = |name: &str, v: Option<u64>, default: u64| match v.unwrap_or(default) {
            s @ 1..=MAX_TIMEOUT_SECS => Ok(Duration::from_secs(s)),
            s => Err(invalid(
                name,
                format!("{s} is outside 1..={MAX_TIMEOUT_SECS} (seconds)"),
            )),
        };
        let request_timeout = secs("request_timeout_secs", f.request_timeout_secs, 15)?;
        let connect_timeout = secs("connect_timeout_secs", f.connect_timeout_secs, 5)?;
        let max_parallel = match f.max_parallel {
            None => convo_api::client::DEFAULT_MAX_PARALLEL,
            Some(n @ 1..=MAX_PARALLEL) => n as usize,
            Some(n) => {
                return Err(invalid(
                    "max_parallel",
                    format!("{n} is outside 1..={MAX_PARALLEL} (requests in flight at once)"),
                ));
            }
        };
        let auth_header = f
            .auth_header
            .take()
            .map_or_else(|| "Authorization".to_string(), |h| h.trim().to_string());
        if !is_token(&auth_header) {
            return Err(invalid(
                "auth_header",
                "must be a header name (letters, digits and - _ . etc.; no spaces or colon)".into(),
            ));
        }
        let auth_scheme = f
            .auth_scheme
            .take()
            .map_or_else(|| "Bearer".to_string(), |s| s.trim().to_string());
        if !auth_scheme.is_empty() && !is_token(&auth_scheme) {
            return Err(invalid(
                "auth_scheme",
                "must be one word such as Bearer or Token (\"\" sends the bare key)".into(),
            ));
        }
        let proxy = match (&ov.proxy, &f.proxy) {
            (Some(v), _) => {
                ProxySetting::parse(v, "--proxy").map_err(|m| ConfigError::Setting {
                    from: "--proxy",
                    message: format!("--proxy: {m}"),
                })?
            }
            (None, Some(v)) => {
                let from = match &f.proxy_profile {
                    Some(p) => format!("profile {p} of {shown}"),
                    None => shown.to_string(),
                };
                ProxySetting::parse(v, from).map_err(|m| invalid("proxy", m))?
            }
            (None, None) => ProxySetting::Environment,
        };
        let ca_file = f
            .ca_file
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|p| expand_path(p, Path::new(shown)));
        let ex = extras(&mut f, shown)?;
        let base_url_for_store = base_url.clone();
        Ok(Config {
            path: None,
            demo_file: None,
            base_url,
            key,
            auth_header,
            auth_scheme,
            page_size: ex.page_size,
            request_timeout,
            connect_timeout,
            max_parallel,
            allow_insecure_http: f.allow_insecure_http.unwrap_or(false),
            proxy,
            ca_file,
            refresh_secs: ex.refresh_secs,
            exporter_interval_secs: ex.exporter_interval_secs,
            exporter_exclude: ex.exporter_exclude,
            views: ex.views,
            aliases: ex.aliases,
            warnings: Vec::new(),
            profile,
            profiles,
            ui: ex.ui,
            sla: ex.sla,
            store: StoreSettings {
                key_url: base_url_for_store,
                ..ex.store
            },
            query: ex.query,
        })
    }

    /// For `--demo`: the embedded server's URL and key, with views, aliases, page size and
    /// refresh from the config file (and its profile, if one is chosen) when one exists and is
    /// valid; a missing file is fine, a broken one is ignored with a warning. `targets` are the
    /// response-time targets when the file sets none (the demo's own, `demo::targets`).
    pub fn for_demo(
        base_url: String,
        key: ApiKey,
        targets: convo_engine::sla::Sla,
        ov: &Overrides,
    ) -> Result<Config, ConfigError> {
        let path = path_for(ov);
        let mut warnings = Vec::new();
        let mut ex = Extras::default();
        let mut demo_file = None;
        if let Some(p) = &path {
            let shown = p.display().to_string();
            let wanted = match (ov.profile.clone(), std::env::var("CONVO_PROFILE").ok()) {
                (Some(p), _) => Some((p, "--profile")),
                (None, Some(p)) => Some((p, "CONVO_PROFILE")),
                (None, None) => None,
            };
            let read = match std::fs::read(p) {
                Ok(bytes) => {
                    String::from_utf8(bytes)
                        .map(Some)
                        .map_err(|_| ConfigError::Unreadable {
                            path: shown.clone(),
                            reason: "it is not UTF-8 text".into(),
                        })
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(ConfigError::Unreadable {
                    path: shown.clone(),
                    reason: e.to_string(),
                }),
            };
            let parsed = read.and_then(|text| {
                text.map(|text| {
                    let f = parse_file(&text, &shown)?;
                    let (mut f, profile, _) = Config::choose_profile(f, &shown, wanted)?;
                    extras(&mut f, &shown).map_err(|e| e.located(&text, profile.as_deref()))
                })
                .transpose()
            });
            match parsed {
                Ok(Some(e)) => {
                    ex = e;
                    demo_file = Some(p.clone());
                }
                Ok(None) => {}
                Err(e) => warnings.push(format!("{e} (ignored for --demo)")),
            }
        }
        if ex.sla.is_empty() {
            ex.sla = targets;
        }
        Ok(Config {
            path: None,
            demo_file,
            base_url,
            key,
            auth_header: "Authorization".into(),
            auth_scheme: "Bearer".into(),
            page_size: ex.page_size,
            request_timeout: Duration::from_secs(15),
            connect_timeout: Duration::from_secs(5),
            max_parallel: convo_api::client::DEFAULT_MAX_PARALLEL,
            allow_insecure_http: false,
            // The demo server is on loopback over plain http: always direct.
            proxy: ProxySetting::Environment,
            ca_file: None,
            refresh_secs: ex.refresh_secs.or(Some(DEMO_REFRESH_SECS)),
            exporter_interval_secs: ex.exporter_interval_secs,
            exporter_exclude: ex.exporter_exclude,
            views: ex.views,
            aliases: ex.aliases,
            warnings,
            profile: None,
            profiles: Vec::new(),
            ui: ex.ui,
            sla: ex.sla,
            store: StoreSettings {
                key_url: "demo".into(),
                ..ex.store
            },
            query: ex.query,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_with_key(k: &str) -> Option<String> {
        (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string())
    }

    fn load(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml_str(
            text,
            Path::new("/t/c.toml"),
            &Overrides::default(),
            &env_with_key,
        )
    }

    #[test]
    fn the_example_parses_with_all_its_views() {
        let c = load(include_str!("../../../config.example.toml")).unwrap();
        assert_eq!(c.views.len(), 5);
        assert_eq!(
            c.views.iter().filter(|v| v.notify).count(),
            1,
            "one view notifies"
        );
        assert!(!c.aliases.is_empty());
        let shop: Uuid = "0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90".parse().unwrap();
        assert_eq!(c.sla.base.first_response, Some(300));
        assert_eq!(c.sla.policy(&shop).first_response, Some(120));
        assert!(c.sla.policy(&shop).hours.is_some());
    }

    #[test]
    fn notify_is_for_conversations_views_only() {
        let e = load(
            "base_url = \"https://x\"\n[[views]]\nname = \"v\"\ntab = \"visitors\"\nnotify = true\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("views[\"v\"].notify"), "{e}");
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let e = load("base_url = \"https://x.example\"\npagesize = 3\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/t/c.toml") && e.contains("line 2") && e.contains("pagesize"),
            "{e}"
        );
    }

    #[test]
    fn wrong_type_names_line_and_key() {
        let e = load("base_url = \"https://x.example\"\n\npage_size = \"ten\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3") && e.contains("`page_size`"), "{e}");
    }

    #[test]
    fn views_and_aliases_validated() {
        let e = load("base_url = \"https://x\"\n[aliases]\n\"nope\" = \"x\"\n").unwrap_err();
        assert!(e.to_string().contains("aliases"), "{e}");
        let e = load("base_url = \"https://x\"\n[[views]]\nname = \"a\"\nstatus = \"snoozed\"\n")
            .unwrap_err();
        assert!(e.to_string().contains("views[\"a\"].status"), "{e}");
        let e = load("base_url = \"https://x\"\n[[views]]\nname = \"a\"\nemail = \"a@b\"\n")
            .unwrap_err();
        assert!(e.to_string().contains("tab"), "{e}");
    }

    #[test]
    fn aliases_may_say_what_they_name() {
        let text = "base_url = \"https://x\"\n\
                    [aliases]\n\"9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d\" = \"Liam\"\n\
                    [aliases.sites]\n\"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90\" = \"Web shop\"\n\
                    [aliases.agents]\n\"5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60\" = \"Ana\"\n\
                    [profiles.p.aliases.agents]\n\"0b6f2d4c-0000-4d0e-9c1a-3f6e2b7d8a90\" = \"Bo\"\n";
        let c = load(text).unwrap();
        let id = |s: &str| s.parse::<Uuid>().unwrap();
        let shop = id("0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90");
        assert_eq!(c.aliases.name(&shop), Some("Web shop"));
        assert_eq!(c.aliases.kind(&shop), Some(AliasKind::Site));
        let ana = id("5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60");
        assert_eq!(c.aliases.kind(&ana), Some(AliasKind::Agent));
        assert_eq!(
            c.aliases.kind(&id("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")),
            None
        );
        // A profile's agents add to the top level's.
        let ov = Overrides {
            profile: Some("p".into()),
            ..Overrides::default()
        };
        let p = Config::from_toml_str(text, Path::new("/t/c.toml"), &ov, &env_with_key).unwrap();
        assert_eq!(p.aliases.kind(&ana), Some(AliasKind::Agent));
        let bo = id("0b6f2d4c-0000-4d0e-9c1a-3f6e2b7d8a90");
        assert_eq!(p.aliases.kind(&bo), Some(AliasKind::Agent));
        // Anything else is said with its key.
        let e = load("base_url = \"https://x\"\n[aliases.sites]\n\"nope\" = \"x\"\n").unwrap_err();
        assert!(e.to_string().contains("aliases.sites"), "{e}");
        let e = load("base_url = \"https://x\"\n[aliases]\nsites = 3\n").unwrap_err();
        assert!(e.to_string().contains("aliases.sites"), "{e}");
    }

    #[test]
    fn profiles_overlay_the_top_level() {
        let text = "base_url = \"https://prod.example\"\napi_key = \"sk_top_1234567890\"\n\
                    [aliases]\n\"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90\" = \"Shop\"\n\
                    [profiles.stg]\nbase_url = \"https://stg.example\"\napi_key = \"sk_stg_1234567890\"\n\
                    [profiles.stg.aliases]\n\"5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60\" = \"Ana\"\n";
        let no_env = |_: &str| None;
        let ov = |p: Option<&str>| Overrides {
            profile: p.map(str::to_string),
            ..Overrides::default()
        };
        let top = Config::from_toml_str(text, Path::new("/t/c.toml"), &ov(None), &no_env).unwrap();
        assert_eq!(top.base_url, "https://prod.example");
        assert_eq!(top.key.expose(), "sk_top_1234567890");
        assert_eq!(top.profiles, vec!["stg".to_string()]);
        let stg =
            Config::from_toml_str(text, Path::new("/t/c.toml"), &ov(Some("stg")), &no_env).unwrap();
        assert_eq!(stg.base_url, "https://stg.example");
        assert_eq!(stg.key.expose(), "sk_stg_1234567890");
        assert_eq!(stg.profile.as_deref(), Some("stg"));
        let shop: Uuid = "0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90".parse().unwrap();
        let ana: Uuid = "5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60".parse().unwrap();
        assert_eq!(stg.aliases.name(&shop), Some("Shop"));
        assert_eq!(stg.aliases.name(&ana), Some("Ana"));
        let env_profile = |k: &str| (k == "CONVO_PROFILE").then(|| "stg".to_string());
        let via_env =
            Config::from_toml_str(text, Path::new("/t/c.toml"), &ov(None), &env_profile).unwrap();
        assert_eq!(via_env.base_url, "https://stg.example");
        let e = Config::from_toml_str(text, Path::new("/t/c.toml"), &ov(Some("nope")), &no_env)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no profile named \"nope\"") && e.contains("stg"),
            "{e}"
        );
        // The flag or the variable asked for it: named, and the file not called wrong.
        assert!(
            e.starts_with("--profile: ") && !e.contains("config error"),
            "{e}"
        );
        let env_nope = |k: &str| (k == "CONVO_PROFILE").then(|| "nope".to_string());
        let e = Config::from_toml_str(text, Path::new("/t/c.toml"), &ov(None), &env_nope)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("CONVO_PROFILE: no profile named \"nope\"; /t/c.toml defines: "),
            "{e}"
        );
    }

    #[test]
    fn mouse_is_off_unless_the_file_or_the_profile_turns_it_on() {
        let no_env = |_: &str| None;
        let ov = |p: Option<&str>| Overrides {
            profile: p.map(str::to_string),
            ..Overrides::default()
        };
        let path = Path::new("/t/c.toml");
        let base = "base_url = \"https://x.example\"\napi_key = \"sk_top_1234567890\"\n";
        let off = Config::from_toml_str(base, path, &ov(None), &no_env).unwrap();
        assert!(!off.ui.mouse, "mouse capture is opt-in");
        let text =
            format!("{base}mouse = true\n[profiles.quiet]\nmouse = false\n[profiles.same]\n");
        let on = Config::from_toml_str(&text, path, &ov(None), &no_env).unwrap();
        assert!(on.ui.mouse);
        let quiet = Config::from_toml_str(&text, path, &ov(Some("quiet")), &no_env).unwrap();
        assert!(!quiet.ui.mouse, "a profile can turn it off");
        let same = Config::from_toml_str(&text, path, &ov(Some("same")), &no_env).unwrap();
        assert!(
            same.ui.mouse,
            "a profile that says nothing keeps the top level's"
        );
        let e = Config::from_toml_str(
            &format!("{base}mouse = \"yes\"\n"),
            path,
            &ov(None),
            &no_env,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("mouse"), "{e}");
    }

    #[test]
    fn the_example_staging_profile_parses() {
        let ov = Overrides {
            profile: Some("staging".into()),
            ..Overrides::default()
        };
        let c = Config::from_toml_str(
            include_str!("../../../config.example.toml"),
            Path::new("/t/c.toml"),
            &ov,
            &env_with_key,
        )
        .unwrap();
        assert_eq!(c.base_url, "https://staging.api.chat.example.com");
        assert_eq!(c.refresh_secs, Some(10));
    }

    #[test]
    fn store_settings_per_profile_and_checked() {
        let text = "base_url = \"https://prod.example\"\nvisitor_sync_rps = 3\n\
                    [profiles.private]\nstore = false\n";
        let no = |p: Option<&str>| Overrides {
            profile: p.map(str::to_string),
            ..Overrides::default()
        };
        let top =
            Config::from_toml_str(text, Path::new("/t/c.toml"), &no(None), &env_with_key).unwrap();
        assert!(top.store.enabled && top.store.visitor_sync);
        assert_eq!(top.store.visitor_sync_rps, 3);
        assert_eq!(top.store.key_url, "https://prod.example");
        let p = Config::from_toml_str(
            text,
            Path::new("/t/c.toml"),
            &no(Some("private")),
            &env_with_key,
        )
        .unwrap();
        assert!(!p.store.enabled);
        assert_eq!(
            load("base_url = \"https://x\"").unwrap().store,
            StoreSettings {
                key_url: "https://x".into(),
                ..StoreSettings::default()
            }
        );
        let e = load("base_url = \"https://x\"\nvisitor_sync_rps = 0\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("visitor_sync_rps") && e.contains("1..=50"),
            "{e}"
        );
        assert_eq!(top.store.visitor_rewalk_secs, 86_400, "one day by default");
        for (v, secs) in [("\"12h\"", 43_200), ("3600", 3_600)] {
            let c = load(&format!("base_url = \"https://x\"\nvisitor_rewalk = {v}\n")).unwrap();
            assert_eq!(c.store.visitor_rewalk_secs, secs, "{v}");
        }
        for v in ["\"10s\"", "\"2y\"", "\"soon\"", "-5"] {
            let e = load(&format!("base_url = \"https://x\"\nvisitor_rewalk = {v}\n"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("visitor_rewalk"), "{v}: {e}");
        }
    }

    #[test]
    fn agent_id_and_max_streams_top_level_and_per_profile() {
        let text = "base_url = \"https://x.example\"\napi_key = \"sk_test_1234567890\"\n\
                    agent_id = \"5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60\"\n\
                    [profiles.night]\nagent_id = \"0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90\"\nmax_streams = 4\n";
        let ov = |p: Option<&str>| Overrides {
            profile: p.map(str::to_string),
            ..Default::default()
        };
        let top =
            Config::from_toml_str(text, Path::new("/t/c.toml"), &ov(None), &|_| None).unwrap();
        assert_eq!(
            top.query.agent_id,
            Some(Uuid::parse_str("5d2e8f17-3c4b-4a69-8e0d-1b2c3d4e5f60").unwrap())
        );
        assert_eq!(top.query.max_streams, QuerySettings::DEFAULT_MAX_STREAMS);
        let night =
            Config::from_toml_str(text, Path::new("/t/c.toml"), &ov(Some("night")), &|_| None)
                .unwrap();
        assert_eq!(
            night.query.agent_id,
            Some(Uuid::parse_str("0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90").unwrap())
        );
        assert_eq!(night.query.max_streams, 4);
        let e = load("base_url = \"https://x\"\nagent_id = \"ana\"\n").unwrap_err();
        assert!(e.to_string().contains("agent_id"), "{e}");
        let e = load("base_url = \"https://x\"\nmax_streams = 0\n").unwrap_err();
        assert!(e.to_string().contains("max_streams"), "{e}");
    }

    #[test]
    fn scan_max_pages_defaults_to_50_and_is_checked() {
        let c = load("base_url = \"https://x\"\n").unwrap();
        assert_eq!(c.query.scan_max_pages, 50);
        let c = load("base_url = \"https://x\"\nscan_max_pages = 7\n").unwrap();
        assert_eq!(c.query.scan_max_pages, 7);
        for bad in ["0", "-3", "100001"] {
            let e = load(&format!(
                "base_url = \"https://x\"\nscan_max_pages = {bad}\n"
            ))
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("scan_max_pages") && e.contains("1..=100000"),
                "{e}"
            );
        }
    }

    #[test]
    fn debug_masks_the_key() {
        let c = load("base_url = \"https://x.example\"").unwrap();
        let d = format!("{c:?}");
        assert!(!d.contains("secretvalue"), "{d}");
    }
}
