//! Where a test binary caches what it installs from a registry, outside the clone:
//! `${<override>:-${XDG_CACHE_HOME:-$HOME/.cache}/<name>}`. Shared by the `e2e` and
//! `authoring` test binaries (each includes it with `#[path]`).

use std::path::PathBuf;

pub fn cache_dir(override_var: &str, name: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(override_var).filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
        })
        .join(name)
}
