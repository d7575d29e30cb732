//! Static facts about the Antigravity IDE.
//!
//! - Events: none; the IDE exposes no hook API (**reference**: "MCP-only (no hooks)").
//! - Client name: `antigravity-client` (**reference**: its `clientInfo.name`, from
//!   Apify's MCP client registry). agy, the CLI, says `agy` or `antigravity-cli` and is
//!   another adapter.
//! - Marker: `~/.gemini/antigravity/`, the IDE's folder inside Gemini CLI's `~/.gemini`
//!   (**reference**: its `mcp_config.json` lives there). Not `~/.gemini` itself, which
//!   Gemini CLI and agy have too.
//! - Tool names: the bare MCP tool name, `ctx_execute` (**unverified**).

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

pub fn descriptor() -> Descriptor {
    mcp_only_descriptor(&McpOnlyIdentity {
        id: ADAPTER_ID,
        display_name: "Antigravity IDE",
        version: env!("CARGO_PKG_VERSION"),
        client_names: &["antigravity-client"],
        file_markers: &["~/.gemini/antigravity"],
        env_vars: &[],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_names_the_ide_and_no_events() {
        let d = descriptor();
        assert_eq!(d.id, "antigravity");
        assert_eq!(d.display_name, "Antigravity IDE");
        assert_eq!(d.client_names, ["antigravity-client"]);
        assert_eq!(d.file_markers, ["~/.gemini/antigravity"]);
        assert!(d.events.is_empty());
        assert_eq!(ctx_tool_name("context-mode", "ctx_execute"), "ctx_execute");
    }
}
