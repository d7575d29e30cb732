//! The chunk indexes' own database files (ADR 10).
//!
//! SQLite lets one connection write a file at a time, and filling an FTS5 index is
//! single-threaded, so with both indexes beside the chunks a large document was indexed
//! on one core. Each index now lives in its own file (`<name>.words.db`,
//! `<name>.substrings.db`) with its own writer connection, and `Store::index_source`
//! fills the words index on a second thread while the first fills the substrings index
//! and stores the chunks.
//!
//! Files cannot commit together, so the order of commits carries the invariant that
//! *every stored chunk is in both indexes*:
//! - index rows are committed before the main transaction that stores their chunks, under
//!   the main file's write lock, for chunk ids at or above `next_chunk_id`: an index row
//!   at or above it belongs to no stored chunk and is deleted before the ids are used;
//! - index rows of deleted chunks are deleted after the main commit. Until then (or for
//!   good, if the process dies) they are orphans: search joins every index hit to
//!   `chunks`, so an orphan is never shown, and `sweep` removes them.
//!
//! Lock order is always main file, then index file; nothing holds an index file's write
//! lock while waiting for the main one. The files are derived data: a missing, corrupt
//! or foreign one (its `store_id` is not the main file's) is rebuilt from `chunks` under
//! the main file's write lock.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::open::{self, DbKind};
use super::{Result, retry, schema, trigram, vocabulary};
use crate::chunk::{Chunk, substring_index_text};
use crate::limits::DB_PAGE_CACHE_BYTES;

/// One of the two chunk index files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexFile {
    /// Porter-stemmed words (`chunks_fts`) and their vocabulary (`chunks_vocab`).
    Words,
    /// Trigrams of identifiers, paths and non-ASCII runs (`chunks_trigram`), and the
    /// vocabulary of every word (`store::vocabulary`).
    Substrings,
}

impl IndexFile {
    pub const ALL: [IndexFile; 2] = [IndexFile::Words, IndexFile::Substrings];

    /// The name the file is attached under on the search connection.
    pub fn schema(self) -> &'static str {
        match self {
            IndexFile::Words => "words",
            IndexFile::Substrings => "substrings",
        }
    }

    /// The FTS5 table in the file.
    pub fn table(self) -> &'static str {
        match self {
            IndexFile::Words => "chunks_fts",
            IndexFile::Substrings => "chunks_trigram",
        }
    }

    pub(super) fn ddl(self) -> &'static str {
        match self {
            IndexFile::Words => schema::WORDS_DDL,
            IndexFile::Substrings => schema::SUBSTRINGS_DDL,
        }
    }

    /// The file beside the main database `main` (`context.db` → `context.words.db`).
    pub fn path(self, main: &Path) -> PathBuf {
        let stem = main
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "context".into());
        main.with_file_name(format!("{stem}.{}.db", self.schema()))
    }

    /// The statement that files one chunk: rowid, title, content.
    fn insert_sql(self) -> String {
        let table = self.table();
        format!("INSERT INTO {table}(rowid, title, content) VALUES (?1, ?2, ?3)")
    }

    /// What this index stores of a chunk: (title, content). In the words index the title
    /// column (weighted `BM25_TITLE_WEIGHT`) holds only the section's own heading; the
    /// headings above it are the section's context, searched as body text: a document's
    /// name is in the path of every one of its sections, and weighted as a heading it
    /// ranked them all above the one section whose heading names what was asked (ADR 44).
    fn row<'a>(self, title: &'a str, content: &'a str) -> (Cow<'a, str>, Cow<'a, str>) {
        match self {
            IndexFile::Words => match title.rsplit_once(" > ") {
                Some((ancestors, own)) => (
                    Cow::Borrowed(own),
                    Cow::Owned(format!("{ancestors}\n{content}")),
                ),
                None => (Cow::Borrowed(title), Cow::Borrowed(content)),
            },
            IndexFile::Substrings => (
                Cow::Owned(substring_index_text(title)),
                Cow::Owned(substring_index_text(content)),
            ),
        }
    }
}

/// A store's open index files: a writer connection per file. The main connection has
/// both attached for searching (`attach`): one connection keeps its page cache across
/// its own writes (stats after every call), where a second one would find it reset by
/// each of them (measured: search p50 +40 %).
pub(super) struct IndexFiles {
    words: Connection,
    substrings: Connection,
    paths: [PathBuf; 2],
    /// The files these connections opened: another process that rebuilds a damaged
    /// file puts a new one in its place, and this one must then reopen.
    identities: [Option<open::FileIdentity>; 2],
}

impl IndexFiles {
    /// Opens (creating or rebuilding when needed) the index files of the main database
    /// at `main_path`, whose connection is `main`, and attaches them to it.
    pub fn open(main: &Connection, main_path: &Path) -> Result<IndexFiles> {
        let store_id = recorded_store_id(main)?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
        let paths = IndexFile::ALL.map(|file| file.path(main_path));
        let words = open::open_connection(&paths[0], DbKind::Index(IndexFile::Words))?;
        let substrings = open::open_connection(&paths[1], DbKind::Index(IndexFile::Substrings))?;
        let mut files = IndexFiles {
            words,
            substrings,
            identities: paths.each_ref().map(|path| open::file_identity(path)),
            paths,
        };
        for (file, conn) in files.each_writer() {
            if recorded_store_id(conn)?.as_deref() != Some(store_id.as_str()) {
                rebuild(main, conn, file, &store_id)?;
            }
        }
        attach(main, &files.paths)?;
        Ok(files)
    }

