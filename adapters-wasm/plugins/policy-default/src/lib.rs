//! The built-in routing policy of context-mode (`default`).
//!
//! It decides, for one normalized tool call, allow / redirect / deny / ask /
//! rewrite / add-context, and owns the wording of every reason.
//! All logic is plain Rust ([`policy::decide`]) over the SDK's contract types,
//! so every rule is tested natively; [`DefaultPolicy`] is the component.

pub mod embedded;
pub mod policy;
pub mod reasons;
pub mod routing;
pub mod rules;
pub mod shell;
pub mod subjects;

#[cfg(test)]
mod tests;

use context_mode_sdk::policy::{Decision, Guest, PolicyContext, PolicyInfo, ToolCall};

pub use policy::{OUTPUT_CAP_BYTES, decide};

/// The policy's stable id (also `package.metadata.context-mode.id` in Cargo.toml,
/// the id `host/build.rs` embeds it under).
pub const POLICY_ID: &str = "default";

/// The component: `describe` and `decide` of the contract's `routing-policy`.
pub struct DefaultPolicy;

impl Guest for DefaultPolicy {
    fn describe() -> PolicyInfo {
        PolicyInfo {
            id: POLICY_ID.to_string(),
            display_name: "context-mode default routing".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    fn decide(call: ToolCall, context: PolicyContext) -> Decision {
        policy::decide(&call, &context)
    }
}

context_mode_sdk::export_policy!(DefaultPolicy);
