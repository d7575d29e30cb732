//! Private directories (mode 0700 on Unix): per-call work dirs under the system temp dir,
//! removed on drop.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Creates a fresh `<tmp>/<prefix><unique>` directory only this user can enter.
pub fn create_private_dir(prefix: &str) -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("{prefix}{}-{n}-{nanos:08x}", std::process::id());
        let path = base.join(name);
        match crate::platform::fs::create_private_dir(&path, false) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// A private directory removed (with its contents) when dropped, on every path
/// out of a call: success, error, timeout, or the caller's future being dropped.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    pub fn new(prefix: &str) -> std::io::Result<TempDir> {
        create_private_dir(prefix).map(|path| TempDir { path })
    }

    /// Takes over removal of an existing directory.
    pub fn adopt(path: PathBuf) -> TempDir {
        TempDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Hands removal over to the caller: the directory outlives this guard.
    pub fn keep(self) -> PathBuf {
        let this = std::mem::ManuallyDrop::new(self);
        this.path.clone()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!("could not remove {}: {e}", self.path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_removed_on_drop() {
        let dir = TempDir::new("cm-test-").expect("create");
        let path = dir.path().to_path_buf();
        let meta = std::fs::metadata(&path).expect("meta");
        if let Some(mode) = crate::platform::fs::mode_bits(&meta) {
            assert_eq!(mode & 0o777, 0o700);
        }
        std::fs::write(path.join("f"), "x").expect("write");
        drop(dir);
        assert!(!path.exists());
    }
}
