//! Where this `cm` came from and the exact commands that rebuild and reinstall it from
//! that source. Nothing is downloaded here: the commands are for a person or an agent.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The version of this binary.
pub const INSTALLED_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The source tree this binary was built from (recorded at build time).
pub fn source_dir() -> PathBuf {
    let host = Path::new(env!("CARGO_MANIFEST_DIR"));
    host.parent().unwrap_or(host).to_path_buf()
}

/// What is at the recorded source tree now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The tree is there: its workspace version and, for a git checkout, its commit.
    Present {
        version: Option<String>,
        commit: Option<String>,
        git: bool,
    },
    /// The tree was moved or deleted since the build.
    Missing,
}

#[derive(Debug, Clone)]
pub struct UpgradeInfo {
    pub installed_version: &'static str,
    pub source_dir: PathBuf,
    pub source: Source,
    /// Commands to run in order, each a full shell line.
    pub commands: Vec<String>,
}

pub fn info() -> UpgradeInfo {
    info_for(&source_dir())
}

pub fn info_for(repo: &Path) -> UpgradeInfo {
    let source = if repo.join("host").join("Cargo.toml").is_file() {
        Source::Present {
            version: workspace_version(repo),
            commit: git_commit(repo),
            git: repo.join(".git").exists(),
        }
    } else {
        Source::Missing
    };
    let mut commands = Vec::new();
    if let Source::Present { git, .. } = &source {
        let repo_arg = shell_word(&repo.display().to_string());
        if *git {
            commands.push(format!("git -C {repo_arg} pull --ff-only"));
        }
        commands.push(format!(
            "cargo install --locked --path {}",
            shell_word(&repo.join("host").display().to_string())
        ));
        commands.push(format!(
            "{} upgrade",
            shell_word(&installed_cm().display().to_string())
        ));
    }
    UpgradeInfo {
        installed_version: INSTALLED_VERSION,
        source_dir: repo.to_path_buf(),
        source,
        commands,
    }
}

/// The report both `cm upgrade` and `ctx_upgrade` give.
pub fn report(info: &UpgradeInfo) -> String {
    let mut lines = vec![format!("installed: cm {}", info.installed_version)];
    match &info.source {
        Source::Present {
            version, commit, ..
        } => lines.push(format!(
            "source: {} (version {}{})",
            info.source_dir.display(),
            version.as_deref().unwrap_or("unknown"),
            commit
                .as_deref()
                .map(|c| format!(", commit {c}"))
                .unwrap_or_default()
        )),
        Source::Missing => lines.push(format!(
            "source: {} no longer exists; clone context-mode again and run `cargo install --locked --path <clone>/host`",
            info.source_dir.display()
        )),
    }
    if !info.commands.is_empty() {
        lines.push("to rebuild, reinstall and refresh the agents' hooks, run:".into());
        lines.extend(info.commands.iter().map(|c| format!("  {c}")));
    }
    lines.join("\n")
}

fn workspace_version(repo: &Path) -> Option<String> {
    let text = std::fs::read_to_string(repo.join("Cargo.toml")).ok()?;
    let doc: toml::Table = toml::from_str(&text).ok()?;
    doc.get("workspace")?
        .get("package")?
        .get("version")?
        .as_str()
        .map(str::to_owned)
}

fn git_commit(repo: &Path) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["rev-parse", "--short=12", "HEAD"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let commit = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (output.status.success() && !commit.is_empty()).then_some(commit)
}

/// Where `cargo install` puts binaries: `$CARGO_INSTALL_ROOT/bin`, `$CARGO_HOME/bin`,
/// else `~/.cargo/bin`.
fn cargo_bin() -> PathBuf {
    let set = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    set("CARGO_INSTALL_ROOT")
        .or_else(|| set("CARGO_HOME"))
        .or_else(|| crate::paths::home_dir().map(|h| h.join(".cargo")))
        .unwrap_or_else(|| PathBuf::from("~/.cargo"))
        .join("bin")
}

/// The `cm` that `cargo install` writes (`cm.exe` on Windows).
fn installed_cm() -> PathBuf {
    cargo_bin().join(crate::platform::Os::current().executable_name("cm"))
}

/// A path as one shell word: bare when safe, else single-quoted.
fn shell_word(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,~".contains(c))
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_tree_is_found_with_its_version() {
        let info = info();
        let Source::Present { version, .. } = &info.source else {
            panic!("the source tree of this test build exists");
        };
        assert_eq!(version.as_deref(), Some(INSTALLED_VERSION));
        assert!(
            info.commands
                .iter()
                .any(|c| c.starts_with("cargo install --locked --path "))
        );
        // The binary cargo installed, by its file name on this OS (`cm.exe` on Windows).
        let cm = cargo_bin().join(crate::platform::Os::current().executable_name("cm"));
        let upgrade = format!("{} upgrade", shell_word(&cm.display().to_string()));
        assert_eq!(info.commands.last(), Some(&upgrade));
    }

    #[test]
    fn a_missing_tree_is_said_plainly() {
        let info = info_for(Path::new("/nonexistent/context-mode"));
        assert_eq!(info.source, Source::Missing);
        assert!(info.commands.is_empty());
        assert!(report(&info).contains("no longer exists"));
        assert_eq!(shell_word("/a b/c'd"), r"'/a b/c'\''d'");
    }
}
