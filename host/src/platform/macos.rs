//! macOS: `libproc` for the process table, process groups and a table walk for the
//! run's processes (no subreaper exists: an orphan that also left the group is
//! re-parented to launchd and escapes), Seatbelt for confinement.

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
use crate::platform::seatbelt::{self, SANDBOX_EXEC};

/// Process `pid` from `proc_pidinfo(PROC_PIDTBSDINFO)`.
pub fn process_info(pid: u32) -> Option<ProcessInfo> {
    let pid_c = libc::c_int::try_from(pid).ok()?;
    // SAFETY: proc_bsdinfo is plain data; zeroed is a valid value.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
    // SAFETY: the buffer is a proc_bsdinfo of the size passed.
    let written = unsafe {
        libc::proc_pidinfo(
            pid_c,
            libc::PROC_PIDTBSDINFO,
            0,
            (&mut info as *mut libc::proc_bsdinfo).cast(),
            size,
        )
    };
    if written != size {
        return None;
    }
    let comm: Vec<u8> = info
        .pbi_comm
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    Some(ProcessInfo {
        pid,
        parent: info.pbi_ppid,
        group: info.pbi_pgid,
        started: info.pbi_start_tvsec * 1_000_000 + info.pbi_start_tvusec,
        name: String::from_utf8_lossy(&comm).into_owned(),
        alive: info.pbi_status != libc::SZOMB,
    })
}

/// Every process `proc_listallpids` names and this user can read.
pub fn process_table() -> Vec<ProcessInfo> {
    // SAFETY: a null buffer asks only for the count.
    let count = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    let Ok(count) = usize::try_from(count) else {
        return Vec::new();
    };
    // Room for processes started between the two calls.
    let mut pids: Vec<libc::c_int> = vec![0; count + 64];
    let bytes = (pids.len() * std::mem::size_of::<libc::c_int>()) as libc::c_int;
    // SAFETY: the buffer holds `bytes` bytes.
    let filled = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
    let Ok(filled) = usize::try_from(filled) else {
        return Vec::new();
    };
    pids.truncate(filled.min(pids.len()));
    pids.into_iter()
        .filter_map(|pid| u32::try_from(pid).ok())
        .filter_map(process_info)
        .collect()
}

/// macOS shows no pipe identities cheaply: holders of the run's pipes are found only
/// through the group and the table walk.
pub fn pipe_id(_fd: i32) -> Option<u64> {
    None
}

pub fn pipe_holders(_ids: &[u64]) -> Vec<u32> {
    Vec::new()
}

/// A call's Seatbelt profile (the text `sandbox-exec -p` takes).
#[derive(Debug, Clone)]
pub struct ChildConfinement(String);

/// The command for one sandboxed child: its own process group, inside `sandbox-exec`
/// with the call's profile when confined.
pub fn command(
    argv: &[OsString],
    confine: Option<&ChildConfinement>,
) -> Result<tokio::process::Command, String> {
    let argv = match confine {
        Some(ChildConfinement(profile)) => seatbelt::command(profile, argv),
        None => argv.to_vec(),
    };
    super::unix::group_command(&argv)
}

/// The confinement of one call; `Err` when Seatbelt's front end is missing.
pub fn confinement(plan: &Plan) -> Result<ChildConfinement, String> {
    confinement_support(plan.net.as_ref())?;
    // Seatbelt matches the paths the kernel reports (`/tmp` is `/private/tmp`).
    Ok(ChildConfinement(seatbelt::profile(&seatbelt::canonical(
        plan,
    ))))
}

/// Seatbelt expresses every network mode, so only its front end matters.
pub fn confinement_support(_net: Option<&Net>) -> Result<String, String> {
    if std::path::Path::new(SANDBOX_EXEC).is_file() {
        Ok("Seatbelt through sandbox-exec".into())
    } else {
        Err(format!("{SANDBOX_EXEC} is missing"))
    }
}

/// What makes confinement possible when it is not.
pub const CONFINEMENT_FIX: &str = "restore /usr/bin/sandbox-exec (part of macOS)";

/// The system allocator returns freed pages itself.
pub fn release_freed_heap() {}
