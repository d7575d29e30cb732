//! Writes an agent is waiting on go before bulk writes of the same process. A hook that
//! `cm serve` answers writes its journal row through a connection of its own, but SQLite
//! has one writer per file and no queue: a directory `ctx_index` commits a file and
//! takes the lock again at once, while the hook's busy handler sleeps in steps, so the
//! hook got in only when a sleep happened to end in a gap. The hook now says it is
//! waiting, and the indexer lets it in between two files.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::limits::{DB_BUSY_STEP_US, URGENT_WRITE_YIELD_MAX_MS};

/// Writers of this process an agent is waiting on, now.
static URGENT_WRITERS: AtomicUsize = AtomicUsize::new(0);

/// Held while an urgent write runs (or waits for the lock).
#[must_use = "the write is urgent only while the guard is held"]
pub struct UrgentWrite(());

impl UrgentWrite {
    pub fn begin() -> UrgentWrite {
        URGENT_WRITERS.fetch_add(1, Ordering::AcqRel);
        UrgentWrite(())
    }
}

impl Drop for UrgentWrite {
    fn drop(&mut self) {
        URGENT_WRITERS.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Called by a bulk writer between two of its transactions: waits while an urgent
/// write is pending, at most `URGENT_WRITE_YIELD_MAX_MS`, so a stream of hooks slows an
/// index down but never stops it.
pub fn let_urgent_writes_in() {
    if URGENT_WRITERS.load(Ordering::Acquire) == 0 {
        return;
    }
    let until = Instant::now() + Duration::from_millis(URGENT_WRITE_YIELD_MAX_MS);
    while URGENT_WRITERS.load(Ordering::Acquire) > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_micros(DB_BUSY_STEP_US / 2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bulk writer waits while an urgent write is pending and goes on once it is
    /// done, or once the cap has passed (lower bounds only: other tests of this
    /// process may hold urgent writes too).
    #[test]
    fn the_bulk_writer_waits_for_a_pending_urgent_write_up_to_the_cap() {
        let urgent = UrgentWrite::begin();
        let released = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(5));
            drop(urgent);
        });
        let started = Instant::now();
        let_urgent_writes_in();
        let waited = started.elapsed();
        released.join().unwrap();
        assert!(waited >= Duration::from_millis(5), "waited {waited:?}");
        let _stuck = UrgentWrite::begin();
        let started = Instant::now();
        let_urgent_writes_in();
        assert!(started.elapsed() >= Duration::from_millis(URGENT_WRITE_YIELD_MAX_MS));
    }
}
