//! The version of `cm` and the plugin contract versions it accepts.

use super::Check;
use crate::plugins::PluginKind;
use crate::plugins::contract::{ContractVersion, WIT_PACKAGE};

pub fn check() -> Check {
    let newest = ContractVersion::NEWEST;
    let older: Vec<&str> = ContractVersion::ALL
        .iter()
        .filter(|v| **v != newest)
        .map(|v| v.number())
        .collect();
    Check::pass(
        "version",
        format!(
            "cm {}; plugin contract {WIT_PACKAGE}@{newest} ({} / {}), also loads plugins built for {}",
            env!("CARGO_PKG_VERSION"),
            short_interface(&newest.export(PluginKind::Adapter)),
            short_interface(&newest.export(PluginKind::Policy)),
            older.join(", "),
        ),
    )
}

/// `context-mode:plugin/adapter@0.3.0` → `adapter`.
fn short_interface(export: &str) -> &str {
    let name = export.rsplit_once('/').map_or(export, |(_, n)| n);
    name.split_once('@').map_or(name, |(n, _)| n)
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_the_version_and_every_accepted_contract() {
        let row = super::check();
        assert!(
            row.detail.contains(env!("CARGO_PKG_VERSION")),
            "{}",
            row.detail
        );
        assert!(
            row.detail.contains(
                "context-mode:plugin@0.4.0 (adapter / routing-policy), also loads plugins built for 0.2.0, 0.3.0"
            ),
            "{}",
            row.detail
        );
    }
}
