//! Static facts about Antigravity CLI (`agy`): its events, detection markers, tool
//! naming.
//!
//! - Events: `PreToolUse` (bounded to the high-output tools), `PostToolUse`
//!   (capture-only), `Stop` (best effort, not observed in upstream's probes), each named
//!   on the hook's command line since the payload carries no event name (**reference**).
//! - PreToolUse reply: `{"decision": "deny", "reason": …}` blocks and the model reads
//!   "Tool call denied by pre-tool hook: <reason>"; `"ask"` / `"force_ask"` put the call
//!   to the user; `"allow"` does not skip agy's own confirmation (**third-party live
//!   test**, agy 1.1.2). The reference lists no rewrite, output replacement or context
//!   injection for agy, and none of the sources shows a field for them.
//! - Client names `agy`, `antigravity-cli` and the file markers: **reference** (its
//!   client map and detection notes); `~/.gemini/antigravity-cli` is also the marker
//!   safe-chains detects agy by.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// agy shows an MCP server's tools as `<server>/<tool>` (**reference**: "MCP/tool
/// naming `context-mode/<tool>`"; unverified against agy itself).
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("{server}/{tool}")
}

pub const EVENTS: &[HostEvent] = &[
    HostEvent {
        cli: "pretooluse",
        name: "PreToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::ASK),
    },
    // agy's PostToolUse carries no tool output (reference) and no reply field is known.
    HostEvent {
        cli: "posttooluse",
        name: "PostToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "stop",
        name: "Stop",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
];

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Antigravity CLI".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["agy", "antigravity-cli"]),
        // No agy-specific environment variable is known (reference).
        env_markers: Vec::new(),
        file_markers: strings(&[
            "~/.gemini/antigravity-cli",
            "~/.gemini/config/mcp_config.json",
            "~/.local/bin/agy",
        ]),
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
        assert_eq!(d.id, "antigravity-cli");
        assert_eq!(d.display_name, "Antigravity CLI");
        assert_eq!(d.client_names, ["agy", "antigravity-cli"]);
        assert!(d.file_markers.iter().all(|m| m.starts_with("~/")));
        assert!(!d.file_markers.iter().any(|m| m == "~/.gemini"));
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "context-mode/ctx_execute"
        );
    }

    #[test]
    fn three_events_and_only_pre_tool_use_answers() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(natives, ["pretooluse", "posttooluse", "stop"]);
        assert_eq!(
            d.events[0].capabilities,
            Capabilities::BLOCK | Capabilities::ASK
        );
        assert!(
            !d.events[0]
                .capabilities
                .intersects(Capabilities::REWRITE_INPUT | Capabilities::INJECT_CONTEXT)
        );
        assert!(d.events[1].capabilities.is_empty() && d.events[2].capabilities.is_empty());
        assert!(event_by_cli_name(EVENTS, "PreInvocation").is_none());
    }
}
