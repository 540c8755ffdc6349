//! One request's filters as the query they mean (the browser's filter pane and the `[[views]]`
//! keys are the same query as its text): `status=open&unassigned=true` is `status:open
//! assignee:none`.

use super::{AssigneeRef, NameRef, Pred, Query, Term, VisitorRef};
use convo_api::{Assignee, ConversationFilter, Resource, VisitorFilter};

/// The query a conversations filter means.
pub fn of_conversations(f: &ConversationFilter) -> Query {
    let mut terms = Vec::new();
    if let Some(s) = &f.status {
        terms.push(Term::new(false, Pred::Status(vec![s.clone()])));
    }
    let who = match f.assignee {
        Assignee::Any => None,
        Assignee::Unassigned => Some(AssigneeRef::None),
        Assignee::Anyone => Some(AssigneeRef::Anyone),
        Assignee::Agent(id) => Some(AssigneeRef::Id(id)),
    };
    if let Some(a) = who {
        terms.push(Term::new(false, Pred::Assignee(vec![a])));
    }
    if let Some(id) = f.site_id {
        terms.push(Term::new(false, Pred::Site(vec![NameRef::Id(id)])));
    }
    match (&f.by_email, f.visitor_id) {
        (Some(b), _) => terms.push(Term::new(
            false,
            Pred::Visitor(vec![VisitorRef::Email(b.email.clone())]),
        )),
        (None, Some(id)) => terms.push(Term::new(false, Pred::Visitor(vec![VisitorRef::Id(id)]))),
        (None, None) => {}
    }
    Query {
        resource: Resource::Conversations,
        terms,
    }
}

/// The query a visitors filter means (blank values are not sent, so not terms).
pub fn of_visitors(f: &VisitorFilter) -> Query {
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

#[cfg(test)]
mod tests {
    use super::*;
    use convo_api::Status;

    #[test]
    fn a_filter_is_the_query_it_sends() {
        let f = ConversationFilter {
            status: Some(Status::Open),
            assignee: Assignee::Unassigned,
            ..Default::default()
        };
        assert_eq!(
            of_conversations(&f).to_string(),
            "status:open assignee:none"
        );
        assert!(of_conversations(&ConversationFilter::default()).is_empty());
        let v = VisitorFilter {
            email: Some(" ana@example.com ".into()),
            external_id: Some(" ".into()),
        };
        assert_eq!(of_visitors(&v).to_string(), "email:ana@example.com");
    }
}
