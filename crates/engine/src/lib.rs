//! The pure parts of walking a list: one walk as its drivers see it ([`walk`], over the cursor
//! walk of one stream, [`pager`]), a union of
//! streams merged in the service's order ([`union`], with its [`merge`]; read through checks,
//! [`scan`]), and a conversation's
//! state against its response-time targets ([`sla`]). No I/O, no clock of their own.
#![forbid(unsafe_code)]

pub mod cursor;
pub mod merge;
pub mod pager;
pub mod scan;
pub mod sla;
pub mod union;
pub mod walk;
