//! The store against real SQLite files in a temporary directory.

use std::time::Duration;

use uuid::Uuid;

use super::*;
use convo_api::Visitor;

fn visitor(n: u128, name: Option<&str>, email: Option<&str>) -> Visitor {
    Visitor {
        id: Uuid::from_u128(n),
        external_id: None,
        email: email.map(str::to_string),
        name: name.map(str::to_string),
        attributes: serde_json::json!({"plan": "pro"}),
        created_at: Some(convo_api::Timestamp::parse("2026-11-20T10:00:00Z")),
    }
}

fn tmp_store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stores").join("s.sqlite");
    (dir, path)
}

#[test]
fn opens_a_new_file_0600_in_wal_with_the_current_schema() {
    let (_d, path) = tmp_store();
    let s = Store::open(&path).unwrap();
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    let mode: String = s
        .conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let m = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(m & 0o777, 0o600, "{m:o}");
        let d = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(d & 0o777, 0o700, "{d:o}");
        s.write_something_for_test();
        let mut wal = path.clone().into_os_string();
        wal.push("-wal");
        let m = std::fs::metadata(PathBuf::from(wal))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(m & 0o077, 0, "the WAL is private too: {m:o}");
    }
}

impl Store {
    fn write_something_for_test(&self) {
        self.conn
            .execute(
                "INSERT INTO looks (key, taken_at, rows) VALUES ('k', 1, x'')",
                [],
            )
            .unwrap();
    }
}

#[test]
fn a_wider_existing_file_is_narrowed_to_0600() {
    let (_d, path) = tmp_store();
    drop(Store::open(&path).unwrap());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        drop(Store::open(&path).unwrap());
        let m = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(m & 0o777, 0o600);
    }
}

