//! Unixes other than Linux and macOS: process groups only (no process table is read,
//! so a child that leaves the group escapes), no confinement.

use std::ffi::OsString;

pub use super::unix::tree::ProcessTree;
pub use super::unix::{
    FILE_OPENER, HOME_VARIABLES, Termination, create_private_dir, detach,
    end_quietly_when_stdout_closes, executable_names, exists, exit_signal, file_identity,
    is_executable, mode_bits, open_nonblocking, parent_pid, replace_state_file, serve_stdin,
    set_mode_bits, special_kind, symlink, without_verbatim_prefix,
};

use crate::platform::child::{Net, Plan};
use crate::platform::process::ProcessInfo;

pub fn process_info(_pid: u32) -> Option<ProcessInfo> {
    None
}

pub fn process_table() -> Vec<ProcessInfo> {
    Vec::new()
}

pub fn pipe_id(_fd: i32) -> Option<u64> {
    None
}

pub fn pipe_holders(_ids: &[u64]) -> Vec<u32> {
    Vec::new()
}

/// No confinement mechanism is known here; a value of this type is never made.
#[derive(Debug, Clone)]
pub enum ChildConfinement {}

pub fn command(
    argv: &[OsString],
    _confine: Option<&ChildConfinement>,
) -> Result<tokio::process::Command, String> {
    super::unix::group_command(argv)
}

const NO_CONFINEMENT: &str = "this system has no confinement mechanism cm can use";

pub fn confinement(_plan: &Plan) -> Result<ChildConfinement, String> {
    Err(NO_CONFINEMENT.into())
}

pub fn confinement_support(_net: Option<&Net>) -> Result<String, String> {
    Err(NO_CONFINEMENT.into())
}

pub const CONFINEMENT_FIX: &str = "run cm on Linux or macOS for confinement";

pub fn release_freed_heap() {}
