//! convo: a keyboard-driven terminal browser for a customer-chat service's conversations and
//! visitors.
//!
//! Layers, top to bottom (arrows point down only; `python3 ../shared/tools/circles.py src 1`
//! finds no import circle). After each, in brackets, the modules it imports: read from its
//! `use crate::` lines, unit tests left out.
//! - `main.rs` (the binary) parses the command line with [`cli`] and runs a command, the
//!   [`demo`] server, the [`exporter`] or the [`tui`].
//! - [`cli`]: the clap definitions of the command line (and completions, the man page); it
//!   builds the commands' own options ([`options`], [`summary::options`], the store's
//!   action, the demo's options). Only `main` imports it; the only module that imports clap.
//!   [demo, options, store_command, summary]
//! - [`tui`]: the interactive app (state, update, keys, runtime) and [`tui::view`] (drawing
//!   only). [setup, summary (the counting of `S`), query, exit, output, store, config, pager,
//!   sla, api, text, testing]
//! - [`exporter`]: `convo exporter`, every view walked once per interval and served to
//!   Prometheus (`/metrics`); its walk is [`summary::views`]. [summary, store, config, api,
//!   text]
//! - The commands: [`list`] (`convo list`, with [`list::visitor_join`] for `--with-visitor`
//!   and `--visitor-email`), [`summary`] (`convo summary`, and the counting the TUI's `S`
//!   shares), [`store_command`] (`convo store`). None imports another, nor `cli`. [list,
//!   summary: options, query, exit, output, store, config, pager, sla, api, text, testing;
//!   store_command: exit, output, store, config, api, text, testing]
//! - [`setup`]: `convo doctor`, `convo config init`; the TUI takes its client set-up.
//!   [store, config, api]
//! - [`options`]: the options `list` and `summary` take (filters, `-q`, paging, formats) as
//!   plain values, with the API filters and query terms they stand for. [query, api]
//! - [`query`]: the query language (parse, print, resolve names), the planner (streams of
//!   requests + checks done in convo), the union executor that walks and merges streams, one
//!   filter's page walk ([`query::pages`]), what the query commands share ([`query::run`])
//!   and the e-mail merge ([`query::by_email`]). [exit, output, store, config, pager, sla,
//!   api, text]
//! - [`exit`]: exit codes and the error a command's walk ends with. [api, text]
//! - [`output`]: what `list`, `summary`, `store` and `tui` write: CSV, JSON, the table, stderr
//!   lines. [api, text]
//! - [`store`]: the local SQLite store (visitors, last looks, summary samples). [config, api,
//!   text]
//! - [`config`]: the TOML config file, env and flag overrides; [`config::ui`]: its keys,
//!   theme, columns, `stale_after` and `web_url` parts. [sla, api, text]
//! - [`demo`]: the embedded demo server (same API, generated data, loopback only) and the
//!   targets `--demo` shows. [sla, api]
//! - [`sla`]: response-time targets and a conversation's state against them (pure). [api]
//! - [`pager`]: the cursor walk, a pure state machine. [api]
//! - [`api`]: models, filters, the key, errors and the HTTP client; no UI. [text]
//! - [`text`]: sanitising untrusted text, fitting it to terminal cells, `1,234` numbers,
//!   folding case and accents (`text::fold`: quick search and queries). []
//! - [`logging`]: tracing to a file in the data dir. []
//! - `testing` (only with the `testing` cargo feature, which `cargo test` turns on): the
//!   binary's test-only switches (`CONVO_TEST_PANIC`, `CONVO_NOW`). [text]
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
pub mod exporter;
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
