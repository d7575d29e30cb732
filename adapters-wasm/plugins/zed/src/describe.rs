//! Static facts about Zed.
//!
//! - Events: none. Zed runs no hook command and has no plugin API for tool calls
//!   (**reference**: "MCP-only (no hooks)").
//! - Client name: Zed introduces itself to an MCP server as `Zed` (**verified**:
//!   `crates/context_server/src/client.rs`, `Implementation { name: "Zed", … }`);
//!   `cm serve` compares names ignoring case.
//! - Marker: Zed's settings folder, `~/.config/zed/` on Linux and macOS and
//!   `%APPDATA%\Zed\` on Windows (**reference**: "Windows: `%APPDATA%\Zed\settings.json`";
//!   Zed's docs give the same paths). Written `{env:APPDATA|~/.config}/zed`: `APPDATA`
//!   is set on Windows only (Windows paths ignore case).
//! - Tool names: the Zed agent offers an MCP tool under its own name, `ctx_execute`
//!   (**unverified**: Zed prefixes a tool with its server only when two servers clash).

use crate::ADAPTER_ID;
#[cfg(test)]
use context_mode_sdk::HostEvent;
use context_mode_sdk::adapter::Descriptor;
#[cfg(test)]
use context_mode_sdk::mcp_only::NO_EVENTS;
use context_mode_sdk::mcp_only::{McpOnlyIdentity, mcp_only_descriptor};

/// None: what `generated_parse_test!` checks `parse` against.
#[cfg(test)]
pub const EVENTS: &[HostEvent] = NO_EVENTS;

pub fn ctx_tool_name(_server: &str, tool: &str) -> String {
    tool.to_owned()
}

/// Zed's settings folder on every OS (see the module doc).
pub const SETTINGS_DIR: &str = "{env:APPDATA|~/.config}/zed";

pub fn descriptor() -> Descriptor {
    mcp_only_descriptor(&McpOnlyIdentity {
        id: ADAPTER_ID,
        display_name: "Zed",
        version: env!("CARGO_PKG_VERSION"),
        client_names: &["Zed"],
        file_markers: &[SETTINGS_DIR],
        env_vars: &["APPDATA"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_names_the_host_and_no_events() {
        let d = descriptor();
        assert_eq!(d.id, "zed");
        assert_eq!(d.display_name, "Zed");
        assert_eq!(d.client_names, ["Zed"]);
        assert_eq!(d.file_markers, ["{env:APPDATA|~/.config}/zed"]);
        assert!(d.events.is_empty());
        assert_eq!(d.env_vars, ["APPDATA"]);
        assert_eq!(ctx_tool_name("context-mode", "ctx_search"), "ctx_search");
    }
}
