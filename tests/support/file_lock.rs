//! An exclusive `flock` held until dropped (the file stays; the lock goes with the fd):
//! what keeps parallel tests from installing one registry package into a cache at once.
//! Shared by the `e2e` and `authoring` test binaries (each includes it with `#[path]`).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

pub struct FileLock(File);

impl FileLock {
    /// Waits for the lock on `path`; errors start with `who` (`e2e:`, `toolchains:`).
    pub fn take(path: &Path, who: &str) -> Result<FileLock, String> {
        let file = File::create(path)
            .map_err(|e| format!("{who}: cannot create {}: {e}", path.display()))?;
        // SAFETY: flock on a file descriptor this struct owns; no memory is shared.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if rc != 0 {
            return Err(format!("{who}: cannot lock {}", path.display()));
        }
        Ok(FileLock(file))
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // SAFETY: as above.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}
