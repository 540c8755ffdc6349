//! A query with the agents and sites that have an alias written by it: what the query line
//! (`:`) shows of a tab's query taken from its filters (which hold UUIDs), so that it reads
//! as the user would write it. A name is used only when it resolves back to the same UUID.

use uuid::Uuid;

use super::{AssigneeRef, NameRef, Pred, Query};
use convo_config::Aliases;

/// `q` with each agent and site UUID that has an alias replaced by it, and the agent who is
/// `me` (`agent_id`) written `me`.
pub fn with_aliases(q: &Query, aliases: &Aliases, me: Option<Uuid>) -> Query {
    let mut out = q.clone();
    for t in &mut out.terms {
        match &mut t.pred {
            Pred::Assignee(vs) => {
                for v in vs {
                    if let AssigneeRef::Id(id) = v {
                        if me == Some(*id) {
                            *v = AssigneeRef::Me;
                        } else if let Some(n) = alias(aliases, *id) {
                            *v = AssigneeRef::Name(n);
                        }
                    }
                }
            }
            Pred::Site(vs) => {
                for v in vs {
                    if let NameRef::Id(id) = v
                        && let Some(n) = alias(aliases, *id)
                    {
                        *v = NameRef::Name(n);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The alias of `id` when it names nothing else (so that it resolves back to `id`).
fn alias(aliases: &Aliases, id: Uuid) -> Option<String> {
    let name = aliases.name(&id)?.trim();
    let unique = aliases
        .iter()
        .filter(|(_, n)| n.trim().eq_ignore_ascii_case(name))
        .count()
        == 1;
    // A name that reads as a UUID or a keyword would not come back as this alias.
    let plain = !name.is_empty()
        && Uuid::parse_str(name).is_err()
        && !["me", "none", "anyone"].contains(&name.to_lowercase().as_str());
    (unique && plain).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::filters::of_conversations;
    use crate::query::parse;
    use crate::query::resolve::{Names, resolve};
    use convo_api::{Assignee, ConversationFilter, Resource, Status};

    #[test]
    fn a_filter_is_written_with_aliases_that_resolve_back_to_it() {
        let site = Uuid::from_u128(1);
        let agent = Uuid::from_u128(2);
        let other = Uuid::from_u128(3);
        let mut aliases = Aliases::default();
        aliases.insert(site, "Web shop".into());
        aliases.insert(agent, "Ana".into());
        let f = ConversationFilter {
            status: Some(Status::Open),
            assignee: Assignee::Agent(agent),
            site_id: Some(site),
            ..Default::default()
        };
        let text = with_aliases(&of_conversations(&f), &aliases, None).to_string();
        assert_eq!(text, "status:open assignee:Ana site:\"Web shop\"");
        let sla = convo_engine::sla::Sla::default();
        let names = Names {
            agent_id: None,
            aliases: &aliases,
            sla: &sla,
        };
        let q = resolve(&parse(&text, Resource::Conversations).unwrap(), &names).unwrap();
        let p = crate::query::plan::conversations(&q, &Default::default(), 16);
        assert_eq!(p.streams, vec![f]);
        // Two UUIDs named alike: the UUID stays.
        aliases.insert(other, "ana".into());
        let g = ConversationFilter {
            assignee: Assignee::Agent(agent),
            ..Default::default()
        };
        assert_eq!(
            with_aliases(&of_conversations(&g), &aliases, None).to_string(),
            format!("assignee:{agent}")
        );
    }
}
