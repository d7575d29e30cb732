//! Indexing a file or a directory tree for `ctx_index`. The caller has already decided
//! the path may be read (confinement is the policy's job); this walks it honouring
//! `.gitignore`, the include/exclude globs and extensions, depth and file-count limits,
//! and skips binary and oversized files.

use crate::platform::fs::Canonical as _;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::indexing::index_document;
use crate::chunk::detect_format;
use crate::limits::{INDEX_FILE_MAX_BYTES, INDEX_WALK_MAX_FILES};
use crate::store::{NewSource, SourceKind, Store, StoreError};

/// How to walk a directory.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Globs (relative to the walked directory) a file must match one of; empty = all.
    pub include: Vec<String>,
    /// Globs of files or directories to leave out.
    pub exclude: Vec<String>,
    /// File extensions to keep (with or without the dot); empty = all.
    pub extensions: Vec<String>,
    pub max_depth: Option<usize>,
    pub max_files: usize,
    pub respect_gitignore: bool,
    pub follow_symlinks: bool,
    /// When set, a file whose resolved path is outside this directory is skipped (and
    /// counted): followed symlinks cannot reach past what the policy allowed.
    pub confine_to: Option<PathBuf>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            include: Vec::new(),
            exclude: Vec::new(),
            extensions: Vec::new(),
            max_depth: None,
            max_files: INDEX_WALK_MAX_FILES,
            respect_gitignore: true,
            follow_symlinks: false,
            confine_to: None,
        }
    }
}

/// Callbacks of a walk: which files the caller lets it read, and progress.
#[derive(Default)]
pub struct WalkHooks<'a> {
    /// Whether a file the walk reached may be read (e.g. the user's `Read(...)` deny
    /// rules); a `false` skips it and counts it in `skipped_denied`.
    pub admit: Option<&'a mut dyn FnMut(&Path) -> bool>,
    /// Sees the report after each indexed file (a terminal progress line).
    pub progress: Option<&'a mut dyn FnMut(&PathIndexReport)>,
}

/// What indexing a path did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathIndexReport {
    pub files: usize,
    pub chunks: usize,
    pub bytes: u64,
    pub skipped_binary: usize,
    pub skipped_too_large: usize,
    pub skipped_unreadable: usize,
    /// Files resolving outside `confine_to`.
    pub skipped_outside: usize,
    /// Files the caller's `admit` refused.
    pub skipped_denied: usize,
    /// The walk stopped at `max_files`.
    pub stopped_at_max_files: bool,
    /// Labels of the indexed files, in walk order.
    pub labels: Vec<String>,
}

/// Why a path could not be indexed at all. One line.
#[derive(Debug, thiserror::Error)]
pub enum IndexPathError {
    #[error("invalid glob {pattern:?}: {reason}")]
    Glob { pattern: String, reason: String },
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: String, reason: String },
}

/// Directories that are never content.
const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".jj"];

/// Indexes `path` (a file or a directory). Each file becomes one source labelled with
/// its path relative to `project_dir` (prefixed `source/` when a source name is given;
/// a single file with a source name is labelled exactly that).
pub fn index_path(
    store: &mut Store,
    path: &Path,
    project_dir: &Path,
    source: Option<&str>,
    session_id: Option<&str>,
    options: &WalkOptions,
) -> Result<PathIndexReport, IndexPathError> {
    index_path_with(
        store,
        path,
        project_dir,
        source,
        session_id,
        options,
        WalkHooks::default(),
    )
}

