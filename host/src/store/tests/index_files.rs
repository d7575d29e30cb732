//! The chunk index files: rebuilt when missing, corrupt or from an older database, and
//! consistent with `chunks` whatever a dead process left behind (ADR 10).

use std::path::{Path, PathBuf};

use crate::chunk::{Chunk, ContentType};
use crate::search::{SearchOptions, search};
use crate::store::*;

fn chunk(text: &str) -> Chunk {
    Chunk {
        title: String::new(),
        content: text.into(),
        content_type: ContentType::Prose,
    }
}

fn index(store: &mut Store, label: &str, texts: &[&str]) -> IndexedSource {
    let chunks: Vec<Chunk> = texts.iter().map(|t| chunk(t)).collect();
    store
        .index_source(
            &NewSource::new(label, SourceKind::Content, Some("s"), 10),
            &chunks,
        )
        .expect("index")
}

fn labels_found(store: &Store, query: &str) -> Vec<String> {
    search(store, query, &SearchOptions::new("s"))
        .expect("search")
        .hits
        .into_iter()
        .map(|h| h.source_label)
        .collect()
}

/// Stored chunks missing from an index, and index rows naming no stored chunk, per file.
fn mismatches(store: &Store) -> Vec<(i64, i64)> {
    let conn = store.search_conn().expect("search conn");
    IndexFile::ALL
        .iter()
        .map(|file| {
            let (schema, table) = (file.schema(), file.table());
            conn.query_row(
                &format!(
                    "SELECT (SELECT count(*) FROM main.chunks c WHERE NOT EXISTS
                                (SELECT 1 FROM {schema}.{table} f WHERE f.rowid = c.id)),
                            (SELECT count(*) FROM {schema}.{table}_docsize d WHERE NOT EXISTS
                                (SELECT 1 FROM main.chunks c WHERE c.id = d.id))"
                ),
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("mismatch query")
        })
        .collect()
}

/// A store in a fresh directory (kept alive by the returned guard).
fn fresh_store() -> (tempfile::TempDir, PathBuf, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("context.db");
    let store = Store::open_path(&db).expect("open");
    (dir, db, store)
}

/// A store in a fresh directory holding `texts` as source "notes", closed again.
fn closed_store(texts: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("context.db");
    let mut store = Store::open_path(&db).expect("open");
    index(&mut store, "notes", texts);
    drop(store);
    (dir, db)
}

/// The chunk ids of a source, in order.
fn chunk_ids(store: &Store, source_id: i64) -> Vec<i64> {
    let mut stmt = store
        .conn()
        .prepare("SELECT id FROM chunks WHERE source_id = ?1 ORDER BY id")
        .expect("prepare");
    stmt.query_map([source_id], |r| r.get(0))
        .expect("ids")
        .collect::<rusqlite::Result<_>>()
        .expect("rows")
}

fn index_file_conn(db: &Path, file: IndexFile) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(file.path(db)).expect("index file");
    trigram::register(&conn).expect("tokenizer");
    conn
}

#[test]
fn both_index_files_sit_beside_the_database_and_agree_with_it() {
    let (_dir, db, mut store) = fresh_store();
    index(
        &mut store,
        "notes",
        &["alpha useLayoutEffect", "beta src/main.rs"],
    );
    for file in IndexFile::ALL {
        assert!(file.path(&db).is_file(), "{file:?}");
    }
    assert_eq!(labels_found(&store, "alpha"), vec!["notes"]);
    assert_eq!(labels_found(&store, "LayoutEff"), vec!["notes"]);
    assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)]);
}

#[test]
fn a_missing_or_garbage_index_file_is_rebuilt_from_the_chunks() {
    let (dir, db) = closed_store(&["alpha useLayoutEffect", "beta src/main.rs"]);
    let words = IndexFile::Words.path(&db);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(open::sidecar(&words, suffix));
    }
    let substrings = IndexFile::Substrings.path(&db);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(open::sidecar(&substrings, suffix));
    }
    std::fs::write(&substrings, vec![0x5a; 64 * 1024]).expect("garbage");

    let store = Store::open_path(&db).expect("reopen");
    assert_eq!(labels_found(&store, "beta"), vec!["notes"]);
    assert_eq!(labels_found(&store, "LayoutEff"), vec!["notes"]);
    assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)]);
    let moved = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("context.substrings.db.corrupt-")
        })
        .count();
    assert_eq!(moved, 1, "the garbage file is kept aside");
    assert!(store.integrity_problems().expect("check").is_empty());
}

