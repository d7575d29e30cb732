//! Hooks `cm serve` answers itself (ADR 27): the agent calls the server's hidden
//! `ctx_hook` tool instead of spawning `cm hook` per tool call. The same pipeline as a
//! `cm hook` process (parse → policy chain → reply → render, the same bytes), on an
//! adapter kept warm between calls, with the journal written through the server's own
//! store connection. Every failure answers the host's "allow" reply and logs one line to
//! `hook-errors.log`, as `cm hook` does: the agent goes on as if no hook had answered.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use super::error_log;
use super::failure::HookFailure;
use super::pipeline::{self, Answering, Loaded};
use crate::limits::{HOOK_STDIN_MAX_BYTES, SERVED_HOOK_IDLE_INSTANCES_MAX};
use crate::model::Descriptor;
use crate::plugins::{Adapter, ChainPool, PluginEngine, Registry};
use crate::service::continuity::SharedStore;

/// The suffix of the event name a served hook's timings are kept under, so `ctx_stats`
/// shows them apart from `cm hook` processes.
pub const SERVED_EVENT_SUFFIX: &str = " (served)";

/// One hook call as the agent hands it over: `cm hook <platform> <event>` and its stdin.
#[derive(Debug, Clone)]
pub struct HookCall {
    pub platform: String,
    pub event: String,
    /// The host's hook payload (for Claude Code, rebuilt by its interpolation and
    /// marked so; the adapter turns it back).
    pub payload: serde_json::Value,
}

/// An adapter instance between calls, with the registry entry it was loaded for.
struct Warm {
    adapter: Adapter,
    descriptor: Descriptor,
    /// The installed plugin's sha256, `None` for the built-in: a `cm plugin add` or
    /// `remove` while the server runs is seen on the next call.
    installed: Option<String>,
}

/// The registry as last read, with the stamp of its file then.
type CachedRegistry = (Option<(u64, u128)>, Arc<Registry>);

/// What the served hooks of this `cm serve` keep between calls (ADR 35): idle adapter
/// instances by platform, idle policy chains, the registry (read again only when its
/// file changes), and a store connection of their own, so a hook never queues behind a
/// tool call (a long `ctx_index`) holding the server's.
#[derive(Default)]
struct ServedHooks {
    warm: Mutex<HashMap<String, Vec<Warm>>>,
    chains: ChainPool,
    registry: Mutex<Option<CachedRegistry>>,
    store: OnceLock<Option<SharedStore>>,
}

/// One per process: a `cm serve` is one server.
static SERVED: std::sync::LazyLock<ServedHooks> = std::sync::LazyLock::new(ServedHooks::default);

/// Where a served hook runs: the server's engine, data root and project.
#[derive(Clone, Copy)]
pub struct Server<'a> {
    pub engine: &'a PluginEngine,
    pub root: &'a Path,
    /// The server's project, whose store the hooks write through a connection of their
    /// own; `None` when the server has no project.
    pub project: Option<&'a Path>,
}

/// Answers one hook call with exactly what `cm hook` would print on stdout, on the
/// process's warm adapters and policy chains.
pub fn answer(server: Server<'_>, call: &HookCall) -> String {
    SERVED.answer(server, call)
}

/// Loads, once, what the first hooks need: the hooks' store connection, the registry,
/// an instance of each named platform's adapter and a policy chain (the built-in policy
/// and the installed ones, whatever their language). Run by `cm serve` in the
/// background right after the handshake; calls that arrive meanwhile share each load
/// (the engine loads a plugin once, ADR 35) instead of repeating it.
pub fn warm(server: Server<'_>, platforms: &[String]) {
    SERVED.warm(server, platforms);
}

/// Whether a call of this platform would find what it needs loaded: an idle adapter
/// instance and an idle policy chain. Such a call takes well under a millisecond, so the
/// server answers it on the thread it arrived on (`mcp::tools`, ADR 35).
pub fn answers_at_once(platform: &str) -> bool {
    SERVED.chains.idle() > 0
        && SERVED
            .warm
            .lock()
            .is_ok_and(|warm| warm.get(platform).is_some_and(|idle| !idle.is_empty()))
}

impl ServedHooks {
    fn warm(&self, server: Server<'_>, platforms: &[String]) {
        let log = |message: &str| error_log::append(Some(server.root), "serve", "warm-up", message);
        let _ = self.store(server);
        let registry = self.registry(server.root, &log);
        for platform in platforms {
            let installed = registry.adapter(platform).map(|p| p.sha256.clone());
            let idle = self
                .warm
                .lock()
                .map(|warm| warm.get(platform).is_some_and(|idle| !idle.is_empty()))
                .unwrap_or(false);
            if idle {
                continue;
            }
            match pipeline::load_described(server.engine, &registry, platform, &log) {
                Ok((adapter, descriptor)) => self.keep(
                    platform,
                    Warm {
                        adapter,
                        descriptor,
                        installed,
                    },
                ),
                Err(failure) => tracing::debug!("warm-up of {platform}: {failure}"),
            }
        }
        if self.chains.idle() == 0 {
            let taken = self.chains.take(server.engine, &registry);
            self.chains.give_back(taken);
        }
    }

