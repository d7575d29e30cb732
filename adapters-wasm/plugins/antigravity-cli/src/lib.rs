//! The Antigravity CLI (`agy`) platform adapter: agy's hook JSON ⇄ context-mode's
//! normalized events and replies, plus the config edits that register context-mode
//! with agy. Pure: no file, environment or clock access.
//!
//! agy is closed source and publishes no hook reference outside its bundled
//! `agy-customizations` skill. Sources, per fact (each module says which of its facts
//! comes from where):
//! - **reference**: upstream context-mode's platform notes (`### Antigravity CLI (agy)`),
//!   which call most of the payload "empirically-derived/unverified";
//! - **third-party live test**: safe-chains' agy target and its HARNESS-BEHAVIORS.md
//!   (`michaeldhopkins/safe-chains`, agy 1.1.2, 2026-07-13), fetched as source: the
//!   `hooks.json` shape, `toolCall.args.CommandLine`, `workspacePaths`, the reply's
//!   `decision` values and that agy fails closed without one;
//! - **unverified**: neither says; parsed defensively.
//!
//! No agy installs here: nothing was run against a real client.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
