//! Linux: `/proc` for the process table and pipe holders, a child subreaper for the
//! run's orphans, Landlock for confinement.

use std::ffi::OsString;
use std::path::Path;

mod landlock;

pub use super::unix::tree::ProcessTree;
pub use super::unix::{
    FILE_OPENER, HOME_VARIABLES, Termination, create_private_dir, detach,
    end_quietly_when_stdout_closes, executable_names, exists, exit_signal, file_identity,
    is_executable, mode_bits, open_nonblocking, parent_pid, serve_stdin, set_mode_bits,
    special_kind, symlink, without_verbatim_prefix,
};
pub use landlock::ChildConfinement;

use crate::platform::child::{Net, Plan};
use crate::platform::process::ProcessInfo;

/// `renameat2(RENAME_EXCHANGE)` then removing the swapped-out old file: the exchange
/// is as atomic as a rename but ext4 does not flush the new data first (its
/// `auto_da_alloc` applies to a rename over an existing file only). With nothing to
/// swap with yet, or on a file system without the flag, a plain rename.
pub fn replace_state_file(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let (Ok(from_c), Ok(to_c)) = (
        std::ffi::CString::new(from.as_os_str().as_bytes()),
        std::ffi::CString::new(to.as_os_str().as_bytes()),
    ) else {
        return std::fs::rename(from, to);
    };
    // SAFETY: two NUL-terminated paths that live across the call.
    let swapped = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from_c.as_ptr(),
            libc::AT_FDCWD,
            to_c.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    } == 0;
    if !swapped {
        return std::fs::rename(from, to);
    }
    // `from` now names the old contents; `to` is written whether or not they go.
    let _ = std::fs::remove_file(from);
    Ok(())
}

/// Process `pid` from `/proc/<pid>/stat`.
pub fn process_info(pid: u32) -> Option<ProcessInfo> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &stat)
}

/// Every process in `/proc` this user can read.
pub fn process_table() -> Vec<ProcessInfo> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(process_info)
        .collect()
}

/// `pid (name) state ppid pgrp … starttime …`: the name may hold spaces and
/// parentheses, so the fields after it are counted from its last `)`; starttime is
/// field 22.
fn parse_stat(pid: u32, stat: &str) -> Option<ProcessInfo> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    let state = *fields.first()?;
    Some(ProcessInfo {
        pid,
        parent: fields.get(1)?.parse().ok()?,
        group: fields.get(2)?.parse().ok()?,
        started: fields.get(19)?.parse().ok()?,
        name,
        alive: state != "Z" && state != "X",
    })
}

/// The inode of the pipe behind one of our file descriptors.
pub fn pipe_id(fd: i32) -> Option<u64> {
    let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    pipe_link_inode(target.to_str()?)
}

fn pipe_link_inode(link: &str) -> Option<u64> {
    link.strip_prefix("pipe:[")?.strip_suffix(']')?.parse().ok()
}

/// Processes (other than this one) holding one of the pipes open.
pub fn pipe_holders(inodes: &[u64]) -> Vec<u32> {
    if inodes.is_empty() {
        return Vec::new();
    }
    let own_pid = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != own_pid)
        .filter(|pid| {
            let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
                return false;
            };
            fds.filter_map(Result::ok).any(|fd| {
                std::fs::read_link(fd.path())
                    .ok()
                    .and_then(|t| t.to_str().and_then(pipe_link_inode))
                    .is_some_and(|ino| inodes.contains(&ino))
            })
        })
        .collect()
}

/// Makes the calling process a child subreaper (`PR_SET_CHILD_SUBREAPER` survives
/// `execve`). Called in the child between fork and exec; one async-signal-safe syscall.
fn become_subreaper() -> std::io::Result<()> {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer flag and touches no
    // memory of ours.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The command for one sandboxed child: its own process group, a subreaper, and the
/// call's Landlock domain when confined.
pub fn command(
    argv: &[OsString],
    confine: Option<&ChildConfinement>,
) -> Result<tokio::process::Command, String> {
    let mut command = super::unix::group_command(argv)?;
    match confine {
        None => {
            // SAFETY: the closure runs between fork and exec and only makes one syscall.
            unsafe {
                command.pre_exec(become_subreaper);
            }
        }
        Some(ruleset) => {
            // The duplicate is made here, in the parent; the child only consumes it.
            let mut child_ruleset = Some(ruleset.for_child().map_err(|e| e.to_string())?);
            // SAFETY: between fork and exec the closure makes only the prctl and
            // landlock_restrict_self syscalls (and closes the ruleset descriptor); the
            // ruleset was built and duplicated in the parent, nothing is allocated.
            unsafe {
                command.pre_exec(move || {
                    become_subreaper()?;
                    match child_ruleset.take() {
                        Some(ruleset) => landlock::restrict_child(ruleset),
                        None => Err(std::io::Error::from_raw_os_error(libc::EINVAL)),
                    }
                });
            }
        }
    }
    Ok(command)
}

/// The confinement of one call; `Err` is one line (the kernel cannot enforce it).
pub fn confinement(plan: &Plan) -> Result<ChildConfinement, String> {
    landlock::build(plan)
}

/// What enforces confinement here, or why nothing can: `net` says whether the
/// network is limited (which needs a later Landlock ABI).
pub fn confinement_support(net: Option<&Net>) -> Result<String, String> {
    let need = match net {
        Some(Net::Off | Net::Ports(_)) => landlock::NET_ABI as i32,
        _ => landlock::FS_ABI as i32,
    };
    match landlock::kernel_abi() {
        Ok(v) if v >= need => Ok(format!("kernel Landlock ABI {v}")),
        Ok(v) => Err(format!(
            "kernel Landlock ABI {v}: confinement needs Landlock ABI {need} or later"
        )),
        Err(why) => Err(format!(
            "{why}: confinement needs Landlock ABI {need} or later"
        )),
    }
}

/// What makes confinement possible when it is not.
pub const CONFINEMENT_FIX: &str = "boot a kernel with Landlock enabled (lsm=…,landlock)";

/// Hands freed heap back: glibc keeps freed memory in its arenas.
pub fn release_freed_heap() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only walks glibc's own arenas; no pointers are passed.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let line =
            "4242 (a) b (c)) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 0 0";
        let stat = parse_stat(4242, line).expect("parses");
        assert_eq!(
            (stat.parent, stat.group, stat.started, stat.name.as_str()),
            (17, 4242, 987654, "a) b (c)")
        );
        assert!(stat.alive);
        assert!(parse_stat(1, "1 (init) Z 0").is_none());
    }

    #[test]
    fn pipe_links_name_their_inode() {
        assert_eq!(pipe_link_inode("pipe:[12345]"), Some(12345));
        assert_eq!(pipe_link_inode("socket:[12345]"), None);
        assert_eq!(pipe_link_inode("/dev/null"), None);
    }
}
