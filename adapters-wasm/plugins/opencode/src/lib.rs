//! The OpenCode platform adapter: the events OpenCode hands its plugins, as the shim
//! `cm setup` installs passes them on, ⇄ context-mode's normalized events and replies,
//! plus the config edits that register context-mode with OpenCode. Pure: no file,
//! environment or clock access.
//!
//! The wire format, parse, render and the shape of the setup plan are
//! `context_mode_sdk::opencode_wire`, shared with the KiloCode adapter (an OpenCode fork
//! with the same plugin API); only `describe` and where `setup` writes are OpenCode's
//! own. Facts are marked **verified** (the real opencode-ai 1.18.33 and @kilocode/cli
//! 7.7.7, their bundled source and a probe plugin through their own loaders) or
//! **reference** (upstream's `### OpenCode` notes).

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
