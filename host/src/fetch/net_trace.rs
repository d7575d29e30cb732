//! Test-only record of the network actions a fetch takes (lookups, connects) on this
//! thread, so tests can prove a refused URL caused no traffic at all. Tests that read
//! it run on a current-thread runtime, where every fetch step runs on the test's thread.

use std::cell::RefCell;

thread_local! {
    static EVENTS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

pub fn record(event: String) {
    EVENTS.with(|events| events.borrow_mut().push(event));
}

/// The events recorded on this thread since the last call.
pub fn take() -> Vec<String> {
    EVENTS.with(|events| std::mem::take(&mut *events.borrow_mut()))
}
