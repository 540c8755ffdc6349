//! What the commands and the browser share above the store: the query language, its planner
//! and union walk ([`query`]), the options `list` and `summary` take ([`options`]), what they
//! write ([`output`]) and how they end ([`exit`]).
#![forbid(unsafe_code)]

pub mod exit;
pub mod options;
pub mod output;
pub mod query;
/// The binary's test-only switches (`CONVO_TEST_PANIC`, `CONVO_NOW`): only with the `testing`
/// feature, which `cargo test` turns on.
#[cfg(feature = "testing")]
pub mod testing;