/// [`index_path`] with callbacks: `hooks.admit` is asked about every file of a
/// directory walk (a single file was decided by the caller), `hooks.progress` is told
/// after each indexed file.
pub fn index_path_with(
    store: &mut Store,
    path: &Path,
    project_dir: &Path,
    source: Option<&str>,
    session_id: Option<&str>,
    options: &WalkOptions,
    mut hooks: WalkHooks<'_>,
) -> Result<PathIndexReport, IndexPathError> {
    let mut report = PathIndexReport::default();
    let meta = std::fs::metadata(path).map_err(|e| IndexPathError::Unreadable {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    if meta.is_file() {
        let label = source.map_or_else(|| display_path(path, project_dir), str::to_string);
        index_file(store, path, &label, session_id, &mut report)?;
        if report.files == 0
            && report.skipped_binary + report.skipped_too_large + report.skipped_unreadable > 0
        {
            let reason = if report.skipped_binary > 0 {
                "binary file"
            } else if report.skipped_too_large > 0 {
                "file too large"
            } else {
                "unreadable"
            };
            return Err(IndexPathError::Unreadable {
                path: label,
                reason: reason.into(),
            });
        }
        return Ok(report);
    }
    let include = glob_set(&options.include)?;
    let exclude = glob_set(&options.exclude)?;
    let extensions: Vec<String> = options
        .extensions
        .iter()
        .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .collect();
    let root = path.to_path_buf();
    let confine_root = options
        .confine_to
        .as_ref()
        .map(|dir| dir.canonical().unwrap_or_else(|_| dir.clone()));
    let exclude_for_filter = exclude.clone();
    let root_for_filter = root.clone();
    let mut builder = ignore::WalkBuilder::new(&root);
    builder
        .hidden(false)
        .git_ignore(options.respect_gitignore)
        .git_exclude(options.respect_gitignore)
        .git_global(options.respect_gitignore)
        .ignore(options.respect_gitignore)
        .parents(options.respect_gitignore)
        .require_git(false)
        .follow_links(options.follow_symlinks)
        .max_depth(options.max_depth)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            let name = entry.file_name().to_string_lossy();
            if entry.depth() > 0 && VCS_DIRS.contains(&name.as_ref()) {
                return false;
            }
            let relative = entry
                .path()
                .strip_prefix(&root_for_filter)
                .unwrap_or(entry.path());
            entry.depth() == 0
                || exclude_for_filter
                    .as_ref()
                    .is_none_or(|set| !set.is_match(relative))
        });
    for entry in builder.build() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                tracing::debug!("walk error: {err}");
                report.skipped_unreadable += 1;
                continue;
            }
        };
        let Some(file_type) = entry.file_type() else {
            continue;
        };
        if (file_type.is_symlink() && !options.follow_symlinks) || !entry.path().is_file() {
            continue;
        }
        // What a followed link stands for is its target: confinement and the caller's
        // rules judge that file, and it is the file read.
        let Ok(target) = entry.path().canonical() else {
            report.skipped_unreadable += 1;
            continue;
        };
        if confine_root
            .as_ref()
            .is_some_and(|allowed| !target.starts_with(allowed))
        {
            report.skipped_outside += 1;
            continue;
        }
        let relative = entry.path().strip_prefix(&root).unwrap_or(entry.path());
        if include.as_ref().is_some_and(|set| !set.is_match(relative)) {
            continue;
        }
        if !extensions.is_empty() {
            let ext = relative
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            if !extensions.contains(&ext) {
                continue;
            }
        }
        if report.files >= options.max_files {
            report.stopped_at_max_files = true;
            break;
        }
        // Both names are asked: a rule may name the link (`Read(./docs/latest)`) or
        // the file it points to (`Read(./.env)`).
        if let Some(admit) = hooks.admit.as_mut()
            && (!admit(&target) || (target != entry.path() && !admit(entry.path())))
        {
            report.skipped_denied += 1;
            continue;
        }
        let label = match source {
            Some(prefix) => format!("{prefix}/{}", slash_label(relative)),
            None => display_path(entry.path(), project_dir),
        };
        crate::store::let_urgent_writes_in();
        index_file(store, &target, &label, session_id, &mut report)?;
        if let Some(progress) = hooks.progress.as_mut() {
            progress(&report);
        }
    }
    Ok(report)
}

fn index_file(
    store: &mut Store,
    path: &Path,
    label: &str,
    session_id: Option<&str>,
    report: &mut PathIndexReport,
) -> Result<(), IndexPathError> {
    let Some(text) = read_text(path, report) else {
        return Ok(());
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let format = detect_format(&text, name.as_deref());
    let absolute = path.canonical().unwrap_or_else(|_| PathBuf::from(path));
    let absolute = absolute.to_string_lossy();
    let mut source = NewSource::new(label, SourceKind::File, session_id, text.len());
    source.url = Some(&absolute);
    let indexed = index_document(store, source, &text, format)?;
    report.files += 1;
    report.chunks += indexed.chunks;
    report.bytes += text.len() as u64;
    report.labels.push(label.to_string());
    Ok(())
}

/// The file's text, or `None` (counted in the report) when it is too large, binary or unreadable.
fn read_text(path: &Path, report: &mut PathIndexReport) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() > INDEX_FILE_MAX_BYTES as u64 => {
            report.skipped_too_large += 1;
            return None;
        }
        Ok(_) => {}
        Err(_) => {
            report.skipped_unreadable += 1;
            return None;
        }
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(_) => {
            report.skipped_unreadable += 1;
            return None;
        }
    };
    if is_binary(&bytes) {
        report.skipped_binary += 1;
        return None;
    }
    Some(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
    })
}

