//! The plugin host: loads WIT-defined wasm components (platform adapters and routing
//! policies) with wasmtime, each call sandboxed, time- and memory-bounded.

pub mod adapter;
pub mod cache_prune;
pub mod chain;
pub mod contract;
pub mod engine;
pub mod env_vars;
pub mod file;
pub mod policy;
pub mod registry;

pub use adapter::Adapter;
pub use chain::{ChainOutcome, PolicyChain};
pub use contract::ContractVersion;
pub use engine::PluginEngine;
pub use policy::Policy;
pub use registry::{InstalledPlugin, Registry};

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
    #[error("{0}")]
    Io(String),
}

impl PluginError {
    fn engine(err: wasmtime::Error) -> Self {
        Self::Engine(crate::human::first_line(&err.to_string()).to_string())
    }

    fn compile(err: wasmtime::Error) -> Self {
        Self::Compile(crate::human::first_line(&err.to_string()).to_string())
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
        matches!(self, Self::Timeout { .. } | Self::Trap { .. })
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
            // Lifting invalid values (bad UTF-8, out-of-bounds pointers, bad discriminants).
            None => Self::Garbage {
                plugin,
                message: crate::human::first_line(&err.to_string()).to_string(),
            },
        }
    }
}
