//! Static facts about OpenCode (`opencode`, npm `opencode-ai`): its plugin events
//! (`opencode_wire`), detection markers, tool naming.
//!
//! - MCP client name `opencode` (**verified**: the client OpenCode 1.18.33 builds);
//! - environment: OpenCode exports `OPENCODE=1` and `OPENCODE_PID` to everything it
//!   starts (**verified** in its source); KiloCode exports `OPENCODE=1` too but not
//!   `OPENCODE_PID`, so only the latter marks OpenCode. The desktop shell's
//!   `OPENCODE_CLIENT` and `OPENCODE_TERMINAL` (**reference**) mark it as well;
//! - `~/.config/opencode` (`XDG_CONFIG_HOME` moves it) marks it installed.

use crate::ADAPTER_ID;
use context_mode_sdk::adapter::Descriptor;
use context_mode_sdk::{event_bindings, strings};

pub use context_mode_sdk::opencode_wire::{OPENCODE_EVENTS as EVENTS, ctx_tool_name};

/// The global config folder, moved by `XDG_CONFIG_HOME` (OpenCode uses xdg-basedir).
pub const CONFIG_DIR: &str = "{env:XDG_CONFIG_HOME|~/.config}/opencode";

pub fn descriptor() -> Descriptor {
    Descriptor {
        id: ADAPTER_ID.to_owned(),
        display_name: "OpenCode".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        client_names: strings(&["opencode"]),
        env_markers: strings(&["OPENCODE_PID", "OPENCODE_CLIENT", "OPENCODE_TERMINAL"]),
        file_markers: strings(&[CONFIG_DIR]),
        events: event_bindings(EVENTS),
        env_vars: strings(&["XDG_CONFIG_HOME"]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use context_mode_sdk::adapter::Capabilities;

    #[test]
    fn descriptor_names_the_host() {
        let d = descriptor();
        assert_eq!(
            (d.id.as_str(), d.display_name.as_str()),
            ("opencode", "OpenCode")
        );
        assert_eq!(d.client_names, ["opencode"]);
        assert!(!d.env_markers.iter().any(|m| m == "OPENCODE"));
        let natives: Vec<&str> = d.events.iter().map(|e| e.native.as_str()).collect();
        assert_eq!(
            natives,
            [
                "tool.execute.before",
                "tool.execute.after",
                "chat.message",
                "experimental.session.compacting",
                "experimental.chat.system.transform"
            ]
        );
        assert!(d.events[0].capabilities.contains(Capabilities::BLOCK));
        assert!(!d.events[0].capabilities.contains(Capabilities::ASK));
    }
}
