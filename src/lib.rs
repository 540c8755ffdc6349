//! convo: a keyboard-driven terminal browser for a customer-chat service's conversations and
//! visitors.
//!
//! Layers, top to bottom (arrows point down only; `python3 ../shared/tools/circles.py src 1`
//! finds no import circle):
//! - [`tui`]: the interactive app (state, update, keys, runtime) and [`tui::view`] (drawing only).
//! - [`cli`]: the clap definitions of the command line (and completions, the man page), the
//!   top of the commands: it builds their own options ([`options`], [`summary::options`],
//!   the store's action, the demo's options); `main.rs` dispatches on it. The only module
//!   that imports clap.
//! - [`setup`]: `convo doctor`, `convo config init`; the TUI takes its client set-up.
//! - The commands: [`list`] (`convo list`) with [`visitor_join`] (`--with-visitor`,
//!   `--visitor-email`), [`summary`] (`convo summary`, and the counting the TUI's `S` shares),
//!   [`store_command`] (`convo store`). None imports another, nor `cli`.
//! - [`options`]: the options `list` and `summary` share (filters, `-q`, paging, formats), with
//!   the API filters and query terms they stand for.
//! - [`query`]: the query language (parse, print, resolve names), the planner (streams of
//!   requests + checks done in convo), the union executor that walks and merges streams, what
//!   the query commands share ([`query::run`]) and the e-mail merge ([`query::by_email`]).
//! - [`exit`]: exit codes and the error a command's walk ends with.
//! - [`output`]: what `list`, `summary`, `store` and `tui` write: CSV, JSON, the table, stderr
//!   lines.
//! - [`store`]: the local SQLite store (visitors, last looks, summary samples).
//! - [`config`]: the TOML config file, env and flag overrides; [`config::ui`]: its keys,
//!   theme, columns, `stale_after` and `web_url` parts.
//! - [`demo`]: the embedded demo server (same API, generated data, loopback only).
//! - [`sla`]: response-time targets and a conversation's state against them (pure).
//! - [`pager`]: the cursor walk, a pure state machine.
//! - [`api`]: models, filters, the key, errors and the HTTP client; no UI.
//! - [`text`]: sanitising untrusted text, fitting it to terminal cells, `1,234` numbers.
//! - [`logging`]: tracing to a file in the data dir.
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
pub mod visitor_join;
