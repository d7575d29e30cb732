//! The installed version of an agent host, for an adapter whose setup plan depends on
//! it (contract 0.4.0 `host-version-command`): `<program> --version`, the program a bare
//! name found on PATH, run with nothing on stdin, its first non-empty stdout line. Only
//! `cm setup` and `cm doctor` ask, never a hook.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::limits::HOST_VERSION_PROBE_TIMEOUT_MS;

/// Longest version output read: a version line, not a manual.
const VERSION_OUTPUT_MAX_BYTES: u64 = 4 * 1024;

/// The version line `program --version` prints, or `None` when it is not on PATH,
/// fails, prints nothing or takes longer than the probe allows.
pub fn probe(program: &str) -> Option<String> {
    let executable = on_path(program, std::env::var_os("PATH")?.as_os_str())?;
    let mut child = Command::new(executable)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_millis(HOST_VERSION_PROBE_TIMEOUT_MS);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    let mut output = String::new();
    child
        .stdout
        .take()?
        .take(VERSION_OUTPUT_MAX_BYTES)
        .read_to_string(&mut output)
        .ok()?;
    if !status.success() {
        return None;
    }
    output
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(str::to_owned)
}

/// The first executable file named `program` in the PATH's directories.
fn on_path(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    crate::platform::fs::find_on_path(program, path)
}

// An execute bit makes a file a program here; Windows looks at PATHEXT instead
// (`platform::fs` tests that).
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::path::Path;

    fn script(dir: &Path, name: &str, body: &str) {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        crate::platform::fs::set_mode_bits(&path, 0o755).unwrap();
    }

    #[test]
    fn finds_the_program_on_the_given_path_only() {
        let dir = tempfile::tempdir().unwrap();
        script(dir.path(), "agent", "echo");
        let path = std::env::join_paths([Path::new("relative"), dir.path()]).unwrap();
        assert_eq!(on_path("agent", &path), Some(dir.path().join("agent")));
        assert_eq!(on_path("absent", &path), None);
        std::fs::write(dir.path().join("plain"), "x").unwrap();
        assert_eq!(on_path("plain", &path), None, "not executable");
    }
}
