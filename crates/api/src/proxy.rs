//! Which proxy a request goes through, and why, decided as curl decides it.
//!
//! - The setting: `--proxy` > the profile's `proxy` > the file's `proxy` > the environment.
//!   `proxy = "none"` (or `--proxy none`) ignores the environment.
//! - The environment, as curl reads it: for an `https://` service `https_proxy`, then
//!   `HTTPS_PROXY`, then `all_proxy`, `ALL_PROXY`; for `http://` `http_proxy`, `HTTP_PROXY`, then
//!   the `all_proxy` pair. `no_proxy` / `NO_PROXY` lists hosts that go direct: `*`, host names
//!   and domains (`example.com` and `.example.com` both match the domain and its subdomains),
//!   IP addresses and CIDR ranges (`10.0.0.0/8`). Empty values count as unset.
//! - Plain `http://` is never proxied (convo's rule, stricter than curl's): without a tunnel the
//!   proxy would read the key. That also keeps `--demo` and the loopback tests direct whatever
//!   the developer's proxy variables say.
//! - An `https://` service goes through an HTTP CONNECT tunnel: the CONNECT request carries the
//!   host and port (and `Proxy-Authorization` when the proxy URL holds credentials), never the
//!   key, which travels only inside TLS.
//!
//! A proxy URL is shown only through [`ProxyUrl`]'s `Display`/`Debug`, which hide credentials.

use std::fmt;
use std::net::IpAddr;

use reqwest::Url;

/// What the configuration says about proxies.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum ProxySetting {
    /// Nothing set: the environment decides.
    #[default]
    Environment,
    /// `"none"`: always direct, whatever the environment says.
    Off { from: String },
    /// An explicit proxy.
    On { url: ProxyUrl, from: String },
}

impl fmt::Debug for ProxySetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxySetting::Environment => f.write_str("Environment"),
            ProxySetting::Off { from } => write!(f, "Off(from {from})"),
            ProxySetting::On { url, from } => write!(f, "On({url} from {from})"),
        }
    }
}

impl ProxySetting {
    /// Reads a `proxy` value (`"none"` or a URL); `from` says where it was written
    /// (e.g. `--proxy`, `profile work in ~/.config/convo/config.toml`).
    pub fn parse(value: &str, from: impl Into<String>) -> Result<ProxySetting, String> {
        let v = value.trim();
        let from = from.into();
        if v.eq_ignore_ascii_case("none") {
            return Ok(ProxySetting::Off { from });
        }
        Ok(ProxySetting::On {
            url: ProxyUrl::parse(v)?,
            from,
        })
    }
}

/// A proxy's URL. Its credentials (user and password) are used in `Proxy-Authorization` but
/// never shown: `Display` and `Debug` print `http://***@host:port`.
#[derive(Clone, PartialEq, Eq)]
pub struct ProxyUrl(Url);

impl ProxyUrl {
    /// `http://` or `https://`, a host, no path; a value without a scheme is taken as `http://`
    /// (as curl does). The message never repeats the value (it may hold a password).
    pub fn parse(raw: &str) -> Result<ProxyUrl, String> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err("the proxy URL is empty (write \"none\" to go direct)".into());
        }
        let with_scheme = if raw.contains("://") {
            raw.to_string()
        } else {
            format!("http://{raw}")
        };
        let url = Url::parse(&with_scheme)
            .map_err(|e| format!("the proxy is not a URL ({e}); write http://host:port"))?;
        match url.scheme() {
            "http" | "https" => {}
            s if s.starts_with("socks") => {
                return Err(format!(
                    "{s}:// proxies are not supported; use an HTTP proxy (http://host:port)"
                ));
            }
            s => return Err(format!("proxy scheme {s}:// is not http:// or https://")),
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("the proxy URL has no host".into());
        }
        if !(url.path().is_empty() || url.path() == "/") || url.query().is_some() {
            return Err("the proxy URL must be only scheme://[user:password@]host:port".into());
        }
        let mut url = url;
        if url.scheme() == "http" && !has_explicit_port(&with_scheme) {
            // As curl: an HTTP proxy without a port is on 1080 (`Url` would say 80).
            url.set_port(Some(DEFAULT_PROXY_PORT))
                .map_err(|()| "the proxy URL cannot take a port".to_string())?;
        }
        Ok(ProxyUrl(url))
    }

    /// The URL with its credentials, for the HTTP client only.
    pub(crate) fn expose(&self) -> &Url {
        &self.0
    }

    /// Whether the URL holds a user name or password.
    pub fn has_credentials(&self) -> bool {
        !self.0.username().is_empty() || self.0.password().is_some()
    }

    /// `host:port` of the proxy.
    pub fn host_port(&self) -> String {
        let host = self.0.host_str().unwrap_or_default();
        match self.0.port_or_known_default() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        }
    }
}

