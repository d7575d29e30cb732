//! Compiling installed plugins off the hook path (ADR 24). A hook that meets a large
//! plugin with no compiled cache entry skips it for that call and starts one detached
//! `cm plugin compile --background`; an exclusive file lock on `<cwasm dir>/.compile.lock` keeps it to
//! one at a time, and a compile that fails leaves `<entry>.failed` so hooks stop asking
//! until `cm plugin compile` (or a new install) tries again.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::{BUILTIN_PLUGINS, InstalledPlugin, PluginEngine, PluginError, Registry};

const LOCK_FILE: &str = ".compile.lock";
const FAILED_SUFFIX: &str = ".failed";

/// Starts a detached background compile unless one is running. Never waits for it and
/// never fails the caller: a hook that cannot start it logs nothing and goes on.
pub fn request(engine: &PluginEngine) {
    let Some(dir) = engine.cache_dir() else {
        return;
    };
    if CompileLock::try_take(dir).is_none() {
        return;
    }
    let Ok(cm) = std::env::current_exe() else {
        return;
    };
    let mut command = std::process::Command::new(cm);
    command
        .args(["plugin", "compile", "--background"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    crate::platform::process::detach(&mut command);
    let spawned = command.spawn();
    if let Err(err) = spawned {
        tracing::debug!("cannot start a background plugin compile: {err}");
    }
}

/// Starts a background compile when an installed plugin has no compiled entry for this
/// cm: what `cm serve` does at start, so a new `cm` (a new engine key) has its plugins
/// ready before the agent's first tool call.
pub fn request_if_missing(root: &Path) {
    let Ok(engine) = PluginEngine::new(Some(crate::paths::cwasm_cache_dir(root))) else {
        return;
    };
    let Ok(registry) = Registry::load(root) else {
        return;
    };
    let waiting = registry
        .uncompiled(&engine)
        .iter()
        .any(|plugin| failure_of(&engine, &plugin.sha256).is_none());
    if waiting {
        request(&engine);
    }
}

/// Why the last compile of this component failed, if it did.
pub fn failure_of(engine: &PluginEngine, sha256: &str) -> Option<String> {
    let path = failure_path(engine, sha256)?;
    let text = std::fs::read_to_string(path).ok()?;
    Some(crate::human::first_line(&text).to_string())
}

pub(super) fn forget_failure(engine: &PluginEngine, sha256: &str) {
    if let Some(path) = failure_path(engine, sha256) {
        let _ = std::fs::remove_file(path);
    }
}

fn failure_path(engine: &PluginEngine, sha256: &str) -> Option<PathBuf> {
    let entry = engine.cache_path(sha256)?;
    let mut name = entry.file_name()?.to_os_string();
    name.push(FAILED_SUFFIX);
    Some(entry.with_file_name(name))
}

/// One plugin `compile_missing` compiled, or failed to.
pub struct Compiled<'a> {
    pub plugin: &'a InstalledPlugin,
    pub outcome: Result<std::time::Duration, PluginError>,
}

/// Compiles every installed plugin (and built-in) with no cache entry for this engine,
/// under the compile lock. `wait`: block until another compile finishes (a person ran
/// the command) instead of leaving it to that one (`None`). `before` is called as each
/// installed plugin starts, for progress.
pub fn compile_missing<'a>(
    engine: &PluginEngine,
    registry: &'a Registry,
    wait: bool,
    before: &mut dyn FnMut(&InstalledPlugin),
) -> Option<Vec<Compiled<'a>>> {
    let dir = engine.cache_dir()?;
    let _lock = if wait {
        CompileLock::take(dir)?
    } else {
        CompileLock::try_take(dir)?
    };
    for builtin in BUILTIN_PLUGINS {
        if !engine.cached_entry_loads(builtin.sha256)
            && let Err(err) = engine.precompile(builtin.bytes, builtin.sha256)
        {
            tracing::warn!("built-in {} {}: {err}", builtin.kind, builtin.id);
        }
    }
    let mut done = Vec::new();
    for plugin in registry.uncompiled(engine) {
        before(plugin);
        let started = std::time::Instant::now();
        let outcome = registry.compile(engine, plugin).map(|()| started.elapsed());
        if let Err(err) = &outcome
            && let Some(path) = failure_path(engine, &plugin.sha256)
        {
            let _ = std::fs::write(path, err.to_string());
        }
        done.push(Compiled { plugin, outcome });
    }
    Some(done)
}

/// An exclusive lock on the compile lock file (`flock` on Unix, `LockFileEx` on
/// Windows, through std), released when dropped.
struct CompileLock(File);

impl CompileLock {
    fn open(dir: &Path) -> Option<File> {
        std::fs::create_dir_all(dir).ok()?;
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK_FILE))
            .ok()
    }

    /// The lock if nobody holds it.
    fn try_take(dir: &Path) -> Option<Self> {
        let file = Self::open(dir)?;
        file.try_lock().ok().map(|()| Self(file))
    }

    /// The lock, waiting for its holder.
    fn take(dir: &Path) -> Option<Self> {
        let file = Self::open(dir)?;
        file.lock().ok().map(|()| Self(file))
    }
}

impl Drop for CompileLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}
