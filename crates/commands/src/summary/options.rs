//! The options of `convo summary conversations`, as plain values; `cli` builds them from
//! the command line.

use convo_query::options::{ConversationFilterOptions, QueryOptions};

/// `convo summary conversations`: the filters of `list conversations`, and how to group.
#[derive(Debug, Clone, Default)]
pub struct SummaryOptions {
    /// Group by status, site or assignee.
    pub by: crate::summary::By,
    pub filter: ConversationFilterOptions,
    pub query: QueryOptions,
    /// A conversation not closed is stale after this many seconds without an update
    /// (default: `stale_after` from the config, else 2h).
    pub stale_after: Option<i64>,
    /// Stop after this many conversations; the summary then says it is partial.
    pub max: Option<u64>,
    /// Stop after this many requests (a page budget); the summary then says it is partial
    /// (`convo summary --views` shows "≥ N").
    pub max_pages: Option<u64>,
    /// Rows per request (default: `page_size` from the config); checked by `Limit::new`.
    pub limit: Option<i64>,
    pub format: SummaryFormat,
    /// Add the counts against the response-time targets of `[sla]`.
    pub sla: bool,
    /// Also say how many conversations are new or changed since the browser's last look.
    pub since_last: bool,
    /// Walk again every this many seconds until Ctrl-C.
    pub watch: Option<i64>,
}

/// Output formats of `convo summary`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SummaryFormat {
    /// Aligned columns with a bar, a total and what the summary covers.
    #[default]
    Table,
    /// One JSON object; ages in seconds.
    Json,
    /// RFC 4180 CSV with a header line; ages in seconds.
    Csv,
    /// Prometheus text format for node_exporter's textfile collector.
    Prometheus,
}

/// `convo summary --views`: every view's counts, one row each.
#[derive(Debug, Clone, Default)]
pub struct ViewsOptions {
    pub format: SummaryFormat,
    /// Prometheus: how the summary gauges are grouped (each sample also has `view`).
    pub by: crate::summary::By,
    /// Requests one view may send (default: `scan_max_pages` from the config); past it the
    /// count is "≥ N".
    pub max_pages: Option<u64>,
    /// Rows per request (default: `page_size` from the config); checked by `Limit::new`.
    pub limit: Option<i64>,
}
