//! Retrying writes that SQLite refuses with SQLITE_BUSY without waiting on the busy
//! handler (a WAL snapshot gone stale, recovery by another process): the busy timeout
//! covers lock waits, this covers the rest.

use std::time::{Duration, Instant};

use rusqlite::ErrorCode;

use crate::limits::DB_TIMEOUT_MS;

/// Whether an error means "another connection holds the lock; try again".
pub fn is_busy(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// Runs `op` until it succeeds, fails with something other than busy, or
/// `DB_TIMEOUT_MS` has passed. `op` must be a whole transaction, so a retry
/// starts from a clean slate.
pub fn with_busy_retry<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = Instant::now() + Duration::from_millis(DB_TIMEOUT_MS);
    let mut pause = Duration::from_millis(2);
    loop {
        match op() {
            Err(err) if is_busy(&err) && Instant::now() < deadline => {
                tracing::debug!("database busy, retrying: {err}");
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}
