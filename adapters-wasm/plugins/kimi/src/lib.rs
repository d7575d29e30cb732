//! The Kimi Code CLI platform adapter: Kimi Code's hook JSON ⇄ context-mode's
//! normalized events and replies, plus the config edits that register context-mode
//! with Kimi Code. Pure: no file, environment or clock access.
//!
//! Sources, per fact (each module says which of its facts comes from where):
//! - **reference**: upstream context-mode's platform notes (`### Kimi Code`);
//! - **verified**: Kimi Code CLI's own source and docs (`MoonshotAI/kimi-code`,
//!   `packages/agent-core-v2/src/features/externalHooks/`, `docs/en/customization/`);
//! - **unverified**: neither says; parsed defensively.
//!
//! No Kimi Code installs here: nothing was run against a real client.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
