//! Static facts about JetBrains Copilot: its events and tool naming (VS Code's, the
//! shared [`context_mode_sdk::copilot_wire`]), and its detection markers.
//!
//! - MCP client names (**unverified**): upstream context-mode's client map names
//!   "JetBrains Client", "IntelliJ IDEA" and "PyCharm"; the other IDE names are matched
//!   by prefix the same way (`WebStorm*`, `GoLand*`, …). No JetBrains MCP handshake was
//!   seen here.
//! - Environment markers: none. The IDE's terminal variables
//!   (`TERMINAL_EMULATOR=JetBrains-JediTerm`, a value) are neither presence-only nor
//!   set for the processes the Copilot plugin starts.
//! - File markers: a JetBrains IDE's configuration root (Linux `~/.config/JetBrains`,
//!   macOS `~/Library/Application Support/JetBrains`, Windows
//!   `~/AppData/Roaming/JetBrains`) or the Copilot plugin's own directory
//!   (`~/.config/github-copilot/intellij`, `~/AppData/Local/github-copilot/intellij`;
//!   unverified). A JetBrains IDE without the Copilot plugin is detected too: setup
//!   then writes a hooks file nothing reads.
//! - Tool naming: VS Code's `mcp_<server>_<tool>`
//!   ([`context_mode_sdk::copilot_wire::ctx_tool_name`]);
//!   the reference says JetBrains uses the same naming as VS Code (`f1e_`, an older
//!   prefix the SDK still parses). Unverified for JetBrains.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::Descriptor;
use context_mode_sdk::copilot_wire::ENV_PROJECT_DIR;
use context_mode_sdk::{event_bindings, strings};

pub use context_mode_sdk::copilot_wire::{COPILOT_EVENTS as EVENTS, ctx_tool_name};

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "JetBrains Copilot".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&[
            "JetBrains Client",
            "IntelliJ IDEA*",
            "PyCharm*",
            "WebStorm*",
            "GoLand*",
            "PhpStorm*",
            "RubyMine*",
            "CLion*",
            "Rider*",
            "RustRover*",
            "DataGrip*",
            "Android Studio*",
        ]),
        env_markers: Vec::new(),
        file_markers: strings(&[
            "~/.config/JetBrains",
            "~/Library/Application Support/JetBrains",
            "~/AppData/Roaming/JetBrains",
            "~/.config/github-copilot/intellij",
            "~/AppData/Local/github-copilot/intellij",
        ]),
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
        assert_eq!(d.id, "jetbrains-copilot");
        assert_eq!(d.display_name, "JetBrains Copilot");
        assert!(d.client_names.iter().any(|n| n == "IntelliJ IDEA*"));
        assert!(d.env_markers.is_empty());
        assert!(d.file_markers.iter().all(|m| m.starts_with("~/")));
        assert_eq!(d.env_vars, ["CLAUDE_PROJECT_DIR"]);
        assert_eq!(d.events.len(), 8);
        assert_eq!(
            ctx_tool_name("context-mode", "ctx_search"),
            "mcp_context-mode_ctx_search"
        );
    }
}
