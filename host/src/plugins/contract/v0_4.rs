//! Contract 0.4.0 (`wit/plugin@0.4.0`, the newest): its generated bindings and their
//! conversions to and from the host model. As 0.3.0, plus an adapter whose setup plan
//! depends on its host's version (`host-version-command`, `setup-for-version`).

/// The `adapter-plugin` world; also the home of the shared `types` interface.
pub mod adapter_world {
    wasmtime::component::bindgen!({
        path: "../wit/plugin@0.4.0",
        world: "adapter-plugin",
    });
}

/// The `policy-plugin` world, reusing the adapter world's `types`.
pub mod policy_world {
    wasmtime::component::bindgen!({
        path: "../wit/plugin@0.4.0",
        world: "policy-plugin",
        with: {
            "context-mode:plugin/types": super::adapter_world::context_mode::plugin::types,
        },
    });
}

pub use adapter_world::AdapterPlugin;
use adapter_world::context_mode::plugin::types::{
    EventKind, NormalizedEvent, SessionSource, ToolCall, ToolKind, ToolResult,
};
use adapter_world::exports::context_mode::plugin::adapter::{
    Capabilities, ConfigEdit, ConfigFormat, Descriptor, EditKind, EventBinding, ParseError,
    ParseInput, Rendered, Reply, SetupInput, SetupPlan, Verdict,
};
pub use policy_world::PolicyPlugin;
use policy_world::exports::context_mode::plugin::routing_policy::{
    Action, CtxTool, Decision, PermissionRule, PolicyContext, PolicyInfo, Rewrite, RuleEffect,
    RuleScope,
};

use crate::model;

super::shared::shared_conversions!();

super::shared::named_tool_conversions!();
