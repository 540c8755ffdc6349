//! Names to UUIDs: `me` from `agent_id`, sites and agents from `[aliases]` (and the demo's
//! names), without regard to case. An unknown or ambiguous name is an error listing the
//! closest names; `due:` without a first-response target is an error too.

use uuid::Uuid;

use super::{AssigneeRef, NameRef, Pred, Query, QueryError};
use crate::config::Aliases;
use crate::sla::{Sla, Target};

/// What names mean for one profile.
#[derive(Debug, Clone, Copy)]
pub struct Names<'a> {
    /// `agent_id` from the config (top level or the profile): what `me` means.
    pub agent_id: Option<Uuid>,
    pub aliases: &'a Aliases,
    pub sla: &'a Sla,
}

/// The query with every name and `me` replaced by a UUID. Errors point at the value.
pub fn resolve(q: &Query, names: &Names<'_>) -> Result<Query, QueryError> {
    let mut out = q.clone();
    for t in &mut out.terms {
        let term = t.clone();
        match &mut t.pred {
            Pred::Assignee(values) => {
                for (i, v) in values.iter_mut().enumerate() {
                    match v {
                        AssigneeRef::Me => match names.agent_id {
                            Some(id) => *v = AssigneeRef::Id(id),
                            None => {
                                return Err(QueryError::new(
                                    term.value_span(i),
                                    "me, with no agent_id in the config",
                                    "an agent's UUID or name, none or anyone",
                                )
                                .hint(
                                    "set agent_id = \"<your agent UUID>\" at the top of the \
                                     config file or in the profile",
                                ));
                            }
                        },
                        AssigneeRef::Name(n) => {
                            *v = AssigneeRef::Id(by_name(n, names.aliases, &term, i, "agent")?)
                        }
                        _ => {}
                    }
                }
            }
            Pred::Site(values) => {
                for (i, v) in values.iter_mut().enumerate() {
                    if let NameRef::Name(n) = v {
                        *v = NameRef::Id(by_name(n, names.aliases, &term, i, "site")?);
                    }
                }
            }
            Pred::Due(_) if !names.sla.is_tracked(Target::FirstResponse) => {
                return Err(QueryError::new(
                    term.span.clone(),
                    "due: with no first_response target",
                    "a term that needs no target",
                )
                .hint("set [sla] first_response in the config (e.g. first_response = \"5m\")"));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The one UUID named `name` (exactly but for case, else as the start of one name).
fn by_name(
    name: &str,
    aliases: &Aliases,
    term: &super::Term,
    i: usize,
    what: &str,
) -> Result<Uuid, QueryError> {
    let wanted = name.to_lowercase();
    let all: Vec<(Uuid, &str)> = aliases.iter().collect();
    let exact: Vec<&(Uuid, &str)> = all
        .iter()
        .filter(|(_, n)| n.to_lowercase() == wanted)
        .collect();
    let found = if exact.is_empty() {
        all.iter()
            .filter(|(_, n)| n.to_lowercase().starts_with(&wanted))
            .collect()
    } else {
        exact
    };
    match found.as_slice() {
        [(id, _)] => Ok(*id),
        [] => {
            let near = closest(name, all.iter().map(|(_, n)| n.to_string()), 3);
            let e = QueryError::new(
                term.value_span(i),
                format!("no {what} named {:?}", crate::text::one_line(name, 40)),
                format!("a {what}'s UUID or a name from [aliases]"),
            );
            Err(if near.is_empty() {
                if all.is_empty() {
                    e.hint("[aliases] in the config names no site or agent")
                } else {
                    e
                }
            } else {
                e.hint(format!("closest: {}", quote_all(&near)))
            })
        }
        several => {
            let names: Vec<String> = several.iter().map(|(_, n)| n.to_string()).collect();
            Err(QueryError::new(
                term.value_span(i),
                format!(
                    "{:?} names {} {what}s",
                    crate::text::one_line(name, 40),
                    several.len()
                ),
                "a name that fits one (quote it in full) or a UUID",
            )
            .hint(format!("it fits {}", quote_all(&names))))
        }
    }
}

fn quote_all(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{:?}", crate::text::one_line(n, 40)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Up to `n` of `candidates` closest to `s` (edit distance, ignoring case), nearest first;
/// only those near enough to be a typo or a start.
pub(crate) fn closest(s: &str, candidates: impl Iterator<Item = String>, n: usize) -> Vec<String> {
    let want: Vec<char> = s.to_lowercase().chars().take(64).collect();
    let mut scored: Vec<(usize, String)> = candidates
        .filter_map(|c| {
            let lc: Vec<char> = c.to_lowercase().chars().take(64).collect();
            let d = if !want.is_empty() && lc.starts_with(&want) {
                0
            } else {
                distance(&want, &lc)
            };
            (d <= (want.len() / 3).max(2)).then_some((d, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

/// Levenshtein distance.
fn distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}
