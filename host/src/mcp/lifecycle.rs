//! How `cm serve` ends (ADR 20): on SIGINT, SIGTERM, SIGHUP or the end of stdin, at any
//! point — before the handshake, while idle, while a tool call runs.
//!
//! Agents end a session by closing stdin or by a signal, and send SIGKILL a few seconds
//! later (Claude Code: SIGINT, SIGTERM, SIGKILL). rmcp, left alone, waits up to 5 s for
//! in-flight calls after stdin ends and never stops them, so a running `ctx_execute`
//! child outlived the server. Here both ways of ending take the same path: stop writing
//! to stdout, cancel the running calls (their children are killed with their groups),
//! give a blocking store write a moment to commit, stop every child still alive, exit 0.
//! The exit is `process::exit`: dropping the runtime would wait for tokio's stdin
//! reader, a thread stuck in a read nothing can interrupt.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

/// What the transport and the main loop share about the server's end.
#[derive(Debug, Default)]
pub struct Lifecycle {
    closing: AtomicBool,
    input_closed: Notify,
}

impl Lifecycle {
    pub fn new() -> Arc<Self> {
        Arc::new(Lifecycle::default())
    }

    /// From now on nothing more goes to stdout: the client is leaving, and a reply it
    /// never asked to be cancelled would be noise on a closing pipe.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
    }

    pub fn is_closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    /// Called by the transport when stdin ends (or cannot be read).
    pub fn input_ended(&self) {
        self.input_closed.notify_one();
    }

    /// Resolves once stdin has ended.
    pub async fn wait_input_end(&self) {
        self.input_closed.notified().await;
    }
}

/// Why the server is ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    InputClosed,
    Signal,
}

pub use crate::platform::Termination;

/// Tool calls running on the blocking pool (store writes, file reads). They cannot be
/// cancelled; at the end the server waits a moment for them so a write commits whole.
static BLOCKING_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Held while a blocking tool call runs.
pub struct BlockingCall(());

impl BlockingCall {
    pub fn start() -> Self {
        BLOCKING_CALLS.fetch_add(1, Ordering::SeqCst);
        BlockingCall(())
    }
}

impl Drop for BlockingCall {
    fn drop(&mut self) {
        BLOCKING_CALLS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits until no blocking call runs, at most `limit`; true when none is left.
pub async fn blocking_calls_done(limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    while BLOCKING_CALLS.load(Ordering::SeqCst) > 0 {
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    true
}
