//! Static facts about Kiro CLI: its events, detection markers, tool naming.
//!
//! - Events: `preToolUse` can block by exit code 2, its stderr handed to the model as
//!   the tool result ("PreToolHook blocked the tool execution: <stderr>"); exit 0 lets
//!   the call run and its stdout is ignored; `postToolUse` is observation-only
//!   (**verified** in docs and Q CLI source). Kiro cannot rewrite input or output
//!   (**reference**, and no reply field exists for it in either source).
//! - Not wired: `agentSpawn` and `userPromptSubmit` add a hook's plain-text stdout to
//!   the context (**verified (docs)**), `stop` is observation-only. Upstream does not
//!   register them (**reference**) and neither does this adapter yet: their reply is
//!   plain text rather than JSON, which the shared golden harness does not take today.
//! - Client name `Kiro CLI`: **reference-only** (upstream's client map, Kiro issue
//!   #5205); Q CLI sent `Q DEV CLI`.
//! - No session id in any payload (**verified (docs)**): the pid fallback.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// Kiro names an MCP tool `@<server>/<tool>` in hook payloads, matchers and
/// `allowedTools` (**verified**: Kiro's hooks page, "MCP Example", `@postgres/query`;
/// Q CLI's `MCP_SERVER_TOOL_DELIMITER`). The model itself is given the bare tool name
/// when it collides with nothing (Q CLI's tool manager); `@context-mode/ctx_*` names
/// the tool unambiguously either way (**reference**: "Tool names appear as
/// `@context-mode/ctx_batch_execute`").
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("@{server}/{tool}")
}

pub const EVENTS: &[HostEvent] = &[
    // Exit code 2 + stderr: the reason reaches the model, so a redirect works as a deny.
    HostEvent {
        cli: "pretooluse",
        name: "preToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK,
    },
    // The tool already ran; Kiro only shows stderr of a failing hook to the user.
    HostEvent {
        cli: "posttooluse",
        name: "postToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
];

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Kiro CLI".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["Kiro CLI"]),
        env_markers: Vec::new(),
        file_markers: strings(&["~/.kiro"]),
        events: event_bindings(EVENTS),
        env_vars: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "kiro");
        assert_eq!(d.display_name, "Kiro CLI");
        assert_eq!(d.client_names, ["Kiro CLI"]);
        assert_eq!(d.file_markers, ["~/.kiro"]);
        assert!(d.env_vars.is_empty() && d.env_markers.is_empty());
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "@context-mode/ctx_execute"
        );
    }

    #[test]
    fn pre_tool_use_blocks_and_post_tool_use_only_observes() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(natives, ["pretooluse", "posttooluse"]);
        assert_eq!(d.events[0].capabilities, Capabilities::BLOCK);
        assert!(d.events[1].capabilities.is_empty());
        assert_eq!(
            event_by_cli_name(EVENTS, "preToolUse").map(|e| e.kind),
            Some(EventKind::PreToolUse)
        );
        assert!(event_by_cli_name(EVENTS, "agentSpawn").is_none());
    }
}
