//! How `:`, typing in the query line, Tab, ↑/↓, `?`, Enter and Esc change the app.

use crossterm::event::{KeyCode, KeyEvent};

use super::{QueryLine, Sources, last_term};
use crate::app::App;
use crate::command::Command;
use crate::prompt::{LineEdit, Prompt, edit_line, paste_line};
use crate::search::History;
use crate::tab_query::run_query;
use convo_api::Resource;
use convo_query::query::filters::{of_conversations, of_visitors};
use convo_query::query::plan::{self, Emails};
use convo_query::query::resolve::{Names, resolve};
use convo_query::query::{Query, named, parse};

/// `:`: opens the line on the active tab's query (its filters written as terms); its history
/// and the attribute keys come from the local store.
pub fn open(app: &mut App, cmds: &mut Vec<Command>) {
    let tab = app.active();
    let text = query_text(app, tab);
    // The query shown, followed by a space: a term typed at once is a term of its own
    // (`assignee:me` then `visitor:…` ran together as the agent `mevisitor:…`).
    let text = if text.is_empty() {
        text
    } else {
        format!("{text} ")
    };
    let mut line = QueryLine::new(tab, text);
    line.history = app.query_history().get(tab).clone();
    line.history.start();
    app.open_prompt(Prompt::Query(Box::new(line)));
    cmds.push(Command::LoadQueryLine { tab });
}

/// The query `tab` shows now, as text (agents and sites by their aliases).
pub fn query_text(app: &App, tab: Resource) -> String {
    named::with_aliases(
        app.query_of(tab),
        app.settings().aliases(),
        app.settings().query_settings().agent_id,
    )
    .to_string()
}

/// The store's answer to `Command::LoadQueryLine`.
pub fn on_loaded(app: &mut App, tab: Resource, history: Vec<String>, attr_keys: Vec<String>) {
    if matches!(app.prompt(), Some(Prompt::Query(line)) if line.tab == tab) {
        *app.query_history_mut().get_mut(tab) = History::with_entries(history.clone());
    }
    if let Some(Prompt::Query(line)) = app.prompt_mut()
        && line.tab == tab
    {
        line.history = History::with_entries(history);
        line.attr_keys = attr_keys;
        app.mark_dirty();
    }
}

/// What completion offers on this app: the loaded rows' statuses, agents and sites, the
/// aliases, the tab's views and the store's attribute keys.
fn sources<'a>(app: &'a App, line: &'a QueryLine) -> Sources<'a> {
    let mut s = Sources {
        aliases: Some(app.settings().aliases()),
        attr_keys: &line.attr_keys,
        ..Sources::default()
    };
    if line.tab == Resource::Conversations {
        for r in app.conversations.rows() {
            let status = r.status.as_str().to_string();
            if !s.statuses.contains(&status) {
                s.statuses.push(status);
            }
            if let Some(a) = r.assignee_id
                && !s.agents.contains(&a)
            {
                s.agents.push(a);
            }
            if !s.sites.contains(&r.site_id) {
                s.sites.push(r.site_id);
            }
        }
    }
    s.views = app
        .settings()
        .views()
        .iter()
        .filter(|v| v.tab == line.tab)
        .map(|v| {
            let q = match v.tab {
                Resource::Conversations => of_conversations(&v.conversations),
                Resource::Visitors => of_visitors(&v.visitors),
            };
            let text = named::with_aliases(
                &q,
                app.settings().aliases(),
                app.settings().query_settings().agent_id,
            )
            .to_string();
            (v.name.clone(), v.query.clone().unwrap_or(text))
        })
        .collect();
    s
}