    /// The registry, read again only when its file changed since the last read.
    fn registry(&self, root: &Path, log: &dyn Fn(&str)) -> Arc<Registry> {
        let stamp = Registry::file_stamp(root);
        if let Ok(cached) = self.registry.lock()
            && let Some((at, registry)) = cached.as_ref()
            && *at == stamp
        {
            return registry.clone();
        }
        let registry = Arc::new(Registry::load(root).unwrap_or_else(|err| {
            log(&err.to_string());
            Registry::default()
        }));
        if let Ok(mut cached) = self.registry.lock() {
            *cached = Some((stamp, registry.clone()));
        }
        registry
    }

    /// The hooks' own connection to the server project's store, opened once.
    fn store(&self, server: Server<'_>) -> Option<SharedStore> {
        self.store
            .get_or_init(|| {
                let project = server.project?;
                match SharedStore::open(server.root, project) {
                    Ok(store) => Some(store),
                    Err(err) => {
                        tracing::warn!("served hooks: cannot open the project store: {err}");
                        None
                    }
                }
            })
            .clone()
    }

    /// An idle instance of the platform's adapter loaded for the current registry entry.
    fn take(&self, platform: &str, installed: Option<&String>) -> Option<Warm> {
        let mut warm = self.warm.lock().ok()?;
        let idle = warm.get_mut(platform)?;
        // Instances of another registry entry (a plugin added or removed) go.
        idle.retain(|w| w.installed.as_ref() == installed);
        idle.pop()
    }

    fn answer(&self, server: Server<'_>, call: &HookCall) -> String {
        let started = Instant::now();
        let (engine, root) = (server.engine, server.root);
        let log =
            |message: &str| error_log::append(Some(root), &call.platform, &call.event, message);
        let registry = self.registry(root, &log);
        let installed = registry.adapter(&call.platform).map(|p| p.sha256.clone());
        // Taken out while in use, so calls that overlap each get an instance.
        let warm = match self.take(&call.platform, installed.as_ref()) {
            Some(warm) => warm,
            None => match pipeline::load_described(engine, &registry, &call.platform, &log) {
                Ok((adapter, descriptor)) => Warm {
                    adapter,
                    descriptor,
                    installed,
                },
                Err(failure) => {
                    log(&failure.to_string());
                    return String::new();
                }
            },
        };
        let binding = match pipeline::binding_for(&warm.descriptor, &call.event) {
            Ok(binding) => binding,
            Err(failure) => {
                log(&failure.to_string());
                self.keep(&call.platform, warm);
                return String::new();
            }
        };
        let installed = warm.installed;
        let mut loaded = Loaded {
            adapter: warm.adapter,
            descriptor: warm.descriptor,
            binding,
        };
        let answering = Answering {
            engine,
            registry: &registry,
            root,
            shared_store: self.store(server),
            started,
            event_suffix: SERVED_EVENT_SUFFIX,
            chains: Some(&self.chains),
            in_server: true,
        };
        let outcome = stdin_of(&call.payload)
            .and_then(|stdin| pipeline::answer(&answering, &mut loaded, stdin, &log));
        let (output, healthy) = match outcome {
            Ok(output) => (output, true),
            Err(failure) => {
                log(&failure.to_string());
                // A plugin error may have poisoned the instance: it is not kept.
                let healthy = !matches!(failure, HookFailure::Plugin(_));
                let allow = pipeline::no_opinion_output(&mut loaded).unwrap_or_default();
                (allow, healthy)
            }
        };
        if output.exit_code != 0 || !output.stderr.is_empty() {
            // No exit code or stderr reaches the agent through a tool result: an adapter
            // that answers with them is not one to serve in-server.
            log(&format!(
                "the adapter answered with exit code {} and {} B on stderr, which a served hook cannot pass on",
                output.exit_code,
                output.stderr.len()
            ));
        }
        if healthy {
            let Loaded {
                adapter,
                descriptor,
                ..
            } = loaded;
            self.keep(
                &call.platform,
                Warm {
                    adapter,
                    descriptor,
                    installed,
                },
            );
        }
        output.stdout
    }

    fn keep(&self, platform: &str, warm: Warm) {
        if let Ok(mut all) = self.warm.lock() {
            let idle = all.entry(platform.to_owned()).or_default();
            if idle.len() < SERVED_HOOK_IDLE_INSTANCES_MAX {
                idle.push(warm);
            }
        }
    }
}

/// The payload as the stdin text the adapter parses, under `cm hook`'s size cap.
fn stdin_of(payload: &serde_json::Value) -> Result<String, HookFailure> {
    let text = payload.to_string();
    if text.len() > HOOK_STDIN_MAX_BYTES {
        return Err(HookFailure::StdinTooLarge);
    }
    Ok(text)
}
