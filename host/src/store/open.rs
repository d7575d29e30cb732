//! Opening a project database safely while other processes may be doing the same:
//! a new database is built under a temp name and hard-linked into place (so nobody ever
//! opens a half-built one, and a second builder never replaces the first one's file);
//! a garbage file is moved aside and rebuilt.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::index_files::IndexFile;
use super::{Result, StoreError, schema, trigram};
use crate::limits::{
    DB_BUSY_LONG_STEP_MS, DB_BUSY_SHORT_STEPS, DB_BUSY_STEP_US, DB_PAGE_CACHE_BYTES, DB_TIMEOUT_MS,
    INDEX_WRITER_CACHE_BYTES,
};

/// Which of a project's database files is being opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DbKind {
    /// `context.db`: sources, chunks, journal, stats (schema migrations).
    Main,
    /// One of the chunk index files (derived data, rebuilt from the main file).
    Index(IndexFile),
}

/// Attempts before giving up when the file keeps vanishing or turning out corrupt.
const OPEN_ATTEMPTS: usize = 4;

enum OpenFailure {
    /// Not a database, or a corrupt one: move it aside and build a new one.
    Corrupt(rusqlite::Error),
    /// An index file of another layout version: derived data in a form this build does
    /// not write, so it is deleted (nothing to keep aside) and built again.
    OtherLayout(i64),
    /// The file disappeared between the existence check and the open.
    Vanished,
    Fatal(StoreError),
}

pub(super) fn open_connection(db_path: &Path, kind: DbKind) -> Result<Connection> {
    configure_library();
    let dir = db_path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut last_error = None;
    for _ in 0..OPEN_ATTEMPTS {
        if !db_path.exists() {
            create_fresh(db_path, kind)?;
        }
        let identity = file_identity(db_path);
        match open_existing(db_path, kind) {
            Ok(conn) => return Ok(conn),
            Err(OpenFailure::Vanished) => continue,
            Err(OpenFailure::Fatal(err)) => return Err(err),
            Err(OpenFailure::OtherLayout(version)) => {
                tracing::info!(
                    "{} has index layout {version}; rebuilding it as layout {}",
                    db_path.display(),
                    schema::INDEX_FILE_VERSION
                );
                remove_derived(db_path, identity)?;
            }
            Err(OpenFailure::Corrupt(err)) => {
                tracing::warn!(
                    "{} is not a usable database ({err}); rebuilding",
                    db_path.display()
                );
                move_aside(db_path, identity)?;
                last_error = Some(err);
            }
        }
    }
    Err(last_error.map_or_else(
        || StoreError::Io {
            path: db_path.to_path_buf(),
            source: std::io::Error::other("database kept disappearing while opening"),
        },
        StoreError::Sqlite,
    ))
}

fn open_existing(db_path: &Path, kind: DbKind) -> std::result::Result<Connection, OpenFailure> {
    // No CREATE flag: a file removed since the existence check must not be re-created
    // here, outside the temp-name-and-link path.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = match Connection::open_with_flags(db_path, flags) {
        Ok(conn) => conn,
        Err(err) if err.sqlite_error_code() == Some(ErrorCode::CannotOpen) && !db_path.exists() => {
            return Err(OpenFailure::Vanished);
        }
        Err(err) => return Err(classify(err)),
    };
    match kind {
        DbKind::Main => {
            configure(&mut conn, DB_PAGE_CACHE_BYTES).map_err(classify)?;
            schema::migrate(&mut conn).map_err(|err| match err {
                StoreError::Sqlite(e) => classify(e),
                other => OpenFailure::Fatal(other),
            })?;
        }
        DbKind::Index(_) => {
            configure(&mut conn, INDEX_WRITER_CACHE_BYTES).map_err(classify)?;
            trigram::register(&conn).map_err(classify)?;
            let version = schema::user_version(&conn).map_err(classify)?;
            if version != schema::INDEX_FILE_VERSION {
                return Err(OpenFailure::OtherLayout(version));
            }
        }
    }
    Ok(conn)
}

