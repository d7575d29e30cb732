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
/// [`JOURNAL_COLUMNS`] with the data cut to its first `?3` characters.
const HEAD_COLUMNS: &str = "id, session_id, seq, category, priority, summary, substr(data, 1, ?3), content_hash, created_at";

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
        let hash = entry_hash(entry);
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
            insert_row(tx, entry, seq, &hash)?;
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
    /// transaction (so two hooks never both inject it), with any older unconsumed block
    /// of the session (superseded, never to be injected).
    pub fn take_state_block(&mut self, session_id: &str) -> Result<Option<StateBlock>> {
        self.take_unconsumed_block(Some(session_id))
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

/// One step of a [`Store::journal_apply`] batch.
#[derive(Debug, Clone)]
pub enum JournalOp<'a> {
    /// Delete the session's row with this seq (a no-op when it is already gone).
    Retire(i64),
    /// Insert, dropping the row when `dedup` is set and an identical one exists.
    Insert(NewJournalEntry<'a>),
    /// Insert as the newest row: an identical earlier row (dedup) is deleted first, so
    /// "edited src/a.rs" moves to the end instead of keeping its day-one seq.
    Refresh(NewJournalEntry<'a>),
}

fn insert_row(
    tx: &rusqlite::Transaction<'_>,
    entry: &NewJournalEntry<'_>,
    seq: i64,
    hash: &str,
) -> rusqlite::Result<()> {
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
    Ok(())
}

fn entry_hash(entry: &NewJournalEntry<'_>) -> String {
    content_hash(&format!(
        "{}\u{0}{}\u{0}{}",
        entry.category, entry.summary, entry.data
    ))
}

impl Store {
    /// Applies the journal changes of one hook call to `session_id` in one write
    /// transaction: retirements, inserts, then eviction down to `keep_per_priority[p-1]`
    /// newest rows of each priority that received a row. Marks the session active.
    /// Returns one [`JournalInsert`] per `Insert`/`Refresh`, in order.
    ///
    /// New seqs start above every seq the session had when the batch began, so a row
    /// retired in the same batch never hands its seq to a new one.
    pub fn journal_apply(
        &mut self,
        session_id: &str,
        ops: &[JournalOp<'_>],
        keep_per_priority: [usize; 4],
    ) -> Result<Vec<JournalInsert>> {
        self.write(|tx| {
            let mut next: i64 = tx
                .prepare_cached("SELECT coalesce(max(seq), 0) + 1 FROM journal WHERE session_id = ?1")?
                .query_row([session_id], |r| r.get(0))?;
            let mut results = Vec::new();
            let mut touched = [false; 4];
            for op in ops {
                match op {
                    JournalOp::Retire(seq) => {
                        tx.prepare_cached("DELETE FROM journal WHERE session_id = ?1 AND seq = ?2")?
                            .execute(params![session_id, seq])?;
                    }
                    JournalOp::Insert(entry) | JournalOp::Refresh(entry) => {
                        let hash = entry_hash(entry);
                        if entry.dedup {
                            let existing: Option<i64> = tx
                                .prepare_cached(
                                    "SELECT seq FROM journal WHERE session_id = ?1 AND content_hash = ?2 AND dedup = 1",
                                )?
                                .query_row(params![session_id, hash], |r| r.get(0))
                                .optional()?;
                            match (existing, op) {
                                (Some(seq), JournalOp::Refresh(_)) => {
                                    tx.prepare_cached("DELETE FROM journal WHERE session_id = ?1 AND seq = ?2")?
                                        .execute(params![session_id, seq])?;
                                }
                                (Some(seq), _) => {
                                    results.push(JournalInsert::Duplicate { seq });
                                    continue;
                                }
                                (None, _) => {}
                            }
                        }
                        let entry = NewJournalEntry { session_id, ..entry.clone() };
                        insert_row(tx, &entry, next, &hash)?;
                        touched[usize::from(entry.priority.clamp(1, 4) - 1)] = true;
                        results.push(JournalInsert::Inserted { seq: next });
                        next += 1;
                    }
                }
            }
            for (index, keep) in keep_per_priority.iter().enumerate() {
                if touched[index] {
                    tx.prepare_cached(
                        "DELETE FROM journal WHERE session_id = ?1 AND priority = ?2 AND seq <= (
                             SELECT seq FROM journal WHERE session_id = ?1 AND priority = ?2
                             ORDER BY seq DESC LIMIT 1 OFFSET ?3)",
                    )?
                    .execute(params![session_id, index as i64 + 1, i64::try_from(*keep).unwrap_or(i64::MAX)])?;
                }
            }
            let now = now_ms();
            tx.prepare_cached(
                "INSERT INTO sessions(session_id, platform, started_at, last_seen_at)
                 VALUES (?1, NULL, ?2, ?2)
                 ON CONFLICT(session_id) DO UPDATE SET last_seen_at = excluded.last_seen_at",
            )?
            .execute(params![session_id, now])?;
            Ok(results)
        })
    }

    /// The newest `limit` rows of a session, in seq order, each row's data cut to its
    /// first `data_chars` characters (enough for what relating events needs).
    pub fn journal_recent(
        &self,
        session_id: &str,
        limit: usize,
        data_chars: usize,
    ) -> Result<Vec<JournalEntry>> {
        let sql = format!(
            "SELECT * FROM (SELECT {HEAD_COLUMNS} FROM journal WHERE session_id = ?1
                            ORDER BY seq DESC LIMIT ?2) ORDER BY seq"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(
            params![
                session_id,
                i64::try_from(limit).unwrap_or(i64::MAX),
                i64::try_from(data_chars).unwrap_or(i64::MAX)
            ],
            journal_from_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The newest `limit` rows of a session in any of `categories`, in seq order, data
    /// cut as in [`Store::journal_recent`].
    pub fn journal_in_categories(
        &self,
        session_id: &str,
        categories: &[&str],
        limit: usize,
        data_chars: usize,
    ) -> Result<Vec<JournalEntry>> {
        if categories.is_empty() {
            return Ok(Vec::new());
        }
        let marks = (0..categories.len())
            .map(|i| format!("?{}", i + 4))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT * FROM (SELECT {HEAD_COLUMNS} FROM journal
                            WHERE session_id = ?1 AND category IN ({marks})
                            ORDER BY seq DESC LIMIT ?2) ORDER BY seq"
        );
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let mut values: Vec<rusqlite::types::Value> = vec![
            session_id.to_string().into(),
            i64::try_from(limit).unwrap_or(i64::MAX).into(),
            i64::try_from(data_chars).unwrap_or(i64::MAX).into(),
        ];
        values.extend(categories.iter().map(|c| c.to_string().into()));
        let rows = stmt.query_map(rusqlite::params_from_iter(values), journal_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Inserts `entry` with a seq above every seq of its session and of `above_session`:
    /// a session that continues another one numbers its rows after the other's, so a
    /// `ctx_resume(seq)` naming a row of the older session stays unambiguous.
    pub fn journal_insert_above(
        &mut self,
        entry: &NewJournalEntry<'_>,
        above_session: &str,
    ) -> Result<i64> {
        let hash = entry_hash(entry);
        self.write(|tx| {
            let seq: i64 = tx
                .prepare_cached(
                    "SELECT coalesce(max(seq), 0) + 1 FROM journal WHERE session_id IN (?1, ?2)",
                )?
                .query_row(params![entry.session_id, above_session], |r| r.get(0))?;
            insert_row(tx, entry, seq, &hash)?;
            Ok(seq)
        })
    }

    /// How many journal rows a session has.
    pub fn journal_count(&self, session_id: &str) -> Result<usize> {
        let n: i64 = self
            .conn
            .prepare_cached("SELECT count(*) FROM journal WHERE session_id = ?1")?
            .query_row([session_id], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// The newest unconsumed state block of any session of this project, marked
    /// consumed in the same transaction: what a session that resumes under a new id
    /// takes over from the one it continues.
    pub fn take_newest_state_block(&mut self) -> Result<Option<StateBlock>> {
        self.take_unconsumed_block(None)
    }

    /// The newest unconsumed block (of one session, or of any), and every unconsumed
    /// block of its session marked consumed, in one write transaction.
    fn take_unconsumed_block(&mut self, session_id: Option<&str>) -> Result<Option<StateBlock>> {
        self.write(|tx| {
            let block = tx
                .query_row(
                    "SELECT id, session_id, block, created_at, consumed_at FROM state_blocks
                     WHERE (?1 IS NULL OR session_id = ?1) AND consumed_at IS NULL
                     ORDER BY id DESC LIMIT 1",
                    [session_id],
                    state_from_row,
                )
                .optional()?;
            let Some(mut block) = block else {
                return Ok(None);
            };
            let now = now_ms();
            tx.execute(
                "UPDATE state_blocks SET consumed_at = ?1 WHERE session_id = ?2 AND consumed_at IS NULL",
                params![now, block.session_id],
            )?;
            block.consumed_at = Some(now);
            Ok(Some(block))
        })
    }

    /// The session seen most recently by a hook (for callers that know no session id).
    pub fn most_recent_session(&self) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT session_id FROM sessions ORDER BY last_seen_at DESC, rowid DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?)
    }
}

#[cfg(test)]
mod tests;
