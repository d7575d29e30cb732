//! The Claude Code platform adapter: Claude Code's hook JSON ⇄ context-mode's
//! normalized events and replies, plus the config edits that register
//! context-mode with Claude Code. Pure: no file, environment or clock access.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

// From 2.1.197 on the tool events are answered by `cm serve` (setup.rs).
context_mode_sdk::export_adapter!(host_version_command = "claude");