/// curl's port for an `http://` proxy written without one (an `https://` proxy: 443).
pub const DEFAULT_PROXY_PORT: u16 = 1080;

/// Whether `scheme://[userinfo@]host[:port]…` names a port, `:80` included (which `Url` forgets,
/// being the scheme's default).
fn has_explicit_port(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |x| x.1);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |x| x.1);
    match host_port.strip_prefix('[') {
        Some(v6) => v6.split_once(']').is_some_and(|x| x.1.starts_with(':')),
        None => host_port.contains(':'),
    }
}

impl fmt::Display for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let creds = if self.has_credentials() { "***@" } else { "" };
        write!(f, "{}://{creds}{}", self.0.scheme(), self.host_port())
    }
}

impl fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProxyUrl({self})")
    }
}

/// Where the requests to one service go, and why (for `convo doctor` and errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Direct { why: String },
    Proxy { url: ProxyUrl, why: String },
}

impl Route {
    /// The proxy, if any.
    pub fn proxy(&self) -> Option<&ProxyUrl> {
        match self {
            Route::Proxy { url, .. } => Some(url),
            Route::Direct { .. } => None,
        }
    }

    /// One line: `through proxy http://***@host:3128 (from HTTPS_PROXY)` or `direct (…)`.
    pub fn describe(&self) -> String {
        match self {
            Route::Direct { why } => format!("direct ({why})"),
            Route::Proxy { url, why } => format!("through proxy {url} ({why})"),
        }
    }
}

