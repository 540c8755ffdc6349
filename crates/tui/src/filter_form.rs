//! The filter pane: a small form over a copy of the tab's filters. Nothing changes until Enter
//! applies a valid form; Esc leaves the tab as it was.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use tui_input::Input;
use tui_input::backend::crossterm::to_input_request;

use convo_api::filter::parse_uuid;
use convo_api::{Assignee, ConversationFilter, Resource, Status, VisitorFilter};
use convo_config::Aliases;

/// One field of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Site,
    Status,
    Assignee,
    /// The agent UUID, shown only when Assignee is "assigned to <uuid>".
    Agent,
    Visitor,
    /// Conversations: the visitors with this e-mail (asked of the service when applied).
    VisitorEmail,
    Email,
    ExternalId,
}

impl Field {
    /// The label shown before the field.
    pub fn label(self) -> &'static str {
        match self {
            Field::Site => "site id",
            Field::Status => "status",
            Field::Assignee => "assignee",
            Field::Agent => "agent id",
            Field::Visitor => "visitor id",
            Field::VisitorEmail => "visitor email",
            Field::Email => "email",
            Field::ExternalId => "external id",
        }
    }

    /// Choice fields cycle with Space and the arrows; the others take text.
    pub fn is_choice(self) -> bool {
        matches!(self, Field::Status | Field::Assignee)
    }
}

/// The agent field's name in its messages.
const AGENT: &str = "agent id";

/// The status choices, in cycle order.
pub const STATUS_CHOICES: [&str; 4] = ["any", "open", "pending", "closed"];
/// The Assignee choices (docs/design.md "Query parameters": four states), in cycle order.
pub const ASSIGNEE_CHOICES: [&str; 4] = [
    "any",
    "unassigned",
    "assigned to anyone",
    "assigned to <uuid>",
];

/// What a key did to the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormOutcome {
    Editing,
    Apply,
    Cancel,
}

/// The filter pane's state.
#[derive(Debug, Clone)]
pub struct FilterForm {
    pub tab: Resource,
    pub focus: Field,
    pub site: Input,
    /// Index into [`STATUS_CHOICES`].
    pub status: usize,
    /// Index into [`ASSIGNEE_CHOICES`].
    pub assignee: usize,
    pub agent: Input,
    pub visitor: Input,
    pub email: Input,
    pub external_id: Input,
    /// Enter was pressed while a field was invalid: say so in the pane.
    pub refused: bool,
    /// `[aliases]`: the site and agent fields take a name given there as well as a UUID.
    pub aliases: Aliases,
    /// `agent_id` (who `me` is): the agent field takes `me` when it is set.
    pub me: Option<uuid::Uuid>,
    /// The tab runs a query the fields cannot hold (a union, checks in convo): its text, said
    /// above the fields (applying the pane replaces it).
    pub query_note: Option<String>,
}

fn input(v: Option<String>) -> Input {
    Input::new(v.unwrap_or_default())
}

impl FilterForm {
    /// A form over the conversations tab's filters.
    pub fn conversations(f: &ConversationFilter) -> FilterForm {
        let status = match f.status {
            Some(Status::Open) => 1,
            Some(Status::Pending) => 2,
            Some(Status::Closed) => 3,
            _ => 0,
        };
        let (assignee, agent) = match f.assignee {
            Assignee::Any => (0, None),
            Assignee::Unassigned => (1, None),
            Assignee::Anyone => (2, None),
            Assignee::Agent(id) => (3, Some(id.to_string())),
        };
        FilterForm {
            tab: Resource::Conversations,
            focus: Field::Site,
            site: input(f.site_id.map(|u| u.to_string())),
            status,
            assignee,
            agent: input(agent),
            // A visitor chosen by e-mail shows as that e-mail, not as one of its ids.
            visitor: input(
                f.visitor_id
                    .filter(|_| f.by_email.is_none())
                    .map(|u| u.to_string()),
            ),
            email: input(f.by_email.as_ref().map(|b| b.email.clone())),
            external_id: Input::default(),
            refused: false,
            query_note: None,
            aliases: Aliases::default(),
            me: None,
        }
    }

    /// The same form, its site and agent fields taking names from `[aliases]` (and showing a
    /// UUID that has one by its name), as the table shows them.
    pub fn with_aliases(mut self, aliases: &Aliases) -> FilterForm {
        for inp in [&mut self.site, &mut self.agent] {
            let named = uuid::Uuid::parse_str(inp.value().trim())
                .ok()
                .and_then(|id| aliases.name(&id))
                .filter(|n| aliases.ids_named(n).len() == 1);
            if let Some(name) = named {
                *inp = Input::new(name.to_string());
            }
        }
        self.aliases = aliases.clone();
        self
    }

