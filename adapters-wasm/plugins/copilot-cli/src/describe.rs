//! Static facts about GitHub Copilot CLI (`copilot`): its hook events, detection
//! markers, tool naming.
//!
//! Where the facts come from:
//! - reference 000 (`### GitHub Copilot CLI`, main comparison table): the six events,
//!   top-level replies, `~/.copilot` / `COPILOT_HOME`, block + rewrite input, no output
//!   rewrite, context at session start;
//! - GitHub's "Copilot CLI hooks reference" (docs, `cli-hooks-reference.md`): the
//!   camelCase payloads, `permissionDecision` / `permissionDecisionReason` /
//!   `modifiedArgs`, the built-in tool names (`bash`, `view`, `edit`, `create`, `grep`,
//!   `glob`, `web_fetch`, `task`, `powershell`, `ask_user`), `postToolUseFailure`;
//! - the `@github/copilot` 1.0.102 binary (its `changelog.json` and the strings of its
//!   runtime): `additionalContext` is injected for preToolUse (1.0.24), postToolUse
//!   (1.0.49/1.0.51), userPromptSubmitted (1.0.65) and sessionStart (1.0.11); "ask" is
//!   honoured (1.0.4); MCP tools are named `<server>-<tool>` (`github-mcp-server-search_code`);
//!   subprocesses get `COPILOT_CLI=1` (0.0.421).
//!
//! - the real 1.0.102 client, driven by the `e2e-cli` helper (a probe hook dumping
//!   stdin, a scripted model recording what reached it): the camelCase payloads above
//!   (`toolArgs` an object), hooks in `~/.copilot/hooks/*.json` with the `command` key,
//!   hook env `COPILOT_CLI=1` and `COPILOT_PROJECT_DIR=<cwd>`; a deny reason reaches
//!   the model ("Denied by preToolUse hook: <reason>"); `modifiedArgs` replaces the
//!   arguments; postToolUse `modifiedResult {resultType, textResultForLlm}` replaces
//!   the result the model gets (bash and MCP tools alike: the reference's "cannot
//!   modify output" is outdated) and `additionalContext` is appended to it;
//!   sessionStart and userPromptSubmitted context reach the model; MCP tools are
//!   `context-mode-ctx_execute`; the MCP client names itself `copilot-cli` (in
//!   `_meta` of every request: the 2026-07-28 stateless protocol).
//!
//! **Unverified**: preToolUse `additionalContext` and "ask" against the real client
//! (changelog only); `toolArgs` as a JSON string (older releases, per the issue); how a
//! server name with characters outside `[A-Za-z0-9_-]` is spelled in a tool name
//! (taken as `_`); the other client names kept from the reference.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// Copilot CLI names an MCP tool `<server>-<tool>` (the GitHub server's tools show as
/// `github-mcp-server-search_code`). Tool names may only hold `[A-Za-z0-9_-]`, so any
/// other character of the server name is taken to become `_` (unverified).
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
    format!("{server}-{tool}")
}

/// `COPILOT_HOME` moves `~/.copilot` (hooks, MCP config, instructions).
pub const ENV_HOME: &str = "COPILOT_HOME";
/// Set to `1` in every process Copilot CLI starts (changelog 0.0.421; seen in hooks).
pub const ENV_MARKER: &str = "COPILOT_CLI";
/// Set to the project (the session's working directory) for every hook.
pub const ENV_PROJECT_DIR: &str = "COPILOT_PROJECT_DIR";

pub const EVENTS: &[HostEvent] = &[
    // Top-level `permissionDecision` allow|deny|ask with `permissionDecisionReason`
    // (shown to the agent), `modifiedArgs`, `additionalContext`.
    HostEvent {
        cli: "pretooluse",
        name: "preToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK
            .union(Capabilities::ASK)
            .union(Capabilities::REWRITE_INPUT)
            .union(Capabilities::INJECT_CONTEXT),
    },
    // Only after a successful call. `modifiedResult` replaces the result (verified on
    // 1.0.102, although the docs say "SDK programmatic hooks only");
    // `additionalContext` is appended to it.
    HostEvent {
        cli: "posttooluse",
        name: "postToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT.union(Capabilities::REWRITE_OUTPUT),
    },
    // A failed call fires this instead of postToolUse; the journal needs it to see
    // errors. Its guidance channel is stderr with exit code 2, which we never use.
    HostEvent {
        cli: "posttoolusefailure",
        name: "postToolUseFailure",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "userpromptsubmit",
        name: "userPromptSubmitted",
        kind: EventKind::UserPrompt,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    HostEvent {
        cli: "precompact",
        name: "preCompact",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    HostEvent {
        cli: "sessionstart",
        name: "sessionStart",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    HostEvent {
        cli: "stop",
        name: "agentStop",
        kind: EventKind::Stop,
        capabilities: Capabilities::empty(),
    },
];

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "GitHub Copilot CLI".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["copilot-cli", "GitHub Copilot CLI", "github-copilot-cli"]),
        env_markers: strings(&[ENV_MARKER]),
        // Files context-mode writes (or `copilot mcp add` does), never the bare
        // `~/.copilot` a co-installed but unused Copilot CLI leaves behind.
        file_markers: strings(&[
            "{env:COPILOT_HOME|~/.copilot}/mcp-config.json",
            "{env:COPILOT_HOME|~/.copilot}/hooks/context-mode.json",
        ]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_HOME, ENV_PROJECT_DIR]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "copilot-cli");
        assert_eq!(d.display_name, "GitHub Copilot CLI");
        assert!(d.client_names.iter().any(|n| n == "GitHub Copilot CLI"));
        assert_eq!(d.env_markers, ["COPILOT_CLI"]);
        assert_eq!(d.env_vars, ["COPILOT_HOME", "COPILOT_PROJECT_DIR"]);
        assert_eq!(d.client_names[0], "copilot-cli");
        assert!(
            d.file_markers
                .iter()
                .all(|m| m.starts_with("{env:COPILOT_HOME|~/.copilot}/"))
        );
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "context-mode-ctx_execute"
        );
        assert_eq!(
            ctx_tool_name("my ctx.v2", "ctx_search"),
            "my_ctx_v2-ctx_search"
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
        let pre = d.events[0].capabilities;
        assert!(
            pre.contains(Capabilities::BLOCK | Capabilities::ASK | Capabilities::REWRITE_INPUT)
        );
        assert!(!pre.contains(Capabilities::REWRITE_OUTPUT));
        assert_eq!(
            d.events[1].capabilities,
            Capabilities::INJECT_CONTEXT | Capabilities::REWRITE_OUTPUT
        );
        assert!(d.events[2].capabilities.is_empty());
        assert_eq!(
            event_by_cli_name(EVENTS, "PreToolUse").map(|e| e.name),
            Some("preToolUse")
        );
        assert!(event_by_cli_name(EVENTS, "sessionEnd").is_none());
    }
}
