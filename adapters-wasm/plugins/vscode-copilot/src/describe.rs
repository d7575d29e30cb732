//! Static facts about VS Code Copilot: its events (the shared
//! [`context_mode_sdk::copilot_wire`] table), detection markers and tool naming.
//!
//! - MCP client name: VS Code's MCP client sends `clientInfo.name` =
//!   `productService.nameLong` (microsoft/vscode `mcpServerRequestHandler.ts`):
//!   "Visual Studio Code", "Visual Studio Code - Insiders", … (matched by the prefix
//!   `Visual Studio Code*`), "Code - OSS" for builds from source. "Visual-Studio-Code"
//!   is the spelling upstream context-mode's client map uses (from the Apify registry),
//!   kept as a fallback. Cursor, a VS Code fork, sends "cursor-vscode" and so is never
//!   taken for VS Code.
//! - Environment marker: `VSCODE_PID`, which VS Code exports to the processes it starts
//!   (reference: "Environment Detection"). Markers are presence-only, so the
//!   reference's `TERM_PROGRAM=vscode` (a value) cannot be one. `VSCODE_PID` is also
//!   set in Cursor's terminals and in every VS Code terminal (a CLI agent started there
//!   inherits it): the marker only decides when no client name matched, and this
//!   adapter has no `order`, so the hosts with specific markers (Cursor's
//!   `CURSOR_TRACE_ID`, Claude Code's, Codex's) are asked first.
//! - File marker: `~/.vscode` (VS Code's extensions directory lives there).
//! - Tool naming: [`context_mode_sdk::copilot_wire::ctx_tool_name`],
//!   `mcp_<server>_<tool>`.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::Descriptor;
use context_mode_sdk::copilot_wire::ENV_PROJECT_DIR;
use context_mode_sdk::{event_bindings, strings};

pub use context_mode_sdk::copilot_wire::{COPILOT_EVENTS as EVENTS, ctx_tool_name};

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "VS Code Copilot".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["Visual Studio Code*", "Visual-Studio-Code", "Code - OSS"]),
        env_markers: strings(&["VSCODE_PID"]),
        file_markers: strings(&["~/.vscode"]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_PROJECT_DIR]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "vscode-copilot");
        assert_eq!(
            d.id,
            context_mode_sdk::copilot_wire::HOOK_PLATFORM,
            "the shared hooks file runs this adapter"
        );
        assert_eq!(d.display_name, "VS Code Copilot");
        assert!(d.client_names.iter().any(|n| n == "Visual Studio Code*"));
        assert_eq!(d.env_markers, ["VSCODE_PID"]);
        assert_eq!(d.file_markers, ["~/.vscode"]);
        assert_eq!(d.env_vars, ["CLAUDE_PROJECT_DIR"]);
        assert_eq!(d.events.len(), 8);
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_fetch_and_index"),
            "mcp_context-mode_ctx_fetch_and_index"
        );
    }
}
