//! What the look-ahead does as messages come: a page of a chain handed to the walk waiting
//! on it, and the credit granted, topped up or held after every update.

use convo_api::{ApiError, Resource};

use super::{Chain, room};
use crate::app::App;
use crate::command::{Command, RequestFilter};
use crate::msg::{Loaded, Msg, Task};

/// Before `update` applies `msg`: a page of a chain becomes the walk's page when the app waits
/// on it (`Ok`, the message to apply); a chain's page it does not wait on, or of a chain that
/// is over, is dropped, with the commands that end that chain (`Err`). A failed page task
/// ends its tab's chain.
pub fn arrived(app: &mut App, msg: Msg) -> Result<Msg, Vec<Command>> {
    let (tab, generation, chain, result) = match msg {
        Msg::AheadLoaded {
            tab,
            generation,
            chain,
            result,
        } => (tab, generation, chain, result),
        Msg::TaskFailed {
            task: Task::Page { tab, .. },
            ..
        } => {
            app.ahead_mut().get_mut(tab).chain = None;
            return Ok(msg);
        }
        msg => return Ok(msg),
    };
    let credits = app.ahead_mut().get_mut(tab);
    let Some(c) = credits
        .chain
        .as_mut()
        .filter(|c| c.id == chain && c.generation == generation)
    else {
        return Err(Vec::new()); // an older chain's: dropped
    };
    let Some(cursor) = c.expected.take() else {
        return Err(Vec::new());
    };
    c.received += 1;
    c.expected = next_cursor(&result).map(Some);
    let id = c.id;
    let received = c.received;
    if with_tab!(ref app, tab, |t| t.waits_on(generation, cursor.as_deref())) {
        return Ok(Msg::PageLoaded {
            tab,
            generation,
            result,
        });
    }
    // The walk moved on without it: the chain ends here.
    app.ahead_mut().get_mut(tab).chain = None;
    Err(vec![Command::Grant {
        tab,
        chain: id,
        pages: received,
    }])
}

/// After `update`: each fetch of a walk's page goes to the chain that brings it (a top-up of
/// its credit instead of a request), starts a chain when the walk wants pages ahead, or goes
/// as it is; a chain whose walk wants fewer pages ahead than it was granted is held to what
/// the walk still waits on.
pub fn grant(app: &mut App, cmds: &mut Vec<Command>) {
    if cmds
        .iter()
        .any(|c| matches!(c, Command::Fetch { .. } | Command::Cancel { .. }))
    {
        let all = std::mem::take(cmds);
        for cmd in all {
            match cmd {
                Command::Cancel { tab } => {
                    app.ahead_mut().get_mut(tab).chain = None;
                    cmds.push(cmd);
                }
                Command::Fetch {
                    tab,
                    generation,
                    cursor,
                    query,
                    limit,
                } => {
                    // The e-mail filter of several visitors is one answer of merged walks,
                    // not a walk of pages: it goes as it is.
                    let merged = matches!(&query, RequestFilter::Conversations(f)
                        if f.merged_visitors().is_some());
                    let room = with_tab!(ref app, tab, |t| room(
                        t.wants_whole(generation),
                        t.asks_ahead(generation)
                    ));
                    let room = if merged { 0 } else { room };
                    let credits = app.ahead_mut().get_mut(tab);
                    match credits.chain.as_mut() {
                        // The chain brings this page: no request, a top-up of its credit
                        // (the pages after it), which names the page the app waits on.
                        Some(c)
                            if c.generation == generation
                                && c.expected.as_ref() == Some(&cursor) =>
                        {
                            c.granted = c.granted.max(c.received + 1 + room);
                            cmds.push(Command::Ahead {
                                tab,
                                generation,
                                chain: c.id,
                                from: cursor,
                                query,
                                limit,
                                pages: c.granted,
                            });
                        }
                        _ if room > 0 => {
                            credits.last += 1;
                            credits.chain = Some(Chain {
                                id: credits.last,
                                generation,
                                expected: Some(cursor.clone()),
                                granted: 1 + room,
                                received: 0,
                            });
                            cmds.push(Command::Ahead {
                                tab,
                                generation,
                                chain: credits.last,
                                from: cursor,
                                query,
                                limit,
                                pages: 1 + room,
                            });
                        }
                        // A page of its own (it replaces the chain, whose pages are dropped).
                        _ => {
                            credits.chain = None;
                            cmds.push(Command::Fetch {
                                tab,
                                generation,
                                cursor,
                                query,
                                limit,
                            });
                        }
                    }
                }
                cmd => cmds.push(cmd),
            }
        }
    }
    for tab in [Resource::Conversations, Resource::Visitors] {
        let Some(c) = app.ahead().get(tab).chain.clone() else {
            continue;
        };
        let Some(expected) = &c.expected else {
            continue;
        };
        let (room, waits) = with_tab!(ref app, tab, |t| (
            room(t.wants_whole(c.generation), t.asks_ahead(c.generation)),
            t.waits_on(c.generation, expected.as_deref())
        ));
        let most = c.received + usize::from(waits) + room;
        if c.granted > most {
            if let Some(chain) = app.ahead_mut().get_mut(tab).chain.as_mut() {
                chain.granted = most;
            }
            cmds.push(Command::Grant {
                tab,
                chain: c.id,
                pages: most,
            });
        }
    }
}

