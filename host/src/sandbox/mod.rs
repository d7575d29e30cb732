//! The sandbox behind `ctx_execute`, `ctx_execute_file` and `ctx_batch_execute`:
//! runs a script in one of twelve language runtimes with time, output and
//! environment limits, and returns only what it printed.
//!
//! - Runtimes are data: `runtimes/<lang>.toml`, embedded at build time
//!   ([`catalog`]), detected once per server start by a `PATH` lookup ([`detect`]).
//! - Each call gets a private temp dir (0700) holding the script, removed on every
//!   way out; the runtime is spawned from an argument list with cwd = the project
//!   (or a `cwd` inside it), stdin null, in its own process group ([`execute`]).
//! - The deadline (`EXEC_TIMEOUT_MS`, lowered by `timeout`) stops every process
//!   the run started, also those that left its group (`setsid`, double fork):
//!   SIGTERM, then SIGKILL after `EXEC_KILL_GRACE_MS`; partial output is kept
//!   ([`process`], `crate::platform::child`, ADR 0015).
//! - With `background`, the run is left running at the deadline and writes
//!   bounded logs (head + rolling tail) under `<data root>/background/`, removed
//!   when its output ends; the server stops its background runs when it exits
//!   ([`background`]).
//! - Output is captured up to `EXEC_CAPTURE_MAX_BYTES` per stream, head and tail
//!   ([`capture`]); the environment is the user's minus code-injection
//!   variables ([`env`]).
//!
//! `ctx_execute_file` scripts see the file through `FILE_CONTENT` (its text) and
//! `FILE_CONTENT_PATH` / `FILE_PATH` / `file_path` (its absolute path); Rust and
//! Elixir spell them `file_content`, `file_content_path`, `file_path`. Shell
//! scripts get the paths as environment variables and `FILE_CONTENT` as a shell
//! variable. The file is read when the script runs, never pasted into it.
//!
//! This keeps output out of the agent's context; it is not an OS security
//! boundary: scripts run as the user, with the user's permissions, unless
//! confinement is switched on (`CONTEXT_MODE_CONFINE=1`: [`confine`], ADR 0026;
//! the macOS Seatbelt profile of the same plan: [`seatbelt`], ADR 0033).
//!
//! What differs per OS (process groups and signals, Job Objects, Landlock, Seatbelt)
//! is in `crate::platform`.

pub mod background;
pub mod batch;
pub mod capture;
pub mod catalog;
pub mod confine;
pub mod detect;
pub mod env;
pub mod error;
pub mod execute;
pub mod params;
pub mod process;
pub mod seatbelt;
pub mod source;
pub mod tempdir;

#[cfg(test)]
mod tests;

pub use batch::{BatchCommand, BatchCommandResult, BatchOptions, CommandStatus, render_markdown};
pub use detect::{RuntimeStatus, Runtimes};
pub use error::SandboxError;
pub use execute::{BackgroundProcess, ExecOutcome, ExecRequest, FILE_PATH_VARIABLES, Sandbox};
pub use params::{BatchExecuteParams, ExecuteFileParams, ExecuteParams, QueryScope};
