use super::*;

fn entry<'a>(session: &'a str, summary: &'a str, dedup: bool) -> NewJournalEntry<'a> {
    NewJournalEntry {
        session_id: session,
        category: "file",
        priority: 2,
        summary,
        data: "",
        dedup,
    }
}

#[test]
fn seq_counts_per_session_and_duplicates_are_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
    assert_eq!(
        store
            .journal_insert(&entry("a", "read x.rs", true))
            .expect("1"),
        JournalInsert::Inserted { seq: 1 }
    );
    assert_eq!(
        store
            .journal_insert(&entry("a", "read y.rs", true))
            .expect("2"),
        JournalInsert::Inserted { seq: 2 }
    );
    assert_eq!(
        store
            .journal_insert(&entry("a", "read x.rs", true))
            .expect("dup"),
        JournalInsert::Duplicate { seq: 1 }
    );
    assert_eq!(
        store
            .journal_insert(&entry("a", "read x.rs", false))
            .expect("kept"),
        JournalInsert::Inserted { seq: 3 }
    );
    assert_eq!(
        store
            .journal_insert(&entry("b", "read x.rs", true))
            .expect("b"),
        JournalInsert::Inserted { seq: 1 }
    );
    let rows = store.journal_list("a", 0, 10).expect("list");
    assert_eq!(
        rows.iter().map(|r| r.seq).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(
        store.journal_get("a", 2).expect("get").map(|r| r.summary),
        Some("read y.rs".into())
    );
    assert!(store.journal_get("a", 9).expect("missing").is_none());
}

#[test]
fn a_state_block_is_taken_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
    store.save_state_block("s", "state one").expect("save");
    let taken = store.take_state_block("s").expect("take").map(|b| b.block);
    assert_eq!(taken.as_deref(), Some("state one"));
    assert!(store.take_state_block("s").expect("again").is_none());
    assert!(
        store
            .latest_state_block("s")
            .expect("latest")
            .is_some_and(|b| b.consumed_at.is_some())
    );
}

fn row<'a>(summary: &'a str, priority: u8) -> NewJournalEntry<'a> {
    NewJournalEntry {
        session_id: "s",
        category: "note",
        priority,
        summary,
        data: "field: x\n\nbody text that is long",
        dedup: true,
    }
}

#[test]
fn a_batch_retires_refreshes_and_evicts_in_one_transaction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
    let keep = [2, 2, 2, 2];
    let first = store
        .journal_apply(
            "s",
            &[
                JournalOp::Insert(row("a", 4)),
                JournalOp::Insert(row("b", 4)),
            ],
            keep,
        )
        .expect("first");
    assert_eq!(
        first,
        vec![
            JournalInsert::Inserted { seq: 1 },
            JournalInsert::Inserted { seq: 2 }
        ]
    );
    // Retiring the newest row does not hand its seq to the row inserted with it.
    let second = store
        .journal_apply(
            "s",
            &[JournalOp::Retire(2), JournalOp::Insert(row("c", 4))],
            keep,
        )
        .expect("second");
    assert_eq!(second, vec![JournalInsert::Inserted { seq: 3 }]);
    // Refresh moves an identical row to the end; a third P4 row evicts the oldest.
    let third = store
        .journal_apply(
            "s",
            &[
                JournalOp::Refresh(row("a", 4)),
                JournalOp::Insert(row("d", 4)),
            ],
            keep,
        )
        .expect("third");
    assert_eq!(
        third,
        vec![
            JournalInsert::Inserted { seq: 4 },
            JournalInsert::Inserted { seq: 5 }
        ]
    );
    let left: Vec<(i64, String)> = store
        .journal_list("s", 0, 10)
        .expect("list")
        .into_iter()
        .map(|r| (r.seq, r.summary))
        .collect();
    assert_eq!(left, vec![(4, "a".to_string()), (5, "d".to_string())]);
    assert_eq!(
        store.most_recent_session().expect("recent").as_deref(),
        Some("s")
    );
    // The FTS index follows deletions: an evicted row is not found.
    let hits: i64 = store
        .conn()
        .query_row(
            "SELECT count(*) FROM journal_fts WHERE journal_fts MATCH 'body'",
            [],
            |r| r.get(0),
        )
        .expect("fts");
    assert_eq!(hits, 2);
}

#[test]
fn recent_rows_come_with_cut_data_and_by_category() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
    for (summary, category) in [("1", "a"), ("2", "b"), ("3", "a"), ("4", "c")] {
        store
            .journal_insert(&NewJournalEntry {
                category,
                ..row(summary, 2)
            })
            .expect("insert");
    }
    let recent = store.journal_recent("s", 2, 5).expect("recent");
    assert_eq!(recent.iter().map(|r| r.seq).collect::<Vec<_>>(), vec![3, 4]);
    assert_eq!(recent[0].data, "field");
    let of_a = store
        .journal_in_categories("s", &["a", "c"], 10, 1000)
        .expect("categories");
    assert_eq!(
        of_a.iter().map(|r| r.seq).collect::<Vec<_>>(),
        vec![1, 3, 4]
    );
    assert_eq!(store.journal_count("s").expect("count"), 4);
}

#[test]
fn a_continuing_session_numbers_its_rows_after_the_other_and_takes_its_block() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
    for summary in ["1", "2", "3"] {
        store
            .journal_insert(&NewJournalEntry {
                session_id: "old",
                ..row(summary, 1)
            })
            .expect("old");
    }
    store.save_state_block("old", "older state").expect("save");
    store.save_state_block("old", "old state").expect("save");
    let taken = store
        .take_newest_state_block()
        .expect("take")
        .expect("a block");
    assert_eq!(
        (taken.session_id.as_str(), taken.block.as_str()),
        ("old", "old state")
    );
    assert!(store.take_newest_state_block().expect("again").is_none());
    let seq = store
        .journal_insert_above(
            &NewJournalEntry {
                session_id: "new",
                ..row("link", 1)
            },
            "old",
        )
        .expect("link");
    assert_eq!(seq, 4);
    let next = store
        .journal_insert(&NewJournalEntry {
            session_id: "new",
            ..row("next", 1)
        })
        .expect("next");
    assert_eq!(next.seq(), 5);
}
