//! Quill: its hook events, detection and how it names MCP tools.

use crate::ADAPTER_ID;
use crate::context_mode::plugin::types::EventKind;
use crate::exports::context_mode::plugin::adapter::{Capabilities, Descriptor, EventBinding};

pub struct HostEvent {
    pub name: &'static str,
    pub kind: EventKind,
    pub capabilities: Capabilities,
}

pub const EVENTS: &[HostEvent] = &[
    // Quill can halt an action or ask for confirmation; it shows the model nothing else.
    HostEvent {
        name: "before-action",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::ASK),
    },
    HostEvent {
        name: "after-action",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        name: "turn-complete",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
];

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.into(),
        display_name: "Quill".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        client_names: vec!["quill-agent".into()],
        env_markers: vec!["QUILL_SESSION_ID".into()],
        file_markers: vec!["~/.quill".into()],
        events: EVENTS
            .iter()
            .map(|event| EventBinding {
                native: event.name.into(),
                kind: event.kind,
                capabilities: event.capabilities,
            })
            .collect(),
        env_vars: vec!["QUILL_SESSION_ID".into()],
    }
}

/// Quill shows MCP tools to its model as `<server>/<tool>`.
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("{server}/{tool}")
}
