//! The config file (TOML), with env and flag overrides.
//!
//! Where it is: `--config PATH`, else `CONVO_CONFIG`, else `<config dir>/convo/config.toml`.
//! `CONVO_BASE_URL` and `--base-url` override `base_url`; the key comes from `CONVO_API_KEY`,
//! then `api_key_command`, then `api_key` (decisions.md). Unknown keys and wrong types are
//! errors naming the file, line and key.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;
use uuid::Uuid;

use crate::api::filter::parse_uuid;
use crate::api::{
    ApiKey, Assignee, ConversationFilter, KeyError, KeySource, Limit, Resource, Status,
    VisitorFilter,
};

/// How long `api_key_command` may run.
const KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Command-line overrides, filled by main from clap.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config_path: Option<PathBuf>,
    pub base_url: Option<String>,
    /// `--profile NAME` (else `CONVO_PROFILE`).
    pub profile: Option<String>,
}

/// A saved view: a name, a tab and its filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    pub name: String,
    pub tab: Resource,
    pub conversations: ConversationFilter,
    pub visitors: VisitorFilter,
    /// `notify = true`: a bell and a desktop notification (fixed text) when a refresh finds
    /// more unassigned open conversations in this view than before. Conversations views only.
    pub notify: bool,
}

/// Names for site and agent UUIDs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases(BTreeMap<Uuid, String>);

impl Aliases {
    pub fn name(&self, id: &Uuid) -> Option<&str> {
        self.0.get(id).map(String::as_str)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn insert(&mut self, id: Uuid, name: String) {
        self.0.insert(id, name);
    }
}

/// Fully resolved settings. `Debug` shows the key masked.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file actually read, if any.
    pub path: Option<PathBuf>,
    pub base_url: String,
    pub key: ApiKey,
    pub auth_header: String,
    pub auth_scheme: String,
    pub page_size: Limit,
    pub request_timeout: Duration,
    pub connect_timeout: Duration,
    pub allow_insecure_http: bool,
    /// Periodic refresh of the TUI; `None` (or 0 in the file) means never.
    pub refresh_secs: Option<u64>,
    pub views: Vec<View>,
    pub aliases: Aliases,
    /// Things to tell the user on stderr (e.g. a readable key file).
    pub warnings: Vec<String>,
    /// The profile in use (`--profile`, `CONVO_PROFILE`), if any.
    pub profile: Option<String>,
    /// Every profile the file defines, for switching.
    pub profiles: Vec<String>,
}

/// Why the config cannot be used. Messages name the file and, for parse errors, line and key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "no config file at {path}{also}, and no {what} from the environment.\n\
         To start: copy config.example.toml to {path} and set base_url and the key \
         (or set CONVO_BASE_URL and CONVO_API_KEY), or try `convo --demo` to see convo on demo data."
    )]
    Missing {
        path: String,
        also: String,
        what: &'static str,
    },
    #[error("cannot read config {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("config error in {path}, line {line}, column {column}: {message}")]
    Parse {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("config error in {path}: {key}: {message}")]
    Invalid {
        path: String,
        key: String,
        message: String,
    },
    #[error("config error in {path}: {source}")]
    Key {
        path: String,
        #[source]
        source: KeyError,
    },
    #[error("api_key_command in {path} failed: {reason}. The command must print the key on stdout")]
    KeyCommand { path: String, reason: String },
    #[error("no config path: the platform has no config directory; use --config PATH")]
    NoPath,
}

/// `<config dir>/convo/config.toml` (e.g. `~/.config/convo/config.toml`).
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "convo").map(|d| d.config_dir().join("config.toml"))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    base_url: Option<String>,
    api_key: Option<String>,
    api_key_command: Option<String>,
    key_prefix: Option<String>,
    auth_header: Option<String>,
    auth_scheme: Option<String>,
    page_size: Option<i64>,
    request_timeout_secs: Option<u64>,
    connect_timeout_secs: Option<u64>,
    allow_insecure_http: Option<bool>,
    refresh_secs: Option<u64>,
    #[serde(default)]
    aliases: BTreeMap<String, String>,
    #[serde(default)]
    views: Vec<FileView>,
    /// `[profiles.NAME]`: the same keys, laid over the top level when NAME is chosen.
    #[serde(default)]
    profiles: BTreeMap<String, FileConfig>,
}

