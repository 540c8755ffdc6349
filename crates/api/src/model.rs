//! Typed rows of the two lists, and the page envelope.
//!
//! Parsing is tolerant where docs/design.md "Data" asks for it: unknown statuses are kept verbatim,
//! a bad timestamp is kept raw, visitor fields may be null or missing, unknown fields are
//! ignored, and a row that cannot be parsed at all is reported (not silently lost) while the
//! good rows of the same page are kept.

use std::fmt;

use serde::de::Deserializer;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::wire::envelope::{id_of_bytes, repair_lone_surrogates, row_id_of, split_rows};
use crate::wire::scan::Scan;
use crate::wire::time::{format_utc_seconds, parse_utc_seconds};

/// A conversation's status. Unknown values are kept verbatim (forward compatible).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    Open,
    Pending,
    Closed,
    /// A value this version of convo does not know; shown as the server sent it.
    Other(Box<str>),
}

impl Status {
    /// The three values the spec names, in the order the UI cycles them.
    pub const KNOWN: [Status; 3] = [Status::Open, Status::Pending, Status::Closed];

    pub fn as_str(&self) -> &str {
        match self {
            Status::Open => "open",
            Status::Pending => "pending",
            Status::Closed => "closed",
            Status::Other(s) => s,
        }
    }

    /// Parses any string; unknown values become `Other`.
    pub fn from_wire(s: &str) -> Status {
        match s {
            "open" => Status::Open,
            "pending" => Status::Pending,
            "closed" => Status::Closed,
            other => Status::Other(other.into()),
        }
    }

    /// Parses a value a user may filter by (only the three the spec names).
    pub fn parse_filter(s: &str) -> Option<Status> {
        match s.trim().to_ascii_lowercase().as_str() {
            "open" => Some(Status::Open),
            "pending" => Some(Status::Pending),
            "closed" => Some(Status::Closed),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        with_str(d, Status::from_wire)
    }
}

/// Reads a string value and hands it to `f` where it lies: borrowed from the body when it has no
/// escape, never copied into a `String` first. (`Cow<str>` would always allocate: serde gives a
/// `Cow` borrowed only under `#[serde(borrow)]`.)
fn with_str<'de, D: Deserializer<'de>, R>(d: D, f: impl FnOnce(&str) -> R) -> Result<R, D::Error> {
    struct Visit<F>(F);
    impl<'de, F: FnOnce(&str) -> R, R> serde::de::Visitor<'de> for Visit<F> {
        type Value = R;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<R, E> {
            Ok((self.0)(v))
        }
    }
    d.deserialize_str(Visit(f))
}

/// A timestamp from the server: parsed when it is valid ISO 8601, else kept raw so the row
/// still shows (docs/design.md "Data": "a bad one is shown raw, it does not drop the row").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Timestamp {
    Parsed(jiff::Timestamp),
    Raw(Box<str>),
}

impl Timestamp {
    pub fn parse(s: &str) -> Timestamp {
        if let Some(t) = parse_utc_seconds(s) {
            return Timestamp::Parsed(t);
        }
        match s.parse::<jiff::Timestamp>() {
            Ok(t) => Timestamp::Parsed(t),
            Err(_) => Timestamp::Raw(s.into()),
        }
    }

    pub fn parsed(&self) -> Option<jiff::Timestamp> {
        match self {
            Timestamp::Parsed(t) => Some(*t),
            Timestamp::Raw(_) => None,
        }
    }

    /// RFC 3339 in UTC for a parsed value, the raw text otherwise.
    pub fn to_wire(&self) -> String {
        self.to_string()
    }

    /// For a human table: RFC 3339 in UTC to the second (`2026-11-25T14:00:12Z`, the
    /// fraction dropped), the raw text otherwise. The machine formats keep [`to_wire`].
    ///
    /// [`to_wire`]: Timestamp::to_wire
    pub fn to_seconds(&self) -> String {
        match self {
            Timestamp::Parsed(t) => match jiff::Timestamp::from_second(t.as_second()) {
                Ok(s) => Timestamp::Parsed(s).to_string(),
                Err(_) => self.to_string(),
            },
            Timestamp::Raw(s) => s.to_string(),
        }
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timestamp::Parsed(t) => match format_utc_seconds(*t) {
                Some(b) => f.write_str(std::str::from_utf8(&b).map_err(|_| fmt::Error)?),
                None => write!(f, "{t}"),
            },
            Timestamp::Raw(s) => f.write_str(s),
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        with_str(d, Timestamp::parse)
    }
}

