//! The VS Code Copilot platform adapter: the hook JSON of GitHub Copilot's agent in
//! VS Code ⇄ context-mode's normalized events and replies, plus the project files that
//! register context-mode with it. Pure: no file, environment or clock access.
//!
//! The wire protocol lives in the SDK's `copilot_wire`, shared word for word with the
//! JetBrains Copilot adapter: both IDEs run the same Copilot agent and read the same
//! `.github/hooks/*.json`.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