/// Process-wide SQLite settings, applied before the first connection opens (SQLite
/// refuses them afterwards, harmlessly). Memory statistics off: with them on, every
/// allocation takes one global mutex, and the two index writers of a large document,
/// which allocate for every token, then spent a third of their time waiting for each
/// other (measured: 250 → 166 ms for the words index running beside the substrings one).
pub(super) fn configure_library() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: sqlite3_config before initialization, with the documented int argument.
        let rc = unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::ffi::c_int,
            )
        };
        if rc != rusqlite::ffi::SQLITE_OK {
            tracing::debug!("sqlite memory statistics stay on (rc {rc})");
        }
    });
}

fn classify(err: rusqlite::Error) -> OpenFailure {
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => OpenFailure::Corrupt(err),
        _ => OpenFailure::Fatal(StoreError::Sqlite(err)),
    }
}

/// The busy handler: wait for another connection's write lock in steps of
/// `DB_BUSY_STEP_US` for the first `DB_BUSY_SHORT_STEPS`, then of
/// `DB_BUSY_LONG_STEP_MS`, until `DB_TIMEOUT_MS` in all. SQLite's own `busy_timeout`
/// sleeps 1, 2, 5, 10 … ms, so a hook whose journal write meets an index batch that
/// commits 1 ms later waited up to 8 ms (ADR 35).
fn wait_in_short_steps(tries: i32) -> bool {
    let tries = u64::try_from(tries).unwrap_or(0);
    let short_us = DB_BUSY_STEP_US * DB_BUSY_SHORT_STEPS;
    let waited_us = if tries < DB_BUSY_SHORT_STEPS {
        tries * DB_BUSY_STEP_US
    } else {
        short_us + (tries - DB_BUSY_SHORT_STEPS) * DB_BUSY_LONG_STEP_MS * 1000
    };
    if waited_us >= DB_TIMEOUT_MS * 1000 {
        return false;
    }
    let step = if tries < DB_BUSY_SHORT_STEPS {
        Duration::from_micros(DB_BUSY_STEP_US)
    } else {
        Duration::from_millis(DB_BUSY_LONG_STEP_MS)
    };
    std::thread::sleep(step);
    true
}

/// Per-connection settings. `journal_mode=WAL` is stored in the file, the rest are not.
pub(super) fn configure(conn: &mut Connection, cache_bytes: usize) -> rusqlite::Result<()> {
    conn.busy_handler(Some(wait_in_short_steps))?;
    // rusqlite keeps 16 prepared statements by default, fewer than one served hook runs
    // (journal, sessions, timings, pruning): each call compiled its SQL again.
    conn.set_prepared_statement_cache_capacity(crate::limits::STORE_STATEMENTS_CACHED_MAX);
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))?;
    }
    conn.execute_batch(
        "PRAGMA synchronous=NORMAL;
         PRAGMA foreign_keys=ON;
         PRAGMA temp_store=MEMORY;",
    )?;
    conn.query_row(
        &format!(
            "PRAGMA journal_size_limit={}",
            crate::limits::STORE_WAL_SIZE_LIMIT_BYTES
        ),
        [],
        |_| Ok(()),
    )?;
    // The default 2 MB page cache makes a long-lived server re-read index pages from the
    // OS on every search (measured: search p50 2.1 → 1.3 ms on a 10 MB index). Pages
    // are cached as they are read, so a short-lived hook connection uses little of it.
    conn.execute_batch(&format!("PRAGMA cache_size=-{}", cache_bytes / 1024))?;
    // A hook process is often the last connection of a project; SQLite would then run a
    // full checkpoint (four fsyncs) on every close. The WAL stays instead and is
    // checkpointed by size when a `Store` closes (see `Store::checkpoint`).
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    // Without the planner's stability guarantee SQLite 3.54 plans `LIMIT ?`, `OFFSET ?`
    // and some `=` terms for the value bound, so binding a new value expires the cached
    // statement and the next step compiles it again: the journal's reads and prunes of
    // every served hook, and every search, were parsed on every call (ADR 35).
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    Ok(())
}

/// Builds a complete database under a temp name in the same directory, then links it
/// into place. `link` fails when the target exists, so when two processes race, the
/// first one's database stays and the second one's temp file is simply removed.
fn create_fresh(db_path: &Path, kind: DbKind) -> Result<()> {
    let tmp = temp_name(db_path);
    let built = build_at(&tmp, kind);
    let linked = built.and_then(|()| {
        match std::fs::hard_link(&tmp, db_path) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            // A file system without hard links: rename, accepting the small race.
            Err(_) if !db_path.exists() => {
                std::fs::rename(&tmp, db_path).map_err(|source| StoreError::Io {
                    path: db_path.to_path_buf(),
                    source,
                })
            }
            Err(_) => Ok(()),
        }
    });
    for leftover in [tmp.clone(), sidecar(&tmp, "-wal"), sidecar(&tmp, "-shm")] {
        let _ = std::fs::remove_file(leftover);
    }
    linked
}

