//! The GitHub Copilot CLI platform adapter: Copilot CLI's hook JSON ⇄ context-mode's
//! normalized events and replies, plus the config edits that register context-mode
//! with Copilot CLI. Pure: no file, environment or clock access.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
