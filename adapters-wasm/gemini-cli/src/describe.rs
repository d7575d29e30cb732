//! Static facts about Gemini CLI: its events, detection markers, tool naming.

use crate::ADAPTER_ID;
use crate::bindings::exports::context_mode::plugin::adapter::{
    Capabilities, Descriptor, EventBinding,
};
use context_mode_sdk::EventKind;

/// Gemini CLI names an MCP server's tools `mcp__<server>__<tool>`.
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// Set by Gemini CLI in every hook's environment; `CLAUDE_PROJECT_DIR` is its
/// compatibility alias of the same value.
pub const ENV_PROJECT_DIR: &str = "GEMINI_PROJECT_DIR";
pub const ENV_PROJECT_DIR_ALIAS: &str = "CLAUDE_PROJECT_DIR";
pub const ENV_SESSION_ID: &str = "GEMINI_SESSION_ID";

/// One Gemini CLI hook event: the `cm hook` name, Gemini's own name, the kind and
/// what Gemini's reply to it can express.
pub struct GeminiEvent {
    pub cli: &'static str,
    pub gemini: &'static str,
    pub kind: EventKind,
    pub capabilities: Capabilities,
}

pub const EVENTS: &[GeminiEvent] = &[
    // `decision: "deny"` stops the call and sends the reason to the model as the
    // tool's error; `hookSpecificOutput.tool_input` is merged over the arguments.
    // No additionalContext here: Gemini reads it from AfterTool, not BeforeTool.
    GeminiEvent {
        cli: "beforetool",
        gemini: "BeforeTool",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::REWRITE_INPUT),
    },
    // additionalContext is appended to the tool result the model reads.
    GeminiEvent {
        cli: "aftertool",
        gemini: "AfterTool",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // Advisory and asynchronous: it can neither block nor add context.
    GeminiEvent {
        cli: "precompress",
        gemini: "PreCompress",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    GeminiEvent {
        cli: "sessionstart",
        gemini: "SessionStart",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
];

/// The event a `cm hook gemini-cli <native>` name stands for (case-insensitive,
/// so Gemini's own spelling such as `BeforeTool` works too).
pub fn event_by_cli_name(native: &str) -> Option<&'static GeminiEvent> {
    let native = native.trim();
    EVENTS
        .iter()
        .find(|event| event.cli.eq_ignore_ascii_case(native))
}

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Gemini CLI".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["gemini-cli-mcp-client"]),
        // Gemini CLI sets GEMINI_CLI=1 for the stdio MCP servers it starts.
        env_markers: strings(&["GEMINI_CLI"]),
        file_markers: strings(&["~/.gemini"]),
        events: EVENTS
            .iter()
            .map(|event| EventBinding {
                native: event.cli.to_owned(),
                kind: event.kind,
                capabilities: event.capabilities,
            })
            .collect(),
        env_vars: strings(&[ENV_PROJECT_DIR, ENV_PROJECT_DIR_ALIAS, ENV_SESSION_ID]),
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
        assert_eq!(d.id, "gemini-cli");
        assert_eq!(d.client_names, ["gemini-cli-mcp-client"]);
        assert_eq!(d.env_markers, ["GEMINI_CLI"]);
        assert_eq!(d.file_markers, ["~/.gemini"]);
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "mcp__context-mode__ctx_execute"
        );
        assert_eq!(
            d.env_vars,
            [
                "GEMINI_PROJECT_DIR",
                "CLAUDE_PROJECT_DIR",
                "GEMINI_SESSION_ID"
            ]
        );
    }

    #[test]
    fn four_events_with_what_gemini_can_express() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            ["beforetool", "aftertool", "precompress", "sessionstart"]
        );
        let before = &d.events[0];
        assert!(before.capabilities.contains(Capabilities::BLOCK));
        assert!(before.capabilities.contains(Capabilities::REWRITE_INPUT));
        assert!(!before.capabilities.contains(Capabilities::INJECT_CONTEXT));
        assert!(!before.capabilities.contains(Capabilities::ASK));
        assert_eq!(d.events[1].capabilities, Capabilities::INJECT_CONTEXT);
        assert!(d.events[2].capabilities.is_empty());
        assert_eq!(d.events[3].capabilities, Capabilities::INJECT_CONTEXT);
    }

    #[test]
    fn gemini_spellings_match() {
        assert_eq!(
            event_by_cli_name("BeforeTool").map(|e| e.kind),
            Some(EventKind::PreToolUse)
        );
        assert_eq!(
            event_by_cli_name(" PreCompress ").map(|e| e.kind),
            Some(EventKind::PreCompact)
        );
        assert!(event_by_cli_name("BeforeAgent").is_none());
    }
}
