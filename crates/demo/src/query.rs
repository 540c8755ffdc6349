//! Strict query parsing and the error shape `{"error": {code, message, param?}}`.

use std::collections::HashMap;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use uuid::Uuid;

/// An error in the documented shape `{"error": {code, message, param?}}`.
#[derive(Debug)]
pub(crate) struct ApiErr {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub param: Option<String>,
}

impl ApiErr {
    /// 400 `invalid_parameter`, naming the parameter.
    pub(crate) fn bad(param: &str, message: impl Into<String>) -> ApiErr {
        ApiErr {
            status: StatusCode::BAD_REQUEST,
            code: "invalid_parameter",
            message: message.into(),
            param: Some(shorten(param)),
        }
    }

    /// 400 `invalid_cursor`.
    pub(crate) fn invalid_cursor(message: impl Into<String>) -> ApiErr {
        ApiErr {
            code: "invalid_cursor",
            ..ApiErr::bad("cursor", message)
        }
    }

    pub(crate) fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<String>,
    ) -> ApiErr {
        ApiErr {
            status,
            code,
            message: message.into(),
            param: None,
        }
    }
}

impl IntoResponse for ApiErr {
    fn into_response(self) -> Response {
        #[derive(Serialize)]
        struct Inner<'a> {
            code: &'a str,
            message: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            param: Option<&'a str>,
        }
        #[derive(Serialize)]
        struct Outer<'a> {
            error: Inner<'a>,
        }
        let body = serde_json::to_vec(&Outer {
            error: Inner {
                code: self.code,
                message: &self.message,
                param: self.param.as_deref(),
            },
        })
        .unwrap_or_else(|_| br#"{"error":{"code":"internal","message":"error"}}"#.to_vec());
        (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    }
}

/// Client text echoed in an error: at most 80 characters.
fn shorten(s: &str) -> String {
    if s.chars().count() <= 80 {
        s.to_string()
    } else {
        s.chars().take(79).chain(['…']).collect()
    }
}

/// Query parameters, checked: only `allowed` names, none repeated, none empty.
pub(crate) fn parse_query(
    raw: Option<&str>,
    allowed: &[&str],
) -> Result<HashMap<String, String>, ApiErr> {
    let mut out = HashMap::new();
    for (k, v) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        if !allowed.contains(&k.as_ref()) {
            return Err(ApiErr::bad(
                &k,
                format!(
                    "unknown parameter {:?}; this endpoint takes {}",
                    shorten(&k),
                    allowed.join(", ")
                ),
            ));
        }
        if v.is_empty() {
            return Err(ApiErr::bad(&k, format!("{k} must not be empty")));
        }
        if out.insert(k.to_string(), v.to_string()).is_some() {
            return Err(ApiErr::bad(&k, format!("{k} is given more than once")));
        }
    }
    Ok(out)
}

/// A UUID parameter, in the hyphenated form only.
pub(crate) fn uuid_param(q: &HashMap<String, String>, name: &str) -> Result<Option<Uuid>, ApiErr> {
    q.get(name)
        .map(|v| {
            let bad = || ApiErr::bad(name, format!("{name} must be a UUID, got {:?}", shorten(v)));
            if v.len() != 36 {
                return Err(bad());
            }
            Uuid::parse_str(v).map_err(|_| bad())
        })
        .transpose()
}

/// `limit`: decimal digits only, 1 to 100; 20 when absent.
pub(crate) fn limit_param(q: &HashMap<String, String>) -> Result<usize, ApiErr> {
    let Some(v) = q.get("limit") else {
        return Ok(20);
    };
    let n = if v.len() <= 3 && v.bytes().all(|b| b.is_ascii_digit()) {
        v.parse::<usize>().ok()
    } else {
        None
    };
    match n {
        Some(n @ 1..=100) => Ok(n),
        _ => Err(ApiErr::bad(
            "limit",
            format!(
                "limit must be an integer from 1 to 100, got {:?}",
                shorten(v)
            ),
        )),
    }
}

/// An optional enumerated value.
pub(crate) fn enum_param<'a>(
    q: &'a HashMap<String, String>,
    name: &str,
    allowed: &[&str],
) -> Result<Option<&'a str>, ApiErr> {
    match q.get(name).map(String::as_str) {
        None => Ok(None),
        Some(v) if allowed.contains(&v) => Ok(Some(v)),
        Some(v) => Err(ApiErr::bad(
            name,
            format!(
                "{name} must be one of {}, got {:?}",
                allowed.join(", "),
                shorten(v)
            ),
        )),
    }
}

/// A JSON answer with status 200.
pub(crate) fn json_response(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_rules() {
        let ok = parse_query(Some("limit=5&cursor=x"), &["limit", "cursor"]).unwrap();
        assert_eq!(limit_param(&ok).unwrap(), 5);
        for (raw, param) in [
            ("nope=1", "nope"),
            ("limit=", "limit"),
            ("limit", "limit"),
            ("limit=1&limit=2", "limit"),
        ] {
            let e = parse_query(Some(raw), &["limit", "cursor"]).unwrap_err();
            assert_eq!(e.param.as_deref(), Some(param), "{raw}");
        }
        for bad in ["0", "101", "abc", "+5", "-1", "1.0", " 5", "0x10", "1000"] {
            let q = HashMap::from([("limit".to_string(), bad.to_string())]);
            assert!(limit_param(&q).is_err(), "{bad}");
        }
        let q = HashMap::from([("limit".to_string(), "100".to_string())]);
        assert_eq!(limit_param(&q).unwrap(), 100);
        let q = HashMap::from([(
            "site_id".to_string(),
            "a1a2a3a4b1b2c1c2d1d2d3d4d5d6d7d8".to_string(),
        )]);
        assert!(uuid_param(&q, "site_id").is_err(), "simple form refused");
    }
}