/// The cursor of the page after this one, when there is one to ask for.
fn next_cursor(result: &Result<Loaded, ApiError>) -> Option<String> {
    let (more, next) = match result {
        Ok(Loaded::Conversations(p)) => (p.has_more, p.next_cursor.as_deref()),
        Ok(Loaded::Visitors(p)) => (p.has_more, p.next_cursor.as_deref()),
        Err(_) => return None,
    };
    next.filter(|n| more && !n.is_empty()).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ahead::AHEAD_PAGES;
    use crate::tab::TabFilter;
    use crate::testing::{FakeServer, app, ch, key};
    use crate::update::update;
    use crossterm::event::KeyCode;

    const TAB: Resource = Resource::Conversations;

    /// The `Ahead` commands among `cmds`: (chain, from, pages).
    fn aheads(cmds: &[Command]) -> Vec<(u64, Option<String>, usize)> {
        cmds.iter()
            .filter_map(|c| match c {
                Command::Ahead {
                    chain, from, pages, ..
                } => Some((*chain, from.clone(), *pages)),
                _ => None,
            })
            .collect()
    }

    fn the_ahead(cmds: &[Command]) -> Command {
        let found: Vec<&Command> = cmds
            .iter()
            .filter(|c| matches!(c, Command::Ahead { .. }))
            .collect();
        assert_eq!(found.len(), 1, "{cmds:?}");
        found[0].clone()
    }

    fn no_fetch(cmds: &[Command]) {
        assert!(
            !cmds.iter().any(|c| matches!(c, Command::Fetch { .. })),
            "no request of the app's own: {cmds:?}"
        );
    }

    #[test]
    fn l_grants_pages_ahead_tops_them_up_as_pages_come_and_esc_holds_the_chain() {
        let server = FakeServer::new(300, 0);
        let mut a = app(120, 30, 10);
        server.settle(&mut a, Msg::Resize(120, 30));
        let loaded = a.conversations.rows().len();
        assert!(loaded < 100, "the first screen only: {loaded}");
        let g = a.conversations.generation();
        assert!(!a.ahead().get(TAB).active());

        // `L`: a chain from the next page, with credit for it and AHEAD_PAGES more.
        let cmds = update(&mut a, ch('L'));
        no_fetch(&cmds);
        let first = the_ahead(&cmds);
        let (chain, _, pages) = aheads(&cmds)[0].clone();
        assert_eq!(pages, 1 + AHEAD_PAGES);
        assert_eq!(a.ahead().get(TAB).of(g), Some((1 + AHEAD_PAGES, 0)));

        // Its page comes: applied; the next page is the chain's, the credit topped up by one.
        let cmds = update(&mut a, server.answer(&first).expect("a page"));
        assert_eq!(a.conversations.rows().len(), loaded + 10);
        no_fetch(&cmds);
        let second = the_ahead(&cmds);
        assert_eq!(
            aheads(&cmds),
            vec![(chain, Some((loaded + 10).to_string()), 2 + AHEAD_PAGES)]
        );
        assert_eq!(a.ahead().get(TAB).of(g), Some((2 + AHEAD_PAGES, 1)));

        // A page of another chain (an older one's, still on its way) is dropped.
        let stale = Msg::AheadLoaded {
            tab: TAB,
            generation: g,
            chain: chain + 1,
            result: server.page(
                &a.conversations.filter().request(),
                Some("0"),
                convo_api::Limit::new(10).unwrap(),
            ),
        };
        assert!(update(&mut a, stale).is_empty());
        assert_eq!(a.conversations.rows().len(), loaded + 10);
        assert_eq!(a.ahead().get(TAB).of(g), Some((2 + AHEAD_PAGES, 1)));

        // The next page, then Esc: the chain is held to the page the app waits on.
        let cmds = update(&mut a, server.answer(&second).expect("a page"));
        let third = the_ahead(&cmds);
        assert_eq!(a.ahead().get(TAB).of(g), Some((3 + AHEAD_PAGES, 2)));
        let cmds = update(&mut a, key(KeyCode::Esc));
        assert!(!a.conversations.loading_all(), "Esc stopped L");
        let grants: Vec<&Command> = cmds
            .iter()
            .filter(|c| matches!(c, Command::Grant { .. } | Command::Ahead { .. }))
            .collect();
        assert_eq!(
            grants,
            vec![&Command::Grant {
                tab: TAB,
                chain,
                pages: 3
            }],
            "the pages received and the one awaited, none ahead"
        );
        assert_eq!(a.ahead().get(TAB).of(g), Some((3, 2)));

        // The page it waited on still comes and is applied; nothing more is granted.
        let cmds = update(&mut a, server.answer(&third).expect("a page"));
        assert_eq!(a.conversations.rows().len(), loaded + 30);
        assert!(aheads(&cmds).is_empty(), "{cmds:?}");
        assert_eq!(a.ahead().get(TAB).of(g), Some((3, 3)));
        // A page the chain had asked for before the Esc reached it: not waited on, dropped,
        // and the chain ends there.
        let late = Msg::AheadLoaded {
            tab: TAB,
            generation: g,
            chain,
            result: server.page(
                &a.conversations.filter().request(),
                Some(&(loaded + 30).to_string()),
                convo_api::Limit::new(10).unwrap(),
            ),
        };
        let cmds = update(&mut a, late);
        assert_eq!(
            cmds,
            vec![Command::Grant {
                tab: TAB,
                chain,
                pages: 4
            }]
        );
        assert_eq!(a.conversations.rows().len(), loaded + 30);
        assert!(!a.ahead().get(TAB).active());

        // `L` again: a new chain from the page after the rows shown.
        let cmds = update(&mut a, ch('L'));
        let again = aheads(&cmds);
        assert_eq!(
            again,
            vec![(chain + 1, Some((loaded + 30).to_string()), 1 + AHEAD_PAGES)]
        );
    }

    /// The e-mail filter of several visitors is one answer of merged walks (the runtime's
    /// `spawn_merged`): its fetch stays a fetch even when the walk wants every page.
    #[test]
    fn the_e_mail_filter_of_several_visitors_is_never_a_chain() {
        let mut a = app(120, 30, 10);
        a.conversations.load_whole();
        let generation = a.conversations.generation();
        let fetch = |f: convo_api::ConversationFilter| Command::Fetch {
            tab: TAB,
            generation,
            cursor: Some("10".into()),
            query: RequestFilter::Conversations(f),
            limit: convo_api::Limit::new(10).unwrap(),
        };
        let merged = convo_api::ConversationFilter {
            by_email: Some(convo_api::filter::ByEmail {
                email: "ana@example.com".into(),
                visitors: vec![uuid::Uuid::from_u128(1), uuid::Uuid::from_u128(2)],
            }),
            ..Default::default()
        };
        let mut cmds = vec![fetch(merged.clone())];
        grant(&mut a, &mut cmds);
        assert_eq!(cmds, vec![fetch(merged)]);
        assert!(!a.ahead().get(TAB).active());
        // Not vacuous: the same walk's fetch of one request's filters is a chain.
        let mut cmds = vec![fetch(Default::default())];
        grant(&mut a, &mut cmds);
        assert_eq!(aheads(&cmds).len(), 1, "{cmds:?}");
    }
}