    /// Whether a file is no longer the one opened (another process rebuilt it).
    pub fn replaced_on_disk(&self) -> bool {
        self.paths
            .iter()
            .zip(&self.identities)
            .any(|(path, opened)| open::file_identity(path) != *opened)
    }

    /// Each index file with its writer.
    pub fn each_writer(&mut self) -> [(IndexFile, &mut Connection); 2] {
        [
            (IndexFile::Words, &mut self.words),
            (IndexFile::Substrings, &mut self.substrings),
        ]
    }

    /// Both writers at once (the words writer goes to a thread of its own).
    pub fn writers(&mut self) -> (&mut Connection, &mut Connection) {
        (&mut self.words, &mut self.substrings)
    }

    /// Deletes the index rows of chunks already deleted from the main file. A failure
    /// leaves orphans for `sweep`; it is logged, not returned: the deletion the caller
    /// asked for has happened.
    pub fn forget(&mut self, chunk_ids: &[i64]) {
        if chunk_ids.is_empty() {
            return;
        }
        let ranges = id_ranges(chunk_ids);
        for (file, conn) in self.each_writer() {
            let deleted = retry::with_busy_retry(|| {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                {
                    let mut delete = tx.prepare_cached(&format!(
                        "DELETE FROM {} WHERE rowid BETWEEN ?1 AND ?2",
                        file.table()
                    ))?;
                    for (low, high) in &ranges {
                        delete.execute([low, high])?;
                    }
                }
                tx.commit()
            });
            if let Err(err) = deleted {
                tracing::warn!("index rows of deleted chunks stay until the next sweep: {err}");
            }
        }
    }

    /// Merges an index's segments into one, dropping the space of deleted rows.
    pub fn optimize(conn: &Connection, file: IndexFile) -> rusqlite::Result<()> {
        let table = file.table();
        retry::with_busy_retry(|| {
            conn.execute_batch(&format!("INSERT INTO {table}({table}) VALUES ('optimize')"))
        })
    }

