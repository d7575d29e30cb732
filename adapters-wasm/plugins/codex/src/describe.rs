//! Static facts about Codex CLI: its events, detection markers, tool naming.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// Codex names an MCP server's tools `mcp__<server>__` + `<tool>`, each part passed
/// through `sanitize_responses_api_tool_name`, which turns every character but ASCII
/// letters, digits and `_` into `_` (`codex-rs/codex-mcp/src/mcp/mod.rs`,
/// `qualified_mcp_tool_name_prefix`; `mcp_tool_names.rs`, `qualify_tools`): the
/// server `context-mode` gives `mcp__context_mode__ctx_execute`, to the model and in
/// hooks. (Names over 64 bytes or colliding get a hash suffix; ours are far shorter.)
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    format!(
        "{}{}",
        sanitize(&format!("mcp__{server}__")),
        sanitize(tool)
    )
}

fn sanitize(name: &str) -> String {
    let sanitized: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if sanitized.is_empty() {
        "_".to_owned()
    } else {
        sanitized
    }
}

/// Set by Codex in the environment of the commands it runs (the session's thread id).
pub const ENV_THREAD_ID: &str = "CODEX_THREAD_ID";

/// Moves Codex's home (`~/.codex`: config.toml, hooks.json, AGENTS.md) when set.
pub const ENV_CODEX_HOME: &str = "CODEX_HOME";

/// Codex's home as a setup path: `$CODEX_HOME` when set, else `~/.codex`.
pub const CODEX_HOME_DIR: &str = "{env:CODEX_HOME|~/.codex}";

pub const EVENTS: &[HostEvent] = &[
    // Deny only (`permissionDecision: "deny"` or exit 2): Codex refuses
    // `permissionDecision: "ask"`, and older releases refuse `updatedInput` and
    // `additionalContext` here, so neither is claimed. The host turns a rewrite
    // that must not run unchanged into a deny and holds context for later events.
    HostEvent {
        cli: "pretooluse",
        name: "PreToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK,
    },
    HostEvent {
        cli: "posttooluse",
        name: "PostToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT,
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
        cli: "userpromptsubmit",
        name: "UserPromptSubmit",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::INJECT_CONTEXT.union(Capabilities::BLOCK),
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
        display_name: "Codex CLI".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        // `codex-mcp-client` from the CLI, `Codex` from the desktop and IDE clients.
        client_names: strings(&["codex-mcp-client", "Codex"]),
        env_markers: strings(&[ENV_THREAD_ID, "CODEX_SANDBOX", "CODEX_MANAGED_BY_NPM"]),
        file_markers: strings(&[CODEX_HOME_DIR]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_THREAD_ID, ENV_CODEX_HOME]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

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
            "mcp__context_mode__ctx_execute"
        );
        assert_eq!(
            ctx_tool_name("my.ctx", "ctx_search"),
            "mcp__my_ctx__ctx_search"
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
            event_by_cli_name(EVENTS, "UserPromptSubmit").map(|e| e.kind),
            Some(EventKind::UserPrompt)
        );
        assert!(event_by_cli_name(EVENTS, "PermissionRequest").is_none());
    }
}
