//! Guest SDK for context-mode plugins (adapters and routing policies).
//!
//! A plugin crate generates its own world and points the shared `types`
//! interface at this crate, so every guest uses one set of type definitions:
//!
//! ```ignore
//! wit_bindgen::generate!({
//!     world: "adapter-plugin",
//!     path: "../../wit/plugin@0.3.0",
//!     with: { "context-mode:plugin/types@0.3.0": context_mode_sdk::types },
//! });
//! ```
//!
//! Besides the types, the SDK holds the logic every adapter needs and that
//! must not drift between adapters: tool-name normalization, the builder of a
//! normalized `tool-call`, tool-output flattening, session-id helpers and
//! panic-free JSON access.

mod bindings {
    wit_bindgen::generate!({
        world: "types-only",
        path: "../../wit/plugin@0.3.0",
        // `types` declares no functions, so nothing would be generated without this.
        generate_unused_types: true,
        additional_derives: [PartialEq],
    });
}

#[cfg(not(target_arch = "wasm32"))]
pub mod golden;
#[cfg(all(feature = "hostile-inputs", not(target_arch = "wasm32")))]
pub mod hostile;
pub mod json;
pub mod output;
pub mod session;
pub mod setup;
pub mod tool_call;
pub mod tool_name;

/// The WIT `types` interface: point `with` at this module.
pub use bindings::context_mode::plugin::types;
pub use types::{EventKind, NormalizedEvent, SessionSource, ToolCall, ToolKind, ToolResult};

pub use json::{JsonObject, parse_object};
pub use output::{ToolOutput, tool_output};
pub use session::{env_value, pid_session_id, session_id_from_transcript, session_source};
pub use tool_call::{
    build_tool_call, input_object, input_str, payload_tool_call, replace_input_field,
};
pub use tool_name::{ParsedToolName, is_ctx_tool_name, parse_tool_name, tool_kind};

/// Re-exported so guest crates build JSON with the same `serde_json` (and the
/// same key-order feature) as the SDK.
pub use serde_json;
