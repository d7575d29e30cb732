//! The process table from a Toolhelp snapshot; start times from `GetProcessTimes`.

use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW, TH32CS_SNAPPROCESS,
};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
};

use crate::platform::process::ProcessInfo;

/// `STILL_ACTIVE`: what `GetExitCodeProcess` reports for a running process.
const STILL_ACTIVE_CODE: u32 = 259;

/// A handle closed when dropped.
pub(super) struct Handle(pub(super) HANDLE);

impl Handle {
    pub(super) fn valid(raw: HANDLE) -> Option<Handle> {
        (!raw.is_null() && raw != INVALID_HANDLE_VALUE).then_some(Handle(raw))
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle is owned by this value and closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// pid, parent pid and executable name of every process.
fn snapshot() -> Vec<(u32, u32, String)> {
    // SAFETY: plain call; the result is checked.
    let Some(snap) = Handle::valid(unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) })
    else {
        return Vec::new();
    };
    let mut entry = PROCESSENTRY32W {
        dwSize: std::mem::size_of::<PROCESSENTRY32W>() as u32,
        ..Default::default()
    };
    let mut rows = Vec::new();
    // SAFETY: `entry` is a PROCESSENTRY32W with dwSize set, as the API requires.
    let mut more = unsafe { Process32FirstW(snap.0, &mut entry) } != 0;
    while more {
        let len = entry
            .szExeFile
            .iter()
            .position(|c| *c == 0)
            .unwrap_or(entry.szExeFile.len());
        let exe = String::from_utf16_lossy(&entry.szExeFile[..len]);
        rows.push((entry.th32ProcessID, entry.th32ParentProcessID, exe));
        // SAFETY: as above.
        more = unsafe { Process32NextW(snap.0, &mut entry) } != 0;
    }
    rows
}

/// `node.exe` → `node`: names compare like Unix process names.
fn plain_name(exe: &str) -> String {
    let lower = exe.to_ascii_lowercase();
    lower.strip_suffix(".exe").unwrap_or(&lower).to_string()
}

/// Creation time (100 ns since 1601) and whether it still runs.
fn times(pid: u32) -> Option<(u64, bool)> {
    // SAFETY: plain call; the result is checked.
    let process = Handle::valid(unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) })?;
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: four FILETIME out-parameters and a handle with query rights.
    let ok =
        unsafe { GetProcessTimes(process.0, &mut created, &mut exited, &mut kernel, &mut user) }
            != 0;
    if !ok {
        return None;
    }
    let mut code = 0u32;
    // SAFETY: an out-parameter and a handle with query rights.
    let running =
        unsafe { GetExitCodeProcess(process.0, &mut code) } != 0 && code == STILL_ACTIVE_CODE;
    let started = (u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime);
    Some((started, running))
}

fn info_of(pid: u32, parent: u32, exe: &str) -> Option<ProcessInfo> {
    let (started, alive) = times(pid)?;
    Some(ProcessInfo {
        pid,
        parent,
        group: pid,
        started,
        name: plain_name(exe),
        alive,
    })
}

pub fn process_info(pid: u32) -> Option<ProcessInfo> {
    let (_, parent, exe) = snapshot().into_iter().find(|(p, _, _)| *p == pid)?;
    info_of(pid, parent, &exe)
}

pub fn parent_pid() -> u32 {
    let me = std::process::id();
    snapshot()
        .into_iter()
        .find(|(pid, _, _)| *pid == me)
        .map_or(0, |(_, parent, _)| parent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exe_names_compare_like_unix_names() {
        assert_eq!(plain_name("Node.EXE"), "node");
        assert_eq!(plain_name("bash.exe"), "bash");
        assert_eq!(plain_name("python3.11"), "python3.11");
    }
}