impl FileConfig {
    /// Lays a profile over the top level: every key the profile sets wins; aliases are merged
    /// (the profile's win) and its views come after the shared ones.
    fn overlay(mut self, p: FileConfig) -> FileConfig {
        // A key source in the profile replaces the top level's, whichever form either takes.
        if p.api_key_command.is_some() || p.api_key.is_some() {
            self.api_key = None;
            self.api_key_command = None;
        }
        macro_rules! take {
            ($($f:ident),*) => { $( if p.$f.is_some() { self.$f = p.$f; } )* };
        }
        take!(
            base_url,
            api_key,
            api_key_command,
            key_prefix,
            auth_header,
            auth_scheme,
            page_size,
            request_timeout_secs,
            connect_timeout_secs,
            allow_insecure_http,
            refresh_secs
        );
        self.aliases.extend(p.aliases);
        self.views.extend(p.views);
        self
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileView {
    name: String,
    tab: Option<String>,
    status: Option<String>,
    assignee: Option<String>,
    site_id: Option<String>,
    visitor_id: Option<String>,
    email: Option<String>,
    external_id: Option<String>,
    notify: Option<bool>,
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn parse_file(text: &str, path: &str) -> Result<FileConfig, ConfigError> {
    toml::from_str::<FileConfig>(text).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        ConfigError::Parse {
            path: path.to_string(),
            line,
            column,
            message: crate::text::one_line(&redact_quoted(e.message().trim()), 400),
        }
    })
}

/// Blanks every double-quoted value in a parser message: a key pasted into the wrong field
/// would otherwise be echoed (`invalid type: string "sk_live_…", expected i64`). Key names
/// stand in backticks and stay.
fn redact_quoted(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut inside = false;
    for c in msg.chars() {
        if c == '"' {
            if inside {
                out.push('…');
            }
            inside = !inside;
            out.push(c);
        } else if !inside {
            out.push(c);
        }
    }
    out
}

/// Removes the command's own words from its error output: a key pasted as the command comes
/// back in the shell's "not found" line.
fn redact_command(line: &str, cmd: &str) -> String {
    let mut out = line.replace(cmd.trim(), "…");
    for word in cmd.split_whitespace().filter(|w| w.len() >= 8) {
        out = out.replace(word, "…");
    }
    out
}

fn view_from_file(v: FileView, path: &str) -> Result<View, ConfigError> {
    let key = |k: &str| format!("views[{:?}].{k}", v.name);
    let invalid = |k: &str, message: String| ConfigError::Invalid {
        path: path.to_string(),
        key: key(k),
        message,
    };
    let tab = match v.tab.as_deref().unwrap_or("conversations") {
        "conversations" => Resource::Conversations,
        "visitors" => Resource::Visitors,
        other => {
            return Err(invalid(
                "tab",
                format!("{other:?} is not \"conversations\" or \"visitors\""),
            ));
        }
    };
    let conv_keys =
        v.status.is_some() || v.assignee.is_some() || v.site_id.is_some() || v.visitor_id.is_some();
    let vis_keys = v.email.is_some() || v.external_id.is_some();
    if tab == Resource::Visitors && conv_keys {
        return Err(invalid(
            "tab",
            "status, assignee, site_id and visitor_id filter conversations, not visitors".into(),
        ));
    }
    if tab == Resource::Visitors && v.notify == Some(true) {
        return Err(invalid(
            "notify",
            "notify watches unassigned open conversations: it needs a conversations view".into(),
        ));
    }
    if tab == Resource::Conversations && vis_keys {
        return Err(invalid(
            "tab",
            "email and external_id filter visitors: add tab = \"visitors\"".into(),
        ));
    }
    let uuid = |k: &'static str, s: &Option<String>| {
        s.as_deref()
            .map(|s| parse_uuid(k, s).map_err(|e| invalid(k, e.to_string())))
            .transpose()
    };
    let conversations = ConversationFilter {
        site_id: uuid("site_id", &v.site_id)?,
        visitor_id: uuid("visitor_id", &v.visitor_id)?,
        status: v
            .status
            .as_deref()
            .map(|s| {
                Status::parse_filter(s).ok_or_else(|| {
                    invalid("status", format!("{s:?} is not open, pending or closed"))
                })
            })
            .transpose()?,
        assignee: v
            .assignee
            .as_deref()
            .map(|a| Assignee::parse(a).map_err(|e| invalid("assignee", e.to_string())))
            .transpose()?
            .unwrap_or_default(),
    };
    Ok(View {
        name: v.name,
        tab,
        conversations,
        visitors: VisitorFilter {
            email: v.email,
            external_id: v.external_id,
        },
        notify: v.notify.unwrap_or(false),
    })
}

