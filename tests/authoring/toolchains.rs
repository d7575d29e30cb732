//! The JavaScript and Python component toolchains, installed from their registries into a
//! cache outside the clone:
//! `${CONTEXT_MODE_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/context-mode-toolchains}/`
//! - `jco@<v>+componentize-js@<v>/`: `npm install --prefix` of jco and componentize-js
//!   (jco's `componentize` loads componentize-js from the same `node_modules`);
//! - `componentize-py@<v>/`: a Python venv with componentize-py from PyPI;
//! - `npm-cache/`: npm's download cache, also handed to the templates' `npm install`.
//!
//! Each install runs once under a lock (tests run in parallel, and so may test
//! processes), finishes by writing a marker, and is reused after; a half-finished one is
//! redone. An install that cannot reach its registry fails the test with one line.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::file_lock::FileLock;

pub const JCO_VERSION: &str = "1.35.0";
pub const COMPONENTIZE_JS_VERSION: &str = "0.23.0";
pub const COMPONENTIZE_PY_VERSION: &str = "0.25.1";

/// Written last, so a half-finished install is redone.
const DONE_MARKER: &str = ".cm-toolchain-installed";

/// Lines of npm's or pip's stderr that mean the registry is out of reach.
const UNREACHABLE_SIGNS: &[&str] = &[
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "ETIMEDOUT",
    "ECONNRESET",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Failed to establish a new connection",
    "Network is unreachable",
    "Connection refused",
    "ProxyError",
];

pub fn cache_root() -> PathBuf {
    crate::cache_dir::cache_dir("CONTEXT_MODE_TOOLCHAIN_CACHE", "context-mode-toolchains")
}

/// npm's download cache inside the toolchain cache (`npm_config_cache`).
pub fn npm_cache() -> PathBuf {
    cache_root().join("npm-cache")
}

/// The directory with the `jco` executable, installing jco and componentize-js first
/// when the cache lacks them.
pub fn jco_bin_dir() -> Result<PathBuf, String> {
    let root = cache_root();
    let dir = root.join(format!(
        "jco@{JCO_VERSION}+componentize-js@{COMPONENTIZE_JS_VERSION}"
    ));
    let bin = dir.join("node_modules/.bin");
    install_once(&root, &dir, &bin.join("jco"), || {
        let specs = [
            format!("@bytecodealliance/jco@{JCO_VERSION}"),
            format!("@bytecodealliance/componentize-js@{COMPONENTIZE_JS_VERSION}"),
        ];
        let mut npm = Command::new("npm");
        npm.args([
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
        ])
        .arg(&dir)
        .args(&specs)
        .env("npm_config_cache", npm_cache());
        run_installer(npm, "npm", &specs.join(" "), "Node.js and npm")
    })?;
    Ok(bin)
}

/// The directory with the `componentize-py` executable (a venv's `bin/`), installing it
/// from PyPI first when the cache lacks it.
pub fn componentize_py_bin_dir() -> Result<PathBuf, String> {
    let root = cache_root();
    let dir = root.join(format!("componentize-py@{COMPONENTIZE_PY_VERSION}"));
    let bin = dir.join("bin");
    install_once(&root, &dir, &bin.join("componentize-py"), || {
        let mut venv = Command::new("python3");
        venv.args(["-m", "venv", "--clear"]).arg(&dir);
        run_installer(venv, "python3 -m venv", "a venv", "Python 3 with venv")?;
        let spec = format!("componentize-py=={COMPONENTIZE_PY_VERSION}");
        let mut pip = Command::new(bin.join("python"));
        pip.args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--quiet",
            "--timeout",
            "30",
            "--retries",
            "1",
        ])
        .arg(&spec);
        run_installer(pip, "pip", &spec, "Python 3 with pip")
    })?;
    Ok(bin)
}

/// `PATH` with the given tool directories first.
pub fn path_with(dirs: &[PathBuf]) -> OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(dirs.iter().cloned().chain(std::env::split_paths(&rest))).unwrap_or(rest)
}

/// Runs `install` unless `dir` holds a finished install with `executable` in it.
fn install_once(
    root: &Path,
    dir: &Path,
    executable: &Path,
    install: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("toolchains: cannot create {}: {e}", dir.display()))?;
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let _lock = FileLock::take(&root.join(format!(".lock-{name}")), "toolchains")?;
    if dir.join(DONE_MARKER).exists() && executable.exists() {
        return Ok(());
    }
    install()?;
    if !executable.exists() {
        return Err(format!(
            "toolchains: {name} installed but has no {}",
            executable.display()
        ));
    }
    std::fs::write(dir.join(DONE_MARKER), &name).map_err(|e| {
        format!(
            "toolchains: cannot write the install marker in {}: {e}",
            dir.display()
        )
    })
}

/// Runs one installer step; its failure becomes one line that says whether the
/// registry was out of reach.
fn run_installer(mut command: Command, tool: &str, what: &str, needs: &str) -> Result<(), String> {
    let output: Output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("toolchains: cannot run {tool} to install {what} ({e}); the authoring tests need {needs}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let signal = stderr
        .lines()
        .find(|l| UNREACHABLE_SIGNS.iter().any(|sign| l.contains(sign)));
    let detail = signal
        .or_else(|| {
            stderr
                .lines()
                .rev()
                .find(|l| l.contains("error") || l.contains("ERROR"))
        })
        .or_else(|| stderr.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("no output")
        .trim();
    Err(if signal.is_some() {
        format!(
            "toolchains: the registry cannot be reached, so {what} cannot be installed ({tool}: {detail})"
        )
    } else {
        format!("toolchains: {tool} could not install {what} ({tool}: {detail})")
    })
}
