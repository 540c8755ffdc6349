//! Bytes per loaded row: 1,000,000 conversations through the pager, as the TUI holds them.
//! Run: `cargo bench --bench memory`. Target (issue 5): at most 200 bytes per row above the
//! empty walk. A counting allocator measures live heap bytes; nothing is estimated.
//! `cargo test --benches` runs it on 10,000 rows in the debug build (a smoke test).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use convo::api::{Assignee, Conversation, Page, Status, Timestamp};
use convo::walk::Walk;
use uuid::Uuid;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new, Ordering::Relaxed);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

const PAGE: usize = 100;

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` does not: a smoke run.
    let rows: usize = if std::env::args().any(|a| a == "--bench") {
        1_000_000
    } else {
        10_000
    };
    let _ = Assignee::Any;
    let sites: Vec<Uuid> = (0..5).map(|i| Uuid::from_u128(0xa000 + i)).collect();
    let agents: Vec<Uuid> = (0..10).map(|i| Uuid::from_u128(0xb000 + i)).collect();
    let base: jiff::Timestamp = "2026-11-22T12:00:00Z".parse().expect("timestamp");
    let before = LIVE.load(Ordering::Relaxed);
    let mut pager: Walk<Conversation> = Walk::new(PAGE, 1);
    let mut n = 0usize;
    while n < rows {
        let _ = pager.request();
        let items: Vec<Conversation> = (n..n + PAGE)
            .map(|i| {
                let t = base - jiff::SignedDuration::from_secs(i as i64 * 7);
                Conversation {
                    id: Uuid::from_u128(i as u128 * 0x9e37_79b9_7f4a_7c15 + 1),
                    site_id: sites[i % sites.len()],
                    visitor_id: Uuid::from_u128(0xc000_0000 + (i % 150_000) as u128),
                    status: Status::KNOWN[i % 3].clone(),
                    assignee_id: (i % 10 >= 3).then(|| agents[i % agents.len()]),
                    created_at: Timestamp::Parsed(t),
                    updated_at: Timestamp::Parsed(t + jiff::SignedDuration::from_secs(60)),
                }
            })
            .collect();
        n += PAGE;
        pager.take(Page {
            items,
            has_more: true,
            next_cursor: Some(format!("c{n}")),
            bad_rows: vec![],
        });
    }
    let after = LIVE.load(Ordering::Relaxed);
    let per_row = (after - before) as f64 / rows as f64;
    println!(
        "memory: {} rows loaded; size_of::<Conversation>() = {} bytes; live heap {:.1} MiB; {:.1} bytes per row (target <= 200)",
        pager.loaded(),
        std::mem::size_of::<Conversation>(),
        (after - before) as f64 / (1024.0 * 1024.0),
        per_row
    );
}