/// A row type a page can hold: read by serde, or first by a faster exact path when the type
/// has one (see [`Page::decode`]).
pub trait WireRow: for<'de> Deserialize<'de> {
    /// One row in the plain form servers send (a flat object of unescaped strings and nulls),
    /// read exactly as serde would read it; `None` for anything else, and serde decides.
    fn scan(_s: &mut Scan<'_>) -> Option<Self> {
        None
    }
}

/// Anything the cursor walk can de-duplicate.
pub trait Row {
    fn id(&self) -> Uuid;
}

/// One conversation, as listed by `GET /v1/conversations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub id: Uuid,
    pub site_id: Uuid,
    pub visitor_id: Uuid,
    pub status: Status,
    /// `None` when unassigned (null or missing).
    #[serde(default)]
    pub assignee_id: Option<Uuid>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Row for Conversation {
    fn id(&self) -> Uuid {
        self.id
    }
}

impl WireRow for Conversation {
    fn scan(s: &mut Scan<'_>) -> Option<Conversation> {
        // What serde does with each value (uuid's `FromStr`, `Status::from_wire`,
        // `Timestamp::parse`); a field twice, an unknown field or a value serde would refuse
        // gives `None`.
        let uuid = |v: &str| v.parse::<Uuid>().ok();
        let (mut id, mut site_id, mut visitor_id, mut status) = (None, None, None, None);
        let (mut assignee_id, mut created_at, mut updated_at) = (None, None, None);
        s.eat(b'{')?;
        loop {
            match s.key()? {
                "id" if id.is_none() => id = Some(uuid(s.plain_str()?)?),
                "siteId" if site_id.is_none() => site_id = Some(uuid(s.plain_str()?)?),
                "visitorId" if visitor_id.is_none() => visitor_id = Some(uuid(s.plain_str()?)?),
                "status" if status.is_none() => status = Some(Status::from_wire(s.plain_str()?)),
                "assigneeId" if assignee_id.is_none() => {
                    assignee_id = Some(match s.null_or_str()? {
                        None => None,
                        Some(v) => Some(uuid(v)?),
                    });
                }
                "createdAt" if created_at.is_none() => {
                    created_at = Some(Timestamp::parse(s.plain_str()?));
                }
                "updatedAt" if updated_at.is_none() => {
                    updated_at = Some(Timestamp::parse(s.plain_str()?));
                }
                _ => return None,
            }
            if !s.more(b'}')? {
                break;
            }
        }
        Some(Conversation {
            id: id?,
            site_id: site_id?,
            visitor_id: visitor_id?,
            status: status?,
            assignee_id: assignee_id.flatten(),
            created_at: created_at?,
            updated_at: updated_at?,
        })
    }
}

impl WireRow for Visitor {}

impl Conversation {
    /// Appends the row's JSON: byte for byte what `serde_json::to_writer` writes for it (tested),
    /// without serde's per-byte escaping of ids and timestamps that never need it. `convo list`
    /// writes every row through this.
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        fn uuid(out: &mut Vec<u8>, id: &Uuid) {
            out.push(b'"');
            out.extend_from_slice(
                id.hyphenated()
                    .encode_lower(&mut Uuid::encode_buffer())
                    .as_bytes(),
            );
            out.push(b'"');
        }
        fn timestamp(out: &mut Vec<u8>, t: &Timestamp) -> serde_json::Result<()> {
            match t {
                Timestamp::Parsed(p) => match format_utc_seconds(*p) {
                    Some(b) => {
                        out.push(b'"');
                        out.extend_from_slice(&b);
                        out.push(b'"');
                        Ok(())
                    }
                    None => serde_json::to_writer(out, t),
                },
                Timestamp::Raw(_) => serde_json::to_writer(out, t),
            }
        }
        out.extend_from_slice(b"{\"id\":");
        uuid(out, &self.id);
        out.extend_from_slice(b",\"siteId\":");
        uuid(out, &self.site_id);
        out.extend_from_slice(b",\"visitorId\":");
        uuid(out, &self.visitor_id);
        out.extend_from_slice(b",\"status\":");
        match &self.status {
            Status::Other(_) => serde_json::to_writer(&mut *out, &self.status)?,
            known => {
                out.push(b'"');
                out.extend_from_slice(known.as_str().as_bytes());
                out.push(b'"');
            }
        }
        out.extend_from_slice(b",\"assigneeId\":");
        match &self.assignee_id {
            Some(a) => uuid(out, a),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"createdAt\":");
        timestamp(out, &self.created_at)?;
        out.extend_from_slice(b",\"updatedAt\":");
        timestamp(out, &self.updated_at)?;
        out.push(b'}');
        Ok(())
    }
}

