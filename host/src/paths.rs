//! Where context-mode keeps its files: the data root and everything under it.

use crate::platform::fs::Canonical as _;
use std::path::{Path, PathBuf};

/// Environment variable that moves the data root; must be absolute.
pub const DATA_DIR_ENV: &str = crate::env::DATA_DIR;

/// Why the data root cannot be determined.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DataRootError {
    #[error("CONTEXT_MODE_DIR must be an absolute path, got {0:?}")]
    Relative(String),
    #[error("no home directory: set HOME or CONTEXT_MODE_DIR")]
    NoHome,
}

/// The data root: `CONTEXT_MODE_DIR` when set to an absolute path (empty or
/// whitespace counts as unset), else 2.0's `CONTEXT_MODE_DATA_DIR` (see
/// [`data_dir_2_0`]), else `~/.context-mode`.
pub fn data_root() -> Result<PathBuf, DataRootError> {
    let second = data_dir_2_0(std::env::var_os(crate::env::DATA_DIR_2_0), home_dir());
    data_root_from(std::env::var_os(DATA_DIR_ENV), second, home_dir())
}

/// `CONTEXT_MODE_DATA_DIR` as upstream 2.0 reads it: blank is unset, a leading `~`
/// is HOME, a relative path is made absolute against the working directory.
fn data_dir_2_0(value: Option<std::ffi::OsString>, home: Option<PathBuf>) -> Option<PathBuf> {
    let value = value?;
    let text = value.to_string_lossy();
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let path = match (text.strip_prefix('~'), home) {
        (Some(rest), Some(home)) => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(text),
    };
    std::path::absolute(&path).ok()
}

fn data_root_from(
    configured: Option<std::ffi::OsString>,
    second: Option<PathBuf>,
    home: Option<PathBuf>,
) -> Result<PathBuf, DataRootError> {
    if let Some(value) = configured {
        let text = value.to_string_lossy();
        if !text.trim().is_empty() {
            let path = PathBuf::from(&value);
            if !path.is_absolute() {
                return Err(DataRootError::Relative(text.into_owned()));
            }
            return Ok(path);
        }
    }
    if let Some(path) = second {
        return Ok(path);
    }
    home.map(|h| h.join(".context-mode"))
        .ok_or(DataRootError::NoHome)
}

/// The agents' project variables, first match wins: ours, Claude Code's, Gemini CLI's.
pub const PROJECT_DIR_ENV_VARS: [&str; 3] = [
    crate::env::PROJECT_DIR,
    "CLAUDE_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
];

/// Why there is no project to work for: the working directory is gone (deleted, or
/// moved away). Holds its last known name (`$PWD`) when there is one. Shown as one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectDirError {
    pub last_known: Option<PathBuf>,
}

impl std::fmt::Display for ProjectDirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let which = self
            .last_known
            .as_ref()
            .map_or_else(String::new, |dir| format!(" {}", dir.display()));
        write!(
            f,
            "no project: the working directory{which} no longer exists; start the agent again from the project directory"
        )
    }
}

impl std::error::Error for ProjectDirError {}

/// The project of `cm serve` and the CLI: the first project variable naming an existing
/// absolute directory, else the working directory (see [`project_dir_of`]).
pub fn project_dir() -> Result<PathBuf, ProjectDirError> {
    let named = PROJECT_DIR_ENV_VARS
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .find(|p| p.is_absolute() && p.is_dir());
    project_dir_of(named.as_deref())
}

/// The one rule for "which project": `named` when it is an existing absolute directory,
/// else the working directory; canonical (symlinks resolved), so the server, the hooks
/// and the CLI name the same store and confine to the same tree. A working directory
/// that was deleted is an error, never `/`: confining to `/` confines to nothing.
pub fn project_dir_of(named: Option<&Path>) -> Result<PathBuf, ProjectDirError> {
    let gone = |last_known: Option<PathBuf>| ProjectDirError { last_known };
    let dir = match named.filter(|p| p.is_absolute() && p.is_dir()) {
        Some(dir) => dir.to_path_buf(),
        None => {
            std::env::current_dir().map_err(|_| gone(std::env::var_os("PWD").map(PathBuf::from)))?
        }
    };
    dir.canonical().map_err(|_| gone(Some(dir.clone())))
}

