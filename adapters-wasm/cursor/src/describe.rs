//! Static facts about Cursor: its agent hook events, detection markers, tool naming.

use crate::ADAPTER_ID;
use crate::bindings::exports::context_mode::plugin::adapter::{
    Capabilities, Descriptor, EventBinding,
};
use context_mode_sdk::EventKind;

/// Cursor shows an MCP tool to its model under the tool's own name (hooks see it as
/// `MCP:<tool>`), so reasons name our tools bare: `ctx_execute`.
pub fn ctx_tool_name(_server: &str, tool: &str) -> String {
    tool.to_owned()
}

/// Set in the processes Cursor starts; the session id of last resort before the pid.
pub const ENV_TRACE_ID: &str = "CURSOR_TRACE_ID";

/// One Cursor hook event: the `cm hook` name, Cursor's own name, the kind and what
/// Cursor's reply to it can express.
pub struct CursorEvent {
    pub cli: &'static str,
    pub cursor: &'static str,
    pub kind: EventKind,
    pub capabilities: Capabilities,
}

pub const EVENTS: &[CursorEvent] = &[
    // `permission: deny|ask` with `user_message` / `agent_message`. Cursor accepts
    // `additional_context` but does not show it to the model, so no event claims
    // inject-context: routing never depends on it.
    CursorEvent {
        cli: "pretooluse",
        cursor: "preToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::ASK),
    },
    CursorEvent {
        cli: "posttooluse",
        cursor: "postToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
    // sessionStart is rejected by Cursor's hooks.json validator today and
    // afterAgentResponse is fire-and-forget, so neither is registered.
    CursorEvent {
        cli: "stop",
        cursor: "stop",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
];

/// The event a `cm hook cursor <native>` name stands for (case-insensitive, so
/// Cursor's own spelling such as `preToolUse` works too).
pub fn event_by_cli_name(native: &str) -> Option<&'static CursorEvent> {
    let native = native.trim();
    EVENTS
        .iter()
        .find(|event| event.cli.eq_ignore_ascii_case(native))
}

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Cursor".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["cursor-vscode"]),
        env_markers: strings(&[ENV_TRACE_ID]),
        file_markers: strings(&["~/.cursor"]),
        events: EVENTS
            .iter()
            .map(|event| EventBinding {
                native: event.cli.to_owned(),
                kind: event.kind,
                capabilities: event.capabilities,
            })
            .collect(),
        env_vars: strings(&[ENV_TRACE_ID]),
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(natives, ["pretooluse", "posttooluse", "stop"]);
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
            event_by_cli_name("preToolUse").map(|e| e.kind),
            Some(EventKind::PreToolUse)
        );
        assert!(event_by_cli_name("sessionStart").is_none());
    }
}
