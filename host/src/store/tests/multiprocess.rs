//! Several real processes on one database: the test binary re-runs itself with one
//! `#[ignore]`d helper test selected and its job passed in the environment.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::chunk::{Chunk, ContentType};
use crate::store::{JournalInsert, NewJournalEntry, NewSource, SourceKind, Store};

const CHILD_DB_ENV: &str = "CM_TEST_CHILD_DB";
const CHILD_TAG_ENV: &str = "CM_TEST_CHILD_TAG";
const ROWS_PER_WRITER: usize = 1_000;

/// The libtest name of a helper in this module, without the crate name.
fn helper_name(function: &str) -> String {
    let module = module_path!();
    let without_crate = module.split_once("::").map_or(module, |(_, rest)| rest);
    format!("{without_crate}::{function}")
}

fn spawn_helper(function: &str, db: &Path, tag: &str, output: Stdio) -> Child {
    let exe = std::env::current_exe().expect("test binary path");
    Command::new(exe)
        .args([
            helper_name(function).as_str(),
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DB_ENV, db)
        .env(CHILD_TAG_ENV, tag)
        .stdout(Stdio::null())
        .stderr(output)
        .spawn()
        .expect("spawn helper process")
}

fn child_job() -> Option<(PathBuf, String)> {
    let db = std::env::var_os(CHILD_DB_ENV)?;
    let tag = std::env::var(CHILD_TAG_ENV).ok()?;
    Some((PathBuf::from(db), tag))
}

/// One writer's rows: per iteration a one-chunk source, a stats row and a journal row,
/// each its own transaction, so writers interleave as much as possible.
fn write_rows(db: &Path, tag: &str) {
    let mut store = Store::open_path(db).expect("open");
    for i in 0..ROWS_PER_WRITER {
        let label = format!("{tag}-doc-{i}");
        let chunk = Chunk {
            title: format!("{tag} doc {i}"),
            content: format!("payload {tag}token{i} written by {tag}"),
            content_type: ContentType::Prose,
        };
        store
            .index_source(
                &NewSource::new(&label, SourceKind::Content, Some(tag), 40),
                &[chunk],
            )
            .expect("index");
        store
            .record_tool_stats(tag, "ctx_execute", 1000, 10, false)
            .expect("stats");
        let summary = format!("{tag} event {i}");
        let entry = NewJournalEntry {
            session_id: tag,
            category: "file",
            priority: 2,
            summary: &summary,
            data: "",
            dedup: true,
        };
        assert!(matches!(
            store.journal_insert(&entry).expect("journal"),
            JournalInsert::Inserted { .. }
        ));
    }
}

fn count(store: &Store, sql: &str, tag: &str) -> i64 {
    store
        .conn()
        .query_row(sql, [tag], |r| r.get(0))
        .expect("count")
}

#[test]
#[ignore = "helper process of two_processes_and_a_thread_write_one_database_at_once"]
fn helper_writer() {
    if let Some((db, tag)) = child_job() {
        write_rows(&db, &tag);
    }
}

#[test]
fn two_processes_and_a_thread_write_one_database_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("context.db");
    let children: Vec<Child> = ["proc-a", "proc-b"]
        .iter()
        .map(|tag| spawn_helper("helper_writer", &db, tag, Stdio::piped()))
        .collect();
    let thread_db = db.clone();
    let thread = std::thread::spawn(move || write_rows(&thread_db, "thread-c"));
    for child in children {
        let output = child.wait_with_output().expect("wait");
        assert!(
            output.status.success(),
            "writer failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    thread.join().expect("thread writer");

    let store = Store::open_path(&db).expect("reopen");
    for tag in ["proc-a", "proc-b", "thread-c"] {
        let n = ROWS_PER_WRITER as i64;
        assert_eq!(
            count(
                &store,
                "SELECT count(*) FROM sources WHERE session_id = ?1",
                tag
            ),
            n,
            "{tag} sources"
        );
        assert_eq!(
            count(
                &store,
                "SELECT count(*) FROM tool_stats WHERE session_id = ?1",
                tag
            ),
            n,
            "{tag} stats"
        );
        assert_eq!(
            count(
                &store,
                "SELECT count(*) FROM journal WHERE session_id = ?1",
                tag
            ),
            n,
            "{tag} journal"
        );
        assert_eq!(
            count(
                &store,
                "SELECT max(seq) FROM journal WHERE session_id = ?1",
                tag
            ),
            n,
            "{tag} seqs"
        );
        let token = format!("{tag}token{}", ROWS_PER_WRITER - 1);
        let hits = crate::search::search(&store, &token, &crate::search::SearchOptions::new("x"))
            .expect("search");
        let top = hits.hits.first().map(|h| h.source_label.as_str());
        assert_eq!(
            top,
            Some(format!("{tag}-doc-{}", ROWS_PER_WRITER - 1).as_str()),
            "{token} findable"
        );
    }
    assert!(store.integrity_problems().expect("check").is_empty());
}

/// Kills the helper if the test fails before it does.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
#[ignore = "helper process of a_process_killed_mid_indexing_leaves_a_sound_database"]
fn helper_endless_indexer() {
    let Some((db, tag)) = child_job() else {
        return;
    };
    let mut store = Store::open_path(&db).expect("open");
    let doc: String = (0..3000)
        .map(|i| format!("## Section {i}\nSome text about topic {i} with several words to index.\n\n```rust\nfn f{i}() {{}}\n```\n"))
        .collect();
    // Ends by itself if the parent died before killing it.
    let give_up = Instant::now() + Duration::from_secs(120);
    for round in 0.. {
        if Instant::now() > give_up {
            break;
        }
        let label = format!("{tag}-{round}");
        crate::search::index_document(
            &mut store,
            NewSource::new(&label, SourceKind::Content, Some(&tag), doc.len()),
            &doc,
            crate::chunk::Format::Markdown,
        )
        .expect("index");
    }
}

#[test]
fn a_process_killed_mid_indexing_leaves_a_sound_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("context.db");
    let mut child = KillOnDrop(spawn_helper(
        "helper_endless_indexer",
        &db,
        "victim",
        Stdio::null(),
    ));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "indexer made no progress");
        assert!(
            child.0.try_wait().expect("poll").is_none(),
            "indexer exited early"
        );
        if db.exists()
            && let Ok(store) = Store::open_path(&db)
            && store.content_counts().map(|(s, _)| s >= 3).unwrap_or(false)
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(37));
    child.0.kill().expect("SIGKILL");
    child.0.wait().expect("reap");

    let mut store = Store::open_path(&db).expect("opens after the kill");
    assert!(
        store.integrity_problems().expect("check").is_empty(),
        "integrity"
    );
    let broken: i64 = store
        .conn()
        .query_row(
            "SELECT count(*) FROM sources s
             WHERE s.chunk_count != (SELECT count(*) FROM chunks c WHERE c.source_id = s.id)",
            [],
            |r| r.get(0),
        )
        .expect("atomicity query");
    assert_eq!(broken, 0, "every source has all of its chunks or none");
    let conn = store.search_conn().expect("index files");
    for (schema, table) in [("words", "chunks_fts"), ("substrings", "chunks_trigram")] {
        let unindexed: i64 = conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM main.chunks c
                     WHERE NOT EXISTS (SELECT 1 FROM {schema}.{table} f WHERE f.rowid = c.id)"
                ),
                [],
                |r| r.get(0),
            )
            .expect("index query");
        assert_eq!(unindexed, 0, "every stored chunk is in {table}");
    }
    store
        .record_tool_stats("after", "ctx_search", 1, 1, false)
        .expect("writable after the kill");
    let hits = crate::search::search(&store, "topic", &crate::search::SearchOptions::new("x"))
        .expect("search");
    assert!(!hits.hits.is_empty());
}