#[test]
fn index_files_of_another_database_are_rebuilt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("context.db");
    {
        let mut store = Store::open_path(&db).expect("open");
        index(&mut store, "old", &["stale zebra", "stale yak"]);
    }
    // The main file is replaced (moved aside as corrupt, say); its index files stay.
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(open::sidecar(&db, suffix));
    }
    let mut store = Store::open_path(&db).expect("fresh database");
    assert!(
        labels_found(&store, "zebra").is_empty(),
        "no rows of the old one"
    );
    assert_eq!(
        mismatches(&store),
        vec![(0, 0), (0, 0)],
        "the old rows are gone"
    );
    index(&mut store, "new", &["fresh zebra"]);
    assert_eq!(labels_found(&store, "zebra"), vec!["new"]);
    assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)]);
}

/// A process that dies after committing its index rows but before its chunks leaves
/// rows at ids no stored chunk has. They are never shown, and the next index that
/// takes those ids clears them first.
#[test]
fn index_rows_of_a_dead_transaction_never_surface_or_stick_to_new_chunks() {
    let (_dir, db, mut store) = fresh_store();
    index(&mut store, "first", &["ordinary words"]);
    let next: i64 = store
        .conn()
        .query_row(
            "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'next_chunk_id'",
            [],
            |r| r.get(0),
        )
        .expect("next id");
    for file in IndexFile::ALL {
        let conn = index_file_conn(&db, file);
        conn.execute(
            &format!(
                "INSERT INTO {}(rowid, title, content) VALUES (?1, '', 'phantomword phantomIdent')",
                file.table()
            ),
            [next],
        )
        .expect("orphan row");
    }
    assert!(labels_found(&store, "phantomword").is_empty());
    assert!(labels_found(&store, "tomIden").is_empty());

    let second = index(&mut store, "second", &["genuine text"]);
    assert_eq!(
        chunk_ids(&store, second.source_id),
        vec![next],
        "the new chunk took the orphan's id"
    );
    assert!(labels_found(&store, "phantomword").is_empty());
    assert!(labels_found(&store, "tomIden").is_empty());
    assert_eq!(labels_found(&store, "genuine"), vec!["second"]);
    assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)]);
}

/// A process that dies between deleting chunks and deleting their index rows leaves
/// orphans below `next_chunk_id`; the sweep at cleanup removes them, and ids are never
/// handed out again, so they cannot name a new chunk meanwhile.
#[test]
fn orphans_of_deleted_chunks_are_hidden_then_swept_and_their_ids_never_reused() {
    let (_dir, _db, mut store) = fresh_store();
    index(&mut store, "keep", &["kept words"]);
    let gone = index(&mut store, "gone", &["vanishing words", "more vanishing"]);
    let gone_ids = chunk_ids(&store, gone.source_id);
    // The main-file half of a deletion, as if the process died before the index half.
    store
        .write(|tx| {
            tx.execute("DELETE FROM chunks WHERE source_id = ?1", [gone.source_id])?;
            tx.execute("DELETE FROM sources WHERE id = ?1", [gone.source_id])
        })
        .expect("delete");
    assert!(labels_found(&store, "vanishing").is_empty());
    assert_eq!(mismatches(&store), vec![(0, 2), (0, 2)]);

    let later = index(&mut store, "later", &["later words"]);
    let later_id = chunk_ids(&store, later.source_id)[0];
    assert!(
        gone_ids.iter().all(|&id| id < later_id),
        "{later_id} reuses one of {gone_ids:?}"
    );
    assert_eq!(store.sweep_index().expect("sweep"), 4);
    assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)]);
    assert_eq!(labels_found(&store, "words").len(), 2);
}

#[test]
fn purging_empties_the_index_files_too() {
    let (_dir, db, mut store) = fresh_store();
    index(&mut store, "a", &["alpha useLayoutEffect"]);
    index(&mut store, "b", &["beta useLayoutEffect"]);
    store
        .purge(&PurgeScope::Source("a".into()))
        .expect("purge source");
    assert_eq!(labels_found(&store, "LayoutEff"), vec!["b"]);
    assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)]);
    store.purge(&PurgeScope::Project).expect("purge project");
    assert!(labels_found(&store, "LayoutEff").is_empty());
    let words: i64 = index_file_conn(&db, IndexFile::Substrings)
        .query_row("SELECT count(*) FROM vocabulary", [], |r| r.get(0))
        .expect("vocabulary");
    assert_eq!(words, 0, "the vocabulary is emptied with the indexes");
    for file in IndexFile::ALL {
        let rows: i64 = index_file_conn(&db, file)
            .query_row(
                &format!("SELECT count(*) FROM {}_docsize", file.table()),
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(rows, 0, "{file:?}");
    }
}

