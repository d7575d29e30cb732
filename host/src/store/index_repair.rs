//! Damaged index files (ADR 10, ADR 11). A file with a good header but bad pages opens
//! fine and fails only when a statement reads a bad page: on opening the index files,
//! on a search, on an insert. Each of those places hands its error to
//! `Store::repair_index`, which finds the damaged file, moves it aside and lets the next
//! use rebuild it from `chunks`; the caller then tries once more.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::index_files::IndexFile;
use super::{Store, StoreError, open, retry, trigram};
use crate::limits::DB_TIMEOUT_MS;

/// What SQLite and FTS5 say when a file's pages or FTS5's own records do not parse
/// (FTS5 reports some of it as a plain error: "invalid fts5 file format",
/// "vtable constructor failed: chunks_trigram").
const DAMAGE_MESSAGES: [&str; 4] = [
    "malformed",
    "invalid fts5 file format",
    "vtable constructor failed",
    "fts5: corrupt",
];

/// The error of a write that found an index file replaced under it (see
/// `Store::index_source`): the repair path reopens the files and the write runs again.
pub(super) fn replaced_error() -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some("an index file was replaced by another process".into()),
    )
}

/// Whether `err` can come from a damaged database file.
pub(super) fn looks_damaged(err: &StoreError) -> bool {
    matches!(err, StoreError::Sqlite(err) if is_damage(err))
}

fn is_damage(err: &rusqlite::Error) -> bool {
    if matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    ) {
        return true;
    }
    let text = err.to_string().to_ascii_lowercase();
    DAMAGE_MESSAGES.iter().any(|m| text.contains(m))
}

/// What `PRAGMA integrity_check` (which runs FTS5's own check of each index) finds
/// wrong with the index file at `path`, on a connection of its own, so nothing attached
/// or cached hides the file's state. Empty when it is fine, missing (built on first
/// use), or cannot be checked now (busy, unreadable: not damage).
pub(super) fn file_problems(path: &Path) -> Vec<String> {
    if !path.is_file() {
        return Vec::new();
    }
    let check = || -> rusqlite::Result<Vec<String>> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)?;
        conn.busy_timeout(Duration::from_millis(DB_TIMEOUT_MS))?;
        // A check changes nothing: no checkpoint when this connection closes.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )?;
        trigram::register(&conn)?;
        let mut stmt = conn.prepare("PRAGMA integrity_check")?;
        let rows = stmt
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows.into_iter().filter(|row| row != "ok").collect())
    };
    match check() {
        Ok(problems) => problems,
        Err(err) if retry::is_busy(&err) => Vec::new(),
        Err(err) if is_damage(&err) => vec![err.to_string()],
        Err(err) => {
            tracing::debug!("cannot check {}: {err}", path.display());
            Vec::new()
        }
    }
}

/// One index file of a project database and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFileDamage {
    pub file: IndexFile,
    pub path: PathBuf,
    pub problems: Vec<String>,
}

/// The damaged index files beside the main database `main_db`, checked without
/// opening (or repairing) them through a `Store`: what `cm doctor` reports.
pub fn damaged_index_files(main_db: &Path) -> Vec<IndexFileDamage> {
    IndexFile::ALL
        .into_iter()
        .filter_map(|file| {
            let path = file.path(main_db);
            let problems = file_problems(&path);
            (!problems.is_empty()).then_some(IndexFileDamage {
                file,
                path,
                problems,
            })
        })
        .collect()
}

impl Store {
    /// Called with the error of anything that used the index files. When an index file
    /// is damaged it is moved aside (the next use rebuilds it from `chunks`), the open
    /// index files are closed, and the answer is true: the caller tries once more. Also
    /// true when another process has already put a rebuilt file in place.
    pub(crate) fn repair_index(&self, err: &StoreError) -> bool {
        if !looks_damaged(err) {
            return false;
        }
        let replaced = self
            .index
            .borrow()
            .as_ref()
            .is_some_and(|files| files.replaced_on_disk());
        self.close_index();
        let message = err.to_string();
        let mut repaired = replaced;
        for file in IndexFile::ALL {
            let path = file.path(&self.path);
            let identity = open::file_identity(&path);
            let mut problems = file_problems(&path);
            if problems.is_empty() && message.contains(file.table()) {
                problems.push(message.clone());
            }
            let Some(problem) = problems.first() else {
                continue;
            };
            tracing::warn!(
                "{} is damaged ({problem}); rebuilding it from the stored chunks",
                path.display()
            );
            match open::move_aside(&path, identity) {
                Ok(()) => repaired = true,
                Err(err) => tracing::warn!("cannot move {} aside: {err}", path.display()),
            }
        }
        repaired
    }

    /// Drops the index files' connections and detaches them from the main one (also
    /// after a failed open that attached only one).
    pub(super) fn close_index(&self) {
        self.index.borrow_mut().take();
        self.conn.flush_prepared_statement_cache();
        for file in IndexFile::ALL {
            let _ = self
                .conn
                .execute_batch(&format!("DETACH DATABASE {}", file.schema()));
        }
    }
}
