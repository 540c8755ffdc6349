//! The file format: what serde reads (`deny_unknown_fields` everywhere), parse errors turned into
//! file:line:column messages, and the parts that need no key or URL (views, aliases, page size,
//! refresh), which `--demo` keeps too.
//!
//! A new top-level key or table is a field of [`FileConfig`], a line in [`KNOWN_KEYS`] and, if
//! profiles may set it, a name in [`FileConfig::overlay`].

use std::collections::BTreeMap;

use serde::Deserialize;
use uuid::Uuid;

use super::text::{line_col, looks_secret, shown};
use super::{Aliases, ConfigError, View};
use convo_api::filter::parse_uuid;
use convo_api::{Assignee, ConversationFilter, Limit, Resource, Status, VisitorFilter};

/// Longest refresh interval, one day: longer ones are typos (and would overflow timers).
const MAX_REFRESH_SECS: u64 = 86_400;

/// Every key of the format, at any level: a parser message may show these as they are.
pub(super) const KNOWN_KEYS: &[&str] = &[
    "base_url",
    "api_key",
    "api_key_command",
    "key_prefix",
    "auth_header",
    "auth_scheme",
    "page_size",
    "request_timeout_secs",
    "connect_timeout_secs",
    "max_parallel",
    "allow_insecure_http",
    "proxy",
    "ca_file",
    "refresh_secs",
    "refresh_max_pages",
    "aliases",
    "sites",
    "agents",
    "views",
    "profiles",
    "name",
    "tab",
    "status",
    "assignee",
    "site_id",
    "visitor_id",
    "email",
    "external_id",
    "notify",
    "web_url",
    "stale_after",
    "mouse",
    "keys",
    "theme",
    "columns",
    "preset",
    "accent",
    "good",
    "warning",
    "error",
    "muted",
    "secondary",
    "bar",
    "other",
    "conversations",
    "visitors",
    "sla",
    "sites",
    "first_response",
    "resolution",
    "warn_at",
    "business_hours",
    "timezone",
    "store",
    "visitor_sync",
    "visitor_sync_rps",
    "visitor_rewalk",
    "query",
    "agent_id",
    "max_streams",
    "scan_max_pages",
    "exporter_interval",
    "commands",
    "key",
    "tabs",
    "program",
    "args",
    "output",
    "confirm",
    "for_marked",
    "exporter_exclude",
    "exporter",
];