/// A key while the line is open.
pub fn on_key(app: &mut App, mut line: QueryLine, k: KeyEvent, cmds: &mut Vec<Command>) {
    if let Some((text, scroll)) = line.explain.take() {
        // Never past the plan's last line.
        let last = text.lines().count().saturating_sub(1);
        line.explain = match k.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => None,
            KeyCode::Down | KeyCode::Char('j') => Some((text, scroll + 1)),
            KeyCode::Up | KeyCode::Char('k') => Some((text, scroll.saturating_sub(1))),
            KeyCode::PageDown | KeyCode::Char(' ') => Some((text, scroll + 10)),
            KeyCode::PageUp => Some((text, scroll.saturating_sub(10))),
            _ => Some((text, scroll)),
        }
        .map(|(t, s)| (t, s.min(last)));
        app.open_prompt(Prompt::Query(Box::new(line)));
        return;
    }
    match k.code {
        KeyCode::Tab | KeyCode::BackTab => {
            let back = k.code == KeyCode::BackTab;
            let mut l = line.clone();
            l.complete(&sources(app, &line), back);
            l.error = None;
            line = l;
        }
        KeyCode::Up | KeyCode::Down => {
            line.note = None;
            if let Some(t) = line.history.step(&line.text, k.code == KeyCode::Up) {
                line.text = t;
                line.completion = None;
                line.error = None;
            }
        }
        KeyCode::Char('?') if !last_term(&line.text).1 => explain(app, &mut line),
        _ => match edit_line(&mut line.text, k) {
            LineEdit::Cancel => {
                app.close_prompt();
                return;
            }
            LineEdit::Submit => return submit(app, line, cmds),
            LineEdit::Changed => {
                line.completion = None;
                line.error = None;
                line.note = None;
            }
            LineEdit::Ignored => {}
        },
    }
    app.open_prompt(Prompt::Query(Box::new(line)));
}

/// Text pasted into the line.
pub fn on_paste(app: &mut App, mut line: QueryLine, pasted: &str) {
    paste_line(&mut line.text, pasted);
    line.completion = None;
    line.error = None;
    app.open_prompt(Prompt::Query(Box::new(line)));
}

/// The line's text parsed and resolved, or the error (kept on the line). Names of no known
/// kind take the kind the loaded rows show (a site's name is not taken for an assignee).
fn understood(app: &App, line: &mut QueryLine) -> Option<(Query, Query)> {
    let text = line.text.clone();
    let mut aliases = (**app.settings().aliases()).clone();
    if line.tab == Resource::Conversations {
        use convo_config::AliasKind::{Agent, Site};
        for r in app.conversations.rows() {
            aliases.learn(r.site_id, Site);
            if let Some(a) = r.assignee_id {
                aliases.learn(a, Agent);
            }
        }
    }
    let names = Names {
        agent_id: app.settings().query_settings().agent_id,
        aliases: &aliases,
        sla: app.settings().sla(),
    };
    let parsed = parse(&text, line.tab).and_then(|p| resolve(&p, &names).map(|r| (p, r)));
    match parsed {
        Ok(q) => Some(q),
        Err(e) => {
            line.error = Some((e, text));
            None
        }
    }
}

