//! Set-up and diagnosis: `convo config init`, `convo doctor`, and the client set-up the TUI
//! shares.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use convo_api::{
    ApiError, ApiKey, Client, ClientSettings, KeyError, KeySource, Resource,
    client::check_base_url, client::is_loopback_host, encoding, encoding::Ask,
};
use convo_config::{Config, ConfigError, Overrides};

pub mod probes;

/// What `convo doctor` checks, in its order: `(name, a part of its line, what a failure means)`.
/// Its `--help`, docs/configuration.md's table and tests/docs.rs (which runs the doctor
/// against the demo and finds each line) read this table.
#[rustfmt::skip]
pub const CHECKS: &[(&str, &str, &str)] = &[
    ("config", "config ", "the file is missing (fix: `convo config init`) or invalid: the message names the file, line and key; a bad `CONVO_API_KEY`, `CONVO_BASE_URL` or flag is named as such, not blamed on the file"),
    ("`[keys]`, `[theme]`, `[columns]`", "[keys]", "what the browser would refuse at start: an unknown action or key name, a key bound to two actions (both named), an unknown theme, colour or column"),
    ("`[sla]`", "[sla]", "the response-time targets in effect, or why they cannot be used"),
    ("API key", "API key sk_", "where the key came from (`sk_…abcd`); a key without the `sk_` prefix is refused before any request"),
    ("permissions", "readable by others", "the file holds a key and is readable by others: `chmod 600` it"),
    ("base URL and TLS", "base URL ", "plain `http://` to a host that is not loopback is refused (the key would travel in clear text)"),
    ("proxy", "requests go ", "which proxy is used and why (variable, config, profile or `--proxy`; credentials shown as `***`), and whether it opens a tunnel (CONNECT) to the service"),
    ("each list", "GET /v1/visitors", "one `limit=1` request to each endpoint, with its time: a 401 means the key was refused, a 404 that `base_url` should end before `/v1`"),
    ("clock", "clock ", "the machine's clock against the server's `Date` header: relative times depend on it"),
    ("compression", "compress", "whether the service compresses its answers, and how much that saves"),
    ("request budget", "request budget", "the request budget convo sees (`RateLimit` headers, `X-RateLimit-*` or 429s) and how much is left"),
    ("visitor names", "visitor names", "the local store's visitor sync: the order it learned, how far its walk is, rows whose visitor it does not know"),
    ("plain or compressed", "convo asks this service for", "which of plain or compressed answers convo asks this service for, with the times that chose it"),
];

/// `convo doctor`'s one-line help: the names of its checks.
pub fn doctor_about() -> String {
    let names: Vec<String> = CHECKS.iter().map(|c| c.0.replace('`', "")).collect();
    format!("Check the set-up: {}", names.join(", "))
}

/// One line of `doctor`'s report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Ok(String),
    Warn(String, String),
    Fail(String, String),
}

impl Check {
    fn line(&self) -> String {
        match self {
            Check::Ok(m) => format!("ok    {m}"),
            Check::Warn(m, fix) => format!("warn  {m}\n      fix: {fix}"),
            Check::Fail(m, fix) => format!("FAIL  {m}\n      fix: {fix}"),
        }
    }
}

fn fix_for(e: &ApiError) -> String {
    match e {
        ApiError::Unauthorized { .. } => {
            "check the key (CONVO_API_KEY, api_key_command or api_key) with the service's admin"
                .into()
        }
        ApiError::Connect { .. } | ApiError::Timeout { .. } | ApiError::Network { .. } => {
            "check base_url, your network or proxy, and that the service is up".into()
        }
        ApiError::Http { status: 404, .. } => {
            "base_url should be the part before /v1/... (no /v1 at its end)".into()
        }
        ApiError::Redirect { .. } => "set base_url to the address it redirects to".into(),
        ApiError::Certificate { fix, .. } => fix.clone(),
        ApiError::Proxy { fix, .. } | ApiError::ProxyAuth { fix, .. } => (*fix).to_string(),
        ApiError::Setup(_) => "fix ca_file or proxy in the config (or --proxy)".into(),
        ApiError::Decode { .. } => "base_url may point at something else than the API".into(),
        _ => "see the message above".into(),
    }
}