/// One visitor, as listed by `GET /v1/visitors`. Text fields may be null or missing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Visitor {
    pub id: Uuid,
    #[serde(default)]
    pub external_id: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    /// Free-form; any JSON value is accepted (docs/design.md "Data"). `Null` when missing.
    #[serde(default)]
    pub attributes: serde_json::Value,
    #[serde(default, deserialize_with = "optional_timestamp")]
    pub created_at: Option<Timestamp>,
}

fn optional_timestamp<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
    let s = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
    Ok(s.map(|s| Timestamp::parse(&s)))
}

impl Row for Visitor {
    fn id(&self) -> Uuid {
        self.id
    }
}

/// A row of a page that could not be parsed; the rest of the page is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow {
    /// Position in the page's `data` array.
    pub index: usize,
    /// The row's `id`, when it had a readable one (unsanitised: sanitise before display).
    pub id: Option<String>,
    /// What was wrong, from the JSON decoder.
    pub reason: String,
}

/// One page of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub has_more: bool,
    pub next_cursor: Option<String>,
    pub bad_rows: Vec<BadRow>,
}

/// The envelope as it travels; rows are decoded one by one afterwards.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    data: Vec<&'a RawValue>,
    has_more: bool,
    #[serde(default)]
    next_cursor: Option<String>,
}

/// The envelope with its rows read in place: the fast path of [`Page::decode`].
#[derive(Deserialize)]
struct TypedEnvelope<T> {
    data: Vec<T>,
    has_more: bool,
    #[serde(default)]
    next_cursor: Option<String>,
}

/// Why a response body is not a page at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

impl<T: WireRow> Page<T> {
    /// Decodes a response body. Fails only when the envelope itself is unusable; bad rows are
    /// collected in `bad_rows`.
    pub fn decode(body: &[u8]) -> Result<Page<T>, DecodeError> {
        // Fast paths, each one pass, each giving exactly what the row-by-row path below gives
        // whenever it succeeds (tested): the body is checked as UTF-8 first, as the envelope's
        // raw rows are, and a row read in place or on its own is the same row. On any failure
        // (a bad row, a bad envelope) the row-by-row path decides.
        // 1. The plain form servers send, read without serde (`WireRow::scan`). It reads no
        //    backslash anywhere, so a body it reads has no surrogate escape to repair.
        if let Ok(text) = std::str::from_utf8(body)
            && let Some(page) =
                Scan::new(text)
                    .envelope(T::scan)
                    .map(|(items, has_more, next_cursor)| Page {
                        items,
                        has_more,
                        next_cursor,
                        bad_rows: Vec::new(),
                    })
        {
            return Ok(page);
        }
        // 2. serde, every row read straight into `T`.
        let body = repair_lone_surrogates(body);
        let Ok(text) = std::str::from_utf8(&body) else {
            return Self::decode_row_by_row(&body);
        };
        if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
            && let Ok(env) = serde_json::from_str::<TypedEnvelope<T>>(text)
        {
            return Ok(Page {
                items: env.data,
                has_more: env.has_more,
                next_cursor: env.next_cursor,
                bad_rows: Vec::new(),
            });
        }
        Self::decode_row_by_row(&body)
    }

