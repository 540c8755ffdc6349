//! convo: a keyboard-driven terminal browser for a customer-chat service's conversations and
//! visitors.
//!
//! Layers, top to bottom (arrows point down only):
//! - [`tui`]: the interactive app (state, update, keys, runtime) and [`tui::view`] (drawing only).
//! - [`list`]: the non-interactive `convo list` command; [`visitor_join`]: its conversations
//!   with their visitors (`--with-visitor`, `--visitor-email`).
//! - [`summary`]: `convo summary` (counts by status, site, assignee; ages, staleness, SLA) and
//!   the counting the TUI's `S` shares.
//! - [`cli`]: the clap definitions of the command line.
//! - [`setup`]: `convo doctor`, `convo config init`, completions and the man page.
//! - [`logging`]: tracing to a file in the data dir.
//! - [`output`]: what `list`, `summary` and `tui` write: CSV, JSON, the table, stderr lines.
//! - [`demo`]: the embedded demo server (same API, generated data, loopback only).
//! - [`config`]: the TOML config file, env and flag overrides; [`ui_config`]: its keys,
//!   theme, columns and `web_url` parts.
//! - [`sla`]: response-time targets and a conversation's state against them (pure).
//! - [`query`]: the query language (parse, print, resolve names), the planner (streams of
//!   requests + checks done in convo) and the union executor that walks and merges streams.
//! - [`store`]: the local SQLite store (visitors, last looks, summary samples).
//! - [`pager`]: the cursor walk, a pure state machine.
//! - [`api`]: models, filters, the key, errors and the HTTP client; no UI.
//! - [`text`]: sanitising untrusted text and fitting it to terminal cells.
//! - `testing` (only with the `testing` cargo feature, which `cargo test` turns on): the
//!   binary's test-only switches (`CONVO_TEST_PANIC`, `CONVO_NOW`).
//!
//! Where a new key action, column or overlay goes: CONTRIBUTING.md.
#![forbid(unsafe_code)]

/// `convo --version`: the crate's version, the commit and the build date (see build.rs), e.g.
/// `0.1.0 (5bb154b 2026-11-25)`, so a bug report says what was run.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("CONVO_BUILD"), ")");

pub mod api;
pub mod cli;
pub mod config;
pub mod demo;
pub mod exit;
pub mod list;
pub mod logging;
pub mod options;
pub mod output;
pub mod pager;
pub mod query;
pub mod setup;
pub mod sla;
pub mod store;
pub mod store_command;
pub mod summary;
#[cfg(feature = "testing")]
pub mod testing;
pub mod text;
pub mod tui;
pub mod ui_config;
pub mod visitor_join;
