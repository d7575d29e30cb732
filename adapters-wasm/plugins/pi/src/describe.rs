//! Static facts about Pi: its events, detection markers, tool naming.
//!
//! - Events (`context_mode_sdk::pi_wire::PI_EVENTS`): `tool_call` can block
//!   (`{block: true, reason}`, the reason becomes the tool's error result) and rewrite
//!   (handlers mutate `event.input`); `tool_result` can replace `content`;
//!   `before_agent_start` can add a message; `session_start` (`reason`: startup, new,
//!   resume, fork, reload), `session_compact` and `session_before_compact` only observe
//!   (**verified**: docs/extensions.md, and probes of 0.73.1).
//! - Markers: Pi sets `PI_CODING_AGENT=true` in the environment of its `bash` tool
//!   (**verified**: probe); `~/.pi` is its home directory (**verified**).
//! - Client name: the extension introduces itself to `cm serve` as `pi-coding-agent`.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::Descriptor;
use context_mode_sdk::pi_wire::PI_EVENTS;
use context_mode_sdk::{HostEvent, event_bindings, strings};

/// The MCP client name the extension sends `cm serve`.
pub const CLIENT_NAME: &str = "pi-coding-agent";
/// Pi's agent directory override (default `~/.pi/agent`).
pub const ENV_AGENT_DIR: &str = "PI_CODING_AGENT_DIR";

/// The extension's events (the same in Pi and OMP).
pub const EVENTS: &[HostEvent] = PI_EVENTS;

/// The extension registers our tools under their own names: `ctx_execute`.
pub fn ctx_tool_name(_server: &str, tool: &str) -> String {
    tool.to_owned()
}

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "Pi Coding Agent".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&[CLIENT_NAME]),
        env_markers: strings(&["PI_CODING_AGENT"]),
        file_markers: strings(&["~/.pi"]),
        events: event_bindings(EVENTS),
        env_vars: strings(&[ENV_AGENT_DIR]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "pi");
        assert_eq!(d.display_name, "Pi Coding Agent");
        assert_eq!(d.client_names, ["pi-coding-agent"]);
        assert_eq!(d.env_markers, ["PI_CODING_AGENT"]);
        assert_eq!(d.file_markers, ["~/.pi"]);
        assert_eq!(d.env_vars, ["PI_CODING_AGENT_DIR"]);
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            [
                "tool_call",
                "tool_result",
                "session_start",
                "session_compact",
                "before_agent_start",
                "session_before_compact"
            ]
        );
        assert_eq!(ctx_tool_name("context-mode", "ctx_execute"), "ctx_execute");
    }
}
