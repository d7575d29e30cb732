//! Guest SDK for context-mode plugins (adapters and routing policies).
//!
//! The SDK generates the contract once ([`contract`]): an adapter crate's `lib.rs` is
//! its modules plus [`export_adapter!`], a policy's is its modules plus
//! [`export_policy!`], and every guest uses the types re-exported here.
//!
//! Besides the types, the SDK holds the logic every adapter needs and that
//! must not drift between adapters: tool-name normalization, the builder of a
//! normalized `tool-call`, tool-output flattening, session-id helpers and
//! panic-free JSON access.

// The export macros name this crate by its path, also when expanded inside it.
extern crate self as context_mode_sdk;

pub mod claude_wire;
pub mod contract;
pub mod copilot_wire;
pub mod events;
mod export;
#[cfg(not(target_arch = "wasm32"))]
pub mod golden;
#[cfg(all(feature = "hostile-inputs", not(target_arch = "wasm32")))]
pub mod hostile;
pub mod json;
pub mod mcp_only;
pub mod opencode_wire;
pub mod output;
pub mod pi_wire;
mod policy_types;
pub mod reply;
pub mod session;
pub mod setup;
pub mod tool_call;
pub mod tool_name;

pub use contract::{adapter, policy, types};
pub use types::{EventKind, NormalizedEvent, SessionSource, ToolCall, ToolKind, ToolResult};

pub use events::{
    HostEvent, event_and_payload, event_bindings, event_by_cli_name, event_tool_call,
    replied_event, strings,
};
pub use json::{JsonObject, parse_object};
pub use output::{ToolOutput, tool_output};
pub use session::{env_value, pid_session_id, session_id_from_transcript, session_source};
pub use tool_call::{
    build_tool_call, input_object, input_str, payload_tool_call, replace_input_field,
};
pub use tool_name::{CTX_TOOLS, ParsedToolName, is_ctx_tool_name, parse_tool_name, tool_kind};

/// Re-exported so guest crates build JSON with the same `serde_json` (and the
/// same key-order feature) as the SDK.
pub use serde_json;