/// What the TUI checks beyond the config file's own checks (`[columns]` and `[keys]`, whose
/// names only the TUI's tables know): `(config key, what is wrong)` per problem, none when the
/// TUI would start. `main` passes the TUI's check in; `setup` sits below `tui`. A `[columns]`
/// problem is reported as the config's own (every command refuses it, see `main`).
pub type UiCheck = fn(&convo_config::ui::UiConfig) -> Vec<(String, String)>;

/// The fix `doctor` prints for a `[keys]` problem.
fn keys_fix(key: &str, message: &str) -> String {
    if key.starts_with("commands[") {
        "give the command another key, or none (it stays in the menu of commands, !)".into()
    } else if key == "keys" {
        "give one of the two actions another key, or unbind it with NAME = [] in [keys]".into()
    } else if message.starts_with("no action named") {
        format!("rename {key} to one of the actions listed (see config.example.toml)")
    } else {
        format!("write {key}'s keys as \"r\", \"F5\", \"Ctrl-r\" or \"Shift-Tab\"")
    }
}

/// The `[keys]`, `[theme]`, `[columns]` and `web_url` line(s): theme and `web_url` were
/// checked when the config loaded, columns just after; `[keys]` by the `ui_check` that gave
/// `problems`, as the TUI does at start.
fn ui_checks(cfg: &Config, problems: Vec<(String, String)>) -> Vec<Check> {
    let file = cfg
        .path
        .as_ref()
        .map_or_else(|| "the config".to_string(), |p| p.display().to_string());
    if problems.is_empty() {
        let n = cfg.ui.keys.len();
        return vec![Check::Ok(format!(
            "[keys] ({}), [theme], [columns] and web_url: the TUI accepts them",
            match n {
                0 => "default keys".to_string(),
                1 => "1 action rebound".to_string(),
                n => format!("{n} actions rebound"),
            }
        ))];
    }
    // The file again, for the lines of the keys named (the check itself works on values).
    let text = cfg
        .path
        .as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok());
    problems
        .into_iter()
        .map(|(key, message)| {
            let line = text
                .as_deref()
                .and_then(|t| convo_config::line_of_key(t, &key, cfg.profile.as_deref()))
                .map(|n| format!(", line {n}"))
                .unwrap_or_default();
            Check::Fail(
                format!("{file}{line}: {key}: {message} (the TUI would refuse to start)"),
                keys_fix(&key, &message),
            )
        })
        .collect()
}

/// `[[commands]]`: each command's program is there (on `path`, PATH's value, or at its
/// path) and can be run; a line per command that cannot, one line when all can.
pub fn command_checks(cfg: &Config, path: Option<&std::ffi::OsStr>) -> Vec<Check> {
    use convo_config::commands::find_program;
    let commands = &cfg.ui.commands;
    if commands.is_empty() {
        return Vec::new();
    }
    let missing: Vec<Check> = commands
        .iter()
        .filter(|c| find_program(&c.program, path).is_none())
        .map(|c| {
            Check::Fail(
                format!(
                    "[[commands]] {:?}: its program {:?} is not {}",
                    convo_text::one_line(&c.name, 60),
                    convo_text::one_line(&c.program, 80),
                    if c.program.contains('/') {
                        "there (or not executable)"
                    } else {
                        "on PATH"
                    }
                ),
                "install it, or give its full path in program".into(),
            )
        })
        .collect();
    if missing.is_empty() {
        vec![Check::Ok(format!(
            "[[commands]]: {} command{}, each program found",
            commands.len(),
            if commands.len() == 1 { "" } else { "s" }
        ))]
    } else {
        missing
    }
}

/// The line for a config that cannot be used, with the fix that fits its cause.
fn config_check(e: &ConfigError) -> Check {
    match e {
        // The message's first line; the rest (how to start) is the fix, said once.
        ConfigError::Missing { path, .. } => Check::Fail(
            format!(
                "config: {}",
                e.to_string().lines().next().unwrap_or_default()
            ),
            format!(
                "run `convo config init` (it asks for the URL and the key, checks them and \
                 writes {path}), or set CONVO_BASE_URL and CONVO_API_KEY; `convo --demo` \
                 shows convo on demo data"
            ),
        ),
        // Not the file's fault: say which variable or flag to change.
        ConfigError::Setting { from, .. } => Check::Fail(
            e.to_string(),
            match *from {
                "CONVO_API_KEY" => "fix CONVO_API_KEY, or unset it to use api_key_command or \
                                    api_key from the config (it wins over both)"
                    .to_string(),
                from => format!("fix {from}, or leave it out to use the config's value"),
            },
        ),
        ConfigError::UnsafeKeyCommand { path, .. } => {
            Check::Fail(format!("config: {e}"), format!("chmod go-w {path}"))
        }
        ConfigError::KeyCommand { .. } => Check::Fail(
            format!("config: {e}"),
            "run the command in a shell: it must print only the key".into(),
        ),
        _ => Check::Fail(
            format!("config: {e}"),
            "fix the file at the line named, or start again from config.example.toml / \
             `convo config init --force`"
                .into(),
        ),
    }
}

