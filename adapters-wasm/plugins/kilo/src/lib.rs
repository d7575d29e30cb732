//! The KiloCode platform adapter. KiloCode (`kilo`, npm `@kilocode/cli`) is an OpenCode
//! fork with OpenCode's plugin API unchanged (**verified** on 7.7.7: the same five
//! events with the same arguments, the same `{plugin,plugins}/*.{ts,js}` loader, MCP
//! tools named `<server>_<tool>`), so the wire format, parse, render and the shape of
//! the setup plan are the OpenCode adapter's own files, included here; only where
//! KiloCode keeps its configuration and how it is detected differ. Pure: no file,
//! environment or clock access.

mod describe;
#[path = "../../opencode/src/parse.rs"]
mod parse;
#[path = "../../opencode/src/plan.rs"]
mod plan;
#[path = "../../opencode/src/render.rs"]
mod render;
mod setup;
#[cfg(test)]
mod tests;
#[path = "../../opencode/src/wire.rs"]
mod wire;

context_mode_sdk::export_adapter!();
