//! `cm hook <platform> <event>`: one process per agent hook call. Whatever happens it
//! exits 0 with the platform's "no opinion" reply on failure (fail open), logs one
//! line per failure to `<root>/hook-errors.log`, and never prints stray bytes.

mod error_log;
mod external_mcp;
mod failure;
mod pipeline;
pub mod reply;
mod served;
pub mod session_state;

pub use served::{
    HookCall, SERVED_EVENT_SUFFIX, Server as ServedBy, answer as answer_served, answers_at_once,
    warm as warm_served,
};

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use crate::limits::{HOOK_TIMEOUT_MS, HOOK_WATCHDOG_MARGIN_MS};

/// What the hook prints and how it exits.
#[derive(Debug, Clone, Default)]
pub struct HookOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
}

/// Shared between the pipeline and the watchdog: the reply to give if time runs out.
pub(crate) type Fallback = Arc<Mutex<HookOutput>>;

/// Runs one hook call and returns the process exit code (always the host's "allow"
/// convention on failure).
pub fn run(platform: &str, event: &str) -> i32 {
    let started = std::time::Instant::now();
    let root = crate::paths::data_root().ok();
    let fallback: Fallback = Arc::new(Mutex::new(HookOutput::default()));
    let (sender, receiver) = mpsc::channel();
    let worker = {
        let (platform, event, root, fallback) = (
            platform.to_string(),
            event.to_string(),
            root.clone(),
            fallback.clone(),
        );
        std::thread::Builder::new()
            .name("cm-hook".into())
            .spawn(move || {
                let (result, leftover) =
                    match pipeline::run(&platform, &event, root.as_deref(), &fallback, started) {
                        Ok((output, leftover)) => (Ok(output), Some(leftover)),
                        Err(failure) => (Err(failure), None),
                    };
                let _ = sender.send(result);
                // Wasm instances, the engine and the rest are torn down after the reply
                // went out: the process may exit before this thread finishes it.
                drop(leftover);
            })
    };
    let budget = Duration::from_millis(HOOK_TIMEOUT_MS - HOOK_WATCHDOG_MARGIN_MS);
    let output = match worker {
        Err(err) => fail_open(
            root,
            platform,
            event,
            &fallback,
            &format!("cannot start: {err}"),
        ),
        Ok(_) => match receiver.recv_timeout(budget) {
            Ok(Ok(output)) => output,
            Ok(Err(failure)) => fail_open(root, platform, event, &fallback, &failure.to_string()),
            Err(mpsc::RecvTimeoutError::Timeout) => fail_open(
                root,
                platform,
                event,
                &fallback,
                &format!("gave up after {} ms", budget.as_millis()),
            ),
            Err(mpsc::RecvTimeoutError::Disconnected) => fail_open(
                root,
                platform,
                event,
                &fallback,
                "the hook pipeline crashed",
            ),
        },
    };
    emit(&output)
}

/// Logs one hook failure line to `hook-errors.log` under `root`.
pub fn log_failure(root: &std::path::Path, platform: &str, event: &str, message: &str) {
    error_log::append(Some(root), platform, event, message);
}

fn fail_open(
    root: Option<PathBuf>,
    platform: &str,
    event: &str,
    fallback: &Fallback,
    failure: &str,
) -> HookOutput {
    error_log::append(root.as_deref(), platform, event, failure);
    fallback.lock().map(|f| f.clone()).unwrap_or_default()
}

fn emit(output: &HookOutput) -> i32 {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(output.stdout.as_bytes());
    let _ = stdout.flush();
    if !output.stderr.is_empty() {
        let _ = std::io::stderr().write_all(output.stderr.as_bytes());
    }
    output.exit_code
}
