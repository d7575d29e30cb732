//! The `.cwasm` cache: every entry compiled for this engine must load. Entries of
//! another `cm` or wasmtime build are never used and only take space.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Check, shell_path};
use crate::plugins::PluginEngine;

const NAME: &str = "cwasm cache";

pub fn check(engine: &PluginEngine, root: &Path) -> Check {
    let dir = crate::paths::cwasm_cache_dir(root);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Check::pass(NAME, "empty (filled on first use)");
        }
        Err(e) => {
            return Check::warn(
                NAME,
                format!("cannot read {}: {e}", dir.display()),
                Some(format!("chmod u+rwx {}", shell_path(&dir))),
            );
        }
    };
    let mut current = 0usize;
    let mut broken = Vec::new();
    // Stale entries by the engine key in their name: (count, bytes).
    let mut stale: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(stem) = name.strip_suffix(".cwasm") else {
            continue;
        };
        let Some((sha256, key)) = stem.rsplit_once('-') else {
            continue;
        };
        if key != engine.cache_key() {
            let slot = stale.entry(key.to_string()).or_default();
            slot.0 += 1;
            slot.1 += entry.metadata().map(|m| m.len()).unwrap_or(0);
        } else if engine.cached_entry_loads(sha256) {
            current += 1;
        } else {
            broken.push(path);
        }
    }
    if !broken.is_empty() {
        let files: Vec<String> = broken.iter().map(|p| shell_path(p)).collect();
        return Check::warn(
            NAME,
            format!(
                "{} of {} entries for this engine do not load (each is recompiled, slowly, on every hook call until rewritten)",
                broken.len(),
                broken.len() + current
            ),
            Some(format!("rm -f {}", files.join(" "))),
        );
    }
    if !stale.is_empty() {
        let count: usize = stale.values().map(|(n, _)| n).sum();
        let bytes: u64 = stale.values().map(|(_, b)| b).sum();
        let patterns: Vec<String> = stale
            .keys()
            .map(|key| format!("{}/*-{key}.cwasm", shell_path(&dir)))
            .collect();
        return Check::warn(
            NAME,
            format!(
                "{current} entries load with this engine; {count} more ({} KB) are from another cm or wasmtime build and are never used",
                bytes.div_ceil(1024)
            ),
            Some(format!("rm -f {}", patterns.join(" "))),
        );
    }
    let noun = if current == 1 { "entry" } else { "entries" };
    Check::pass(NAME, format!("{current} {noun}, all load with this engine"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::Status;

    #[test]
    fn stale_and_broken_entries_warn_and_nothing_is_deleted() {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = crate::paths::cwasm_cache_dir(root.path());
        let engine = PluginEngine::new(Some(dir.clone())).expect("engine");
        assert_eq!(check(&engine, root.path()).status, Status::Pass);

        let builtin = &crate::plugins::BUILTIN_PLUGINS[0];
        engine
            .precompile(builtin.bytes, builtin.sha256)
            .expect("precompile");
        let row = check(&engine, root.path());
        assert_eq!(row.status, Status::Pass, "{}", row.detail);
        assert_eq!(row.detail, "1 entry, all load with this engine");

        std::fs::write(dir.join("abc-0123456789abcdef.cwasm"), b"old").expect("write");
        let row = check(&engine, root.path());
        assert_eq!(row.status, Status::Warn);
        assert!(
            row.fix
                .as_deref()
                .is_some_and(|f| f.ends_with("/*-0123456789abcdef.cwasm")),
            "{:?}",
            row.fix
        );

        let own = engine.cache_path("feed").expect("path");
        std::fs::write(&own, b"garbage").expect("write");
        let row = check(&engine, root.path());
        assert_eq!(row.status, Status::Warn);
        assert!(
            row.detail
                .starts_with("1 of 2 entries for this engine do not load"),
            "{}",
            row.detail
        );
        assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 3);
    }
}
