//! Export (`e`): the loaded rows, or the whole filtered walk, to a new file with `convo
//! list`'s formatting, in the format its name ends in ([`Format`]: `.json` a JSON array,
//! `.jsonl` JSON Lines, anything else CSV, as the prompt says while the name is typed). CSV
//! cells are formula-guarded and have terminal controls (ESC, CR, C1, bidi overrides)
//! replaced with visible stand-ins, newlines and tabs kept, so `cat` of the file cannot
//! replay them; JSON carries the exact strings (escaped). The path prompt and the loaded-rows export: [`update`]; the
//! whole-walk export: [`walk`]; writing the file (I/O, run by the runtime): [`write`].
//!
//! Conversations are written as the screen shows them: after `convo list`'s columns, which
//! stay first and unchanged for scripts, come the visitor's name and e-mail and the site's and
//! assignee's aliases ([`NAMED_CSV`], as `convo list --with-visitor` adds its columns). On by
//! default; Tab in the path prompt leaves them out (ids only, exactly `convo list`'s file).

pub mod update;
pub mod walk;
pub mod write;

use convo_api::Resource;
use convo_query::output::{CsvStyle, Printable, csv, json_terminal_safe};

/// The format of an export, from its file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    /// One JSON object a line (`.jsonl`, `.ndjson`).
    Jsonl,
    /// One JSON array (`.json`): what `json.load` reads.
    Json,
}

impl Format {
    /// The format a file name asks for: `.json`, `.jsonl` / `.ndjson`, else CSV.
    pub fn of_path(path: &str) -> Format {
        let lower = path.trim().to_ascii_lowercase();
        if lower.ends_with(".json") {
            Format::Json
        } else if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
            Format::Jsonl
        } else {
            Format::Csv
        }
    }

    /// Its name in the prompt.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Jsonl => "JSON Lines",
            Format::Json => "JSON",
        }
    }
}

/// The exports of this session: the one being written, a whole-walk export waiting for its
/// walk, the path last typed, the questions awaited from the runtime and the ids handed
/// out. Changed by this module's `update` and `walk`; read elsewhere through its methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exports {
    /// A whole-walk export in progress (its walk is read to the end first).
    walk: Option<WalkExport>,
    /// The export being written, a part at a time.
    stream: Option<ExportStream>,
    /// The last export's id.
    ids: u64,
    /// The export path last typed, offered again by `e` until an export to it is written
    /// (after a refusal, a failure or a cancelled question it is not lost).
    path: Option<String>,
    /// The export's questions awaited from the runtime, and the keys typed ahead of them.
    ahead: Ahead,
    /// Conversation exports carry the visitor's name and e-mail and the site's and
    /// assignee's aliases after the ids (Tab in the path prompt turns it off and on).
    names: bool,
}

impl Default for Exports {
    fn default() -> Exports {
        Exports {
            walk: None,
            stream: None,
            ids: 0,
            path: None,
            ahead: Ahead::default(),
            names: true,
        }
    }
}

impl Exports {
    /// A whole-walk export waits for its walk to end.
    pub fn walking(&self) -> bool {
        self.walk.is_some()
    }

    /// An export is being written.
    pub fn writing(&self) -> bool {
        self.stream.is_some()
    }

    /// A path entered waits for the runtime's check: keys typed meanwhile wait for it.
    pub fn awaits_check(&self) -> bool {
        self.ahead.wait.is_some()
    }

    /// A key typed while the path's check is awaited, kept for the question that follows.
    pub fn type_ahead(&mut self, k: crossterm::event::KeyEvent) {
        if let Some(w) = self.ahead.wait.as_mut() {
            w.keys.push(k);
        }
    }

    /// Keys typed ahead of the name-exists question that it did not take as its answer.
    pub fn keys_dropped(&self) -> usize {
        self.ahead.dropped
    }

    /// Conversation exports carry the names the screen shows after the ids.
    pub fn with_names(&self) -> bool {
        self.names
    }

