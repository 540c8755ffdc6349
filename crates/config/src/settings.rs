//! Every key of the config file, with its default and the environment variable and flags that
//! set it too: the one table docs/configuration.md is generated from (tests/docs.rs fails when
//! the page, `config.example.toml` or the parser disagree with it).
//!
//! A new key is a field of `file::FileConfig`, a name in `file::KNOWN_KEYS` and a row here.

/// One key of the config file.
#[derive(Debug, Clone, Copy)]
pub struct Setting {
    /// The key as written: `page_size`, a table's key as `sla.first_response`, a key of each
    /// `[[views]]` entry as `views[].name`.
    pub key: &'static str,
    /// The value when the key is absent, as the user would write or read it.
    pub default: &'static str,
    /// The environment variable that wins over the file, if any.
    pub env: &'static str,
    /// The flags that win over the file (and the environment), if any.
    pub flag: &'static str,
    /// What it does, in one line.
    pub what: &'static str,
}

const fn s(
    key: &'static str,
    default: &'static str,
    env: &'static str,
    flag: &'static str,
    what: &'static str,
) -> Setting {
    Setting {
        key,
        default,
        env,
        flag,
        what,
    }
}

/// Every key, in the order of `config.example.toml`.
#[rustfmt::skip]
pub const SETTINGS: &[Setting] = &[
    s("base_url", "(none: required)", "CONVO_BASE_URL", "--base-url", "the service, the part before `/v1/…`; `https://` unless loopback"),
    s("api_key", "(none)", "CONVO_API_KEY", "", "the secret key; read after `CONVO_API_KEY` and `api_key_command`"),
    s("api_key_command", "(none)", "", "", "a command whose stdout (trimmed) is the key; run with `sh -c`, 10 s at most"),
    s("key_prefix", "\"sk_\"", "", "", "a key without this prefix is refused before any request; `\"\"` turns the check off"),
    s("auth_header", "\"Authorization\"", "", "", "the header that carries the key"),
    s("auth_scheme", "\"Bearer\"", "", "", "the scheme before the key; `\"\"` sends the key alone"),
    s("page_size", "50", "", "`list`/`summary`/`exporter` `--limit`", "rows per request, 1 to 100"),
    s("request_timeout_secs", "15", "", "", "a whole request's timeout, 1 to 3600 seconds"),
    s("connect_timeout_secs", "5", "", "", "the connect timeout, 1 to 3600 seconds"),
    s("max_parallel", "4", "", "", "requests in flight to the service at once, whoever sends them, 1 to 32"),
    s("allow_insecure_http", "false", "", "", "allow plain `http://` to a host that is not loopback (the key travels in clear text)"),
    s("proxy", "(the environment, as curl)", "HTTPS_PROXY, ALL_PROXY, NO_PROXY", "--proxy", "`http://[user:password@]host:port`, or `\"none\"` to ignore the environment"),
    s("ca_file", "(none)", "SSL_CERT_FILE, SSL_CERT_DIR", "", "a PEM bundle of extra trusted roots, added to the system's"),
    s("refresh_secs", "(never; `--demo`: 10)", "", "", "the browser re-reads the list every N seconds; 0 is never, at most 86400; `R` toggles it (30 s when unset)"),
    s("refresh_max_pages", "10", "", "", "pages a refresh, `r` and the board `B` re-read from the top at most, 1 to 1000"),
    s("exporter_interval", "\"60s\"", "", "`exporter --interval`", "how often `convo exporter` walks every view, 1 s to a day"),
    s("exporter_exclude", "[]", "", "", "views `convo exporter` leaves out, by name (the built-in ones too)"),
    s("store", "true", "", "", "`false` keeps nothing on disk (no local store)"),
    s("visitor_sync", "true", "", "", "the background walk of the visitors list that names visitors"),
    s("visitor_sync_rps", "2", "", "`store sync --rps`", "requests a second of that walk, 1 to 50"),
    s("visitor_rewalk", "\"1d\"", "", "", "a complete walk is done again when older than this, a minute to a year"),
    s("web_url", "(none)", "", "", "what `o` opens: `{tab}` and `{id}` are replaced"),
    s("stale_after", "\"2h\"", "", "`summary --stale-after`", "a conversation not closed is stale after this long without an update"),
    s("mouse", "false", "", "", "the browser captures the mouse (click, wheel)"),
    s("agent_id", "(none; `--demo`: one of its agents)", "", "", "your agent UUID: what `assignee:me` means"),
    s("max_streams", "16", "", "", "requests a query's union may walk side by side; past it the widest field is checked in convo"),
    s("scan_max_pages", "50", "", "`summary --views`/`exporter` `--max-pages`", "pages a query few rows pass reads before it waits for `L`; a view's page budget in `summary --views` and the exporter"),
    s("aliases", "(none)", "", "", "`\"UUID\" = \"name\"`: names for site and agent UUIDs"),
    s("aliases.sites", "(none)", "", "", "names that are sites"),
    s("aliases.agents", "(none)", "", "", "names that are agents"),
    s("views[].name", "(required)", "", "`--view NAME`", "a saved view's name (`v` lists them)"),
    s("views[].tab", "\"conversations\"", "", "", "`\"conversations\"` or `\"visitors\"`"),
    s("views[].status", "(any)", "", "", "`open`, `pending` or `closed`"),
    s("views[].assignee", "\"any\"", "", "", "`any`, `none`, `anyone` or an agent UUID"),
    s("views[].site_id", "(any)", "", "", "a site UUID"),
    s("views[].visitor_id", "(any)", "", "", "a visitor UUID"),
    s("views[].email", "(any)", "", "", "visitors views: the e-mail"),
    s("views[].external_id", "(any)", "", "", "visitors views: the external id"),
    s("views[].query", "(none)", "", "", "a query instead of the filter keys"),
    s("views[].notify", "false", "", "", "bell and desktop notification when new conversations come into the view"),
    s("views[].exporter", "true", "", "", "`false`: `convo exporter` leaves the view out"),
    s("keys", "(the default key map)", "", "", "`action = \"key\"` or `[\"key\", …]`; `[]` unbinds"),
    s("theme.preset", "\"dark\"", "NO_COLOR", "", "`dark`, `light` or `high-contrast`; `NO_COLOR` turns colour off"),
    s("theme.accent", "(the preset's)", "", "", "a role's colour: a name, `#rrggbb` or 0-255"),
    s("theme.good", "(the preset's)", "", "", "a role's colour"),
    s("theme.warning", "(the preset's)", "", "", "a role's colour"),
    s("theme.error", "(the preset's)", "", "", "a role's colour"),
    s("theme.muted", "(the preset's)", "", "", "a role's colour"),
    s("theme.secondary", "(the preset's)", "", "", "a role's colour"),
    s("theme.bar", "(the preset's)", "", "", "a role's colour"),
    s("theme.other", "(the preset's)", "", "", "a role's colour"),
    s("columns.conversations", "(the default columns)", "", "", "the Conversations tab's columns, in order"),
    s("columns.visitors", "(the default columns)", "", "", "the Visitors tab's columns, in order"),
    s("sla.first_response", "(not tracked)", "", "", "the target for an open, unassigned conversation's wait, from `createdAt`"),
    s("sla.resolution", "(not tracked)", "", "", "the target for a conversation not closed, from `createdAt`"),
    s("sla.warn_at", "0.8", "", "", "imminent from this share of a target"),
    s("sla.business_hours", "(always)", "", "", "the clock runs only inside them, e.g. `\"Mon-Fri 09:00-18:00\"`"),
    s("sla.timezone", "(this machine's)", "", "", "an IANA zone for `business_hours`"),
    s("sla.sites", "(none)", "", "", "`[sla.sites.\"NAME or UUID\"]`: any `[sla]` key for one site"),
    s("commands[].name", "(required)", "", "", "a command on the selected (or marked) rows, shown in `!` and `?`"),
    s("commands[].key", "(none: `!` menu only)", "", "", "the key that runs it; must not be taken"),
    s("commands[].tabs", "\"both\"", "", "", "`\"conversations\"`, `\"visitors\"` or `\"both\"`"),
    s("commands[].program", "(required)", "", "", "the program, run without a shell (a path, or a name on `PATH`)"),
    s("commands[].args", "[]", "", "", "its arguments; `{id}`, `{email}`, `{attr.KEY}`… replaced inside each one"),
    s("commands[].output", "\"none\"", "", "", "`\"terminal\"` (convo steps aside), `\"pane\"` (shown in convo) or `\"none\"`"),
    s("commands[].confirm", "false", "", "", "ask y/n first, naming the command and the rows"),
    s("commands[].for_marked", "\"each\"", "", "", "with marked rows: `\"each\"` runs once a row, `\"all\"` once with every row"),
    s("profiles", "(none)", "CONVO_PROFILE", "--profile", "`[profiles.NAME]`: any key above, laid over the top level"),
];

#[cfg(test)]
mod tests {
    use super::SETTINGS;

    /// The table and the parser's list of keys name the same keys.
    #[test]
    fn the_table_names_every_key_the_parser_knows() {
        let last = |k: &'static str| k.rsplit(['.', ']']).next().unwrap_or(k);
        let mut in_table: Vec<&str> = SETTINGS.iter().map(|s| last(s.key)).collect();
        // Tables named by their keys (`[theme]` by `theme.preset`, …).
        in_table.extend(SETTINGS.iter().filter_map(|s| {
            let (table, _) = s.key.split_once(['.', '['])?;
            Some(table)
        }));
        for k in super::super::file::KNOWN_KEYS {
            assert!(in_table.contains(k), "config key {k:?} is not in SETTINGS");
        }
        for s in SETTINGS {
            assert!(
                super::super::file::KNOWN_KEYS.contains(&last(s.key)),
                "SETTINGS names {:?}, which the parser does not know",
                s.key
            );
        }
    }
}
