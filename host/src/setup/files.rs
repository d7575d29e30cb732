//! Reading config files, writing them atomically (temp + rename, permissions kept),
//! backing them up before a change and restoring them byte for byte.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{Result, SetupError};

/// A file's bytes, or none when it does not exist (a parent that is not a directory
/// also means "does not exist": writing it will fail, and that is reported then).
pub fn read_existing(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(SetupError::io("read", path, e)),
    }
}

/// Writes `bytes` to `path` through a temp file in the same directory and a rename,
/// keeping the old file's permissions. Returns the directories it had to create.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<Vec<PathBuf>> {
    let parent = path
        .parent()
        .ok_or_else(|| SetupError::NoParent(path.to_path_buf()))?;
    let created = create_dirs(parent)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(".{name}.cm-{}.tmp", std::process::id()));
    let result = (|| {
        // Synced through the handle that wrote it: Windows flushes only a handle with
        // write access (`FlushFileBuffers`), and the kept permissions may be read-only.
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        for dir in created.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
        SetupError::io("write", path, e)
    })?;
    Ok(created)
}

/// Creates `dir` and its missing ancestors; returns those it created, outermost first.
fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut cursor = Some(dir);
    while let Some(d) = cursor {
        if d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
        cursor = d.parent();
    }
    missing.reverse();
    for d in &missing {
        std::fs::create_dir(d).map_err(|e| SetupError::io("create directory", d, e))?;
    }
    Ok(missing)
}

/// One backed-up file: where it was and whether it existed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BackupEntry {
    pub path: PathBuf,
    pub existed: bool,
}

/// A backup directory under `<root>/backups/<UTC stamp>/`, holding a copy of every
/// file (at its absolute path below the directory) and `index.json`.
#[derive(Debug)]
pub struct Backup {
    pub dir: PathBuf,
    pub entries: Vec<BackupEntry>,
}

impl Backup {
    /// Copies each file that exists; records the ones that do not.
    pub fn take(root: &Path, files: &[(PathBuf, Option<Vec<u8>>)]) -> Result<Backup> {
        let stamp = stamp_now();
        let base = root.join("backups");
        let mut dir = base.join(&stamp);
        let mut n = 1;
        while dir.exists() {
            n += 1;
            dir = base.join(format!("{stamp}-{n}"));
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| SetupError::io("create backup directory", &dir, e))?;
        let mut entries = Vec::new();
        for (path, bytes) in files {
            if let Some(bytes) = bytes {
                let copy = copy_path(&dir, path);
                write_atomic(&copy, bytes)?;
            }
            entries.push(BackupEntry {
                path: path.clone(),
                existed: bytes.is_some(),
            });
        }
        let index = serde_json::to_string_pretty(&entries).map_err(|error| SetupError::Encode {
            what: "the backup index",
            error,
        })?;
        write_atomic(&dir.join("index.json"), index.as_bytes())?;
        Ok(Backup { dir, entries })
    }
}

/// Where the copy of `path` lives in a backup directory.
pub fn copy_path(dir: &Path, path: &Path) -> PathBuf {
    let relative: PathBuf = path
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .collect();
    dir.join("files").join(relative)
}

/// What one apply wrote, so it can be undone.
#[derive(Debug, Default)]
pub struct Written {
    /// (file, its bytes before, or none when setup created it).
    pub files: Vec<(PathBuf, Option<Vec<u8>>)>,
    pub created_dirs: Vec<PathBuf>,
}

impl Written {
    /// Puts every written file back as it was (deleting created ones and the
    /// directories made for them). Returns the files that could not be restored.
    pub fn restore(&self) -> Vec<String> {
        let mut failures = Vec::new();
        for (path, before) in self.files.iter().rev() {
            let result = match before {
                Some(bytes) => write_atomic(path, bytes).map(|_| ()),
                None => std::fs::remove_file(path)
                    .or_else(|e| match e.kind() {
                        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => Ok(()),
                        _ => Err(e),
                    })
                    .map_err(|e| SetupError::io("delete", path, e)),
            };
            if let Err(e) = result {
                failures.push(e.to_string());
            }
        }
        for dir in self.created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
        failures
    }
}

/// `20250102T030405Z`: sortable and safe in a file name.
fn stamp_now() -> String {
    crate::timestamp::rfc3339_utc(crate::timestamp::now_ms() / 1000).replace([':', '-'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_keeps_permissions_and_restore_is_byte_exact() {
        use crate::platform::fs::{mode_bits, set_mode_bits};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, b"{ \"a\": 1 }").unwrap();
        set_mode_bits(&path, 0o600).unwrap();
        write_atomic(&path, b"{}").unwrap();
        if let Some(mode) = mode_bits(&std::fs::metadata(&path).unwrap()) {
            assert_eq!(mode & 0o777, 0o600);
        }
        let created = dir.path().join("new/deep/file.md");
        let dirs = write_atomic(&created, b"x").unwrap();
        assert_eq!(dirs.len(), 2);
        let written = Written {
            files: vec![
                (path.clone(), Some(b"{ \"a\": 1 }".to_vec())),
                (created.clone(), None),
            ],
            created_dirs: dirs,
        };
        assert!(written.restore().is_empty());
        assert_eq!(std::fs::read(&path).unwrap(), b"{ \"a\": 1 }");
        assert!(!dir.path().join("new").exists());
    }

    #[test]
    fn a_parent_that_is_a_file_reads_as_missing_and_fails_to_write() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("rules"), b"").unwrap();
        let path = dir.path().join("rules/context-mode.md");
        assert_eq!(read_existing(&path).unwrap(), None);
        assert!(
            write_atomic(&path, b"x")
                .unwrap_err()
                .to_string()
                .starts_with("cannot ")
        );
    }
}
