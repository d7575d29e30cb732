//! Every process one sandboxed run started, wherever it moved (ADR 0015), on Unix.
//!
//! A script's children can leave its process group (`setsid`, `setpgid`) and its
//! parentage (double fork), so killing the group is not enough. On Linux the run's
//! first process (the leader) is made a *child subreaper* before it execs: while it
//! lives, every orphan of the run is re-parented to it instead of to init, so the
//! run's processes are exactly the leader's descendants. macOS has no subreaper: an
//! orphan that also left the group is re-parented to launchd and escapes the walk
//! (the README says so). A tree also counts the leader's process group and, where
//! the OS shows them, the processes that hold the run's output pipes (what is left
//! when the leader is already gone), and remembers every member it has seen (pid and
//! start time, so a reused pid is never signalled).
//!
//! [`ProcessTree::kill_all`] is the one way every stop path ends (timeout after the
//! grace, a cancelled or dropped call, server exit): it freezes the tree with SIGSTOP
//! until a walk finds nothing new (a stopped process cannot fork), then sends SIGKILL
//! to all of it.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use super::{signal_group, signal_pid};
use crate::platform::os;
use crate::platform::process::ProcessInfo;

/// Rounds of "walk, stop what is new" before the SIGKILL; a stopped process cannot
/// fork, so a real tree is complete after two or three.
const FREEZE_ROUNDS_MAX: usize = 64;

/// The processes of one run.
#[derive(Debug)]
pub struct ProcessTree {
    leader: u32,
    /// Identities of the run's output pipes (Linux: their inodes).
    pipe_ids: Vec<u64>,
    /// Every member seen so far: pid → start time.
    seen: Mutex<HashMap<u32, u64>>,
}

impl ProcessTree {
    /// The tree of a child spawned by [`super::super::child::command`] (its pid is
    /// also its group id).
    pub fn attach(child: &tokio::process::Child) -> std::io::Result<ProcessTree> {
        use std::os::fd::AsRawFd;
        let pipe_ids = [
            child.stdout.as_ref().map(|p| p.as_raw_fd()),
            child.stderr.as_ref().map(|p| p.as_raw_fd()),
        ]
        .into_iter()
        .flatten()
        .filter_map(os::pipe_id)
        .collect();
        Ok(ProcessTree::new(child.id().unwrap_or(0), pipe_ids))
    }

    /// The tree led by `leader`, without pipes.
    pub fn of_pid(leader: u32) -> ProcessTree {
        ProcessTree::new(leader, Vec::new())
    }

    fn new(leader: u32, pipe_ids: Vec<u64>) -> ProcessTree {
        let seen = os::process_info(leader)
            .map(|p| HashMap::from([(leader, p.started)]))
            .unwrap_or_default();
        ProcessTree {
            leader,
            pipe_ids,
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

    /// Asks every member to end (SIGTERM to them and to the leader's group).
    pub fn terminate(&self) {
        let members = self.live_members(true);
        signal_group(self.leader, libc::SIGTERM);
        for pid in members {
            signal_pid(pid, libc::SIGTERM);
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
        signal_group(self.leader, libc::SIGKILL);
        for pid in stopped {
            signal_pid(pid, libc::SIGKILL);
        }
    }

    /// Live members now: descendants of the leader and of every member seen
    /// before, the leader's group, and (with `scan_pipes`, which reads every
    /// process's descriptors) the holders of the run's pipes. The leader is reached
    /// through `seen`, so once it is reaped its pid is never taken for it again.
    fn live_members(&self, scan_pipes: bool) -> Vec<u32> {
        let table = os::process_table();
        let by_pid: HashMap<u32, &ProcessInfo> = table.iter().map(|p| (p.pid, p)).collect();
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A remembered pid counts only while it is still the same process.
        let mut roots: Vec<u32> = seen
            .iter()
            .filter(|(pid, start)| by_pid.get(pid).is_some_and(|p| p.started == **start))
            .map(|(pid, _)| *pid)
            .collect();
        roots.extend(
            table
                .iter()
                .filter(|p| p.group == self.leader)
                .map(|p| p.pid),
        );
        if scan_pipes {
            roots.extend(os::pipe_holders(&self.pipe_ids));
        }

        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for p in &table {
            children.entry(p.parent).or_default().push(p.pid);
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
            let info = by_pid[&pid];
            seen.insert(pid, info.started);
            if info.alive {
                live.push(pid);
            }
        }
        live
    }
}

/// Whether any process of group `pgid` is still running (zombies don't count: a
/// container's init may never reap them).
pub fn group_alive(pgid: u32) -> bool {
    if !signal_group(pgid, 0) {
        return false;
    }
    let table = os::process_table();
    table.is_empty() || table.iter().any(|p| p.group == pgid && p.alive)
}
