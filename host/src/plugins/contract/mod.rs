//! The plugin contract versions this `cm` accepts, side by side: each released version
//! is a frozen WIT snapshot (`wit/plugin@<version>/`) with its own generated bindings
//! and converter to the host model here (docs/adr/0017-host-model-and-contract-versions.md).
//! Nothing outside `plugins/` names a generated type.

pub(crate) mod shared;
pub mod v0_2;
pub mod v0_3;
pub mod v0_4;

use wasmtime::component::Component;

use super::{PluginEngine, PluginError, PluginKind};

/// The WIT package every contract version belongs to.
pub const WIT_PACKAGE: &str = "context-mode:plugin";

/// One contract version this `cm` can load.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum ContractVersion {
    #[serde(rename = "0.2.0")]
    V0_2,
    #[serde(rename = "0.3.0")]
    V0_3,
    #[serde(rename = "0.4.0")]
    V0_4,
}

impl ContractVersion {
    /// Every accepted version, oldest first.
    pub const ALL: [Self; 3] = [Self::V0_2, Self::V0_3, Self::V0_4];
    /// The version built-in plugins and new plugins are built for.
    pub const NEWEST: Self = Self::V0_4;

    /// The semver of the WIT package, e.g. `0.3.0`.
    pub fn number(self) -> &'static str {
        match self {
            Self::V0_2 => "0.2.0",
            Self::V0_3 => "0.3.0",
            Self::V0_4 => "0.4.0",
        }
    }

    /// The exported interface a component of `kind` has in this version.
    pub fn export(self, kind: PluginKind) -> String {
        let interface = match kind {
            PluginKind::Adapter => "adapter",
            PluginKind::Policy => "routing-policy",
        };
        format!("{WIT_PACKAGE}/{interface}@{}", self.number())
    }

    /// `context-mode:plugin@0.2.0 or @0.3.0 or @0.4.0`, for messages.
    pub fn accepted() -> String {
        let numbers: Vec<String> = Self::ALL
            .iter()
            .map(|v| format!("@{}", v.number()))
            .collect();
        format!("{WIT_PACKAGE}{}", numbers.join(" or "))
    }
}

impl std::fmt::Display for ContractVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.number())
    }
}

/// Which world and contract version a compiled component implements, from its exports
/// (no instantiation); another version of our package, or another world, is refused
/// with a line that says what to do.
pub fn classify(
    engine: &PluginEngine,
    component: &Component,
) -> Result<(PluginKind, ContractVersion), PluginError> {
    let exports: Vec<String> = component
        .component_type()
        .exports(engine.engine())
        .map(|(name, _)| name.to_string())
        .collect();
    for version in ContractVersion::ALL {
        for kind in [PluginKind::Adapter, PluginKind::Policy] {
            if exports.contains(&version.export(kind)) {
                return Ok((kind, version));
            }
        }
    }
    let prefix = format!("{WIT_PACKAGE}/");
    if let Some(other) = exports.iter().find(|e| e.starts_with(&prefix)) {
        let version = other
            .rsplit_once('@')
            .map(|(_, v)| v)
            .unwrap_or("no version");
        return Err(PluginError::Invalid(format!(
            "is built for the plugin contract {WIT_PACKAGE}@{version}; this cm accepts {} — rebuild it against wit/ of this cm",
            ContractVersion::accepted()
        )));
    }
    let newest = ContractVersion::NEWEST;
    Err(PluginError::Invalid(format!(
        "is not a context-mode plugin: it exports [{}], expected {} or {}",
        exports.join(", "),
        newest.export(PluginKind::Adapter),
        newest.export(PluginKind::Policy)
    )))
}

/// The same call on whichever version's bindings an adapter or policy holds (an enum
/// with one variant per version): the expression reads alike, the generated types it
/// converts to and from differ per version.
macro_rules! on_version {
    ($bindings:expr, $plugin:ident => $call:expr) => {
        match $bindings {
            Bindings::V0_2($plugin) => $call,
            Bindings::V0_3($plugin) => $call,
            Bindings::V0_4($plugin) => $call,
        }
    };
}
pub(crate) use on_version;

#[cfg(test)]
mod tests;
