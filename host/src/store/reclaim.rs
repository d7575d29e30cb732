//! Giving space back and keeping tables bounded: a purge vacuums the files it left
//! mostly empty, and `hook_timings` is pruned to a row cap (ADR 11).

use rusqlite::Connection;

use super::index_files::{IndexFile, IndexFiles};
use super::{Result, Store, retry};
use crate::limits::{
    HOOK_TIMINGS_MAX_ROWS, HOOK_TIMINGS_PRUNE_EVERY_ROWS, PURGE_VACUUM_MIN_FREE_PERCENT,
};

impl Store {
    /// Whether the index files are open or on disk. A purge does not create them: when
    /// they are made later they are built from the chunks that are left.
    pub(super) fn index_present(&self) -> bool {
        self.index.borrow().is_some()
            || IndexFile::ALL
                .iter()
                .any(|file| file.path(&self.path).exists())
    }

    /// After a purge: FTS5 keeps deleted rows' space in its segments until they are
    /// merged, so when the purge removed much of the index (`merge`), each index is
    /// merged first; then every file whose free pages reach PURGE_VACUUM_MIN_FREE_PERCENT
    /// is vacuumed, and its WAL checkpointed so the file itself shrinks.
    pub(super) fn reclaim_space(&mut self, merge: bool) -> Result<()> {
        if let Some(index) = self.index.get_mut().as_mut() {
            for (file, conn) in index.each_writer() {
                if merge {
                    IndexFiles::optimize(conn, file)?;
                }
                vacuum_if_sparse(conn)?;
                checkpoint(conn);
            }
        }
        vacuum_if_sparse(&self.conn)?;
        checkpoint(&self.conn);
        Ok(())
    }
}

/// VACUUM of the connection's main file when enough of it is free pages. Returns
/// whether it ran.
fn vacuum_if_sparse(conn: &Connection) -> rusqlite::Result<bool> {
    let pages: i64 = conn.query_row("PRAGMA main.page_count", [], |r| r.get(0))?;
    let free: i64 = conn.query_row("PRAGMA main.freelist_count", [], |r| r.get(0))?;
    if pages == 0 || free * 100 < pages * PURGE_VACUUM_MIN_FREE_PERCENT {
        return Ok(false);
    }
    // VACUUM builds the new file in the temp store: on disk (unlinked at once), not in
    // memory, which would hold a copy of the whole database.
    conn.execute_batch("PRAGMA temp_store=FILE")?;
    let vacuumed = retry::with_busy_retry(|| conn.execute_batch("VACUUM main"));
    conn.execute_batch("PRAGMA temp_store=MEMORY")?;
    vacuumed?;
    Ok(true)
}

/// Copies the WAL into the file and empties it: in WAL mode a purge's deletions and a
/// vacuum's pages sit in the WAL, and the file only shrinks when they are copied back.
/// A reader mid-snapshot makes this give up; a later checkpoint does it.
fn checkpoint(conn: &Connection) {
    if let Err(err) = conn.query_row("PRAGMA main.wal_checkpoint(TRUNCATE)", [], |_| Ok(())) {
        tracing::debug!("checkpoint after purge skipped: {err}");
    }
}

/// Keeps the newest HOOK_TIMINGS_MAX_ROWS hook timings. Ids only grow and the oldest
/// go first, so the cut is one range delete on the primary key.
pub(super) fn prune_hook_timings(conn: &Connection) -> rusqlite::Result<usize> {
    conn.execute(
        "DELETE FROM hook_timings
         WHERE id <= (SELECT max(id) FROM hook_timings) - ?1",
        [HOOK_TIMINGS_MAX_ROWS],
    )
}

/// Whether the insert of hook timing `id` is one that prunes.
pub(super) fn prunes_after(id: i64) -> bool {
    id % HOOK_TIMINGS_PRUNE_EVERY_ROWS == 0
}
