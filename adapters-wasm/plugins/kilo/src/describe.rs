//! Static facts about KiloCode: its plugin events (OpenCode's, `opencode_wire`), detection
//! markers, tool naming.
//!
//! - MCP client name `kilo` (**verified**: the client @kilocode/cli 7.7.7 builds);
//! - environment: KiloCode exports `KILO_PID` to everything it starts, and OpenCode's
//!   `OPENCODE=1` too (**verified** in its bundled source), so `KILO_PID` is the marker
//!   and the OpenCode adapter does not take `OPENCODE`;
//! - `~/.config/kilo` (`XDG_CONFIG_HOME` moves it) marks it installed (**verified**:
//!   where it reads `kilo.json`; **reference**: `~/.config/kilo/`).

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::Descriptor;
use context_mode_sdk::{event_bindings, strings};

pub use context_mode_sdk::opencode_wire::{OPENCODE_EVENTS as EVENTS, ctx_tool_name};

/// The global config folder, moved by `XDG_CONFIG_HOME`.
pub const CONFIG_DIR: &str = "{env:XDG_CONFIG_HOME|~/.config}/kilo";

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "KiloCode".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["kilo"]),
        env_markers: strings(&["KILO_PID"]),
        file_markers: strings(&[CONFIG_DIR]),
        events: event_bindings(EVENTS),
        env_vars: strings(&["XDG_CONFIG_HOME"]),
    }
}

#[cfg(test)]
mod descriptor_tests {
    use super::*;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(
            (d.id.as_str(), d.display_name.as_str()),
            ("kilo", "KiloCode")
        );
        assert_eq!(
            (d.client_names.as_slice(), d.env_markers.as_slice()),
            (&["kilo".to_owned()][..], &["KILO_PID".to_owned()][..])
        );
        assert_eq!(d.events.len(), 5);
    }
}
