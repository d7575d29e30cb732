//! Static facts about Codex CLI: its events, detection markers, tool naming.

use crate::ADAPTER_ID;
use crate::bindings::exports::context_mode::plugin::adapter::{
    Capabilities, Descriptor, EventBinding,
};
use context_mode_sdk::EventKind;

/// Codex names an MCP server's tools `mcp__<server>__<tool>`, to its model and in hooks.
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// Set by Codex in the environment of the commands it runs (the session's thread id).
pub const ENV_THREAD_ID: &str = "CODEX_THREAD_ID";

/// Moves Codex's home (`~/.codex`: config.toml, hooks.json, AGENTS.md) when set.
pub const ENV_CODEX_HOME: &str = "CODEX_HOME";

/// Codex's home as a setup path: `$CODEX_HOME` when set, else `~/.codex`.
pub const CODEX_HOME_DIR: &str = "{env:CODEX_HOME|~/.codex}";

/// One Codex hook event: the `cm hook` name, Codex's own name, the kind and what
/// Codex's reply to it can express.
pub struct CodexEvent {
    pub cli: &'static str,
    pub codex: &'static str,
    pub kind: EventKind,
    pub capabilities: Capabilities,
}

pub const EVENTS: &[CodexEvent] = &[
    // Deny only (`permissionDecision: "deny"` or exit 2): Codex refuses
    // `permissionDecision: "ask"`, and older releases refuse `updatedInput` and
    // `additionalContext` here, so neither is claimed. The host turns a rewrite
    // that must not run unchanged into a deny and holds context for later events.
    CodexEvent {
        cli: "pretooluse",
        codex: "PreToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK,
    },
    CodexEvent {
        cli: "posttooluse",
        codex: "PostToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    CodexEvent {
        cli: "precompact",
        codex: "PreCompact",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    CodexEvent {
        cli: "sessionstart",
        codex: "SessionStart",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    CodexEvent {
        cli: "userpromptsubmit",
        codex: "UserPromptSubmit",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::INJECT_CONTEXT.union(Capabilities::BLOCK),
    },
    CodexEvent {
        cli: "stop",
        codex: "Stop",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
];

/// The event a `cm hook codex <native>` name stands for (case-insensitive, so
/// Codex's own spelling such as `PreToolUse` works too).
pub fn event_by_cli_name(native: &str) -> Option<&'static CodexEvent> {
    let native = native.trim();
    EVENTS
        .iter()
        .find(|event| event.cli.eq_ignore_ascii_case(native))
}

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Codex CLI".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        // `codex-mcp-client` from the CLI, `Codex` from the desktop and IDE clients.
        client_names: strings(&["codex-mcp-client", "Codex"]),
        env_markers: strings(&[ENV_THREAD_ID, "CODEX_SANDBOX", "CODEX_MANAGED_BY_NPM"]),
        file_markers: strings(&[CODEX_HOME_DIR]),
        events: EVENTS
            .iter()
            .map(|event| EventBinding {
                native: event.cli.to_owned(),
                kind: event.kind,
                capabilities: event.capabilities,
            })
            .collect(),
        env_vars: strings(&[ENV_THREAD_ID, ENV_CODEX_HOME]),
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
        assert_eq!(d.id, "codex");
        assert_eq!(d.display_name, "Codex CLI");
        assert_eq!(d.client_names, ["codex-mcp-client", "Codex"]);
        assert_eq!(d.file_markers, ["{env:CODEX_HOME|~/.codex}"]);
        assert!(d.env_vars.iter().any(|v| v == "CODEX_HOME"));
        assert!(d.env_markers.iter().any(|m| m == "CODEX_THREAD_ID"));
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "mcp__context-mode__ctx_execute"
        );
    }

    #[test]
    fn pre_tool_use_can_only_deny() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            [
                "pretooluse",
                "posttooluse",
                "precompact",
                "sessionstart",
                "userpromptsubmit",
                "stop"
            ]
        );
        assert_eq!(d.events[0].capabilities, Capabilities::BLOCK);
        assert_eq!(d.events[1].capabilities, Capabilities::INJECT_CONTEXT);
        assert!(d.events[2].capabilities.is_empty());
        assert_eq!(d.events[3].capabilities, Capabilities::INJECT_CONTEXT);
        assert!(d.events[5].capabilities.is_empty());
        assert_eq!(
            event_by_cli_name("UserPromptSubmit").map(|e| e.kind),
            Some(EventKind::UserPrompt)
        );
        assert!(event_by_cli_name("PermissionRequest").is_none());
    }
}
