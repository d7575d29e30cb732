//! `cm plugin add | list | remove | verify | compile | new`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::bail;
use clap::Subcommand;

use crate::plugins::background;
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
    /// Compile every plugin with no compiled cache entry for this cm (hooks never compile
    /// a large plugin themselves: they skip it and start this in the background).
    Compile {
        /// Started by a hook: no output, and leave it to a compile already running.
        #[arg(long, hide = true)]
        background: bool,
    },
    /// Write a new plugin project (Rust, JavaScript or Python) that builds and installs as it is.
    New(super::plugin_new::NewArgs),
}

pub fn run(command: PluginCommand) -> anyhow::Result<()> {
    // Writing a project needs no data root, engine or registry.
    if let PluginCommand::New(args) = command {
        return super::plugin_new::run(args);
    }
    let root = super::data_root()?;
    let engine = PluginEngine::new(Some(crate::paths::cwasm_cache_dir(&root)))?;
    let mut registry = Registry::load(&root)?;
    match command {
        PluginCommand::Add { file } => add(&engine, &mut registry, &file)?,
        PluginCommand::Compile { background } => compile(&engine, &registry, background)?,
        // Handled above, before the data root is needed.
        PluginCommand::New(_) => {}
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

/// Installs one component, saying what it is doing while the compile runs (seconds for
/// an 18 MB Python component).
fn add(engine: &PluginEngine, registry: &mut Registry, file: &Path) -> anyhow::Result<()> {
    use std::io::IsTerminal;
    let started = Instant::now();
    let announced = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // Announced at a terminal, or when it takes seconds; a refusal stays one line.
    let flag = announced.clone();
    let mut announce = |size: u64| {
        if std::io::stderr().is_terminal() || size > crate::limits::PLUGIN_INLINE_COMPILE_MAX_BYTES
        {
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
            eprintln!(
                "compiling {} ({}) for this machine…",
                file.display(),
                crate::human::bytes(size)
            );
        }
    };
    let added = with_progress(started, announced, || {
        registry.add(engine, file, &mut announce)
    })
    .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let installed = &added.plugin;
    let overrides = BUILTIN_PLUGINS
        .iter()
        .any(|b| b.kind == installed.kind && b.id == installed.id);
    println!(
        "added {} {} {} (sha256 {}) in {:.1} s{}",
        installed.kind,
        installed.id,
        installed.version,
        &installed.sha256[..12],
        started.elapsed().as_secs_f64(),
        if overrides {
            ", overriding the built-in one"
        } else {
            ""
        }
    );
    if !added.unprovided.is_empty() {
        println!(
            "note: it imports {}, which cm does not give plugins: each is linked as a trap, so a call to one fails that plugin call (see docs/PLUGINS.md)",
            added.unprovided.join(", ")
        );
    }
    Ok(())
}

/// Runs `work`, printing the elapsed time to stderr every few seconds until it returns,
/// once `shown` is set (the work was announced).
fn with_progress<T>(
    started: Instant,
    shown: std::sync::Arc<std::sync::atomic::AtomicBool>,
    work: impl FnOnce() -> T,
) -> T {
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let ticker = std::thread::spawn(move || {
        while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            finished.recv_timeout(Duration::from_secs(PROGRESS_EVERY_SECS))
        {
            if shown.load(std::sync::atomic::Ordering::Relaxed) {
                eprintln!("  … {} s", started.elapsed().as_secs());
            }
        }
    });
    let result = work();
    drop(done);
    let _ = ticker.join();
    result
}

/// How often a long compile says it is still running.
const PROGRESS_EVERY_SECS: u64 = 3;

fn compile(engine: &PluginEngine, registry: &Registry, background: bool) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut announce = |plugin: &crate::plugins::InstalledPlugin| {
        if !background {
            eprintln!("compiling {} {}…", plugin.kind, plugin.id);
        }
    };
    let Some(compiled) = with_progress_if(!background, started, || {
        background::compile_missing(engine, registry, !background, &mut announce)
    }) else {
        if !background {
            println!("no plugin cache directory; nothing to compile");
        }
        return Ok(());
    };
    if background {
        return Ok(());
    }
    let mut failed = 0;
    for done in &compiled {
        match &done.outcome {
            Ok(took) => println!(
                "compiled {} {} in {:.1} s",
                done.plugin.kind,
                done.plugin.id,
                took.as_secs_f64()
            ),
            Err(err) => {
                failed += 1;
                println!("FAILED   {} {}: {err}", done.plugin.kind, done.plugin.id);
            }
        }
    }
    if compiled.is_empty() {
        println!("every plugin is compiled for this cm");
    }
    if failed > 0 {
        bail!("{failed} plugin(s) could not be compiled");
    }
    Ok(())
}

fn with_progress_if<T>(show: bool, started: Instant, work: impl FnOnce() -> T) -> T {
    let shown = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    if show {
        with_progress(started, shown, work)
    } else {
        work()
    }
}