/// Views, aliases and display settings: the parts `--demo` keeps from a config file.
struct Extras {
    page_size: Limit,
    refresh_secs: Option<u64>,
    views: Vec<View>,
    aliases: Aliases,
}

fn extras(f: &mut FileConfig, path: &str) -> Result<Extras, ConfigError> {
    let invalid = |key: &str, message: String| ConfigError::Invalid {
        path: path.to_string(),
        key: key.to_string(),
        message,
    };
    let page_size = match f.page_size {
        Some(n) => {
            Limit::new(n).map_err(|_| invalid("page_size", format!("{n} is outside 1..=100")))?
        }
        None => Limit::DEFAULT,
    };
    let mut aliases = Aliases::default();
    for (k, name) in std::mem::take(&mut f.aliases) {
        let id = Uuid::parse_str(k.trim())
            .map_err(|_| invalid(&format!("aliases.{k:?}"), "the key is not a UUID".into()))?;
        aliases.insert(id, name);
    }
    let mut views = Vec::new();
    for v in std::mem::take(&mut f.views) {
        let view = view_from_file(v, path)?;
        if views.iter().any(|x: &View| x.name == view.name) {
            return Err(invalid(
                &format!("views[{:?}]", view.name),
                "two views have this name".into(),
            ));
        }
        views.push(view);
    }
    Ok(Extras {
        page_size,
        refresh_secs: f.refresh_secs.filter(|&s| s > 0),
        views,
        aliases,
    })
}

/// Runs `api_key_command` with `sh -c`, returning its trimmed stdout. Its output is never
/// shown, even in errors.
fn run_key_command(cmd: &str, path: &str) -> Result<String, ConfigError> {
    let fail = |reason: String| ConfigError::KeyCommand {
        path: path.to_string(),
        reason,
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot run it: {e}")))?;
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_string(&mut s);
        }
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(e) = err.as_mut() {
            let _ = e.take(4096).read_to_string(&mut s);
        }
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > KEY_COMMAND_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(fail(format!(
                    "it did not finish within {}s",
                    KEY_COMMAND_TIMEOUT.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(fail(e.to_string())),
        }
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    if !status.success() {
        let first = stderr.lines().next().unwrap_or("").trim();
        return Err(fail(format!(
            "it exited with {status}{}",
            if first.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    crate::text::one_line(&redact_command(first, cmd), 200)
                )
            }
        )));
    }
    let key = stdout.trim().to_string();
    if key.is_empty() {
        return Err(fail("it printed nothing".into()));
    }
    Ok(key)
}

#[cfg(unix)]
fn readable_by_others(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
    (mode & 0o077 != 0).then_some(mode)
}

#[cfg(not(unix))]
fn readable_by_others(_: &Path) -> Option<u32> {
    None
}