#[test]
fn visitors_upsert_and_read_back() {
    let (_d, path) = tmp_store();
    let mut s = Store::open(&path).unwrap();
    s.upsert_visitors(
        &[
            visitor(1, Some("Ana"), Some("ana@example.com")),
            visitor(2, None, Some("bo@example.com")),
            visitor(3, None, None),
        ],
        100,
    )
    .unwrap();
    // The service's row wins whole: a later upsert without a name clears it.
    s.upsert_visitors(
        &[visitor(1, Some("Ana Lima"), Some("ana@example.com"))],
        200,
    )
    .unwrap();
    assert_eq!(s.visitor_count().unwrap(), 3);
    let v = s.visitor(Uuid::from_u128(1)).unwrap().unwrap();
    assert_eq!(v.display_name(), Some("Ana Lima"));
    assert_eq!(v.seen_at, 200);
    assert_eq!(v.attributes_json()["plan"], "pro");
    assert_eq!(v.created_at.as_deref(), Some("2026-11-20T10:00:00Z"));
    let mut names = s.names_of(&[1, 2, 3, 9].map(Uuid::from_u128)).unwrap();
    names.sort();
    let shown: Vec<(Uuid, Option<&str>)> = names
        .iter()
        .map(|n| {
            (
                n.id,
                visitors::display_name(n.name.as_deref(), n.email.as_deref(), None),
            )
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            (Uuid::from_u128(1), Some("Ana Lima")),
            (Uuid::from_u128(2), Some("bo@example.com")),
            (Uuid::from_u128(3), None),
        ]
    );
    assert!(s.visitor(Uuid::from_u128(9)).unwrap().is_none());
    assert_eq!(
        s.visitors(&[Uuid::from_u128(2), Uuid::from_u128(9)])
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn sync_state_and_page_are_kept_together() {
    let (_d, path) = tmp_store();
    let mut s = Store::open(&path).unwrap();
    assert_eq!(s.sync_state().unwrap(), SyncState::default());
    let st = SyncState {
        cursor: Some("abc".into()),
        walked: 100,
        started_at: Some(5),
        finished_at: None,
        last_total: Some(20_000),
        fits: [true, false, false],
        rows_seen: 100,
        tail: Some(Some("xyz".into())),
        checked_at: Some(4),
    };
    s.record_sync_page(&[visitor(1, Some("A"), None)], &st, 6)
        .unwrap();
    drop(s);
    let s = Store::open(&path).unwrap();
    assert_eq!(s.sync_state().unwrap(), st);
    assert_eq!(s.visitor_count().unwrap(), 1);
}

#[test]
fn looks_and_samples_round_trip() {
    let (_d, path) = tmp_store();
    let s = Store::open(&path).unwrap();
    let rows = vec![
        LookRow {
            id: Uuid::from_u128(1),
            watched: 7,
        },
        LookRow {
            id: Uuid::from_u128(2),
            watched: 8,
        },
    ];
    assert_eq!(s.look("conversations?status=open").unwrap(), None);
    s.save_look("conversations?status=open", &rows, 1000)
        .unwrap();
    let snap = s.look("conversations?status=open").unwrap().unwrap();
    assert_eq!(snap.taken_at, 1000);
    assert_eq!(snap.rows, rows);
    let sample = |at: i64, waiting: u64| Sample {
        at,
        loaded: 50,
        complete: true,
        waiting,
        imminent: 1,
        breaching: 2,
    };
    s.record_sample("v", &sample(10, 3)).unwrap();
    s.record_sample("v", &sample(20, 4)).unwrap();
    s.record_sample("other", &sample(15, 9)).unwrap();
    let got = s.samples_since("v", 0).unwrap();
    assert_eq!(got, vec![sample(10, 3), sample(20, 4)]);
    assert_eq!(s.samples_since("v", 15).unwrap(), vec![sample(20, 4)]);
    // Old samples of the key go as new ones come.
    s.record_sample("v", &sample(20 + samples::KEEP_SECS + 1, 5))
        .unwrap();
    assert_eq!(s.samples_since("v", 0).unwrap().len(), 1);
}

#[test]
fn migrates_forward_from_each_earlier_version_keeping_data() {
    for from in 0..SCHEMA_VERSION {
        let (_d, path) = tmp_store();
        prepare_file(&path).unwrap();
        {
            let mut c = Connection::open(&path).unwrap();
            schema::migrate_to(&mut c, from).unwrap();
            if from >= 1 {
                c.execute(
                    "INSERT INTO visitors (id, name, seen_at) VALUES (?1, 'Kept', 1)",
                    [Uuid::from_u128(42).as_bytes().as_slice()],
                )
                .unwrap();
            }
            let v: i64 = c
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            assert_eq!(v, from);
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION, "from {from}");
        // Every table of the current schema works.
        s.save_look("k", &[], 1).unwrap();
        s.record_sample(
            "k",
            &Sample {
                at: 1,
                loaded: 0,
                complete: true,
                waiting: 0,
                imminent: 0,
                breaching: 0,
            },
        )
        .unwrap();
        if from >= 1 {
            let v = s.visitor(Uuid::from_u128(42)).unwrap().unwrap();
            assert_eq!(v.name.as_deref(), Some("Kept"), "from {from}");
        }
    }
}

#[test]
fn a_file_from_a_newer_convo_is_left_alone() {
    let (_d, path) = tmp_store();
    drop(Store::open(&path).unwrap());
    {
        let c = Connection::open(&path).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1))
            .unwrap();
    }
    let e = Store::open(&path).unwrap_err();
    assert!(matches!(e, StoreError::Newer { .. }), "{e}");
    assert!(e.to_string().contains("newer convo"), "{e}");
    // Not moved aside: the newer convo keeps its data.
    assert!(path.exists());
    let aside = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().contains("corrupt"));
    assert!(!aside);
}

#[test]
fn a_corrupt_file_is_moved_aside_and_rebuilt() {
    let (_d, path) = tmp_store();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        b"this is not a database, just some bytes ".repeat(200),
    )
    .unwrap();
    let mut s = Store::open(&path).unwrap();
    let notice = s.notice.clone().expect("a notice");
    assert!(notice.contains("damaged"), "{notice}");
    s.upsert_visitors(&[visitor(1, Some("A"), None)], 1)
        .unwrap();
    assert_eq!(s.visitor_count().unwrap(), 1);
    let moved: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".corrupt-"))
        .collect();
    assert_eq!(moved.len(), 1);
    assert!(
        std::fs::read(moved[0].path())
            .unwrap()
            .starts_with(b"this is not")
    );
}

