//! Filters as types: validated on the client, then turned into query pairs.
//!
//! docs/design.md "Query parameters": UUID filters are checked locally, `limit` is 1..=100, parameters that are not
//! set are not sent, and `unassigned` / `assignee_id` are never sent together (one Assignee
//! control with four states).

use std::fmt;

use uuid::Uuid;

use super::model::Status;

/// Why a filter value was refused before any request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error(
        "{field}: {value:?} is not a UUID (expected e.g. 3f2b8c1e-0a4d-4e5f-9b6a-1c2d3e4f5a6b)"
    )]
    BadUuid { field: &'static str, value: String },
    #[error("status: {0:?} is not one of open, pending, closed")]
    BadStatus(String),
    #[error("assignee: {0:?} is not any, none, anyone or an agent UUID")]
    BadAssignee(String),
    #[error("limit: {0} is outside 1..=100")]
    BadLimit(i64),
    #[error(
        "--unassigned and --assignee-id cannot be used together (the service's combination is undefined)"
    )]
    AssigneeConflict,
    /// Two of `--assignee`, `--unassigned`, `--assignee-id` (one field, given twice).
    #[error(
        "{0} and {1} both set the assignee: give one (--assignee none is --unassigned true, \
         --assignee UUID is --assignee-id UUID), or several values in one query: \
         -q 'assignee:none,UUID'"
    )]
    AssigneeTwice(&'static str, &'static str),
}

/// Parses a UUID filter field, naming the field in the error. Surrounding blanks are ignored.
pub fn parse_uuid(field: &'static str, value: &str) -> Result<Uuid, FilterError> {
    let v = value.trim();
    // `Uuid::parse_str` also takes braced and URN forms; the service is given the plain form.
    Uuid::parse_str(v).map_err(|_| FilterError::BadUuid {
        field,
        value: value.to_string(),
    })
}

/// Page size, always within the spec's 1..=100.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Limit(u8);

impl Limit {
    pub const MAX: Limit = Limit(100);
    pub const DEFAULT: Limit = Limit(50);

    pub fn new(n: i64) -> Result<Limit, FilterError> {
        if (1..=100).contains(&n) {
            Ok(Limit(n as u8))
        } else {
            Err(FilterError::BadLimit(n))
        }
    }

    pub fn get(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The Assignee control's four states (docs/design.md "Query parameters").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Assignee {
    /// No assignee filter.
    #[default]
    Any,
    /// `unassigned=true`
    Unassigned,
    /// `unassigned=false`: assigned to any agent.
    Anyone,
    /// `assignee_id=<uuid>`
    Agent(Uuid),
}

impl Assignee {
    /// Parses the command line form: `any`, `none`/`unassigned`, `anyone`/`assigned`, or a UUID.
    pub fn parse(s: &str) -> Result<Assignee, FilterError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "any" => Ok(Assignee::Any),
            "none" | "unassigned" => Ok(Assignee::Unassigned),
            "anyone" | "assigned" => Ok(Assignee::Anyone),
            other => Uuid::parse_str(other)
                .map(Assignee::Agent)
                .map_err(|_| FilterError::BadAssignee(s.to_string())),
        }
    }

    /// Combines the spec's two parameters as given on a command line, refusing both at once.
    pub fn from_spec_params(
        unassigned: Option<bool>,
        assignee_id: Option<Uuid>,
    ) -> Result<Option<Assignee>, FilterError> {
        match (unassigned, assignee_id) {
            (Some(_), Some(_)) => Err(FilterError::AssigneeConflict),
            (Some(true), None) => Ok(Some(Assignee::Unassigned)),
            (Some(false), None) => Ok(Some(Assignee::Anyone)),
            (None, Some(id)) => Ok(Some(Assignee::Agent(id))),
            (None, None) => Ok(None),
        }
    }

    pub fn label(&self) -> String {
        match self {
            Assignee::Any => "any".into(),
            Assignee::Unassigned => "unassigned".into(),
            Assignee::Anyone => "assigned to anyone".into(),
            Assignee::Agent(id) => format!("assigned to {id}"),
        }
    }
}

/// Which list a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    Conversations,
    Visitors,
}

impl Resource {
    pub const ALL: [Resource; 2] = [Resource::Conversations, Resource::Visitors];

    pub fn path(self) -> &'static str {
        match self {
            Resource::Conversations => "/v1/conversations",
            Resource::Visitors => "/v1/visitors",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Resource::Conversations => "conversations",
            Resource::Visitors => "visitors",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Resource::Conversations => "Conversations",
            Resource::Visitors => "Visitors",
        }
    }
}

/// Filters of the conversations list.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct ConversationFilter {
    pub site_id: Option<Uuid>,
    /// Only the three known statuses are ever set here.
    pub status: Option<Status>,
    pub assignee: Assignee,
    pub visitor_id: Option<Uuid>,
    /// The browser's filter by a visitor's e-mail, resolved to the visitors that have it. One
    /// visitor is sent as `visitor_id` (set too); several are walked one by one and merged
    /// (never sent: the service filters by one `visitor_id`). `None` everywhere else.
    pub by_email: Option<ByEmail>,
}

