//! The session journal, state blocks and session meta: storage only. What gets
//! journalled, redaction and the state-block budget belong to the session logic.

use rusqlite::{OptionalExtension, Row, params};

use super::{Result, Store, content_hash, now_ms};

/// A journal row about to be written. Text must already be redacted.
#[derive(Debug, Clone)]
pub struct NewJournalEntry<'a> {
    pub session_id: &'a str,
    pub category: &'a str,
    /// 1 (most important) to 4; out-of-range values are clamped.
    pub priority: u8,
    pub summary: &'a str,
    pub data: &'a str,
    /// Drop the row when the session already has one with the same category, summary
    /// and data (re-reading a file); false for rows whose repetition matters.
    pub dedup: bool,
}

/// What a journal insert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalInsert {
    Inserted {
        seq: i64,
    },
    /// An identical row exists; its seq.
    Duplicate {
        seq: i64,
    },
}

impl JournalInsert {
    pub fn seq(self) -> i64 {
        match self {
            JournalInsert::Inserted { seq } | JournalInsert::Duplicate { seq } => seq,
        }
    }
}

/// A stored journal row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    pub id: i64,
    pub session_id: String,
    pub seq: i64,
    pub category: String,
    pub priority: u8,
    pub summary: String,
    pub data: String,
    pub content_hash: String,
    pub created_at: i64,
}

/// A stored state block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateBlock {
    pub id: i64,
    pub session_id: String,
    pub block: String,
    pub created_at: i64,
    pub consumed_at: Option<i64>,
}

const JOURNAL_COLUMNS: &str =
    "id, session_id, seq, category, priority, summary, data, content_hash, created_at";

fn journal_from_row(row: &Row<'_>) -> rusqlite::Result<JournalEntry> {
    Ok(JournalEntry {
        id: row.get(0)?,
        session_id: row.get(1)?,
        seq: row.get(2)?,
        category: row.get(3)?,
        priority: row.get::<_, i64>(4)?.clamp(1, 4) as u8,
        summary: row.get(5)?,
        data: row.get(6)?,
        content_hash: row.get(7)?,
        created_at: row.get(8)?,
    })
}

fn state_from_row(row: &Row<'_>) -> rusqlite::Result<StateBlock> {
    Ok(StateBlock {
        id: row.get(0)?,
        session_id: row.get(1)?,
        block: row.get(2)?,
        created_at: row.get(3)?,
        consumed_at: row.get(4)?,
    })
}

impl Store {
    /// Appends a row with the session's next seq (allocated inside the write
    /// transaction, so concurrent writers never collide).
    pub fn journal_insert(&mut self, entry: &NewJournalEntry<'_>) -> Result<JournalInsert> {
        let hash = content_hash(&format!(
            "{}\u{0}{}\u{0}{}",
            entry.category, entry.summary, entry.data
        ));
        self.write(|tx| {
            if entry.dedup {
                let existing: Option<i64> = tx
                    .prepare_cached(
                        "SELECT seq FROM journal WHERE session_id = ?1 AND content_hash = ?2 AND dedup = 1",
                    )?
                    .query_row(params![entry.session_id, hash], |r| r.get(0))
                    .optional()?;
                if let Some(seq) = existing {
                    return Ok(JournalInsert::Duplicate { seq });
                }
            }
            let seq: i64 = tx
                .prepare_cached("SELECT coalesce(max(seq), 0) + 1 FROM journal WHERE session_id = ?1")?
                .query_row([entry.session_id], |r| r.get(0))?;
            tx.prepare_cached(
                "INSERT INTO journal(session_id, seq, category, priority, summary, data,
                                     content_hash, dedup, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                entry.session_id,
                seq,
                entry.category,
                i64::from(entry.priority.clamp(1, 4)),
                entry.summary,
                entry.data,
                hash,
                entry.dedup,
                now_ms(),
            ])?;
            Ok(JournalInsert::Inserted { seq })
        })
    }

    /// One row of a session by its seq.
    pub fn journal_get(&self, session_id: &str, seq: i64) -> Result<Option<JournalEntry>> {
        let sql =
            format!("SELECT {JOURNAL_COLUMNS} FROM journal WHERE session_id = ?1 AND seq = ?2");
        Ok(self
            .conn
            .query_row(&sql, params![session_id, seq], journal_from_row)
            .optional()?)
    }

    /// Rows of a session with seq > `after_seq`, in seq order, at most `limit`.
    pub fn journal_list(
        &self,
        session_id: &str,
        after_seq: i64,
        limit: usize,
    ) -> Result<Vec<JournalEntry>> {
        let sql = format!(
            "SELECT {JOURNAL_COLUMNS} FROM journal WHERE session_id = ?1 AND seq > ?2
             ORDER BY seq LIMIT ?3"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(
            params![
                session_id,
                after_seq,
                i64::try_from(limit).unwrap_or(i64::MAX)
            ],
            journal_from_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Stores a state block for a session; returns its id.
    pub fn save_state_block(&mut self, session_id: &str, block: &str) -> Result<i64> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO state_blocks(session_id, block, created_at) VALUES (?1, ?2, ?3)",
                params![session_id, block, now_ms()],
            )?;
            Ok(tx.last_insert_rowid())
        })
    }

    /// The newest state block of a session, consumed or not.
    pub fn latest_state_block(&self, session_id: &str) -> Result<Option<StateBlock>> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, session_id, block, created_at, consumed_at FROM state_blocks
                 WHERE session_id = ?1 ORDER BY id DESC LIMIT 1",
                [session_id],
                state_from_row,
            )
            .optional()?)
    }

    /// The newest unconsumed state block of a session, marked consumed in the same
    /// transaction (so two hooks never both inject it).
    pub fn take_state_block(&mut self, session_id: &str) -> Result<Option<StateBlock>> {
        self.write(|tx| {
            let block = tx
                .query_row(
                    "SELECT id, session_id, block, created_at, consumed_at FROM state_blocks
                     WHERE session_id = ?1 AND consumed_at IS NULL ORDER BY id DESC LIMIT 1",
                    [session_id],
                    state_from_row,
                )
                .optional()?;
            let Some(mut block) = block else {
                return Ok(None);
            };
            let now = now_ms();
            tx.execute(
                "UPDATE state_blocks SET consumed_at = ?1 WHERE id = ?2",
                params![now, block.id],
            )?;
            block.consumed_at = Some(now);
            Ok(Some(block))
        })
    }

    /// Records that a session is active (creating its meta row on first sight).
    pub fn touch_session(&mut self, session_id: &str, platform: Option<&str>) -> Result<()> {
        self.write(|tx| {
            let now = now_ms();
            tx.prepare_cached(
                "INSERT INTO sessions(session_id, platform, started_at, last_seen_at)
                 VALUES (?1, ?2, ?3, ?3)
                 ON CONFLICT(session_id) DO UPDATE SET
                     last_seen_at = excluded.last_seen_at,
                     platform = coalesce(excluded.platform, sessions.platform)",
            )?
            .execute(params![session_id, platform, now])?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
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
}
