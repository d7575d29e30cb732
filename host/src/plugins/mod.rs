//! The plugin host: loads WIT-defined wasm components (platform adapters and routing
//! policies) with wasmtime, each call sandboxed, time- and memory-bounded.

pub mod adapter;
pub mod background;
pub mod cache_prune;
pub mod chain;
pub mod contract;
pub mod engine;
pub mod env_vars;
pub mod file;
pub mod policy;
pub mod registry;

pub use adapter::Adapter;
pub use chain::{ChainOutcome, ChainPool, PolicyChain};
pub use contract::ContractVersion;
pub use engine::PluginEngine;
pub use policy::Policy;
pub use registry::{Added, InstalledPlugin, Registry};

/// Which world a plugin implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginKind {
    Adapter,
    Policy,
}

impl std::fmt::Display for PluginKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PluginKind::Adapter => "adapter",
            PluginKind::Policy => "policy",
        })
    }
}

/// A plugin compiled from this repository and embedded in `cm`.
pub struct BuiltinPlugin {
    pub id: &'static str,
    pub kind: PluginKind,
    pub sha256: &'static str,
    pub bytes: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/builtin_plugins.rs"));

/// The built-in plugin of this kind and id.
pub fn builtin(kind: PluginKind, id: &str) -> Option<&'static BuiltinPlugin> {
    BUILTIN_PLUGINS
        .iter()
        .find(|p| p.kind == kind && p.id == id)
}

/// What went wrong with a plugin; every message is one line.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum PluginError {
    #[error("plugin engine: {0}")]
    Engine(String),
    #[error("plugin does not compile: {0}")]
    Compile(String),
    #[error("plugin {0}")]
    Invalid(String),
    #[error("plugin {plugin} timed out after {ms} ms")]
    Timeout { plugin: String, ms: u64 },
    #[error("plugin {plugin} skipped: the policy chain's {budget_ms} ms budget is spent")]
    Skipped { plugin: String, budget_ms: u64 },
    #[error("plugin {plugin} trapped: {message}")]
    Trap { plugin: String, message: String },
    #[error("plugin {plugin} returned garbage: {message}")]
    Garbage { plugin: String, message: String },
    #[error(
        "plugin {plugin} called {import}, which cm does not give plugins{}",
        unprovided_hint(import)
    )]
    Unprovided { plugin: String, import: String },
    #[error("plugin {plugin} went over a sandbox limit: {limit}")]
    Limit { plugin: String, limit: String },
    #[error(
        "plugin {plugin} skipped: it is not compiled for this cm yet (a background compile was started; `cm plugin compile` does it now)"
    )]
    NotCompiled { plugin: String },
    #[error("{0}")]
    Io(String),
}

impl PluginError {
    fn engine(err: wasmtime::Error) -> Self {
        Self::Engine(crate::human::first_line(&err.to_string()).to_string())
    }

    fn compile(err: wasmtime::Error) -> Self {
        // The headline alone ("failed to parse WebAssembly module") says nothing of why.
        Self::Compile(compile_message(&format!("{err:#}")))
    }

    /// A timeout names the deadline the call actually had (a chain's budget may give less).
    fn with_deadline_ms(self, ms: u64) -> Self {
        match self {
            Self::Timeout { plugin, .. } => Self::Timeout { plugin, ms },
            other => other,
        }
    }

    /// True when the instance trapped (a timeout is a trap): it cannot be entered again.
    pub fn poisons_instance(&self) -> bool {
        // An import linked as a trap unwinds the guest mid-call, like a trap.
        matches!(
            self,
            Self::Timeout { .. } | Self::Trap { .. } | Self::Unprovided { .. }
        )
    }

    /// Classifies an error raised by a call into a guest.
    fn from_call(plugin: &str, err: wasmtime::Error) -> Self {
        let plugin = plugin.to_string();
        match err.downcast_ref::<wasmtime::Trap>() {
            Some(wasmtime::Trap::Interrupt) => Self::Timeout {
                plugin,
                ms: crate::limits::PLUGIN_CALL_TIMEOUT_MS,
            },
            Some(trap) => Self::Trap {
                plugin,
                message: crate::human::first_line(&trap.to_string()).to_string(),
            },
            None => {
                let message = err.to_string();
                let chain = format!("{err:#}");
                if let Some(import) = unknown_import(&chain) {
                    return Self::Unprovided { plugin, import };
                }
                if let Some(limit) = store_limit(&chain) {
                    return Self::Limit { plugin, limit };
                }
                // Lifting invalid values (bad UTF-8, out-of-bounds pointers, bad discriminants).
                Self::Garbage {
                    plugin,
                    message: crate::human::first_line(&message).to_string(),
                }
            }
        }
    }
}

