//! The per-project SQLite store: indexed content, the session journal, state blocks,
//! stats and hook timings in `context.db`, and the content's two FTS5 indexes in files
//! of their own beside it (`index_files`, ADR 10). Several processes (two agent windows,
//! hooks, the server) read and write one database at once: WAL, a busy timeout, every
//! write in a `BEGIN IMMEDIATE` transaction, retried while another writer holds the lock.

mod content;
mod index_files;
mod index_repair;
mod journal;
mod open;
mod reclaim;
mod report;
mod retry;
mod schema;
mod stats;
mod trigram;
mod urgent;
mod vocabulary;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, Transaction, TransactionBehavior};

use index_files::IndexFiles;

pub use content::{
    IndexedSource, NewSource, Origin, PurgeReport, PurgeScope, SourceKind, StoredSource,
};
pub use index_files::IndexFile;
pub use index_repair::{IndexFileDamage, damaged_index_files};
pub use journal::{JournalEntry, JournalInsert, JournalOp, NewJournalEntry, StateBlock};
pub use report::{CategoryCount, DayStats, HookDuration, SourceSize};
pub use schema::SCHEMA_VERSION;
pub use stats::ToolStatsSummary;
pub use urgent::{UrgentWrite, let_urgent_writes_in};
pub use vocabulary::{has_word, typo_candidates, words_containing};

/// Why the store could not do what was asked. Displays as one line.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("cannot use {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "database schema version {found} is newer than this cm supports ({supported}); upgrade cm"
    )]
    SchemaTooNew { found: i64, supported: i64 },
    #[error("not a context-mode database")]
    NotContextMode,
    #[error("the chunk index files could not be opened")]
    IndexUnavailable,
    #[error("cannot determine the data root: {0}")]
    DataRoot(#[from] crate::paths::DataRootError),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// An open project database: the main file, and (opened on first use) its chunk
/// index files.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Hooks that only write the journal never open these.
    index: RefCell<Option<IndexFiles>>,
}

impl Store {
    /// Opens (creating when needed) the database of `project_dir` under the data `root`.
    /// Records the project's path in the database, so reports over all projects can name it.
    pub fn open(root: &Path, project_dir: &Path) -> Result<Store> {
        let mut store = Self::open_path(&crate::paths::project_db(root, project_dir))?;
        if let Err(err) = store.remember_project_path(project_dir) {
            tracing::debug!("cannot record the project path: {err}");
        }
        Ok(store)
    }

    /// Opens (creating when needed) the database at `db_path`. A garbage file there is
    /// moved aside as `context.db.corrupt-<unix-ts>` and a fresh database takes its place.
    pub fn open_path(db_path: &Path) -> Result<Store> {
        let conn = open::open_connection(db_path, open::DbKind::Main)?;
        Ok(Store {
            conn,
            path: db_path.to_path_buf(),
            index: RefCell::new(None),
        })
    }

    /// The connection searches use: the main connection with the chunk index files
    /// attached (opened, and built when missing, on first use).
    pub fn search_conn(&self) -> Result<&Connection> {
        self.open_index()?;
        Ok(&self.conn)
    }

    /// Opens the index files when they are not open, or no longer the files on disk
    /// (another process rebuilt one: two stats per call keep this one off the old file).
    fn open_index(&self) -> Result<()> {
        let replaced = match self.index.borrow().as_ref() {
            Some(files) => files.replaced_on_disk(),
            None => true,
        };
        if !replaced {
            return Ok(());
        }
        self.close_index();
        let files = match IndexFiles::open(&self.conn, &self.path) {
            Ok(files) => files,
            Err(err) if self.repair_index(&err) => IndexFiles::open(&self.conn, &self.path)?,
            Err(err) => return Err(err),
        };
        *self.index.borrow_mut() = Some(files);
        Ok(())
    }

    /// The main connection and the open index files, split for a writer.
    fn index_parts(&mut self) -> Result<(&mut Connection, &mut IndexFiles)> {
        self.open_index()?;
        let Store { conn, index, .. } = self;
        let files = index
            .get_mut()
            .as_mut()
            .ok_or(StoreError::IndexUnavailable)?;
        Ok((conn, files))
    }