fn build_at(tmp: &Path, kind: DbKind) -> Result<()> {
    let mut conn = Connection::open(tmp)?;
    // Chunks are up to 4 KB: with 8 KB pages most fit without overflow pages (measured
    // ~8% faster indexing than 4 KB pages). Must precede WAL mode and the first table.
    conn.execute_batch("PRAGMA page_size=8192")?;
    match kind {
        DbKind::Main => {
            configure(&mut conn, DB_PAGE_CACHE_BYTES)?;
            schema::migrate(&mut conn)?;
        }
        DbKind::Index(file) => {
            configure(&mut conn, INDEX_WRITER_CACHE_BYTES)?;
            trigram::register(&conn)?;
            conn.execute_batch(file.ddl())?;
            conn.pragma_update(None, "user_version", schema::INDEX_FILE_VERSION)?;
        }
    }
    // Into the file itself before it is linked: the WAL is left behind (`configure`
    // turns off the checkpoint on close).
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    conn.close().map_err(|(_, err)| StoreError::Sqlite(err))
}

fn temp_name(db_path: &Path) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = db_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "context.db".into());
    db_path.with_file_name(format!("{name}.tmp-{}-{nanos}", std::process::id()))
}

pub(super) fn sidecar(db_path: &Path, suffix: &str) -> PathBuf {
    let mut name = db_path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Moves a bad database (and its WAL, whose frames belong to it) to
/// `<name>.corrupt-<unix-ts>`. Skipped when the file is no longer the one that failed:
/// another process got there first and may already have put a good one in place.
pub(super) fn move_aside(db_path: &Path, failed: Option<FileIdentity>) -> Result<()> {
    if failed.is_some() && file_identity(db_path) != failed {
        return Ok(());
    }
    let ts = super::now_ms() / 1000;
    let mut target = sidecar(db_path, &format!(".corrupt-{ts}"));
    if target.exists() {
        target = sidecar(db_path, &format!(".corrupt-{ts}-{}", std::process::id()));
    }
    match std::fs::rename(db_path, &target) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(StoreError::Io {
                path: db_path.to_path_buf(),
                source,
            });
        }
    }
    let _ = std::fs::rename(sidecar(db_path, "-wal"), sidecar(&target, "-wal"));
    let _ = std::fs::remove_file(sidecar(db_path, "-shm"));
    Ok(())
}

/// Deletes an index file (and its WAL and shared memory) that is still the one opened
/// as `opened`: another process may already have put a new one in its place.
fn remove_derived(db_path: &Path, opened: Option<FileIdentity>) -> Result<()> {
    if opened.is_some() && file_identity(db_path) != opened {
        return Ok(());
    }
    match std::fs::remove_file(db_path) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(StoreError::Io {
                path: db_path.to_path_buf(),
                source,
            });
        }
    }
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(sidecar(db_path, suffix));
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileIdentity {
    device: u64,
    inode: u64,
}

