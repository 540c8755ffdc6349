//! convo's entry point: parse the command line, read the config, build the client, dispatch.
//!
//! Module map (in the library crate; see `lib.rs` for the layers and CONTRIBUTING.md):
//! - `cli`: clap definitions of the command line; it builds the commands' own options.
//! - `tui`: the interactive browser (`convo`, `convo --demo`); `tui::view` draws only.
//! - `list`: `convo list …` for scripts (`visitor_join`: `--with-visitor`, `--visitor-email`);
//!   `summary`: `convo summary …`.
//! - `setup`: `convo doctor`, `convo config init` (completions and the man page: `cli`).
//! - `logging`: tracing to a file in the data dir, never to the screen.
//! - `output`: the writers `list`, `summary` and `tui` share (CSV, JSON, table, stderr lines).
//! - `demo`: the embedded demo server (`convo demo-server`, `--demo`).
//! - `config`: the config file with env and flag overrides; `config::ui`: its look-and-keys part.
//! - `sla`: response-time targets (pure); `store`: the local SQLite store.
//! - `pager`: the cursor walk (pure).
//! - `api`: models, filters, key, errors, HTTP client (no UI).
//! - `text`: sanitising untrusted text for the terminal.
//! - `testing`: test-only switches, only in builds with the `testing` feature.
#![forbid(unsafe_code)]

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

use convo::api::{ApiKey, Client, KeySource};
use convo::cli::{self, Cli, Command, ConfigCommand, ListCommand, StoreCommand};
use convo::config::{Config, Overrides};
use convo::demo::{DemoOptions, DemoServer};
use convo::exit;
use convo::list;
use convo::options::{ConversationOptions, VisitorOptions};
use convo::output::Output;
use convo::setup::{self, client_for};

