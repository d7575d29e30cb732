//! The timings of hooks `cm serve` answers, written after the reply instead of before
//! it: one write transaction per hook was a fifth of a served hook's round trip, for a
//! figure only `cm stats` reads. A served hook queues its timing and a writer thread
//! stores what is queued every `SERVED_TIMINGS_FLUSH_MS` in one transaction; the
//! server's own `ctx_stats` and its exit flush first. A `cm stats` of another process
//! may miss the newest runs of a live server by that much.

use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

use super::continuity::SharedStore;
use crate::limits::SERVED_TIMINGS_FLUSH_MS;

/// `(platform, event, duration_us, at_ms)`, as `Store::record_hook_timings` takes them.
type Run = (String, String, u64, i64);

struct Queue {
    runs: Mutex<Vec<(SharedStore, Run)>>,
    /// Woken when the queue turns non-empty.
    queued: Condvar,
}

static QUEUE: Queue = Queue {
    runs: Mutex::new(Vec::new()),
    queued: Condvar::new(),
};
static WRITER: OnceLock<()> = OnceLock::new();

/// Queues one served hook's timing for `store`.
pub fn defer(store: SharedStore, platform: &str, event: &str, duration_us: u64) {
    let run = (
        platform.to_owned(),
        event.to_owned(),
        duration_us,
        crate::store::now_ms(),
    );
    let Ok(mut runs) = QUEUE.runs.lock() else {
        return;
    };
    runs.push((store, run));
    if runs.len() == 1 {
        QUEUE.queued.notify_one();
    }
    drop(runs);
    WRITER.get_or_init(start_writer);
}

/// Writes every queued timing now (before a report reads them, and at exit).
pub fn flush() {
    let taken = match QUEUE.runs.lock() {
        Ok(mut runs) => std::mem::take(&mut *runs),
        Err(_) => return,
    };
    let mut by_store: Vec<(SharedStore, Vec<Run>)> = Vec::new();
    for (store, run) in taken {
        match by_store
            .iter_mut()
            .find(|(s, _)| std::sync::Arc::ptr_eq(&s.store, &store.store))
        {
            Some((_, runs)) => runs.push(run),
            None => by_store.push((store, vec![run])),
        }
    }
    for (shared, runs) in by_store {
        let mut store = shared
            .store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Err(err) = store.record_hook_timings(&runs) {
            tracing::debug!("served hook timings: {err}");
        }
    }
}

/// The writer: sleeps until something is queued, lets a burst gather, writes it.
fn start_writer() {
    let spawned = std::thread::Builder::new()
        .name("cm-hook-timings".into())
        .spawn(|| {
            loop {
                if let Ok(runs) = QUEUE.runs.lock() {
                    let _unused = QUEUE.queued.wait_while(runs, |runs| runs.is_empty());
                }
                std::thread::sleep(Duration::from_millis(SERVED_TIMINGS_FLUSH_MS));
                flush();
            }
        });
    if let Err(err) = spawned {
        tracing::warn!("served hook timings are not written: {err}");
    }
}
