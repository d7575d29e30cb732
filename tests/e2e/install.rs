//! The agents' install cache, outside the clone:
//! `${CONTEXT_MODE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/context-mode-e2e}/<package>@<version>/`,
//! filled once by `npm install --prefix` under a lock (tests run in parallel) and reused
//! after. An install that cannot reach the registry fails the test with one line.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::file_lock::FileLock;

/// Written last, so a half-finished install is redone.
const DONE_MARKER: &str = ".cm-e2e-installed";

pub fn cache_root() -> PathBuf {
    crate::cache_dir::cache_dir("CONTEXT_MODE_E2E_CACHE", "context-mode-e2e")
}

/// The agent's executable, installing the package first if the cache lacks it.
pub fn installed(package: &str, version: &str, bin: &str) -> Result<PathBuf, String> {
    installed_on(
        package,
        version,
        bin,
        &std::env::var_os("PATH").unwrap_or_default(),
    )
}

/// [`installed`], npm running on `path`: a package whose install scripts need another
/// Node than the machine's (OpenClaw's refuse Node 20) gets that Node's directory first.
pub fn installed_on(
    package: &str,
    version: &str,
    bin: &str,
    path: &OsStr,
) -> Result<PathBuf, String> {
    let root = cache_root();
    let dir = root.join(format!("{package}@{version}"));
    let executable = dir.join("node_modules/.bin").join(bin);
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("e2e: cannot create {}: {e}", dir.display()))?;
    let _lock = FileLock::take(
        &root.join(format!(".lock-{}", package.replace('/', "+"))),
        "e2e",
    )?;
    if dir.join(DONE_MARKER).exists() && executable.exists() {
        return Ok(executable);
    }
    let spec = format!("{package}@{version}");
    let output = Command::new("npm")
        .env("PATH", path)
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"])
        .arg(&dir)
        .arg(&spec)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("e2e: cannot run npm to install {spec} ({e}); the real-agent tests need Node.js and npm"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let signs = [
            "ENOTFOUND",
            "EAI_AGAIN",
            "ECONNREFUSED",
            "ETIMEDOUT",
            "ECONNRESET",
            "network",
        ];
        let signal = stderr
            .lines()
            .find(|l| signs.iter().any(|sign| l.contains(sign)));
        let unreachable = signal.is_some();
        let detail = signal
            .or_else(|| stderr.lines().find(|l| l.contains("npm error")))
            .unwrap_or("no output")
            .trim();
        return Err(if unreachable {
            format!(
                "e2e: the npm registry cannot be reached, so {spec} cannot be installed (npm: {detail})"
            )
        } else {
            format!("e2e: npm could not install {spec} (npm: {detail})")
        });
    }
    if !executable.exists() {
        return Err(format!(
            "e2e: {spec} installed but has no {bin} in node_modules/.bin"
        ));
    }
    std::fs::write(dir.join(DONE_MARKER), &spec).map_err(|e| {
        format!(
            "e2e: cannot write the install marker in {}: {e}",
            dir.display()
        )
    })?;
    Ok(executable)
}
