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
//! **Checked against the real client, Kimi Code 2.1.0** (`@moonshot-ai/kimi-code`, run by
//! `tests/e2e/kimi.rs`): `cm setup --agents kimi` writes `~/.kimi-code/config.toml`
//! `[[hooks]]` and `mcp.json` that `kimi doctor` accepts and Kimi loads; in a `kimi -p`
//! session the PreToolUse deny reaches the model as the Bash call's result
//! (`<system>ERROR: Tool execution failed.</system>` then our reason), the MCP tools are
//! offered and answer as `mcp__context-mode__ctx_*`, and the UserPromptSubmit `message`
//! (the routing block) reaches the model; after an automatic compaction (PreCompact
//! with `trigger: "auto"` and Kimi's own `token_count`) the state block comes back with
//! the next prompt of the resumed session. The hook payloads 2.1.0 sent (SessionStart,
//! UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, PreCompact, Stop) are
//! those `parse` reads.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
