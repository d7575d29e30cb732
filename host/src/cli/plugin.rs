//! `cm plugin add | list | remove | verify`.

use std::path::PathBuf;

use anyhow::bail;
use clap::Subcommand;

use crate::plugins::registry::Integrity;
use crate::plugins::{BUILTIN_PLUGINS, PluginEngine, Registry};

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
}

pub fn run(command: PluginCommand) -> anyhow::Result<()> {
    let root = super::data_root()?;
    let engine = PluginEngine::new(Some(crate::paths::cwasm_cache_dir(&root)))?;
    let mut registry = Registry::load(&root)?;
    match command {
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
                "{:<8} {:<20} {:<10} {:<10} sha256",
                "kind", "id", "version", "source"
            );
            for builtin in BUILTIN_PLUGINS {
                println!(
                    "{:<8} {:<20} {:<10} {:<10} {}",
                    builtin.kind.to_string(),
                    builtin.id,
                    env!("CARGO_PKG_VERSION"),
                    "built-in",
                    &builtin.sha256[..12]
                );
            }
            for plugin in &registry.plugins {
                println!(
                    "{:<8} {:<20} {:<10} {:<10} {}",
                    plugin.kind.to_string(),
                    plugin.id,
                    plugin.version,
                    format!("installed#{}", plugin.order),
                    &plugin.sha256[..12]
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
