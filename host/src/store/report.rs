//! Read-only queries behind `cm stats`, `cm statusline` and `cm insight`, the read-only
//! way to open a database for them, and the project path a database belongs to (kept in
//! `meta`, so a report over every project can name each one).

use crate::platform::fs::Canonical as _;
use std::path::Path;

use rusqlite::{OpenFlags, OptionalExtension, params};

use super::{Result, Store, StoreError, schema};

/// The `meta` key holding the canonical project directory of a database.
const PROJECT_PATH_KEY: &str = "project_path";

/// Calls and bytes of one UTC day (days since the unix epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayStats {
    pub day: i64,
    pub calls: u64,
    pub raw_bytes: u64,
    pub returned_bytes: u64,
}

/// One indexed source, by size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceSize {
    pub label: String,
    pub kind: String,
    pub bytes: u64,
    pub chunk_count: u64,
}

/// Journal rows of one category, all sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategoryCount {
    pub category: String,
    pub rows: u64,
}

/// One timed hook run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookDuration {
    pub platform: String,
    pub event: String,
    pub duration_us: u64,
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl Store {
    /// Opens an existing database for reading only: nothing is created, migrated or
    /// written, so a report can look at every project without touching any.
    pub fn open_read_only(db_path: &Path) -> Result<Store> {
        super::open::configure_library();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = rusqlite::Connection::open_with_flags(db_path, flags)?;
        conn.busy_timeout(std::time::Duration::from_millis(
            crate::limits::DB_TIMEOUT_MS,
        ))?;
        let version = schema::user_version(&conn)?;
        if version > schema::SCHEMA_VERSION {
            return Err(StoreError::SchemaTooNew {
                found: version,
                supported: schema::SCHEMA_VERSION,
            });
        }
        if version < 1 {
            return Err(StoreError::NotContextMode);
        }
        Ok(Store {
            conn,
            path: db_path.to_path_buf(),
            index: std::cell::RefCell::new(None),
        })
    }

    /// The canonical project directory this database belongs to, when recorded.
    pub fn project_path(&self) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                [PROJECT_PATH_KEY],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Records the project directory; a read first, so the usual open writes nothing.
    pub(super) fn remember_project_path(&mut self, project_dir: &Path) -> Result<()> {
        let canonical = project_dir
            .canonical()
            .unwrap_or_else(|_| project_dir.to_path_buf());
        let path = canonical.to_string_lossy().into_owned();
        if self.project_path()?.as_deref() == Some(path.as_str()) {
            return Ok(());
        }
        self.write(|tx| {
            tx.execute(
                "INSERT INTO meta(key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![PROJECT_PATH_KEY, path],
            )?;
            Ok(())
        })
    }

    /// The session of the newest recorded tool call.
    pub fn newest_stats_session(&self) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT session_id FROM tool_stats ORDER BY id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Whether `session_id` recorded any tool call.
    pub fn has_tool_stats(&self, session_id: &str) -> Result<bool> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM tool_stats WHERE session_id = ?1 LIMIT 1",
                [session_id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// Per-day totals of tool calls made at or after `since_ms`, oldest day first.
    pub fn stats_per_day(&self, since_ms: i64) -> Result<Vec<DayStats>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT created_at / 86400000 AS day, count(*), sum(raw_bytes), sum(returned_bytes)
             FROM tool_stats WHERE created_at >= ?1 GROUP BY day ORDER BY day",
        )?;
        let rows = stmt.query_map([since_ms], |r| {
            Ok(DayStats {
                day: r.get(0)?,
                calls: to_u64(r.get(1)?),
                raw_bytes: to_u64(r.get(2)?),
                returned_bytes: to_u64(r.get(3)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The `limit` largest indexed sources, largest first.
    pub fn largest_sources(&self, limit: usize) -> Result<Vec<SourceSize>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT label, kind, bytes, chunk_count FROM sources
             ORDER BY bytes DESC, id LIMIT ?1",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map([limit], |r| {
            Ok(SourceSize {
                label: r.get(0)?,
                kind: r.get(1)?,
                bytes: to_u64(r.get(2)?),
                chunk_count: to_u64(r.get(3)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Indexed sources and their bytes, all sessions.
    pub fn source_totals(&self) -> Result<(u64, u64)> {
        let (count, bytes): (i64, i64) = self.conn.query_row(
            "SELECT count(*), coalesce(sum(bytes), 0) FROM sources",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((to_u64(count), to_u64(bytes)))
    }

    /// Journal rows per category over all sessions, most rows first.
    pub fn journal_category_counts(&self) -> Result<Vec<CategoryCount>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT category, count(*) FROM journal GROUP BY category
             ORDER BY count(*) DESC, category",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(CategoryCount {
                category: r.get(0)?,
                rows: to_u64(r.get(1)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The most recent `per_event` hook runs of each (platform, event), sorted by
    /// platform, event and duration.
    pub fn hook_durations(&self, per_event: usize) -> Result<Vec<HookDuration>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT platform, event, duration_us FROM (
                 SELECT platform, event, duration_us,
                        row_number() OVER (PARTITION BY platform, event ORDER BY id DESC) AS recent
                 FROM hook_timings)
             WHERE recent <= ?1 ORDER BY platform, event, duration_us",
        )?;
        let per_event = i64::try_from(per_event).unwrap_or(i64::MAX);
        let rows = stmt.query_map([per_event], |r| {
            Ok(HookDuration {
                platform: r.get(0)?,
                event: r.get(1)?,
                duration_us: to_u64(r.get(2)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_path_is_remembered_once_and_read_back_read_only() {
        let root = tempfile::tempdir().expect("root");
        let project = tempfile::tempdir().expect("project");
        let store = Store::open(root.path(), project.path()).expect("open");
        let canonical = project.path().canonical().expect("canonical");
        assert_eq!(
            store.project_path().expect("read"),
            Some(canonical.to_string_lossy().into_owned())
        );
        let db = store.path().to_path_buf();
        drop(store);
        let reader = Store::open_read_only(&db).expect("read-only");
        assert!(reader.project_path().expect("read").is_some());
        assert!(
            reader.conn().execute("DELETE FROM meta", []).is_err(),
            "a read-only store refuses writes"
        );
    }

    #[test]
    fn read_only_open_creates_nothing_and_names_foreign_files() {
        let dir = tempfile::tempdir().expect("dir");
        let missing = dir.path().join("none.db");
        assert!(Store::open_read_only(&missing).is_err());
        assert!(!missing.exists());
        let foreign = dir.path().join("foreign.db");
        rusqlite::Connection::open(&foreign)
            .and_then(|c| c.execute_batch("CREATE TABLE t(x)"))
            .expect("foreign db");
        let err = Store::open_read_only(&foreign).err().expect("refused");
        assert_eq!(err.to_string(), "not a context-mode database");
    }

    #[test]
    fn per_day_sources_categories_and_newest_session() {
        let dir = tempfile::tempdir().expect("dir");
        let mut store = Store::open_path(&dir.path().join("context.db")).expect("open");
        assert_eq!(store.newest_stats_session().expect("none"), None);
        store
            .record_tool_stats("a", "ctx_execute", 1_000, 10, false)
            .expect("a");
        store
            .record_tool_stats("b", "ctx_execute", 500, 5, false)
            .expect("b");
        assert_eq!(
            store.newest_stats_session().expect("newest").as_deref(),
            Some("b")
        );
        assert!(store.has_tool_stats("a").expect("a"));
        assert!(!store.has_tool_stats("c").expect("c"));
        let days = store.stats_per_day(0).expect("days");
        assert_eq!(days.len(), 1);
        assert_eq!(
            (days[0].calls, days[0].raw_bytes, days[0].returned_bytes),
            (2, 1_500, 15)
        );
        assert!(store.stats_per_day(i64::MAX).expect("none").is_empty());
        assert!(store.largest_sources(5).expect("sources").is_empty());
        assert_eq!(store.source_totals().expect("totals"), (0, 0));
        assert!(store.journal_category_counts().expect("journal").is_empty());
    }
}