#[test]
fn a_version_one_database_keeps_its_chunks_searchable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("context.db");
    {
        let conn = rusqlite::Connection::open(&db).expect("v1 db");
        conn.execute_batch("PRAGMA journal_mode=WAL").expect("wal");
        conn.execute_batch(schema::V1_SCHEMA).expect("v1 schema");
        conn.execute_batch(
            "INSERT INTO sources(id, label, kind, session_id, created_at, chunk_count)
                 VALUES (1, 'legacy', 'content', 's', 0, 2);
             INSERT INTO chunks(id, source_id, seq, title, content, content_type, byte_len)
                 VALUES (1, 1, 0, 'Old > Guide', 'kubernetes rollout', 'prose', 18),
                        (2, 1, 1, 'Old > Code', 'call useLayoutEffect here', 'code', 25);
             PRAGMA user_version = 1;",
        )
        .expect("v1 rows");
    }
    let mut store = Store::open_path(&db).expect("migrates");
    assert_eq!(labels_found(&store, "kubernetes"), vec!["legacy"]);
    assert_eq!(labels_found(&store, "LayoutEff"), vec!["legacy"]);
    assert_eq!(labels_found(&store, "ubernete"), vec!["legacy"]);
    let newer = index(&mut store, "newer", &["kubernetes again"]);
    assert_eq!(chunk_ids(&store, newer.source_id), vec![3]);
    assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)]);
    assert!(store.integrity_problems().expect("check").is_empty());
}

/// Index files written before the vocabulary existed (layout version 1) are rebuilt
/// on open, and then partial words and typos are found in what they held (ADR 22).
#[test]
fn index_files_of_the_layout_before_the_vocabulary_are_rebuilt_with_it() {
    let (_dir, db) = closed_store(&["email magic link authentication", "beta useLayoutEffect"]);
    for file in IndexFile::ALL {
        let conn = index_file_conn(&db, file);
        if file == IndexFile::Substrings {
            conn.execute_batch("DROP TABLE vocabulary; DROP TABLE vocabulary_trigram;")
                .expect("the layout of version 1");
        }
        conn.pragma_update(None, "user_version", 1)
            .expect("version 1");
    }
    let store = Store::open_path(&db).expect("reopen");
    for query in ["authenticat", "thenticat", "LayoutEff", "autentication"] {
        assert_eq!(labels_found(&store, query), vec!["notes"], "{query}");
    }
    let dir = db.parent().expect("dir");
    assert!(
        kept_aside(dir).is_empty(),
        "an older layout is derived data: nothing is kept aside: {:?}",
        kept_aside(dir)
    );
    assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)]);
    assert!(store.integrity_problems().expect("check").is_empty());
}

/// Copies an index file's WAL into the file, so damage written to the file is what
/// every later reader sees.
fn checkpoint(db: &Path, file: IndexFile) {
    index_file_conn(db, file)
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
}

/// The first byte of the root page of `table` in the index file.
fn root_page_offset(db: &Path, file: IndexFile, table: &str) -> u64 {
    let conn = index_file_conn(db, file);
    let page_size: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .expect("page size");
    let root: i64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_schema WHERE name = ?1",
            [table],
            |r| r.get(0),
        )
        .expect("root page");
    u64::try_from((root - 1) * page_size).expect("offset")
}

/// 16 KB of zeros at `offset`: what the reporter wrote into a file.
fn zero_16k(path: &Path, offset: u64) {
    use std::io::{Seek, SeekFrom, Write};
    let mut handle = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open for damage");
    handle.seek(SeekFrom::Start(offset)).expect("seek");
    handle.write_all(&[0u8; 16 * 1024]).expect("zeros");
}

/// Which index files were moved aside as damaged ("words.db", "substrings.db").
fn kept_aside(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let (kept, _) = name.split_once(".corrupt-")?;
            (!name.ends_with("-wal")).then(|| kept.trim_start_matches("context.").to_string())
        })
        .collect()
}

/// The label of the best hit (a query may match several chunks of one source).
fn top_label(store: &Store, query: &str) -> String {
    labels_found(store, query)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("{query}: no hit"))
}

/// A store with enough text that each index file has many pages, then closed.
fn store_with_many_pages(db: &Path) {
    let mut store = Store::open_path(db).expect("open");
    let texts: Vec<String> = (0..400)
        .map(|i| format!("chapter{i} narrates walrusMigration{i} over the tundra{i} plains"))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    index(&mut store, "saga", &refs);
    index(
        &mut store,
        "notes",
        &["alpha useLayoutEffect", "beta src/main.rs"],
    );
}