/// The interface of the trapping import named in `chain` (`wasi:http/types@0.2.10` of
/// "unknown import: `wasi:http/types@0.2.10#[constructor]fields` has not been defined").
fn unknown_import(chain: &str) -> Option<String> {
    let start = chain.find(engine::UNKNOWN_IMPORT_PREFIX)? + engine::UNKNOWN_IMPORT_PREFIX.len();
    let name = chain[start..].split('`').next()?;
    Some(name.split('#').next().unwrap_or(name).to_string())
}

/// A compile error's whole cause chain on one line, bounded, with what to change when
/// the cause is a toolchain default this `cm` cannot run.
fn compile_message(chain: &str) -> String {
    const COMPILE_ERROR_MAX_CHARS: usize = 400;
    let mut message: String = crate::human::one_line(chain)
        .chars()
        .take(COMPILE_ERROR_MAX_CHARS)
        .collect();
    if chain.contains("async") {
        message.push_str(
            "; the component uses component-model async built-ins, which this cm does not run: rebuild without them (jco: `--backend-qjs-disable-async`)",
        );
    }
    message
}

/// What to do about an interface cm does not provide, by the toolchain that adds it.
fn unprovided_hint(import: &str) -> &'static str {
    if import.starts_with("wasi:http/") {
        "; a componentize-js (StarlingMonkey) build leaves it out with `-d http -d fetch-event`"
    } else {
        " (plugins get no network, files, environment or clock); build without it"
    }
}

/// "resource limit exceeded: instance count too high at 17" as the limit it broke.
fn store_limit(message: &str) -> Option<String> {
    use crate::limits::{PLUGIN_INSTANCES_MAX, PLUGIN_MEMORIES_MAX, PLUGIN_TABLES_MAX};
    let what = message
        .split("resource limit exceeded: ")
        .nth(1)?
        .split(" count too high")
        .next()?;
    Some(match what {
        "instance" => format!(
            "it creates more than {PLUGIN_INSTANCES_MAX} component instances (PLUGIN_INSTANCES_MAX)"
        ),
        "table" => format!("it creates more than {PLUGIN_TABLES_MAX} tables (PLUGIN_TABLES_MAX)"),
        "memory" => format!(
            "it creates more than {PLUGIN_MEMORIES_MAX} linear memories (PLUGIN_MEMORIES_MAX)"
        ),
        other => format!("{other} count too high"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trapping_import_is_named_by_its_interface() {
        let chain = "error while executing at wasm backtrace: unknown import: `wasi:http/types@0.2.10#[constructor]fields` has not been defined";
        assert_eq!(
            unknown_import(chain).as_deref(),
            Some("wasi:http/types@0.2.10")
        );
        assert_eq!(unknown_import("wasm trap: unreachable"), None);
        let err = PluginError::Unprovided {
            plugin: "policy p".into(),
            import: "wasi:http/types@0.2.10".into(),
        };
        assert!(err.to_string().contains("-d http -d fetch-event"), "{err}");
    }

    #[test]
    fn a_compile_error_keeps_its_cause_and_names_the_async_fix() {
        let message = compile_message(
            "failed to parse WebAssembly module: `context.get` requires the component model async feature (at offset 0x1)",
        );
        assert!(
            message.starts_with("failed to parse WebAssembly module: `context.get`"),
            "{message}"
        );
        assert!(message.contains("--backend-qjs-disable-async"), "{message}");
        assert!(!compile_message("invalid magic").contains("async"));
    }

    #[test]
    fn a_store_limit_is_named_by_its_constant() {
        let limit =
            store_limit("resource limit exceeded: instance count too high at 65").expect("a limit");
        assert!(limit.contains("PLUGIN_INSTANCES_MAX"), "{limit}");
        assert!(limit.contains("64"), "{limit}");
        assert_eq!(store_limit("something else"), None);
    }
}