/// The first non-empty variable of `names`, with its name.
fn first_set(
    env: &dyn Fn(&str) -> Option<String>,
    names: &[&'static str],
) -> Option<(&'static str, String)> {
    names.iter().find_map(|&n| {
        env(n)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .map(|v| (n, v))
    })
}

/// Decides the route for `target` (the checked base URL). `env` looks up environment
/// variables. Errors are unusable proxy URLs, naming where they came from.
pub fn route(
    target: &Url,
    setting: &ProxySetting,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Route, String> {
    if target.scheme() != "https" {
        let why = match setting {
            ProxySetting::Off { from } => format!("proxy = \"none\" in {from}"),
            _ => "plain http:// is never sent through a proxy: it would read the API key".into(),
        };
        return Ok(Route::Direct { why });
    }
    match setting {
        ProxySetting::Off { from } => Ok(Route::Direct {
            why: format!("proxy = \"none\" in {from}"),
        }),
        ProxySetting::On { url, from } => Ok(Route::Proxy {
            url: url.clone(),
            why: format!("from {from}"),
        }),
        ProxySetting::Environment => {
            let names: &[&'static str] = &["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"];
            let Some((var, value)) = first_set(env, names) else {
                return Ok(Route::Direct {
                    why: "no proxy set: no https_proxy, HTTPS_PROXY, all_proxy or ALL_PROXY".into(),
                });
            };
            let host = target.host_str().unwrap_or_default();
            if let Some((nvar, list)) = first_set(env, &["no_proxy", "NO_PROXY"])
                && let Some(entry) = no_proxy_match(&list, host)
            {
                return Ok(Route::Direct {
                    why: format!("{host} matches {entry:?} in {nvar}; {var} not used"),
                });
            }
            let url = ProxyUrl::parse(&value).map_err(|e| format!("{var}: {e}"))?;
            Ok(Route::Proxy {
                url,
                why: format!("from {var}"),
            })
        }
    }
}

/// The `no_proxy` entry that sends `host` direct, if any (curl's rules; see the module doc).
pub fn no_proxy_match(list: &str, host: &str) -> Option<String> {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let host_ip: Option<IpAddr> = host.parse().ok();
    list.split([',', ' '])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .find(|entry| {
            if *entry == "*" {
                return true;
            }
            let e = entry.to_ascii_lowercase();
            if let Some((net, bits)) = e.split_once('/') {
                return match (
                    host_ip,
                    net.trim_matches(['[', ']']).parse::<IpAddr>(),
                    bits.parse::<u8>(),
                ) {
                    (Some(h), Ok(n), Ok(b)) => in_cidr(h, n, b),
                    _ => false,
                };
            }
            let e = e.trim_start_matches('[');
            // An entry may carry a port (`host:8080`, `[::1]:443`); curl ignores it.
            let e = match e.split_once(']') {
                Some((ip, _)) => ip.to_string(),
                None if e.matches(':').count() == 1 => {
                    e.split(':').next().unwrap_or("").to_string()
                }
                None => e.to_string(),
            };
            if let (Some(h), Ok(ip)) = (host_ip, e.parse::<IpAddr>()) {
                return h == ip;
            }
            let domain = e.trim_start_matches('.').trim_end_matches('.');
            !domain.is_empty()
                && (host == domain
                    || host
                        .strip_suffix(domain)
                        .is_some_and(|rest| rest.ends_with('.')))
        })
        .map(str::to_string)
}

fn in_cidr(host: IpAddr, net: IpAddr, bits: u8) -> bool {
    match (host, net) {
        (IpAddr::V4(h), IpAddr::V4(n)) if bits <= 32 => {
            let mask = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - bits)
            };
            u32::from(h) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(h), IpAddr::V6(n)) if bits <= 128 => {
            let mask = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - bits)
            };
            u128::from(h) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// Asks the proxy for a tunnel to `target` (`host:port`), as the client would (with
/// `Proxy-Authorization` when the URL holds credentials), and reads its answer; the tunnel is
/// then closed unused. `Ok(status line)` on 2xx. Only `http://` proxies are probed this way.
pub async fn connect_probe(
    proxy: &ProxyUrl,
    target: &str,
    timeout: std::time::Duration,
) -> Result<String, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    if proxy.0.scheme() != "http" {
        return Err("only http:// proxies are probed; the requests below test it".into());
    }
    let work = async {
        let mut tcp = tokio::net::TcpStream::connect(proxy.host_port())
            .await
            .map_err(|e| format!("cannot connect to the proxy: {e}"))?;
        let mut req = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
        if proxy.has_credentials() {
            use base64::Engine;
            let user = percent_decode(proxy.0.username());
            let pass = percent_decode(proxy.0.password().unwrap_or(""));
            let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
            req.push_str(&format!("Proxy-Authorization: Basic {token}\r\n"));
        }
        req.push_str("\r\n");
        tcp.write_all(req.as_bytes())
            .await
            .map_err(|e| format!("cannot talk to the proxy: {e}"))?;
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
            let n = tcp
                .read(&mut buf)
                .await
                .map_err(|e| format!("the proxy closed the connection: {e}"))?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        let line = String::from_utf8_lossy(&head)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let status = convo_text::one_line(line.split_once(' ').map_or("", |x| x.1), 80);
        match line.split(' ').nth(1).and_then(|c| c.parse::<u16>().ok()) {
            Some(c) if (200..300).contains(&c) => Ok(status),
            Some(407) => Err(format!(
                "the proxy wants credentials ({status}){}",
                if proxy.has_credentials() {
                    "; the ones in the proxy URL were refused"
                } else {
                    "; put them in the proxy URL: http://user:password@host:port"
                }
            )),
            Some(_) => Err(format!("the proxy refused the tunnel ({status})")),
            None => Err("the proxy did not answer in HTTP".into()),
        }
    };
    tokio::time::timeout(timeout, work)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} s", timeout.as_secs())))
}

