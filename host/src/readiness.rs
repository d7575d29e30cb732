//! Readiness markers: a live `cm serve` writes `<root>/servers/<pid>.json` and removes it
//! on exit. Hooks only redirect to `ctx_*` tools when some marker belongs to a live process.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    pid: u32,
    /// The process start time (the OS's unit, `platform::process::ProcessInfo::started`),
    /// so a reused pid is not mistaken for the server.
    start_ticks: Option<u64>,
    version: String,
}

/// The marker of this process; removed when dropped.
pub struct ReadinessMarker {
    path: PathBuf,
}

impl ReadinessMarker {
    pub fn write(root: &Path) -> std::io::Result<Self> {
        let dir = crate::paths::servers_dir(root);
        std::fs::create_dir_all(&dir)?;
        let pid = std::process::id();
        let marker = Marker {
            pid,
            start_ticks: crate::platform::process::start_time(pid),
            version: env!("CARGO_PKG_VERSION").to_string(),
        };
        let path = dir.join(format!("{pid}.json"));
        let tmp = dir.join(format!(".{pid}.json.tmp"));
        std::fs::write(&tmp, serde_json::to_vec(&marker).unwrap_or_default())?;
        std::fs::rename(&tmp, &path)?;
        Ok(Self { path })
    }
}

impl Drop for ReadinessMarker {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// True when a marker under `root` belongs to a running process.
pub fn server_live(root: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(crate::paths::servers_dir(root)) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            return false;
        }
        std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Marker>(&bytes).ok())
            .is_some_and(|marker| marker_alive(&marker))
    })
}

fn marker_alive(marker: &Marker) -> bool {
    crate::platform::process::is_running(marker.pid, marker.start_ticks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_is_live_while_held_and_gone_after() {
        let root = tempfile::tempdir().expect("tempdir");
        assert!(!server_live(root.path()));
        let marker = ReadinessMarker::write(root.path()).expect("write marker");
        assert!(server_live(root.path()));
        drop(marker);
        assert!(!server_live(root.path()));
    }

    #[test]
    fn marker_of_a_dead_process_is_not_live() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = crate::paths::servers_dir(root.path());
        std::fs::create_dir_all(&dir).expect("mkdir");
        let pid = crate::platform::process::exited_child_pid();
        std::fs::write(
            dir.join(format!("{pid}.json")),
            format!(r#"{{"pid":{pid},"start_ticks":null,"version":"0"}}"#),
        )
        .expect("write");
        assert!(!server_live(root.path()));
    }
}
