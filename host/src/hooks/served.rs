//! Hooks `cm serve` answers itself (ADR 27): the agent calls the server's hidden
//! `ctx_hook` tool instead of spawning `cm hook` per tool call. The same pipeline as a
//! `cm hook` process (parse → policy chain → reply → render, the same bytes), on an
//! adapter kept warm between calls, with the journal written through the server's own
//! store connection. Every failure answers the host's "allow" reply and logs one line to
//! `hook-errors.log`, as `cm hook` does: the agent goes on as if no hook had answered.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use super::error_log;
use super::failure::HookFailure;
use super::pipeline::{self, Answering, Loaded};
use crate::limits::HOOK_STDIN_MAX_BYTES;
use crate::model::Descriptor;
use crate::plugins::{Adapter, PluginEngine, Registry};
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

/// The warm adapters of this `cm serve` process, by platform id.
#[derive(Default)]
struct ServedHooks {
    warm: Mutex<HashMap<String, Warm>>,
}

/// One per process: a `cm serve` is one server.
static SERVED: std::sync::LazyLock<ServedHooks> = std::sync::LazyLock::new(ServedHooks::default);

/// Answers one hook call with exactly what `cm hook` would print on stdout, on the
/// process's warm adapters.
pub fn answer(
    engine: &PluginEngine,
    root: &Path,
    shared_store: Option<SharedStore>,
    call: &HookCall,
) -> String {
    SERVED.answer(engine, root, shared_store, call)
}

impl ServedHooks {
    fn answer(
        &self,
        engine: &PluginEngine,
        root: &Path,
        shared_store: Option<SharedStore>,
        call: &HookCall,
    ) -> String {
        let started = Instant::now();
        let log =
            |message: &str| error_log::append(Some(root), &call.platform, &call.event, message);
        let registry = Registry::load(root).unwrap_or_else(|err| {
            log(&err.to_string());
            Registry::default()
        });
        let installed = registry.adapter(&call.platform).map(|p| p.sha256.clone());
        // Taken out while in use, so calls that overlap each get an instance.
        let warm = self
            .warm
            .lock()
            .ok()
            .and_then(|mut warm| warm.remove(&call.platform))
            .filter(|warm| warm.installed == installed);
        let warm = match warm {
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
        let mut loaded = Loaded {
            adapter: warm.adapter,
            descriptor: warm.descriptor,
            binding,
        };
        let answering = Answering {
            engine,
            registry: &registry,
            root,
            shared_store,
            started,
            event_suffix: SERVED_EVENT_SUFFIX,
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
                    installed: registry.adapter(&call.platform).map(|p| p.sha256.clone()),
                },
            );
        }
        output.stdout
    }

    fn keep(&self, platform: &str, warm: Warm) {
        if let Ok(mut all) = self.warm.lock() {
            all.insert(platform.to_owned(), warm);
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
