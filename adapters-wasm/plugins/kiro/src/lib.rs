//! The Kiro CLI platform adapter: Kiro CLI's hook JSON ⇄ context-mode's normalized
//! events and replies, plus the config edits that register context-mode with Kiro
//! CLI. Pure: no file, environment or clock access.
//!
//! Sources, per fact (each module says which of its facts comes from where):
//! - **reference**: upstream context-mode's platform notes (`### Kiro`);
//! - **verified (docs)**: Kiro CLI's docs (kiro.dev/docs/cli/hooks, /cli/chat/configuration,
//!   /cli/custom-agents), read through the `search` tool;
//! - **verified (source)**: Amazon Q Developer CLI (`aws/amazon-q-developer-cli`,
//!   `crates/chat-cli/src/cli/chat/cli/hooks.rs`, `cli/agent/hook.rs`), the open-source
//!   predecessor Kiro CLI grew out of; its `docs/hooks.md` is word for word Kiro's hooks
//!   page. Kiro CLI itself is closed source, so a fact checked only there is marked so;
//! - **unverified**: none of these says; parsed defensively.
//!
//! No Kiro CLI installs here: nothing was run against a real client.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
