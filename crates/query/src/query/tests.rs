//! The parser and the printer: accepted forms, errors with positions, the canonical text.

use super::*;
use convo_api::Resource::{Conversations as C, Visitors as V};

fn p(s: &str) -> Query {
    parse(s, C).unwrap_or_else(|e| panic!("{s:?}: {e}\n{}", e.render(s)))
}

fn err(s: &str) -> QueryError {
    parse(s, C).expect_err(s)
}

#[test]
fn terms_values_negation_and_quotes() {
    let q = p(r#"status:open,pending -assignee:none site:"Web shop",Careers hello "two words""#);
    assert_eq!(q.terms.len(), 5);
    assert_eq!(
        q.terms[0].pred,
        Pred::Status(vec![Status::Open, Status::Pending])
    );
    assert!(q.terms[1].negated);
    assert_eq!(q.terms[1].pred, Pred::Assignee(vec![AssigneeRef::None]));
    assert_eq!(
        q.terms[2].pred,
        Pred::Site(vec![
            NameRef::Name("Web shop".into()),
            NameRef::Name("Careers".into())
        ])
    );
    assert_eq!(q.terms[3].pred, Pred::Text("hello".into()));
    assert_eq!(q.terms[4].pred, Pred::Text("two words".into()));
    assert_eq!(
        q.to_string(),
        r#"status:open,pending -assignee:none site:"Web shop",Careers hello "two words""#
    );
}

#[test]
fn unknown_statuses_are_kept_and_fields_ignore_case() {
    let q = p("Status:Snoozed,OPEN");
    assert_eq!(
        q.terms[0].pred,
        Pred::Status(vec![Status::Other("snoozed".into()), Status::Open])
    );
    assert_eq!(q.to_string(), "status:snoozed,open");
}

#[test]
fn durations_as_the_config_writes_them() {
    let q = p("age:>2h idle:<90m");
    assert_eq!(q.terms[0].pred, Pred::Age(Cmp::Gt(7200)));
    assert_eq!(q.terms[1].pred, Pred::Idle(Cmp::Lt(5400)));
    assert_eq!(q.to_string(), "age:>2h idle:<1h30m");
    assert_eq!(
        p("age:1d..*").terms[0].pred,
        Pred::Age(Cmp::Range(Some(86_400), None))
    );
    let e = err("age:2h");
    assert!(e.expected.contains("age:>2h"), "{e}");
    assert_eq!(e.at, 4..6);
}

#[test]
fn dates_as_github_search() {
    let q = p("created:>=2026-11-01 updated:2026-11-01..2026-11-20");
    let d = |s: &str| s.parse::<jiff::civil::Date>().unwrap();
    assert_eq!(
        q.terms[0].pred,
        Pred::Created(Cmp::Ge(DateVal::Date(d("2026-11-01"))))
    );
    assert_eq!(
        q.terms[1].pred,
        Pred::Updated(Cmp::Range(
            Some(DateVal::Date(d("2026-11-01"))),
            Some(DateVal::Date(d("2026-11-20")))
        ))
    );
    let q = p("created:<2026-11-01T10:00 updated:>2026-11-01T10:00+01:00");
    assert!(matches!(
        q.terms[0].pred,
        Pred::Created(Cmp::Lt(DateVal::DateTime(_)))
    ));
    assert!(matches!(
        q.terms[1].pred,
        Pred::Updated(Cmp::Gt(DateVal::Instant(_)))
    ));
    assert_eq!(
        q.to_string(),
        "created:<2026-11-01T10:00:00 updated:>2026-11-01T09:00:00Z"
    );
    let e = err("created:>2026-13-01");
    assert_eq!(e.at, 8..19);
    assert!(e.expected.contains("2026-11-01"), "{e}");
}

#[test]
fn a_field_twice_says_to_use_commas() {
    let e = err("status:open status:pending");
    assert_eq!(e.at, 12..26);
    assert_eq!(e.hint.as_deref(), Some("use status:open,pending"));
    // Two bounds of one range are fine; a third term or two lower bounds are not.
    p("age:>1h age:<1d");
    p("created:>=2026-11-01 created:<2026-11-20");
    assert!(err("age:>1h age:>2h").hint.unwrap().contains("two bounds"));
    err("age:>1h age:<1d age:<2d");
    err("status:open -status:closed");
}

#[test]
fn errors_say_where_what_and_what_would_do() {
    let e = err("stauts:open");
    assert_eq!(e.at, 0..7);
    assert!(e.found.contains("stauts"), "{e}");
    assert!(e.expected.contains("status"), "{e}");
    assert_eq!(e.hint.as_deref(), Some("did you mean status:?"));
    let e = err("hello http://x");
    assert_eq!(e.at, 6..11);
    assert!(e.hint.unwrap().contains("quote"));
    let e = err("status:open,");
    assert_eq!(e.at, 12..12);
    let e = err("status:");
    assert_eq!(e.at, 7..7);
    let e = err("a \"b c");
    assert_eq!(e.at, 2..6);
    let e = err("is:busy");
    assert_eq!(e.at, 3..7);
    assert_eq!(e.expected, "waiting or stale");
    let e = err("-");
    assert_eq!(e.at, 0..1);
    let e = err("visitor:bob");
    assert!(e.expected.contains("e-mail"), "{e}");
    // A field of the other list is named as such.
    let e = parse("status:open", V).unwrap_err();
    assert!(e.hint.unwrap().contains("conversations"));
    let e = err("email:a@b.c");
    assert!(e.hint.unwrap().contains("visitors"));
}

#[test]
fn render_puts_a_caret_under_the_position() {
    let q = "status:open status:pending";
    let r = err(q).render(q);
    assert_eq!(
        r,
        "  status:open status:pending\n              ^^^^^^^^^^^^^^\n  \
         status given twice: expected each field once; a field's values are one term, \
         separated by commas (use status:open,pending)"
    );
    // Wide characters before the error move the caret by their cells.
    let q = "日本 stat:x";
    let r = err(q).render(q);
    assert_eq!(r.lines().nth(1), Some("       ^^^^^"));
}

#[test]
fn visitors_fields_and_attributes() {
    let q = parse(
        r#"email:a@b.c name:Ana attr.plan:pro,team attr."first name":x age:<1d"#,
        V,
    )
    .unwrap();
    assert_eq!(
        q.terms[2].pred,
        Pred::Attr("plan".into(), vec!["pro".into(), "team".into()])
    );
    assert_eq!(
        q.terms[3].pred,
        Pred::Attr("first name".into(), vec!["x".into()])
    );
    let q = p(r#"visitor.name:Ana visitor.plan:pro visitor."name":x"#);
    assert_eq!(q.terms[0].pred, Pred::VisitorName(vec!["Ana".into()]));
    assert_eq!(
        q.terms[1].pred,
        Pred::VisitorAttr("plan".into(), vec!["pro".into()])
    );
    assert_eq!(
        q.terms[2].pred,
        Pred::VisitorAttr("name".into(), vec!["x".into()])
    );
    assert_eq!(parse(&q.to_string(), C).unwrap(), q);
}

#[test]
fn canonical_text_parses_to_the_same_query() {
    for s in [
        r#"-"-x" "a:b" x\y "q\"uote" assignee:me,none,anyone,"Ana (EU desk)""#,
        "due:breaching,<10m,>1h is:waiting,stale visitor:a@b.c",
        "idle:1h..2h created:*..2026-11-02 -site:3f2b8c1e-0a4d-4e5f-9b6a-1c2d3e4f5a6b",
    ] {
        let q = p(s);
        let printed = q.to_string();
        assert_eq!(p(&printed), q, "{s} → {printed}");
        assert_eq!(p(&printed).to_string(), printed);
    }
}

mod resolving {
    use super::*;
    use crate::query::resolve::{Names, resolve};
    use convo_config::Aliases;
    use convo_engine::sla::Sla;
    use uuid::Uuid;

    const ME: Uuid = Uuid::from_u128(0xa1);
    const ANA: Uuid = Uuid::from_u128(0xa2);
    const ANNA: Uuid = Uuid::from_u128(0xa3);
    const SHOP: Uuid = Uuid::from_u128(0x51);
    const CAREERS: Uuid = Uuid::from_u128(0x52);

    fn aliases() -> Aliases {
        let mut a = Aliases::default();
        for (id, n) in [
            (ANA, "Ana (EU desk)"),
            (ANNA, "Anna"),
            (SHOP, "Web shop"),
            (CAREERS, "Careers"),
        ] {
            a.insert(id, n.into());
        }
        a
    }

    fn run(q: &str, agent: Option<Uuid>) -> Result<Query, QueryError> {
        let a = aliases();
        let sla = Sla::default();
        resolve(
            &p(q),
            &Names {
                agent_id: agent,
                aliases: &a,
                sla: &sla,
            },
        )
    }

    #[test]
    fn me_and_names_become_uuids_without_regard_to_case() {
        let q = run(
            r#"assignee:me,none,"ana (eu desk)" site:"WEB SHOP",careers"#,
            Some(ME),
        )
        .unwrap();
        assert_eq!(
            q.terms[0].pred,
            Pred::Assignee(vec![
                AssigneeRef::Id(ME),
                AssigneeRef::None,
                AssigneeRef::Id(ANA)
            ])
        );
        assert_eq!(
            q.terms[1].pred,
            Pred::Site(vec![NameRef::Id(SHOP), NameRef::Id(CAREERS)])
        );
        // The start of one name is that name.
        let q = run("site:web", None).unwrap();
        assert_eq!(q.terms[0].pred, Pred::Site(vec![NameRef::Id(SHOP)]));
    }

    #[test]
    fn me_without_agent_id_names_the_key() {
        let e = run("status:open assignee:none,me", None).unwrap_err();
        assert_eq!(e.at, 26..28);
        assert!(e.hint.unwrap().contains("agent_id"));
    }

    #[test]
    fn unknown_and_ambiguous_names_list_the_closest() {
        let e = run("site:Carers", None).unwrap_err();
        assert_eq!(e.at, 5..11);
        assert_eq!(e.hint.as_deref(), Some(r#"closest: "Careers""#));
        let e = run("assignee:an", None).unwrap_err();
        assert!(e.found.contains("names 2"), "{e}");
        assert_eq!(
            e.hint.as_deref(),
            Some(r#"it fits "Ana (EU desk)", "Anna""#)
        );
    }

    #[test]
    fn due_needs_a_first_response_target() {
        let e = run("is:waiting due:breaching", None).unwrap_err();
        assert_eq!(e.at, 11..24);
        assert!(e.hint.unwrap().contains("first_response"));
    }
}

mod planning {
    use super::*;
    use crate::query::plan::{self, Emails, query_string};
    use convo_api::ListFilter;
    use uuid::Uuid;

    const ME: &str = "00000000-0000-0000-0000-0000000000a1";
    const ANA: &str = "00000000-0000-0000-0000-0000000000a2";
    const SHOP: &str = "00000000-0000-0000-0000-000000000051";
    const V1: &str = "00000000-0000-0000-0000-0000000000f1";
    const V2: &str = "00000000-0000-0000-0000-0000000000f2";

    /// (streams as query strings, checks as written)
    fn planned(q: &str, max: usize) -> (Vec<String>, Vec<String>) {
        let mut emails = Emails::new();
        emails.insert(
            "two@x.io".into(),
            vec![Uuid::parse_str(V1).unwrap(), Uuid::parse_str(V2).unwrap()],
        );
        emails.insert("nobody@x.io".into(), vec![]);
        let pl = plan::conversations(&p(q), &emails, max);
        for s in &pl.streams {
            let pairs = s.query_pairs();
            assert!(
                !(pairs.iter().any(|(k, _)| *k == "unassigned")
                    && pairs.iter().any(|(k, _)| *k == "assignee_id")),
                "unassigned and assignee_id together in {q}"
            );
        }
        (
            pl.streams.iter().map(query_string).collect(),
            pl.checks.iter().map(|c| c.shown.clone()).collect(),
        )
    }

    #[test]
    fn query_to_streams_and_checks() {
        let me = format!("assignee_id={ME}");
        let ana = format!("assignee_id={ANA}");
        let shop = format!("site_id={SHOP}");
        #[rustfmt::skip]
        let table: Vec<(String, Vec<String>, Vec<&str>)> = vec![
            ("".into(), vec!["".into()], vec![]),
            ("status:open".into(), vec!["status=open".into()], vec![]),
            // The union of the product, overlaps removed, never both assignee parameters.
            (format!("status:open,pending assignee:none,{ME}"), vec![
                "status=open&unassigned=true".into(), format!("status=open&{me}"),
                "status=pending&unassigned=true".into(), format!("status=pending&{me}"),
            ], vec![]),
            (format!("assignee:anyone,{ME}"), vec!["unassigned=false".into()], vec![]),
            (format!("assignee:none,anyone,{ME}"), vec!["".into()], vec![]),
            (format!("assignee:{ME},{ANA},{ME}"), vec![me.clone(), ana.clone()], vec![]),
            // Negation: a wider walk, checked in convo.
            ("-status:closed".into(), vec!["".into()], vec!["-status:closed"]),
            (format!("-assignee:none site:{SHOP}"), vec![shop.clone()], vec!["-assignee:none"]),
            // A status the API does not name is not sent.
            ("status:open,snoozed".into(), vec!["".into()], vec!["status:open,snoozed"]),
            // is:waiting is two API filters, narrowed by the others.
            (format!("is:waiting site:{SHOP}"), vec![format!("{shop}&status=open&unassigned=true")], vec![]),
            ("is:waiting status:pending".into(), vec![], vec![]),
            ("is:waiting,stale".into(), vec!["".into()], vec!["is:waiting,stale"]),
            // Only waiting conversations have a first-response standing: due: asks for those.
            (format!("due:breaching site:{SHOP}"), vec![format!("{shop}&status=open&unassigned=true")], vec!["due:breaching"]),
            ("due:imminent status:pending".into(), vec![], vec!["due:imminent"]),
            ("-due:breaching".into(), vec!["".into()], vec!["-due:breaching"]),
            // Times, text and visitor fields are checked in convo.
            ("status:open age:>2h idle:<10m ana visitor.plan:pro".into(),
             vec!["status=open".into()], vec!["age:>2h", "idle:<10m", "ana", "visitor.plan:pro"]),
            // E-mails: one stream per visitor; none: nothing is asked.
            ("visitor:two@x.io".into(), vec![format!("visitor_id={V1}"), format!("visitor_id={V2}")], vec![]),
            ("visitor:nobody@x.io".into(), vec![], vec![]),
            (format!("-visitor:two@x.io,{V1}"), vec!["".into()], vec!["-visitor:two@x.io,00000000-0000-0000-0000-0000000000f1"]),
        ];
        for (q, streams, checks) in table {
            let (s, c) = planned(&q, 16);
            assert_eq!(s, streams, "streams of {q}");
            assert_eq!(c, checks, "checks of {q}");
        }
    }

    #[test]
    fn a_union_past_max_streams_is_walked_wider() {
        // 3 statuses × 2 assignees = 6 > 4: status (the widest) is checked in convo.
        let (s, c) = planned(&format!("status:open,pending,closed assignee:none,{ME}"), 4);
        assert_eq!(
            s,
            vec!["unassigned=true".to_string(), format!("assignee_id={ME}")]
        );
        assert_eq!(c, vec!["status:open,pending,closed"]);
        let (s, c) = planned(&format!("status:open,pending,closed assignee:none,{ME}"), 1);
        assert_eq!(s, vec![String::new()]);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn visitors_send_email_and_external_id() {
        let pl = plan::visitors(
            &parse(
                "email:a@x.io,b@x.io external_id:7 name:ana -attr.plan:free",
                V,
            )
            .unwrap(),
            16,
        );
        let s: Vec<String> = pl.streams.iter().map(query_string).collect();
        assert_eq!(
            s,
            [
                "email=a%40x.io&external_id=7",
                "email=b%40x.io&external_id=7"
            ]
        );
        let c: Vec<&str> = pl.checks.iter().map(|c| c.shown.as_str()).collect();
        assert_eq!(c, ["name:ana", "-attr.plan:free"]);
    }

    #[test]
    fn explain_names_each_request_and_why() {
        let pl = plan::conversations(
            &p(&format!("status:open,pending -assignee:{ME} age:>10m")),
            &Emails::new(),
            16,
        );
        let e = pl.explain(&convo_config::Aliases::default());
        assert!(e.contains("streams: 2 ("), "{e}");
        assert!(
            e.contains("  1. GET /v1/conversations?status=open\n"),
            "{e}"
        );
        assert!(
            e.contains("  2. GET /v1/conversations?status=pending\n"),
            "{e}"
        );
        assert!(e.contains(&format!("-assignee:{ME}  negation:")), "{e}");
        assert!(e.contains("age:>10m"), "{e}");
        assert!(e.contains("no time filter"), "{e}");
    }

    /// A check's agents and sites are named as the streams' are (`(Kim)`): a negated site
    /// printed its UUID alone.
    #[test]
    fn explain_names_the_uuids_of_checks_too() {
        let site = uuid::Uuid::from_u128(0x51);
        let mut aliases = convo_config::Aliases::default();
        aliases.insert(site, "Web shop".into());
        aliases.insert(uuid::Uuid::parse_str(ME).unwrap(), "Kim".into());
        let pl = plan::conversations(
            &p(&format!("assignee:{ME} -site:{site} age:>10m")),
            &Emails::new(),
            16,
        );
        let e = pl.explain(&aliases);
        assert!(e.contains(&format!("assignee_id={ME}  (Kim)")), "{e}");
        assert!(
            e.contains(&format!("  -site:{site}  (Web shop)  negation:")),
            "{e}"
        );
        // The reasons stay in one column.
        let column: Vec<usize> = pl
            .checks
            .iter()
            .map(|c| {
                let line = e
                    .lines()
                    .find(|l| l.starts_with(&format!("  {}", c.shown)))
                    .expect("its line");
                line.find(&c.why)
                    .unwrap_or_else(|| panic!("{:?} in\n{e}", c.why))
            })
            .collect();
        assert_eq!(column.len(), 2, "{e}");
        assert_eq!(column[0], column[1], "{e}");
    }
}

mod evaluating {
    use super::*;
    use crate::query::eval::{Context, Filter, VisitorInfo};
    use convo_api::{Conversation, Timestamp};
    use convo_config::Aliases;
    use convo_engine::sla::Sla;
    use uuid::Uuid;

    fn conv(status: &str, assignee: Option<u128>, created: &str, updated: &str) -> Conversation {
        Conversation {
            id: Uuid::from_u128(1),
            site_id: Uuid::from_u128(0x51),
            visitor_id: Uuid::from_u128(0xf1),
            status: Status::from_wire(status),
            assignee_id: assignee.map(Uuid::from_u128),
            created_at: Timestamp::parse(created),
            updated_at: Timestamp::parse(updated),
        }
    }

    fn passes(q: &str, c: &Conversation, v: Option<&VisitorInfo>) -> bool {
        let a = Aliases::default();
        let sla = Sla::default();
        let f = Filter::new(
            &p(q).terms,
            Context {
                now: "2026-11-20T12:00:00Z".parse().unwrap(),
                tz: jiff::tz::TimeZone::UTC,
                sla: &sla,
                stale_after_secs: 7200,
                aliases: &a,
            },
        );
        f.conversation(c, v)
    }

    #[test]
    fn times_dates_negation_and_visitor_fields() {
        let c = conv(
            "snoozed",
            None,
            "2026-11-20T09:00:00Z",
            "2026-11-20T11:55:00Z",
        );
        assert!(
            passes("-status:closed", &c, None),
            "unknown statuses still show"
        );
        assert!(!passes("-status:snoozed", &c, None));
        assert!(passes("age:>2h idle:<10m", &c, None));
        assert!(!passes("age:>3h", &c, None));
        assert!(passes("age:>1h age:<4h", &c, None));
        assert!(passes("created:2026-11-20", &c, None));
        assert!(
            !passes("created:>2026-11-20", &c, None),
            "> is after the day"
        );
        assert!(passes("created:>=2026-11-20 created:<2026-11-21", &c, None));
        assert!(passes("created:2026-11-19..2026-11-20", &c, None));
        assert!(!passes("created:<2026-11-20T09:00Z", &c, None));
        assert!(passes("created:<=2026-11-20T09:00Z", &c, None));
        assert!(!passes("is:stale", &c, None));
        assert!(passes("-is:waiting", &c, None));
        let v = VisitorInfo {
            name: Some("Ana Lima".into()),
            email: Some("Ana@X.io".into()),
            attributes: serde_json::json!({"plan": "Pro", "seats": 3}),
        };
        assert!(passes(
            "visitor.name:lima visitor.email:ana@x.io",
            &c,
            Some(&v)
        ));
        assert!(passes("visitor.plan:pro visitor.seats:3,4", &c, Some(&v)));
        assert!(!passes("visitor.plan:free", &c, Some(&v)));
        assert!(
            !passes("visitor.plan:pro", &c, None),
            "an unknown visitor does not match"
        );
        assert!(
            passes("lima", &c, Some(&v)),
            "free text finds the visitor's name"
        );
        assert!(!passes("-lima", &c, Some(&v)));
    }
}

mod saved_views {
    use super::*;
    use crate::query::resolve::Names;
    use convo_api::{Assignee, ConversationFilter, VisitorFilter};
    use convo_config::{Aliases, View};
    use convo_engine::sla::Sla;
    use uuid::Uuid;

    const ME: Uuid = Uuid::from_u128(0xa1);
    const SHOP: Uuid = Uuid::from_u128(0x51);

    fn view(tab: Resource, q: &str) -> View {
        View {
            name: "Mine".into(),
            tab,
            conversations: ConversationFilter::default(),
            visitors: VisitorFilter::default(),
            notify: false,
            oldest_first: false,
            query: Some(q.into()),
        }
    }

    fn apply(views: &mut [View]) -> Result<(), String> {
        let mut a = Aliases::default();
        a.insert(SHOP, "Web shop".into());
        let sla = Sla::default();
        let names = Names {
            agent_id: Some(ME),
            aliases: &a,
            sla: &sla,
        };
        crate::query::views::apply(views, &names, 16)
    }

    #[test]
    fn a_query_one_request_answers_sets_the_views_filter() {
        let mut v = vec![
            view(C, "assignee:me status:OPEN site:\"web shop\""),
            view(V, "email:ana@example.com"),
        ];
        apply(&mut v).unwrap();
        assert_eq!(
            v[0].conversations,
            ConversationFilter {
                status: Some(Status::Open),
                assignee: Assignee::Agent(ME),
                site_id: Some(SHOP),
                ..ConversationFilter::default()
            }
        );
        assert_eq!(
            v[0].query.as_deref(),
            Some("assignee:me status:open site:\"web shop\"")
        );
        assert_eq!(v[1].visitors.email.as_deref(), Some("ana@example.com"));
    }

    #[test]
    fn a_query_one_request_cannot_answer_is_kept_for_the_browser_and_a_bad_one_refused() {
        for q in [
            "status:open,pending",
            "-status:closed age:>1h",
            "visitor:a@b.c",
        ] {
            let mut v = [view(C, q)];
            apply(&mut v).unwrap();
            assert_eq!(v[0].conversations, ConversationFilter::default(), "{q}");
            assert_eq!(v[0].query.as_deref(), Some(q));
        }
        let e = apply(&mut [view(C, "status:open status:closed")]).unwrap_err();
        assert!(e.starts_with("view \"Mine\": "), "{e}");
        assert!(
            e.contains("bad query\n  status:open status:closed\n"),
            "{e}"
        );
        let e = apply(&mut [view(C, "assignee:nobody")]).unwrap_err();
        assert!(e.contains("bad query"), "{e}");
    }
}

/// Every view of config.example.toml opens (its query views included).
#[test]
fn the_example_configs_views_all_apply() {
    let c = convo_config::Config::from_toml_str(
        include_str!("../../../../config.example.toml"),
        std::path::Path::new("/t/c.toml"),
        &convo_config::Overrides::default(),
        &|k| (k == "CONVO_API_KEY").then(|| "sk_test_secretvalue1234".to_string()),
    )
    .unwrap();
    let mut views = c.views.clone();
    assert!(views.iter().any(|v| v.query.is_some()));
    let names = crate::query::resolve::Names {
        agent_id: c.query.agent_id,
        aliases: &c.aliases,
        sla: &c.sla,
    };
    crate::query::views::apply(&mut views, &names, 16).unwrap();
}
