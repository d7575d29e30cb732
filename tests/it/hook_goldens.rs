//! Every golden hook case, found by directory: `tests/golden/<platform>/<case>.stdin.json`
//! piped into the built `cm hook <platform> <event>` against a live server, the reply
//! compared with `<case>.stdout` (see `common::golden`). A new platform directory or
//! case runs without being listed. Regenerate after an intended change with
//! `UPDATE_GOLDEN=1 cargo test -p cm --test it hook_goldens::` and review the diff.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::golden::{Golden, platforms};

/// How many cases run at once (each starts its own `cm serve` and compiles the
/// adapter into a cold `.cwasm` cache): half the cores, because libtest runs other
/// tests beside this one and every hook must stay inside its time budget.
fn parallel_cases() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panicked".to_owned())
}

#[test]
fn every_golden_case_matches_its_stdout() {
    let cases: Vec<(Golden, String)> = platforms()
        .into_iter()
        .flat_map(|golden| {
            let names = golden.cases();
            assert!(
                !names.is_empty(),
                "{}: no *.stdin.json",
                golden.dir().display()
            );
            names.into_iter().map(move |case| (golden, case))
        })
        .collect();
    assert!(cases.len() > 4, "golden cases not found");
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..parallel_cases() {
            scope.spawn(|| {
                while let Some((golden, case)) = cases.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let outcome = catch_unwind(AssertUnwindSafe(|| golden.discovered_case(case)));
                    if let Err(payload) = outcome {
                        let name = format!("{}/{case}", golden.platform);
                        let why = panic_text(payload.as_ref());
                        failures
                            .lock()
                            .expect("failures")
                            .push(format!("{name}: {why}"));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().expect("failures");
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} of {} golden cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
