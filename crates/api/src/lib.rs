//! The service's read API: typed rows, filters, the key, errors and the HTTP client.
//! Nothing here knows about the terminal UI.

pub mod budget;
pub mod client;
pub mod clock;
pub mod encoding;
pub mod error;
pub mod filter;
pub mod key;
pub mod model;
pub mod order;
pub mod proxy;
pub mod redact;
pub mod stats;
pub mod tls;
pub mod wire;

pub use budget::{Budget, Priority};
pub use client::{Accept, Answer, Client, ClientSettings, RetryNotice};
pub use clock::{Clock, SystemClock};
pub use error::ApiError;
pub use filter::{
    Assignee, ConversationFilter, FilterError, Limit, ListFilter, Resource, VisitorFilter,
    parse_uuid,
};
pub use key::{ApiKey, KeyError, KeySource};
pub use model::{BadRow, Conversation, Page, Row, Status, Timestamp, Visitor, short_id};
pub use proxy::{ProxySetting, ProxyUrl, Route};
