//! `cm plugin add | list | remove | verify`.

use std::path::PathBuf;

use anyhow::bail;
use clap::Subcommand;

use crate::plugins::registry::Integrity;
use crate::plugins::{
    Adapter, BUILTIN_PLUGINS, BuiltinPlugin, ContractVersion, PluginEngine, PluginKind, Registry,
};

#[derive(Subcommand)]
pub enum PluginCommand {
    /// Install a plugin component (.wasm): validated, described in the sandbox, precompiled.
    Add { file: PathBuf },
    /// List built-in and installed plugins.
    List,
    /// Uninstall a plugin by id (the built-in one with that id takes over again).
    Remove { id: String },
    /// Re-hash installed plugins and report any file changed since install.
    Verify,
    /// Write a new plugin project (Rust, JavaScript or Python) that builds and installs as it is.
    New(super::plugin_new::NewArgs),
}

pub fn run(command: PluginCommand) -> anyhow::Result<()> {
    let root = super::data_root()?;
    let engine = PluginEngine::new(Some(crate::paths::cwasm_cache_dir(&root)))?;
    let mut registry = Registry::load(&root)?;
    match command {
        PluginCommand::New(args) => return super::plugin_new::run(args),
        PluginCommand::Add { file } => {
            let installed = registry
                .add(&engine, &file)
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let overrides = BUILTIN_PLUGINS
                .iter()
                .any(|b| b.kind == installed.kind && b.id == installed.id);
            println!(
                "added {} {} {} (sha256 {}){}",
                installed.kind,
                installed.id,
                installed.version,
                &installed.sha256[..12],
                if overrides {
                    ", overriding the built-in one"
                } else {
                    ""
                }
            );
        }
        PluginCommand::List => {
            println!(
                "{:<8} {:<20} {:<10} {:<9} {:<12} {:<12} env-vars",
                "kind", "id", "version", "contract", "source", "sha256"
            );
            for builtin in BUILTIN_PLUGINS {
                println!(
                    "{:<8} {:<20} {:<10} {:<9} {:<12} {:<12} {}",
                    builtin.kind.to_string(),
                    builtin.id,
                    env!("CARGO_PKG_VERSION"),
                    // Built from this checkout's newest contract (host/build.rs).
                    ContractVersion::NEWEST.number(),
                    "built-in",
                    &builtin.sha256[..12],
                    env_column(&builtin_env_vars(&engine, builtin))
                );
            }
            for plugin in &registry.plugins {
                let contract = registry
                    .contract_of(&engine, plugin)
                    .map_or_else(|_| "?".to_string(), |v| v.to_string());
                println!(
                    "{:<8} {:<20} {:<10} {:<9} {:<12} {:<12} {}",
                    plugin.kind.to_string(),
                    plugin.id,
                    plugin.version,
                    contract,
                    format!("installed#{}", plugin.order),
                    &plugin.sha256[..12],
                    env_column(&plugin.env_vars)
                );
            }
        }
        PluginCommand::Remove { id } => {
            for removed in registry.remove(&engine, &id)? {
                println!("removed {} {}", removed.kind, removed.id);
            }
        }
        PluginCommand::Verify => {
            let mut bad = 0;
            for (plugin, integrity) in registry.verify() {
                match integrity {
                    Integrity::Intact => println!("ok       {} {}", plugin.kind, plugin.id),
                    Integrity::Missing => {
                        bad += 1;
                        println!(
                            "MISSING  {} {}: reinstall with `cm plugin add`",
                            plugin.kind, plugin.id
                        );
                    }
                    Integrity::Tampered { actual_sha256 } => {
                        bad += 1;
                        println!(
                            "TAMPERED {} {}: sha256 {} != installed {}; it will not be loaded — `cm plugin remove {}` and add it again",
                            plugin.kind,
                            plugin.id,
                            &actual_sha256[..12],
                            &plugin.sha256[..12],
                            plugin.id
                        );
                    }
                }
            }
            if bad > 0 {
                bail!("{bad} plugin(s) failed verification");
            }
        }
    }
    Ok(())
}

/// The variables an adapter reads from the environment, for `list`; `-` for none.
fn env_column(names: &[String]) -> String {
    if names.is_empty() {
        "-".into()
    } else {
        names.join(",")
    }
}

/// A built-in adapter's env-vars, as its descriptor states them (policies read none).
fn builtin_env_vars(engine: &PluginEngine, builtin: &BuiltinPlugin) -> Vec<String> {
    if builtin.kind != PluginKind::Adapter {
        return Vec::new();
    }
    engine
        .load(builtin.bytes, builtin.sha256)
        .and_then(|c| Adapter::instantiate(engine, &c, builtin.id))
        .and_then(|mut adapter| adapter.describe())
        .map(|d| d.env_vars)
        .unwrap_or_else(|err| vec![format!("? ({err})")])
}
