//! Static facts about Gemini CLI: its events, detection markers, tool naming.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// Gemini CLI names an MCP server's tools `generateValidName(server + "_" + tool)`
/// (`packages/core/src/tools/mcp-tool.ts`, the same in the 0.61.0 bundle): `mcp_`
/// in front unless the name starts with it, every character outside
/// `[a-zA-Z0-9_\-.:]` turned into `_`, a `_` in front of a name not starting with a
/// letter or `_`, and a name over 63 characters cut to its first 30 + `...` + last 30.
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    let joined = format!("{server}_{tool}");
    let prefixed = if joined.starts_with("mcp_") {
        joined
    } else {
        format!("mcp_{joined}")
    };
    let mut name: String = prefixed
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_-.:".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    let chars: Vec<char> = name.chars().collect();
    if chars.len() > GEMINI_TOOL_NAME_MAX_CHARS {
        let head: String = chars[..30].iter().collect();
        let tail: String = chars[chars.len() - 30..].iter().collect();
        name = format!("{head}...{tail}");
    }
    name
}

/// Gemini's function-name limit is 64; it keeps names to 63 "to be safe".
const GEMINI_TOOL_NAME_MAX_CHARS: usize = 63;

/// Set by Gemini CLI in every hook's environment; `CLAUDE_PROJECT_DIR` is its
/// compatibility alias of the same value.
pub const ENV_PROJECT_DIR: &str = "GEMINI_PROJECT_DIR";
pub const ENV_PROJECT_DIR_ALIAS: &str = "CLAUDE_PROJECT_DIR";
pub const ENV_SESSION_ID: &str = "GEMINI_SESSION_ID";

pub const EVENTS: &[HostEvent] = &[
    // `decision: "deny"` stops the call and sends the reason to the model as the
    // tool's error; `hookSpecificOutput.tool_input` is merged over the arguments.
    // No additionalContext here: Gemini reads it from AfterTool, not BeforeTool.
    HostEvent {
        cli: "beforetool",
        name: "BeforeTool",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::REWRITE_INPUT),
    },
    // additionalContext is appended to the tool result the model reads.
    HostEvent {
        cli: "aftertool",
        name: "AfterTool",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // Advisory and asynchronous: it can neither block nor add context.
    HostEvent {
        cli: "precompress",
        name: "PreCompress",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "sessionstart",
        name: "SessionStart",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // Fires before each prompt reaches the model, with `prompt`; its additionalContext is
    // added to that turn. Gemini fires no SessionStart after PreCompress, so this is where
    // the state block saved at compaction comes back (ADR 0021).
    HostEvent {
        cli: "beforeagent",
        name: "BeforeAgent",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
];

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Gemini CLI".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["gemini-cli-mcp-client"]),
        // Gemini CLI sets GEMINI_CLI=1 for the stdio MCP servers it starts.
        env_markers: strings(&["GEMINI_CLI"]),
        file_markers: strings(&["~/.gemini"]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_PROJECT_DIR, ENV_PROJECT_DIR_ALIAS, ENV_SESSION_ID]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "gemini-cli");
        assert_eq!(d.client_names, ["gemini-cli-mcp-client"]);
        assert_eq!(d.env_markers, ["GEMINI_CLI"]);
        assert_eq!(d.file_markers, ["~/.gemini"]);
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "mcp_context-mode_ctx_execute"
        );
        assert_eq!(
            ctx_tool_name("my ctx", "ctx_search"),
            "mcp_my_ctx_ctx_search"
        );
        assert_eq!(ctx_tool_name("mcp_x", "ctx_search"), "mcp_x_ctx_search");
        let long = ctx_tool_name(&"s".repeat(60), "ctx_fetch_and_index");
        assert_eq!(long.chars().count(), 63);
        assert!(
            long.starts_with("mcp_sss")
                && long.contains("...")
                && long.ends_with("_ctx_fetch_and_index")
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
    fn five_events_with_what_gemini_can_express() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            [
                "beforetool",
                "aftertool",
                "precompress",
                "sessionstart",
                "beforeagent"
            ]
        );
        let before = &d.events[0];
        assert!(before.capabilities.contains(Capabilities::BLOCK));
        assert!(before.capabilities.contains(Capabilities::REWRITE_INPUT));
        assert!(!before.capabilities.contains(Capabilities::INJECT_CONTEXT));
        assert!(!before.capabilities.contains(Capabilities::ASK));
        assert_eq!(d.events[1].capabilities, Capabilities::INJECT_CONTEXT);
        assert!(d.events[2].capabilities.is_empty());
        assert_eq!(d.events[3].capabilities, Capabilities::INJECT_CONTEXT);
        assert_eq!(d.events[4].capabilities, Capabilities::INJECT_CONTEXT);
    }

    #[test]
    fn gemini_spellings_match() {
        assert_eq!(
            event_by_cli_name(EVENTS, "BeforeTool").map(|e| e.kind),
            Some(EventKind::PreToolUse)
        );
        assert_eq!(
            event_by_cli_name(EVENTS, " PreCompress ").map(|e| e.kind),
            Some(EventKind::PreCompact)
        );
        assert_eq!(
            event_by_cli_name(EVENTS, "BeforeAgent").map(|e| e.kind),
            Some(EventKind::UserPrompt)
        );
        assert!(event_by_cli_name(EVENTS, "AfterAgent").is_none());
    }
}
