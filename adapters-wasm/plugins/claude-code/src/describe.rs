//! Static facts about Claude Code: its events, detection markers, tool naming.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// Claude Code names an MCP tool `mcp__${normalize(server)}__${tool}`, where
/// `normalize` turns every character outside `[a-zA-Z0-9_-]` into `_` (2.1.332's
/// bundle: `Qbo=(e,o)=>\`mcp__${Hn(e)}__${o}\``, `Hn` the replace). A marketplace
/// plugin's server is registered as `plugin:<plugin>:<server>`, so the host passes
/// that as the server name and it becomes `mcp__plugin_<plugin>_<server>__<tool>`.
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    let server: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("mcp__{server}__{tool}")
}

pub const ENV_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
/// Claude Code sets this for its hooks and MCP servers (verified in 2.1.332);
/// `CLAUDE_SESSION_ID` is the name upstream context-mode reads, kept as a fallback.
pub const ENV_SESSION_ID: &str = "CLAUDE_CODE_SESSION_ID";
pub const ENV_LEGACY_SESSION_ID: &str = "CLAUDE_SESSION_ID";

pub const EVENTS: &[HostEvent] = &[
    HostEvent {
        cli: "pretooluse",
        name: "PreToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK
            .union(Capabilities::ASK)
            .union(Capabilities::REWRITE_INPUT)
            .union(Capabilities::INJECT_CONTEXT),
    },
    HostEvent {
        cli: "posttooluse",
        name: "PostToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT.union(Capabilities::REWRITE_OUTPUT),
    },
    // A tool that failed (Bash exiting non-zero, a Write to a bad path) fires this
    // instead of PostToolUse; the journal needs it to see errors and their fixes.
    // Claude Code takes context from it but no replacement output.
    HostEvent {
        cli: "posttoolusefailure",
        name: "PostToolUseFailure",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    HostEvent {
        cli: "userpromptsubmit",
        name: "UserPromptSubmit",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::INJECT_CONTEXT.union(Capabilities::BLOCK),
    },
    HostEvent {
        cli: "precompact",
        name: "PreCompact",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "sessionstart",
        name: "SessionStart",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
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
        display_name: "Claude Code".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["claude-code", "claude-ai"]),
        env_markers: strings(&["CLAUDE_CODE_ENTRYPOINT", "CLAUDECODE", ENV_PROJECT_DIR]),
        file_markers: strings(&["~/.claude"]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_SESSION_ID, ENV_LEGACY_SESSION_ID, ENV_PROJECT_DIR]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "claude-code");
        assert_eq!(d.display_name, "Claude Code");
        assert_eq!(d.client_names, ["claude-code", "claude-ai"]);
        assert!(d.env_markers.iter().any(|m| m == "CLAUDECODE"));
        assert_eq!(d.file_markers, ["~/.claude"]);
        assert_eq!(
            d.env_vars,
            [
                "CLAUDE_CODE_SESSION_ID",
                "CLAUDE_SESSION_ID",
                "CLAUDE_PROJECT_DIR"
            ]
        );
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "mcp__context-mode__ctx_execute"
        );
        assert_eq!(
            ctx_tool_name("plugin:context-mode:context-mode", "ctx_execute"),
            "mcp__plugin_context-mode_context-mode__ctx_execute"
        );
        assert_eq!(
            ctx_tool_name("my ctx.v2", "ctx_search"),
            "mcp__my_ctx_v2__ctx_search"
        );
    }

    #[test]
    fn seven_events_with_their_capabilities() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            [
                "pretooluse",
                "posttooluse",
                "posttoolusefailure",
                "userpromptsubmit",
                "precompact",
                "sessionstart",
                "stop"
            ]
        );
        let pre = &d.events[0];
        assert_eq!(pre.kind, EventKind::PreToolUse);
        assert!(
            pre.capabilities
                .contains(Capabilities::BLOCK | Capabilities::ASK)
        );
        assert!(pre.capabilities.contains(Capabilities::REWRITE_INPUT));
        assert!(!pre.capabilities.contains(Capabilities::REWRITE_OUTPUT));
        assert!(
            d.events[1]
                .capabilities
                .contains(Capabilities::REWRITE_OUTPUT)
        );
        assert_eq!(d.events[2].capabilities, Capabilities::INJECT_CONTEXT);
        assert!(d.events[4].capabilities.is_empty());
        assert!(d.events[6].capabilities.is_empty());
    }

    #[test]
    fn cli_names_match_case_insensitively() {
        assert_eq!(
            event_by_cli_name(EVENTS, "PreToolUse").map(|e| e.kind),
            Some(EventKind::PreToolUse)
        );
        assert_eq!(
            event_by_cli_name(EVENTS, " STOP ").map(|e| e.kind),
            Some(EventKind::Stop)
        );
        assert!(event_by_cli_name(EVENTS, "notification").is_none());
        assert_eq!(
            context_mode_sdk::replied_event(EVENTS, "", EventKind::UserPrompt).name,
            "UserPromptSubmit"
        );
    }
}
