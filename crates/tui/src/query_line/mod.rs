//! The query line (`:`): the tab's query as text, edited over the table, with completion
//! (Tab, Shift-Tab), history (↑/↓, kept in the local store), the plan (`?`) and an error
//! with its caret under the line. Enter runs it; Esc leaves everything as it was. The
//! filter pane (`/`) edits the same query: the line opens on the tab's query, filters set
//! by the pane written as terms. How keys change it: [`update`]; drawn by
//! `view::query_line`.

pub mod save;
pub mod update;

use uuid::Uuid;

use super::search::History;
use convo_api::Resource;
use convo_config::Aliases;
use convo_query::query::QueryError;

/// The open query line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryLine {
    /// The tab whose query it edits.
    pub tab: Resource,
    pub text: String,
    /// The last Enter (or `?`) refused the text: the error and the text it was about.
    pub error: Option<(QueryError, String)>,
    /// Tab pressed: the candidates, cycled by Tab and Shift-Tab.
    pub completion: Option<Completion>,
    /// `?`: the plan of the text, scrolled by this many lines (Esc goes back to the line).
    pub explain: Option<(String, usize)>,
    /// Earlier queries of this tab (from the local store), for ↑ and ↓.
    pub history: History,
    /// Keys of the visitors' attributes in the local store (`visitor.KEY:`, `attr.KEY:`).
    pub attr_keys: Vec<String>,
    /// Completion found nothing: said under the line until the next key.
    pub note: Option<String>,
}

impl QueryLine {
    /// A line on `tab` showing `text` (the tab's query).
    pub fn new(tab: Resource, text: String) -> QueryLine {
        QueryLine {
            tab,
            text,
            error: None,
            completion: None,
            explain: None,
            history: History::default(),
            attr_keys: Vec::new(),
            note: None,
        }
    }
}

/// One completion: what the list shows and what goes into the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub label: String,
    pub insert: String,
}

/// The candidates of one Tab and which one is in the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Byte offset in the text where the inserted candidate begins.
    pub start: usize,
    pub candidates: Vec<Candidate>,
    pub index: usize,
}

/// What completion offers besides the language itself.
#[derive(Debug, Clone, Default)]
pub struct Sources<'a> {
    pub aliases: Option<&'a Aliases>,
    /// Statuses of the loaded rows (ones convo does not know included).
    pub statuses: Vec<String>,
    /// Agents assigned to loaded rows.
    pub agents: Vec<Uuid>,
    /// Sites of loaded rows.
    pub sites: Vec<Uuid>,
    /// Saved views of the tab: name and the query it means (offered on an empty line).
    pub views: Vec<(String, String)>,
    pub attr_keys: &'a [String],
}

/// Where the term being typed at the end of `text` begins (a space outside quotes ends the
/// one before it), and whether a quote is open there.
pub fn last_term(text: &str) -> (usize, bool) {
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => start = i + 1,
            _ => {}
        }
    }
    (start, quoted)
}

/// The candidates for the term at the end of `text` on `tab`, and where the part they
/// replace begins.
pub fn candidates(tab: Resource, text: &str, src: &Sources<'_>) -> (usize, Vec<Candidate>) {
    let (start, _) = last_term(text);
    let term = &text[start..];
    if text.trim().is_empty() {
        let mut out: Vec<Candidate> = src
            .views
            .iter()
            .filter(|(_, q)| !q.is_empty())
            .map(|(name, q)| Candidate {
                label: format!("view {}", convo_text::one_line(name, 40)),
                insert: q.clone(),
            })
            .collect();
        out.extend(fields(tab, "", "", src));
        return (0, out);
    }
    let neg = usize::from(term.starts_with('-'));
    let rest = &term[neg..];
    let Some(colon) = rest.find(':') else {
        return (start, fields(tab, &term[..neg], rest, src));
    };
    let field = rest[..colon].to_ascii_lowercase();
    let values = &rest[colon + 1..];
    let (value_at, given) = match values.rfind(',') {
        Some(c) => (
            c + 1,
            values[..c].split(',').map(unquote).collect::<Vec<_>>(),
        ),
        None => (0, Vec::new()),
    };
    let typed = unquote(&values[value_at..]).to_lowercase();
    let from = start + neg + colon + 1 + value_at;
    let out = values_of(tab, &field, src)
        .into_iter()
        .filter(|v| v.to_lowercase().starts_with(&typed))
        .filter(|v| !given.iter().any(|g| g.eq_ignore_ascii_case(v)))
        .map(|v| Candidate {
            insert: convo_query::query::quote(&v),
            label: v,
        })
        .collect();
    (from, out)
}

