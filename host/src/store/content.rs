//! Indexed content: sources and their chunks, age-based cleanup and purging.

use rusqlite::{OptionalExtension, Row, Transaction, TransactionBehavior, params};

use super::index_files::{IndexFile, IndexFiles, write_rows};
use super::{Result, Store, like_escape, now_ms, retry};
use crate::chunk::Chunk;
use crate::limits::{INDEX_PARALLEL_MIN_BYTES, PURGE_VACUUM_MIN_FREE_PERCENT};

/// What produced a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// Text passed to `ctx_index` as `content`.
    Content,
    /// A file indexed by path.
    File,
    /// A fetched URL.
    Url,
    /// Output of one `ctx_batch_execute` command.
    Batch,
    /// Output of `ctx_execute` / `ctx_execute_file`.
    Execute,
    /// Large data from the session journal.
    Journal,
    /// A project memory file (AGENTS.md, CLAUDE.md, …).
    Memory,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Content => "content",
            SourceKind::File => "file",
            SourceKind::Url => "url",
            SourceKind::Batch => "batch",
            SourceKind::Execute => "execute",
            SourceKind::Journal => "journal",
            SourceKind::Memory => "memory",
        }
    }
}

/// Where a source comes from, as search results report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Indexed by a session (this one or an earlier one: compare `session_id`).
    Session,
    /// A project memory file.
    Memory,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Session => "session",
            Origin::Memory => "memory",
        }
    }

    fn parse(text: &str) -> Origin {
        if text == "memory" {
            Origin::Memory
        } else {
            Origin::Session
        }
    }
}

/// A source about to be indexed.
#[derive(Debug, Clone)]
pub struct NewSource<'a> {
    pub label: &'a str,
    pub kind: SourceKind,
    pub url: Option<&'a str>,
    pub session_id: Option<&'a str>,
    pub origin: Origin,
    /// sha256 of the raw text; see [`super::content_hash`].
    pub content_hash: Option<&'a str>,
    pub fetched_at: Option<i64>,
    /// Size of the raw text before chunking.
    pub bytes: usize,
    /// Delete earlier sources with the same label and kind first (re-indexing a file or
    /// a label replaces it instead of duplicating every hit).
    pub replace_same_label: bool,
}

impl<'a> NewSource<'a> {
    /// A session source of `kind` with no URL or hash, replacing an earlier one of the same label.
    pub fn new(
        label: &'a str,
        kind: SourceKind,
        session_id: Option<&'a str>,
        bytes: usize,
    ) -> Self {
        NewSource {
            label,
            kind,
            url: None,
            session_id,
            origin: Origin::Session,
            content_hash: None,
            fetched_at: None,
            bytes,
            replace_same_label: true,
        }
    }
}

/// What indexing one source did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedSource {
    pub source_id: i64,
    pub chunks: usize,
    /// Earlier sources with the same label and kind that were replaced.
    pub replaced: usize,
}

/// A stored source row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSource {
    pub id: i64,
    pub label: String,
    pub kind: String,
    pub url: Option<String>,
    pub session_id: Option<String>,
    pub origin: Origin,
    pub content_hash: Option<String>,
    pub created_at: i64,
    pub fetched_at: Option<i64>,
    pub bytes: i64,
    pub chunk_count: i64,
}

const SOURCE_COLUMNS: &str = "id, label, kind, url, session_id, origin, content_hash, created_at, fetched_at, bytes, chunk_count";

fn source_from_row(row: &Row<'_>) -> rusqlite::Result<StoredSource> {
    Ok(StoredSource {
        id: row.get(0)?,
        label: row.get(1)?,
        kind: row.get(2)?,
        url: row.get(3)?,
        session_id: row.get(4)?,
        origin: Origin::parse(&row.get::<_, String>(5)?),
        content_hash: row.get(6)?,
        created_at: row.get(7)?,
        fetched_at: row.get(8)?,
        bytes: row.get(9)?,
        chunk_count: row.get(10)?,
    })
}