#[test]
fn a_damaged_page_inside_a_real_database_is_moved_aside() {
    let (_d, path) = tmp_store();
    {
        let mut s = Store::open(&path).unwrap();
        let many: Vec<Visitor> = (0..2000)
            .map(|n| visitor(n, Some("Somebody with a name"), Some("x@example.com")))
            .collect();
        s.upsert_visitors(&many, 1).unwrap();
        s.checkpoint().unwrap();
    }
    // Overwrite pages in the middle of the file with garbage (the header stays valid).
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8 * 4096);
    for b in &mut bytes[2 * 4096..6 * 4096] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let s = Store::open(&path).unwrap();
    assert!(s.notice.is_some(), "quick_check must find the damage");
    assert_eq!(s.visitor_count().unwrap(), 0);
}

#[test]
fn a_file_locked_too_long_gives_locked_not_a_hang() {
    let (_d, path) = tmp_store();
    drop(Store::open(&path).unwrap());
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let opts = OpenOptions {
        busy_timeout: Duration::from_millis(200),
        max_pages: None,
        ..OpenOptions::default()
    };
    // Opening reads (WAL readers are not blocked); the first write waits, then gives up.
    let mut s = Store::open_with(&path, opts).unwrap();
    // SQLite waits the busy timeout given, then answers busy (how long it took is SQLite's).
    let busy: i64 = s
        .conn
        .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
        .unwrap();
    assert_eq!(busy, 200);
    let e = s
        .upsert_visitors(&[visitor(1, Some("A"), None)], 1)
        .unwrap_err();
    assert!(matches!(e, StoreError::Locked { .. }), "{e:?}");
    assert!(e.to_string().contains("locked by another program"), "{e}");
    holder.execute_batch("COMMIT").unwrap();
    s.upsert_visitors(&[visitor(1, Some("A"), None)], 1)
        .unwrap();
}

#[test]
fn a_full_disk_is_reported_as_full() {
    let (_d, path) = tmp_store();
    let opts = OpenOptions {
        busy_timeout: BUSY_TIMEOUT,
        max_pages: Some(18),
        ..OpenOptions::default()
    };
    let mut s = Store::open_with(&path, opts).unwrap();
    let many: Vec<Visitor> = (0..5000)
        .map(|n| visitor(n, Some("A name long enough to fill pages"), None))
        .collect();
    let e = s.upsert_visitors(&many, 1).unwrap_err();
    assert!(matches!(e, StoreError::Full { .. }), "{e:?}");
    assert!(e.to_string().contains("disk is full"), "{e}");
}

#[test]
fn a_place_that_cannot_be_written_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    // The store's directory would have to be where a file is.
    let blocker = dir.path().join("stores");
    std::fs::write(&blocker, b"x").unwrap();
    let e = Store::open(&blocker.join("s.sqlite")).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e:?}");
    assert!(e.to_string().contains("cannot be written"), "{e}");
}

