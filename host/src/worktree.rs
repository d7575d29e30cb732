//! The git worktrees of a project, for `ctx_search` scope `project` (ADR 20). cm keeps
//! one store per project directory, and every git worktree is a directory of its own,
//! so the default scope `worktree` is exactly the project's store: what was indexed in
//! this checkout. `project` adds the stores of the same repository's other worktrees
//! (`git worktree list`), at the same path inside each (a project in `repo/web` pairs
//! with `other-worktree/web`).

use crate::platform::fs::Canonical as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The directories that play this project's part in the repository's other worktrees,
/// canonical; empty outside git or with one worktree.
pub fn other_worktrees(project_dir: &Path) -> Vec<PathBuf> {
    let Some(top) = git(project_dir, &["rev-parse", "--show-toplevel"]) else {
        return Vec::new();
    };
    let top = PathBuf::from(top.trim());
    let top = top.canonical().unwrap_or(top);
    let inside = project_dir.strip_prefix(&top).unwrap_or(Path::new(""));
    let Some(listing) = git(project_dir, &["worktree", "list", "--porcelain"]) else {
        return Vec::new();
    };
    let this = project_dir
        .canonical()
        .unwrap_or_else(|_| project_dir.to_path_buf());
    worktree_paths(&listing)
        .into_iter()
        .filter_map(|root| root.join(inside).canonical().ok())
        .filter(|dir| *dir != this && dir.is_dir())
        .collect()
}

/// The `worktree <path>` lines of `git worktree list --porcelain`.
fn worktree_paths(porcelain: &str) -> Vec<PathBuf> {
    porcelain
        .lines()
        .filter_map(|line| line.strip_prefix("worktree "))
        .map(PathBuf::from)
        .collect()
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_lines_name_the_worktrees() {
        let listing = "worktree /r/main\nHEAD abc\nbranch refs/heads/main\n\nworktree /r/wt one\nHEAD def\ndetached\n";
        assert_eq!(
            worktree_paths(listing),
            [PathBuf::from("/r/main"), PathBuf::from("/r/wt one")]
        );
    }
}
