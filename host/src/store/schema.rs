//! The database schema, as numbered migrations tracked in `PRAGMA user_version`.
//!
//! Times are unix milliseconds (INTEGER). Text is UTF-8.
//!
//! Full-text design: `chunks` holds the text once, in the main file. Its two full-text
//! indexes live in files of their own beside it (`store::index_files`, ADR 10), so one
//! large document fills both at once on two cores: SQLite allows one writer per file.
//! `chunks_fts` (porter unicode61: words, stems, word prefixes, in `<name>.words.db`)
//! indexes the section's own heading as title, and the headings above it with the
//! content (ADR 44); `chunks_trigram` (in `<name>.substrings.db`) indexes the
//! title and the chunk's identifier, path and non-ASCII tokens (see `chunk::substring`:
//! trigrams of every byte would cost six times the porter index) with the `cm_trigram`
//! tokenizer (`store::trigram`). Both are *contentless-delete* FTS5 tables
//! (`content='', contentless_delete=1`): the text is stored once, `bm25()` still weights
//! title against content, and a row is removed by rowid. The index files are derived
//! data: a missing, corrupt or foreign one is rebuilt from `chunks`.
//! `chunks_vocab` (fts5vocab over the porter table) is the vocabulary for typo correction.
//! The journal (one row per transaction, so triggers cost nothing there) has an
//! external-content porter and trigram pair in the main file, kept by triggers.

use rusqlite::Connection;

/// The schema version this build writes; a database with a higher one is refused.
pub const SCHEMA_VERSION: i64 = 3;

/// Migration `n` (1-based) brings the schema from version n-1 to n.
const MIGRATIONS: &[&str] = &[V1, V2, V3];