    /// Empties both indexes and the vocabulary (the main file's chunks are already gone).
    pub fn clear(&mut self) -> rusqlite::Result<()> {
        for (file, conn) in self.each_writer() {
            let table = file.table();
            retry::with_busy_retry(|| {
                conn.execute_batch(&format!(
                    "INSERT INTO {table}({table}) VALUES ('delete-all');
                     INSERT INTO {table}({table}) VALUES ('optimize');"
                ))?;
                if file == IndexFile::Substrings {
                    vocabulary::clear(conn)?;
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Removes orphans: index rows below `next_chunk_id` whose chunk is gone. Ids at or
    /// above it may belong to a transaction in flight in another process and are left
    /// alone. Returns the number of rows removed.
    pub fn sweep(main: &Connection) -> rusqlite::Result<usize> {
        let mut removed = 0;
        for file in IndexFile::ALL {
            let (schema, table) = (file.schema(), file.table());
            let (indexed, chunks, next_id): (i64, i64, i64) = main.query_row(
                &format!(
                    "SELECT (SELECT count(*) FROM {schema}.{table}_docsize),
                            (SELECT count(*) FROM main.chunks),
                            coalesce((SELECT CAST(value AS INTEGER) FROM main.meta
                                      WHERE key = 'next_chunk_id'), 0)"
                ),
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?;
            if indexed <= chunks {
                continue;
            }
            removed += retry::with_busy_retry(|| {
                main.execute(
                    &format!(
                        "DELETE FROM {schema}.{table}
                         WHERE rowid < ?1 AND rowid NOT IN (SELECT id FROM main.chunks)"
                    ),
                    [next_id],
                )
            })?;
        }
        Ok(removed)
    }

    /// `PRAGMA integrity_check` of both index files plus FTS5's own check of each index,
    /// through the main connection they are attached to.
    pub fn integrity_problems(main: &Connection) -> rusqlite::Result<Vec<String>> {
        let mut problems = Vec::new();
        for file in IndexFile::ALL {
            let schema = file.schema();
            let mut stmt = main.prepare(&format!("PRAGMA {schema}.integrity_check"))?;
            let rows: Vec<String> = stmt
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            problems.extend(
                rows.into_iter()
                    .filter(|p| p != "ok")
                    .map(|p| format!("{schema}: {p}")),
            );
            let table = file.table();
            let check = format!("INSERT INTO {schema}.{table}({table}) VALUES ('integrity-check')");
            if let Err(err) = main.execute(&check, []) {
                problems.push(format!("{table}: {err}"));
            }
        }
        Ok(problems)
    }

    /// The writers with their files, for the close-time WAL checkpoint.
    pub fn writer_files(&self) -> [(&Connection, &Path); 2] {
        [
            (&self.words, self.paths[0].as_path()),
            (&self.substrings, self.paths[1].as_path()),
        ]
    }
}

/// Fills `file`'s index with rows for `chunks`, numbered from `first_id`, in one
/// transaction of its own. Rows at or above `first_id` are deleted first: they belong
/// to no stored chunk (see the module comment).
pub(super) fn write_rows(
    conn: &mut Connection,
    file: IndexFile,
    first_id: i64,
    chunks: &[Chunk],
) -> rusqlite::Result<()> {
    let table = file.table();
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        &format!("DELETE FROM {table} WHERE rowid >= ?1"),
        [first_id],
    )?;
    {
        let mut insert = tx.prepare_cached(&file.insert_sql())?;
        for (id, chunk) in (first_id..).zip(chunks) {
            let (title, content) = file.row(&chunk.title, &chunk.content);
            insert.execute(params![id, title, content])?;
        }
    }
    if file == IndexFile::Substrings {
        vocabulary::add_chunk_words(&tx, chunks)?;
    }
    tx.commit()
}

/// `meta.store_id`: the main database's identity, and in an index file the identity
/// of the main database it was built from.
fn recorded_store_id(conn: &Connection) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT value FROM meta WHERE key = 'store_id'", [], |r| {
        r.get(0)
    })
    .optional()
}

/// Refills `file` from every stored chunk, holding the main file's write lock so no
/// chunk is added meanwhile. Another process may have done it first: checked again
/// under the lock.
fn rebuild(
    main: &Connection,
    conn: &mut Connection,
    file: IndexFile,
    store_id: &str,
) -> rusqlite::Result<()> {
    retry::with_busy_retry(|| {
        main.execute_batch("BEGIN IMMEDIATE")?;
        let rebuilt = refill(main, conn, file, store_id);
        // Nothing was written to the main file: the transaction only held its lock.
        let released = main.execute_batch("ROLLBACK");
        rebuilt.and(released)
    })
}

fn refill(
    main: &Connection,
    conn: &mut Connection,
    file: IndexFile,
    store_id: &str,
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if recorded_store_id(&tx)?.as_deref() == Some(store_id) {
        return Ok(());
    }
    let table = file.table();
    tracing::info!(
        "building the {} index from the stored chunks",
        file.schema()
    );
    tx.execute(
        &format!("INSERT INTO {table}({table}) VALUES ('delete-all')"),
        [],
    )?;
    let vocabulary = file == IndexFile::Substrings;
    if vocabulary {
        vocabulary::clear(&tx)?;
    }
    let mut words = HashSet::new();
    {
        let mut insert = tx.prepare(&file.insert_sql())?;
        let mut chunks = main.prepare("SELECT id, title, content FROM chunks ORDER BY id")?;
        let mut rows = chunks.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            let title = row.get_ref(1)?.as_str()?;
            let content = row.get_ref(2)?.as_str()?;
            if vocabulary {
                vocabulary::collect_words(title, &mut words);
                vocabulary::collect_words(content, &mut words);
            }
            let (title, content) = file.row(title, content);
            insert.execute(params![id, title, content])?;
        }
    }
    if vocabulary {
        vocabulary::add_words(&tx, words)?;
    }
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('store_id', ?1)",
        [store_id],
    )?;
    tx.commit()
}

/// Attaches both index files to the main connection under their schema names, so
/// searches join index hits to `chunks` in one statement. (`BEGIN IMMEDIATE` on it then
/// takes the index files' write locks too: `Store::index_source` begins deferred.)
fn attach(conn: &Connection, paths: &[PathBuf; 2]) -> rusqlite::Result<()> {
    trigram::register(conn)?;
    for (file, path) in IndexFile::ALL.iter().zip(paths) {
        let schema = file.schema();
        conn.execute(
            &format!("ATTACH DATABASE ?1 AS {schema}"),
            [path.to_string_lossy()],
        )?;
        conn.execute_batch(&format!(
            "PRAGMA {schema}.cache_size=-{}",
            DB_PAGE_CACHE_BYTES / 1024
        ))?;
    }
    Ok(())
}

/// Sorted ids as inclusive ranges of consecutive values (a source's chunks are one).
fn id_ranges(ids: &[i64]) -> Vec<(i64, i64)> {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    for id in sorted {
        match ranges.last_mut() {
            Some((_, high)) if *high + 1 >= id => *high = (*high).max(id),
            _ => ranges.push((id, id)),
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_collapse_into_ranges() {
        assert_eq!(
            id_ranges(&[7, 3, 4, 5, 9, 8, 12, 5]),
            vec![(3, 5), (7, 9), (12, 12)]
        );
        assert!(id_ranges(&[]).is_empty());
    }

    #[test]
    fn index_files_sit_beside_the_main_file() {
        let main = Path::new("/data/projects/ab/context.db");
        assert_eq!(
            IndexFile::Words.path(main),
            Path::new("/data/projects/ab/context.words.db")
        );
        assert_eq!(
            IndexFile::Substrings.path(main),
            Path::new("/data/projects/ab/context.substrings.db")
        );
    }
}