    /// The envelope first, then each row on its own: a bad row is reported, not fatal.
    fn decode_row_by_row(body: &[u8]) -> Result<Page<T>, DecodeError> {
        let env: Envelope<'_> = match serde_json::from_slice(body) {
            Ok(env) => env,
            Err(e) => {
                // Bytes no JSON parser takes inside one row (invalid UTF-8, a raw control
                // character) must not lose the page: cut the rows out and read each alone.
                if let Some(page) = Self::decode_split(body) {
                    return Ok(page);
                }
                return Err(if e.is_syntax() || e.is_eof() {
                    DecodeError(format!("the response is not valid JSON ({e})"))
                } else {
                    DecodeError(format!(
                        "the response is JSON but not a list page {{data, has_more, next_cursor}} ({e})"
                    ))
                });
            }
        };
        // serde also reads a struct from an array (`[[], false]`): a page is an object only.
        if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(DecodeError(
                "the response is JSON but not a list page {data, has_more, next_cursor} \
                 (it is not an object)"
                    .into(),
            ));
        }
        let mut items = Vec::with_capacity(env.data.len());
        let mut bad_rows = Vec::new();
        for (index, raw) in env.data.into_iter().enumerate() {
            match serde_json::from_str::<T>(raw.get()) {
                Ok(row) => items.push(row),
                Err(e) => bad_rows.push(BadRow {
                    index,
                    id: row_id_of(raw),
                    reason: e.to_string(),
                }),
            }
        }
        Ok(Page {
            items,
            has_more: env.has_more,
            next_cursor: env.next_cursor,
            bad_rows,
        })
    }

    /// The last resort for a body serde refuses as a whole: the envelope is walked byte by
    /// byte ([`split_rows`]), the envelope without its rows is read as usual, and each row is
    /// decoded alone. `None` when the envelope itself is broken (a cut body, a bad cursor).
    fn decode_split(body: &[u8]) -> Option<Page<T>> {
        let (rows, rest) = split_rows(body)?;
        let env: Envelope<'_> = serde_json::from_slice(&rest).ok()?;
        let mut items = Vec::with_capacity(rows.len());
        let mut bad_rows = Vec::new();
        for (index, row) in rows.into_iter().enumerate() {
            let decoded = match std::str::from_utf8(row) {
                Ok(text) => serde_json::from_str::<T>(text).map_err(|e| e.to_string()),
                Err(e) => Err(format!(
                    "the row is not valid UTF-8 (byte {} of the row)",
                    e.valid_up_to() + 1
                )),
            };
            match decoded {
                Ok(r) => items.push(r),
                Err(reason) => bad_rows.push(BadRow {
                    index,
                    id: id_of_bytes(row),
                    reason,
                }),
            }
        }
        Some(Page {
            items,
            has_more: env.has_more,
            next_cursor: env.next_cursor,
            bad_rows,
        })
    }
}

