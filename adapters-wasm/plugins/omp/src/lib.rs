//! The OMP (Oh My Pi, `@oh-my-pi/pi-coding-agent`) platform adapter: the JSON the
//! context-mode extension hands over ⇄ normalized events and replies, plus the config
//! edits that install the extension. Pure: no file, environment or clock access.
//!
//! OMP is a fork of Pi that runs on Bun and keeps Pi's extension API, so it loads the
//! same extension (`configs/pi/context-mode.js`, with `omp` as its adapter id) from
//! `~/.omp/agent/extensions/`; upstream called OMP "MCP-only", which 18.2.3 is not
//! (docs/adr/0030). State stays apart from Pi's: the extension names this adapter on
//! every `cm hook omp …` and `cm serve` call, and sessions are keyed by OMP's own ids.
//!
//! Sources: **verified** = read in the 18.2.3 package (it ships `src/`) and seen in
//! probes of the real CLI against a scripted model; **reference** = upstream's notes.

mod describe;
mod parse;
mod render;
mod setup;
#[cfg(test)]
mod tests;

context_mode_sdk::export_adapter!();
