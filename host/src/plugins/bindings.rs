//! Host-side bindings of the WIT contract (`wit/plugin.wit`).

/// The `adapter-plugin` world; also the home of the shared `types` interface.
pub mod adapter_world {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "adapter-plugin",
    });
}

/// The `policy-plugin` world, reusing the adapter world's `types`.
pub mod policy_world {
    wasmtime::component::bindgen!({
        path: "../wit",
        world: "policy-plugin",
        with: {
            "context-mode:plugin/types": super::adapter_world::context_mode::plugin::types,
        },
    });
}

pub use adapter_world::context_mode::plugin::types::{
    EventKind, NormalizedEvent, SessionSource, ToolCall, ToolKind, ToolResult,
};
pub use adapter_world::exports::context_mode::plugin::adapter::{
    Capabilities, ConfigEdit, ConfigFormat, Descriptor, EditKind, EventBinding, ParseError,
    ParseInput, Rendered, Reply, SetupInput, SetupPlan, Verdict,
};
pub use policy_world::exports::context_mode::plugin::routing_policy::{
    Action, Decision, PermissionRule, PolicyContext, PolicyInfo, Rewrite, RuleEffect, RuleScope,
};

/// The contract version this build of `cm` speaks; components built for another are refused.
pub const WIT_PACKAGE: &str = "context-mode:plugin";
pub const WIT_VERSION: &str = "0.2.0";
/// Exported interface names a component of each world must have.
pub const ADAPTER_EXPORT: &str = "context-mode:plugin/adapter@0.2.0";
pub const POLICY_EXPORT: &str = "context-mode:plugin/routing-policy@0.2.0";

impl From<crate::permissions::Rule> for PermissionRule {
    fn from(rule: crate::permissions::Rule) -> Self {
        use crate::permissions::{Effect, Scope};
        PermissionRule {
            pattern: rule.pattern,
            effect: match rule.effect {
                Effect::Allow => RuleEffect::Allow,
                Effect::Deny => RuleEffect::Deny,
                Effect::Ask => RuleEffect::Ask,
            },
            scope: match rule.scope {
                Scope::ProjectLocal => RuleScope::ProjectLocal,
                Scope::Project => RuleScope::Project,
                Scope::User => RuleScope::User,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn the_contract_version_constants_match_the_wit_package() {
        let wit = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit/plugin.wit"),
        )
        .expect("wit/plugin.wit");
        assert!(wit.contains(&format!(
            "package {}@{};",
            super::WIT_PACKAGE,
            super::WIT_VERSION
        )));
        assert!(super::ADAPTER_EXPORT.ends_with(&format!("@{}", super::WIT_VERSION)));
        assert!(super::POLICY_EXPORT.ends_with(&format!("@{}", super::WIT_VERSION)));
    }

    /// The "wrong version" test plugin must differ from the real contract only in its
    /// version, or the refusal test would prove nothing.
    #[test]
    fn the_wrong_version_test_plugin_is_the_contract_with_another_version() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let ours = std::fs::read_to_string(repo.join("wit/plugin.wit")).expect("wit");
        let theirs =
            std::fs::read_to_string(repo.join("tests/plugins/wrong-version/wit/plugin.wit"))
                .expect("copy");
        let expected = ours.replace(
            &format!("package {}@{};", super::WIT_PACKAGE, super::WIT_VERSION),
            &format!("package {}@0.9.0;", super::WIT_PACKAGE),
        );
        assert_eq!(
            theirs, expected,
            "regenerate tests/plugins/wrong-version/wit/plugin.wit from wit/plugin.wit"
        );
    }
}
