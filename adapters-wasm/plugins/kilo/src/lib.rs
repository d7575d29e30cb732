//! The KiloCode platform adapter. KiloCode (`kilo`, npm `@kilocode/cli`) is an OpenCode
//! fork with OpenCode's plugin API unchanged (**verified** on 7.7.7: the same five
//! events with the same arguments, the same `{plugin,plugins}/*.{ts,js}` loader, MCP
//! tools named `<server>_<tool>`), so the wire format, parse, render and the shape of
//! the setup plan are OpenCode's (`context_mode_sdk::opencode_wire`); only where
//! KiloCode keeps its configuration and how it is detected differ. Pure: no file,
//! environment or clock access.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