/// Runs every check; returns them for printing (and for tests).
pub async fn doctor_checks(ov: &Overrides, ui_check: UiCheck) -> Vec<Check> {
    let mut checks = vec![Check::Ok(format!("convo {}", crate::VERSION))];
    let path = convo_config::path_for(ov);
    let cfg = match Config::load(ov) {
        Ok(c) => c,
        Err(e) => {
            checks.push(config_check(&e));
            return checks;
        }
    };
    let problems = ui_check(&cfg.ui);
    if let Some((key, message)) = problems.iter().find(|(k, _)| k.starts_with("columns.")) {
        checks.push(config_check(&cfg.invalid(key.clone(), message.clone())));
        return checks;
    }
    checks.push(Check::Ok(match &cfg.path {
        Some(p) => format!("config {} is valid", p.display()),
        None => format!(
            "no config file ({}); using the environment and flags",
            path.map(|p| p.display().to_string()).unwrap_or_default()
        ),
    }));
    checks.extend(ui_checks(&cfg, problems));
    checks.extend(command_checks(&cfg, std::env::var_os("PATH").as_deref()));
    checks.push(Check::Ok(if cfg.sla.is_empty() {
        "[sla]: no response-time targets (none tracked)".to_string()
    } else {
        let n = cfg.sla.sites.len();
        format!(
            "[sla]: {}{}",
            cfg.sla.base.describe(),
            match n {
                0 => String::new(),
                1 => "; 1 site override".into(),
                n => format!("; {n} site overrides"),
            }
        )
    }));
    checks.push(Check::Ok(format!(
        "API key {} from {}",
        cfg.key.masked(),
        cfg.key.source
    )));
    for w in &cfg.warnings {
        checks.push(Check::Warn(
            w.clone(),
            "restrict the file: chmod 600".into(),
        ));
    }
    match check_base_url(&cfg.base_url, cfg.allow_insecure_http) {
        Ok(u) if u.scheme() == "https" => {
            checks.push(Check::Ok(format!("base URL {u} (https, rustls)")))
        }
        Ok(u) if is_loopback_host(&u) => {
            checks.push(Check::Ok(format!("base URL {u} (plain http to loopback)")))
        }
        Ok(u) => checks.push(Check::Warn(
            format!("base URL {u} is plain http to another host: the key travels in clear text"),
            "use https://, and remove allow_insecure_http".into(),
        )),
        Err(e) => {
            checks.push(Check::Fail(e.to_string(), "fix base_url".into()));
            return checks;
        }
    }
    let client = match client_for(&cfg) {
        Ok(c) => c,
        Err(e) => {
            checks.push(Check::Fail(e.to_string(), fix_for(&e)));
            return checks;
        }
    };
    checks.extend(proxy_checks(&client, cfg.connect_timeout).await);
    let kept = seed_budget(&cfg, &client);
    let mut skew_checked = false;
    for r in Resource::ALL {
        match probes::probe(&client, r).await {
            Ok(p) => {
                checks.push(Check::Ok(format!(
                    "GET {} answered in {} ms ({} row)",
                    r.path(),
                    p.elapsed.as_millis(),
                    p.rows
                )));
                if let (Some(server), false) = (p.server_date, skew_checked) {
                    skew_checked = true;
                    let skew = jiff::Timestamp::now().duration_since(server).as_secs();
                    if skew.abs() > 60 {
                        checks.push(Check::Warn(
                            format!("this machine's clock is {skew} s off the server's"),
                            "sync the clock (relative times like \"3m ago\" depend on it)".into(),
                        ));
                    } else {
                        checks.push(Check::Ok(format!(
                            "clock within {} s of the server's",
                            skew.abs().max(1)
                        )));
                    }
                }
            }
            Err(e) => checks.push(Check::Fail(format!("GET {}: {e}", r.path()), fix_for(&e))),
        }
    }
    if !skew_checked {
        checks.push(Check::Warn(
            "the server sent no Date header: clock skew not checked".into(),
            "none needed".into(),
        ));
    }
    checks.push(compression_check(&client).await);
    checks.push(budget_check(&client, kept));
    checks.push(store_check(&cfg));
    checks.push(encoding_check(&client).await);
    checks
}