/// The file as written. Every field is optional; defaults are applied when resolving.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileConfig {
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub api_key_command: Option<String>,
    pub key_prefix: Option<String>,
    pub auth_header: Option<String>,
    pub auth_scheme: Option<String>,
    pub page_size: Option<i64>,
    pub request_timeout_secs: Option<u64>,
    pub connect_timeout_secs: Option<u64>,
    /// Requests in flight to the service at once (see `convo_api::client`).
    pub max_parallel: Option<i64>,
    pub allow_insecure_http: Option<bool>,
    /// `proxy = "http://host:3128"` or `"none"` (see `convo_api::proxy`).
    pub proxy: Option<String>,
    /// `ca_file = "~/corp-ca.pem"`: extra trusted roots (PEM).
    pub ca_file: Option<String>,
    /// Not in the file: the profile that set `proxy`, filled when a profile is laid over.
    #[serde(skip)]
    pub proxy_profile: Option<String>,
    pub refresh_secs: Option<u64>,
    /// Pages a refresh re-reads from the top at most (see `crate::ui`).
    pub refresh_max_pages: Option<i64>,
    /// `UUID = "name"`, or the tables `[aliases.sites]` and `[aliases.agents]` of them.
    #[serde(default)]
    pub aliases: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub views: Vec<FileView>,
    /// `[profiles.NAME]`: the same keys, laid over the top level when NAME is chosen.
    #[serde(default)]
    pub profiles: BTreeMap<String, FileConfig>,
    /// `web_url`, `stale_after`, `mouse`, `[keys]`, `[theme]`, `[columns]` (see
    /// `crate::ui`).
    pub web_url: Option<String>,
    pub stale_after: Option<super::ui::DurationValue>,
    pub mouse: Option<bool>,
    #[serde(default)]
    pub keys: BTreeMap<String, super::ui::KeyList>,
    pub theme: Option<super::ui::FileTheme>,
    pub columns: Option<super::ui::FileColumns>,
    /// `[sla]`: response-time targets (see `super::sla`).
    pub sla: Option<super::sla::FileSla>,
    /// The whole file, for the line numbers of values checked after parsing.
    #[serde(skip)]
    pub text: std::sync::Arc<str>,
    /// `store = false`: nothing kept on disk (see `convo_store`).
    pub store: Option<bool>,
    /// `visitor_sync = false`: no background walk of the visitors list.
    pub visitor_sync: Option<bool>,
    /// Requests per second of that walk (default 2).
    pub visitor_sync_rps: Option<u32>,
    /// How old a complete walk may get before the next one (default one day).
    pub visitor_rewalk: Option<super::ui::DurationValue>,
    /// The user's own agent UUID: what `assignee:me` means in a query.
    pub agent_id: Option<String>,
    /// Streams a query's union may run (default 16).
    pub max_streams: Option<i64>,
    /// Pages the browser reads for a query's checks before it waits for `L` (default 50).
    pub scan_max_pages: Option<i64>,
    /// How often `convo exporter` walks every view (default 60s).
    pub exporter_interval: Option<super::ui::DurationValue>,
    /// `[[commands]]`: the user's commands on a row (see `super::commands`).
    #[serde(default)]
    pub commands: Vec<super::commands::FileCommand>,
    /// Views `convo exporter` leaves out, by name (the built-in ones too; a `[[views]]` entry
    /// can say `exporter = false` instead).
    pub exporter_exclude: Option<Vec<String>>,
}

impl FileConfig {
    /// Lays a profile over the top level: every key the profile sets wins; aliases are merged
    /// (the profile's win) and its views come after the shared ones.
    pub fn overlay(mut self, p: FileConfig) -> FileConfig {
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
            max_parallel,
            allow_insecure_http,
            proxy,
            ca_file,
            refresh_secs,
            refresh_max_pages,
            web_url,
            stale_after,
            mouse,
            theme,
            columns,
            store,
            visitor_sync,
            visitor_sync_rps,
            visitor_rewalk,
            agent_id,
            max_streams,
            scan_max_pages,
            exporter_interval,
            exporter_exclude
        );
        self.sla = match (self.sla.take(), p.sla) {
            (Some(top), Some(p)) => Some(top.overlay(p)),
            (top, p) => p.or(top),
        };
        self.keys.extend(p.keys);
        for (k, v) in p.aliases {
            // `[profiles.X.aliases.sites]` adds to `[aliases.sites]`, as names add to names.
            match (self.aliases.get_mut(&k), v) {
                (Some(toml::Value::Table(top)), toml::Value::Table(more)) => top.extend(more),
                (_, v) => {
                    self.aliases.insert(k, v);
                }
            }
        }
        self.views.extend(p.views);
        self.commands.extend(p.commands);
        self
    }

    /// Whether the file holds a key itself (at the top or in any profile), used or not: such a
    /// file must not be readable by others.
    pub fn holds_key(&self) -> bool {
        self.api_key.is_some() || self.profiles.values().any(FileConfig::holds_key)
    }

    /// Whether the file (or one of its profiles) names an `api_key_command`.
    pub fn runs_key_command(&self) -> bool {
        self.api_key_command
            .as_deref()
            .is_some_and(|c| !c.trim().is_empty())
            || self.profiles.values().any(FileConfig::runs_key_command)
    }

    /// Whether the file (or one of its profiles) has `[[commands]]`: programs convo runs.
    pub fn runs_commands(&self) -> bool {
        !self.commands.is_empty() || self.profiles.values().any(FileConfig::runs_commands)
    }
}

