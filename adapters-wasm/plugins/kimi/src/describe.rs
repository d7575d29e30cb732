//! Static facts about Kimi Code CLI: its events, detection markers, tool naming.
//!
//! - Events and what a reply can carry: **verified** in Kimi Code's hook runner
//!   (`externalHooks/internal/runHook.ts`, `agent/agentExternalHooksService.ts`). It reads
//!   only exit code 2 (stderr = the reason), or on exit 0 a JSON `message` and
//!   `hookSpecificOutput.{permissionDecision: "deny", permissionDecisionReason}`; it
//!   never reads `updatedInput`, `additionalContext` or `permissionDecision: "ask"`.
//!   The reference says Kimi can modify args and output and inject context on every
//!   event; the source (and the issue: "Kimi ignores `updatedInput` in practice") says
//!   otherwise, and the flags follow the source: PreToolUse blocks only; PostToolUse,
//!   SessionStart and PreCompact are observation-only (their replies are ignored);
//!   UserPromptSubmit blocks or adds text to the turn; Stop can only make the agent go
//!   on, which context-mode never asks for.
//! - Client names: `kimi-code` **verified** (`KIMI_MCP_CLIENT_NAME`), `kimi` and
//!   `Kimi Code` **reference-only** (upstream's client map).
//! - `KIMI_CODE_HOME` moving `~/.kimi-code`: **verified** (`app/bootstrap/bootstrap.ts`).

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::{Capabilities, Descriptor};
use context_mode_sdk::{EventKind, HostEvent, event_bindings, strings};

/// Kimi Code names an MCP tool `mcp__<server>__<tool>`, each part with every character
/// outside `[a-zA-Z0-9_-]` turned into `_` and runs of `_` collapsed; a name over 64
/// characters is cut and gets an FNV-1a hash suffix (**verified**:
/// `packages/agent-core-v2/src/mcpCore/tool-naming.ts`, `qualifyMcpToolName`).
pub fn ctx_tool_name(server: &str, tool: &str) -> String {
    let full = format!("mcp__{}__{}", sanitize(server), sanitize(tool));
    if full.chars().count() <= MAX_QUALIFIED_LENGTH {
        return full;
    }
    let hash = stable_hash8(&full);
    let keep = MAX_QUALIFIED_LENGTH - hash.len() - 1;
    let head: String = full.chars().take(keep).collect();
    format!("{head}_{hash}")
}

const MAX_QUALIFIED_LENGTH: usize = 64;

fn sanitize(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for c in part.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '_'
        };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    out
}