    /// A form over the visitors tab's filters.
    pub fn visitors(f: &VisitorFilter) -> FilterForm {
        FilterForm {
            tab: Resource::Visitors,
            focus: Field::Email,
            site: Input::default(),
            status: 0,
            assignee: 0,
            agent: Input::default(),
            visitor: Input::default(),
            email: input(f.email.clone()),
            external_id: input(f.external_id.clone()),
            refused: false,
            query_note: None,
            aliases: Aliases::default(),
            me: None,
        }
    }

    /// The fields on show, in Tab order.
    pub fn fields(&self) -> Vec<Field> {
        match self.tab {
            Resource::Conversations => {
                let mut v = vec![Field::Site, Field::Status, Field::Assignee];
                if self.assignee == 3 {
                    v.push(Field::Agent);
                }
                v.push(Field::Visitor);
                v.push(Field::VisitorEmail);
                v
            }
            Resource::Visitors => vec![Field::Email, Field::ExternalId],
        }
    }

    /// The text input of a text field.
    pub fn input(&self, field: Field) -> Option<&Input> {
        match field {
            Field::Site => Some(&self.site),
            Field::Agent => Some(&self.agent),
            Field::Visitor => Some(&self.visitor),
            Field::VisitorEmail | Field::Email => Some(&self.email),
            Field::ExternalId => Some(&self.external_id),
            Field::Status | Field::Assignee => None,
        }
    }

    fn input_mut(&mut self, field: Field) -> Option<&mut Input> {
        match field {
            Field::Site => Some(&mut self.site),
            Field::Agent => Some(&mut self.agent),
            Field::Visitor => Some(&mut self.visitor),
            Field::VisitorEmail | Field::Email => Some(&mut self.email),
            Field::ExternalId => Some(&mut self.external_id),
            Field::Status | Field::Assignee => None,
        }
    }