fn main() -> ExitCode {
    let cli = Cli::parse();
    // `list` is one request after another: a single-threaded runtime saves a cross-thread
    // wake-up per request (measured: benches/walk.rs). The TUI and the demo server get threads.
    let mut builder = if matches!(cli.command, Some(Command::List(_))) && !cli.demo {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    // The browser's loop runs on this thread (block_on); its fetches need one worker beside
    // it, not one per core: with a worker per core, every page asked for wakes another worker
    // to steal it, and on a busy 2-core machine those wake-ups and the third runnable thread
    // cost wall time (issue 36: `L` of 300,000 rows in tmux, scripts/load-all-in-tmux.sh,
    // about 18 % faster with one worker; docs/performance.md). `--demo` keeps a worker per
    // core: its server runs in this process.
    if cli.command.is_none() && !cli.demo {
        builder.worker_threads(1);
    }
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("convo: error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let _log = convo::logging::init();
    let code = runtime.block_on(run(cli));
    ExitCode::from(code)
}

/// Prints a top-level error and returns its exit code.
fn report(e: impl std::fmt::Display, code: u8) -> u8 {
    tracing::error!(code, "{e}");
    // Not eprintln!: it panics when stderr is gone (a closed terminal).
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "convo: error: {e}");
    code
}

async fn run(cli: Cli) -> u8 {
    let ov = Overrides {
        config_path: cli.config.clone(),
        base_url: cli.base_url.clone(),
        profile: cli.profile.clone(),
        proxy: cli.proxy.clone(),
    };
    match &cli.command {
        Some(Command::DemoServer(args)) => {
            return match convo::demo::run_cli(
                args.to_options(),
                args.tls(),
                args.targets_out.clone(),
            )
            .await
            {
                Ok(()) => exit::OK,
                Err(e) => report(format!("demo server: {e}"), 1),
            };
        }
        Some(Command::Completions { shell }) => {
            cli::completions(*shell, &mut std::io::stdout());
            return exit::OK;
        }
        Some(Command::Man) => {
            return match cli::man(&mut std::io::stdout()) {
                Ok(()) => exit::OK,
                Err(e) => report(e, 1),
            };
        }
        Some(Command::Doctor) => {
            return setup::doctor(&ov, convo::tui::ui_problems, &mut std::io::stdout()).await;
        }
        Some(Command::Config(ConfigCommand::Path)) => {
            return match convo::config::path_for(&ov) {
                Some(p) => {
                    println!("{}", p.display());
                    exit::OK
                }
                None => report("no config directory on this platform; use --config PATH", 1),
            };
        }
        Some(Command::Config(ConfigCommand::Init { force })) => {
            return match setup::init(&ov, *force, &mut std::io::stderr()).await {
                Ok(p) => {
                    println!("wrote {} (mode 0600); run `convo` to browse", p.display());
                    exit::OK
                }
                Err(e) => report(e, exit::USAGE),
            };
        }
        _ => {}
    }

    // --demo: an embedded server on a free loopback port stands in for the service.
    let mut demo = None;
    let cfg = if cli.demo {
        let opts = DemoOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            anchor: Some(jiff::Timestamp::now()),
            // A live queue: a new conversation or a pick-up every 5 s, so the demo's minute
            // targets show conversations turning imminent and breaching as one watches; a
            // third of the new ones by a new visitor, whom the visitor sync names.
            faults: convo::demo::Faults {
                churn: convo::demo::Churn {
                    per_minute: 12,
                    new_visitors: 30,
                    ..Default::default()
                },
                ..Default::default()
            },
            budget: cli.demo_rate_limit.map(|limit| convo::demo::RequestBudget {
                limit,
                window: std::time::Duration::from_secs(60),
                headers: convo::demo::LimitHeaders::Ietf,
            }),
            ..DemoOptions::default()
        };
        let server = match DemoServer::start(opts).await {
            Ok(s) => s,
            Err(e) => return report(format!("cannot start the demo server: {e}"), 1),
        };
        let key = match ApiKey::new(&server.api_key(), KeySource::Demo, "sk_") {
            Ok(k) => k,
            Err(e) => return report(e, exit::USAGE),
        };
        // The demo's sites and agents get names, as in the README's screens (the user's own
        // aliases for the same ids win).
        let targets = convo::demo::targets();
        let cfg = Config::for_demo(server.base_url(), key, targets, &ov).map(|mut c| {
            for (id, name) in convo::demo::aliases(server.data()) {
                let kind = if server.data().sites.contains(&id) {
                    convo::config::AliasKind::Site
                } else {
                    convo::config::AliasKind::Agent
                };
                match c.aliases.name(&id) {
                    None => c.aliases.insert_as(id, name, kind),
                    // The user's name for it, of the kind the demo knows.
                    Some(own) if c.aliases.kind(&id).is_none() => {
                        let own = own.to_string();
                        c.aliases.insert_as(id, own, kind)
                    }
                    Some(_) => {}
                }
            }
            // `me` is one of the demo's agents with open conversations, unless the user's
            // config gives its own `agent_id`.
            if c.query.agent_id.is_none() {
                c.query.agent_id = convo::demo::me(server.data());
                c.query.demo_me = c.query.agent_id.is_some();
            }
            c
        });
        demo = Some(server);
        cfg
    } else {
        Config::load(&ov)
    };
    let cfg = match cfg {
        Ok(c) => c,
        Err(e) => return report(e, exit::USAGE),
    };
    // `[columns]` names are the TUI's column table's: refused here, for every command, as the
    // config's own checks refuse a value.
    if let Err((key, message)) = convo::tui::columns::check(&cfg.ui.columns) {
        return report(cfg.invalid(key, message), exit::USAGE);
    }
    for w in &cfg.warnings {
        eprintln!("convo: warning: {w}");
    }
    let client = match client_for(&cfg) {
        Ok(c) => c,
        Err(e) => return report(&e, exit::exit_code(&e)),
    };
    tracing::info!(base = %client.base_url(), key = %client.masked_key(), "starting");
    // Every process on this profile's store shares one request budget (its ledger): those
    // that send requests. `store path`, `stats` and `clear` send none, and must not open (and
    // so create) the store from a thread of their own: `store path` before a test wrote a
    // damaged file left a fresh store's WAL beside it, and the damage went unseen.
    if matches!(
        cli.command,
        None | Some(
            Command::List(_)
                | Command::Summary(_)
                | Command::Exporter(_)
                | Command::Store(StoreCommand::Sync { .. })
        )
    ) {
        convo::store::ledger::share(&cfg, &client);
    }

    let code = match cli.command {
        Some(Command::List(cmd)) => {
            let stdout = std::io::stdout();
            let stderr = std::io::stderr();
            // Buffered: list flushes once a page, not once a line (a LineWriter would make a
            // write per row).
            let mut out = std::io::BufWriter::with_capacity(64 * 1024, stdout.lock());
            let mut err = stderr.lock();
            let mut o = to_terminal(&mut out, &mut err, &cfg);
            let result = match cmd {
                ListCommand::Conversations(a) => {
                    let a = a.into();
                    list_conversations(&client, &a, &cfg, &mut o).await
                }
                ListCommand::Visitors(a) => {
                    let a: VisitorOptions = a.into();
                    if a.query.is_set() {
                        list::query::visitors(&client, &a, &cfg, &mut o).await
                    } else {
                        let store = open_store(&cfg, &mut o);
                        list::visitors(&client, &a, cfg.page_size, store, &mut o).await
                    }
                }
            };
            match result {
                Ok(()) => exit::OK,
                Err(e) => report(&e, e.exit_code()),
            }
        }
        Some(Command::Summary(cli::SummaryTop {
            command: Some(cli::SummaryCommand::Conversations(a)),
            ..
        })) => {
            let a = a.into();
            let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
            let (mut out, mut err) = (stdout.lock(), stderr.lock());
            let mut o = to_terminal(&mut out, &mut err, &cfg);
            match convo::summary::command::conversations(
                &client,
                &a,
                cfg.page_size,
                cfg.ui
                    .stale_after_secs
                    .unwrap_or(convo::summary::DEFAULT_STALE_AFTER_SECS),
                &cfg.aliases,
                &cfg.sla,
                cfg.query,
                open_store(&cfg, &mut o),
                &mut o,
            )
            .await
            {
                Ok(()) => exit::OK,
                Err(e) => report(&e, e.exit_code()),
            }
        }
        Some(Command::Summary(top)) => {
            let a = (&top.views).into();
            let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
            let (mut out, mut err) = (stdout.lock(), stderr.lock());
            let mut o = to_terminal(&mut out, &mut err, &cfg);
            let store = open_store(&cfg, &mut o);
            match convo::summary::views_command::run(&client, &a, &cfg, store, &mut o).await {
                Ok(()) => exit::OK,
                Err(e) => report(&e, e.exit_code()),
            }
        }
        Some(Command::Exporter(args)) => {
            let opts = args.options(cfg.exporter_interval_secs);
            match convo::exporter::run(client, cfg, opts, &mut std::io::stderr()).await {
                Ok(()) => exit::OK,
                Err(e) => report(&e, e.exit_code()),
            }
        }
        Some(Command::Store(cmd)) => {
            let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
            let (mut out, mut err) = (stdout.lock(), stderr.lock());
            let mut o = to_terminal(&mut out, &mut err, &cfg);
            convo::store_command::run(cmd.action(), &cfg, &client, &mut o).await
        }
        Some(_) => exit::OK,
        None => run_tui(cfg, client, (cli.view, cli.query), cli.demo, cli.fresh).await,
    };
    if let Some(server) = demo {
        server.shutdown().await;
    }
    code
}

