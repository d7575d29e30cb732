//! Sandboxed children: how one is started, confined, and stopped with everything it
//! started (ADR 0015, ADR 0026, ADR 0032).
//!
//! - [`command`] builds the child's command: Unix puts it in its own process group
//!   (Linux also makes it a subreaper and applies Landlock in it; macOS wraps it in
//!   `sandbox-exec` with the call's Seatbelt profile); Windows starts it suspended in
//!   a new process group without a console window.
//! - [`ProcessTree::attach`] takes the spawned child: Unix remembers its pid, group
//!   and output pipes; Windows puts it in a Job Object (kill on close) and lets it run.
//! - [`ProcessTree::terminate`] asks the tree to end; [`ProcessTree::kill_all`] ends
//!   every process of it.

pub use super::os::{CONFINEMENT_FIX, ChildConfinement, ProcessTree};
#[cfg(unix)]
pub use super::unix::tree::group_alive;

use std::ffi::OsString;

use super::os;
use crate::sandbox::confine::{Net, Plan};

/// The command for one sandboxed child running `argv`; stdio, cwd and environment
/// are the caller's to set. `Err` is one line.
pub fn command(
    argv: &[OsString],
    confine: Option<&ChildConfinement>,
) -> Result<tokio::process::Command, String> {
    os::command(argv, confine)
}

/// The confinement of one call's plan; `Err` is one line saying why this system
/// cannot enforce it (the call is then refused, never run unconfined).
pub fn confinement(plan: &Plan) -> Result<ChildConfinement, String> {
    os::confinement(plan)
}

/// What enforces confinement on this system (`Ok`, e.g. "kernel Landlock ABI 4"), or
/// why nothing can for this network mode (`Err`).
pub fn confinement_support(net: Option<&Net>) -> Result<String, String> {
    os::confinement_support(net)
}
