//! A tab's filter (what the filter pane, `u`, `s`, drill-downs and views set) as the query it
//! means, so that the query line (`:`) opens on the tab's filters written as terms. Agents
//! and sites with an alias are written by it (it resolves back to the same UUID).

use uuid::Uuid;

use super::{AssigneeRef, NameRef, Pred, Query, Term, VisitorRef};
use crate::api::{Assignee, ConversationFilter, Resource, VisitorFilter};
use crate::config::Aliases;

/// The query a Conversations filter means.
pub fn conversations(f: &ConversationFilter, aliases: &Aliases) -> Query {
    let mut terms = Vec::new();
    let mut term = |p: Pred| terms.push(Term::new(false, p));
    if let Some(s) = &f.status {
        term(Pred::Status(vec![s.clone()]));
    }
    match f.assignee {
        Assignee::Any => {}
        Assignee::Unassigned => term(Pred::Assignee(vec![AssigneeRef::None])),
        Assignee::Anyone => term(Pred::Assignee(vec![AssigneeRef::Anyone])),
        Assignee::Agent(id) => term(Pred::Assignee(vec![match alias(aliases, id) {
            Some(n) => AssigneeRef::Name(n),
            None => AssigneeRef::Id(id),
        }])),
    }
    if let Some(id) = f.site_id {
        term(Pred::Site(vec![match alias(aliases, id) {
            Some(n) => NameRef::Name(n),
            None => NameRef::Id(id),
        }]));
    }
    match (&f.by_email, f.visitor_id) {
        (Some(b), _) => term(Pred::Visitor(vec![VisitorRef::Email(b.email.clone())])),
        (None, Some(id)) => term(Pred::Visitor(vec![VisitorRef::Id(id)])),
        (None, None) => {}
    }
    Query {
        resource: Resource::Conversations,
        terms,
    }
}

/// The query a Visitors filter means.
pub fn visitors(f: &VisitorFilter) -> Query {
    let mut terms = Vec::new();
    if let Some(e) = f.email.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
        terms.push(Term::new(false, Pred::Email(vec![e.to_string()])));
    }
    if let Some(x) = f
        .external_id
        .as_deref()
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        terms.push(Term::new(false, Pred::ExternalId(vec![x.to_string()])));
    }
    Query {
        resource: Resource::Visitors,
        terms,
    }
}

/// The alias of `id` when it names nothing else (so that it resolves back to `id`).
fn alias(aliases: &Aliases, id: Uuid) -> Option<String> {
    let name = aliases.name(&id)?;
    let unique = aliases
        .iter()
        .filter(|(_, n)| n.trim().eq_ignore_ascii_case(name.trim()))
        .count()
        == 1;
    // A name that parses as a UUID or a keyword would not come back as this alias.
    let plain = Uuid::parse_str(name.trim()).is_err()
        && !["me", "none", "anyone"].contains(&name.trim().to_lowercase().as_str());
    (unique && plain && !name.trim().is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Status;
    use crate::query::parse;
    use crate::query::resolve::{Names, resolve};

    #[test]
    fn a_filter_is_written_as_terms_that_resolve_back_to_it() {
        let site = Uuid::from_u128(1);
        let agent = Uuid::from_u128(2);
        let mut aliases = Aliases::default();
        aliases.insert(site, "Web shop".into());
        aliases.insert(agent, "Ana".into());
        let f = ConversationFilter {
            status: Some(Status::Open),
            assignee: Assignee::Agent(agent),
            site_id: Some(site),
            ..Default::default()
        };
        let text = conversations(&f, &aliases).to_string();
        assert_eq!(text, "status:open assignee:Ana site:\"Web shop\"");
        let sla = crate::sla::Sla::default();
        let names = Names {
            agent_id: None,
            aliases: &aliases,
            sla: &sla,
        };
        let q = resolve(&parse(&text, Resource::Conversations).unwrap(), &names).unwrap();
        let p = crate::query::plan::conversations(&q, &Default::default(), 16);
        assert_eq!(p.streams, vec![f]);
        let unassigned = ConversationFilter {
            assignee: Assignee::Unassigned,
            ..Default::default()
        };
        assert_eq!(
            conversations(&unassigned, &aliases).to_string(),
            "assignee:none"
        );
        let v = VisitorFilter {
            email: Some(" a@b.c ".into()),
            external_id: None,
        };
        assert_eq!(visitors(&v).to_string(), "email:a@b.c");
    }
}
