//! Plugins: every built-in loads and describes itself; every installed one still has
//! the hash recorded at `cm plugin add` (the same verification as `cm plugin verify`)
//! and loads. Also the `.cwasm` cache, checked first, before loads add entries to it.

use std::path::Path;

use super::{Check, cache};
use crate::plugins::registry::Integrity;
use crate::plugins::{
    Adapter, BUILTIN_PLUGINS, InstalledPlugin, PluginEngine, PluginKind, Policy, Registry,
};

pub fn checks(root: Option<&Path>) -> Vec<Check> {
    let engine = match PluginEngine::new(root.map(crate::paths::cwasm_cache_dir)) {
        Ok(engine) => engine,
        Err(err) => {
            return vec![Check::fail(
                "plugin engine",
                err.to_string(),
                Some(crate::upgrade::reinstall_line()),
            )];
        }
    };
    let mut rows = Vec::new();
    if let Some(root) = root {
        rows.push(cache::check(&engine, root));
    }
    for builtin in BUILTIN_PLUGINS {
        let name = format!("plugin {} {}", builtin.kind, builtin.id);
        let loaded = engine
            .load(builtin.bytes, builtin.sha256)
            .and_then(|component| describe(&engine, builtin.kind, &component, builtin.id));
        rows.push(match loaded {
            Ok(version) => Check::pass(
                name,
                format!(
                    "built-in {version}, loads (sha256 {})",
                    &builtin.sha256[..12]
                ),
            ),
            Err(err) => Check::fail(
                name,
                format!("built-in plugin does not load: {err}"),
                Some(crate::upgrade::reinstall_line()),
            ),
        });
    }
    let Some(root) = root else {
        rows.push(Check::warn(
            "installed plugins",
            "not checked: no usable data root",
            None,
        ));
        return rows;
    };
    let registry = match Registry::load(root) {
        Ok(registry) => registry,
        Err(err) => {
            let file = crate::paths::plugins_dir(root).join("registry.json");
            rows.push(Check::fail(
                "installed plugins",
                err.to_string(),
                Some(format!(
                    "mv {} {}   # then add your plugins again with cm plugin add",
                    super::shell_path(&file),
                    super::shell_path(&file.with_extension("json.bad"))
                )),
            ));
            return rows;
        }
    };
    for (plugin, integrity) in registry.verify() {
        rows.push(installed_check(&engine, &registry, &plugin, integrity));
    }
    rows
}

fn installed_check(
    engine: &PluginEngine,
    registry: &Registry,
    plugin: &InstalledPlugin,
    integrity: Integrity,
) -> Check {
    let name = format!("plugin {} {} (installed)", plugin.kind, plugin.id);
    let remove = format!(
        "cm plugin remove {}   # then cm plugin add <its .wasm> to install it again",
        plugin.id
    );
    match integrity {
        Integrity::Missing => Check::fail(
            name,
            format!(
                "{} is missing; hooks fall back to the built-in plugins",
                registry.file_path(plugin).display()
            ),
            Some(remove),
        ),
        Integrity::Tampered { actual_sha256 } => Check::fail(
            name,
            format!(
                "file changed since install: sha256 {} but {} was recorded; it is not loaded",
                &actual_sha256[..12],
                &plugin.sha256[..12]
            ),
            Some(remove),
        ),
        Integrity::Intact => {
            let loaded = registry
                .load_component(engine, plugin)
                .and_then(|component| describe(engine, plugin.kind, &component, &plugin.id));
            match loaded {
                Ok(version) => Check::pass(
                    name,
                    format!(
                        "{version}, hash matches, loads (sha256 {})",
                        &plugin.sha256[..12]
                    ),
                ),
                Err(err) => Check::fail(name, err.to_string(), Some(remove)),
            }
        }
    }
}

/// Instantiates a component in the plugin sandbox and asks it to describe itself;
/// answers `<id> <version>, contract <version it was built for>`.
fn describe(
    engine: &PluginEngine,
    kind: PluginKind,
    component: &wasmtime::component::Component,
    label: &str,
) -> Result<String, crate::plugins::PluginError> {
    match kind {
        PluginKind::Adapter => {
            let mut adapter = Adapter::instantiate(engine, component, label)?;
            let d = adapter.describe()?;
            Ok(format!(
                "{} {}, contract {}",
                d.id,
                d.version,
                adapter.contract()
            ))
        }
        PluginKind::Policy => {
            let mut policy = Policy::instantiate(engine, component, label)?;
            let info = policy.describe()?;
            Ok(format!(
                "{} {}, contract {}",
                info.id,
                info.version,
                policy.contract()
            ))
        }
    }
}
