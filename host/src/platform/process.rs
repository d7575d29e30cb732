//! Facts about processes: this one's parent, another's name and start identity.

use super::os;

/// One process as the OS's process table shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    pub pid: u32,
    pub parent: u32,
    /// Its process group (Unix); its own pid on Windows, which has none.
    pub group: u32,
    /// When it started, in the OS's own unit (Linux: clock ticks after boot; macOS:
    /// microseconds since the epoch; Windows: 100 ns since 1601). With the pid it
    /// names one process for the machine's uptime, so a reused pid is never taken
    /// for the process that had it before.
    pub started: u64,
    /// The executable's name as the OS reports it, without a directory; on Windows
    /// without `.exe` and in lower case.
    pub name: String,
    /// Still running (a zombie is not).
    pub alive: bool,
}

/// This process's parent.
pub fn parent_pid() -> u32 {
    os::parent_pid()
}

/// Process `pid`, where the process table can be read.
pub fn info(pid: u32) -> Option<ProcessInfo> {
    os::process_info(pid)
}

/// The start time of process `pid` (see [`ProcessInfo::started`]).
pub fn start_time(pid: u32) -> Option<u64> {
    info(pid).map(|p| p.started)
}

/// Whether `pid` is still the process that started at `started`. Where the table
/// cannot be read (a hidden `/proc`), an existing pid is taken as that process.
pub fn is_running(pid: u32, started: Option<u64>) -> bool {
    if pid <= 1 {
        return false;
    }
    match (info(pid), started) {
        (Some(now), Some(then)) => now.alive && now.started == then,
        (Some(now), None) => now.alive,
        (None, _) => os::exists(pid),
    }
}

/// The signal that ended a process (Unix), if one did.
pub fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    os::exit_signal(status)
}

/// Detaches a helper process from ours: its own process group on Unix, a new group
/// without a console on Windows. An agent that kills the hook's group on a timeout
/// then does not take the helper with it.
pub fn detach(command: &mut std::process::Command) {
    os::detach(command);
}

/// The pid of a child that has already exited and been waited for: this test binary
/// listing its tests, which every OS can run (no `true` on Windows).
#[cfg(test)]
pub fn exited_child_pid() -> u32 {
    let exe = std::env::current_exe().expect("test binary");
    let mut child = std::process::Command::new(exe)
        .arg("--list")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn the test binary");
    let pid = child.id();
    child.wait().expect("wait");
    pid
}

/// Set in the child [`running_child`] starts: its test waits for stdin to close.
#[cfg(test)]
const WAIT_FOR_STDIN_ENV: &str = "CM_TEST_WAIT_FOR_STDIN";

/// A child that runs until it is killed or its stdin closes: this test binary running
/// [`tests::waits_for_stdin_when_asked`], which every OS can run (no `sleep` on Windows).
#[cfg(test)]
pub fn running_child() -> std::process::Child {
    std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "platform::process::tests::waits_for_stdin_when_asked",
        ])
        .env(WAIT_FOR_STDIN_ENV, "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn the test binary")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Does nothing, except in the child of [`running_child`].
    #[test]
    fn waits_for_stdin_when_asked() {
        if std::env::var_os(WAIT_FOR_STDIN_ENV).is_some() {
            let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
        }
    }

    #[test]
    fn this_process_is_found_running_and_a_wrong_start_is_not() {
        let me = std::process::id();
        let info = info(me).expect("own process in the table");
        assert_eq!(info.pid, me);
        assert!(info.alive);
        assert!(is_running(me, Some(info.started)));
        assert!(!is_running(me, Some(info.started.wrapping_add(1))));
        assert_eq!(info.parent, parent_pid());
    }

    #[test]
    fn a_finished_child_is_not_running() {
        assert!(!is_running(exited_child_pid(), None));
    }
}