const V1: &str = r#"
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One indexed document: pasted content, a file, a fetched URL, command output, a memory file.
CREATE TABLE IF NOT EXISTS sources (
    id           INTEGER PRIMARY KEY,
    label        TEXT NOT NULL,
    kind         TEXT NOT NULL,          -- content|file|url|batch|execute|journal|memory
    url          TEXT,                   -- the URL for kind url, the absolute path for file/memory
    session_id   TEXT,                   -- the session that indexed it
    origin       TEXT NOT NULL DEFAULT 'session' CHECK (origin IN ('session', 'memory')),
    content_hash TEXT,                   -- sha256 of the raw text (memory re-index, fetch cache)
    created_at   INTEGER NOT NULL,
    fetched_at   INTEGER,
    bytes        INTEGER NOT NULL DEFAULT 0,
    chunk_count  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sources_label   ON sources(label);
CREATE INDEX IF NOT EXISTS sources_session ON sources(session_id);
CREATE INDEX IF NOT EXISTS sources_created ON sources(created_at);
CREATE INDEX IF NOT EXISTS sources_url     ON sources(url) WHERE url IS NOT NULL;

CREATE TABLE IF NOT EXISTS chunks (
    id           INTEGER PRIMARY KEY,
    source_id    INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,       -- order inside its source
    title        TEXT NOT NULL,          -- heading path "Guide > Deploy", JSON key path, line range
    content      TEXT NOT NULL,
    content_type TEXT NOT NULL CHECK (content_type IN ('code', 'prose')),
    byte_len     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks(source_id, seq);

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    title, content, content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2'
);
-- Holds each chunk's title and its substring-worthy tokens (see chunk::substring).
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_trigram USING fts5(
    title, content, content='', contentless_delete=1,
    tokenize='trigram'
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, 'row');
-- A 4 MB pending-terms hash (default 1 MB) flushes a large document in fewer segments:
-- measured 25% less CPU for porter indexing; more gave nothing.
INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('hashsize', 4194304);
INSERT INTO chunks_trigram(chunks_trigram, rank) VALUES ('hashsize', 4194304);

-- The session journal: what happened, for rebuilding state after compaction.
CREATE TABLE IF NOT EXISTS journal (
    id           INTEGER PRIMARY KEY,
    session_id   TEXT NOT NULL,
    seq          INTEGER NOT NULL,       -- 1, 2, 3 … per session; what ctx_resume(seq) names
    category     TEXT NOT NULL,
    priority     INTEGER NOT NULL CHECK (priority BETWEEN 1 AND 4),
    summary      TEXT NOT NULL,
    data         TEXT NOT NULL DEFAULT '',
    content_hash TEXT NOT NULL,
    dedup        INTEGER NOT NULL DEFAULT 1, -- 1: a second row with the same hash is dropped
    created_at   INTEGER NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS journal_dedup
    ON journal(session_id, content_hash) WHERE dedup = 1;
CREATE INDEX IF NOT EXISTS journal_priority ON journal(session_id, priority, seq);
CREATE INDEX IF NOT EXISTS journal_created  ON journal(created_at);

CREATE VIRTUAL TABLE IF NOT EXISTS journal_fts USING fts5(
    summary, data, content='journal', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS journal_trigram USING fts5(
    summary, data, content='journal', content_rowid='id',
    tokenize='trigram'
);
CREATE TRIGGER IF NOT EXISTS journal_ai AFTER INSERT ON journal BEGIN
    INSERT INTO journal_fts(rowid, summary, data) VALUES (new.id, new.summary, new.data);
    INSERT INTO journal_trigram(rowid, summary, data) VALUES (new.id, new.summary, new.data);
END;
CREATE TRIGGER IF NOT EXISTS journal_ad AFTER DELETE ON journal BEGIN
    INSERT INTO journal_fts(journal_fts, rowid, summary, data)
        VALUES ('delete', old.id, old.summary, old.data);
    INSERT INTO journal_trigram(journal_trigram, rowid, summary, data)
        VALUES ('delete', old.id, old.summary, old.data);
END;

-- State blocks built at PreCompact and handed back after compaction.
CREATE TABLE IF NOT EXISTS state_blocks (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL,
    block       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    consumed_at INTEGER
);
CREATE INDEX IF NOT EXISTS state_blocks_session ON state_blocks(session_id, id);

-- One row per tool call: what the agent would have received and what it did receive.
CREATE TABLE IF NOT EXISTS tool_stats (
    id             INTEGER PRIMARY KEY,
    session_id     TEXT NOT NULL,
    tool           TEXT NOT NULL,
    raw_bytes      INTEGER NOT NULL,
    returned_bytes INTEGER NOT NULL,
    cache_hit      INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_stats_session ON tool_stats(session_id);
CREATE INDEX IF NOT EXISTS tool_stats_created ON tool_stats(created_at);

CREATE TABLE IF NOT EXISTS hook_timings (
    id          INTEGER PRIMARY KEY,
    platform    TEXT NOT NULL,
    event       TEXT NOT NULL,
    duration_us INTEGER NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS hook_timings_event ON hook_timings(platform, event);

CREATE TABLE IF NOT EXISTS sessions (
    session_id   TEXT PRIMARY KEY,
    platform     TEXT,
    started_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    compactions  INTEGER NOT NULL DEFAULT 0,
    meta         TEXT NOT NULL DEFAULT '{}'   -- JSON object of per-session facts
);
"#;

/// Version 1 as it was, for tests that upgrade an old database.
#[cfg(test)]
pub(super) const V1_SCHEMA: &str = V1;

/// The chunk indexes move to their own files (rebuilt there from `chunks` on first use).
/// `store_id` ties an index file to this database; `next_chunk_id` only grows, so an
/// index row left behind by a deleted chunk never names a new one.
const V2: &str = r#"
DROP TABLE IF EXISTS chunks_vocab;
DROP TABLE IF EXISTS chunks_fts;
DROP TABLE IF EXISTS chunks_trigram;
INSERT OR IGNORE INTO meta(key, value) VALUES ('store_id', lower(hex(randomblob(16))));
-- What a search checks of every index hit, away from the 4 KB content beside it: a join
-- through this covering index reads a few dense pages instead of one page per hit
-- (measured: porter list p50 1.8 -> 1.2 ms over two 5 MB sources).
CREATE INDEX IF NOT EXISTS chunks_filter ON chunks(id, source_id, content_type);
INSERT OR REPLACE INTO meta(key, value)
    VALUES ('next_chunk_id', (SELECT coalesce(max(id), 0) + 1 FROM chunks));
"#;

/// Pending-call markers stay out of the journal's full-text indexes (issue 30): one is
/// written by every PreToolUse and removed by its PostToolUse, and indexing each cost a
/// hook two FTS5 inserts, two deletes and their segment flushes and merges (about half
/// of the journal write, a third of a served PreToolUse's instructions, callgrind). A
/// marker's category never changes (it is deleted, not updated), so the insert and
/// delete triggers skip the same rows. Markers indexed before are taken out first.
const V3: &str = r#"
DROP TRIGGER IF EXISTS journal_ai;
DROP TRIGGER IF EXISTS journal_ad;
INSERT INTO journal_fts(journal_fts, rowid, summary, data)
    SELECT 'delete', id, summary, data FROM journal WHERE category = 'pending-call';
INSERT INTO journal_trigram(journal_trigram, rowid, summary, data)
    SELECT 'delete', id, summary, data FROM journal WHERE category = 'pending-call';
CREATE TRIGGER journal_ai AFTER INSERT ON journal WHEN new.category <> 'pending-call' BEGIN
    INSERT INTO journal_fts(rowid, summary, data) VALUES (new.id, new.summary, new.data);
    INSERT INTO journal_trigram(rowid, summary, data) VALUES (new.id, new.summary, new.data);
END;
CREATE TRIGGER journal_ad AFTER DELETE ON journal WHEN old.category <> 'pending-call' BEGIN
    INSERT INTO journal_fts(journal_fts, rowid, summary, data)
        VALUES ('delete', old.id, old.summary, old.data);
    INSERT INTO journal_trigram(journal_trigram, rowid, summary, data)
        VALUES ('delete', old.id, old.summary, old.data);
END;
"#;

/// The layout of the index files; a file with another version is rebuilt from `chunks`
/// (version 2 added the vocabulary to the substrings file, ADR 22; version 3 keeps only a
/// section's own heading in the words index's title column, ADR 44).
pub const INDEX_FILE_VERSION: i64 = 3;

/// `<name>.words.db`. A 4 MB pending-terms hash (default 1 MB) flushes a large document
/// in fewer segments: measured 25% less CPU for porter indexing; more gave nothing.
pub const WORDS_DDL: &str = concat!(
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    r#"
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    title, content, content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, 'row');
INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('hashsize', 4194304);
"#
);

/// `<name>.substrings.db`: each chunk's title and substring-worthy tokens, and the
/// vocabulary (`store::vocabulary`, ADR 22): every distinct word once, with the trigram
/// index that finds the words containing a partial word or sharing a typo's trigrams.
pub const SUBSTRINGS_DDL: &str = concat!(
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    r#"
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_trigram USING fts5(
    title, content, content='', contentless_delete=1,
    tokenize='cm_trigram'
);
INSERT INTO chunks_trigram(chunks_trigram, rank) VALUES ('hashsize', 4194304);
CREATE TABLE IF NOT EXISTS vocabulary (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE IF NOT EXISTS vocabulary_trigram USING fts5(
    word, content='', contentless_delete=1, tokenize='cm_trigram'
);
"#
);

/// Brings the schema to [`SCHEMA_VERSION`]. Runs inside a `BEGIN IMMEDIATE` transaction
/// and re-reads the version there, so two processes opening an old database at once
/// migrate it exactly once.
pub fn migrate(conn: &mut Connection) -> Result<(), super::StoreError> {
    let current = user_version(conn)?;
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    if current > SCHEMA_VERSION {
        return Err(super::StoreError::SchemaTooNew {
            found: current,
            supported: SCHEMA_VERSION,
        });
    }
    super::retry::with_busy_retry(|| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut version = user_version(&tx)?;
        while version < SCHEMA_VERSION {
            let step = usize::try_from(version).unwrap_or(0);
            tx.execute_batch(MIGRATIONS[step])?;
            version += 1;
        }
        tx.pragma_update(None, "user_version", version)?;
        tx.commit()
    })?;
    Ok(())
}

/// `PRAGMA user_version`.
pub fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_match_version() {
        assert_eq!(MIGRATIONS.len() as i64, SCHEMA_VERSION);
    }

    #[test]
    fn migrating_twice_is_a_no_op_and_fts5_trigram_is_available() {
        let mut conn = Connection::open_in_memory().expect("memory db");
        migrate(&mut conn).expect("first migration");
        migrate(&mut conn).expect("second migration");
        assert_eq!(user_version(&conn).expect("version"), SCHEMA_VERSION);
        conn.execute(
            "INSERT INTO journal(session_id, seq, category, priority, summary, data, content_hash, created_at)
             VALUES ('s', 1, 'file', 2, 'T', '日本語のテキスト', 'h', 0)",
            [],
        )
        .expect("journal row");
        let hits: i64 = conn
            .query_row(
                "SELECT rowid FROM journal_trigram WHERE journal_trigram MATCH '\"本語の\"'",
                [],
                |r| r.get(0),
            )
            .expect("trigram query");
        assert_eq!(hits, 1);
    }

    #[test]
    fn pending_markers_stay_out_of_the_journal_indexes_and_others_stay_in() {
        let count = |conn: &Connection, table: &str, word: &str| -> i64 {
            conn.query_row(
                &format!("SELECT count(*) FROM {table} WHERE {table} MATCH ?1"),
                [word],
                |r| r.get(0),
            )
            .expect("match")
        };
        let insert = |conn: &Connection, seq: i64, category: &str, summary: &str| {
            conn.execute(
                "INSERT INTO journal(session_id, seq, category, priority, summary, data, content_hash, created_at)
                 VALUES ('s', ?1, ?2, 2, ?3, '', ?1, 0)",
                rusqlite::params![seq, category, summary],
            )
            .expect("journal row");
        };
        // A store of version 2 holding an indexed marker and a file row.
        let mut conn = Connection::open_in_memory().expect("memory db");
        conn.execute_batch(V1).expect("v1");
        conn.execute_batch(V2).expect("v2");
        conn.pragma_update(None, "user_version", 2)
            .expect("version");
        insert(&conn, 1, "pending-call", "zorblatt marker");
        insert(&conn, 2, "file", "zorblatt file");
        assert_eq!(count(&conn, "journal_fts", "zorblatt"), 2);
        migrate(&mut conn).expect("migrate");
        for table in ["journal_fts", "journal_trigram"] {
            assert_eq!(
                count(&conn, table, "zorblatt"),
                1,
                "{table} after the migration"
            );
        }
        // New markers are never indexed; removing one leaves the indexes consistent.
        insert(&conn, 3, "pending-call", "frobnicate marker");
        insert(&conn, 4, "decision", "frobnicate decision");
        assert_eq!(count(&conn, "journal_fts", "frobnicate"), 1);
        conn.execute("DELETE FROM journal WHERE seq IN (1, 3)", [])
            .expect("retire the markers");
        conn.execute("DELETE FROM journal WHERE seq = 2", [])
            .expect("delete an indexed row");
        for table in ["journal_fts", "journal_trigram"] {
            conn.execute(
                &format!("INSERT INTO {table}({table}) VALUES ('integrity-check')"),
                [],
            )
            .unwrap_or_else(|e| panic!("{table} integrity: {e}"));
            assert_eq!(count(&conn, table, "zorblatt"), 0, "{table}");
            assert_eq!(count(&conn, table, "frobnicate"), 1, "{table}");
        }
    }

    #[test]
    fn version_one_chunk_indexes_leave_the_main_file_and_ids_keep_growing() {
        let mut conn = Connection::open_in_memory().expect("memory db");
        conn.execute_batch(V1).expect("v1");
        conn.pragma_update(None, "user_version", 1)
            .expect("version");
        conn.execute_batch(
            "INSERT INTO sources(id, label, kind, created_at) VALUES (1, 'a', 'content', 0);
             INSERT INTO chunks(id, source_id, seq, title, content, content_type, byte_len)
                 VALUES (41, 1, 0, 't', 'c', 'prose', 1);",
        )
        .expect("v1 rows");
        migrate(&mut conn).expect("migrate");
        let fts_tables: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name IN ('chunks_fts', 'chunks_trigram', 'chunks_vocab')",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(fts_tables, 0);
        let next: String = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'next_chunk_id'",
                [],
                |r| r.get(0),
            )
            .expect("next id");
        assert_eq!(next, "42");
        let id: String = conn
            .query_row("SELECT value FROM meta WHERE key = 'store_id'", [], |r| {
                r.get(0)
            })
            .expect("store id");
        assert_eq!(id.len(), 32);
    }
}
