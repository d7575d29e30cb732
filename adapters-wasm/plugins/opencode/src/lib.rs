//! The OpenCode platform adapter: the events OpenCode hands its plugins, as the shim
//! `cm setup` installs passes them on, ⇄ context-mode's normalized events and replies,
//! plus the config edits that register context-mode with OpenCode. Pure: no file,
//! environment or clock access.
//!
//! `wire`, `parse`, `render` and `plan` are shared with the KiloCode adapter (an
//! OpenCode fork with the same plugin API), which includes these files; only
//! `describe` and `setup` are OpenCode's own. Facts are marked **verified** (the real
//! opencode-ai 1.18.33 and @kilocode/cli 7.7.7, their bundled source and a probe plugin
//! through their own loaders) or **reference** (upstream's `### OpenCode` notes).

mod describe;
mod parse;
mod plan;
mod render;
mod setup;
#[cfg(test)]
mod tests;
mod wire;

context_mode_sdk::export_adapter!();
