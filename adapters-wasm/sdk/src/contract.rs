//! The WIT contract, generated once for every guest: the shared `types`, the adapter
//! world and the policy world. This is the one place that names the contract's path
//! and version; a contract bump edits this file.
//!
//! Both worlds are generated here with `pub_export_macro`, so a guest crate links
//! only the exports it asks for: the section that declares a world's exports is
//! emitted by that world's export macro, not by this crate (see
//! [`crate::export_adapter!`] and [`crate::export_policy!`]).

/// The `types` interface alone (it declares no functions, so nothing would be
/// generated without `generate_unused_types`).
mod types_world {
    wit_bindgen::generate!({
        world: "types-only",
        path: "../../wit/plugin@0.4.0",
        generate_unused_types: true,
        additional_derives: [PartialEq],
    });
}

pub use types_world::context_mode::plugin::types;

/// The `adapter-plugin` world: what a platform adapter exports.
#[doc(hidden)]
pub mod adapter_world {
    wit_bindgen::generate!({
        world: "adapter-plugin",
        path: "../../wit/plugin@0.4.0",
        with: { "context-mode:plugin/types@0.4.0": crate::contract::types },
        additional_derives: [PartialEq],
        pub_export_macro: true,
        export_macro_name: "export_adapter_world",
        default_bindings_module: "context_mode_sdk::contract::adapter_world",
    });
}

/// The `policy-plugin` world: what a routing policy exports.
#[doc(hidden)]
pub mod policy_world {
    wit_bindgen::generate!({
        world: "policy-plugin",
        path: "../../wit/plugin@0.4.0",
        with: { "context-mode:plugin/types@0.4.0": crate::contract::types },
        additional_derives: [PartialEq],
        pub_export_macro: true,
        export_macro_name: "export_policy_world",
        default_bindings_module: "context_mode_sdk::contract::policy_world",
    });
}

/// The adapter interface's types and its `Guest` trait.
pub use adapter_world::exports::context_mode::plugin::adapter;
/// The routing-policy interface's types and its `Guest` trait, with the shared
/// types a policy reads.
pub mod policy {
    pub use super::policy_world::exports::context_mode::plugin::routing_policy::*;
    pub use super::types::{ToolCall, ToolKind};
}
