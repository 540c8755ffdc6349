//! `convo summary --views`: every view (built-in and `[[views]]`) walked one after another
//! ([`super::views`]) and printed as one table, JSON object, CSV or Prometheus text. A view
//! that fails is a row with its error; the others are printed all the same, and the command
//! then exits 5 (as a query whose streams failed does).

use super::command::{SummaryError, now_from_env};
use super::options::{SummaryFormat, ViewsOptions};
use super::views::{ViewReport, ViewsWalk, all_views};
use super::views_output::{self, ViewState};
use convo_api::{Client, Limit};
use convo_config::Config;
use convo_query::exit::ListError;
use convo_query::output::{CsvStyle, Output};

/// The walk every view of `cfg` shares, with the options' page budget and page size.
pub fn views_walk<'a>(
    client: &'a Client,
    cfg: &'a Config,
    max_pages: Option<u64>,
    limit: Option<i64>,
) -> Result<ViewsWalk<'a>, ListError> {
    Ok(ViewsWalk {
        client,
        page_size: match limit {
            Some(n) => Limit::new(n)?,
            None => cfg.page_size,
        },
        max_pages: Some(max_pages.unwrap_or(cfg.query.scan_max_pages as u64)),
        stale_after_secs: cfg
            .ui
            .stale_after_secs
            .unwrap_or(convo_config::ui::DEFAULT_STALE_AFTER_SECS),
        aliases: &cfg.aliases,
        sla: &cfg.sla,
        settings: cfg.query,
    })
}

/// Runs `convo summary --views`.
pub async fn run(
    client: &Client,
    a: &ViewsOptions,
    cfg: &Config,
    mut store: Option<convo_store::Store>,
    o: &mut Output<'_>,
) -> Result<(), SummaryError> {
    let walk = views_walk(client, cfg, a.max_pages, a.limit)?;
    let views = all_views(&cfg.views, &cfg.sla, cfg.query.agent_id);
    // A bad CONVO_NOW is refused once, before any request; each view is then measured to
    // the clock when its walk starts.
    now_from_env()?;
    let now = || now_from_env().unwrap_or_else(|_| jiff::Timestamp::now());
    let err = &mut *o.err;
    let reports = walk
        .walk_all(&views, now, store.as_mut(), |r| {
            for n in &r.notices {
                let _ = writeln!(err, "{n}");
            }
        })
        .await;
    let text = match a.format {
        SummaryFormat::Table => {
            let width = o.table_width();
            let (text, hidden) =
                views_output::table(&reports, width, &jiff::tz::TimeZone::system());
            if let Some(line) = convo_query::output::stderr::hidden_columns_line(&hidden, width) {
                let _ = writeln!(o.err, "{line}");
            }
            text
        }
        SummaryFormat::Json => views_output::json(&reports),
        SummaryFormat::Csv => {
            views_output::csv(&reports, CsvStyle::stdout(o.out_is_terminal, false))
        }
        SummaryFormat::Prometheus => {
            let states: Vec<ViewState<'_>> = reports.iter().map(ViewState::of).collect();
            views_output::prometheus(&states, a.by, &cfg.aliases)
        }
    };
    match o
        .out
        .write_all(text.as_bytes())
        .and_then(|()| o.out.flush())
    {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(ListError::Io(e).into()),
    }
    let failed: Vec<&ViewReport> = reports.iter().filter(|r| r.outcome.is_err()).collect();
    if failed.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = failed
        .iter()
        .map(|r| format!("{:?}", convo_text::one_line(&r.name, 60)))
        .collect();
    Err(SummaryError::ViewsFailed(
        if failed.len() == reports.len() {
            format!("no view could be read ({})", names.join(", "))
        } else {
            format!(
                "{} of {} views could not be read ({}); the others were printed",
                failed.len(),
                reports.len(),
                names.join(", ")
            )
        },
    ))
}