pub(super) fn file_identity(path: &Path) -> Option<FileIdentity> {
    let meta = std::fs::metadata(path).ok()?;
    let (device, inode) = crate::platform::fs::file_identity(&meta)?;
    Some(FileIdentity { device, inode })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn the_busy_handler_gives_up_only_after_the_timeout() {
        assert!(wait_in_short_steps(0));
        let short_end = i32::try_from(DB_BUSY_SHORT_STEPS).expect("fits");
        assert!(wait_in_short_steps(short_end));
        let long_steps = (DB_TIMEOUT_MS * 1000 - DB_BUSY_STEP_US * DB_BUSY_SHORT_STEPS)
            / (DB_BUSY_LONG_STEP_MS * 1000);
        let last = short_end + i32::try_from(long_steps).expect("fits");
        assert!(wait_in_short_steps(last - 1));
        assert!(!wait_in_short_steps(last));
    }

    #[test]
    fn a_writer_waits_for_another_connections_write_to_end() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("context.db");
        let connect = || {
            let mut conn = Connection::open(&path).expect("open");
            // rusqlite's own default wait, off: the wait is `configure`'s to give.
            conn.busy_timeout(Duration::ZERO).expect("no wait");
            configure(&mut conn, DB_PAGE_CACHE_BYTES).expect("configure");
            conn
        };
        let mut holder = connect();
        let mut waiter = connect();
        let (locked, is_locked) = std::sync::mpsc::channel();
        let release = std::thread::spawn(move || {
            let held = holder
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .expect("hold the write lock");
            locked.send(()).expect("send");
            std::thread::sleep(Duration::from_millis(30));
            held.commit().expect("commit");
        });
        is_locked.recv().expect("the holder has the lock");
        // Without a busy handler this is SQLITE_BUSY at once.
        waiter
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .expect("the lock comes free")
            .commit()
            .expect("commit");
        release.join().expect("join");
    }

    fn corrupt_files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("read dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".corrupt-"))
            .collect();
        names.sort();
        names
    }

    /// One-shot processes (hooks) are each a project's only connection. Each rebuilds
    /// the WAL index on open, so the WAL must not grow with every run.
    #[test]
    fn the_wal_stays_bounded_across_one_shot_connections() {
        let root = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("project");
        let db = crate::paths::project_db(root.path(), project.path());
        let mut wal = db.clone().into_os_string();
        wal.push("-wal");
        let mut largest = 0;
        for run in 0..300 {
            let mut store = Store::open(root.path(), project.path()).expect("open");
            let summary = format!("edited src/file_{run}.rs");
            let data = "x".repeat(3_000);
            store
                .journal_insert(&crate::store::NewJournalEntry {
                    session_id: "s1",
                    category: "file",
                    priority: 2,
                    summary: &summary,
                    data: &data,
                    dedup: true,
                })
                .expect("journal");
            store
                .record_tool_stats("s1", "ctx_execute", 5_000, 100, false)
                .expect("stats");
            drop(store);
            largest = largest.max(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0));
        }
        let limit = crate::limits::STORE_CLOSE_CHECKPOINT_WAL_BYTES;
        assert!(
            largest < 2 * limit,
            "the WAL reached {largest} bytes (checkpointed at {limit})"
        );
        let store = Store::open(root.path(), project.path()).expect("open");
        assert_eq!(store.journal_count("s1").expect("count"), 300);
    }

    #[test]
    fn garbage_database_is_moved_aside_and_rebuilt() {
        let root = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("project");
        let db = crate::paths::project_db(root.path(), project.path());
        std::fs::create_dir_all(db.parent().expect("parent")).expect("mkdir");
        let garbage: Vec<u8> = (0..64 * 1024u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        std::fs::write(&db, &garbage).expect("write garbage");

        let mut store = Store::open(root.path(), project.path()).expect("open rebuilds");
        let moved = corrupt_files(db.parent().expect("parent"));
        assert_eq!(moved.len(), 1, "one file moved aside: {moved:?}");
        let kept = std::fs::read(db.parent().expect("parent").join(&moved[0])).expect("read moved");
        assert_eq!(kept, garbage, "the bad file is kept as it was");

        store
            .record_tool_stats("s1", "ctx_search", 100, 10, false)
            .expect("store works after rebuild");
        assert!(store.integrity_problems().expect("check").is_empty());
    }

    #[test]
    fn fresh_database_leaves_no_temp_files_and_is_wal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("context.db");
        let store = Store::open_path(&db).expect("open");
        let mode: String = store
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .expect("mode");
        assert_eq!(mode, "wal");
        let page: i64 = store
            .conn()
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .expect("page size");
        assert_eq!(page, 8192);
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("read dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
    }

    #[test]
    fn many_openers_racing_on_a_fresh_path_share_one_database() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("context.db");
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let db = db.clone();
                std::thread::spawn(move || {
                    let mut store = Store::open_path(&db).expect("open");
                    store
                        .record_tool_stats(&format!("s{i}"), "t", 1, 1, false)
                        .expect("write");
                })
            })
            .collect();
        for h in handles {
            h.join().expect("thread");
        }
        let store = Store::open_path(&db).expect("reopen");
        let rows: i64 = store
            .conn()
            .query_row("SELECT count(*) FROM tool_stats", [], |r| r.get(0))
            .expect("count");
        assert_eq!(rows, 8, "no opener replaced another's database");
    }
}