    /// The whole-walk export is dropped (its rows belonged to another profile); where it
    /// was to be written.
    pub fn drop_walk(&mut self) -> Option<String> {
        self.walk.take().map(|w| w.path)
    }

    /// The export being written failed (its task panicked): it ends, nothing more is sent.
    pub fn writing_failed(&mut self) {
        self.stream = None;
    }
}

/// The export's questions while the runtime looks at the disk (issue 39 §11): keys typed
/// ahead of a question (`e`, Enter and `l` in one burst) wait for it instead of landing in
/// whatever holds the keyboard meanwhile (the table, or a path).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ahead {
    /// `e`'s proposed name, until the runtime has said whether it is free.
    pub proposal: Option<String>,
    /// The path entered, until the runtime has said whether it is free.
    pub wait: Option<Wait>,
    /// Keys typed ahead of the name-exists question, not taken as its answer (its guidance
    /// says so).
    pub dropped: usize,
}

/// A path entered whose check is awaited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wait {
    pub path: String,
    /// It is `e`'s proposal, entered before the runtime said whether it is free: a taken
    /// one goes on under the free name the prompt was about to show.
    pub proposed: bool,
    /// Keys typed meanwhile, replayed to the question that comes next.
    pub keys: Vec<crossterm::event::KeyEvent>,
}

/// A whole-walk export in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkExport {
    pub tab: Resource,
    /// The tab's walk it follows; another generation means the walk started over.
    pub generation: u64,
    /// Where it will be written (as typed).
    pub path: String,
}

/// An export being written, one part at a time: the rows `0..total` of the tab's walk of
/// `generation`, handed to the writer in parts of [`PART_ROWS`] (never the whole file in
/// `update`, never a copy of every row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportStream {
    pub id: u64,
    pub tab: Resource,
    pub generation: u64,
    /// Where it is written (as typed).
    pub path: String,
    pub total: usize,
    /// Rows handed to the writer so far.
    pub sent: usize,
    /// Rows the writer has written so far.
    pub written: usize,
    /// Conversations go with what the screen shows for their ids ([`NAMED_CSV`]).
    pub names: bool,
}

/// Rows in one part of an export.
pub const PART_ROWS: usize = 5_000;

/// The CSV columns (and JSONL keys) a conversation export adds after `convo list`'s.
pub const NAMED_CSV: &[&str] = &["visitorName", "visitorEmail", "siteName", "assigneeName"];

/// What the screen shows for a conversation's ids: the visitor's name and e-mail (what the
/// local store, the sync and the Visitors tab have learnt), the site's and assignee's aliases
/// (`[aliases]`). Blank (JSON null) where nothing is known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScreenNames {
    pub visitor_name: Option<String>,
    pub visitor_email: Option<String>,
    pub site: Option<String>,
    pub assignee: Option<String>,
}

impl ScreenNames {
    fn fields(&self) -> [&Option<String>; 4] {
        [
            &self.visitor_name,
            &self.visitor_email,
            &self.site,
            &self.assignee,
        ]
    }
}

/// One part of an export's rows, copied out of the tab for the writer.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportPart {
    Conversations(Vec<convo_api::Conversation>),
    /// Conversations and, for each, what the screen shows for its ids.
    ConversationsNamed(Vec<convo_api::Conversation>, Vec<ScreenNames>),
    Visitors(Vec<convo_api::Visitor>),
}

// Rows compare as their fields do; a visitor's attributes are JSON, which holds no NaN.
impl Eq for ExportPart {}

impl ExportPart {
    /// The part as CSV rows (after the header when `first`) or JSONL; and its row count.
    pub fn format(&self, jsonl: bool, first: bool) -> (String, usize) {
        match self {
            ExportPart::Conversations(r) => format_part(r, jsonl, first),
            ExportPart::ConversationsNamed(r, names) => format_named(r, names, jsonl, first),
            ExportPart::Visitors(r) => format_part(r, jsonl, first),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ExportPart::Conversations(r) | ExportPart::ConversationsNamed(r, _) => r.len(),
            ExportPart::Visitors(r) => r.len(),
        }
    }