    /// The choice shown in a choice field.
    pub fn choice(&self, field: Field) -> &'static str {
        match field {
            Field::Status => STATUS_CHOICES[self.status % 4],
            Field::Assignee => ASSIGNEE_CHOICES[self.assignee % 4],
            _ => "",
        }
    }

    /// The same form, its agent field taking `me` for `agent_id` (and showing that agent as
    /// `me`), as queries do.
    pub fn with_me(mut self, me: Option<uuid::Uuid>) -> FilterForm {
        self.me = me;
        let mine = uuid::Uuid::parse_str(self.agent.value().trim()).ok();
        if me.is_some() && mine == me {
            self.agent = Input::new("me".into());
        }
        self
    }

    /// The id a site or agent field names: a UUID, or a name in `[aliases]` (exactly, else
    /// ignoring ASCII case), or for the agent `me` (`agent_id`); `Ok(None)` when blank.
    fn id_of(&self, name: &'static str, v: &str) -> Result<Option<uuid::Uuid>, String> {
        let t = v.trim();
        if t.is_empty() {
            return Ok(None);
        }
        if name == AGENT && t.eq_ignore_ascii_case("me") {
            return match self.me {
                Some(me) => Ok(Some(me)),
                None => Err(format!(
                    "{name}: `me` needs agent_id in the config (your agent's UUID)"
                )),
            };
        }
        if let Ok(id) = parse_uuid(name, t) {
            return Ok(Some(id));
        }
        match self.aliases.ids_named(t).as_slice() {
            [id] => Ok(Some(*id)),
            [] if self.aliases.is_empty() => Err(format!(
                "{name}: not a UUID, e.g. 3f2b8c1e-0a4d-4e5f-9b6a-1c2d3e4f5a6b"
            )),
            [] => Err(format!("{name}: not a UUID nor a name in [aliases]")),
            many => Err(format!(
                "{name}: {} UUIDs are named this in [aliases]: give the UUID",
                many.len()
            )),
        }
    }

    /// What is wrong with a field as typed so far (checked as you type).
    pub fn error(&self, field: Field) -> Option<String> {
        let named_field = |name: &'static str, v: &str, required: bool| {
            if v.trim().is_empty() {
                return required.then(|| match self.me {
                    Some(_) => format!("{name}: enter an agent UUID, a name in [aliases] or me"),
                    None => format!("{name}: enter an agent UUID"),
                });
            }
            self.id_of(name, v).err()
        };
        let uuid_field = |name: &'static str, v: &str| {
            if v.trim().is_empty() {
                return None;
            }
            parse_uuid(name, v)
                .err()
                .map(|_| format!("{name}: not a UUID, e.g. 3f2b8c1e-0a4d-4e5f-9b6a-1c2d3e4f5a6b"))
        };
        match field {
            Field::Site => named_field("site id", self.site.value(), false),
            Field::Visitor => uuid_field("visitor id", self.visitor.value()),
            Field::VisitorEmail
                if !self.email.value().trim().is_empty()
                    && !self.visitor.value().trim().is_empty() =>
            {
                Some("visitor email: clear the visitor id, or this (one of the two)".into())
            }
            Field::Agent if self.assignee == 3 => named_field(AGENT, self.agent.value(), true),
            _ => None,
        }
    }

    /// The first error among the fields on show.
    pub fn first_error(&self) -> Option<String> {
        self.fields().into_iter().find_map(|f| self.error(f))
    }

    fn opt_uuid(v: &str) -> Option<uuid::Uuid> {
        let t = v.trim();
        if t.is_empty() {
            None
        } else {
            parse_uuid("id", t).ok()
        }
    }

    /// The conversations filter the form describes, or `None` while a field is invalid.
    pub fn conversation_filter(&self) -> Option<ConversationFilter> {
        if self.first_error().is_some() {
            return None;
        }
        let assignee = match self.assignee {
            1 => Assignee::Unassigned,
            2 => Assignee::Anyone,
            3 => Assignee::Agent(self.id_of(AGENT, self.agent.value()).ok()??),
            _ => Assignee::Any,
        };
        Some(ConversationFilter {
            site_id: self.id_of("site id", self.site.value()).ok()?,
            status: match self.status {
                1 => Some(Status::Open),
                2 => Some(Status::Pending),
                3 => Some(Status::Closed),
                _ => None,
            },
            assignee,
            visitor_id: Self::opt_uuid(self.visitor.value()),
            by_email: None,
        })
    }

    /// The conversations form's visitor e-mail, trimmed (`None` when blank or another tab).
    pub fn visitor_email(&self) -> Option<String> {
        let t = self.email.value().trim();
        (self.tab == Resource::Conversations && !t.is_empty()).then(|| t.to_string())
    }

    /// The visitors filter the form describes (blank fields unset, values trimmed).
    pub fn visitor_filter(&self) -> VisitorFilter {
        let text = |i: &Input| {
            let t = i.value().trim();
            (!t.is_empty()).then(|| t.to_string())
        };
        VisitorFilter {
            email: text(&self.email),
            external_id: text(&self.external_id),
        }
    }

    fn step_focus(&mut self, forward: bool) {
        let fields = self.fields();
        let i = fields.iter().position(|f| *f == self.focus).unwrap_or(0);
        let n = fields.len();
        let j = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.focus = fields[j];
    }

    fn cycle(&mut self, forward: bool) {
        let step = |v: usize| if forward { (v + 1) % 4 } else { (v + 3) % 4 };
        match self.focus {
            Field::Status => self.status = step(self.status),
            Field::Assignee => self.assignee = step(self.assignee),
            _ => {}
        }
    }

    /// Pasted text goes into the focused text field (as one line).
    pub fn paste(&mut self, pasted: &str) {
        let focus = self.focus;
        if let Some(inp) = self.input_mut(focus) {
            let mut text = inp.value().to_string();
            super::prompt::paste_line(&mut text, pasted);
            *inp = Input::new(text);
        }
        if self.first_error().is_none() {
            self.refused = false;
        }
    }

    /// Handles one key while the pane is open.
    pub fn key(&mut self, key: KeyEvent) -> FormOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return FormOutcome::Cancel,
            KeyCode::Char('c') if ctrl => return FormOutcome::Cancel,
            KeyCode::Enter => {
                if self.first_error().is_some() {
                    self.refused = true;
                    return FormOutcome::Editing;
                }
                return FormOutcome::Apply;
            }
            KeyCode::Tab | KeyCode::Down => self.step_focus(true),
            KeyCode::BackTab | KeyCode::Up => self.step_focus(false),
            KeyCode::Char(' ') | KeyCode::Right if self.focus.is_choice() => self.cycle(true),
            KeyCode::Left if self.focus.is_choice() => self.cycle(false),
            _ => {
                let focus = self.focus;
                if let (Some(req), Some(inp)) =
                    (to_input_request(&Event::Key(key)), self.input_mut(focus))
                {
                    inp.handle(req);
                }
            }
        }
        if self.first_error().is_none() {
            self.refused = false;
        }
        FormOutcome::Editing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mine(me: Option<uuid::Uuid>, typed: &str) -> FilterForm {
        let mut f = FilterForm::conversations(&ConversationFilter::default()).with_me(me);
        f.assignee = 3;
        f.agent = Input::new(typed.into());
        f
    }

    /// Issue 39 §9: the agent field takes `me` (any case) with `agent_id` set, and says what
    /// is missing without it (it said `not a UUID`).
    #[test]
    fn the_agent_field_takes_me_when_agent_id_is_set() {
        let me = uuid::Uuid::from_u128(7);
        for typed in ["me", " ME "] {
            let f = mine(Some(me), typed);
            assert_eq!(f.error(Field::Agent), None);
            let filter = f.conversation_filter().expect("valid");
            assert_eq!(filter.assignee, Assignee::Agent(me));
        }
        let f = mine(None, "me");
        let e = f.error(Field::Agent).expect("refused");
        assert!(e.contains("agent_id"), "{e}");
        // the filter of "me" shows as `me` again
        let back = FilterForm::conversations(&ConversationFilter {
            assignee: Assignee::Agent(me),
            ..Default::default()
        })
        .with_me(Some(me));
        assert_eq!(back.agent.value(), "me");
    }
}