/// A short, stable-width rendering of an id: the first 8 hex digits.
pub fn short_id(id: &Uuid) -> String {
    let mut s = id.simple().to_string();
    s.truncate(8);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::envelope::peek_next;

    #[test]
    fn split_rows_cuts_rows_out_whatever_bytes_their_strings_hold() {
        let body: &[u8] = b" { \"has_more\" : true , \"data\" : [ {\"a\":\"x\\\"]}\"} ,[1,[2]], \"s\xff\x01\" ,7 ] ,\"next_cursor\":\"c\"} ";
        let (rows, rest) = split_rows(body).expect("split");
        let rows: Vec<&[u8]> = rows;
        assert_eq!(
            rows,
            vec![
                &b"{\"a\":\"x\\\"]}\"}"[..],
                &b"[1,[2]]"[..],
                &b"\"s\xff\x01\""[..],
                &b"7"[..]
            ]
        );
        assert_eq!(
            rest,
            b"{\"has_more\":true,\"data\":[],\"next_cursor\":\"c\"}"
        );
        assert_eq!(split_rows(b"{\"data\":[]}").map(|x| x.0.len()), Some(0));
        // Not a page: cut short, trailing bytes, no data array, not an object, data twice.
        for bad in [
            &b"{\"data\":[{\"a\":1},{\"b\":"[..],
            b"{\"data\":[1]} x",
            b"{\"has_more\":false}",
            b"[{\"data\":[]}]",
            b"{\"data\":[1],\"data\":[2]}",
            b"{\"data\":[\"unterminated]}",
        ] {
            assert!(
                split_rows(bad)
                    .is_none_or(|(_, rest)| serde_json::from_slice::<Envelope<'_>>(&rest).is_err()),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn a_row_with_raw_bytes_is_one_bad_row_and_the_page_stays() {
        let good = r#"{"id":"00000000-0000-4000-8000-000000000001","siteId":"00000000-0000-4000-8000-000000000002","visitorId":"00000000-0000-4000-8000-000000000003","status":"open","assigneeId":null,"createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}"#;
        for bad in [
            &b"\"name\":\"A\xffB\""[..],
            b"\"name\":\"A\x01B\"",
            b"\"name\":\"A\nB\"",
        ] {
            let mut body =
                format!("{{\"data\":[{good},{{\"id\":\"00000000-0000-4000-8000-0000000000b1\",")
                    .into_bytes();
            body.extend_from_slice(bad);
            body.extend_from_slice(
                format!("}},{good}],\"has_more\":true,\"next_cursor\":\"n\"}}").as_bytes(),
            );
            let page = Page::<Conversation>::decode(&body).expect("the page stays");
            assert_eq!(page.items.len(), 2);
            assert_eq!(page.bad_rows.len(), 1);
            assert_eq!(page.bad_rows[0].index, 1);
            assert_eq!(
                page.bad_rows[0].id.as_deref(),
                Some("00000000-0000-4000-8000-0000000000b1")
            );
            assert_eq!(
                (page.has_more, page.next_cursor.as_deref()),
                (true, Some("n"))
            );
        }
    }

    #[test]
    fn unknown_status_kept_verbatim() {
        let s: Status = serde_json::from_str("\"snoozed\"").unwrap();
        assert_eq!(s, Status::Other("snoozed".into()));
        assert_eq!(s.as_str(), "snoozed");
        assert_eq!(Status::parse_filter("snoozed"), None);
        assert_eq!(Status::parse_filter(" Open "), Some(Status::Open));
    }

    #[test]
    fn one_pass_decode_gives_what_row_by_row_gives() {
        let c = r#"{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e","siteId":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5f","visitorId":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f50","status":"open","assigneeId":null,"createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z"}"#;
        let odd = r#"{"updatedAt":"later","status":"sn\u00f6ozed \ud800","extra":{"a":[1,{"b":null}]},"createdAt":"2026-01-02T03:04:05.5+01:00","visitorId":"6F1C0F5E-1B8E-4F53-9A4E-3C1D2B3A4F50","siteId":"6f1c0f5e1b8e4f539a4e3c1d2b3a4f5f","id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f51"}"#;
        let bad = r#"{"id":"nope","status":"open"}"#;
        let page = |rows: &str, tail: &str| {
            format!(r#"{{"data":[{rows}],"has_more":true,"next_cursor":"c1"{tail}}}"#).into_bytes()
        };
        let mut bodies = vec![
            page(c, ""),
            page(&format!("{c},{odd}"), r#","unknown":[true]"#),
            page(&format!("{c},{bad},{odd}"), ""),
            page("", ""),
            page(r#"["6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e"]"#, ""),
            page(c, r#","data":[]"#),
            page(c, "} trailing"),
            br#"  {"has_more":false,"data":[]}"#.to_vec(),
            br#"[[], false]"#.to_vec(),
            br#"{"data":[],"has_more":"yes"}"#.to_vec(),
            b"".to_vec(),
        ];
        let spaced = " {\t\"has_more\" : false ,\r\n \"data\":[ { \"updatedAt\":\"2026-01-02T03:04:05Z\" , \"createdAt\":\"x\",\"status\":\"\",\"assigneeId\":\"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e\",\"visitorId\":\"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f50\",\"siteId\":\"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5f\",\"id\":\"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e\"} ] } \n";
        assert!(Scan::new(spaced).envelope(Conversation::scan).is_some());
        assert!(
            Scan::new(std::str::from_utf8(&page(c, "")).unwrap())
                .envelope(Conversation::scan)
                .is_some()
        );
        let no_assignee = c.replace(r#""assigneeId":null,"#, "");
        for body in [
            spaced.as_bytes().to_vec(),
            page(&no_assignee, ""),
            page(&c.replace("null", "nullx"), ""),
            page(&c.replace("null", "nul"), ""),
            page(&c.replace(r#""open""#, r#""op\u0065n""#), ""),
            page(&c.replace(r#""open""#, "\"op\u{1}en\""), ""),
            page(&c.replace(r#""open""#, r#""öpen 王""#), ""),
            page(
                &c.replace(
                    r#""id""#,
                    r#""id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e","id""#,
                ),
                "",
            ),
            page(&c.replace(r#""id""#, r#""x":1,"id""#), ""),
            page(
                &c.replace(
                    "6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e",
                    "{6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e}",
                ),
                "",
            ),
            page(
                &c.replace("6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e", "6f1c0f5e"),
                "",
            ),
            page(&c.replace(r#""status":"open","#, ""), ""),
            page(c, r#","has_more":true"#),
            format!(r#"{{"data":[{c}],"has_more":true}}"#).into_bytes(),
            format!(r#"{{"data":[{c}],"has_more":True,"next_cursor":null}}"#).into_bytes(),
            format!(r#"{{"data":[{c},],"has_more":true,"next_cursor":null}}"#).into_bytes(),
            format!(r#"{{"data":[{c}],"has_more":true,"next_cursor":null,}}"#).into_bytes(),
            format!(r#"{{"data":[{c}],"has_more":true,"next_cursor":null}}x"#).into_bytes(),
            format!("{{\"data\":[{c}],\"has_more\":true,\"next_cursor\":null}}\u{c}").into_bytes(),
        ] {
            bodies.push(body);
        }
        let mut invalid_utf8 = page(c, r#","x":"?""#);
        let at = invalid_utf8.iter().rposition(|&b| b == b'?').unwrap();
        invalid_utf8[at] = 0xff;
        bodies.push(invalid_utf8);
        for body in &bodies {
            let repaired = repair_lone_surrogates(body);
            assert_eq!(
                Page::<Conversation>::decode(body),
                Page::<Conversation>::decode_row_by_row(&repaired),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        // Random damage to a plain page: whatever path reads it, the answer is the same.
        let base = page(&format!("{c},{no_assignee},{c}"), "");
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut rand = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let alphabet = b" \t\n{}[]:,\"\\0123456789abcdefABCDEF-nultrefsxTZ:.\x01\x7f";
        for _ in 0..5_000 {
            let mut body = base.clone();
            for _ in 0..1 + rand(3) {
                let at = rand(body.len());
                match rand(3) {
                    0 => body[at] = alphabet[rand(alphabet.len())],
                    1 => {
                        body.remove(at);
                    }
                    _ => body.insert(at, alphabet[rand(alphabet.len())]),
                }
            }
            let repaired = repair_lone_surrogates(&body);
            assert_eq!(
                Page::<Conversation>::decode(&body),
                Page::<Conversation>::decode_row_by_row(&repaired),
                "{}",
                String::from_utf8_lossy(&body)
            );
        }
        let v = br#"{"data":[{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e","name":"Zo\u00eb","attributes":{"k":[1.5,"x"]}},{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5f","email":null,"createdAt":"bad"}],"has_more":false,"next_cursor":null}"#;
        assert_eq!(
            Page::<Visitor>::decode(v),
            Page::<Visitor>::decode_row_by_row(v)
        );
        assert_eq!(Page::<Visitor>::decode(v).unwrap().items.len(), 2);
    }

    #[test]
    fn plain_strings_stop_at_the_first_quote_escape_or_control() {
        for len in 0..24 {
            let plain = "é".repeat(len / 2) + &"a".repeat(len % 2);
            let text = format!("\"{plain}\"rest");
            assert_eq!(Scan::new(&text).plain_str(), Some(plain.as_str()), "{text}");
            for at in 0..=plain.len() {
                if !plain.is_char_boundary(at) {
                    continue;
                }
                for bad in ["\\", "\u{1}", "\u{1f}", "\n"] {
                    let text = format!("\"{}{bad}{}\"", &plain[..at], &plain[at..]);
                    assert_eq!(Scan::new(&text).plain_str(), None, "{text:?}");
                }
                let text = format!("\"{}\"{}\"", &plain[..at], &plain[at..]);
                assert_eq!(Scan::new(&text).plain_str(), Some(&plain[..at]), "{text:?}");
            }
            assert_eq!(Scan::new(&format!("\"{plain}")).plain_str(), None);
        }
    }

    #[test]
    fn conversation_json_is_what_serde_writes() {
        let t = |s: &str| Timestamp::parse(s);
        let mut n = 0u128;
        for status in [
            Status::Open,
            Status::Pending,
            Status::Closed,
            Status::Other("snoozed".into()),
            Status::Other("a\"b\\c\u{1}\u{7f}\u{9b}é\u{202e}🌸".into()),
            Status::Other("".into()),
        ] {
            for assignee in [None, Some(Uuid::from_u128(0xabc))] {
                for (created, updated) in [
                    (t("2026-01-02T03:04:05Z"), t("1970-01-01T00:00:00Z")),
                    (t("2026-01-02T03:04:05.123Z"), t("1969-12-31T23:59:59Z")),
                    (t("2026-01-02T03:04:05+02:00"), t("9999-12-31T23:59:59Z")),
                    (
                        Timestamp::Raw("yesterday \"\n\u{1b}".into()),
                        t("-000001-01-01T00:00:00Z"),
                    ),
                ] {
                    n += 1;
                    let c = Conversation {
                        id: Uuid::from_u128(
                            n.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835),
                        ),
                        site_id: Uuid::from_u128(u128::MAX - n),
                        visitor_id: Uuid::nil(),
                        status: status.clone(),
                        assignee_id: assignee,
                        created_at: created,
                        updated_at: updated,
                    };
                    let mut out = b"prefix".to_vec();
                    c.write_json(&mut out).unwrap();
                    let mut want = b"prefix".to_vec();
                    want.extend(serde_json::to_vec(&c).unwrap());
                    assert_eq!(
                        String::from_utf8(out).unwrap(),
                        String::from_utf8(want).unwrap()
                    );
                }
            }
        }
    }

    #[test]
    fn bad_timestamp_kept_raw_and_row_kept() {
        let body = br#"{"data":[{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e","siteId":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5f","visitorId":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f50","status":"open","assigneeId":null,"createdAt":"yesterday","updatedAt":"2026-01-02T03:04:05Z","extra":1}],"has_more":false,"next_cursor":null}"#;
        let p = Page::<Conversation>::decode(body).unwrap();
        assert_eq!(p.items.len(), 1);
        assert_eq!(p.items[0].created_at, Timestamp::Raw("yesterday".into()));
        assert!(p.items[0].updated_at.parsed().is_some());
    }

    #[test]
    fn fast_timestamp_paths_agree_with_jiff() {
        let mut secs: i64 = 0;
        // Every day from 1970 to past 9999 (leap years, centuries), at varying times of day.
        while secs < 253_402_207_200 {
            let t = jiff::Timestamp::from_second(secs).unwrap();
            let wire = t.to_string();
            assert_eq!(Timestamp::Parsed(t).to_wire(), wire, "{secs}");
            if wire.len() == 20 {
                assert_eq!(parse_utc_seconds(&wire), Some(t), "{wire}");
            }
            secs += 86_400 * 3 + 3_607;
        }
        for odd in [
            "2026-02-29T00:00:00Z",
            "2024-02-30T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-10T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2016-12-31T23:59:60Z",
            "1969-12-31T23:59:59Z",
            "2026-01-01t00:00:00z",
            "2026-01-01T00:00:00+01:00",
            "2026-01-01T00:00:00.5Z",
            "+2026-01-01T00:00:00Z",
            "2026-01-01T00:00:0xZ",
        ] {
            let jiff_says = odd.parse::<jiff::Timestamp>().ok();
            assert_eq!(Timestamp::parse(odd).parsed(), jiff_says, "{odd}");
            if let Some(t) = jiff_says {
                assert_eq!(Timestamp::Parsed(t).to_wire(), t.to_string(), "{odd}");
            }
        }
        let frac: jiff::Timestamp = "2026-01-01T00:00:00.5Z".parse().unwrap();
        assert_eq!(Timestamp::Parsed(frac).to_wire(), frac.to_string());
        let early: jiff::Timestamp = "1900-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(Timestamp::Parsed(early).to_wire(), early.to_string());
        assert_eq!(
            serde_json::to_string(&Timestamp::parse("2026-11-22T12:00:00Z")).unwrap(),
            "\"2026-11-22T12:00:00Z\""
        );
    }

    #[test]
    fn one_bad_row_among_good_ones() {
        let body = br#"{"data":[{"id":"not-a-uuid","name":"x"},{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e","name":null}],"has_more":true,"next_cursor":"c"}"#;
        let p = Page::<Visitor>::decode(body).unwrap();
        assert_eq!(p.items.len(), 1);
        assert_eq!(p.bad_rows.len(), 1);
        assert_eq!(p.bad_rows[0].index, 0);
        assert_eq!(p.bad_rows[0].id.as_deref(), Some("not-a-uuid"));
        assert_eq!(p.items[0].name, None);
        assert_eq!(p.items[0].attributes, serde_json::Value::Null);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let body = br#"{"data":[{"id":"6f1c0f5e-1b8e-4f53-9a4e-3c1d2b3a4f5e","name":"a\ud800b\udc00c\ud83d\ude00d\\ud800"}],"has_more":false,"next_cursor":null}"#;
        let p = Page::<Visitor>::decode(body).unwrap();
        assert_eq!(
            p.items[0].name.as_deref(),
            Some("a\u{fffd}b\u{fffd}c😀d\\ud800")
        );
    }

    #[test]
    fn malformed_and_wrong_shape_are_errors() {
        assert!(Page::<Visitor>::decode(b"{\"data\":[").is_err());
        let e = Page::<Visitor>::decode(b"{\"items\":[]}").unwrap_err();
        assert!(e.0.contains("not a list page"), "{e}");
        assert!(Page::<Visitor>::decode(b"[]").is_err());
    }

    /// `peek_next` never disagrees with `Page::decode`, and reads the form servers send.
    #[test]
    fn peek_next_agrees_with_decode() {
        use proptest::prelude::*;
        let row = r#"{"id":"0b6d1f58-3b7e-4f5a-9d36-5f3f2f0a1c11","siteId":"1b6d1f58-3b7e-4f5a-9d36-5f3f2f0a1c11","visitorId":"2b6d1f58-3b7e-4f5a-9d36-5f3f2f0a1c11","status":"open","assigneeId":null,"createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z"}"#;
        let ws = prop::sample::select(vec!["", " ", "\n", " \t\r\n "]);
        let cursor = prop_oneof![
            Just(None),
            "[A-Za-z0-9_-]{0,12}".prop_map(Some),
            "[a\"\\\\\u{1}é/]{0,6}".prop_map(Some),
        ];
        let strategy = (
            any::<bool>(),
            cursor,
            0usize..3,
            prop::sample::select(vec![[0, 1, 2], [0, 2, 1], [1, 0, 2], [2, 1, 0], [1, 2, 0]]),
            prop::collection::vec(ws, 12),
            any::<bool>(),
        );
        proptest!(ProptestConfig::with_cases(2000), |((more, cursor, rows, order, w, dup) in strategy)| {
            let data = format!("[{}]", vec![row; rows].join(&format!(",{}", w[0])));
            let cur = serde_json::to_string(&cursor).unwrap();
            let more_s = if more { "true" } else { "false" };
            let fields = [
                format!("\"data\"{}:{}{data}", w[1], w[2]),
                format!("\"has_more\"{}:{}{more_s}", w[3], w[4]),
                format!("\"next_cursor\"{}:{}{cur}", w[5], w[6]),
            ];
            let mut parts: Vec<String> = order.iter().map(|&i| fields[i].clone()).collect();
            if dup {
                parts.push(fields[order[2]].replace("true", "false").replace("null", "\"z\""));
            }
            let body = format!("{}{{{}{}{}}}{}", w[7], w[8], parts.join(&format!("{},", w[9])), w[10], w[11]);
            let peek = peek_next(body.as_bytes());
            let page = Page::<Conversation>::decode(body.as_bytes());
            if let Some((h, c)) = peek {
                let page = page.expect("a page peek_next reads decodes");
                prop_assert_eq!(h, page.has_more);
                prop_assert_eq!(c.map(str::to_string), page.next_cursor);
            }
            let plain = cursor.as_deref().is_none_or(|c| !c.contains(['"', '\\', '\u{1}']));
            if order[0] == 0 && plain && !dup {
                prop_assert!(peek.is_some(), "{}", body);
            }
        });
        // The demo server's form, and what it cannot read.
        assert_eq!(
            peek_next(br#"{"data":[],"has_more":true,"next_cursor":"abc"}"#),
            Some((true, Some("abc")))
        );
        assert_eq!(
            peek_next(br#"{"data":[],"has_more":false,"next_cursor":null}"#),
            Some((false, None))
        );
        assert_eq!(peek_next(br#"{"has_more":true,"next_cursor":"abc"}"#), None);
        assert_eq!(
            peek_next(br#"{"data":[],"has_more":true,"next_cursor":"a\"b"}"#),
            None
        );
        assert_eq!(
            peek_next(br#"{"data":[],"has_more":1,"next_cursor":"a"}"#),
            None
        );
        assert_eq!(peek_next(b""), None);
        assert_eq!(peek_next(b"}"), None);
        assert_eq!(peek_next(b"\"\":\"\"}"), None);
    }
}
