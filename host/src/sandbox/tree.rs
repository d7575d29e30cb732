//! Every process one sandboxed run started, wherever it moved (ADR 0015).
//!
//! A script's children can leave its process group (`setsid`, `setpgid`) and its
//! parentage (double fork), so killing the group is not enough. The run's first
//! process (the leader) is made a *child subreaper* before it execs
//! (`PR_SET_CHILD_SUBREAPER` survives `execve`): while it lives, every orphan of
//! the run is re-parented to it instead of to init, so the run's processes are
//! exactly the leader's descendants in `/proc`. A tree also counts the leader's
//! process group and the processes that hold the run's output pipes (what is
//! left when the leader is already gone), and remembers every member it has seen
//! (pid and start time, so a reused pid is never signalled).
//!
//! [`ProcessTree::kill_all`] is the one way every stop path ends (timeout after
//! the grace, a cancelled or dropped call, server exit): it freezes the tree with
//! SIGSTOP until a walk finds nothing new (a stopped process cannot fork), then
//! sends SIGKILL to all of it.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

/// Rounds of "walk, stop what is new" before the SIGKILL; a stopped process cannot
/// fork, so a real tree is complete after two or three.
const FREEZE_ROUNDS_MAX: usize = 64;

/// Makes the calling process a child subreaper. Called in the child between fork
/// and exec; only an async-signal-safe syscall.
pub fn become_subreaper() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer flag and touches
        // no memory of ours.
        if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The processes of one run.
#[derive(Debug)]
pub struct ProcessTree {
    leader: u32,
    /// Inodes of the run's output pipes (`pipe:[inode]` in `/proc/<pid>/fd`).
    pipe_inodes: Vec<u64>,
    /// Every member seen so far: pid → start time (clock ticks after boot).
    seen: Mutex<HashMap<u32, u64>>,
}

/// One line of `/proc/<pid>/stat`, the fields a tree needs.
#[derive(Debug, Clone, Copy)]
struct ProcStat {
    pid: u32,
    ppid: u32,
    pgrp: u32,
    start_time: u64,
    alive: bool,
}

impl ProcessTree {
    /// The tree of the run led by `leader` (its pid, which is also its group id).
    pub fn new(leader: u32, pipe_inodes: Vec<u64>) -> ProcessTree {
        let seen = start_time_of(leader)
            .map(|start| HashMap::from([(leader, start)]))
            .unwrap_or_default();
        ProcessTree {
            leader,
            pipe_inodes,
            seen: Mutex::new(seen),
        }
    }

    pub fn leader(&self) -> u32 {
        self.leader
    }

    /// Whether any member is still running (zombies don't count).
    pub fn any_alive(&self) -> bool {
        !self.live_members(false).is_empty()
    }

    /// Sends `signal` to every live member and to the leader's group.
    pub fn signal_all(&self, signal: i32) {
        let members = self.live_members(true);
        super::process::signal_group(self.leader, signal);
        for pid in members {
            signal_pid(pid, signal);
        }
    }

    /// SIGKILL to every process of the run, after freezing the tree so nothing can
    /// fork its way out between the walk and the kill.
    pub fn kill_all(&self) {
        let mut stopped: HashSet<u32> = HashSet::new();
        for round in 0..FREEZE_ROUNDS_MAX {
            let fresh: Vec<u32> = self
                .live_members(round == 0)
                .into_iter()
                .filter(|pid| !stopped.contains(pid))
                .collect();
            if fresh.is_empty() {
                break;
            }
            for pid in fresh {
                signal_pid(pid, libc::SIGSTOP);
                stopped.insert(pid);
            }
        }
        super::process::signal_group(self.leader, libc::SIGKILL);
        for pid in stopped {
            signal_pid(pid, libc::SIGKILL);
        }
    }

    /// Live members now: descendants of the leader and of every member seen
    /// before, the leader's group, and (with `scan_pipes`, which reads every
    /// process's fd table) the holders of the run's pipes. The leader is reached
    /// through `seen`, so once it is reaped its pid is never taken for it again.
    fn live_members(&self, scan_pipes: bool) -> Vec<u32> {
        let table = proc_table();
        let by_pid: HashMap<u32, ProcStat> = table.iter().map(|p| (p.pid, *p)).collect();
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A remembered pid counts only while it is still the same process.
        let mut roots: Vec<u32> = seen
            .iter()
            .filter(|(pid, start)| by_pid.get(pid).is_some_and(|p| p.start_time == **start))
            .map(|(pid, _)| *pid)
            .collect();
        roots.extend(
            table
                .iter()
                .filter(|p| p.pgrp == self.leader)
                .map(|p| p.pid),
        );
        if scan_pipes {
            roots.extend(pipe_holders(&self.pipe_inodes));
        }

        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for p in &table {
            children.entry(p.ppid).or_default().push(p.pid);
        }
        let own_pid = std::process::id();
        let mut members: HashSet<u32> = HashSet::new();
        while let Some(pid) = roots.pop() {
            if pid <= 1 || pid == own_pid || !by_pid.contains_key(&pid) || !members.insert(pid) {
                continue;
            }
            roots.extend(children.get(&pid).into_iter().flatten().copied());
        }
        let mut live = Vec::with_capacity(members.len());
        for pid in members {
            let stat = by_pid[&pid];
            seen.insert(pid, stat.start_time);
            if stat.alive {
                live.push(pid);
            }
        }
        live
    }
}

/// Whether any process of group `pgid` is still running (zombies don't count: a
/// container's init may never reap them).
pub fn group_alive(pgid: u32) -> bool {
    if !super::process::signal_group(pgid, 0) {
        return false;
    }
    !cfg!(target_os = "linux") || proc_table().iter().any(|p| p.pgrp == pgid && p.alive)
}

/// Never signals pid 0 or 1, or this process.
fn signal_pid(pid: u32, signal: i32) -> bool {
    let Ok(target) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if target <= 1 || pid == std::process::id() {
        return false;
    }
    // SAFETY: kill only sends a signal; the pid is a member this tree found.
    unsafe { libc::kill(target, signal) == 0 }
}

/// Every process in `/proc` this user can read.
fn proc_table() -> Vec<ProcStat> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            parse_stat(pid, &stat)
        })
        .collect()
}

/// Fields after the parenthesised command: state(3) ppid(4) pgrp(5) … starttime(22).
fn parse_stat(pid: u32, stat: &str) -> Option<ProcStat> {
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let state = *fields.first()?;
    Some(ProcStat {
        pid,
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        start_time: fields.get(19)?.parse().ok()?,
        alive: state != "Z" && state != "X",
    })
}

/// The start time of process `pid` (clock ticks after boot), if it exists.
pub fn start_time_of(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &stat).map(|p| p.start_time)
}

/// The inode of the pipe behind one of our file descriptors.
pub fn pipe_inode(fd: i32) -> Option<u64> {
    let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    pipe_link_inode(target.to_str()?)
}

fn pipe_link_inode(link: &str) -> Option<u64> {
    link.strip_prefix("pipe:[")?.strip_suffix(']')?.parse().ok()
}

/// Processes (other than this one) holding one of the pipes open.
fn pipe_holders(inodes: &[u64]) -> Vec<u32> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let line =
            "4242 (a) b (c)) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 0 0";
        let stat = parse_stat(4242, line).expect("parses");
        assert_eq!((stat.ppid, stat.pgrp, stat.start_time), (17, 4242, 987654));
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
