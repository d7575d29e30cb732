//! Static facts about OMP (Oh My Pi): its events, detection markers, tool naming.
//!
//! - Events: OMP keeps Pi's extension API (`pi.on`, the same event names and results;
//!   `tool_call` may also return a replacement `input`; `session_start` carries no
//!   reason), so the events are Pi's (`context_mode_sdk::pi_wire::PI_EVENTS`)
//!   (**verified**: `src/extensibility/extensions/types.ts` and `shared-events.ts` of
//!   18.2.3, and probes).
//! - Markers: OMP sets `OMPCODE=1` (and `CLAUDECODE=1`, which is why OMP is asked first)
//!   in the environment of its `bash` tool (**verified**: probe); `~/.omp` is its home
//!   (**verified**). Upstream's `OMP_PROCESSING_AGENT_DIR` is not read by 18.2.3, which
//!   takes Pi's `PI_CODING_AGENT_DIR` (**verified**: `pi-utils/src/dirs.ts`).
//! - Client name: `omp-coding-agent`, what OMP's own MCP client sends (**verified**:
//!   `src/mcp/client.ts`) and what the extension sends `cm serve`.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::Descriptor;
use context_mode_sdk::pi_wire::PI_EVENTS;
use context_mode_sdk::{HostEvent, event_bindings, strings};

/// The MCP client name the extension sends `cm serve` (OMP's own MCP client's too).
pub const CLIENT_NAME: &str = "omp-coding-agent";

/// The extension's events (the same in Pi and OMP).
pub const EVENTS: &[HostEvent] = PI_EVENTS;

/// The extension registers our tools under their own names: `ctx_execute`.
pub fn ctx_tool_name(_server: &str, tool: &str) -> String {
    tool.to_owned()
}

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "OMP (Oh My Pi)".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&[CLIENT_NAME]),
        env_markers: strings(&["OMPCODE"]),
        file_markers: strings(&["~/.omp"]),
        events: event_bindings(EVENTS),
        env_vars: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(d.id, "omp");
        assert_eq!(d.display_name, "OMP (Oh My Pi)");
        assert_eq!(d.client_names, ["omp-coding-agent"]);
        assert_eq!(d.env_markers, ["OMPCODE"]);
        assert_eq!(d.file_markers, ["~/.omp"]);
        assert!(d.env_vars.is_empty());
        assert_eq!(d.events.len(), PI_EVENTS.len());
        assert_eq!(ctx_tool_name("context-mode", "ctx_execute"), "ctx_execute");
    }
}
