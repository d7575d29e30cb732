//! The host's own model of hook events, tool calls, decisions and setup plans: plain
//! Rust types the journal, hooks, service, setup and reports work with. The plugin
//! contract (WIT, `wit/plugin@<version>/`) is converted to and from these at the
//! plugin boundary only (`plugins::contract`), so a contract bump never ripples past
//! it (docs/adr/0017-host-model-and-contract-versions.md).

mod adapter;
mod ctx_tools;
mod event;
mod policy;
mod setup;

pub use adapter::{
    Capabilities, Descriptor, EventBinding, ParseError, ParseInput, Rendered, Reply, Verdict,
};
pub use ctx_tools::{CTX_TOOLS, CtxToolNames, MCP_SERVER_NAME, SERVED_HOOK_TOOL};
pub use event::{EventKind, NormalizedEvent, SessionSource, ToolCall, ToolKind, ToolResult};
pub use policy::{
    Action, Decision, PermissionRule, PolicyContext, PolicyInfo, Rewrite, RuleEffect, RuleScope,
};
pub use setup::{ConfigEdit, ConfigFormat, EditKind, SetupInput, SetupPlan};

#[cfg(test)]
mod tests;
