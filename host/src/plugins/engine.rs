//! The wasmtime engine every plugin runs on, the `.cwasm` precompile cache, and the
//! empty sandbox (no files, env, network or clock) each plugin call gets.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use wasmtime::component::types::ComponentItem;
use wasmtime::component::{Component, Instance, InstancePre, Linker, ResourceTable, ResourceType};
use wasmtime::{Config, Engine, Store, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use crate::limits::{
    PLUGIN_CALL_TIMEOUT_MS, PLUGIN_EPOCH_TICK_MS, PLUGIN_INSTANCES_MAX, PLUGIN_MEMORIES_MAX,
    PLUGIN_MEMORY_MAX_BYTES, PLUGIN_TABLES_MAX,
};

use super::PluginError;

/// The wasmtime release `cm` is built against; part of the cache key.
const WASMTIME_VERSION: &str = "48.0.8";

/// Per-store state: an empty WASI context and the memory limiter.
pub struct PluginState {
    wasi: WasiCtx,
    table: ResourceTable,
    limits: StoreLimits,
}

impl WasiView for PluginState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// A clock stuck at zero: plugins are pure and get no time.
struct FrozenClock;

impl wasmtime_wasi::HostWallClock for FrozenClock {
    fn resolution(&self) -> Duration {
        Duration::from_secs(1)
    }
    fn now(&self) -> Duration {
        Duration::ZERO
    }
}

impl wasmtime_wasi::HostMonotonicClock for FrozenClock {
    fn resolution(&self) -> u64 {
        1_000_000_000
    }
    fn now(&self) -> u64 {
        0
    }
}

/// The engine, its linker and the cache directory, shared by every plugin of a process.
#[derive(Clone)]
pub struct PluginEngine {
    inner: Arc<EngineInner>,
}

struct EngineInner {
    engine: Engine,
    linker: OnceLock<Result<Linker<PluginState>, String>>,
    cache_dir: Option<PathBuf>,
    cache_key: String,
    ticker: OnceLock<()>,
    /// Components this process loaded, by sha256, each behind its own lock: a plugin is
    /// deserialized (or compiled) once, and calls that want it at the same moment wait
    /// for that one load instead of loading it again (a burst of first hooks, ADR 35).
    loaded: Mutex<HashMap<String, Arc<Mutex<Option<Component>>>>>,
    /// Components linked against the linker, by the address of their code (a memoized
    /// component keeps its address for the life of the process): instantiating is then
    /// only the instance's own work.
    linked: Mutex<HashMap<usize, InstancePre<PluginState>>>,
}

impl PluginEngine {
    /// An engine whose precompiled artifacts live in `cache_dir` (none: compile every time).
    pub fn new(cache_dir: Option<PathBuf>) -> Result<Self, PluginError> {
        let engine = Engine::new(&engine_config()).map_err(PluginError::engine)?;
        let cache_key = cache_key(&engine);
        Ok(Self {
            inner: Arc::new(EngineInner {
                engine,
                linker: OnceLock::new(),
                cache_dir,
                cache_key,
                ticker: OnceLock::new(),
                loaded: Mutex::new(HashMap::new()),
                linked: Mutex::new(HashMap::new()),
            }),
        })
    }

    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// Loads a component: the cached `.cwasm` when it deserializes, else compiles and
    /// (re)writes the cache entry. Any load error of an entry is a miss, never fatal.
    /// Loaded once per process: later calls (and calls waiting on this one) share it.
    pub fn load(&self, bytes: &[u8], sha256: &str) -> Result<Component, PluginError> {
        let slot = self.slot(sha256);
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(component) = slot.as_ref() {
            return Ok(component.clone());
        }
        let component = match self.deserialize_cached(sha256) {
            Some(component) => component,
            None => self.compile_and_cache(bytes, sha256)?,
        };
        *slot = Some(component.clone());
        Ok(component)
    }

    fn compile_and_cache(&self, bytes: &[u8], sha256: &str) -> Result<Component, PluginError> {
        let Some(path) = self.cache_path(sha256) else {
            return Component::new(&self.inner.engine, bytes).map_err(PluginError::compile);
        };
        let serialized = self
            .inner
            .engine
            .precompile_component(bytes)
            .map_err(PluginError::compile)?;
        if let Err(err) = store_in_cache(&path, &serialized) {
            tracing::debug!("cannot write cwasm cache {}: {err}", path.display());
        }
        // SAFETY: `serialized` was produced just now by this engine.
        unsafe { Component::deserialize(&self.inner.engine, &serialized) }
            .map_err(PluginError::compile)
    }

    /// The cached artifact of a component, when there is one this engine accepts;
    /// deserialized once per process (see [`PluginEngine::load`]).
    pub fn load_cached(&self, sha256: &str) -> Option<Component> {
        let slot = self.slot(sha256);
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(component) = slot.as_ref() {
            return Some(component.clone());
        }
        let component = self.deserialize_cached(sha256)?;
        *slot = Some(component.clone());
        Some(component)
    }

    /// Whether the cache entry of this hash is there and this engine accepts it, read
    /// from the file itself (what `cm doctor` and the background compile must know,
    /// whatever this process already holds).
    pub fn cached_entry_loads(&self, sha256: &str) -> bool {
        self.deserialize_cached(sha256).is_some()
    }

    /// The lock that one load of the component with this hash happens under.
    fn slot(&self, sha256: &str) -> Arc<Mutex<Option<Component>>> {
        let mut loaded = self.inner.loaded.lock().unwrap_or_else(|p| p.into_inner());
        loaded.entry(sha256.to_owned()).or_default().clone()
    }

    fn deserialize_cached(&self, sha256: &str) -> Option<Component> {
        let path = self.cache_path(sha256)?;
        if !path.is_file() {
            return None;
        }
        // SAFETY: entries are written only by `store_in_cache` (temp file + rename, so
        // never partial) into the user's own data root; wasmtime checks the header and
        // the engine compatibility, and any error is treated as a miss.
        match unsafe { Component::deserialize_file(&self.inner.engine, &path) } {
            Ok(component) => Some(component),
            Err(err) => {
                tracing::debug!("cwasm cache miss for {}: {err}", path.display());
                None
            }
        }
    }

    /// Compiles a component and writes its cache entry, replacing a stale one.
    pub fn precompile(&self, bytes: &[u8], sha256: &str) -> Result<(), PluginError> {
        let serialized = self.compile_to_bytes(bytes)?;
        self.store_compiled(sha256, &serialized)
    }

    /// Compiles a component to this engine's serialized artifact (the slow step: ~100 ms
    /// for a Rust guest, seconds for an 18 MB Python one).
    pub fn compile_to_bytes(&self, bytes: &[u8]) -> Result<Vec<u8>, PluginError> {
        self.inner
            .engine
            .precompile_component(bytes)
            .map_err(PluginError::compile)
    }

    /// Loads an artifact [`PluginEngine::compile_to_bytes`] just produced.
    pub fn deserialize(&self, serialized: &[u8]) -> Result<Component, PluginError> {
        // SAFETY: callers pass bytes this engine serialized in this process.
        unsafe { Component::deserialize(&self.inner.engine, serialized) }
            .map_err(PluginError::compile)
    }

    /// Writes a compiled artifact as the cache entry of the component with this hash.
    pub fn store_compiled(&self, sha256: &str, serialized: &[u8]) -> Result<(), PluginError> {
        if let Some(path) = self.cache_path(sha256) {
            store_in_cache(&path, serialized)
                .map_err(|e| PluginError::Io(format!("cannot write {}: {e}", path.display())))?;
            super::background::forget_failure(self, sha256);
        }
        Ok(())
    }

    /// The directory of the compiled artifacts, when there is one.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.inner.cache_dir.as_deref()
    }

    /// Where the artifact of a component with this hash lives, for this engine.
    pub fn cache_path(&self, sha256: &str) -> Option<PathBuf> {
        self.inner
            .cache_dir
            .as_ref()
            .map(|dir| dir.join(format!("{sha256}-{}.cwasm", self.inner.cache_key)))
    }

    /// The engine part of every cache file name.
    pub fn cache_key(&self) -> &str {
        &self.inner.cache_key
    }

    pub(super) fn linker(&self) -> Result<&Linker<PluginState>, PluginError> {
        self.inner
            .linker
            .get_or_init(|| {
                let mut linker = Linker::new(&self.inner.engine);
                wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
                    .map_err(|e| crate::human::first_line(&e.to_string()).to_string())?;
                Ok(linker)
            })
            .as_ref()
            .map_err(|e| PluginError::Engine(e.clone()))
    }

    /// Instantiates `component` in `store`. WASI is linked with the empty context; an
    /// import cm does not provide (`wasi:http`, a vendor interface) is linked as a trap,
    /// so a default toolchain build loads and fails only if it calls one (ADR 24).
    pub(super) fn instantiate(
        &self,
        store: &mut Store<PluginState>,
        component: &Component,
    ) -> Result<Instance, wasmtime::Error> {
        let key = component.image_range().start as usize;
        let linked = self
            .inner
            .linked
            .lock()
            .ok()
            .and_then(|linked| linked.get(&key).cloned());
        let pre = match linked {
            Some(pre) => pre,
            None => {
                let pre = match self.linker() {
                    Ok(linker) => match linker.instantiate_pre(component) {
                        Ok(pre) => pre,
                        Err(_) => self.resolve(component)?.pre,
                    },
                    Err(err) => wasmtime::bail!("{err}"),
                };
                if let Ok(mut linked) = self.inner.linked.lock() {
                    linked.insert(key, pre.clone());
                }
                pre
            }
        };
        pre.instantiate(store)
    }

    /// The interfaces `component` imports that cm does not provide (each linked as a
    /// trap), for `cm plugin add` to name.
    pub fn unprovided_imports(&self, component: &Component) -> Result<Vec<String>, PluginError> {
        let linker = self.linker()?;
        if linker.instantiate_pre(component).is_ok() {
            return Ok(Vec::new());
        }
        self.resolve(component)
            .map(|resolved| resolved.unprovided)
            .map_err(PluginError::engine)
    }

    /// Links every interface the base linker lacks as traps, one at a time, naming each;
    /// whatever cannot be named that way (a partly provided interface) goes to wasmtime's
    /// own stubbing.
    fn resolve(&self, component: &Component) -> Result<Resolved, wasmtime::Error> {
        let mut linker = match self.linker() {
            Ok(linker) => linker.clone(),
            Err(err) => wasmtime::bail!("{err}"),
        };
        let engine = &self.inner.engine;
        let imports: Vec<(String, ComponentItem)> = component
            .component_type()
            .imports(engine)
            .map(|(name, import)| (name.to_string(), import.ty))
            .collect();
        let mut unprovided = Vec::new();
        for _ in 0..=imports.len() {
            let err = match linker.instantiate_pre(component) {
                Ok(pre) => return Ok(Resolved { pre, unprovided }),
                Err(err) => err,
            };
            let Some(name) = unprovided_instance(&err.to_string()) else {
                return Err(err);
            };
            let Some(ComponentItem::ComponentInstance(instance)) = imports
                .iter()
                .find(|(import, _)| *import == name)
                .map(|(_, item)| item)
            else {
                return Err(err);
            };
            let stubbed = (|| -> Result<(), wasmtime::Error> {
                let mut into = linker.instance(&name)?;
                for (export, item) in instance.exports(engine) {
                    match item.ty {
                        ComponentItem::ComponentFunc(_) => {
                            let qualified = format!("{name}#{export}");
                            into.func_new(export, move |_, _, _, _| {
                                wasmtime::bail!(
                                    "{UNKNOWN_IMPORT_PREFIX}{qualified}` has not been defined"
                                )
                            })?;
                        }
                        ComponentItem::Resource(_) => {
                            into.resource(export, ResourceType::host::<()>(), |_, _| Ok(()))?;
                        }
                        _ => {}
                    }
                }
                Ok(())
            })();
            unprovided.push(name);
            if stubbed.is_err() {
                // Defined in part (another minor version of a WASI interface, say).
                let mut rest = match self.linker() {
                    Ok(linker) => linker.clone(),
                    Err(err) => wasmtime::bail!("{err}"),
                };
                rest.define_unknown_imports_as_traps(component)?;
                let pre = rest.instantiate_pre(component)?;
                return Ok(Resolved { pre, unprovided });
            }
        }
        let pre = linker.instantiate_pre(component)?;
        Ok(Resolved { pre, unprovided })
    }

    /// A fresh store with an empty WASI context, the memory limit and a deadline armed
    /// per call (see [`arm_deadline`]).
    pub(super) fn new_store(&self) -> Store<PluginState> {
        self.start_ticker();
        let mut wasi = WasiCtxBuilder::new();
        wasi.allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .wall_clock(FrozenClock)
            .monotonic_clock(FrozenClock);
        let state = PluginState {
            wasi: wasi.build(),
            table: ResourceTable::new(),
            limits: StoreLimitsBuilder::new()
                .memory_size(PLUGIN_MEMORY_MAX_BYTES)
                .instances(PLUGIN_INSTANCES_MAX)
                .tables(PLUGIN_TABLES_MAX)
                .memories(PLUGIN_MEMORIES_MAX)
                .build(),
        };
        let mut store = Store::new(&self.inner.engine, state);
        store.limiter(|state| &mut state.limits);
        store.epoch_deadline_trap();
        store
    }

    /// Epoch interruption needs something to advance the epoch: one detached thread per
    /// engine, started on first use, which ticks only while a call into a guest runs
    /// (a [`Ticking`] lives): an idle `cm serve` would otherwise wake 100 times a second
    /// for hours.
    fn start_ticker(&self) {
        self.inner.ticker.get_or_init(|| {
            let engine = self.inner.engine.clone();
            let spawned = std::thread::Builder::new()
                .name("cm-plugin-epoch".into())
                .spawn(move || {
                    loop {
                        if CALLS_RUNNING.load(Ordering::Acquire) == 0 {
                            // A call that starts after the check unparks this thread, and
                            // an unpark before the park makes it return at once.
                            std::thread::park();
                            continue;
                        }
                        std::thread::sleep(Duration::from_millis(PLUGIN_EPOCH_TICK_MS));
                        engine.increment_epoch();
                    }
                });
            match spawned {
                Ok(handle) => {
                    if let Ok(mut tickers) = TICKERS.lock() {
                        tickers.push(handle.thread().clone());
                    }
                }
                Err(err) => tracing::warn!("no plugin deadline timer: {err}"),
            }
        });
    }
}

