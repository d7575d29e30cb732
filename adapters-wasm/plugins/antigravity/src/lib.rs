//! The Antigravity IDE platform adapter (Google's desktop IDE, not the `agy` CLI, which
//! is `antigravity-cli`). The IDE has an MCP client and no public hook API: no event
//! reaches `cm hook antigravity …`, so routing rests on the `GEMINI.md` instructions
//! it reads. The adapter describes the IDE (how `cm serve` recognises it, where it
//! lives) and plans its setup. Pure: no file, environment or clock access.
//!
//! Sources: **reference** = upstream's platform notes (`### Antigravity`) and its
//! install section; **unverified** = neither says. The IDE does not install here:
//! nothing was run against a real client.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
