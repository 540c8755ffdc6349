//! convo: a keyboard-driven terminal browser for a customer-chat service's conversations and
//! visitors.
//!
//! The binary's crate: the command line ([`cli`]), logging ([`logging`]) and `main.rs`. The
//! layers below are workspace crates (crates/), so the compiler holds the floors: a crate can
//! only use the crates below it. Top to bottom, with what each depends on:
//! - `convo-tui` ([`tui`]): the interactive browser and its drawing. [commands, query, store,
//!   config, engine, api, text]
//! - `convo-commands` ([`list`], [`summary`], [`store_command`], [`setup`], [`exporter`]): the
//!   non-interactive commands; `summary` holds the counting the browser's `S` and board share,
//!   `setup` the client set-up the browser takes. [query, store, config, engine, api, text]
//! - `convo-query` ([`query`], [`options`], [`output`], [`exit`], and `testing` with the
//!   `testing` feature): the query language, planner and union walk, the commands' options,
//!   what they write and how they end. [store, config, engine, api, text]
//! - `convo-store` ([`store`]): the local SQLite store. [config, engine, api, text]
//! - `convo-config` ([`config`]): the TOML config, env and flag overrides. [engine, api, text]
//! - `convo-demo` ([`demo`]): the embedded demo server (loopback only). [engine, api, text]
//! - `convo-engine` ([`pager`], [`sla`]): the cursor walk and response-time targets, pure.
//!   [api, text]
//! - `convo-api` ([`api`]): models, filters, the key, errors, the budget, the HTTP client; no
//!   UI. [text]
//! - `convo-text` ([`text`]): sanitising untrusted text, cell widths, `1,234`, folding. []
//!
//! The modules are re-exported here under their old names (`convo::api`, `convo::tui`, …) for
//! the integration tests and benches.
//!
//! Where a new key action, column or overlay goes: CONTRIBUTING.md.
#![forbid(unsafe_code)]

pub use convo_commands::VERSION;

pub mod cli;
pub mod logging;

pub use convo_api as api;
pub use convo_commands::{exporter, list, setup, store_command, summary};
pub use convo_config as config;
pub use convo_demo as demo;
pub use convo_engine::{pager, sla, walk};
#[cfg(feature = "testing")]
pub use convo_query::testing;
pub use convo_query::{exit, options, output, query};
pub use convo_store as store;
pub use convo_text as text;
pub use convo_tui as tui;