/// `%XX` escapes of a URL's user or password decoded (`+` stays `+`, unlike a form).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    fn https(host: &str) -> Url {
        Url::parse(&format!("https://{host}/")).unwrap()
    }

    #[test]
    fn no_proxy_entries_as_curl_reads_them() {
        let list = "localhost, .corp.example, example.org,10.0.0.0/8, 192.168.1.5,[::1],host:8080";
        for (host, hit) in [
            ("localhost", Some("localhost")),
            ("LOCALHOST", Some("localhost")),
            ("corp.example", Some(".corp.example")),
            ("api.corp.example", Some(".corp.example")),
            ("example.org", Some("example.org")),
            ("a.b.example.org", Some("example.org")),
            ("notexample.org", None),
            ("10.20.30.40", Some("10.0.0.0/8")),
            ("11.0.0.1", None),
            ("192.168.1.5", Some("192.168.1.5")),
            ("192.168.1.6", None),
            ("[::1]", Some("[::1]")),
            ("host", Some("host:8080")),
            ("api.example.com", None),
        ] {
            assert_eq!(no_proxy_match(list, host).as_deref(), hit, "{host}");
        }
        assert_eq!(
            no_proxy_match("*", "anything.example").as_deref(),
            Some("*")
        );
        assert_eq!(no_proxy_match("", "anything.example"), None);
    }

    #[test]
    fn environment_order_and_no_proxy() {
        let t = https("api.example.com");
        let r = route(
            &t,
            &ProxySetting::Environment,
            &env_of(&[
                ("HTTPS_PROXY", "http://upper:1"),
                ("https_proxy", "http://lower:2"),
                ("ALL_PROXY", "http://all:3"),
            ]),
        )
        .unwrap();
        assert_eq!(
            r.describe(),
            "through proxy http://lower:2 (from https_proxy)"
        );
        let r = route(
            &t,
            &ProxySetting::Environment,
            &env_of(&[("ALL_PROXY", "all:3")]),
        )
        .unwrap();
        assert_eq!(r.describe(), "through proxy http://all:3 (from ALL_PROXY)");
        let r = route(
            &t,
            &ProxySetting::Environment,
            &env_of(&[("https_proxy", "http://p:1"), ("NO_PROXY", ".example.com")]),
        )
        .unwrap();
        assert!(r.proxy().is_none(), "{r:?}");
        assert!(r.describe().contains("NO_PROXY"), "{r:?}");
        // http_proxy is not for https services.
        let r = route(
            &t,
            &ProxySetting::Environment,
            &env_of(&[("http_proxy", "http://p:1")]),
        )
        .unwrap();
        assert!(r.proxy().is_none());
    }

    #[test]
    fn explicit_settings_win_and_plain_http_is_never_proxied() {
        let t = https("api.example.com");
        let env = env_of(&[("https_proxy", "http://envproxy:1")]);
        let off = ProxySetting::parse("none", "--proxy").unwrap();
        assert!(route(&t, &off, &env).unwrap().proxy().is_none());
        let on = ProxySetting::parse("http://u:secret@cfg:3128", "config x").unwrap();
        let r = route(&t, &on, &env).unwrap();
        assert_eq!(
            r.describe(),
            "through proxy http://***@cfg:3128 (from config x)"
        );
        let plain = Url::parse("http://127.0.0.1:8787").unwrap();
        assert!(route(&plain, &on, &env).unwrap().proxy().is_none());
        assert!(
            route(
                &plain,
                &ProxySetting::Environment,
                &env_of(&[("http_proxy", "http://p:1")])
            )
            .unwrap()
            .proxy()
            .is_none()
        );
    }

    #[test]
    fn proxy_urls_hide_credentials_and_refuse_the_unusable() {
        let p = ProxyUrl::parse("http://alice:s3cret@proxy.corp:3128").unwrap();
        for shown in [p.to_string(), format!("{p:?}")] {
            assert!(
                !shown.contains("s3cret") && !shown.contains("alice"),
                "{shown}"
            );
        }
        assert!(p.has_credentials());
        assert_eq!(
            ProxyUrl::parse("proxy:8080").unwrap().to_string(),
            "http://proxy:8080"
        );
        // As curl: no port means 1080 for an HTTP proxy, 443 for an HTTPS one; a port
        // written out is kept, 80 included.
        for (raw, shown) in [
            ("proxy.corp", "http://proxy.corp:1080"),
            ("http://proxy.corp", "http://proxy.corp:1080"),
            ("http://proxy.corp/", "http://proxy.corp:1080"),
            ("http://u:p@proxy.corp", "http://***@proxy.corp:1080"),
            ("http://proxy.corp:80", "http://proxy.corp:80"),
            ("http://[::1]", "http://[::1]:1080"),
            ("http://[::1]:80", "http://[::1]:80"),
            ("https://proxy.corp", "https://proxy.corp:443"),
        ] {
            assert_eq!(ProxyUrl::parse(raw).unwrap().to_string(), shown, "{raw}");
        }
        assert!(
            ProxyUrl::parse("socks5://p:1080")
                .unwrap_err()
                .contains("not supported")
        );
        let e = ProxyUrl::parse("http://u:pw@p:1/path").unwrap_err();
        assert!(!e.contains("pw"), "{e}");
        assert!(ProxyUrl::parse("").is_err());
        assert_eq!(percent_decode("a%40b+c%zz"), "a@b+c%zz");
    }
}