/// A NUL byte in the first 8 KB, or mostly invalid UTF-8, means binary.
fn is_binary(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return true;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        // A multi-byte character cut by the 8 KB boundary is not a sign of binary.
        Err(err) if err.error_len().is_none() => false,
        Err(_) => {
            let lossy = String::from_utf8_lossy(head);
            let bad = lossy
                .chars()
                .filter(|&c| c == char::REPLACEMENT_CHARACTER)
                .count();
            bad * 20 > lossy.chars().count()
        }
    }
}

fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>, IndexPathError> {
    let patterns: Vec<&String> = patterns.iter().filter(|p| !p.trim().is_empty()).collect();
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let pattern = pattern.trim();
        let glob = Glob::new(pattern).map_err(|e| IndexPathError::Glob {
            pattern: pattern.to_string(),
            reason: e.kind().to_string(),
        })?;
        builder.add(glob);
        // "docs" or "*.md" written without a directory part also matches at any depth.
        if !pattern.contains('/')
            && let Ok(anywhere) = Glob::new(&format!("**/{pattern}"))
        {
            builder.add(anywhere);
        }
    }
    builder.build().map(Some).map_err(|e| IndexPathError::Glob {
        pattern: String::new(),
        reason: e.to_string(),
    })
}

/// `path` relative to the project when inside it (see [`slash_label`]), else as given.
fn display_path(path: &Path, project_dir: &Path) -> String {
    let canonical = path.canonical().unwrap_or_else(|_| path.to_path_buf());
    let project = project_dir
        .canonical()
        .unwrap_or_else(|_| project_dir.to_path_buf());
    canonical
        .strip_prefix(&project)
        .map(slash_label)
        .unwrap_or_else(|_| path.display().to_string())
}

