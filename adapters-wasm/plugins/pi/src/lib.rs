//! The Pi Coding Agent platform adapter (`@mariozechner/pi-coding-agent`): the JSON the
//! context-mode extension hands over ⇄ normalized events and replies, plus the config
//! edits that install the extension. Pure: no file, environment or clock access.
//!
//! Pi spawns no hook command and has no MCP client ("No MCP", its README): it imports
//! TypeScript/JavaScript extensions from `~/.pi/agent/extensions/` (`PI_CODING_AGENT_DIR`
//! overrides the agent directory). The extension (`configs/pi/context-mode.js`, shared
//! with OMP) forwards `pi.on` events to `cm hook pi <event>` and registers the `ctx_*`
//! tools natively, forwarding them to one `cm serve` (docs/adr/0030).
//!
//! Sources: **verified** = read in the 0.73.1 package (`docs/extensions.md`,
//! `dist/core/extensions/loader.js`) and seen in probes of the real CLI against a
//! scripted model; **reference** = upstream's platform notes.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
