//! `cm`: context-mode's native host — MCP server, hook dispatcher, plugin host and CLI.
//! The binary (`main.rs`) only calls [`cli::main`].

pub mod agent_session;
pub mod chunk;
pub mod cli;
pub mod doctor;
pub mod env;
pub mod fetch;
pub mod hooks;
pub mod human;
pub mod journal;
#[cfg(test)]
mod layers;
pub mod lenient;
pub mod limits;
pub mod mcp;
pub mod model;
pub mod paths;
pub mod permissions;
pub mod platform;
pub mod plugins;
pub mod readiness;
pub mod report;
pub mod sandbox;
pub mod search;
pub mod service;
pub mod setup;
pub mod state_memo;
pub mod store;
pub mod timestamp;
pub mod upgrade;
pub mod worktree;
