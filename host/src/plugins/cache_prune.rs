//! Dropping `.cwasm` cache entries no process will load again: compiled by another
//! engine (wasmtime version or configuration), or of a component that is neither built
//! in nor installed any more.

use std::path::{Path, PathBuf};

use super::{BUILTIN_PLUGINS, PluginEngine, PluginError, Registry};

/// Deletes the stale entries of `<root>/cache/cwasm/` and returns their paths. Temp
/// files of writes in progress and files of other shapes are left alone.
pub fn prune_cwasm_cache(engine: &PluginEngine, root: &Path) -> Result<Vec<PathBuf>, PluginError> {
    let dir = crate::paths::cwasm_cache_dir(root);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(PluginError::Io(format!(
                "cannot read {}: {e}",
                dir.display()
            )));
        }
    };
    let registry = Registry::load(root)?;
    let live: Vec<&str> = BUILTIN_PLUGINS
        .iter()
        .map(|p| p.sha256)
        .chain(registry.plugins.iter().map(|p| p.sha256.as_str()))
        .collect();
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        // A failed-compile marker goes with the entry it stands for (background.rs).
        let Some((sha256, key)) = name
            .strip_suffix(".cwasm")
            .or_else(|| name.strip_suffix(".cwasm.failed"))
            .and_then(|stem| stem.split_once('-'))
        else {
            continue;
        };
        if key == engine.cache_key() && live.contains(&sha256) {
            continue;
        }
        match std::fs::remove_file(&path) {
            Ok(()) => removed.push(path),
            Err(e) => tracing::warn!("cannot delete stale cache entry {}: {e}", path.display()),
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_entries_of_other_engines_or_unknown_components_go() {
        let root = tempfile::tempdir().unwrap();
        let dir = crate::paths::cwasm_cache_dir(root.path());
        let engine = PluginEngine::new(Some(dir.clone())).unwrap();
        let builtin = &BUILTIN_PLUGINS[0];
        engine.precompile(builtin.bytes, builtin.sha256).unwrap();
        let current = engine.cache_path(builtin.sha256).unwrap();
        let old_engine = dir.join(format!("{}-0000000000000000.cwasm", builtin.sha256));
        let unknown = dir.join(format!("{}-{}.cwasm", "ab".repeat(32), engine.cache_key()));
        let in_flight = dir.join(".x.cwasm.123.tmp");
        for stale in [&old_engine, &unknown, &in_flight] {
            std::fs::write(stale, b"x").unwrap();
        }
        let mut removed = prune_cwasm_cache(&engine, root.path()).unwrap();
        removed.sort();
        let mut expected = vec![old_engine, unknown];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(current.exists());
        assert!(in_flight.exists());
    }
}