/// The budget the store kept from an earlier run, handed to `client`; when it was learned.
/// The store is only read when its file exists (doctor creates nothing).
fn seed_budget(cfg: &Config, client: &Client) -> Option<i64> {
    let path = convo_store::path_for(cfg).ok().filter(|p| p.exists())?;
    let (learned, at) = convo_store::Store::open(&path).ok()?.budget().ok()??;
    client.budget().seed(learned);
    Some(at)
}

/// The request budget the client sees after its probes (docs/design.md "Request budget"), with where it
/// came from.
fn budget_check(client: &Client, kept_at: Option<i64>) -> Check {
    let s = client.budget().snapshot();
    let mut line = format!("request budget: {}", s.line());
    if s.left.is_none()
        && s.limit.is_some()
        && let Some(at) = kept_at
    {
        let ago = jiff::Timestamp::now().as_second().saturating_sub(at).max(0);
        let ago = match ago {
            0..120 => format!("{ago} s"),
            120..7200 => format!("{} min", ago / 60),
            7200..172_800 => format!("{} h", ago / 3600),
            _ => format!("{} days", ago / 86_400),
        };
        line.push_str(&format!(" (kept from a run {ago} ago)"));
    }
    match s.limit.or(s.left) {
        Some(_) => Check::Ok(format!(
            "{line}; background work (the visitor sync, the tab not shown) spends at most half \
             of what is left"
        )),
        None => Check::Ok(format!(
            "{line}; convo learns it from the first 429 (background work then spends at most \
             half of it)"
        )),
    }
}

/// The local store's visitor sync: how far its walk is, the order it learned, and the rows
/// whose visitors it does not know yet. An order it cannot learn is a warning: new visitors
/// are named only by the next full walk.
fn store_check(cfg: &Config) -> Check {
    let path = match convo_store::path_for(cfg) {
        Ok(p) => p,
        Err(e) => return Check::Ok(format!("visitor names: {e}")),
    };
    let store = match convo_store::Store::open(&path) {
        Ok(s) => s,
        Err(e) => {
            return Check::Warn(
                format!("visitor names: {e}"),
                "see `convo store path`; `convo store clear` starts afresh".into(),
            );
        }
    };
    let w = convo_store::SyncWords::of(
        &store.sync_state().unwrap_or_default(),
        store.unknown().unwrap_or_default(),
    );
    let line = format!(
        "visitor names: the visitors list is {}; full walk: {}; {}",
        w.order, w.walk, w.unknown
    );
    if w.full_walks_only {
        Check::Warn(
            line,
            "nothing to fix in convo: the service's visitors list follows no createdAt order; \
             a shorter visitor_rewalk names new visitors sooner, at the cost of more requests"
                .into(),
        )
    } else {
        Check::Ok(line)
    }
}

/// Whether the service compresses its answers, and how much a page of 100 conversations
/// shrinks (on a link of a few Mbit/s, most of a page's time is its bytes).
async fn compression_check(client: &Client) -> Check {
    let kb = |n: usize| format!("{:.1} KB", n as f64 / 1000.0);
    match probes::compression(client).await {
        Ok(c) => match &c.encoding {
            Some(enc) => Check::Ok(format!(
                "the service compresses ({enc}): a page of 100 conversations is {} on the wire, \
                 {} plain ({:.0}% smaller)",
                kb(c.wire_bytes),
                kb(c.plain_bytes),
                100.0 * (1.0 - c.wire_bytes as f64 / c.plain_bytes.max(1) as f64)
            )),
            None => Check::Warn(
                format!(
                    "the service does not compress its answers: a page of 100 conversations is \
                     {} on the wire (convo asks for gzip and brotli)",
                    kb(c.wire_bytes)
                ),
                "nothing to do in convo; on a slow link, pages take longer (ask the service \
                 to enable compression)"
                    .into(),
            ),
        },
        Err(e) => Check::Warn(
            format!("compression not checked: {e}"),
            "none needed".into(),
        ),
    }
}