/// One `[[views]]` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileView {
    name: String,
    tab: Option<String>,
    status: Option<String>,
    assignee: Option<String>,
    site_id: Option<String>,
    visitor_id: Option<String>,
    email: Option<String>,
    external_id: Option<String>,
    notify: Option<bool>,
    /// A query (see `convo_query::query`): instead of the filter keys above.
    query: Option<String>,
    /// `exporter = false`: `convo exporter` leaves this view out.
    exporter: Option<bool>,
}

/// Parses the text, or says where and why not: file, line, column, message and the key.
pub(super) fn parse_file(text: &str, path: &str) -> Result<FileConfig, ConfigError> {
    let mut f = toml::from_str::<FileConfig>(text).map_err(|mut e| {
        let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        let mut message = redact(e.message().trim());
        // The key path is only in toml's Display, as a last line "in `a.b`" when it has no
        // input to quote (the quoted input line could hold the key, so it is never shown).
        e.set_input(None);
        let full = e.to_string();
        if let Some(keys) = full
            .trim_end()
            .rsplit('\n')
            .next()
            .and_then(|l| l.strip_prefix("in `"))
            .and_then(|l| l.strip_suffix('`'))
        {
            let keys = key_path(keys);
            if !message.contains(&format!("`{keys}`")) {
                message = format!("{message} (in `{keys}`)");
            }
        }
        ConfigError::Parse {
            path: path.to_string(),
            line,
            column,
            message: convo_text::one_line(&message, 400),
        }
    })?;
    f.text = text.into();
    Ok(f)
}

/// A dotted key path with every part that is not a known key, an index or a short profile
/// name replaced by `…` (a key typed as a table key would otherwise come back).
fn key_path(keys: &str) -> String {
    let mut prev = "";
    let parts: Vec<&str> = keys
        .split('.')
        .map(|k| {
            let keep = KNOWN_KEYS.contains(&k)
                || k.bytes().all(|b| b.is_ascii_digit())
                || (prev == "profiles" && !looks_secret(k));
            prev = k;
            if keep { k } else { "…" }
        })
        .collect();
    parts.join(".")
}

/// Blanks what a parser message quotes from the file: double-quoted values (a key pasted into
/// the wrong field: `invalid type: string "sk_live_…", expected i64`) and backticked tokens
/// that [`looks_secret`] (an unknown key that is really a key). Key names stay.
fn redact(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(i) = rest.find(['"', '`']) {
        out.push_str(&rest[..i]);
        let q = &rest[i..i + 1];
        let after = &rest[i + 1..];
        let Some(j) = after.find(q) else {
            out.push_str(q);
            rest = after;
            continue;
        };
        let inner = &after[..j];
        let keep = q == "`" && !looks_secret(inner);
        out.push_str(q);
        out.push_str(if keep { inner } else { "…" });
        out.push_str(q);
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    out
}

/// Checks one `[[views]]` entry and turns it into filters.
fn view_from_file(v: FileView, path: &str) -> Result<View, ConfigError> {
    let key = |k: &str| format!("views[{:?}].{k}", v.name);
    let invalid = |k: &str, message: String| ConfigError::Invalid {
        path: path.to_string(),
        key: key(k),
        message,
    };
    if v.name.trim().is_empty() {
        return Err(invalid("name", "a view needs a name".into()));
    }
    let tab = match v.tab.as_deref().unwrap_or("conversations") {
        "conversations" => Resource::Conversations,
        "visitors" => Resource::Visitors,
        other => {
            return Err(invalid(
                "tab",
                format!("{} is not \"conversations\" or \"visitors\"", shown(other)),
            ));
        }
    };
    let conv_keys =
        v.status.is_some() || v.assignee.is_some() || v.site_id.is_some() || v.visitor_id.is_some();
    let vis_keys = v.email.is_some() || v.external_id.is_some();
    if v.query.is_some() && (conv_keys || vis_keys) {
        return Err(invalid(
            "query",
            "a view takes either query or the filter keys (status, assignee, site_id, \
             visitor_id, email, external_id): put them in the query"
                .into(),
        ));
    }
    if v.query.as_deref().is_some_and(|q| q.trim().is_empty()) {
        return Err(invalid("query", "an empty query: leave the key out".into()));
    }
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
            .map(|s| {
                parse_uuid(k, s).map_err(|_| invalid(k, format!("{} is not a UUID", shown(s))))
            })
            .transpose()
    };
    let conversations = ConversationFilter {
        by_email: None,
        site_id: uuid("site_id", &v.site_id)?,
        visitor_id: uuid("visitor_id", &v.visitor_id)?,
        status: v
            .status
            .as_deref()
            .map(|s| {
                Status::parse_filter(s).ok_or_else(|| {
                    invalid(
                        "status",
                        format!("{} is not open, pending or closed", shown(s)),
                    )
                })
            })
            .transpose()?,
        assignee: v
            .assignee
            .as_deref()
            .map(|a| {
                Assignee::parse(a).map_err(|_| {
                    invalid(
                        "assignee",
                        format!(
                            "{} is not \"any\", \"none\", \"anyone\" or an agent's UUID",
                            shown(a)
                        ),
                    )
                })
            })
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
        oldest_first: false,
        query: v.query,
    })
}