/// What to purge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PurgeScope {
    /// Content, journal, state blocks and meta of one session (its stats stay: they hold
    /// no content, only byte counts).
    Session(String),
    /// Sources whose label contains this text (case-insensitive).
    Source(String),
    /// Everything in the project's database, stats included.
    Project,
}

/// What a purge or cleanup deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PurgeReport {
    pub sources: usize,
    pub chunks: usize,
    pub journal_rows: usize,
    pub state_blocks: usize,
    pub stats_rows: usize,
    /// Labels of the deleted sources (each once, in deletion order).
    pub labels: Vec<String>,
}

impl Store {
    /// Stores a source and its chunks, and files them in both chunk indexes. For a large
    /// source the words index fills on a second thread while this one fills the
    /// substrings index and stores the chunks (see `index_files` for the commit order
    /// that keeps the three files consistent).
    /// A damaged index file is rebuilt and the source indexed once more.
    pub fn index_source(
        &mut self,
        source: &NewSource<'_>,
        chunks: &[Chunk],
    ) -> Result<IndexedSource> {
        match self.index_source_once(source, chunks) {
            Err(err) if self.repair_index(&err) => self.index_source_once(source, chunks),
            other => other,
        }
    }

    fn index_source_once(
        &mut self,
        source: &NewSource<'_>,
        chunks: &[Chunk],
    ) -> Result<IndexedSource> {
        let parallel = source.bytes >= INDEX_PARALLEL_MIN_BYTES;
        let (conn, index) = self.index_parts()?;
        let (indexed, replaced_chunks) = retry::with_busy_retry(|| {
            // Deferred, with a write to the main file first: that takes the main file's
            // write lock only, where IMMEDIATE would take the attached index files' too
            // and leave their writers waiting on this connection.
            let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
            // Before the replaced chunks go: new ids stay above theirs, whose index rows
            // are deleted after the commit.
            let first_id = allocate_chunk_ids(&tx, chunks.len())?;
            // Checked again under the main file's write lock: a rebuild by another
            // process (which holds that lock) may have replaced a file since it opened.
            if index.replaced_on_disk() {
                return Err(super::index_repair::replaced_error());
            }
            let (replaced, replaced_chunks) = if source.replace_same_label {
                let ids = source_ids(
                    &tx,
                    "SELECT id FROM sources WHERE label = ?1 AND kind = ?2",
                    params![source.label, source.kind.as_str()],
                )?;
                (ids.len(), delete_sources(&tx, &ids)?)
            } else {
                (0, Vec::new())
            };
            let source_id = insert_source(&tx, source, chunks.len())?;
            let (words, substrings) = index.writers();
            std::thread::scope(|scope| {
                // Two threads, not three: the words index takes longest, so it gets a
                // core of its own, and this thread fills the substrings index and then
                // stores the chunk rows on the other.
                if parallel {
                    let words =
                        scope.spawn(move || write_rows(words, IndexFile::Words, first_id, chunks));
                    let rest = write_rows(substrings, IndexFile::Substrings, first_id, chunks)
                        .and_then(|()| insert_chunks(&tx, source_id, first_id, chunks));
                    rest.and(join(words))
                } else {
                    write_rows(words, IndexFile::Words, first_id, chunks)?;
                    write_rows(substrings, IndexFile::Substrings, first_id, chunks)?;
                    insert_chunks(&tx, source_id, first_id, chunks)
                }
            })?;
            tx.commit()?;
            Ok((
                IndexedSource {
                    source_id,
                    chunks: chunks.len(),
                    replaced,
                },
                replaced_chunks,
            ))
        })?;
        index.forget(&replaced_chunks);
        Ok(indexed)
    }

    /// The newest source fetched from `url` (and, when given, with this label): the
    /// fetch cache's look-up.
    pub fn latest_source_for_url(
        &self,
        url: &str,
        label: Option<&str>,
    ) -> Result<Option<StoredSource>> {
        let sql = format!(
            "SELECT {SOURCE_COLUMNS} FROM sources
             WHERE url = ?1 AND kind = 'url' AND (?2 IS NULL OR label = ?2)
             ORDER BY id DESC LIMIT 1"
        );
        Ok(self
            .conn
            .query_row(&sql, params![url, label], source_from_row)
            .optional()?)
    }