/// 16 KB of zeros after the header, over the root of the index's data, or in the
/// middle: searching and indexing still answer (the damaged file is rebuilt from the
/// chunks where the damage shows: on open or on the first query), and `cm doctor`'s
/// check names the damaged file until then.
#[test]
fn a_damaged_index_file_is_rebuilt_where_the_damage_shows() {
    for file in IndexFile::ALL {
        for place in ["after the header", "data root", "middle"] {
            let dir = tempfile::tempdir().expect("tempdir");
            let db = dir.path().join("context.db");
            store_with_many_pages(&db);
            checkpoint(&db, file);
            let path = file.path(&db);
            let offset = match place {
                "after the header" => 8_192,
                "data root" => root_page_offset(&db, file, &format!("{}_data", file.table())),
                _ => std::fs::metadata(&path).expect("size").len() / 2 / 8_192 * 8_192,
            };
            zero_16k(&path, offset);
            let damaged = damaged_index_files(&db);
            assert_eq!(
                damaged.iter().map(|d| d.file).collect::<Vec<_>>(),
                vec![file],
                "{file:?} {place}: {damaged:?}"
            );

            let mut store = Store::open_path(&db).expect("reopen");
            assert_eq!(
                top_label(&store, "walrusMigration17"),
                "saga",
                "{file:?} {place}"
            );
            assert_eq!(
                labels_found(&store, "LayoutEff"),
                vec!["notes"],
                "{file:?} {place}"
            );
            assert_eq!(top_label(&store, "tundra399"), "saga", "{file:?} {place}");
            index(&mut store, "later", &["gamma narwhalTusk"]);
            assert_eq!(
                labels_found(&store, "narwhalTusk"),
                vec!["later"],
                "{file:?} {place}"
            );
            assert_eq!(
                labels_found(&store, "whalTu"),
                vec!["later"],
                "{file:?} {place}"
            );
            assert_eq!(mismatches(&store), vec![(0, 0), (0, 0)], "{file:?} {place}");
            assert!(store.integrity_problems().expect("check").is_empty());
            assert!(damaged_index_files(&db).is_empty(), "{file:?} {place}");
            assert_eq!(
                kept_aside(dir.path()),
                vec![format!("{}.db", file.schema())],
                "{place}"
            );
        }
    }
}

/// A damaged file whose damage only a query meets: found by the query, rebuilt, and the
/// query answered; the other file is left as it was.
#[test]
fn damage_met_by_a_query_rebuilds_only_the_damaged_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("context.db");
    store_with_many_pages(&db);
    let store = Store::open_path(&db).expect("open");
    assert_eq!(labels_found(&store, "beta"), vec!["notes"]);
    let words_before = open::file_identity(&IndexFile::Words.path(&db));
    checkpoint(&db, IndexFile::Substrings);
    let substrings = IndexFile::Substrings.path(&db);
    let offset = root_page_offset(&db, IndexFile::Substrings, "chunks_trigram_data");
    zero_16k(&substrings, offset);
    // The open store's page cache may still hold the old pages: a fresh one reads them.
    drop(store);
    let store = Store::open_path(&db).expect("reopen");
    assert_eq!(labels_found(&store, "LayoutEff"), vec!["notes"]);
    assert_eq!(
        open::file_identity(&IndexFile::Words.path(&db)),
        words_before
    );
    assert!(damaged_index_files(&db).is_empty());
    assert_eq!(kept_aside(dir.path()), vec!["substrings.db"]);
}

/// ADR 44: the words index weights a section's own heading; the headings above it (the
/// document's name is above every section) are searched with the body.
#[test]
fn the_words_title_column_holds_the_own_heading_and_the_path_is_body_text() {
    let (_dir, _path, mut store) = fresh_store();
    let chunks = [
        Chunk {
            title: "Zod".into(),
            content: "intro".into(),
            content_type: ContentType::Prose,
        },
        Chunk {
            title: "Zod > Basic usage > Inferring types".into(),
            content: "infers a static type".into(),
            content_type: ContentType::Prose,
        },
    ];
    store
        .index_source(
            &NewSource::new("zod.md", SourceKind::Content, Some("s"), 10),
            &chunks,
        )
        .expect("index");
    let conn = store.search_conn().expect("search conn");
    let rows = |expression: &str| -> i64 {
        conn.query_row(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?1",
            [expression],
            |r| r.get(0),
        )
        .expect("match")
    };
    assert_eq!(rows("title : zod"), 1);
    assert_eq!(rows("title : inferring"), 1);
    assert_eq!(rows("content : usage"), 1);
    assert_eq!(rows("zod"), 2);
}