    /// The CSV header of this part's rows (an export of no rows is still a valid CSV file).
    pub fn csv_header(&self) -> String {
        match self {
            ExportPart::Conversations(_) => csv_header(Resource::Conversations),
            ExportPart::ConversationsNamed(..) => named_header(),
            ExportPart::Visitors(_) => csv_header(Resource::Visitors),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The CSV header of a tab's rows (an export of no rows is still a valid CSV file).
pub fn csv_header(tab: Resource) -> String {
    let mut out = String::new();
    match tab {
        Resource::Conversations => csv::push_header::<convo_api::Conversation>(&mut out),
        Resource::Visitors => csv::push_header::<convo_api::Visitor>(&mut out),
    }
    out
}

fn named_header() -> String {
    use convo_api::Conversation;
    let mut out = String::new();
    let header: Vec<&str> = Conversation::CSV_HEADER
        .iter()
        .chain(NAMED_CSV)
        .copied()
        .collect();
    csv::push_record(&mut out, &header, CsvStyle::RAW);
    out
}

/// Conversations with their screen names: `convo list`'s fields, then [`NAMED_CSV`]'s (CSV);
/// or each row's JSON with those keys added at its end (JSONL).
fn format_named(
    rows: &[convo_api::Conversation],
    names: &[ScreenNames],
    jsonl: bool,
    first: bool,
) -> (String, usize) {
    let mut out = if first && !jsonl {
        named_header()
    } else {
        String::new()
    };
    let none = ScreenNames::default();
    for (i, r) in rows.iter().enumerate() {
        let n = names.get(i).unwrap_or(&none);
        if jsonl {
            let mut line = Vec::with_capacity(320);
            if r.json_into(&mut line).is_err() || line.last() != Some(&b'}') {
                continue;
            }
            line.pop();
            for (key, value) in NAMED_CSV.iter().zip(n.fields()) {
                line.extend_from_slice(format!(",\"{key}\":").as_bytes());
                if serde_json::to_writer(&mut line, value).is_err() {
                    line.extend_from_slice(b"null");
                }
            }
            line.push(b'}');
            out.push_str(&json_terminal_safe(
                String::from_utf8_lossy(&line).into_owned(),
            ));
            out.push('\n');
        } else {
            let mut fields = r.csv_fields();
            fields.extend(n.fields().map(|f| f.clone().unwrap_or_default()));
            csv::push_record(&mut out, &fields, CsvStyle::FILE);
        }
    }
    (out, rows.len())
}

fn format_part<T: Printable>(rows: &[T], jsonl: bool, first: bool) -> (String, usize) {
    if jsonl || !first {
        let mut out = String::new();
        push_rows(&mut out, rows, jsonl);
        (out, rows.len())
    } else {
        format_rows(rows, false)
    }
}

fn push_rows<T: Printable>(out: &mut String, rows: &[T], jsonl: bool) {
    if jsonl {
        for r in rows {
            if let Ok(j) = serde_json::to_string(r) {
                out.push_str(&json_terminal_safe(j));
                out.push('\n');
            }
        }
    } else {
        for r in rows {
            csv::push_row(out, r, CsvStyle::FILE);
        }
    }
}

/// Rows as CSV (header first) or JSONL, with `convo list`'s formatting.
pub fn format_rows<T: Printable>(rows: &[T], jsonl: bool) -> (String, usize) {
    let mut out = String::new();
    if !jsonl {
        // A file: formulas guarded (it may be opened in a spreadsheet), bytes otherwise exact.
        csv::push_header::<T>(&mut out);
    }
    push_rows(&mut out, rows, jsonl);
    (out, rows.len())
}