    /// Sources of one origin, oldest first (memory re-indexing compares their hashes).
    pub fn sources_by_origin(&self, origin: Origin) -> Result<Vec<StoredSource>> {
        let sql = format!("SELECT {SOURCE_COLUMNS} FROM sources WHERE origin = ?1 ORDER BY id");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([origin.as_str()], source_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// One source by id.
    pub fn source(&self, id: i64) -> Result<Option<StoredSource>> {
        let sql = format!("SELECT {SOURCE_COLUMNS} FROM sources WHERE id = ?1");
        Ok(self
            .conn
            .query_row(&sql, [id], source_from_row)
            .optional()?)
    }

    /// The chunks of a source in order: (title, content).
    pub fn source_chunks(&self, source_id: i64) -> Result<Vec<(String, String)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT title, content FROM chunks WHERE source_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map([source_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The chunk titles of a source in order (what a reply lists, without the text).
    pub fn source_titles(&self, source_id: i64) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT title FROM chunks WHERE source_id = ?1 ORDER BY seq")?;
        let rows = stmt.query_map([source_id], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Deletes one source and its chunks; returns the number of chunks deleted.
    pub fn delete_source(&mut self, id: i64) -> Result<usize> {
        let gone = self.write(|tx| delete_sources(tx, &[id]))?;
        self.forget_chunks(&gone)?;
        Ok(gone.len())
    }

    /// Index rows of chunks the main file no longer has (after its commit).
    fn forget_chunks(&mut self, chunk_ids: &[i64]) -> Result<()> {
        if !chunk_ids.is_empty() {
            self.index_parts()?.1.forget(chunk_ids);
        }
        Ok(())
    }

    /// Removes index rows left behind by a process that died between deleting chunks
    /// and deleting their index rows.
    pub fn sweep_index(&mut self) -> Result<usize> {
        // No index files, no orphans: they are not made just to be swept.
        if !self.index_present() {
            return Ok(0);
        }
        let swept = self
            .index_parts()
            .and_then(|(conn, _)| Ok(IndexFiles::sweep(conn)?));
        match swept {
            Err(err) if self.repair_index(&err) => {
                let (conn, _) = self.index_parts()?;
                Ok(IndexFiles::sweep(conn)?)
            }
            other => other,
        }
    }

    /// Numbers of sources and chunks in the index.
    pub fn content_counts(&self) -> Result<(usize, usize)> {
        let (sources, chunks): (i64, i64) = self.conn.query_row(
            "SELECT (SELECT count(*) FROM sources), (SELECT count(*) FROM chunks)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((sources as usize, chunks as usize))
    }

    /// Deletes session content (not memory files) created more than `days` days ago.
    pub fn cleanup_older_than(&mut self, days: u64) -> Result<PurgeReport> {
        let age_ms = i64::try_from(days.saturating_mul(86_400_000)).unwrap_or(i64::MAX);
        let cutoff = now_ms().saturating_sub(age_ms);
        let (report, gone) = self.write(|tx| {
            let ids = source_ids(
                tx,
                "SELECT id FROM sources WHERE origin = 'session' AND created_at < ?1",
                params![cutoff],
            )?;
            let mut report = PurgeReport::default();
            let gone = delete_sources_reporting(tx, &ids, &mut report)?;
            super::reclaim::prune_hook_timings(tx)?;
            Ok((report, gone))
        })?;
        self.forget_chunks(&gone)?;
        if let Err(err) = self.sweep_index() {
            tracing::warn!("index sweep skipped: {err}");
        }
        Ok(report)
    }

    /// Deletes what `scope` names, gives the space back to the file system when the
    /// purge emptied much of a file, and reports what went.
    /// What [`Store::purge`] would delete: the same deletes in a transaction that is
    /// rolled back (the chunk index files are not touched).
    pub fn purge_preview(&mut self, scope: &PurgeScope) -> Result<PurgeReport> {
        let tx = self.conn.transaction()?;
        let (report, _, _) = purge_rows(&tx, scope)?;
        tx.rollback()?;
        Ok(report)
    }

    pub fn purge(&mut self, scope: &PurgeScope) -> Result<PurgeReport> {
        let index_present = self.index_present();
        let (report, gone, stored_chunks) = self.write(|tx| purge_rows(tx, scope))?;
        if index_present && *scope == PurgeScope::Project {
            let cleared = self.index_parts().and_then(|(_, files)| Ok(files.clear()?));
            // A damaged file is moved aside instead: rebuilt from no chunks, it is empty.
            if let Err(err) = cleared
                && !self.repair_index(&err)
            {
                return Err(err);
            }
        } else if index_present {
            self.forget_chunks(&gone)?;
        }
        let deleted = i64::try_from(report.chunks).unwrap_or(i64::MAX);
        let merge = *scope == PurgeScope::Project
            || (deleted > 0 && deleted * 100 >= stored_chunks * PURGE_VACUUM_MIN_FREE_PERCENT);
        if let Err(err) = self.reclaim_space(merge) {
            tracing::warn!("the purge's space stays in the files until a later purge: {err}");
        }
        Ok(report)
    }
}

/// The row deletes of a purge: (what went, chunk ids gone, chunks stored before).
fn purge_rows(
    tx: &Transaction<'_>,
    scope: &PurgeScope,
) -> rusqlite::Result<(PurgeReport, Vec<i64>, i64)> {
    let stored_chunks: i64 = tx.query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))?;
    let mut report = PurgeReport::default();
    let mut gone = Vec::new();
    match scope {
        PurgeScope::Source(pattern) => {
            let ids = source_ids(
                tx,
                "SELECT id FROM sources WHERE label LIKE '%' || ?1 || '%' ESCAPE '\\'",
                params![like_escape(pattern)],
            )?;
            gone = delete_sources_reporting(tx, &ids, &mut report)?;
        }
        PurgeScope::Session(session) => {
            let ids = source_ids(
                tx,
                "SELECT id FROM sources WHERE session_id = ?1 AND origin = 'session'",
                params![session],
            )?;
            gone = delete_sources_reporting(tx, &ids, &mut report)?;
            report.journal_rows =
                tx.execute("DELETE FROM journal WHERE session_id = ?1", [session])?;
            report.state_blocks =
                tx.execute("DELETE FROM state_blocks WHERE session_id = ?1", [session])?;
            tx.execute("DELETE FROM sessions WHERE session_id = ?1", [session])?;
        }
        PurgeScope::Project => {
            let ids = source_ids(tx, "SELECT id FROM sources ORDER BY id", [])?;
            report.labels = labels_of(tx, &ids)?;
            report.sources = ids.len();
            report.chunks = tx.execute("DELETE FROM chunks", [])?;
            tx.execute("DELETE FROM sources", [])?;
            report.journal_rows = tx.execute("DELETE FROM journal", [])?;
            report.state_blocks = tx.execute("DELETE FROM state_blocks", [])?;
            report.stats_rows = tx.execute("DELETE FROM tool_stats", [])?;
            tx.execute("DELETE FROM hook_timings", [])?;
            tx.execute("DELETE FROM sessions", [])?;
            for table in ["journal_fts", "journal_trigram"] {
                tx.execute(
                    &format!("INSERT INTO {table}({table}) VALUES ('optimize')"),
                    [],
                )?;
            }
        }
    }
    Ok((report, gone, stored_chunks))
}

fn source_ids(
    tx: &Transaction<'_>,
    sql: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = tx.prepare(sql)?;
    let rows = stmt.query_map(params, |r| r.get(0))?;
    rows.collect()
}

fn labels_of(tx: &Transaction<'_>, ids: &[i64]) -> rusqlite::Result<Vec<String>> {
    let mut stmt = tx.prepare_cached("SELECT label FROM sources WHERE id = ?1")?;
    let mut labels: Vec<String> = Vec::new();
    for id in ids {
        let label: String = stmt.query_row([id], |r| r.get(0))?;
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    Ok(labels)
}

/// Deletes sources and their chunks from the main file; returns the deleted chunk ids
/// (their index rows go after the commit).
fn delete_sources(tx: &Transaction<'_>, ids: &[i64]) -> rusqlite::Result<Vec<i64>> {
    let mut chunk_ids = tx.prepare_cached("SELECT id FROM chunks WHERE source_id = ?1")?;
    let mut chunks = tx.prepare_cached("DELETE FROM chunks WHERE source_id = ?1")?;
    let mut sources = tx.prepare_cached("DELETE FROM sources WHERE id = ?1")?;
    let mut gone = Vec::new();
    for id in ids {
        for chunk_id in chunk_ids.query_map([id], |r| r.get(0))? {
            gone.push(chunk_id?);
        }
        chunks.execute([id])?;
        sources.execute([id])?;
    }
    Ok(gone)
}

fn delete_sources_reporting(
    tx: &Transaction<'_>,
    ids: &[i64],
    report: &mut PurgeReport,
) -> rusqlite::Result<Vec<i64>> {
    report.labels = labels_of(tx, ids)?;
    let gone = delete_sources(tx, ids)?;
    report.chunks = gone.len();
    report.sources = ids.len();
    Ok(gone)
}

/// Reserves `n` chunk ids and returns the first. `next_chunk_id` only grows, so an id
/// is never handed out twice once committed (index rows are keyed by it).
fn allocate_chunk_ids(tx: &Transaction<'_>, n: usize) -> rusqlite::Result<i64> {
    // A write first, so a deferred transaction takes the write lock (waiting on the busy
    // handler) before it reads anything.
    tx.execute(
        "INSERT OR IGNORE INTO meta(key, value) VALUES ('next_chunk_id', '1')",
        [],
    )?;
    let first: i64 = tx.query_row(
        "SELECT max((SELECT coalesce(max(id), 0) + 1 FROM chunks),
                    coalesce((SELECT CAST(value AS INTEGER) FROM meta
                              WHERE key = 'next_chunk_id'), 1))",
        [],
        |r| r.get(0),
    )?;
    let next = first.saturating_add(i64::try_from(n).unwrap_or(i64::MAX));
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('next_chunk_id', ?1)",
        [next.to_string()],
    )?;
    Ok(first)
}

fn insert_source(
    tx: &Transaction<'_>,
    source: &NewSource<'_>,
    chunk_count: usize,
) -> rusqlite::Result<i64> {
    tx.prepare_cached(
        "INSERT INTO sources(label, kind, url, session_id, origin, content_hash,
                             created_at, fetched_at, bytes, chunk_count)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        source.label,
        source.kind.as_str(),
        source.url,
        source.session_id,
        source.origin.as_str(),
        source.content_hash,
        now_ms(),
        source.fetched_at,
        i64::try_from(source.bytes).unwrap_or(i64::MAX),
        chunk_count as i64,
    ])?;
    Ok(tx.last_insert_rowid())
}

fn insert_chunks(
    tx: &Transaction<'_>,
    source_id: i64,
    first_id: i64,
    chunks: &[Chunk],
) -> rusqlite::Result<()> {
    let mut insert = tx.prepare_cached(
        "INSERT INTO chunks(id, source_id, seq, title, content, content_type, byte_len)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (seq, (id, chunk)) in (first_id..).zip(chunks).enumerate() {
        insert.execute(params![
            id,
            source_id,
            seq as i64,
            chunk.title,
            chunk.content,
            chunk.content_type.as_str(),
            chunk.content.len() as i64,
        ])?;
    }
    Ok(())
}

/// A writer thread's result; its panic goes on in this thread.
fn join(worker: std::thread::ScopedJoinHandle<'_, rusqlite::Result<()>>) -> rusqlite::Result<()> {
    worker
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::ContentType;

    fn chunk(text: &str) -> Chunk {
        Chunk {
            title: String::new(),
            content: text.into(),
            content_type: ContentType::Prose,
        }
    }

    #[test]
    fn cleanup_removes_old_session_content_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
        let old = store
            .index_source(
                &NewSource::new("old-log", SourceKind::Execute, Some("s"), 9),
                &[chunk("ancient zebra")],
            )
            .expect("old");
        store
            .index_source(
                &NewSource::new("new-log", SourceKind::Execute, Some("s"), 9),
                &[chunk("fresh zebra")],
            )
            .expect("new");
        let memory = NewSource {
            origin: Origin::Memory,
            ..NewSource::new("AGENTS.md", SourceKind::Memory, None, 9)
        };
        let kept = store
            .index_source(&memory, &[chunk("memory zebra")])
            .expect("memory");
        let month_ago = now_ms() - 30 * 86_400_000;
        for id in [old.source_id, kept.source_id] {
            store
                .conn()
                .execute(
                    "UPDATE sources SET created_at = ?1 WHERE id = ?2",
                    params![month_ago, id],
                )
                .expect("age");
        }
        let report = store
            .cleanup_older_than(crate::limits::CONTENT_MAX_AGE_DAYS)
            .expect("cleanup");
        assert_eq!(
            (report.sources, report.chunks, report.labels.clone()),
            (1, 1, vec!["old-log".to_string()])
        );
        let hits = crate::search::search(&store, "zebra", &crate::search::SearchOptions::new("s"))
            .expect("search");
        let labels: Vec<&str> = hits.hits.iter().map(|h| h.source_label.as_str()).collect();
        assert_eq!(labels.len(), 2);
        assert!(!labels.contains(&"old-log"), "{labels:?}");
        assert!(store.integrity_problems().expect("check").is_empty());
    }