/// Calls into guests running now, in any engine of this process.
static CALLS_RUNNING: AtomicUsize = AtomicUsize::new(0);
/// The engines' epoch threads, woken when a call starts.
static TICKERS: Mutex<Vec<std::thread::Thread>> = Mutex::new(Vec::new());

/// Keeps the epoch ticking while a call into a guest runs: from [`arm_deadline`] to the
/// end of the caller's scope.
#[must_use = "the deadline only passes while the Ticking is held across the call"]
pub(super) struct Ticking(());

impl Ticking {
    fn start() -> Ticking {
        if CALLS_RUNNING.fetch_add(1, Ordering::AcqRel) == 0
            && let Ok(tickers) = TICKERS.lock()
        {
            for ticker in tickers.iter() {
                ticker.unpark();
            }
        }
        Ticking(())
    }
}

impl Drop for Ticking {
    fn drop(&mut self) {
        CALLS_RUNNING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A component with its imports resolved, and the interfaces linked as traps.
struct Resolved {
    pre: InstancePre<PluginState>,
    unprovided: Vec<String>,
}

/// How wasmtime (and our stubs) begin the error of a call to an import linked as a trap.
pub(super) const UNKNOWN_IMPORT_PREFIX: &str = "unknown import: `";

/// The interface named by wasmtime's "component imports instance `x`, but a matching
/// implementation was not found in the linker".
fn unprovided_instance(message: &str) -> Option<String> {
    let rest = message.strip_prefix("component imports instance `")?;
    let (name, tail) = rest.split_once('`')?;
    tail.contains("matching implementation was not found")
        .then(|| name.to_string())
}

/// Arms the per-call deadline on a store before each call into the guest; hold the
/// [`Ticking`] until the call returned.
pub(super) fn arm_deadline(store: &mut Store<PluginState>) -> Ticking {
    arm_deadline_ms(store, PLUGIN_CALL_TIMEOUT_MS)
}

/// Arms a deadline of `ms` (at least one epoch tick) before a call into the guest.
pub(super) fn arm_deadline_ms(store: &mut Store<PluginState>, ms: u64) -> Ticking {
    store.set_epoch_deadline(ms.div_ceil(PLUGIN_EPOCH_TICK_MS).max(1));
    Ticking::start()
}

fn engine_config() -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true);
    config.epoch_interruption(true);
    // Backtraces of guests are never shown (errors are one line) and cost time to capture.
    config.wasm_backtrace_max_frames(None);
    config.cranelift_opt_level(wasmtime::OptLevel::Speed);
    config
}

/// A short, stable digest of everything that decides whether a `.cwasm` fits this engine.
fn cache_key(engine: &Engine) -> String {
    use sha2::{Digest, Sha256};
    use std::hash::{Hash, Hasher};
    // DefaultHasher::new() uses fixed keys, so the digest is stable across processes.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut hasher);
    let digest = Sha256::digest(format!("{WASMTIME_VERSION}:{:016x}", hasher.finish()));
    hex::encode(&digest[..8])
}

fn store_in_cache(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
