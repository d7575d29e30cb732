//! Installed plugins: `<root>/plugins/registry.json` plus one `<sha256>.wasm` per plugin.
//! `cm plugin add | list | remove | verify` work on it; hooks read it to find overrides.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wasmtime::component::Component;

use super::contract::ContractVersion;
use super::{Adapter, PluginEngine, PluginError, PluginKind, Policy};
use crate::paths;

const REGISTRY_FILE: &str = "registry.json";
const REGISTRY_FORMAT: u32 = 1;

/// One installed plugin as recorded at `add` time.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct InstalledPlugin {
    pub id: String,
    pub kind: PluginKind,
    pub version: String,
    pub sha256: String,
    /// File name under `<root>/plugins/`.
    pub file: String,
    /// Position among installed policies (lower runs first).
    pub order: u32,
    pub size_bytes: u64,
    /// Modification time at install, to notice tampering without hashing on every hook.
    pub mtime_ns: u128,
    /// For an adapter: the environment variables it asked for (and passed the rule).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_vars: Vec<String>,
    /// The contract version it was built for; absent in records of a `cm` before 0.3.0
    /// of the contract (then [`Registry::contract_of`] asks the component).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<ContractVersion>,
}

/// What `add` installed, and the interfaces it imports that cm links as traps.
#[derive(Debug)]
pub struct Added {
    pub plugin: InstalledPlugin,
    pub unprovided: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Registry {
    format: u32,
    pub plugins: Vec<InstalledPlugin>,
    #[serde(skip)]
    dir: PathBuf,
}

/// The state of one installed plugin file, as `verify` sees it.
#[derive(Debug, PartialEq, Eq)]
pub enum Integrity {
    Intact,
    Missing,
    Tampered { actual_sha256: String },
}

impl Registry {
    /// Reads the registry; a missing file is an empty registry.
    pub fn load(root: &Path) -> Result<Self, PluginError> {
        let dir = paths::plugins_dir(root);
        let path = dir.join(REGISTRY_FILE);
        let mut registry = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<Registry>(&bytes).map_err(|e| {
                PluginError::Io(format!(
                    "{} is not a valid plugin registry: {e}",
                    path.display()
                ))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Registry::default(),
            Err(e) => {
                return Err(PluginError::Io(format!(
                    "cannot read {}: {e}",
                    path.display()
                )));
            }
        };
        registry.dir = dir;
        Ok(registry)
    }

    fn save(&self) -> Result<(), PluginError> {
        let io =
            |e: std::io::Error| PluginError::Io(format!("cannot write the plugin registry: {e}"));
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        let text = serde_json::to_string_pretty(&Registry {
            format: REGISTRY_FORMAT,
            plugins: self.plugins.clone(),
            dir: PathBuf::new(),
        })
        .map_err(|e| PluginError::Io(e.to_string()))?;
        let tmp = self
            .dir
            .join(format!(".{REGISTRY_FILE}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, self.dir.join(REGISTRY_FILE)).map_err(io)
    }

    /// The installed adapter overriding the built-in one with this id, if any.
    pub fn adapter(&self, id: &str) -> Option<&InstalledPlugin> {
        self.plugins
            .iter()
            .find(|p| p.kind == PluginKind::Adapter && p.id == id)
    }

    /// Installed policies in the order they run.
    pub fn policies(&self) -> Vec<&InstalledPlugin> {
        let mut policies: Vec<_> = self
            .plugins
            .iter()
            .filter(|p| p.kind == PluginKind::Policy)
            .collect();
        policies.sort_by_key(|p| p.order);
        policies
    }

    pub fn file_path(&self, plugin: &InstalledPlugin) -> PathBuf {
        self.dir.join(&plugin.file)
    }

    /// Loads an installed plugin for running: refuses a file whose size or mtime moved
    /// since install unless its hash still matches, so a tampered file never runs.
    /// Compiles it when the cache has no entry, however long that takes: for commands a
    /// person runs. Hooks and the server use [`Registry::load_compiled`].
    pub fn load_component(
        &self,
        engine: &PluginEngine,
        plugin: &InstalledPlugin,
    ) -> Result<Component, PluginError> {
        if self.is_unchanged(plugin) {
            // The cache entry was compiled from the bytes verified at install.
            if let Some(component) = engine.load_cached(&plugin.sha256) {
                return Ok(component);
            }
        }
        let bytes = self.verified_bytes(plugin)?;
        engine.load(&bytes, &plugin.sha256)
    }

    /// Loads an installed plugin without compiling a large one: on the path of a hook or
    /// a tool call, a plugin with no compiled cache entry over
    /// `PLUGIN_INLINE_COMPILE_MAX_BYTES` is skipped for this call and compiled by a
    /// detached `cm plugin compile` instead (ADR 24). A small one compiles inline.
    pub fn load_compiled(
        &self,
        engine: &PluginEngine,
        plugin: &InstalledPlugin,
    ) -> Result<Component, PluginError> {
        let unchanged = self.is_unchanged(plugin);
        if unchanged && let Some(component) = engine.load_cached(&plugin.sha256) {
            return Ok(component);
        }
        if plugin.size_bytes <= crate::limits::PLUGIN_INLINE_COMPILE_MAX_BYTES {
            return self.load_component(engine, plugin);
        }
        if !unchanged {
            // A moved stamp: the hash says whether the file may run at all.
            let _ = self.verified_bytes(plugin)?;
            if let Some(component) = engine.load_cached(&plugin.sha256) {
                return Ok(component);
            }
        }
        let label = format!("{} {}", plugin.kind, plugin.id);
        if let Some(failure) = super::background::failure_of(engine, &plugin.sha256) {
            return Err(PluginError::Compile(format!("{label}: {failure}")));
        }
        super::background::request(engine);
        Err(PluginError::NotCompiled { plugin: label })
    }

    /// The installed file's size and modification time now, when it is there.
    pub fn stamp_of(&self, plugin: &InstalledPlugin) -> Option<(u64, u128)> {
        file_stamp(&self.file_path(plugin))
    }

    /// The registry file's size and modification time, when it is there: what a process
    /// that keeps the registry loaded compares before reading it again.
    pub fn file_stamp(root: &Path) -> Option<(u64, u128)> {
        file_stamp(&paths::plugins_dir(root).join(REGISTRY_FILE))
    }

    fn is_unchanged(&self, plugin: &InstalledPlugin) -> bool {
        file_stamp(&self.file_path(plugin))
            .is_some_and(|(size, mtime)| size == plugin.size_bytes && mtime == plugin.mtime_ns)
    }

    /// The installed plugins whose compiled cache entry is missing for this engine.
    pub fn uncompiled(&self, engine: &PluginEngine) -> Vec<&InstalledPlugin> {
        self.plugins
            .iter()
            .filter(|p| {
                engine
                    .cache_path(&p.sha256)
                    .is_some_and(|path| !path.is_file())
            })
            .collect()
    }

    /// Compiles an installed plugin (after its hash check) and writes its cache entry.
    pub fn compile(
        &self,
        engine: &PluginEngine,
        plugin: &InstalledPlugin,
    ) -> Result<(), PluginError> {
        let bytes = self.verified_bytes(plugin)?;
        engine.precompile(&bytes, &plugin.sha256)
    }

    fn verified_bytes(&self, plugin: &InstalledPlugin) -> Result<Vec<u8>, PluginError> {
        let path = self.file_path(plugin);
        let bytes = super::file::read_bounded(&path).map_err(|e| {
            PluginError::Io(format!("plugin {} ({}): {e}", plugin.id, path.display()))
        })?;
        let actual = sha256_hex(&bytes);
        if actual != plugin.sha256 {
            return Err(PluginError::Invalid(format!(
                "{} failed its hash check (file changed since install); run `cm plugin verify`",
                plugin.id
            )));
        }
        Ok(bytes)
    }

    /// Re-hashes every installed file.
    pub fn verify(&self) -> Vec<(InstalledPlugin, Integrity)> {
        self.plugins
            .iter()
            .map(|plugin| {
                let integrity = match super::file::read_bounded(&self.file_path(plugin)) {
                    Err(_) => Integrity::Missing,
                    Ok(bytes) => {
                        let actual = sha256_hex(&bytes);
                        if actual == plugin.sha256 {
                            Integrity::Intact
                        } else {
                            Integrity::Tampered {
                                actual_sha256: actual,
                            }
                        }
                    }
                };
                (plugin.clone(), integrity)
            })
            .collect()
    }

    /// Validates a component file, compiles it once (the `.cwasm` written then is what
    /// hooks load), describes it in the sandbox, copies it in by hash and records it.
    /// Replaces an installed plugin of the same kind and id.
    /// `before_compile` is told the size just before the compile starts, for progress.
    pub fn add(
        &mut self,
        engine: &PluginEngine,
        file: &Path,
        before_compile: &mut dyn FnMut(u64),
    ) -> Result<Added, PluginError> {
        let bytes = super::file::read_bounded(file)?;
        check_magic(&bytes)?;
        let sha256 = sha256_hex(&bytes);
        before_compile(bytes.len() as u64);
        let serialized = engine.compile_to_bytes(&bytes)?;
        let component = engine.deserialize(&serialized)?;
        let (kind, contract) = super::contract::classify(engine, &component)?;
        let unprovided = engine.unprovided_imports(&component)?;
        let label = file.display().to_string();
        let (id, version, env_vars) = match kind {
            PluginKind::Adapter => {
                // describe refuses env-vars outside the rule (ADR 0013).
                let d = Adapter::instantiate(engine, &component, &label)?.describe()?;
                (d.id, d.version, d.env_vars)
            }
            PluginKind::Policy => {
                let info = Policy::instantiate(engine, &component, &label)?.describe()?;
                (info.id, info.version, Vec::new())
            }
        };
        validate_id(&id)?;
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| PluginError::Io(format!("cannot create {}: {e}", self.dir.display())))?;
        let stored = format!("{sha256}.wasm");
        let stored_path = self.dir.join(&stored);
        std::fs::write(&stored_path, &bytes)
            .map_err(|e| PluginError::Io(format!("cannot write {}: {e}", stored_path.display())))?;
        engine.store_compiled(&sha256, &serialized)?;
        let (size_bytes, mtime_ns) = file_stamp(&stored_path)
            .ok_or_else(|| PluginError::Io(format!("cannot stat {}", stored_path.display())))?;
        let previous = self
            .plugins
            .iter()
            .position(|p| p.kind == kind && p.id == id);
        let order = match previous {
            Some(i) => self.plugins[i].order,
            None => self.plugins.iter().map(|p| p.order + 1).max().unwrap_or(0),
        };
        let installed = InstalledPlugin {
            id,
            kind,
            version,
            sha256,
            file: stored,
            order,
            size_bytes,
            mtime_ns,
            env_vars,
            contract: Some(contract),
        };
        if let Some(i) = previous {
            let old = self.plugins.remove(i);
            self.plugins.insert(i, installed.clone());
            self.forget_file(engine, &old);
        } else {
            self.plugins.push(installed.clone());
        }
        self.save()?;
        Ok(Added {
            plugin: installed,
            unprovided,
        })
    }

    /// The contract version an installed plugin speaks: as recorded at `add`, else as
    /// its (cached) component says.
    pub fn contract_of(
        &self,
        engine: &PluginEngine,
        plugin: &InstalledPlugin,
    ) -> Result<ContractVersion, PluginError> {
        match plugin.contract {
            Some(version) => Ok(version),
            None => {
                let component = self.load_component(engine, plugin)?;
                super::contract::classify(engine, &component).map(|(_, version)| version)
            }
        }
    }

    /// Uninstalls every plugin with this id; returns what was removed.
    pub fn remove(
        &mut self,
        engine: &PluginEngine,
        id: &str,
    ) -> Result<Vec<InstalledPlugin>, PluginError> {
        let (removed, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.plugins)
            .into_iter()
            .partition(|p| p.id == id);
        self.plugins = kept;
        if removed.is_empty() {
            return Err(PluginError::Invalid(format!("{id} is not installed")));
        }
        self.save()?;
        for plugin in &removed {
            self.forget_file(engine, plugin);
        }
        Ok(removed)
    }

    /// Deletes a plugin's file and cache entry unless another record still uses them.
    fn forget_file(&self, engine: &PluginEngine, plugin: &InstalledPlugin) {
        if self.plugins.iter().any(|p| p.sha256 == plugin.sha256) {
            return;
        }
        let _ = std::fs::remove_file(self.file_path(plugin));
        if let Some(cwasm) = engine.cache_path(&plugin.sha256) {
            let _ = std::fs::remove_file(cwasm);
        }
    }
}

/// Refuses what is not a wasm component, with a message that says what to do.
fn check_magic(bytes: &[u8]) -> Result<(), PluginError> {
    match bytes.get(..8) {
        Some([0, b'a', b's', b'm', _, _, 1, 0]) => Ok(()),
        Some([0, b'a', b's', b'm', ..]) => Err(PluginError::Invalid(
            "is a core wasm module, not a component; build it for wasm32-wasip2 (or run `wasm-tools component new`)".into(),
        )),
        _ => Err(PluginError::Invalid("is not a wasm file".into())),
    }
}

fn validate_id(id: &str) -> Result<(), PluginError> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(PluginError::Invalid(format!(
            "id {id:?} must be 1-64 chars of a-z, 0-9, '-' or '_'"
        )))
    }
}

fn file_stamp(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((meta.len(), mtime))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}