/// Which way convo asks this service for its pages (compressed or plain) and why: the times
/// of a page of 100 conversations both ways, as the client measured them.
async fn encoding_check(client: &Client) -> Check {
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1e3);
    match probes::settle_encoding(client).await {
        Ok(Some(c)) => {
            let (won, lost) = match c.ask {
                Ask::Plain => (c.plain, c.compressed),
                Ask::Compressed => (c.compressed, c.plain),
            };
            Check::Ok(format!(
                "convo asks this service for {} answers: a page of 100 conversations took {} \
                 {} against {} {} (it looks again every {} s)",
                c.ask.describe(),
                ms(won),
                c.ask.describe(),
                ms(lost),
                match c.ask {
                    Ask::Plain => "compressed",
                    Ask::Compressed => "plain",
                },
                encoding::RECHECK.as_secs()
            ))
        }
        Ok(None) => Check::Warn(
            "convo has not chosen between compressed and plain answers yet (the pages' times \
             did not settle it)"
                .into(),
            "none needed: it keeps trying both".into(),
        ),
        Err(e) => Check::Warn(
            format!("compressed or plain answers not chosen: {e}"),
            "none needed".into(),
        ),
    }
}

/// Which proxy is used and why, and (with one) whether it opens a tunnel to the service: a
/// CONNECT of our own, so a failure says "the proxy" and not "the service".
async fn proxy_checks(client: &Client, timeout: Duration) -> Vec<Check> {
    let route = client.route();
    let mut checks = vec![Check::Ok(format!("requests go {}", route.describe()))];
    let Some(proxy) = route.proxy() else {
        return checks;
    };
    let base = client.base_url();
    let target = format!(
        "{}:{}",
        base.host_str().unwrap_or_default(),
        base.port_or_known_default().unwrap_or(443)
    );
    match convo_api::proxy::connect_probe(proxy, &target, timeout).await {
        Ok(status) => checks.push(Check::Ok(format!(
            "proxy {proxy} opened a tunnel to {target} (CONNECT answered {status})"
        ))),
        Err(e) => checks.push(Check::Fail(
            format!("proxy {proxy}: CONNECT to {target}: {e}"),
            "check the proxy URL (--proxy, proxy in the config, or the variable named above), \
             its credentials, and that it allows {target}; NO_PROXY or proxy = \"none\" go direct"
                .replace("{target}", &target),
        )),
    }
    checks
}

/// The client for a config (the one place its settings are mapped).
pub fn client_for(cfg: &Config) -> Result<Client, ApiError> {
    let mut s = ClientSettings::new(cfg.base_url.clone(), cfg.key.clone());
    s.auth_header = cfg.auth_header.clone();
    s.auth_scheme = cfg.auth_scheme.clone();
    s.connect_timeout = cfg.connect_timeout;
    s.request_timeout = cfg.request_timeout;
    s.max_parallel = cfg.max_parallel;
    s.allow_insecure_http = cfg.allow_insecure_http;
    s.proxy = cfg.proxy.clone();
    s.ca_file = cfg.ca_file.clone();
    Client::new(s)
}

