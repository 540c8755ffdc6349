//! The pure parts of walking a list: the cursor walk ([`pager`]) and a conversation's state
//! against its response-time targets ([`sla`]). No I/O, no clock of their own.
#![forbid(unsafe_code)]

pub mod pager;
pub mod sla;