/// Kimi's `stableHash8`: FNV-1a over the UTF-16 code units, kept as a signed 32-bit
/// integer the way JavaScript's `^=` and `Math.imul` keep it, printed as JavaScript's
/// `toString(16)` prints it (a `-` for a negative value) and left-padded to 8.
fn stable_hash8(input: &str) -> String {
    let mut hash: i32 = 0x811c_9dc5_u32 as i32;
    for unit in input.encode_utf16() {
        hash ^= i32::from(unit);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    let text = if hash < 0 {
        format!("-{:x}", i64::from(hash).unsigned_abs())
    } else {
        format!("{hash:x}")
    };
    format!("{text:0>8}")
}

/// Moves Kimi Code's home (`~/.kimi-code`: config.toml, mcp.json, AGENTS.md) when set.
pub const ENV_KIMI_CODE_HOME: &str = "KIMI_CODE_HOME";

/// Kimi Code's home as a setup path: `$KIMI_CODE_HOME` when set, else `~/.kimi-code`.
pub const KIMI_HOME_DIR: &str = "{env:KIMI_CODE_HOME|~/.kimi-code}";

pub const EVENTS: &[HostEvent] = &[
    // Deny only: a deny (JSON or exit 2) reaches the model as the tool's error. Kimi
    // reads no `updatedInput` and no `ask`, so a rewrite becomes a redirect and an ask a
    // deny (host/src/hooks/reply.rs).
    HostEvent {
        cli: "pretooluse",
        name: "PreToolUse",
        kind: EventKind::PreToolUse,
        capabilities: Capabilities::BLOCK,
    },
    // Fire-and-forget: the reply is never read; context waits for the next prompt.
    HostEvent {
        cli: "posttooluse",
        name: "PostToolUse",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
    // A tool that failed or was blocked fires this instead (with `error`, no
    // `tool_output`); the journal needs it to see errors. Also fire-and-forget.
    HostEvent {
        cli: "posttoolusefailure",
        name: "PostToolUseFailure",
        kind: EventKind::PostToolUse,
        capabilities: Capabilities::empty(),
    },
    // Awaited, but "return values are completely ignored" (Kimi's docs and source).
    HostEvent {
        cli: "precompact",
        name: "PreCompact",
        kind: EventKind::PreCompact,
        capabilities: Capabilities::empty(),
    },
    // Observation-only in Kimi Code: the routing block is held for the first prompt.
    HostEvent {
        cli: "sessionstart",
        name: "SessionStart",
        kind: EventKind::SessionStart,
        capabilities: Capabilities::empty(),
    },
    // A `message` (or plain stdout) is appended to the turn as a `<hook_result>`; a deny
    // stops the turn before the model is called.
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
        display_name: "Kimi Code".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["kimi-code", "kimi", "Kimi Code"]),
        // Kimi Code sets no variable of its own in a hook's or MCP server's environment
        // that either source names.
        env_markers: Vec::new(),
        file_markers: strings(&[KIMI_HOME_DIR]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_KIMI_CODE_HOME]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::event_by_cli_name;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "kimi");
        assert_eq!(d.display_name, "Kimi Code");
        assert_eq!(d.client_names, ["kimi-code", "kimi", "Kimi Code"]);
        assert_eq!(d.file_markers, ["{env:KIMI_CODE_HOME|~/.kimi-code}"]);
        assert_eq!(d.env_vars, ["KIMI_CODE_HOME"]);
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_execute"),
            "mcp__context-mode__ctx_execute"
        );
        assert_eq!(
            ctx_tool_name("my ctx.v2", "ctx_search"),
            "mcp__my_ctx_v2__ctx_search"
        );
        assert_eq!(ctx_tool_name("a__b", "ctx_x"), "mcp__a_b__ctx_x");
    }

    #[test]
    fn long_names_are_cut_with_kimis_hash() {
        let long = ctx_tool_name(&"s".repeat(60), "ctx_fetch_and_index");
        assert_eq!(long.chars().count(), 64);
        assert!(long.starts_with("mcp__sss"));
        // FNV-1a of "a" is 0xe40c292c: negative as an i32, printed by JS as -1bf3d6d4.
        assert_eq!(stable_hash8("a"), "-1bf3d6d4");
        assert_eq!(stable_hash8(""), "-7ee3623b");
    }

    #[test]
    fn only_pre_tool_use_and_prompts_answer() {
        let d = descriptor();
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            [
                "pretooluse",
                "posttooluse",
                "posttoolusefailure",
                "precompact",
                "sessionstart",
                "userpromptsubmit",
                "stop"
            ]
        );
        assert_eq!(d.events[0].capabilities, Capabilities::BLOCK);
        for i in [1, 2, 3, 4, 6] {
            assert!(
                d.events[i].capabilities.is_empty(),
                "{}",
                d.events[i].native
            );
        }
        assert!(
            d.events[5]
                .capabilities
                .contains(Capabilities::INJECT_CONTEXT)
        );
        assert_eq!(
            event_by_cli_name(EVENTS, "UserPromptSubmit").map(|e| e.kind),
            Some(EventKind::UserPrompt)
        );
        assert!(event_by_cli_name(EVENTS, "SessionEnd").is_none());
    }
}