/// Views, aliases and display settings: the parts `--demo` keeps from a config file.
pub(super) struct Extras {
    pub page_size: Limit,
    pub refresh_secs: Option<u64>,
    pub views: Vec<View>,
    pub aliases: Aliases,
    pub ui: super::ui::UiConfig,
    pub sla: convo_engine::sla::Sla,
    pub store: super::StoreSettings,
    pub query: super::QuerySettings,
    /// `exporter_interval` in seconds.
    pub exporter_interval_secs: Option<u64>,
    /// The views `convo exporter` leaves out: `exporter_exclude`, then the `[[views]]` with
    /// `exporter = false`.
    pub exporter_exclude: Vec<String>,
}

impl Default for Extras {
    fn default() -> Extras {
        Extras {
            page_size: Limit::DEFAULT,
            refresh_secs: None,
            views: Vec::new(),
            aliases: Aliases::default(),
            ui: Default::default(),
            sla: Default::default(),
            store: super::StoreSettings::default(),
            query: super::QuerySettings::default(),
            exporter_interval_secs: None,
            exporter_exclude: Vec::new(),
        }
    }
}

/// `[aliases]`: `UUID = "name"` of no known kind, and `[aliases.sites]` /
/// `[aliases.agents]`, whose names are of that kind (kinds first, so a kinded name wins).
fn aliases_of(
    table: BTreeMap<String, toml::Value>,
    invalid: &dyn Fn(&str, String) -> ConfigError,
) -> Result<Aliases, ConfigError> {
    use super::AliasKind;
    let mut aliases = Aliases::default();
    let one = |at: String, k: &str, v: &toml::Value| -> Result<(Uuid, String), ConfigError> {
        let id = Uuid::parse_str(k.trim()).map_err(|_| {
            invalid(
                &at,
                "the key is not a UUID (aliases map a site's or agent's UUID to a name)".into(),
            )
        })?;
        match v {
            toml::Value::String(n) => Ok((id, n.clone())),
            _ => Err(invalid(&at, "a name is a string".into())),
        }
    };
    let mut kinded = Vec::new();
    for (k, v) in &table {
        let kind = match k.as_str() {
            "sites" => Some(AliasKind::Site),
            "agents" => Some(AliasKind::Agent),
            _ => None,
        };
        match (kind, v) {
            (Some(kind), toml::Value::Table(t)) => {
                for (id, name) in t {
                    let at = format!("aliases.{k}.{}", shown(id));
                    kinded.push((one(at, id, name)?, kind));
                }
            }
            (Some(_), _) => {
                return Err(invalid(
                    &format!("aliases.{k}"),
                    format!("[aliases.{k}] is a table of UUID = \"name\""),
                ));
            }
            (None, v) => {
                let (id, name) = one(format!("aliases.{}", shown(k)), k, v)?;
                aliases.insert(id, name);
            }
        }
    }
    for ((id, name), kind) in kinded {
        aliases.insert_as(id, name, kind);
    }
    Ok(aliases)
}