fn unquote(s: &str) -> String {
    s.trim().trim_matches('"').to_string()
}

/// Field names starting with `typed` (`visitor.KEY` and `attr.KEY` become one per attribute
/// key the store knows), each inserted with its colon.
fn fields(tab: Resource, neg: &str, typed: &str, src: &Sources<'_>) -> Vec<Candidate> {
    let typed = typed.to_ascii_lowercase();
    let mut names: Vec<String> = Vec::new();
    for f in convo_query::query::fields(tab) {
        match f.strip_suffix("KEY") {
            Some(prefix) => {
                for k in src.attr_keys {
                    let name = format!("{prefix}{}", convo_query::query::quote(k));
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
            }
            None => names.push((*f).to_string()),
        }
    }
    names
        .into_iter()
        .filter(|n| n.to_ascii_lowercase().starts_with(&typed))
        .map(|n| Candidate {
            label: format!("{n}:"),
            insert: format!("{neg}{n}:"),
        })
        .collect()
}

/// The values `field` takes that completion offers.
fn values_of(tab: Resource, field: &str, src: &Sources<'_>) -> Vec<String> {
    use convo_config::AliasKind;
    let known = |ids: &[Uuid], other: &[Uuid], other_kind: AliasKind| -> Vec<String> {
        let mut out = Vec::new();
        let name = |id: &Uuid| src.aliases.and_then(|a| a.name(id)).map(str::to_string);
        // Seen in the loaded rows first (by alias when there is one), then the other aliases
        // not seen as the other kind nor declared of it.
        for id in ids {
            out.push(name(id).unwrap_or_else(|| id.to_string()));
        }
        if let Some(a) = src.aliases {
            for (id, n) in a.iter() {
                if !ids.contains(&id) && !other.contains(&id) && a.kind(&id) != Some(other_kind) {
                    out.push(n.to_string());
                }
            }
        }
        dedupe(out)
    };
    match (tab, field) {
        (Resource::Conversations, "status") => {
            let mut v: Vec<String> = convo_api::Status::KNOWN
                .iter()
                .map(|s| s.as_str().to_string())
                .collect();
            v.extend(src.statuses.iter().cloned());
            dedupe(v)
        }
        (Resource::Conversations, "assignee") => {
            let mut v = vec!["me".to_string(), "none".into(), "anyone".into()];
            v.extend(known(&src.agents, &src.sites, AliasKind::Site));
            dedupe(v)
        }
        (Resource::Conversations, "site") => known(&src.sites, &src.agents, AliasKind::Agent),
        (Resource::Conversations, "is") => vec!["waiting".into(), "stale".into()],
        (Resource::Conversations, "due") => {
            vec!["breaching".into(), "imminent".into(), "ok".into()]
        }
        (_, "age" | "idle") => vec![">10m".into(), ">1h".into(), "<30m".into(), ">1d".into()],
        _ => Vec::new(),
    }
}

fn dedupe(v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in v {
        if !out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
            out.push(s);
        }
    }
    out
}

impl QueryLine {
    /// Tab (or Shift-Tab, `back`): the next candidate in the line, computing them first.
    /// One candidate is simply taken (the next Tab completes what follows it).
    pub fn complete(&mut self, src: &Sources<'_>, back: bool) {
        self.note = None;
        if let Some(c) = &mut self.completion {
            let n = c.candidates.len();
            c.index = if back {
                (c.index + n - 1) % n
            } else {
                (c.index + 1) % n
            };
            self.text.truncate(c.start);
            self.text.push_str(&c.candidates[c.index].insert);
            return;
        }
        let (start, candidates) = candidates(self.tab, &self.text, src);
        let index = if back {
            candidates.len().saturating_sub(1)
        } else {
            0
        };
        let Some(first) = candidates.get(index) else {
            self.note = Some("nothing to complete here".into());
            return;
        };
        self.text.truncate(start);
        self.text.push_str(&first.insert);
        if candidates.len() > 1 {
            self.completion = Some(Completion {
                start,
                candidates,
                index,
            });
        }
    }
}

/// `w`: saving the tab's query as a view; the name asked for, then (when a view has it
/// already) whether to replace it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveView {
    /// The name as typed.
    pub name: String,
    pub tab: Resource,
    /// The query's text, as the line shows it.
    pub query: String,
    /// A view has this name: asking whether to replace it.
    pub confirm: bool,
}