impl Config {
    /// Finds, reads and resolves the config (the normal path).
    pub fn load(ov: &Overrides) -> Result<Config, ConfigError> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Config::load_with(ov, &env)
    }

    /// [`Config::load`] with the environment given (testable).
    pub fn load_with(
        ov: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let (path, how) = match (&ov.config_path, env("CONVO_CONFIG")) {
            (Some(p), _) => (p.clone(), " (from --config)"),
            (None, Some(p)) => (PathBuf::from(p), " (from CONVO_CONFIG)"),
            (None, None) => (default_path().ok_or(ConfigError::NoPath)?, ""),
        };
        let shown = path.display().to_string();
        match std::fs::read(&path) {
            Ok(bytes) => {
                let text = String::from_utf8(bytes).map_err(|_| ConfigError::Unreadable {
                    path: shown.clone(),
                    reason: "it is not UTF-8 text".into(),
                })?;
                let mut cfg = Config::from_toml_str(&text, &path, ov, env)?;
                if cfg.key.source == KeySource::File(shown.clone())
                    && let Some(mode) = readable_by_others(&path)
                {
                    cfg.warnings.push(format!(
                        "{shown} holds an API key and is readable by others (mode {mode:04o}); run: chmod 600 {shown}"
                    ));
                }
                Ok(cfg)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let base = ov.base_url.clone().or_else(|| env("CONVO_BASE_URL"));
                let key = env("CONVO_API_KEY");
                match (base, key) {
                    (Some(_), Some(_)) => {
                        Config::from_toml_str("", &path, ov, &env).map(|mut c| {
                            c.path = None;
                            c
                        })
                    }
                    (b, _) => Err(ConfigError::Missing {
                        path: shown,
                        also: how.to_string(),
                        what: if b.is_none() { "base URL" } else { "API key" },
                    }),
                }
            }
            Err(e) => Err(ConfigError::Unreadable {
                path: shown,
                reason: e.to_string(),
            }),
        }
    }

    /// Resolves a config from its text; `env` looks up environment variables.
    pub fn from_toml_str(
        text: &str,
        path: &Path,
        ov: &Overrides,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let mut f = parse_file(text, &shown)?;
        let invalid = |key: &str, message: &str| ConfigError::Invalid {
            path: shown.clone(),
            key: key.to_string(),
            message: message.to_string(),
        };
        let mut profiles_in_file = std::mem::take(&mut f.profiles);
        let names: Vec<String> = profiles_in_file.keys().cloned().collect();
        if let Some((name, _)) = profiles_in_file
            .iter()
            .find(|(_, p)| !p.profiles.is_empty())
        {
            return Err(invalid(
                &format!("profiles.{name}.profiles"),
                "profiles cannot hold profiles",
            ));
        }
        let profile = ov
            .profile
            .clone()
            .or_else(|| env("CONVO_PROFILE"))
            .filter(|p| !p.is_empty());
        if let Some(name) = &profile {
            let p = profiles_in_file.remove(name).ok_or_else(|| {
                invalid(
                    "profiles",
                    &format!(
                        "no profile named {name:?}; the file defines: {}",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                )
            })?;
            f = f.overlay(p);
        }
        let base_url = ov
            .base_url
            .clone()
            .or_else(|| env("CONVO_BASE_URL"))
            .or(f.base_url.take())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                invalid(
                    "base_url",
                    "not set (set base_url, CONVO_BASE_URL or --base-url)",
                )
            })?;
        if !(base_url.starts_with("https://") || base_url.starts_with("http://")) {
            return Err(invalid(
                "base_url",
                "must start with https:// (or http:// for loopback)",
            ));
        }
        let prefix = f.key_prefix.clone().unwrap_or_else(|| "sk_".into());
        let (secret, source) = if let Some(k) = env("CONVO_API_KEY") {
            (k, KeySource::Env)
        } else if let Some(cmd) = f
            .api_key_command
            .as_deref()
            .filter(|c| !c.trim().is_empty())
        {
            (
                run_key_command(cmd, &shown)?,
                KeySource::Command(shown.clone()),
            )
        } else if let Some(k) = f.api_key.clone() {
            (k, KeySource::File(shown.clone()))
        } else {
            return Err(invalid(
                "api_key",
                "no API key: set CONVO_API_KEY, api_key_command or api_key",
            ));
        };
        let key = ApiKey::new(&secret, source, &prefix).map_err(|source| ConfigError::Key {
            path: shown.clone(),
            source,
        })?;
        let timeout = f.request_timeout_secs.unwrap_or(15);
        if timeout == 0 {
            return Err(invalid("request_timeout_secs", "must be at least 1"));
        }
        let connect = f.connect_timeout_secs.unwrap_or(5);
        if connect == 0 {
            return Err(invalid("connect_timeout_secs", "must be at least 1"));
        }
        let auth_header = f
            .auth_header
            .clone()
            .unwrap_or_else(|| "Authorization".into());
        if auth_header.trim().is_empty() {
            return Err(invalid("auth_header", "must not be empty"));
        }
        let ex = extras(&mut f, &shown)?;
        Ok(Config {
            path: Some(path.to_path_buf()),
            base_url,
            key,
            auth_header,
            auth_scheme: f.auth_scheme.clone().unwrap_or_else(|| "Bearer".into()),
            page_size: ex.page_size,
            request_timeout: Duration::from_secs(timeout),
            connect_timeout: Duration::from_secs(connect),
            allow_insecure_http: f.allow_insecure_http.unwrap_or(false),
            refresh_secs: ex.refresh_secs,
            views: ex.views,
            aliases: ex.aliases,
            warnings: Vec::new(),
            profile,
            profiles: names,
        })
    }

    /// For `--demo`: the embedded server's URL and key, with views, aliases, page size and
    /// refresh from the config file when one exists and is valid (else a warning).
    pub fn for_demo(base_url: String, key: ApiKey, ov: &Overrides) -> Result<Config, ConfigError> {
        let path = ov
            .config_path
            .clone()
            .or_else(|| std::env::var_os("CONVO_CONFIG").map(PathBuf::from))
            .or_else(default_path);
        let mut warnings = Vec::new();
        let mut ex = Extras {
            page_size: Limit::DEFAULT,
            refresh_secs: None,
            views: Vec::new(),
            aliases: Aliases::default(),
        };
        if let Some(p) = &path
            && let Ok(text) = std::fs::read_to_string(p)
        {
            let shown = p.display().to_string();
            match parse_file(&text, &shown).and_then(|mut f| extras(&mut f, &shown)) {
                Ok(e) => ex = e,
                Err(e) => warnings.push(format!("{e} (ignored for --demo)")),
            }
        }
        Ok(Config {
            path: None,
            base_url,
            key,
            auth_header: "Authorization".into(),
            auth_scheme: "Bearer".into(),
            page_size: ex.page_size,
            request_timeout: Duration::from_secs(15),
            connect_timeout: Duration::from_secs(5),
            allow_insecure_http: false,
            refresh_secs: ex.refresh_secs,
            views: ex.views,
            aliases: ex.aliases,
            warnings,
            profile: None,
            profiles: Vec::new(),
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
        let c = load(include_str!("../config.example.toml")).unwrap();
        assert_eq!(c.views.len(), 4);
        assert_eq!(
            c.views.iter().filter(|v| v.notify).count(),
            1,
            "one view notifies"
        );
        assert!(!c.aliases.is_empty());
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
        assert!(
            e.contains("line 3") && e.contains("page_size") || e.contains("line 3"),
            "{e}"
        );
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
    }

    #[test]
    fn the_example_staging_profile_parses() {
        let ov = Overrides {
            profile: Some("staging".into()),
            ..Overrides::default()
        };
        let c = Config::from_toml_str(
            include_str!("../config.example.toml"),
            Path::new("/t/c.toml"),
            &ov,
            &env_with_key,
        )
        .unwrap();
        assert_eq!(c.base_url, "https://staging.api.chat.example.com");
        assert_eq!(c.refresh_secs, Some(10));
    }

    #[test]
    fn debug_masks_the_key() {
        let c = load("base_url = \"https://x.example\"").unwrap();
        let d = format!("{c:?}");
        assert!(!d.contains("secretvalue"), "{d}");
    }
}