/// Checks and takes the views, aliases, page size and refresh interval out of `f`.
pub(super) fn extras(f: &mut FileConfig, path: &str) -> Result<Extras, ConfigError> {
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
    let refresh_secs = match f.refresh_secs {
        Some(s) if s > MAX_REFRESH_SECS => {
            return Err(invalid(
                "refresh_secs",
                format!("{s} is more than a day ({MAX_REFRESH_SECS}); 0 means never"),
            ));
        }
        s => s.filter(|&s| s > 0),
    };
    let aliases = aliases_of(std::mem::take(&mut f.aliases), &invalid)?;
    let mut views = Vec::new();
    let mut exporter_exclude = f.exporter_exclude.take().unwrap_or_default();
    for v in std::mem::take(&mut f.views) {
        if v.exporter == Some(false) {
            exporter_exclude.push(v.name.clone());
        }
        let view = view_from_file(v, path)?;
        if views.iter().any(|x: &View| x.name == view.name) {
            return Err(invalid(
                &format!("views[{:?}]", view.name),
                "two views have this name".into(),
            ));
        }
        views.push(view);
    }
    let ui = super::ui::check(super::ui::RawUi {
        keys: std::mem::take(&mut f.keys),
        theme: f.theme.take(),
        columns: f.columns.take(),
        web_url: f.web_url.take(),
        stale_after: f.stale_after.take(),
        mouse: f.mouse.take(),
        refresh_max_pages: f.refresh_max_pages.take(),
    })
    .map_err(|(key, message)| invalid(&key, message))?;
    let mut ui = ui;
    ui.commands = super::commands::check(std::mem::take(&mut f.commands))
        .map_err(|(key, message)| invalid(&key, message))?;
    let sla = super::sla::check(f.sla.take(), &aliases, &f.text, path)?;
    let visitor_sync_rps = match f.visitor_sync_rps {
        None => super::StoreSettings::DEFAULT_RPS,
        Some(n @ 1..=super::StoreSettings::MAX_RPS) => n,
        Some(n) => {
            return Err(invalid(
                "visitor_sync_rps",
                format!(
                    "{n} is outside 1..={} (requests per second; visitor_sync = false turns the walk off)",
                    super::StoreSettings::MAX_RPS
                ),
            ));
        }
    };
    let visitor_rewalk_secs = match f.visitor_rewalk.take() {
        None => super::StoreSettings::DEFAULT_REWALK_SECS,
        Some(v) => {
            let secs = match v {
                super::ui::DurationValue::Secs(n) if n >= 0 => Ok(n),
                super::ui::DurationValue::Secs(n) => Err(format!("{n} is negative")),
                super::ui::DurationValue::Text(t) => super::ui::parse_duration(&t),
            }
            .map_err(|m| invalid("visitor_rewalk", m))?;
            if !(60..=365 * 86_400).contains(&secs) {
                return Err(invalid(
                    "visitor_rewalk",
                    format!(
                        "{secs} s is outside one minute to a year (how old a complete walk of \
                         the visitors list may get, e.g. \"1d\" or \"12h\")"
                    ),
                ));
            }
            secs
        }
    };
    let store = super::StoreSettings {
        enabled: f.store.unwrap_or(true),
        visitor_sync: f.visitor_sync.unwrap_or(true),
        visitor_sync_rps,
        visitor_rewalk_secs,
        key_url: String::new(),
        dir: None,
    };
    let agent_id = match f.agent_id.take() {
        None => None,
        Some(a) => Some(Uuid::parse_str(a.trim()).map_err(|_| {
            invalid(
                "agent_id",
                format!(
                    "{:?} is not a UUID (agent_id is your own agent's UUID, what assignee:me means)",
                    convo_text::one_line(&a, 60)
                ),
            )
        })?),
    };
    let max_streams = match f.max_streams {
        None => super::QuerySettings::DEFAULT_MAX_STREAMS,
        Some(n) if n >= 1 && n as usize <= super::QuerySettings::MAX_MAX_STREAMS => n as usize,
        Some(n) => {
            return Err(invalid(
                "max_streams",
                format!(
                    "{n} is outside 1..={} (requests a query may run side by side)",
                    super::QuerySettings::MAX_MAX_STREAMS
                ),
            ));
        }
    };
    let scan_max_pages = match f.scan_max_pages {
        None => super::QuerySettings::DEFAULT_SCAN_MAX_PAGES,
        Some(n) if n >= 1 && n as usize <= super::QuerySettings::MAX_SCAN_MAX_PAGES => n as usize,
        Some(n) => {
            return Err(invalid(
                "scan_max_pages",
                format!(
                    "{n} is outside 1..={} (pages the browser reads for a query's checks \
                     before it waits for L)",
                    super::QuerySettings::MAX_SCAN_MAX_PAGES
                ),
            ));
        }
    };
    let exporter_interval_secs = match f.exporter_interval.take() {
        None => None,
        Some(v) => {
            let secs = match v {
                super::ui::DurationValue::Secs(n) if n >= 0 => Ok(n),
                super::ui::DurationValue::Secs(n) => Err(format!("{n} is negative")),
                super::ui::DurationValue::Text(t) => super::ui::parse_duration(&t),
            }
            .map_err(|m| invalid("exporter_interval", m))?;
            if !(1..=86_400).contains(&secs) {
                return Err(invalid(
                    "exporter_interval",
                    "must be between 1 second and a day (e.g. \"30s\", \"1m\")".into(),
                ));
            }
            Some(secs as u64)
        }
    };
    // A name there that is no view is a typo: the view would be walked after all.
    let builtin = crate::builtin_views::builtin_views(agent_id);
    if let Some(bad) = exporter_exclude.iter().find(|n| {
        !builtin
            .iter()
            .chain(&views)
            .any(|v| v.name.eq_ignore_ascii_case(n.trim()))
    }) {
        let known: Vec<String> = builtin
            .iter()
            .chain(&views)
            .map(|v| format!("{:?}", convo_text::one_line(&v.name, 60)))
            .collect();
        return Err(invalid(
            "exporter_exclude",
            format!(
                "{:?} is no view (the views: {})",
                convo_text::one_line(bad, 60),
                known.join(", ")
            ),
        ));
    }
    Ok(Extras {
        exporter_interval_secs,
        exporter_exclude,
        query: super::QuerySettings {
            agent_id,
            max_streams,
            scan_max_pages,
            demo_me: false,
        },
        page_size,
        refresh_secs,
        views,
        aliases,
        ui,
        sla,
        store,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_keeps_key_names_and_blanks_values() {
        assert_eq!(
            redact("invalid type: string \"sk_live_abc\", expected i64"),
            "invalid type: string \"…\", expected i64"
        );
        assert_eq!(
            redact("unknown field `pagesize`, expected `page_size`"),
            "unknown field `pagesize`, expected `page_size`"
        );
        assert_eq!(
            redact("unknown field `sk_live_0123456789abcd`, expected `a`"),
            "unknown field `…`, expected `a`"
        );
        assert_eq!(redact("odd \" quote"), "odd \" quote");
    }

    #[test]
    fn key_paths_show_known_keys_only() {
        assert_eq!(key_path("page_size"), "page_size");
        assert_eq!(key_path("views.0.status"), "views.0.status");
        assert_eq!(
            key_path("profiles.staging.page_size"),
            "profiles.staging.page_size"
        );
        assert_eq!(
            key_path("aliases.0b6f2d4c-6a51-4d0e-9c1a-3f6e2b7d8a90"),
            "aliases.…"
        );
    }

    #[test]
    fn a_wrong_type_names_its_key() {
        let e = parse_file("\n[[views]]\nname = \"a\"\nnotify = \"yes\"\n", "/c.toml")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("line 4") && e.contains("notify"), "{e}");
    }

    #[test]
    fn holds_key_looks_into_profiles() {
        let f = parse_file("[profiles.a]\napi_key = \"x\"\n", "/c.toml").unwrap();
        assert!(f.holds_key());
        let f = parse_file("api_key_command = \"x\"\n", "/c.toml").unwrap();
        assert!(!f.holds_key());
    }
}
