//! Static facts about the host: its hook events, how context-mode recognizes it, and
//! how it names MCP tools to its model.

use crate::ADAPTER_ID;
use crate::context_mode::plugin::types::EventKind;
use crate::exports::context_mode::plugin::adapter::{Capabilities, Descriptor, EventBinding};

/// One hook event of the host.
pub struct HostEvent {
    /// The host's name for it, also the `<event>` of `cm hook {{id}} <event>`.
    pub name: &'static str,
    pub kind: EventKind,
    /// What the host's reply to this event can do. context-mode never asks for more:
    /// a redirect on an event that cannot block is dropped, not sent.
    pub capabilities: Capabilities,
}

pub const EVENTS: &[HostEvent] = &[
    // The one event that can stop a call: redirects to ctx_* tools and denials need it.
    HostEvent {
        name: "pre-tool",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK
            .union(Capabilities::ASK)
            .union(Capabilities::INJECT_CONTEXT),
    },
    // Lets context-mode record what a tool did (errors, edited files) for the session.
    HostEvent {
        name: "post-tool",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // Where context-mode tells the model how to use its tools.
    HostEvent {
        name: "session-start",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // The end of a turn: closes what the session journal has open.
    HostEvent {
        name: "stop",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
];

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.into(),
        display_name: "{{id}}".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        // The `clientInfo.name` the host sends when it starts `cm serve`.
        client_names: vec![ADAPTER_ID.into()],
        // Variables set in the processes the host starts (none known for this host).
        env_markers: Vec::new(),
        // `cm setup` without `--agents` sets up the hosts whose marker exists.
        file_markers: vec![format!("~/.{ADAPTER_ID}")],
        events: EVENTS
            .iter()
            .map(|event| EventBinding {
                native: event.name.into(),
                kind: event.kind,
                capabilities: event.capabilities,
            })
            .collect(),
        // The variables `parse` is given (only host markers and directories are allowed:
        // see docs/PLUGINS.md). This host passes everything on stdin.
        env_vars: Vec::new(),
    }
}

/// The name the host shows its model for one of context-mode's MCP tools: redirects
/// name the tool to call, so this must be exactly what the model sees.
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}
