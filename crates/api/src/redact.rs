//! Taking the key's value out of server text. A careless service may echo the credentials it
//! received in an error body ("invalid key: Bearer sk_live_…"); convo shows server text on the
//! screen, on stderr and in messages, so the client runs every server text through
//! [`Redactor`] before it leaves the client (docs/design.md "Authentication": the key is never displayed).

use std::borrow::Cow;

use super::error::ApiError;
use super::model::BadRow;

/// What stands where the key was.
pub const REDACTED: &str = "[redacted API key]";

/// Removes one secret from text and bytes: as it is, and as it reads inside a JSON string.
#[derive(Clone)]
pub struct Redactor {
    forms: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Redactor(..)")
    }
}

impl Redactor {
    /// For `secret` (an empty secret redacts nothing).
    pub fn new(secret: &str) -> Redactor {
        let mut forms = Vec::new();
        if !secret.is_empty() {
            forms.push(secret.to_string());
            // Inside a JSON string `"` and `\` are escaped (and `/` may be).
            let json = serde_json::to_string(secret).unwrap_or_default();
            let json = json.trim_matches('"').to_string();
            let slash = json.replace('/', "\\/");
            for f in [json, slash] {
                if !forms.contains(&f) {
                    forms.push(f);
                }
            }
        }
        Redactor { forms }
    }

    /// `s` with every occurrence of the secret replaced by [`REDACTED`].
    pub fn text<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(s);
        for f in &self.forms {
            if out.contains(f.as_str()) {
                out = Cow::Owned(out.replace(f.as_str(), REDACTED));
            }
        }
        out
    }

    /// Raw bytes (an error body, before it is parsed or cut) with the secret replaced.
    pub fn bytes(&self, b: Vec<u8>) -> Vec<u8> {
        let mut b = b;
        for f in &self.forms {
            let f = f.as_bytes();
            if b.windows(f.len()).any(|w| w == f) {
                let mut out = Vec::with_capacity(b.len());
                let mut i = 0;
                while i < b.len() {
                    if b[i..].starts_with(f) {
                        out.extend_from_slice(REDACTED.as_bytes());
                        i += f.len();
                    } else {
                        out.push(b[i]);
                        i += 1;
                    }
                }
                b = out;
            }
        }
        b
    }

    fn own(&self, s: &mut String) {
        if let Cow::Owned(r) = self.text(s) {
            *s = r;
        }
    }

    /// Every text field of an error.
    pub fn error(&self, mut e: ApiError) -> ApiError {
        match &mut e {
            ApiError::BadBaseUrl { url, reason } => {
                self.own(url);
                self.own(reason);
            }
            ApiError::InsecureTransport { host } => self.own(host),
            ApiError::Unauthorized { detail, .. }
            | ApiError::Http { detail, .. }
            | ApiError::RateLimited { detail, .. }
            | ApiError::Server { detail, .. }
            | ApiError::Network { detail, .. }
            | ApiError::Decode { detail } => self.own(detail),
            ApiError::BadRequest { param, detail, .. } => {
                if let Some(p) = param {
                    self.own(p);
                }
                self.own(detail);
            }
            ApiError::Connect { host, detail, .. } => {
                self.own(host);
                self.own(detail);
            }
            ApiError::Redirect { to } => self.own(to),
            ApiError::Certificate { host, cause, .. } => {
                self.own(host);
                self.own(cause);
            }
            ApiError::Proxy {
                proxy,
                what,
                detail,
                ..
            } => {
                self.own(proxy);
                self.own(what);
                self.own(detail);
            }
            ApiError::ProxyAuth { proxy, .. } => self.own(proxy),
            ApiError::Setup(m) => self.own(m),
            // Our own words only.
            ApiError::Key(_) | ApiError::Filter(_) | ApiError::Timeout { .. } => {}
        }
        e
    }

    /// A row that could not be read: its id and the decoder's reason quote server text.
    pub fn bad_row(&self, b: &mut BadRow) {
        if let Some(id) = &mut b.id {
            self.own(id);
        }
        self.own(&mut b.reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_the_key_goes() {
        let r = Redactor::new("sk_live_a\"b\\c/d");
        let s = r#"key sk_live_a"b\c/d and "sk_live_a\"b\\c/d" and sk_live_a\"b\\c\/d!"#;
        let out = r.text(s);
        assert!(!out.contains("sk_live_a"), "{out}");
        assert_eq!(out.matches(REDACTED).count(), 3, "{out}");
        let b = r.bytes(s.as_bytes().to_vec());
        assert_eq!(String::from_utf8(b).unwrap(), out);
        assert!(matches!(r.text("nothing here"), Cow::Borrowed(_)));
        assert_eq!(Redactor::new("").text("x"), "x");
    }

    #[test]
    fn errors_and_bad_rows() {
        let r = Redactor::new("sk_test_secret1234");
        let e = r.error(ApiError::Server {
            status: 500,
            detail: ": bad key sk_test_secret1234".into(),
            attempts: 4,
        });
        assert!(!e.to_string().contains("secret1234"), "{e}");
        let mut b = BadRow {
            index: 0,
            id: Some("sk_test_secret1234".into()),
            reason: "invalid type: string \"sk_test_secret1234\"".into(),
        };
        r.bad_row(&mut b);
        assert!(!format!("{b:?}").contains("secret1234"));
    }
}