/// The user's home directory (`HOME`), when set and non-empty.
/// A temp file name for writing `dir/<name>` by rename, unique in this process as well
/// as between processes: the hooks `cm serve` answers run side by side (ADR 35), and two
/// writers of one temp file lose one rename.
pub fn temp_name(dir: &Path, name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

pub fn home_dir() -> Option<PathBuf> {
    crate::platform::home_dir()
}

/// Stable key of a project: hex sha256 of its canonical path (first 16 hex digits).
pub fn project_key(project_dir: &Path) -> String {
    use sha2::{Digest, Sha256};
    let canonical = project_dir
        .canonical()
        .unwrap_or_else(|_| project_dir.to_path_buf());
    let digest = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    hex::encode(&digest[..8])
}

/// The directory of one project's database: `<root>/projects/<key>/`.
pub fn project_dir_in(root: &Path, project_dir: &Path) -> PathBuf {
    root.join("projects").join(project_key(project_dir))
}

/// One project's database file: `<root>/projects/<key>/context.db`.
pub fn project_db(root: &Path, project_dir: &Path) -> PathBuf {
    project_dir_in(root, project_dir).join("context.db")
}

/// The append-only log of hook failures.
pub fn hook_errors_log(root: &Path) -> PathBuf {
    root.join("hook-errors.log")
}

/// Installed plugin components and their registry.
pub fn plugins_dir(root: &Path) -> PathBuf {
    root.join("plugins")
}

/// Precompiled `.cwasm` artifacts.
pub fn cwasm_cache_dir(root: &Path) -> PathBuf {
    root.join("cache").join("cwasm")
}

/// Readiness markers of live `cm serve` processes.
pub fn servers_dir(root: &Path) -> PathBuf {
    root.join("servers")
}

/// Per-session hook state (nudges shown).
pub fn sessions_dir(root: &Path) -> PathBuf {
    root.join("sessions")
}

/// Logs of `background: true` runs, one private directory per run.
pub fn background_dir(root: &Path) -> PathBuf {
    root.join(crate::limits::BACKGROUND_DIR_NAME)
}

/// The insight report of one project: `<root>/insight/insight-<key>.html`.
pub fn insight_report(root: &Path, project_dir: &Path) -> PathBuf {
    use crate::limits::{INSIGHT_DIR_NAME, INSIGHT_FILE_PREFIX};
    root.join(INSIGHT_DIR_NAME).join(format!(
        "{INSIGHT_FILE_PREFIX}{}.html",
        project_key(project_dir)
    ))
}

/// Every project database under the data root: `<root>/projects/*/context.db`, sorted.
pub fn project_dbs(root: &Path) -> Vec<PathBuf> {
    let mut dbs: Vec<PathBuf> = std::fs::read_dir(root.join("projects"))
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| entry.path().join("context.db"))
                .filter(|db| db.is_file())
                .collect()
        })
        .unwrap_or_default();
    dbs.sort();
    dbs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_or_blank_dir_counts_as_unset() {
        let home = Some(PathBuf::from("/home/u"));
        for blank in ["", "   ", "\t"] {
            assert_eq!(
                data_root_from(Some(blank.into()), None, home.clone()),
                Ok(PathBuf::from("/home/u/.context-mode"))
            );
        }
    }

    #[test]
    fn relative_dir_is_an_error() {
        assert_eq!(
            data_root_from(Some("rel/dir".into()), None, None),
            Err(DataRootError::Relative("rel/dir".into()))
        );
    }

    #[test]
    fn absolute_dir_wins() {
        // Absolute on this OS (`/data/cm` is not absolute on Windows).
        let configured = std::env::temp_dir().join("cm");
        assert_eq!(
            data_root_from(
                Some(configured.clone().into_os_string()),
                Some(std::env::temp_dir().join("v2")),
                Some(std::env::temp_dir().join("u"))
            ),
            Ok(configured)
        );
    }

    #[test]
    fn the_2_0_name_expands_the_tilde_and_makes_a_relative_path_absolute() {
        let home = Some(std::env::temp_dir().join("u"));
        assert_eq!(
            data_dir_2_0(Some("~/ctx".into()), home.clone()),
            Some(std::env::temp_dir().join("u").join("ctx"))
        );
        assert_eq!(data_dir_2_0(Some("  ".into()), home.clone()), None);
        let relative = data_dir_2_0(Some("rel/ctx".into()), home.clone()).expect("absolute");
        assert!(
            relative.is_absolute() && relative.ends_with("rel/ctx"),
            "{relative:?}"
        );
        let second = std::env::temp_dir().join("ctx");
        assert_eq!(data_root_from(None, Some(second.clone()), home), Ok(second));
    }

    #[test]
    fn the_project_is_canonical_and_a_relative_one_is_not_trusted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let real = dir.path().join("real");
        std::fs::create_dir(&real).expect("mkdir");
        let link = dir.path().join("link");
        crate::platform::fs::symlink(&real, &link).expect("symlink");
        let canonical = real.canonical().expect("canonical");
        assert_eq!(project_dir_of(Some(&link)), Ok(canonical));
        let cwd = std::env::current_dir().expect("cwd");
        let cwd = cwd.canonical().unwrap_or(cwd);
        assert_eq!(
            project_dir_of(Some(Path::new("relative/dir"))),
            Ok(cwd.clone())
        );
        assert_eq!(project_dir_of(None), Ok(cwd));
    }

    #[test]
    fn project_key_is_stable_and_short() {
        let a = project_key(Path::new("/nonexistent/project"));
        assert_eq!(a, project_key(Path::new("/nonexistent/project")));
        assert_eq!(a.len(), 16);
        assert_ne!(a, project_key(Path::new("/nonexistent/other")));
    }
}