#[test]
fn two_connections_write_at_once() {
    let (_d, path) = tmp_store();
    drop(Store::open(&path).unwrap());
    let writers: Vec<_> = (0..2u128)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut s = Store::open(&path).unwrap();
                for page in 0..20u128 {
                    let rows: Vec<Visitor> = (0..50)
                        .map(|n| visitor(w * 10_000 + page * 100 + n, Some("N"), None))
                        .collect();
                    s.upsert_visitors(&rows, 1).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(Store::open(&path).unwrap().visitor_count().unwrap(), 2000);
}

#[test]
fn clear_empties_every_table() {
    let (_d, path) = tmp_store();
    let mut s = Store::open(&path).unwrap();
    s.upsert_visitors(&[visitor(1, Some("A"), None)], 1)
        .unwrap();
    s.save_look("k", &[], 1).unwrap();
    s.clear().unwrap();
    assert_eq!(s.visitor_count().unwrap(), 0);
    assert_eq!(s.look("k").unwrap(), None);
    assert_eq!(s.sync_state().unwrap(), SyncState::default());
}

#[test]
fn file_names_keep_profiles_and_services_apart_and_hide_credentials() {
    let a = file_name(None, "https://api.chat.example.com");
    assert_eq!(a, file_name(None, "https://api.chat.example.com/"));
    assert!(a.starts_with("default@api.chat.example.com-"), "{a}");
    assert_ne!(a, file_name(Some("stg"), "https://api.chat.example.com"));
    assert_ne!(a, file_name(None, "https://api.chat.example.com/other"));
    let b = file_name(Some("../x"), "https://user:pw@h.example:8443/v");
    assert!(
        !b.contains("pw") && !b.contains("user") && !b.contains('/'),
        "{b}"
    );
    assert!(b.contains("h.example_8443"), "{b}");
    assert_eq!(
        file_name(None, "https://user:pw@h.example/"),
        file_name(None, "https://h.example")
    );
}

#[tokio::test]
async fn the_task_answers_off_thread_and_turns_off_after_a_failure() {
    let (_d, path) = tmp_store();
    let task = StoreTask::spawn(Store::open(&path).unwrap()).unwrap();
    task.call(|s| s.upsert_visitors(&[visitor(1, Some("A"), None)], 1))
        .await
        .unwrap();
    assert_eq!(task.call(|s| s.visitor_count()).await.unwrap(), 1);
    let e = task
        .call(|s| -> Result<(), StoreError> {
            Err(StoreError::Full {
                path: s.path().display().to_string(),
            })
        })
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::Full { .. }));
    // Later jobs are answered with the same error at once.
    let e2 = task.call(|s| s.visitor_count()).await.unwrap_err();
    assert_eq!(e, e2);
}

#[test]
fn unknown_visitors_are_tallied_until_received() {
    let (_d, path) = tmp_store();
    let mut s = Store::open(&path).unwrap();
    s.upsert_visitors(&[visitor(1, Some("A"), None)], 1)
        .unwrap();
    let id = Uuid::from_u128;
    // A known one is not noted; two unknown ones with their rows are.
    s.note_unknown(&[(id(1), 4), (id(2), 3), (id(3), 1)], 5)
        .unwrap();
    assert_eq!(
        s.unknown().unwrap(),
        super::Unknown {
            visitors: 2,
            rows: 4
        }
    );
    // Received (by the sync or any list): no longer unknown.
    let st = SyncState::default();
    assert_eq!(
        s.record_sync_page(
            &[visitor(2, Some("B"), None), visitor(1, Some("A"), None)],
            &st,
            6
        )
        .unwrap(),
        1,
        "one of the page's rows was new"
    );
    assert_eq!(
        s.unknown().unwrap(),
        super::Unknown {
            visitors: 1,
            rows: 1
        }
    );
}

#[test]
fn an_order_that_cannot_be_learned_means_full_walks_only_in_words() {
    use super::sync::ListOrder;
    let mut st = SyncState {
        rows_seen: 300,
        fits: [false; 3],
        ..SyncState::default()
    };
    let w = super::SyncWords::of(&st, super::Unknown::default());
    assert_eq!(ListOrder::of(&st), ListOrder::Unknown);
    assert!(w.full_walks_only);
    assert!(w.order.contains("full walks only"), "{}", w.order);
    st.fits = [false, true, false];
    assert_eq!(
        ListOrder::of(&st),
        ListOrder::Known(convo_api::order::Order::CreatedAsc)
    );
    st.rows_seen = 1;
    assert_eq!(ListOrder::of(&st), ListOrder::Learning);
    let w = super::SyncWords::of(
        &SyncState {
            cursor: Some("c".into()),
            walked: 1200,
            last_total: Some(20_000),
            ..SyncState::default()
        },
        super::Unknown {
            visitors: 3,
            rows: 7,
        },
    );
    assert_eq!(
        w.walk,
        "under way (1,200 visitors so far of ≥20,000; resumes where it stopped)"
    );
    assert_eq!(
        w.unknown,
        "7 loaded rows (3 visitors) have a visitor the store does not know yet"
    );
}
