//! Names to UUIDs: `me` from `agent_id`, sites and agents from `[aliases]` (and the demo's
//! names), without regard to case. An unknown or ambiguous name is an error listing the
//! closest names; `due:` without a first-response target is an error too.

use uuid::Uuid;

use super::known::{ASSIGNEE_WORDS, closest};
use super::{AssigneeRef, NameRef, Pred, Query, QueryError};
use convo_config::AliasKind::{self, Agent, Site};
use convo_config::Aliases;
use convo_engine::sla::{Sla, Target};

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
                            *v = AssigneeRef::Id(by_name(n, names.aliases, &term, i, Agent)?)
                        }
                        _ => {}
                    }
                }
            }
            Pred::Site(values) => {
                for (i, v) in values.iter_mut().enumerate() {
                    if let NameRef::Name(n) = v {
                        *v = NameRef::Id(by_name(n, names.aliases, &term, i, Site)?);
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

/// The one UUID of a `kind` named `name` (exactly but for case, else as the start of one
/// name); an alias of the other kind is never taken.
fn by_name(
    name: &str,
    aliases: &Aliases,
    term: &super::Term,
    i: usize,
    kind: AliasKind,
) -> Result<Uuid, QueryError> {
    let what = kind.as_str();
    let other = match kind {
        Site => Agent,
        Agent => Site,
    };
    let all: Vec<(Uuid, &str)> = aliases
        .iter_kinds()
        .filter(|(_, _, k)| *k != Some(other))
        .map(|(id, n, _)| (id, n))
        .collect();
    let found = named(name, &all);
    match found.as_slice() {
        [(id, _)] => Ok(*id),
        [] => {
            let shown = convo_text::one_line(name, 40);
            let theirs: Vec<(Uuid, &str)> = aliases
                .iter_kinds()
                .filter(|(_, _, k)| *k == Some(other))
                .map(|(id, n, _)| (id, n))
                .collect();
            if let [(_, n), ..] = named(name, &theirs).as_slice() {
                let n = convo_text::one_line(n, 40);
                return Err(QueryError::new(
                    term.value_span(i),
                    format!("{n:?} is {} {}", article(other.as_str()), other.as_str()),
                    format!("{} {what}'s UUID or name", article(what)),
                )
                .hint(format!(
                    "{}:{} lists its conversations",
                    other.as_str(),
                    super::quote(&n)
                )));
            }
            let words: &[&str] = match kind {
                Agent => &ASSIGNEE_WORDS,
                Site => &[],
            };
            let near = closest(
                name,
                words
                    .iter()
                    .map(|w| w.to_string())
                    .chain(all.iter().map(|(_, n)| n.to_string())),
                3,
            );
            let expected = match kind {
                Agent => "an agent's UUID or name from [aliases], me, none or anyone".to_string(),
                Site => "a site's UUID or name from [aliases]".to_string(),
            };
            let e = QueryError::new(
                term.value_span(i),
                format!("no {what} named {shown:?}"),
                expected,
            );
            Err(match near.first() {
                Some(w) if words.contains(&w.as_str()) => e.hint(format!("did you mean {w}?")),
                Some(_) => e.hint(format!("closest: {}", quote_all(&near))),
                None if all.is_empty() => {
                    e.hint(format!("[aliases] in the config names no {what}"))
                }
                None => e,
            })
        }
        several => {
            let names: Vec<String> = several.iter().map(|(_, n)| n.to_string()).collect();
            Err(QueryError::new(
                term.value_span(i),
                format!(
                    "{:?} names {} {what}s",
                    convo_text::one_line(name, 40),
                    several.len()
                ),
                "a name that fits one (quote it in full) or a UUID",
            )
            .hint(format!("it fits {}", quote_all(&names))))
        }
    }
}

/// The aliases of `all` named `name` exactly but for case, else those it starts.
fn named<'a>(name: &str, all: &'a [(Uuid, &'a str)]) -> Vec<&'a (Uuid, &'a str)> {
    let wanted = name.to_lowercase();
    let exact: Vec<&(Uuid, &str)> = all
        .iter()
        .filter(|(_, n)| n.to_lowercase() == wanted)
        .collect();
    if exact.is_empty() {
        all.iter()
            .filter(|(_, n)| n.to_lowercase().starts_with(&wanted))
            .collect()
    } else {
        exact
    }
}

/// `a` or `an` before `word`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn quote_all(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{:?}", convo_text::one_line(n, 40)))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parse;
    use convo_api::Resource::Conversations as C;
    use convo_config::AliasKind;

    const SHOP: Uuid = Uuid::from_u128(0x51);
    const GORAN: Uuid = Uuid::from_u128(0xa7);
    const LIAM: Uuid = Uuid::from_u128(0xa9);

    /// A site and an agent of known kinds, and a name of no known kind.
    fn run(q: &str) -> Result<Query, QueryError> {
        let mut a = Aliases::default();
        a.insert_as(SHOP, "Web shop".into(), AliasKind::Site);
        a.insert_as(GORAN, "Goran".into(), AliasKind::Agent);
        a.insert(LIAM, "Liam".into());
        let sla = Sla::default();
        let names = Names {
            agent_id: None,
            aliases: &a,
            sla: &sla,
        };
        resolve(&parse(q, C).unwrap(), &names)
    }

    #[test]
    fn a_name_of_the_other_kind_is_an_error_that_names_its_kind() {
        let e = run("assignee:\"Web shop\"").unwrap_err();
        assert_eq!(e.found, "\"Web shop\" is a site");
        assert_eq!(e.expected, "an agent's UUID or name");
        assert_eq!(
            e.hint.as_deref(),
            Some("site:\"Web shop\" lists its conversations")
        );
        let e = run("site:gor").unwrap_err();
        assert_eq!(e.found, "\"Goran\" is an agent");
        // A name of no known kind is taken for either.
        assert!(run("assignee:liam site:liam").is_ok());
        assert!(run("assignee:goran site:web").is_ok());
    }

    #[test]
    fn an_assignee_typo_of_none_me_or_anyone_says_which() {
        let e = run("assignee:nnoe").unwrap_err();
        assert_eq!(e.found, "no agent named \"nnoe\"");
        assert_eq!(
            e.expected,
            "an agent's UUID or name from [aliases], me, none or anyone"
        );
        assert_eq!(e.hint.as_deref(), Some("did you mean none?"));
        assert_eq!(
            run("assignee:anyon").unwrap_err().hint.as_deref(),
            Some("did you mean anyone?")
        );
        assert_eq!(
            run("assignee:gorn").unwrap_err().hint.as_deref(),
            Some("closest: \"Goran\"")
        );
    }
}