/// An e-mail and the visitors the service had for it when it was resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ByEmail {
    pub email: String,
    pub visitors: Vec<Uuid>,
}

impl ConversationFilter {
    /// Several visitors to walk one by one and merge (the e-mail filter of more than one).
    pub fn merged_visitors(&self) -> Option<&[Uuid]> {
        self.by_email
            .as_ref()
            .map(|b| b.visitors.as_slice())
            .filter(|v| v.len() > 1)
    }
}

/// Filters of the visitors list. Values are sent trimmed, as typed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct VisitorFilter {
    pub email: Option<String>,
    pub external_id: Option<String>,
}

/// Something that can be sent as a list's query.
pub trait ListFilter {
    const RESOURCE: Resource;
    /// The query pairs to send, without `limit` and `cursor`; unset filters are left out.
    fn query_pairs(&self) -> Vec<(&'static str, String)>;
    fn is_empty(&self) -> bool {
        self.query_pairs().is_empty()
    }
}

impl ListFilter for ConversationFilter {
    const RESOURCE: Resource = Resource::Conversations;

    fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        if let Some(id) = self.site_id {
            q.push(("site_id", id.to_string()));
        }
        if let Some(s) = &self.status {
            q.push(("status", s.as_str().to_string()));
        }
        match self.assignee {
            Assignee::Any => {}
            Assignee::Unassigned => q.push(("unassigned", "true".into())),
            Assignee::Anyone => q.push(("unassigned", "false".into())),
            Assignee::Agent(id) => q.push(("assignee_id", id.to_string())),
        }
        if let Some(id) = self.visitor_id {
            q.push(("visitor_id", id.to_string()));
        }
        q
    }
}

impl ListFilter for VisitorFilter {
    const RESOURCE: Resource = Resource::Visitors;

    fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        if let Some(e) = trimmed(&self.email) {
            q.push(("email", e));
        }
        if let Some(x) = trimmed(&self.external_id) {
            q.push(("external_id", x));
        }
        q
    }
}

fn trimmed(v: &Option<String>) -> Option<String> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

impl ConversationFilter {
    /// Reads a filter back from query pairs (the inverse of `query_pairs`), validating each.
    pub fn from_query_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<ConversationFilter, FilterError> {
        let mut f = ConversationFilter::default();
        let mut unassigned = None;
        let mut assignee_id = None;
        for (k, v) in pairs {
            match k {
                "site_id" => f.site_id = Some(parse_uuid("site_id", v)?),
                "visitor_id" => f.visitor_id = Some(parse_uuid("visitor_id", v)?),
                "assignee_id" => assignee_id = Some(parse_uuid("assignee_id", v)?),
                "status" => {
                    f.status =
                        Some(Status::parse_filter(v).ok_or(FilterError::BadStatus(v.into()))?)
                }
                "unassigned" => {
                    unassigned = Some(match v {
                        "true" => true,
                        "false" => false,
                        _ => return Err(FilterError::BadAssignee(v.into())),
                    })
                }
                _ => {}
            }
        }
        f.assignee = Assignee::from_spec_params(unassigned, assignee_id)?.unwrap_or_default();
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignee_states_never_send_both_params() {
        let id = Uuid::parse_str("3f2b8c1e-0a4d-4e5f-9b6a-1c2d3e4f5a6b").unwrap();
        for (a, want) in [
            (Assignee::Any, vec![]),
            (
                Assignee::Unassigned,
                vec![("unassigned", "true".to_string())],
            ),
            (Assignee::Anyone, vec![("unassigned", "false".to_string())]),
            (Assignee::Agent(id), vec![("assignee_id", id.to_string())]),
        ] {
            let f = ConversationFilter {
                assignee: a,
                ..Default::default()
            };
            assert_eq!(f.query_pairs(), want);
        }
        assert_eq!(
            Assignee::from_spec_params(Some(true), Some(id)),
            Err(FilterError::AssigneeConflict)
        );
    }

    #[test]
    fn unset_filters_not_sent_and_text_trimmed() {
        assert!(ConversationFilter::default().query_pairs().is_empty());
        let v = VisitorFilter {
            email: Some("  a@b.c ".into()),
            external_id: Some("   ".into()),
        };
        assert_eq!(v.query_pairs(), vec![("email", "a@b.c".to_string())]);
    }

    #[test]
    fn limit_bounds() {
        assert!(Limit::new(0).is_err());
        assert!(Limit::new(101).is_err());
        assert_eq!(Limit::new(1).unwrap().get(), 1);
        assert_eq!(Limit::new(100).unwrap().get(), 100);
    }

    #[test]
    fn bad_uuid_names_field() {
        let e = parse_uuid("site_id", "nope").unwrap_err();
        assert!(e.to_string().starts_with("site_id:"), "{e}");
    }
}
