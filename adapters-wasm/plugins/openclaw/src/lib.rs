//! The OpenClaw platform adapter. OpenClaw spawns no hook command: it imports plugins
//! in-process, so `cm setup` installs a small JavaScript plugin (`configs/openclaw/
//! index.js`) that hands each hook event to `cm hook openclaw <event>` as JSON
//! (`{hook_event_name, event, ctx, sessionId, workspaceDir, cwd}`: OpenClaw's own event
//! and context objects, plus what the plugin remembered of the session) and returns
//! the reply to OpenClaw as the hook's result. This crate turns that JSON into
//! normalized events, replies into OpenClaw's hook results, and plans the config
//! edits. Pure: no file, environment or clock access.
//!
//! Sources, per fact: **verified** means seen in OpenClaw 2026.9.6 (npm `openclaw`, its
//! docs under `docs/plugins/hooks/` and the recorded payloads of real
//! `openclaw agent --local` runs, ADR 29); **reference** means upstream context-mode's
//! platform notes only.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
