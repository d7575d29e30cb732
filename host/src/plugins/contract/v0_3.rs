//! Contract 0.3.0 (`wit/plugin@0.3.0`, the newest): its generated bindings and their
//! conversions to and from the host model. The adapter names the ctx tools itself
//! (`ctx-tool-name`), and the policy context carries every name.

/// The `adapter-plugin` world; also the home of the shared `types` interface.
pub mod adapter_world {
    wasmtime::component::bindgen!({
        path: "../wit/plugin@0.3.0",
        world: "adapter-plugin",
    });
}

/// The `policy-plugin` world, reusing the adapter world's `types`.
pub mod policy_world {
    wasmtime::component::bindgen!({
        path: "../wit/plugin@0.3.0",
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

/// The descriptor, with the names the adapter gave for the ctx tools.
pub fn descriptor(d: Descriptor, ctx_tools: model::CtxToolNames) -> model::Descriptor {
    model::Descriptor {
        id: d.id,
        display_name: d.display_name,
        version: d.version,
        client_names: d.client_names,
        env_markers: d.env_markers,
        file_markers: d.file_markers,
        events: d.events.into_iter().map(Into::into).collect(),
        env_vars: d.env_vars,
        ctx_tools,
    }
}

/// One policy call in this version's types.
pub type PolicyQuestion = (ToolCall, PolicyContext);

/// Lowers one policy call (the host keeps its own for the rest of the chain).
pub fn policy_question(call: &model::ToolCall, context: &model::PolicyContext) -> PolicyQuestion {
    let context = PolicyContext {
        platform: context.platform.clone(),
        ctx_tools: context
            .ctx_tools
            .iter()
            .map(|(tool, name)| CtxTool {
                tool: tool.to_string(),
                name: name.to_string(),
            })
            .collect(),
        server_live: context.server_live,
        rules: context.rules.iter().cloned().map(Into::into).collect(),
        nudges_shown: context.nudges_shown.clone(),
        file_size_bytes: context.file_size_bytes,
        project_dir: context.project_dir.clone(),
    };
    (call.clone().into(), context)
}
