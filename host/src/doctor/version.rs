//! The version of `cm` and the plugin contract it accepts.

use super::Check;
use crate::plugins::bindings::{ADAPTER_EXPORT, POLICY_EXPORT, WIT_PACKAGE, WIT_VERSION};

pub fn check() -> Check {
    Check::pass(
        "version",
        format!(
            "cm {}; plugin contract {WIT_PACKAGE}@{WIT_VERSION} ({} / {})",
            env!("CARGO_PKG_VERSION"),
            short_interface(ADAPTER_EXPORT),
            short_interface(POLICY_EXPORT),
        ),
    )
}

/// `context-mode:plugin/adapter@0.1.0` → `adapter`.
fn short_interface(export: &str) -> &str {
    let name = export.rsplit_once('/').map_or(export, |(_, n)| n);
    name.split_once('@').map_or(name, |(n, _)| n)
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_version_and_the_contract() {
        let row = super::check();
        assert!(
            row.detail.contains(env!("CARGO_PKG_VERSION")),
            "{}",
            row.detail
        );
        assert!(
            row.detail.contains(&format!(
                "context-mode:plugin@{} (adapter / routing-policy)",
                crate::plugins::bindings::WIT_VERSION
            )),
            "{}",
            row.detail
        );
    }
}
