//! The non-interactive commands: `convo list` ([`list`]), `convo summary` ([`summary`], and the
//! counting the browser's `S` and board share), `convo store` ([`store_command`]), `convo
//! doctor` and `convo config init` ([`setup`], whose client set-up the browser takes), and
//! `convo exporter` ([`exporter`]).
#![forbid(unsafe_code)]

pub mod exporter;
pub mod list;
pub mod setup;
pub mod store_command;
pub mod summary;

/// `convo --version`: the crate's version, the commit and the build date (see build.rs), e.g.
/// `0.1.0 (5bb154b 2026-11-25)`, so a bug report says what was run.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("CONVO_BUILD"), ")");
