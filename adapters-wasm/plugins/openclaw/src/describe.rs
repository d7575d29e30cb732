//! Static facts about OpenClaw: the plugin hook events the shim hands over, detection
//! markers, tool naming.
//!
//! **Verified** (OpenClaw 2026.9.6, ADR 29):
//! - `api.on` typed hooks: `before_tool_call` returns `{block, blockReason}` (the reason
//!   becomes the tool result the model reads), `{params}` (the call runs with them) or
//!   `{requireApproval}` (the user is asked; unanswered means denied); `before_prompt_build`
//!   returns `{prependContext}` (needs `hooks.allowConversationAccess` for a
//!   non-bundled plugin); `after_tool_call`, `session_start`, `before_compaction` and
//!   `after_compaction` are observe-only, their results ignored;
//! - `api.registerHook("command:new")` for `/new` (internal hooks fire only under their
//!   colon names);
//! - MCP servers from `mcp.servers` in `openclaw.json`, their tools named
//!   `<server>__<tool>` (`context-mode__ctx_execute`), the client `openclaw-bundle-mcp`.
//!
//! No output rewrite: `after_tool_call` is observe-only and `tool_result_persist`, the one
//! hook that can replace a result, must answer synchronously, which a spawned `cm`
//! cannot without stalling the gateway's event loop.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// OpenClaw's embedded runtime names an MCP tool `<server>__<tool>` (verified:
/// `context-mode__ctx_execute`, in the tool list and in hook payloads).
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("{server}__{tool}")
}

/// Moves `~/.openclaw` (config, extensions, workspace).
pub const ENV_STATE_DIR: &str = "OPENCLAW_STATE_DIR";

pub const EVENTS: &[HostEvent] = &[
    HostEvent {
        cli: "before_tool_call",
        name: "before_tool_call",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK
            .union(Capabilities::ASK)
            .union(Capabilities::REWRITE_INPUT),
    },
    HostEvent {
        cli: "after_tool_call",
        name: "after_tool_call",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
    // The one event whose result reaches the model as text: context held for the
    // session (a routing block, a state block after compaction) comes back here.
    HostEvent {
        cli: "before_prompt_build",
        name: "before_prompt_build",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // Fired by the gateway for a session's first turn (and by the shim for a first
    // prompt, which embedded runs have instead), its text held for the prompt.
    HostEvent {
        cli: "session_start",
        name: "session_start",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "before_compaction",
        name: "before_compaction",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "after_compaction",
        name: "after_compaction",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "command:new",
        name: "command:new",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::empty(),
    },
];

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "OpenClaw".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["openclaw-bundle-mcp"]),
        env_markers: Vec::new(),
        file_markers: strings(&["{env:OPENCLAW_STATE_DIR|~/.openclaw}"]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_STATE_DIR]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "openclaw");
        assert_eq!(d.display_name, "OpenClaw");
        assert_eq!(d.client_names, ["openclaw-bundle-mcp"]);
        assert_eq!(d.env_vars, ["OPENCLAW_STATE_DIR"]);
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "context-mode__ctx_execute"
        );
    }

    #[test]
    fn only_the_tool_gate_acts_and_only_the_prompt_carries_text() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            [
                "before_tool_call",
                "after_tool_call",
                "before_prompt_build",
                "session_start",
                "before_compaction",
                "after_compaction",
                "command:new"
            ]
        );
        for binding in &d.events {
            let carries = binding.capabilities.contains(Capabilities::INJECT_CONTEXT);
            assert_eq!(carries, binding.native == "before_prompt_build");
            assert_eq!(
                binding.capabilities.contains(Capabilities::BLOCK),
                binding.native == "before_tool_call"
            );
            assert!(!binding.capabilities.contains(Capabilities::REWRITE_OUTPUT));
        }
        assert_eq!(
            event_by_cli_name(EVENTS, "Command:New").map(|e| e.kind),
            Some(EventKind::SessionStart)
        );
    }
}