/// `?`: the plan of the text in an overlay (or its error under the line).
fn explain(app: &App, line: &mut QueryLine) {
    let Some((parsed, q)) = understood(app, line) else {
        return;
    };
    let mut head = vec![format!("tab: {}", line.tab.name())];
    if let Some(p) = &app.profiles().current {
        head.push(format!(
            "profile: {} (its aliases, agent_id and [sla] give names, me and due: their meaning)",
            convo_text::one_line(p, 40)
        ));
    }
    let uses_me = parsed.terms.iter().any(|t| {
        matches!(&t.pred, convo_query::query::Pred::Assignee(v) if v.contains(&convo_query::query::AssigneeRef::Me))
    });
    if uses_me && let Some(me) = app.settings().query_settings().agent_id {
        // By name where the aliases have one (the demo names its agents).
        let who = match app.settings().aliases().name(&me) {
            Some(n) => format!("{} = agent {me}", convo_text::one_line(n, 40)),
            None => format!("agent {me}"),
        };
        let from = if app.settings().query_settings().demo_me {
            "the demo's agent with the most open conversations"
        } else {
            "agent_id in the config"
        };
        head.push(format!("me: {who} ({from})"));
    }
    // A saved view of this very query, and what it adds to it.
    let names = Names {
        agent_id: app.settings().query_settings().agent_id,
        aliases: app.settings().aliases(),
        sla: app.settings().sla(),
    };
    for v in app.settings().views().iter().filter(|v| v.tab == line.tab) {
        let theirs = match (&v.query, v.tab) {
            (Some(t), _) => parse(t, v.tab).ok().and_then(|p| resolve(&p, &names).ok()),
            (None, Resource::Conversations) => Some(of_conversations(&v.conversations)),
            (None, Resource::Visitors) => Some(of_visitors(&v.visitors)),
        };
        if theirs.as_ref().map(same_terms) == Some(same_terms(&q)) {
            let mut adds = Vec::new();
            if v.notify {
                adds.push("a bell and a notification when more wait (notify = true)");
            }
            if v.oldest_first {
                adds.push("every page loaded, oldest first");
            }
            head.push(format!(
                "view: {}{}",
                convo_text::one_line(&v.name, 40),
                if adds.is_empty() {
                    String::new()
                } else {
                    format!(" (adds: {})", adds.join("; "))
                }
            ));
        }
    }
    let body = match line.tab {
        Resource::Conversations => {
            let emails = plan::emails_to_resolve(&q);
            if !emails.is_empty() {
                head.push(format!(
                    "visitor e-mails ({}) are looked up (GET /v1/visitors?email=) when the query \
                     runs: each visitor found is one more stream",
                    emails.join(", ")
                ));
            }
            let mut p = plan::conversations(
                &q,
                &Emails::new(),
                app.settings().query_settings().max_streams,
            );
            // The query as written (names, not the UUIDs they resolve to).
            p.query = parsed.to_string();
            p.explain(app.settings().aliases())
        }
        Resource::Visitors => {
            let mut p = plan::visitors(&q, app.settings().query_settings().max_streams);
            p.query = parsed.to_string();
            p.explain(app.settings().aliases())
        }
    };
    line.explain = Some((format!("{}\n{body}", head.join("\n")), 0));
}

/// Enter: a query that parses and resolves runs on the tab ([`run_query`]: one request's
/// filters, which the filter pane then shows, or a union with checks) and goes into the
/// history; a bad one stays on the line with its error, and the rows stay as they were.
fn submit(app: &mut App, mut line: QueryLine, cmds: &mut Vec<Command>) {
    let Some((parsed, _)) = understood(app, &mut line) else {
        app.open_prompt(Prompt::Query(Box::new(line)));
        return;
    };
    // What `list -q` says before any request: a key's typo stays on the line.
    let notes = match convo_query::query::cautions(&parsed, Some(&line.attr_keys)) {
        Ok(n) => n,
        Err(e) => {
            line.error = Some((e, line.text.clone()));
            app.open_prompt(Prompt::Query(Box::new(line)));
            return;
        }
    };
    let text = line.text.trim().to_string();
    app.query_history_mut().get_mut(line.tab).push(&text);
    if !text.is_empty() {
        cmds.push(Command::KeepQuery {
            tab: line.tab,
            text,
        });
    }
    app.close_prompt();
    cmds.extend(run_query(app, line.tab, parsed));
    if !notes.is_empty() {
        app.say(notes.join("; "));
    }
}

/// A query's terms as canonical texts, in order (two queries of the same terms in another
/// order are the same query).
fn same_terms(q: &Query) -> Vec<String> {
    let mut v: Vec<String> = q
        .terms
        .iter()
        .map(|t| {
            Query {
                resource: q.resource,
                terms: vec![t.clone()],
            }
            .to_string()
        })
        .collect();
    v.sort();
    v
}
