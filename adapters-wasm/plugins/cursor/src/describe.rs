//! Static facts about Cursor: its agent hook events, detection markers, tool naming.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// Cursor shows an MCP tool to its model under the tool's own name (hooks see it as
/// `MCP:<tool>`), so reasons name our tools bare: `ctx_execute`.
pub fn ctx_tool_name(_server: &str, tool: &str) -> String {
    tool.to_owned()
}

/// Set in the processes Cursor starts; the session id of last resort before the pid.
pub const ENV_TRACE_ID: &str = "CURSOR_TRACE_ID";

pub const EVENTS: &[HostEvent] = &[
    // `permission: deny|ask` with `user_message` / `agent_message`. Cursor accepts
    // `additional_context` but does not show it to the model, so no event claims
    // inject-context: routing never depends on it.
    HostEvent {
        cli: "pretooluse",
        name: "preToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::ASK),
    },
    HostEvent {
        cli: "posttooluse",
        name: "postToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
    // sessionStart is rejected by Cursor's hooks.json validator today, so it is not
    // registered.
    HostEvent {
        cli: "stop",
        name: "stop",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
    // Fire-and-forget after each assistant response, with its `text` (reference 000,
    // Cursor section; upstream registers it too). It ends the response like `stop`
    // ends the turn: calls that got no result by then were rejected (ADR 0021).
    HostEvent {
        cli: "afteragentresponse",
        name: "afterAgentResponse",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
];

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Cursor".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["cursor-vscode"]),
        env_markers: strings(&[ENV_TRACE_ID]),
        file_markers: strings(&["~/.cursor"]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_TRACE_ID]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "cursor");
        assert_eq!(d.client_names, ["cursor-vscode"]);
        assert_eq!(d.env_markers, ["CURSOR_TRACE_ID"]);
        assert_eq!(d.file_markers, ["~/.cursor"]);
        assert_eq!(d.env_vars, ["CURSOR_TRACE_ID"]);
        assert_eq!(ctx_tool_name("context-mode", "ctx_execute"), "ctx_execute");
    }

    #[test]
    fn no_event_claims_context() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            ["pretooluse", "posttooluse", "stop", "afteragentresponse"]
        );
        assert_eq!(
            d.events[0].capabilities,
            Capabilities::BLOCK | Capabilities::ASK
        );
        assert!(
            d.events
                .iter()
                .all(|e| !e.capabilities.contains(Capabilities::INJECT_CONTEXT))
        );
        assert_eq!(
            event_by_cli_name(EVENTS, "preToolUse").map(|e| e.kind),
            Some(EventKind::PreToolUse)
        );
        assert!(event_by_cli_name(EVENTS, "sessionStart").is_none());
        assert_eq!(
            event_by_cli_name(EVENTS, "afterAgentResponse").map(|e| e.kind),
            Some(EventKind::Stop)
        );
    }
}
