//! The data root (`CONTEXT_MODE_DIR` or `~/.context-mode`): valid, writable, and the
//! project's database inside it opens and passes SQLite's integrity checks.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Check, shell_path};
use crate::paths::{DATA_DIR_ENV, DataRootError};

const ROOT: &str = "data root";
const DATABASE: &str = "project database";

/// `project_dir` is `None` when there is no project (the settings rows say why).
pub fn checks(root: &Result<PathBuf, DataRootError>, project_dir: Option<&Path>) -> Vec<Check> {
    match root {
        Ok(root) => vec![
            root_check(root),
            project_dir.map_or_else(
                || Check::warn(DATABASE, "not checked: no project", None),
                |dir| database_check(root, dir),
            ),
        ],
        Err(err) => vec![
            invalid_root(err),
            Check::warn(DATABASE, "not checked: no usable data root", None),
        ],
    }
}

fn invalid_root(err: &DataRootError) -> Check {
    match err {
        DataRootError::Relative(value) => {
            let absolute = std::env::current_dir()
                .map(|cwd| cwd.join(value))
                .unwrap_or_else(|_| PathBuf::from("/absolute/path"));
            Check::fail(
                ROOT,
                format!(
                    "{DATA_DIR_ENV}={value:?} is relative; it must be an absolute path (cm serve and hooks refuse it)"
                ),
                Some(format!(
                    "export {DATA_DIR_ENV}={}   # or: unset {DATA_DIR_ENV}",
                    shell_path(&absolute)
                )),
            )
        }
        DataRootError::NoHome => Check::fail(
            ROOT,
            format!("HOME is not set and neither is {DATA_DIR_ENV}"),
            Some(format!("export {DATA_DIR_ENV}=/absolute/path")),
        ),
    }
}

fn root_check(root: &Path) -> Check {
    let second = crate::env::DATA_DIR_2_0;
    let second_set = std::env::var(second).is_ok_and(|v| !v.trim().is_empty());
    let source = match std::env::var(DATA_DIR_ENV) {
        Ok(value) if !value.trim().is_empty() => format!("from {DATA_DIR_ENV}"),
        _ if second_set => format!("from {second}"),
        Ok(_) => format!("the default; {DATA_DIR_ENV} is blank, so unset"),
        Err(_) => "the default".to_string(),
    };
    // An absent root is made on first use: its nearest existing ancestor must be writable.
    let probe_dir = root
        .ancestors()
        .find(|dir| dir.is_dir())
        .unwrap_or(root)
        .to_path_buf();
    match write_probe(&probe_dir) {
        Ok(()) if probe_dir == root => {
            Check::pass(ROOT, format!("{} ({source}), writable", root.display()))
        }
        Ok(()) => Check::pass(
            ROOT,
            format!(
                "{} ({source}) does not exist yet; made on first use ({} is writable)",
                root.display(),
                probe_dir.display()
            ),
        ),
        Err(err) => unwritable(&probe_dir, &source, &err),
    }
}

/// The row for a data root a file cannot be written in, with the cause named and a fix
/// for that cause: permissions mend with `chmod`, a full disk or a read-only mount only
/// with space freed or another data root. The error's kind is the OS's own (std maps
/// ENOSPC / EDQUOT / EROFS and Windows' ERROR_DISK_FULL), so no OS is tested here.
fn unwritable(dir: &Path, source: &str, err: &std::io::Error) -> Check {
    use std::io::ErrorKind;
    let shown = dir.display();
    let elsewhere = format!("export {DATA_DIR_ENV}=/path/on/another/disk");
    match err.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => Check::fail(
            ROOT,
            format!(
                "{shown} ({source}) cannot be written: no space left on its disk ({err}); \
                 indexing and session records fail until there is"
            ),
            Some(format!(
                "free space on the disk of {}, or move the data root: {elsewhere}",
                shell_path(dir)
            )),
        ),
        ErrorKind::ReadOnlyFilesystem => Check::fail(
            ROOT,
            format!("{shown} ({source}) cannot be written: its file system is read-only ({err})"),
            Some(elsewhere),
        ),
        ErrorKind::PermissionDenied => Check::fail(
            ROOT,
            format!("{shown} ({source}) is not writable: {err}"),
            Some(format!("chmod u+rwx {}", shell_path(dir))),
        ),
        _ => Check::fail(
            ROOT,
            format!("{shown} ({source}) cannot be written: {err}"),
            Some(elsewhere),
        ),
    }
}

