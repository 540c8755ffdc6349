//! Names for the demo's sites and agents, so that `convo --demo` reads like the README's picture
//! and docs/browser.md's screens ("Web shop", "Ana (EU desk)") instead of hex. Applied as aliases by `--demo`; a
//! user's own `[aliases]` for the same ids win.

use uuid::Uuid;

use super::Dataset;

const SITES: &[&str] = &[
    "Web shop",
    "Help center",
    "Mobile app",
    "Partner portal",
    "Careers",
    "Status page",
];

const AGENTS: &[&str] = &[
    "Ana (EU desk)",
    "Ben (US desk)",
    "Chen (APAC)",
    "Dara",
    "Eli",
    "Fatima",
    "Goran",
    "Hana",
    "Ivo",
    "Jun",
    "Kim",
    "Lea",
];

/// (id, name) for every site and agent of the dataset (names repeat with a number past the
/// end of the lists).
pub fn aliases(d: &Dataset) -> Vec<(Uuid, String)> {
    let named = |ids: &[Uuid], names: &[&str]| -> Vec<(Uuid, String)> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| {
                let base = names[i % names.len()];
                let name = if i < names.len() {
                    base.to_string()
                } else {
                    format!("{base} {}", i / names.len() + 1)
                };
                (*id, name)
            })
            .collect()
    };
    let mut v = named(&d.sites, SITES);
    v.extend(named(&d.agents, AGENTS));
    v
}

/// The agent `--demo` makes the user (`agent_id`, what `assignee:me` means): the one with the
/// most open conversations assigned, the first of them on a tie; `None` without agents.
pub fn me(d: &Dataset) -> Option<Uuid> {
    let open = |a: &Uuid| {
        d.conversations
            .iter()
            .filter(|c| c.status == "open" && c.assignee_id == Some(*a))
            .count()
    };
    // max_by_key keeps the last of equals: walk backwards so the first wins.
    d.agents.iter().rev().max_by_key(|a| open(a)).copied()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_site_and_agent_is_named_once() {
        let d = super::super::dataset(42, 50, 10);
        let a = super::aliases(&d);
        assert_eq!(a.len(), d.sites.len() + d.agents.len());
        assert_eq!(a[0].1, "Web shop");
        assert_eq!(a[d.sites.len()].1, "Ana (EU desk)");
        let names: std::collections::HashSet<_> = a.iter().map(|(_, n)| n).collect();
        assert_eq!(names.len(), a.len());
    }

    #[test]
    fn me_is_an_agent_with_open_conversations() {
        let d = super::super::dataset(42, 300, 40);
        let me = super::me(&d).expect("an agent");
        assert!(d.agents.contains(&me));
        assert!(
            d.conversations
                .iter()
                .any(|c| c.status == "open" && c.assignee_id == Some(me))
        );
    }
}
