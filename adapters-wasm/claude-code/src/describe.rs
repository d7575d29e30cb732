//! Static facts about Claude Code: its events, detection markers, tool naming.

use crate::ADAPTER_ID;
use crate::bindings::exports::context_mode::plugin::adapter::{
    Capabilities, Descriptor, EventBinding,
};
use context_mode_sdk::EventKind;

/// How Claude Code names context-mode's tools when installed as its plugin
/// `context-mode` (`mcp__plugin_<plugin>_<server>__<tool>`); the standalone
/// `mcp__context-mode__ctx_*` spelling is recognised too when parsing.
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__plugin_context-mode_{server}__{tool}")
}

pub const ENV_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
pub const ENV_SESSION_ID: &str = "CLAUDE_SESSION_ID";

/// One Claude Code hook event: the `cm hook` name, Claude's own name, the kind.
pub struct ClaudeEvent {
    pub cli: &'static str,
    pub claude: &'static str,
    pub kind: EventKind,
}

pub const EVENTS: &[ClaudeEvent] = &[
    ClaudeEvent {
        cli: "pretooluse",
        claude: "PreToolUse",
        kind: EventKind::PreToolUse,
    },
    ClaudeEvent {
        cli: "posttooluse",
        claude: "PostToolUse",
        kind: EventKind::PostToolUse,
    },
    // A tool that failed (Bash exiting non-zero, a Write to a bad path) fires this
    // instead of PostToolUse; the journal needs it to see errors and their fixes.
    ClaudeEvent {
        cli: "posttoolusefailure",
        claude: "PostToolUseFailure",
        kind: EventKind::PostToolUse,
    },
    ClaudeEvent {
        cli: "userpromptsubmit",
        claude: "UserPromptSubmit",
        kind: EventKind::UserPrompt,
    },
    ClaudeEvent {
        cli: "precompact",
        claude: "PreCompact",
        kind: EventKind::PreCompact,
    },
    ClaudeEvent {
        cli: "sessionstart",
        claude: "SessionStart",
        kind: EventKind::SessionStart,
    },
    ClaudeEvent {
        cli: "stop",
        claude: "Stop",
        kind: EventKind::Stop,
    },
];

/// The event a `cm hook claude-code <native>` name stands for (case-insensitive;
/// Claude's own spelling such as `PreToolUse` is the same word).
pub fn event_by_cli_name(native: &str) -> Option<&'static ClaudeEvent> {
    let native = native.trim();
    EVENTS
        .iter()
        .find(|event| event.cli.eq_ignore_ascii_case(native))
}

/// The event of a normalized kind.
pub fn event_by_kind(kind: EventKind) -> &'static ClaudeEvent {
    EVENTS
        .iter()
        .find(|event| event.kind == kind)
        .unwrap_or(&EVENTS[0])
}

/// What Claude Code's reply to each event can express.
fn capabilities(event: &ClaudeEvent) -> Capabilities {
    if event.cli == "posttoolusefailure" {
        // Claude Code takes context from it but no replacement output.
        return Capabilities::INJECT_CONTEXT;
    }
    match event.kind {
        EventKind::PreToolUse => {
            Capabilities::BLOCK
                | Capabilities::ASK
                | Capabilities::REWRITE_INPUT
                | Capabilities::INJECT_CONTEXT
        }
        EventKind::PostToolUse => Capabilities::INJECT_CONTEXT | Capabilities::REWRITE_OUTPUT,
        EventKind::UserPrompt => Capabilities::INJECT_CONTEXT | Capabilities::BLOCK,
        EventKind::SessionStart => Capabilities::INJECT_CONTEXT,
        EventKind::PreCompact | EventKind::Stop => Capabilities::empty(),
    }
}

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Claude Code".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["claude-code", "claude-ai"]),
        env_markers: strings(&["CLAUDE_CODE_ENTRYPOINT", "CLAUDECODE", ENV_PROJECT_DIR]),
        file_markers: strings(&["~/.claude"]),
        events: EVENTS
            .iter()
            .map(|event| EventBinding {
                native: event.cli.to_owned(),
                kind: event.kind,
                capabilities: capabilities(event),
            })
            .collect(),
        env_vars: strings(&[ENV_SESSION_ID, ENV_PROJECT_DIR]),
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
        assert_eq!(d.id, "claude-code");
        assert_eq!(d.display_name, "Claude Code");
        assert_eq!(d.client_names, ["claude-code", "claude-ai"]);
        assert!(d.env_markers.iter().any(|m| m == "CLAUDECODE"));
        assert_eq!(d.file_markers, ["~/.claude"]);
        assert_eq!(d.env_vars, ["CLAUDE_SESSION_ID", "CLAUDE_PROJECT_DIR"]);
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "mcp__plugin_context-mode_context-mode__ctx_execute"
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
            event_by_cli_name("PreToolUse").map(|e| e.kind),
            Some(EventKind::PreToolUse)
        );
        assert_eq!(
            event_by_cli_name(" STOP ").map(|e| e.kind),
            Some(EventKind::Stop)
        );
        assert!(event_by_cli_name("notification").is_none());
        assert_eq!(
            event_by_kind(EventKind::UserPrompt).claude,
            "UserPromptSubmit"
        );
    }
}