/// Creates, writes and removes a file of our own in `dir`.
fn write_probe(dir: &Path) -> std::io::Result<()> {
    let path = dir.join(format!(".cm-doctor-{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut file| file.write_all(b"cm doctor\n"));
    let removed = std::fs::remove_file(&path);
    written.and(removed)
}

fn database_check(root: &Path, project_dir: &Path) -> Check {
    let db = crate::paths::project_db(root, project_dir);
    if !db.exists() {
        return Check::pass(
            DATABASE,
            format!(
                "none yet for {} (created on first use)",
                project_dir.display()
            ),
        );
    }
    // Checked before a `Store` opens them: opening repairs what it can.
    let damaged_indexes = crate::store::damaged_index_files(&db);
    let store = match crate::store::Store::open_path(&db) {
        Ok(store) => store,
        Err(err) => {
            let fix = is_damage(&err).then(|| move_aside_fix(&db));
            return Check::fail(DATABASE, format!("{}: {err}", db.display()), fix);
        }
    };
    match store.main_integrity_problems() {
        Ok(problems) if !problems.is_empty() => Check::fail(
            DATABASE,
            format!(
                "{} fails its integrity check: {}",
                db.display(),
                first_problems(&problems)
            ),
            Some(move_aside_fix(&db)),
        ),
        Ok(_) if !damaged_indexes.is_empty() => damaged_index_check(&db, &damaged_indexes),
        Ok(_) => {
            let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
            Check::pass(
                DATABASE,
                format!(
                    "{} ({} KB, schema v{}), integrity ok",
                    db.display(),
                    size.div_ceil(1024),
                    crate::store::SCHEMA_VERSION
                ),
            )
        }
        Err(err) => {
            let fix = is_damage(&err).then(|| move_aside_fix(&db));
            Check::fail(
                DATABASE,
                format!("{}: integrity check failed to run: {err}", db.display()),
                fix,
            )
        }
    }
}

/// The main file is intact and an index file beside it is not: the index file is named,
/// and the fix removes only it (derived data, rebuilt from `context.db` on next use; cm
/// also rebuilds it by itself when a search or an index meets the damage).
fn damaged_index_check(db: &Path, damaged: &[crate::store::IndexFileDamage]) -> Check {
    let names: Vec<String> = damaged
        .iter()
        .map(|d| d.path.display().to_string())
        .collect();
    let problems: Vec<String> = damaged
        .iter()
        .flat_map(|d| d.problems.iter().take(1).cloned())
        .collect();
    let files: Vec<String> = damaged
        .iter()
        .flat_map(|d| {
            ["", "-wal", "-shm"].map(|suffix| {
                let mut name = d.path.clone().into_os_string();
                name.push(suffix);
                shell_path(Path::new(&name))
            })
        })
        .collect();
    let main_name = db.file_name().map_or_else(
        || "the database".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    Check::fail(
        DATABASE,
        format!(
            "index file {} is damaged ({}); {main_name} itself is intact and the index is rebuilt from it",
            names.join(" and "),
            first_problems(&problems)
        ),
        Some(format!(
            "rm -f -- {}   # derived from {main_name}; cm rebuilds it on next use",
            files.join(" ")
        )),
    )
}

fn move_aside_fix(db: &Path) -> String {
    format!(
        "mv -- {} {}   # cm builds a fresh database on next use",
        shell_path(db),
        shell_path(&db.with_extension("db.bad"))
    )
}

/// Whether opening or checking failed because the file is damaged (not busy, not
/// unreadable, not too new), the only case where moving it aside helps.
fn is_damage(err: &crate::store::StoreError) -> bool {
    use crate::store::StoreError;
    match err {
        StoreError::NotContextMode => true,
        StoreError::Sqlite(err) => matches!(
            err.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
        ),
        _ => false,
    }
}

fn first_problems(problems: &[String]) -> String {
    problems
        .iter()
        .take(2)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::Status;

    #[test]
    fn a_relative_root_fails_with_an_absolute_export() {
        let rows = checks(
            &Err(DataRootError::Relative("rel/data".into())),
            Some(Path::new("/nonexistent")),
        );
        assert_eq!(rows[0].status, Status::Fail);
        let fix = rows[0].fix.clone().unwrap_or_default();
        assert!(fix.starts_with("export CONTEXT_MODE_DIR=/"), "{fix}");
        assert!(
            fix.contains("rel/data   # or: unset CONTEXT_MODE_DIR"),
            "{fix}"
        );
        assert_eq!(rows[1].status, Status::Warn);
    }

    #[test]
    fn an_existing_database_is_opened_and_checked() {
        let root = tempfile::tempdir().expect("tempdir");
        let project = tempfile::tempdir().expect("project");
        let rows = checks(&Ok(root.path().to_path_buf()), Some(project.path()));
        assert_eq!(rows[0].status, Status::Pass, "{}", rows[0].detail);
        assert!(
            rows[1].detail.contains("created on first use"),
            "{}",
            rows[1].detail
        );
        drop(crate::store::Store::open(root.path(), project.path()).expect("store"));
        let rows = checks(&Ok(root.path().to_path_buf()), Some(project.path()));
        assert_eq!(rows[1].status, Status::Pass, "{}", rows[1].detail);
        assert!(
            rows[1].detail.ends_with("integrity ok"),
            "{}",
            rows[1].detail
        );
    }

    #[test]
    fn an_unwritable_root_names_the_cause_and_a_fix_for_it() {
        use std::io::{Error, ErrorKind};
        let dir = Path::new("/data/cm");
        let row = |kind: ErrorKind| unwritable(dir, "from CONTEXT_MODE_DIR", &Error::from(kind));
        for kind in [ErrorKind::StorageFull, ErrorKind::QuotaExceeded] {
            let full = row(kind);
            assert_eq!(full.status, Status::Fail);
            assert!(
                full.detail.starts_with(
                    "/data/cm (from CONTEXT_MODE_DIR) cannot be written: no space left on its disk"
                ),
                "{}",
                full.detail
            );
            assert_eq!(
                full.fix.as_deref(),
                Some(
                    "free space on the disk of /data/cm, or move the data root: export CONTEXT_MODE_DIR=/path/on/another/disk"
                )
            );
        }
        let read_only = row(ErrorKind::ReadOnlyFilesystem);
        assert!(
            read_only.detail.contains("read-only"),
            "{}",
            read_only.detail
        );
        assert!(
            read_only
                .fix
                .as_deref()
                .is_some_and(|f| f.starts_with("export CONTEXT_MODE_DIR=")),
            "{:?}",
            read_only.fix
        );
        let denied = row(ErrorKind::PermissionDenied);
        assert!(
            denied.detail.contains("is not writable"),
            "{}",
            denied.detail
        );
        assert_eq!(denied.fix.as_deref(), Some("chmod u+rwx /data/cm"));
    }

    #[test]
    fn a_missing_root_reports_the_writable_ancestor() {
        let base = tempfile::tempdir().expect("tempdir");
        let row = root_check(&base.path().join("a/b"));
        assert_eq!(row.status, Status::Pass);
        assert!(row.detail.contains("does not exist yet"), "{}", row.detail);
        assert_eq!(std::fs::read_dir(base.path()).expect("dir").count(), 0);
    }
}