    /// Leaves WAL checkpoints to the project's other connections: a connection that
    /// must answer in time (a served hook's, ADR 35) would otherwise copy everything a
    /// long `ctx_index` wrote into the main file on its first commit past the threshold.
    pub fn leave_checkpoints_to_others(&self) -> Result<()> {
        self.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        Ok(())
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection, for read queries of sibling modules (search).
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Runs `write` in a `BEGIN IMMEDIATE` transaction and commits it, starting over
    /// while another process holds the write lock (up to `DB_TIMEOUT_MS`).
    pub fn write<T>(
        &mut self,
        mut write: impl FnMut(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T> {
        let conn = &mut self.conn;
        let value = retry::with_busy_retry(|| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let value = write(&tx)?;
            tx.commit()?;
            Ok(value)
        })?;
        Ok(value)
    }

    /// `PRAGMA integrity_check` plus the FTS5 integrity checks of the main file and the
    /// index files; empty when all is well, else the problems SQLite reports.
    pub fn integrity_problems(&self) -> Result<Vec<String>> {
        let mut problems = self.main_integrity_problems()?;
        self.open_index()?;
        problems.extend(IndexFiles::integrity_problems(&self.conn)?);
        Ok(problems)
    }

    /// The integrity problems of the main file alone (the index files are derived from
    /// it and checked on their own: see [`damaged_index_files`]).
    pub fn main_integrity_problems(&self) -> Result<Vec<String>> {
        // `main.` only: the index files may be attached.
        let mut stmt = self.conn.prepare("PRAGMA main.integrity_check")?;
        let mut problems: Vec<String> = stmt
            .query_map([], |row| row.get::<_, String>(0))?
            .collect::<rusqlite::Result<_>>()?;
        problems.retain(|p| p != "ok");
        for table in ["journal_fts", "journal_trigram"] {
            let check = format!("INSERT INTO {table}({table}) VALUES ('integrity-check')");
            if let Err(err) = self.conn.execute(&check, []) {
                problems.push(format!("{table}: {err}"));
            }
        }
        Ok(problems)
    }

    /// Checkpoints a large WAL (never waiting on readers) and closes the connection.
    pub fn close(mut self) -> Result<()> {
        self.checkpoint();
        self.index.get_mut().take();
        // Swapped for an in-memory stand-in so the close error can be reported; the
        // stand-in's drop-time checkpoint is a no-op.
        let conn = std::mem::replace(&mut self.conn, Connection::open_in_memory()?);
        conn.close().map_err(|(_, err)| StoreError::Sqlite(err))
    }

    /// A TRUNCATE checkpoint when the WAL has grown past STORE_CLOSE_CHECKPOINT_WAL_BYTES.
    ///
    /// Why at close, and why TRUNCATE: a hook process is usually the only connection of
    /// its project. The first connection to open a WAL database rebuilds the WAL index by
    /// reading every valid frame, and that rebuild forgets how much was checkpointed, so
    /// SQLite's own auto-checkpoint never lets the WAL restart across one-shot processes:
    /// measured, 600 hook runs left a 35 MB WAL and each run took 38 ms reading it.
    /// Truncating at close bounds what the next process reads. Small WALs are left alone,
    /// so a one-shot hook does not pay a checkpoint's fsyncs for a few rows. The busy
    /// timeout is dropped first: with a reader mid-transaction (a live `cm serve`) the
    /// checkpoint gives up at once instead of holding up the hook; the next close retries.
    fn checkpoint(&self) {
        checkpoint_large_wal(&self.conn, &self.path);
        if let Ok(index) = self.index.try_borrow()
            && let Some(index) = index.as_ref()
        {
            for (conn, path) in index.writer_files() {
                checkpoint_large_wal(conn, path);
            }
        }
    }
}

fn checkpoint_large_wal(conn: &Connection, db_path: &Path) {
    let wal = open::sidecar(db_path, "-wal");
    let wal_bytes = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    if wal_bytes < crate::limits::STORE_CLOSE_CHECKPOINT_WAL_BYTES {
        return;
    }
    let _ = conn.busy_timeout(std::time::Duration::ZERO);
    if let Err(err) = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())) {
        tracing::debug!("wal checkpoint skipped: {err}");
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.checkpoint();
    }
}

/// Milliseconds since the unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Hex sha256 of `text`.
pub fn content_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// `text` escaped for use inside a `LIKE ? ESCAPE '\'` pattern.
/// An FTS5 string literal (quotes doubled), so no text is ever read as FTS syntax.
pub fn fts_string(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

pub(crate) fn like_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    for ch in text.chars() {
        if matches!(ch, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}