/// `convo doctor`: prints each check; exit code 0 when none failed, 1 otherwise.
pub async fn doctor(ov: &Overrides, ui_check: UiCheck, out: &mut dyn Write) -> u8 {
    let checks = doctor_checks(ov, ui_check).await;
    for c in &checks {
        let _ = writeln!(out, "{}", c.line());
    }
    let failed = checks
        .iter()
        .filter(|c| matches!(c, Check::Fail(..)))
        .count();
    let _ = writeln!(
        out,
        "\n{}",
        if failed == 0 {
            "all checks passed".to_string()
        } else {
            format!("{failed} check(s) failed")
        }
    );
    u8::from(failed > 0)
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Writes the file with mode 0600 from the start (never readable by others, even briefly).
fn write_private(path: &Path, text: &str, force: bool) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut o = std::fs::OpenOptions::new();
    o.write(true);
    if force {
        o.create(true).truncate(true);
    } else {
        o.create_new(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let mut f = o.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    f.write_all(text.as_bytes())
}

/// How many keys `config init` asks for before it gives up.
const KEY_TRIES: usize = 3;

/// Reads one line of standard input; `None` at its end.
fn read_line(stdin: &io::Stdin) -> Result<Option<String>, String> {
    let mut line = String::new();
    match stdin.lock().read_line(&mut line) {
        Ok(0) => Ok(None),
        Ok(_) => Ok(Some(line)),
        Err(e) => Err(e.to_string()),
    }
}

/// Asks for the key: hidden at a terminal, a line of standard input otherwise. `None` when
/// standard input has ended.
fn ask_key(stdin: &io::Stdin, err: &mut dyn Write) -> Result<Option<(String, KeySource)>, String> {
    if stdin.is_terminal() {
        return rpassword::prompt_password("API key (sk_…, not shown): ")
            .map(|k| Some((k, KeySource::Prompt)))
            .map_err(|e| e.to_string());
    }
    let _ = write!(err, "API key (sk_…): ");
    let _ = err.flush();
    let line = read_line(stdin)?;
    if line.is_some() {
        // The answer is not echoed: end the prompt's line.
        let _ = writeln!(err);
    }
    Ok(line.map(|k| (k, KeySource::Stdin)))
}

/// Why a key was refused, in `init`'s words: there is no config yet, so the usual advice to
/// set `key_prefix` would mislead.
fn refusal_text(e: &ApiError) -> String {
    match e {
        ApiError::Key(KeyError::WrongPrefix { origin, prefix }) => format!(
            "the API key from {origin} does not start with {prefix:?}: that is not a secret key \
             (a publishable one, perhaps); convo never sends it"
        ),
        e => e.to_string(),
    }
}

/// Whether another key could mend this failure (the key was refused, not the URL or network).
fn key_was_refused(e: &ApiError) -> bool {
    matches!(e, ApiError::Unauthorized { .. } | ApiError::Key(_))
}

/// `convo config init`: asks for the base URL (unless given), then for the key (unless
/// `CONVO_API_KEY` holds one), checks them with one request and writes the file. A key the
/// service refuses is asked for again, up to three tries, keeping the URL.
pub async fn init(ov: &Overrides, force: bool, err: &mut dyn Write) -> Result<PathBuf, String> {
    let path = convo_config::path_for(ov)
        .ok_or("no config directory on this platform; use --config PATH")?;
    if path.exists() && !force {
        return Err(format!(
            "{} exists already; edit it, or run `convo config init --force` to replace it",
            path.display()
        ));
    }
    let stdin = io::stdin();
    let base_url = match ov.base_url.clone() {
        Some(u) => u,
        None => {
            let _ = write!(
                err,
                "Base URL of the service (e.g. https://api.chat.example.com): "
            );
            let _ = err.flush();
            read_line(&stdin)?
                .ok_or("no base URL given (standard input ended)")?
                .trim()
                .to_string()
        }
    };
    check_base_url(&base_url, false).map_err(|e| e.to_string())?;
    let from_env = std::env::var("CONVO_API_KEY")
        .ok()
        .filter(|k| !k.is_empty());
    let mut tries = 0;
    let key = loop {
        tries += 1;
        let (secret, source) = match &from_env {
            Some(k) => (k.clone(), KeySource::Env),
            None => match ask_key(&stdin, err)? {
                Some(k) => k,
                None => {
                    return Err(
                        "no API key given (standard input ended); nothing was written".into(),
                    );
                }
            },
        };
        let checked = match ApiKey::new(&secret, source, "sk_") {
            Ok(key) => {
                let mut settings = ClientSettings::new(base_url.clone(), key.clone());
                settings.request_timeout = Duration::from_secs(15);
                let client = Client::new(settings).map_err(|e| e.to_string())?;
                let _ = writeln!(err, "Checking with one request…");
                probes::probe(&client, Resource::Conversations)
                    .await
                    .map(|_| key)
            }
            Err(e) => Err(ApiError::Key(e)),
        };
        match checked {
            Ok(key) => break key,
            // A key from the environment is the same key next time: no point asking again.
            Err(e) if key_was_refused(&e) && from_env.is_none() && tries < KEY_TRIES => {
                let _ = writeln!(
                    err,
                    "{}\nTry again ({} of {KEY_TRIES}; the base URL is kept):",
                    refusal_text(&e),
                    tries + 1
                );
            }
            Err(e) => {
                return Err(format!(
                    "the check failed, nothing was written: {}",
                    refusal_text(&e)
                ));
            }
        }
    };
    let text = format!(
        "# Written by `convo config init`. Every key is documented in config.example.toml.\n\
         base_url = {}\n\
         api_key = {}\n\
         page_size = 50\n",
        toml_string(&base_url),
        toml_string(key.expose())
    );
    write_private(&path, &text, force)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}