/// A relative path as a source label: its parts joined with `/` on every OS, so a
/// label, the `source` filter that names its directory (`docs/api`) and the search
/// hint built from the labels read the same on Windows, whose separator is `\`.
fn slash_label(relative: &Path) -> String {
    relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &[u8]) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path();
        write(p, ".gitignore", b"target/\n*.secret\n");
        write(p, "README.md", b"# Readme\nalpha words\n");
        write(p, "docs/guide.md", b"# Guide\nbeta words\n");
        write(p, "docs/deep/a/b/note.txt", b"gamma words\n");
        write(p, "src/main.rs", b"fn main() { delta(); }\n");
        write(p, "target/out.txt", b"ignored build output\n");
        write(p, "keys.secret", b"ignored secret\n");
        write(p, "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00binary");
        write(p, ".git/config", b"[core]\n");
        dir
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("db dir");
        let store = Store::open_path(&dir.path().join("context.db")).expect("store");
        (dir, store)
    }

    fn labels(report: &PathIndexReport) -> Vec<&str> {
        report.labels.iter().map(String::as_str).collect()
    }

    #[test]
    fn honours_gitignore_and_skips_binary_and_vcs() {
        let project = project();
        let (_db, mut store) = store();
        let report = index_path(
            &mut store,
            project.path(),
            project.path(),
            None,
            Some("s"),
            &WalkOptions::default(),
        )
        .expect("index");
        assert_eq!(
            labels(&report),
            vec![
                ".gitignore",
                "README.md",
                "docs/deep/a/b/note.txt",
                "docs/guide.md",
                "src/main.rs"
            ]
        );
        assert_eq!(report.skipped_binary, 1);
    }

    #[test]
    fn gitignore_can_be_ignored_and_filters_apply() {
        let project = project();
        let (_db, mut store) = store();
        let options = WalkOptions {
            respect_gitignore: false,
            extensions: vec![".txt".into()],
            ..Default::default()
        };
        let report = index_path(
            &mut store,
            project.path(),
            project.path(),
            None,
            None,
            &options,
        )
        .expect("index");
        assert_eq!(
            labels(&report),
            vec!["docs/deep/a/b/note.txt", "target/out.txt"]
        );

        let options = WalkOptions {
            include: vec!["docs/**".into()],
            exclude: vec!["deep".into()],
            ..Default::default()
        };
        let report = index_path(
            &mut store,
            project.path(),
            project.path(),
            Some("kb"),
            None,
            &options,
        )
        .expect("index");
        assert_eq!(labels(&report), vec!["kb/docs/guide.md"]);

        let options = WalkOptions {
            max_depth: Some(1),
            max_files: 2,
            ..Default::default()
        };
        let report = index_path(
            &mut store,
            project.path(),
            project.path(),
            None,
            None,
            &options,
        )
        .expect("index");
        assert_eq!(report.files, 2);
        assert!(report.stopped_at_max_files);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_only_when_asked_and_confinement_holds() {
        let project = project();
        let outside = tempfile::tempdir().expect("outside");
        std::fs::write(
            outside.path().join("secret.md"),
            "# Outside
omega\n",
        )
        .expect("write");
        crate::platform::fs::symlink(
            outside.path().join("secret.md"),
            project.path().join("docs/link.md"),
        )
        .expect("symlink");
        let (_db, mut store) = store();
        let docs = project.path().join("docs");
        let plain = index_path(
            &mut store,
            &docs,
            project.path(),
            None,
            None,
            &WalkOptions::default(),
        )
        .expect("index");
        assert!(
            !plain
                .labels
                .iter()
                .any(|l| l.contains("link") || l.contains("secret")),
            "{plain:?}"
        );
        let follow = WalkOptions {
            follow_symlinks: true,
            ..Default::default()
        };
        let followed =
            index_path(&mut store, &docs, project.path(), None, None, &follow).expect("index");
        assert_eq!(followed.files, plain.files + 1);
        let confined = WalkOptions {
            follow_symlinks: true,
            confine_to: Some(project.path().to_path_buf()),
            ..Default::default()
        };
        let report =
            index_path(&mut store, &docs, project.path(), None, None, &confined).expect("index");
        assert_eq!((report.files, report.skipped_outside), (plain.files, 1));
    }

    #[cfg(unix)]
    #[test]
    fn the_caller_judges_a_followed_link_by_its_target() {
        let project = project();
        std::fs::write(project.path().join(".env"), "TOKEN=zeta\n").expect("write");
        crate::platform::fs::symlink("../.env", project.path().join("docs/envlink"))
            .expect("symlink");
        let (_db, mut store) = store();
        let env = project.path().join(".env").canonical().expect("canonical");
        let mut asked = Vec::new();
        let mut admit = |file: &Path| {
            asked.push(file.to_path_buf());
            file != env
        };
        let hooks = WalkHooks {
            admit: Some(&mut admit),
            progress: None,
        };
        let follow = WalkOptions {
            follow_symlinks: true,
            ..Default::default()
        };
        let docs = project.path().join("docs");
        let report = index_path_with(
            &mut store,
            &docs,
            project.path(),
            None,
            None,
            &follow,
            hooks,
        )
        .expect("index");
        assert_eq!(report.skipped_denied, 1, "{report:?}");
        assert!(!report.labels.iter().any(|l| l.contains("envlink")));
        assert!(asked.contains(&env), "{asked:?}");
    }

    #[test]
    fn a_single_binary_file_is_an_error() {
        let project = project();
        let (_db, mut store) = store();
        let err = index_path(
            &mut store,
            &project.path().join("logo.png"),
            project.path(),
            None,
            None,
            &WalkOptions::default(),
        )
        .expect_err("binary");
        assert_eq!(err.to_string(), "cannot read logo.png: binary file");
    }

    #[test]
    fn invalid_glob_is_one_line() {
        let project = project();
        let (_db, mut store) = store();
        let options = WalkOptions {
            include: vec!["[".into()],
            ..Default::default()
        };
        let err = index_path(
            &mut store,
            project.path(),
            project.path(),
            None,
            None,
            &options,
        )
        .expect_err("glob");
        assert!(err.to_string().starts_with("invalid glob \"[\""), "{err}");
    }
}
