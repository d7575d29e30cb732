//! The Zed platform adapter. Zed has an MCP client (`context_servers` in its settings)
//! and no hook pipeline: no event reaches `cm hook zed …`, so routing rests on the
//! `AGENTS.md` instructions the Zed agent reads from the project root. The adapter
//! describes Zed (how `cm serve` recognises it, where it lives) and plans its setup.
//! Pure: no file, environment or clock access.
//!
//! Sources: **verified** = read in Zed's source (`zed-industries/zed`) or its docs;
//! **reference** = upstream's platform notes (`### Zed`). Zed is a desktop editor and
//! does not install here: nothing was run against a real client.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
