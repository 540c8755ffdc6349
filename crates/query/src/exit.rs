//! How a command (`list`, `summary`, `store`) ends: the exit codes, as documented in
//! `convo list --help` and docs/scripting.md, and the error a walk ends with. Below every command and
//! the TUI's runtime, which share them.

use std::io;

use convo_api::{ApiError, FilterError};

pub const OK: u8 = 0;
pub const USAGE: u8 = 2;
pub const KEY_REFUSED: u8 = 3;
pub const NETWORK: u8 = 4;
pub const BAD_DATA: u8 = 5;

/// The exit code for an API error.
pub fn exit_code(e: &ApiError) -> u8 {
    match e {
        ApiError::BadBaseUrl { .. }
        | ApiError::InsecureTransport { .. }
        | ApiError::Key(_)
        | ApiError::Filter(_)
        | ApiError::Setup(_)
        | ApiError::BadRequest { .. } => USAGE,
        ApiError::Unauthorized { .. } => KEY_REFUSED,
        ApiError::Http { .. }
        | ApiError::RateLimited { .. }
        | ApiError::Server { .. }
        | ApiError::Timeout { .. }
        | ApiError::Connect { .. }
        | ApiError::Network { .. }
        | ApiError::Certificate { .. }
        | ApiError::Proxy { .. }
        | ApiError::ProxyAuth { .. }
        | ApiError::Redirect { .. } => NETWORK,
        ApiError::Decode { .. } => BAD_DATA,
    }
}

/// What `--email`, `--visitor-email` and the browser's e-mail filter say when the service has
/// no visitor with the address: that it matches whole addresses, so a part of one (a name, a
/// domain) finds nothing.
pub fn no_visitor_with_email(email: &str) -> String {
    format!(
        "no visitor has the e-mail {:?} (the service matches whole addresses, not parts of one)",
        convo_text::one_line(email.trim(), 200)
    )
}

/// How a `list` run ended.
#[derive(Debug)]
pub enum ListError {
    Api(ApiError),
    /// Writing to stdout failed (not a broken pipe, which ends quietly).
    Io(io::Error),
    /// Every page arrived but some rows could not be read; they were reported on stderr.
    BadRows(usize),
    /// Flags that cannot work together or with the config (said before any request).
    Usage(String),
    /// `--visitor-email`: the service has no visitor with this e-mail.
    NoVisitor(String),
    /// The walk ended early because the service misbehaved (the warning was printed): the
    /// rows printed are not the whole list.
    Truncated,
    /// A query convo cannot run (said before any request): the message with the query and a
    /// caret under the position.
    Query(String),
    /// Some streams of a query failed (each named above); the others' rows were printed.
    StreamsFailed {
        failed: usize,
        of: usize,
    },
}

impl ListError {
    pub fn exit_code(&self) -> u8 {
        match self {
            ListError::Api(e) => exit_code(e),
            ListError::Io(_) => 1,
            ListError::BadRows(_) | ListError::Truncated | ListError::StreamsFailed { .. } => {
                BAD_DATA
            }
            ListError::Query(_) => USAGE,
            ListError::Usage(_) => USAGE,
            ListError::NoVisitor(_) => USAGE,
        }
    }
}

impl std::fmt::Display for ListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ListError::Api(e) => write!(f, "{e}"),
            ListError::Io(e) => write!(f, "cannot write the output: {e}"),
            ListError::Usage(m) => f.write_str(m),
            ListError::BadRows(n) => write!(
                f,
                "{n} rows sent by the service could not be read (see the warnings above)"
            ),
            ListError::NoVisitor(e) => f.write_str(&no_visitor_with_email(e)),
            ListError::Query(m) => write!(f, "bad query\n{m}"),
            ListError::StreamsFailed { failed, of } => write!(
                f,
                "the list is incomplete: {failed} of {of} streams failed (named above); the rows \
                 of the others were printed"
            ),
            ListError::Truncated => f.write_str(
                "the list is incomplete: the service ended the walk early (see the warning \
                 above); every row it sent was printed",
            ),
        }
    }
}

impl From<ApiError> for ListError {
    fn from(e: ApiError) -> Self {
        ListError::Api(e)
    }
}

impl From<FilterError> for ListError {
    fn from(e: FilterError) -> Self {
        ListError::Api(ApiError::Filter(e))
    }
}

/// Ignores a broken pipe (`convo list … | head`), reports other write errors.
pub fn quiet_pipe(r: io::Result<()>) -> Result<bool, ListError> {
    match r {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(ListError::Io(e)),
    }
}