/// `convo list conversations`: with `-q` (or flags only a query combines), `--with-visitor`/
/// `--visitor-email`, or plain.
async fn list_conversations(
    client: &Client,
    a: &ConversationOptions,
    cfg: &Config,
    o: &mut Output<'_>,
) -> Result<(), convo::exit::ListError> {
    if a.needs_query() {
        list::query::conversations(client, a, cfg, o).await
    } else if a.with_visitor || a.visitor_email.is_some() {
        let store = open_store(cfg, o);
        convo::list::visitor_join::conversations(client, a, cfg.page_size, store, o).await
    } else {
        list::conversations(client, a, cfg.page_size, &cfg.sla, o).await
    }
}

/// The store for a command, or `None` (off, or unusable: said once on stderr).
fn open_store(cfg: &Config, o: &mut Output<'_>) -> Option<convo::store::Store> {
    convo::store::open_for_command(cfg, o.err)
}

async fn run_tui(
    mut cfg: Config,
    client: Client,
    (view, query): (Option<String>, Option<String>),
    demo: bool,
    fresh: bool,
) -> u8 {
    // `--query`: a view of its own, opened at start (the browser runs its query as it does a
    // saved view's; a query that does not parse or resolve exits 2).
    let view = match query {
        Some(q) => {
            // Said as the flag it came from, not as the view it becomes.
            let names = convo::query::resolve::Names {
                agent_id: cfg.query.agent_id,
                aliases: &cfg.aliases,
                sla: &cfg.sla,
            };
            let tab = convo::api::Resource::Conversations;
            if let Err(e) = convo::query::views::understood(&q, tab, &names) {
                return report(format!("--query: {e}"), exit::USAGE);
            }
            let name = format!("query: {q}");
            cfg.views.push(convo::config::View {
                name: name.clone(),
                tab: convo::api::Resource::Conversations,
                conversations: Default::default(),
                visitors: Default::default(),
                notify: false,
                oldest_first: false,
                query: Some(q),
            });
            Some(name)
        }
        None => view,
    };
    let opts = convo::tui::TuiOptions {
        initial_view: view,
        demo,
        fresh,
    };
    match convo::tui::run(cfg, client, opts).await {
        Ok(convo::tui::Exit::Quit) => exit::OK,
        // As a shell reports a program killed by the signal; the terminal is restored.
        Ok(convo::tui::Exit::Signal(n)) => u8::try_from(128 + n).unwrap_or(1),
        Err(e) => {
            let code = e.exit_code();
            report(e, code)
        }
    }
}

/// A command's output to stdout and stderr (`out` and `err`, locked or buffered), with the
/// config's aliases for its tables.
fn to_terminal<'a>(
    out: &'a mut dyn std::io::Write,
    err: &'a mut dyn std::io::Write,
    cfg: &convo::config::Config,
) -> Output<'a> {
    Output {
        out_is_terminal: std::io::stdout().is_terminal(),
        err_is_terminal: std::io::stderr().is_terminal(),
        aliases: cfg.aliases.clone(),
        out,
        err,
    }
}
