//! Where `background: true` runs write, and how much.
//!
//! Each run gets a private directory (0700) under `<data root>/background/`, named
//! `<server pid>-<server start time>-<n>`, holding `stdout.log` and `stderr.log`.
//! Output reaches them through pipes drained by the server, so a log keeps the
//! first `BACKGROUND_LOG_HEAD_BYTES` and a rolling tail of
//! `BACKGROUND_LOG_TAIL_BYTES` (like the foreground capture) and a run printing
//! gigabytes costs a bounded file. The directory outlives the run, so the agent can
//! still read why a dev server died; it is removed when more than
//! `BACKGROUND_FINISHED_LOGS_KEPT` finished runs are kept (oldest first), when the
//! server exits, and at the next server start when the server that owned it is gone
//! (killed before it could clean up).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::capture::Capture;
use super::tempdir::TempDir;
use crate::limits;
use crate::platform::child::ProcessTree;
use crate::platform::{fs, process};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A run left running by `background: true`.
#[derive(Debug)]
pub struct BackgroundJob {
    pub tree: Arc<ProcessTree>,
    pub dir: PathBuf,
}

impl BackgroundJob {
    pub fn stdout_log(&self) -> PathBuf {
        self.dir.join("stdout.log")
    }

    pub fn stderr_log(&self) -> PathBuf {
        self.dir.join("stderr.log")
    }
}

/// This server's identity in directory names: pid and start time, so a reused pid
/// is never taken for a live owner.
fn owner_tag() -> String {
    let pid = std::process::id();
    format!("{pid}-{}", process::start_time(pid).unwrap_or(0))
}

/// A fresh private directory for one run, removed when the guard is dropped.
pub fn create_job_dir(root: &Path) -> std::io::Result<TempDir> {
    fs::create_private_dir(root, true)?;
    let owner = owner_tag();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = root.join(format!("{owner}-{n}"));
        match fs::create_private_dir(&path, false) {
            Ok(()) => return Ok(TempDir::adopt(path)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Removes the directories under `root` whose owning server is gone (or whose
/// name is not one of ours); returns how many were removed.
pub fn remove_stale_job_dirs(root: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(root) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let owner_alive = name.to_str().and_then(parse_owner).is_some_and(owner_alive);
        if !owner_alive && std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn parse_owner(name: &str) -> Option<(u32, u64)> {
    let mut parts = name.split('-');
    let pid = parts.next()?.parse().ok()?;
    let start = parts.next()?.parse().ok()?;
    let _n: u64 = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((pid, start))
}

fn owner_alive((pid, start): (u32, u64)) -> bool {
    process::is_running(pid, Some(start))
}

/// One stream's log file: whole while it is within head + tail; past that, the
/// file is rewritten (atomically, by rename) as head, an omission line and the
/// current tail, at most every `BACKGROUND_LOG_REWRITE_MS`.
#[derive(Debug)]
pub struct BoundedLog {
    path: PathBuf,
    /// Open for appending while nothing has been left out yet.
    appending: Option<File>,
    capture: Capture,
    dirty: bool,
    last_rewrite: Instant,
}

impl BoundedLog {
    pub fn create(path: PathBuf) -> std::io::Result<BoundedLog> {
        let file = File::create(&path)?;
        Ok(BoundedLog {
            path,
            appending: Some(file),
            capture: Capture::with_head_and_tail(
                limits::BACKGROUND_LOG_HEAD_BYTES,
                limits::BACKGROUND_LOG_TAIL_BYTES,
            ),
            dirty: false,
            last_rewrite: Instant::now(),
        })
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.capture.push(bytes);
        let whole_max =
            (limits::BACKGROUND_LOG_HEAD_BYTES + limits::BACKGROUND_LOG_TAIL_BYTES) as u64;
        if self.capture.total_bytes() <= whole_max
            && let Some(file) = &mut self.appending
        {
            let _ = file.write_all(bytes);
            return;
        }
        self.appending = None;
        self.dirty = true;
        if self.last_rewrite.elapsed() >= Duration::from_millis(limits::BACKGROUND_LOG_REWRITE_MS) {
            self.flush();
        }
    }

    /// Writes the current head and tail out if the file is behind.
    pub fn flush(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.last_rewrite = Instant::now();
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let written = std::fs::write(&tmp, self.capture.render().as_bytes())
            .and_then(|()| crate::platform::fs::replace_state_file(&tmp, &self.path));
        if let Err(e) = written {
            // The directory may be gone already (the run was stopped meanwhile).
            let _ = std::fs::remove_file(&tmp);
            tracing::debug!("cannot rewrite {}: {e}", self.path.display());
        }
    }

    /// The output so far, head and tail around an omission line when it is large.
    pub fn render(&self) -> String {
        self.capture.render()
    }

    pub fn total_bytes(&self) -> u64 {
        self.capture.total_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_log_keeps_head_and_tail_on_disk() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("stdout.log");
        let mut log = BoundedLog::create(path.clone()).expect("create");
        let line = b"0123456789abcdef\n";
        let lines = 3 * (limits::BACKGROUND_LOG_HEAD_BYTES + limits::BACKGROUND_LOG_TAIL_BYTES)
            / line.len();
        for _ in 0..lines {
            log.push(line);
        }
        log.push(b"the last line\n");
        log.flush();
        let on_disk = std::fs::read_to_string(&path).expect("read");
        let bound = limits::BACKGROUND_LOG_HEAD_BYTES + limits::BACKGROUND_LOG_TAIL_BYTES + 200;
        assert!(on_disk.len() <= bound, "{} bytes", on_disk.len());
        assert!(on_disk.starts_with("0123456789abcdef\n"));
        assert!(on_disk.ends_with("the last line\n"));
        assert!(on_disk.contains("bytes of output omitted"));
        assert_eq!(on_disk, log.render());
    }

    #[test]
    fn a_small_log_is_written_as_it_comes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("stdout.log");
        let mut log = BoundedLog::create(path.clone()).expect("create");
        log.push(b"one\n");
        log.push(b"two\n");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "one\ntwo\n");
    }

    #[test]
    fn only_directories_of_dead_servers_are_stale() {
        let root = tempfile::tempdir().expect("tempdir");
        let ours = create_job_dir(root.path()).expect("create");
        let dead = root.path().join(format!("{}-1-0", u32::MAX - 1));
        let foreign = root.path().join("not-ours");
        std::fs::create_dir(&dead).expect("mkdir");
        std::fs::create_dir(&foreign).expect("mkdir");
        assert_eq!(remove_stale_job_dirs(root.path()), 2);
        assert!(ours.path().is_dir() && !dead.exists() && !foreign.exists());
    }
}
