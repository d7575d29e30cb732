//! Static facts about Qwen Code: its events, detection markers, tool naming.
//!
//! Where the facts come from:
//! - reference 000 (`### Qwen Code`, main comparison table): Claude Code's wire
//!   protocol, `~/.qwen/settings.json`, `QWEN_PROJECT_DIR`, `session_id`,
//!   `mcp__server__tool`, client names `qwen-cli-mcp-client-*`;
//! - the `@qwen-code/qwen-code` 0.24.4 package (its bundle and the hooks guide it ships,
//!   `bundled/qc-helper/docs/features/hooks.md`), which corrects the reference where
//!   they differ: `firePreToolUseHook` acts on `permissionDecision` deny/ask and a stop,
//!   and **drops** `updatedInput` and `additionalContext` (only a PermissionRequest
//!   hook may rewrite input, and only when a dialog would show); PostToolUse and
//!   PostToolUseFailure `additionalContext` is appended to the tool's result; no event
//!   reads `updatedMCPToolOutput` (the string is nowhere in the bundle), so no output
//!   is ever replaced; UserPromptSubmit and SessionStart context reach the model;
//!   Stop and PostToolUseFailure fire too; the MCP client is named
//!   `qwen-cli-mcp-client-<server>`; an MCP tool is `mcp__<server>__<tool>`, passed
//!   through `normalizeToolNameForProvider` (below);
//! - the real 0.24.4 client, driven by the `e2e-cli` helper: the payloads (see
//!   `parse`), hook env `QWEN_PROJECT_DIR` and `QWEN_CODE_SESSION_ID`, the client name
//!   `qwen-cli-mcp-client-context-mode`, a deny reason reaching the model, SessionStart
//!   context reaching it, our tools called through Qwen's `tool_call` bridge and still
//!   hooked under their own `mcp__context-mode__ctx_*` names.
//!
//! **Unverified** against the real client: "ask", PostToolUseFailure's payload, and
//! PreCompact (read from the bundle and its hooks guide only).
//!
//! So the capability row here is narrower than the reference's matrix (which says
//! Qwen can rewrite input and output): block and ask, context after a tool and at
//! prompt and session start, nothing else.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// Qwen Code's longest tool name (`MAX_TOOL_NAME_LENGTH`).
const MAX_TOOL_NAME: usize = 63;

/// Qwen Code names an MCP tool `mcp__${server}__${tool}`, kept as is when it is at most
/// 63 characters of `[A-Za-z][A-Za-z0-9_-]*`; otherwise every other character becomes
/// `_` (`tool_` is put in front unless it starts with a letter), it is cut to leave room
/// for `_` plus the base-36 FNV-1a hash of the original name (UTF-16 units, padded to 7).
/// Mirrors 0.24.4's `normalizeToolNameForProvider` (`utils/tool-name-utils.ts`).
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    let name = format!("mcp__{server}__{tool}");
    let safe = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if safe && name.len() <= MAX_TOOL_NAME {
        return name;
    }
    // JavaScript replaces each UTF-16 unit: a character outside the BMP becomes `__`.
    let mut sanitized = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            sanitized.push(c);
        } else {
            sanitized.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    if !sanitized.starts_with(|c: char| c.is_ascii_alphabetic()) {
        sanitized.insert_str(0, "tool_");
    }
    let suffix = format!("_{}", stable_hash(&name));
    // Every character is ASCII now (one JS unit each), so byte slicing is exact.
    sanitized.truncate(MAX_TOOL_NAME.saturating_sub(suffix.len()));
    sanitized + &suffix
}

/// 32-bit FNV-1a over UTF-16 code units, in base 36, left-padded with `0` to 7.
fn stable_hash(name: &str) -> String {
    let mut hash: u32 = 2_166_136_261;
    for unit in name.encode_utf16() {
        hash = (hash ^ u32::from(unit)).wrapping_mul(16_777_619);
    }
    let mut digits = Vec::new();
    loop {
        let digit = (hash % 36) as u8;
        digits.push(if digit < 10 {
            b'0' + digit
        } else {
            b'a' + digit - 10
        });
        hash /= 36;
        if hash == 0 {
            break;
        }
    }
    while digits.len() < 7 {
        digits.push(b'0');
    }
    digits.reverse();
    String::from_utf8(digits).unwrap_or_default()
}

/// Set to the project in every command hook's environment (so are
/// `CLAUDE_PROJECT_DIR` and `GEMINI_PROJECT_DIR`, for copied Claude/Gemini hooks).
pub const ENV_PROJECT_DIR: &str = "QWEN_PROJECT_DIR";
/// The session, in every command hook's environment (seen on 0.24.4).
pub const ENV_SESSION_ID: &str = "QWEN_CODE_SESSION_ID";

pub const EVENTS: &[HostEvent] = &[
    HostEvent {
        cli: "pretooluse",
        name: "PreToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK.union(Capabilities::ASK),
    },
    HostEvent {
        cli: "posttooluse",
        name: "PostToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::INJECT_CONTEXT,
    },
    // A failed call fires this instead of PostToolUse, with the failure as `error`.
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
        display_name: "Qwen Code".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["qwen-cli-mcp-client-*"]),
        env_markers: strings(&[ENV_PROJECT_DIR]),
        file_markers: strings(&["~/.qwen"]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_PROJECT_DIR, ENV_SESSION_ID]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "qwen-code");
        assert_eq!(d.display_name, "Qwen Code");
        assert_eq!(d.client_names, ["qwen-cli-mcp-client-*"]);
        assert_eq!(d.env_markers, ["QWEN_PROJECT_DIR"]);
        assert_eq!(d.file_markers, ["~/.qwen"]);
        assert_eq!(d.env_vars, ["QWEN_PROJECT_DIR", "QWEN_CODE_SESSION_ID"]);
    }

    #[test]
    fn mcp_tool_names_follow_qwens_normalizer() {
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "mcp__context-mode__ctx_execute"
        );
        // Values computed with 0.24.4's normalizeToolNameForProvider under Node.
        assert_eq!(
            ctx_tool_name("my ctx.v2", "ctx_search"),
            "mcp__my_ctx_v2__ctx_search_0b92x8g"
        );
        let long = ctx_tool_name(
            "a-very-long-server-name-for-context-mode-tools",
            "ctx_fetch_and_index",
        );
        assert_eq!(
            long,
            "mcp__a-very-long-server-name-for-context-mode-tools__ct_1kw6la7"
        );
        assert_eq!(long.len(), 63);
        assert_eq!(ctx_tool_name("é", "ctx_x"), "mcp_____ctx_x_1nc3uhw");
    }

    #[test]
    fn seven_events_with_what_qwen_really_reads() {
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
        assert_eq!(
            d.events[0].capabilities,
            Capabilities::BLOCK | Capabilities::ASK
        );
        assert!(d.events.iter().all(|e| {
            !e.capabilities
                .intersects(Capabilities::REWRITE_INPUT | Capabilities::REWRITE_OUTPUT)
        }));
        assert_eq!(d.events[1].capabilities, Capabilities::INJECT_CONTEXT);
        assert!(d.events[4].capabilities.is_empty() && d.events[6].capabilities.is_empty());
        assert_eq!(
            event_by_cli_name(EVENTS, "UserPromptSubmit").map(|e| e.kind),
            Some(EventKind::UserPrompt)
        );
    }
}