    #[test]
    fn reindexing_a_label_replaces_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
        store
            .index_source(
                &NewSource::new("notes", SourceKind::Content, Some("s"), 3),
                &[chunk("first version")],
            )
            .expect("1");
        let second = store
            .index_source(
                &NewSource::new("notes", SourceKind::Content, Some("s"), 3),
                &[chunk("second version")],
            )
            .expect("2");
        assert_eq!(second.replaced, 1);
        assert_eq!(store.content_counts().expect("counts"), (1, 1));
        let hits = crate::search::search(&store, "first", &crate::search::SearchOptions::new("s"))
            .expect("search");
        assert!(hits.hits.is_empty(), "the old version left both indexes");
    }

    /// Large and small sources take the two paths of `index_source` (trigram texts made
    /// on a second thread, or inline); both must file every chunk's text under its own
    /// row in both indexes.
    #[test]
    fn both_indexes_point_at_the_right_chunk_for_large_and_small_sources() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
        let chunk_bytes = 4_000;
        for (label, chunks) in [
            ("small", 3),
            ("large", INDEX_PARALLEL_MIN_BYTES / chunk_bytes + 20),
        ] {
            let list: Vec<Chunk> = (0..chunks)
                .map(|i| {
                    let filler = "plain words fill the chunk ".repeat(chunk_bytes / 27);
                    chunk(&format!("{filler} {label}Marker{i}Z {label}word{i}x"))
                })
                .collect();
            let bytes = list.iter().map(|c| c.content.len()).sum();
            store
                .index_source(
                    &NewSource::new(label, SourceKind::Content, Some("s"), bytes),
                    &list,
                )
                .expect("index");
            for i in [0, chunks / 2, chunks - 1] {
                // A word (porter) and the inside of an identifier (trigram only).
                for query in [
                    format!("{label}word{i}x"),
                    format!("{}Marker{i}Z", &label[2..]),
                ] {
                    let hits = crate::search::search(
                        &store,
                        &query,
                        &crate::search::SearchOptions::new("s"),
                    )
                    .expect("search");
                    let top = hits
                        .hits
                        .first()
                        .unwrap_or_else(|| panic!("{query}: no hit"));
                    assert_eq!(top.source_label, label, "{query}");
                    assert!(top.snippet.contains(&query), "{query} → {}", top.snippet);
                }
            }
        }
        assert!(store.integrity_problems().expect("check").is_empty());
    }
}
